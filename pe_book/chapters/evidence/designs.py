"""Chapter 22's designs of 2025–26 (RoPE with NoPE layers, sliding-window RoPE with global
NoPE, partial and proportional rotation, a high base) and the remapping methods
(Self-Extend, ReRoPE, Dual Chunk Attention): their tables, figures and the numbers the
prose quotes, read from the same results files as the rest of the chapter."""

from __future__ import annotations

import numpy as np

from pe_explained import (
    dual_chunk_largest_distance,
    rerope_largest_distance,
    rope_frequencies,
    self_extend_largest_distance,
)

from ... import Table, figure, table, value
from ...experiments import passkey_by_length, results, span
from ...style import label_line_ends, new_figure, phone_layout_active
from .common import (
    eval_lengths,
    extension,
    length_at,
    length_axis,
    looks,
    loss,
    passkey,
    per_length,
)
from .tables import by_length

#: The designs, each beside plain RoPE, as the page names them.
DESIGN_LABELS = {
    "rope": "RoPE",
    "rope_nope": "RoPE, every 4th layer NoPE",
    "swa_nope": "sliding-window RoPE, global NoPE",
    "partial": "RoPE on a quarter of the head",
    "p_rope": "p-RoPE, fastest quarter",
    "rope_1e6": "RoPE, base 10⁶",
}
#: The context-extension methods compared zero-shot: frequencies against positions.
REMAP_LABELS = {
    "rope": "RoPE, unchanged",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "self_extend": "Self-Extend",
    "rerope": "ReRoPE",
    "dual_chunk": "Dual Chunk Attention",
}


def layer_pattern(encoding: str) -> list[tuple[bool, int | None]]:
    """Per layer of ``encoding``'s models: whether it rotates, and its sliding window, as
    the results record them (from ``pe_explained.layer_positions``)."""
    return [tuple(p) for p in results("length_generalisation")["layers"][encoding]]


def remap_loss(method: str, n: int) -> float:
    """Zero-shot mean loss of the RoPE models under ``method`` at length ``n``."""
    return span(extension()["methods"][method]["zero_shot"]["non_overlapping"][str(n)]["mean"])[0]


def remap_passkey(method: str, n: int) -> float:
    """Zero-shot mean passkey accuracy of the RoPE models under ``method`` at length ``n``."""
    return span(passkey_by_length(extension()["methods"][method]["zero_shot"], n))[0]


# Tables ------------------------------------------------------------------------------


def _design(encoding: str) -> dict:
    return results("length_generalisation")["methods"][encoding]


def _remapped(method: str) -> dict:
    return extension()["methods"][method]["zero_shot"]


#: How the designs' loss table names its two evaluations.
WINDOWS = {"non_overlapping": "non-overlapping", "sliding": "sliding"}


def designs_loss_table() -> Table:
    """The designs' loss at every length, two rows per design: over non-overlapping
    windows, and with the sliding window (the last quarter of each window scored)."""
    tables = {m: by_length("model", DESIGN_LABELS, _design, m) for m in WINDOWS}
    rows = [
        [label, WINDOWS[m], *tables[m].rows[k][1:]]
        for k, label in enumerate(DESIGN_LABELS.values())
        for m in WINDOWS
    ]
    columns = tables["sliding"].columns
    return Table([columns[0], "windows", *columns[1:]], rows)


@table(
    "designs_loss",
    repeats="evidence_designs",
    caption="The designs of 2025–26 models beside plain RoPE: mean loss over non-overlapping "
    "windows and with the sliding window (nats per token), mean over the seeds, range in "
    "brackets.",
)
def _():
    return designs_loss_table()


@table(
    "designs_passkey",
    repeats="evidence_designs",
    caption="The same models' passkey accuracy at each length, averaged over the depths: "
    "mean over the seeds, range in brackets.",
)
def _():
    return by_length("model", DESIGN_LABELS, _design, "passkey")


@table(
    "remap_loss",
    repeats="evidence_remap",
    caption="The RoPE models read zero-shot with new frequencies (dynamic NTK, YaRN) or "
    "remapped positions (Self-Extend, ReRoPE, Dual Chunk Attention): mean loss, range in "
    "brackets.",
)
def _():
    return by_length("model", REMAP_LABELS, _remapped, "non_overlapping")


@table(
    "remap_passkey",
    repeats="evidence_remap",
    caption="The same models' passkey accuracy, averaged over the depths: mean over the "
    "seeds, range in brackets.",
)
def _():
    return by_length("model", REMAP_LABELS, _remapped, "passkey")


# Figures -----------------------------------------------------------------------------


def _two_panels(theme, labels: dict, loss_of, passkey_of, target: int | None = None):
    """Loss (left) and passkey accuracy (right) against length, one line per entry of
    ``labels`` (mean over the seeds) and one dot per seed; RoPE first, in RoPE's colour."""
    lengths = eval_lengths()
    train_len = results("length_generalisation")["train_len"]
    phone = phone_layout_active()
    fig = new_figure(7.6, 6.4 if phone else 3.6)
    axes = fig.subplots(2, 1, sharex=True) if phone else fig.subplots(1, 2, sharex=True)
    styles = looks(theme, labels)  # RoPE as every figure of the chapter draws it
    for key, label in labels.items():
        for ax, per_length_of in zip(axes, (passkey_of, loss_of), strict=True):
            values = [per_length_of(key, n) for n in lengths]
            per_length(ax, lengths, values, label, *styles[key])
    for ax in axes:
        length_axis(ax, lengths, train_len)
        if target is not None:
            ax.axvline(target, color=theme.muted, linewidth=0.8, linestyle="--")
    if phone:  # stacked: the lower panel names the shared axis
        axes[0].set_xlabel("")
    axes[0].set_ylabel("passkey accuracy")
    axes[0].set_ylim(-0.03, 1.03)
    axes[1].set_ylabel("loss (nats per token)")
    label_line_ends(axes[1], theme)  # the loss lines end apart; the passkey panel shares looks
    return fig


def _design_loss(encoding: str, n: int) -> list[float]:
    return _design(encoding)["non_overlapping"][str(n)]["mean"]


def _design_passkey(encoding: str, n: int) -> list[float]:
    return passkey_by_length(_design(encoding), n)


def _remap_loss(method: str, n: int) -> list[float]:
    return _remapped(method)["non_overlapping"][str(n)]["mean"]


def _remap_passkey(method: str, n: int) -> list[float]:
    return passkey_by_length(_remapped(method), n)


def _alt(labels: dict, loss_of, passkey_of) -> str:
    last = length_at("last")
    parts = [
        f"{label} {np.mean(loss_of(key, last)):.2f} nats and passkey "
        f"{np.mean(passkey_of(key, last)):.2f}"
        for key, label in labels.items()
    ]
    return f"At {last:,} tokens: " + "; ".join(parts) + "."


@figure(
    "evidence_designs",
    alt=lambda: (
        "Two panels against evaluation length (log scale), one line per design and one dot "
        "per seed: passkey accuracy, and loss over non-overlapping windows. "
        + _alt(DESIGN_LABELS, _design_loss, _design_passkey)
    ),
    caption=lambda: (
        "The designs of 2025–26, trained like the others at "
        f"{results('length_generalisation')['train_len']} tokens (dotted): passkey accuracy "
        "(left; above on a phone) and loss (right); lines: the mean over the seeds, dots: "
        "each seed."
    ),
)
def _(theme):
    return _two_panels(theme, DESIGN_LABELS, _design_loss, _design_passkey)


@figure(
    "evidence_remap",
    alt=lambda: (
        "Two panels against evaluation length (log scale) for the RoPE models read "
        "zero-shot with new frequencies or remapped positions: passkey accuracy, and loss. "
        + _alt(REMAP_LABELS, _remap_loss, _remap_passkey)
    ),
    caption=lambda: (
        "The RoPE models read zero-shot with new frequencies or remapped positions, each set "
        f"for {extension()['target_len']} tokens (dashed; dotted: training); lines: the mean "
        "over the seeds, dots: each seed."
    ),
)
def _(theme):
    target = extension()["target_len"]
    return _two_panels(theme, REMAP_LABELS, _remap_loss, _remap_passkey, target)


# Values ------------------------------------------------------------------------------

# The numbers the prose quotes (RoPE's own are the chapter's: values.py).
for _enc, _where in (
    ("swa_nope", "first"),
    ("swa_nope", "last"),
    ("rope_nope", "last"),
    ("partial", "last"),
    ("p_rope", "last"),
    ("rope_1e6", "first"),
    ("rope_1e6", "last"),
):
    value(f"loss_{_enc}_{_where}")(lambda e=_enc, w=_where: f"{loss(e, length_at(w)):.2f}")
for _enc in ("swa_nope", "rope_nope", "partial", "p_rope", "rope_1e6"):
    value(f"passkey_{_enc}_last")(lambda e=_enc: f"{passkey(e, length_at('last')):.2f}")

for _method, _where in (
    ("rerope", "last"),
    ("dual_chunk", "last"),
    ("yarn", "last"),
    ("self_extend", "target"),
    ("self_extend", "last"),
):
    value(f"remap_{_method}_{_where}")(
        lambda m=_method, w=_where: f"{remap_loss(m, length_at(w)):.2f}"
    )
for _method in ("rerope", "dual_chunk", "dynamic", "self_extend"):
    value(f"remap_pk_{_method}_last")(
        lambda m=_method: f"{remap_passkey(m, length_at('last')):.2f}"
    )


def _remap_setting(method: str) -> dict:
    return extension()["methods"][method]["remap"]


def largest_distance(method: str, n: int) -> float:
    """The largest distance ``method``'s remapping shows over ``n`` tokens, computed by
    ``pe_explained`` from the settings the results record."""
    setting = _remap_setting(method)
    if method == "self_extend":
        return self_extend_largest_distance(n, setting["group_size"], setting["window"])
    if method == "rerope":
        return rerope_largest_distance(n, setting["window"])
    return dual_chunk_largest_distance(n, setting["chunk_size"], setting["local_size"])


for _method, _where in (
    ("self_extend", "target"),
    ("self_extend", "last"),
    ("rerope", "last"),
    ("dual_chunk", "last"),
):
    value(f"largest_{_method}_{_where}")(
        lambda m=_method, w=_where: f"{largest_distance(m, length_at(w)):g}"
    )


def pairs_still(base: float, n: int) -> tuple[int, int]:
    """(pairs of the models' heads that turn less than one radian over ``n`` tokens with
    ``base``, all pairs), from ``pe_explained.rope_frequencies``."""
    s = results("length_generalisation")["settings"]
    inv_freq, _ = rope_frequencies(s["d_model"] // s["heads"], base=base)
    return int((n * inv_freq < 1).sum()), len(inv_freq)


for _base, _name in ((1e6, "1e6"), (1e4, "1e4")):
    value(f"pairs_still_{_name}")(lambda b=_base: str(pairs_still(b, length_at("last"))[0]))


@value("head_pairs")
def _():
    return str(pairs_still(1e4, 1)[1])


@value("self_extend_group")
def _():
    return str(_remap_setting("self_extend")["group_size"])


@value("self_extend_window")
def _():
    return str(_remap_setting("self_extend")["window"])


@value("rerope_window")
def _():
    return str(_remap_setting("rerope")["window"])


@value("dca_chunk")
def _():
    setting = _remap_setting("dual_chunk")
    return str(setting["chunk_size"] - setting["local_size"])


@value("dca_local")
def _():
    return str(_remap_setting("dual_chunk")["local_size"])


@value("swa_window")
def _():
    return str({w for _, w in layer_pattern("swa_nope") if w is not None}.pop())


@value("nope_layers")
def _():
    """The layers without rotation in the interleaved designs, counted from 1."""
    layers = [i + 1 for i, (rotates, _) in enumerate(layer_pattern("rope_nope")) if not rotates]
    return " and ".join(str(i) for i in layers)


@value("layers")
def _():
    return str(len(layer_pattern("rope")))
