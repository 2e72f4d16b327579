"""Chapter 22, evidence: what the book's own tiny models do past their training length.

Everything here is read from the results files ``docs/data/experiments/*.json``, which
``python3 scripts/book.py experiments`` writes (the models are trained with PyTorch;
building the book needs no torch). Each metric holds one value per seed; the figures
show every seed, the tables the mean and the range over the seeds.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import numpy as np

from pe_explained import t5_relative_bucket

from .. import Table, figure, table, value
from ..notation import DM
from ..style import label_line_ends, new_figure, phone_layout_active

DATA = Path(__file__).resolve().parents[2] / "docs" / "data" / "experiments"
#: How the page names each encoding and each context-extension method.
ENCODING_LABELS = {
    "nope": "NoPE",
    "learned": "learned",
    "sinusoidal": "sinusoidal",
    "rope": "RoPE",
    "xpos": "xPos",
    "alibi": "ALiBi",
    "t5": "T5 bias",
}
METHOD_LABELS = {
    "rope": "RoPE, unchanged",
    "pi": "PI",
    "ntk": "NTK-aware",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
}
STYLES = ("-", "--", ":", "-.", "-", "--", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X")


@cache
def results(name: str) -> dict:
    """The results file ``docs/data/experiments/<name>.json``."""
    path = DATA / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `python3 scripts/book.py experiments`")
    return json.loads(path.read_text(encoding="utf-8"))


def _lengths() -> list[int]:
    return results("length_generalisation")["eval_lens"]


def _span(values) -> tuple[float, float, float]:
    """Mean, smallest and largest of the per-seed values."""
    array = np.asarray(values, dtype=float)
    return float(array.mean()), float(array.min()), float(array.max())


def _cell(values, spec: str = ".2f") -> str:
    """``mean (min–max)`` over the seeds; the range never breaks at its dash (word
    joiners around it), and is marked ``pe-range`` so that a phone sets it under the mean."""
    mean, low, high = _span(values)
    span = f"({low:{spec}}\u2060–\u2060{high:{spec}})"
    return f'{mean:{spec}} <span class="pe-range">{span}</span>'


def _passkey_by_length(metrics: dict, n: int) -> list[float]:
    """Passkey accuracy at length ``n``, averaged over the depths, one value per seed."""
    by_depth = metrics["passkey"][str(n)]
    return list(np.mean([by_depth[d] for d in by_depth], axis=0))


def _per_length(ax, lengths, per_seed_values, label, colour, style, marker) -> None:
    """A line through the seed means and one marker per seed, at every length."""
    per_seed = np.asarray(per_seed_values, dtype=float)  # (lengths, seeds)
    ax.plot(lengths, per_seed.mean(axis=1), style, color=colour, label=label)
    for x, column in zip(lengths, per_seed, strict=True):
        ax.plot([x] * len(column), column, marker, color=colour, markersize=3.5, alpha=0.8)


def _length_axis(ax, lengths, train_len) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xticks(lengths, [f"{n:,}" for n in lengths])
    ax.minorticks_off()
    ax.axvline(train_len, color=ax.xaxis.label.get_color(), linewidth=1.1, linestyle=":")
    ax.set_xlabel("evaluation length (tokens)")
    ax.grid(True, axis="y")


def _references(ax, theme, data: dict, keys=("unigram_entropy", "loss_floor")) -> None:
    """Dashed lines at the unigram entropy and the loss floor of the evaluation text."""
    ref = data["reference"]
    names = {"unigram_entropy": "unigram entropy", "loss_floor": "loss floor"}
    for key, text in ((k, names[k]) for k in keys):
        ax.axhline(ref[key], color=theme.muted, linewidth=0.9, linestyle="--")
        # the entropy at the right end, where the curves have fallen far below it; the
        # floor in the middle, clear of the training length's line and the end labels
        x, align = (0.99, "right") if key == "unigram_entropy" else (0.5, "center")
        ax.annotate(
            text,
            (x, ref[key]),
            xycoords=("axes fraction", "data"),
            xytext=(0, 1.5),
            textcoords="offset points",
            va="bottom",
            ha=align,
            fontsize=9,
            color=theme.muted,
            # on the page's colour, so that a gridline never runs through the words
            bbox={"boxstyle": "square,pad=0.15", "facecolor": theme.background, "linewidth": 0},
        )


# Set-up ------------------------------------------------------------------------------


@table(
    "encodings",
    caption="What each model takes from pe_explained: the one place where the seven "
    "decoders differ.",
)
def _():
    train_len = results("length_generalisation")["train_len"]
    uses = {
        "nope": "nothing: the causal mask alone",
        "learned": f"a trained table of {train_len} rows; later positions read the last row",
        "sinusoidal": "`sinusoidal(n, d_model)`, added to the token embeddings",
        "rope": "`rope_frequencies(head_dim)`, queries and keys rotated",
        "xpos": "RoPE, then `xpos_scale` on queries and its inverse on keys",
        "alibi": r"`alibi_slopes(num_heads)`, a bias of $-m_h\,(i - j)$ in head $h$",
        "t5": "`t5_relative_bucket`, one learned bias per bucket and head",
    }
    return Table(
        ["encoding", "what the model uses"], [[ENCODING_LABELS[k], v] for k, v in uses.items()]
    )


@table("setup", caption="How the models were trained and evaluated (the results files' settings).")
def _():
    data = results("length_generalisation")
    s = data["settings"]
    ext = results("context_extension")
    rows = [
        [
            "model",
            f"decoder, {s['layers']} layers, width ${DM} = {s['d_model']}$, {s['heads']} heads",
        ],
        ["parameters", f"{data['methods']['rope']['parameters']:,} (RoPE)"],
        ["training", f"{s['steps']} steps of {s['batch']} × {data['train_len']} tokens"],
        ["evaluation lengths", ", ".join(f"{n:,}" for n in data["eval_lens"])],
        ["seeds", ", ".join(str(x) for x in data["seeds"])],
        [
            "context extension",
            f"factor {ext['factor']}, fine-tune {ext['fine_tune']['steps']} steps of "
            f"{ext['fine_tune']['batch']} × {ext['target_len']} tokens",
        ],
        ["wall time", f"{_wall_minutes()} minutes on {data['run']['hardware']['cpu_count']} cores"],
    ]
    return Table(["setting", "value"], rows)


def _wall_minutes() -> str:
    total = sum(
        results(n)["run"]["wall_time_s"] for n in ("length_generalisation", "context_extension")
    )
    return f"{total / 60:.0f}"


def _first_block() -> float:
    """The highest first-block training loss over the encodings (seed mean)."""
    methods = results("length_generalisation")["methods"]
    return max(float(np.mean([c[0] for c in m["train_curve"]])) for m in methods.values())


@value("train_len")
def _():
    return str(results("length_generalisation")["train_len"])


@value("longest")
def _():
    return f"{max(_lengths()):,}"


@value("seeds")
def _():
    return str(len(results("length_generalisation")["seeds"]))


@value("unigram")
def _():
    return f"{results('length_generalisation')['reference']['unigram_entropy']:.2f}"


@value("floor")
def _():
    return f"{results('length_generalisation')['reference']['loss_floor']:.2f}"


@value("code_hash")
def _():
    return results("length_generalisation")["code_hash"][:12]


@figure(
    "evidence_training",
    alt=lambda: (
        "Training loss against step for the tiny models of every encoding, one line per "
        f"encoding with a band over the seeds, falling from {_first_block():.2f} (mean of the "
        "first 10 steps) toward the loss floor of "
        f"{results('length_generalisation')['reference']['loss_floor']:.2f}; dashed lines "
        "mark the unigram entropy and the floor."
    ),
    caption=lambda: (
        "The training loss of every model, mean of each block of 10 steps, against the "
        "unigram entropy and the floor set by the generator itself."
    ),
)
def _(theme):
    data = results("length_generalisation")
    fig = new_figure(7.0, 3.4)
    ax = fig.add_subplot()
    for (enc, label), colour, style in zip(
        ENCODING_LABELS.items(), theme.cycle, STYLES, strict=False
    ):
        if enc not in data["methods"]:
            continue
        curves = np.asarray(data["methods"][enc]["train_curve"], dtype=float)
        steps = 10 * np.arange(curves.shape[1]) + 5
        # NoPE's solid line on top: it runs with the three absolute encodings' patterned ones
        ax.plot(
            steps,
            curves.mean(axis=0),
            style,
            color=colour,
            label=label,
            zorder=3 if enc == "nope" else 2,
        )
        ax.fill_between(steps, curves.min(axis=0), curves.max(axis=0), color=colour, alpha=0.2)
    _references(ax, theme, data)
    ax.set_xlabel("training step")
    ax.set_ylabel("loss (nats per token)")
    label_line_ends(ax, theme)
    ax.grid(True, axis="y")
    return fig


# Length generalisation ---------------------------------------------------------------


@figure(
    "evidence_length_loss",
    alt=lambda: (
        "Two panels of mean loss against evaluation length from "
        f"{_lengths()[0]} to {_lengths()[-1]:,} tokens (log scale), one line per encoding and "
        "one dot per seed: left, non-overlapping windows; right, a sliding window. "
        + _alt_length_loss()
    ),
    caption=lambda: (
        f"Loss of models trained at {results('length_generalisation')['train_len']} tokens "
        "(dotted line), read at longer lengths: left (above on a phone), non-overlapping "
        "windows; right (below), a sliding window."
    ),
)
def _(theme):
    data = results("length_generalisation")
    lengths = data["eval_lens"]
    fig = new_figure(7.6, 3.8)
    axes = fig.subplots(1, 2, sharey=True)
    for ax, mode, title in zip(
        axes, ("non_overlapping", "sliding"), ("non-overlapping", "sliding window"), strict=True
    ):
        for i, ((enc, label), colour) in enumerate(
            zip(ENCODING_LABELS.items(), theme.cycle, strict=False)
        ):
            if enc not in data["methods"]:
                continue
            metric = data["methods"][enc][mode]
            values = [metric[str(n)]["mean"] for n in lengths]
            _per_length(ax, lengths, values, label, colour, STYLES[i], MARKERS[i])
        _length_axis(ax, lengths, data["train_len"])
        _references(ax, theme, data, keys=("loss_floor",))
        ax.set_title(title)
    axes[0].set_ylabel("loss (nats per token)")
    # stacked on a phone, each panel names its own lines
    for ax in axes if phone_layout_active() else axes[1:]:
        label_line_ends(ax, theme)
    return fig


def _alt_length_loss() -> str:
    data = results("length_generalisation")
    first, last = data["eval_lens"][0], data["eval_lens"][-1]
    parts = []
    for enc, label in ENCODING_LABELS.items():
        if enc in data["methods"]:
            metric = data["methods"][enc]["non_overlapping"]
            a = _span(metric[str(first)]["mean"])[0]
            b = _span(metric[str(last)]["mean"])[0]
            parts.append(f"{label} {a:.2f} to {b:.2f}")
    return (
        "Non-overlapping mean loss from the shortest to the longest length: "
        + "; ".join(parts)
        + "."
    )


def _loss_table(mode: str) -> Table:
    """Mean loss per encoding and length (``mode``: non_overlapping or sliding)."""
    data = results("length_generalisation")
    lengths = data["eval_lens"]
    rows = [
        [label, *(_cell(data["methods"][enc][mode][str(n)]["mean"]) for n in lengths)]
        for enc, label in ENCODING_LABELS.items()
        if enc in data["methods"]
    ]
    return Table(["encoding", *(f"{n:,}" for n in lengths)], rows)


@table(
    "length_loss",
    caption=lambda: (
        "Mean loss over non-overlapping windows of each length (nats per token): mean over "
        f"the {len(results('length_generalisation')['seeds'])} seeds, range in brackets. "
        f"Trained at {results('length_generalisation')['train_len']} tokens."
    ),
    cards=False,
)
def _():
    return _loss_table("non_overlapping")


@table(
    "sliding_loss",
    caption=lambda: (
        "Mean loss with a sliding window of each length, scoring the last quarter of every "
        "window (nats per token): mean over the seeds, range in brackets."
    ),
    cards=False,
)
def _():
    return _loss_table("sliding")


@figure(
    "evidence_loss_by_position",
    alt=lambda: (
        f"Small multiples, one per encoding: excess loss (the model's loss minus the "
        f"generator's own loss on the same tokens) against position in windows of "
        f"{_lengths()[-1]:,} tokens, a line for the mean over the seeds and a band for their "
        f"range, with a dotted line at the training length "
        f"{results('length_generalisation')['train_len']}. " + _alt_by_position()
    ),
    caption=lambda: (
        f"Excess loss by position in non-overlapping windows of {_lengths()[-1]:,} tokens, in "
        f"bins of {_lengths()[-1] // results('length_generalisation')['settings']['bins']} "
        "positions: the model's loss minus the generator's own loss on the same tokens."
    ),
)
def _(theme):
    data = results("length_generalisation")
    n = data["eval_lens"][-1]
    encodings = [e for e in ENCODING_LABELS if e in data["methods"]]
    fig = new_figure(7.6, 4.4)
    columns = 4
    rows = -(-len(encodings) // columns)
    axes = fig.subplots(rows, columns, sharex=True, sharey=True).ravel()
    top = max(float(_excess_by_position(e, n).max()) for e in encodings)
    for ax, enc, colour in zip(axes, encodings, theme.cycle, strict=False):
        curves = _excess_by_position(enc, n)
        width = n / curves.shape[1]
        centres = width * (np.arange(curves.shape[1]) + 0.5)
        ax.plot(centres, curves.mean(axis=0), color=colour)
        ax.fill_between(centres, curves.min(axis=0), curves.max(axis=0), color=colour, alpha=0.25)
        ax.axvline(data["train_len"], color=theme.text, linewidth=1.1, linestyle=":")
        ax.set_title(ENCODING_LABELS[enc], fontsize=9)
        ax.set_xticks([0, n // 2], [f"{v:,}" for v in (0, n // 2)])  # ends clear of the next panel
        ax.set_ylim(0, 1.05 * top)
        ax.grid(True, axis="y")
    for ax in axes[len(encodings) :]:
        ax.set_visible(False)
    for ax in axes[len(encodings) - columns : len(encodings)]:  # the lowest panel of each column
        ax.xaxis.set_tick_params(labelbottom=True)
        ax.set_xlabel("position")
    for ax in axes[::columns]:
        ax.set_ylabel("excess loss")
    return fig


def _excess_by_position(encoding: str, n: int) -> np.ndarray:
    """Loss by position minus the generator's own, shape (seeds, bins)."""
    data = results("length_generalisation")
    curves = np.asarray(data["methods"][encoding]["non_overlapping"][str(n)]["by_position"])
    return curves - np.asarray(data["reference"]["loss_floor_by_position"][str(n)])


def _alt_by_position() -> str:
    data = results("length_generalisation")
    n = data["eval_lens"][-1]
    parts = []
    for enc, label in ENCODING_LABELS.items():
        if enc in data["methods"]:
            mean = _excess_by_position(enc, n).mean(axis=0)
            parts.append(f"{label} {mean[0]:.2f} in the first bin, {mean[-1]:.2f} in the last")
    return "Mean excess loss: " + "; ".join(parts) + "."


@figure(
    "evidence_passkey",
    alt=lambda: (
        "Passkey accuracy, averaged over five depths, against evaluation length (log scale) "
        "for every encoding, one line for the mean over the seeds and one dot per seed. "
        + _alt_passkey()
    ),
    caption=lambda: (
        "The passkey: share of documents whose four key digits are all predicted, averaged "
        f"over the depths {', '.join(_depths())} (line: mean over the seeds; dots: each "
        "seed). Chance is 1 in 625."
    ),
)
def _(theme):
    data = results("length_generalisation")
    lengths = data["eval_lens"]
    fig = new_figure(7.0, 3.6)
    ax = fig.add_subplot()
    for i, ((enc, label), colour) in enumerate(
        zip(ENCODING_LABELS.items(), theme.cycle, strict=False)
    ):
        if enc in data["methods"]:
            values = [_passkey_by_length(data["methods"][enc], n) for n in lengths]
            _per_length(ax, lengths, values, label, colour, STYLES[i], MARKERS[i])
    _length_axis(ax, lengths, data["train_len"])
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel("passkey accuracy")
    label_line_ends(ax, theme)
    return fig


def _depths() -> list[str]:
    data = results("length_generalisation")
    return list(data["methods"]["rope"]["passkey"][str(data["train_len"])])


def _alt_passkey() -> str:
    data = results("length_generalisation")
    parts = []
    for enc, label in ENCODING_LABELS.items():
        if enc in data["methods"]:
            accs = [
                _span(_passkey_by_length(data["methods"][enc], n))[0] for n in data["eval_lens"]
            ]
            parts.append(f"{label} " + ", ".join(f"{a:.2f}" for a in accs))
    return "Mean accuracy at each length: " + "; ".join(parts) + "."


@table(
    "passkey",
    caption=lambda: (
        "Passkey accuracy at each length, averaged over the depths: mean over the seeds, "
        "range in brackets."
    ),
    cards=False,
)
def _():
    data = results("length_generalisation")
    lengths = data["eval_lens"]
    rows = []
    for enc, label in ENCODING_LABELS.items():
        if enc in data["methods"]:
            rows.append(
                [label, *(_cell(_passkey_by_length(data["methods"][enc], n)) for n in lengths)]
            )
    return Table(["encoding", *(f"{n:,}" for n in lengths)], rows)


# Context extension -------------------------------------------------------------------


def _extension() -> dict:
    return results("context_extension")


@value("factor")
def _():
    return str(_extension()["factor"])


@value("target_len")
def _():
    return str(_extension()["target_len"])


@value("finetune_steps")
def _():
    return str(_extension()["fine_tune"]["steps"])


@figure(
    "evidence_extension",
    alt=lambda: (
        "Four panels for the RoPE models stretched by each context-extension method, "
        "against evaluation length (log scale), one line per method and one dot per seed: "
        "loss zero-shot, loss after the fine-tune, passkey accuracy zero-shot and after the "
        "fine-tune. " + _alt_extension()
    ),
    caption=lambda: (
        f"The RoPE models of the first experiment, their context stretched "
        f"{_extension()['factor']} times (dotted: the training length; dashed: "
        f"{_extension()['target_len']} tokens), zero-shot and after "
        f"{_extension()['fine_tune']['steps']} fine-tuning steps at "
        f"{_extension()['target_len']} tokens."
    ),
)
def _(theme):
    data = _extension()
    lengths = data["eval_lens"]
    fig = new_figure(7.6, 6.0)
    axes = fig.subplots(2, 2, sharex=True, sharey="row")
    looks = _method_looks(theme)
    for col, stage in enumerate(("zero_shot", "fine_tuned")):
        for method, label in METHOD_LABELS.items():
            metrics = data["methods"][method][stage]
            losses = [metrics["non_overlapping"][str(n)]["mean"] for n in lengths]
            _per_length(axes[0, col], lengths, losses, label, *looks[method])
            accs = [_passkey_by_length(metrics, n) for n in lengths]
            _per_length(axes[1, col], lengths, accs, label, *looks[method])
        for ax in axes[:, col]:
            _length_axis(ax, lengths, data["train_len"])
            ax.axvline(data["target_len"], color=theme.muted, linewidth=0.8, linestyle="--")
        axes[0, col].set_title("zero-shot" if stage == "zero_shot" else "fine-tuned")
        axes[0, col].set_xlabel("")
    axes[0, 0].set_ylabel("loss (nats per token)")
    axes[1, 0].set_ylabel("passkey accuracy")
    axes[1, 0].set_ylim(-0.03, 1.03)
    if phone_layout_active():  # one column of four panels: each says what it shows
        for (row, col), ax in np.ndenumerate(axes):
            stage = "zero-shot" if col == 0 else "fine-tuned"
            ax.set_title(f"{stage}: {'loss' if row == 0 else 'passkey accuracy'}")
            ax.set_ylabel(axes[row, 0].get_ylabel())
        axes[1, 1].set_ylim(-0.03, 1.03)
    axes[0, 1].legend(fontsize=9.5, loc="upper right")  # clear of the target length's line
    return fig


def _method_looks(theme) -> dict[str, tuple]:
    """Colour, line style and marker of each context-extension method: the unchanged
    RoPE model as RoPE is drawn in every figure of the chapter, each stretch in one of
    the other colours of the house cycle (a legend names them)."""
    rope = list(ENCODING_LABELS).index("rope")
    looks = {"rope": (theme.cycle[rope], STYLES[rope], MARKERS[rope])}
    others = [k for k in range(len(theme.cycle)) if k != rope]
    stretches = [m for m in METHOD_LABELS if m != "rope"]
    for method, k in zip(stretches, others, strict=False):
        looks[method] = (theme.cycle[k], STYLES[k], MARKERS[k])
    return looks


def _alt_extension() -> str:
    data = _extension()
    parts = []
    for method, label in METHOD_LABELS.items():
        entry = data["methods"][method]
        last = str(data["eval_lens"][-1])
        zero = _span(entry["zero_shot"]["non_overlapping"][last]["mean"])[0]
        tuned = _span(entry["fine_tuned"]["non_overlapping"][last]["mean"])[0]
        parts.append(f"{label} {zero:.2f} zero-shot, {tuned:.2f} fine-tuned")
    return f"Mean loss at {data['eval_lens'][-1]:,} tokens: " + "; ".join(parts) + "."


def _depth_grid(metrics: dict, lengths: list[int]) -> np.ndarray:
    """Passkey accuracy, mean over the seeds, shape (depths, lengths)."""
    depths = list(metrics["passkey"][str(lengths[0])])
    return np.array(
        [[np.mean(metrics["passkey"][str(n)][d]) for n in lengths] for d in depths], dtype=float
    )


@figure(
    "evidence_passkey_depth",
    alt=lambda: (
        "Two rows of five heatmaps, one per context-extension method, zero-shot above and "
        "fine-tuned below: passkey accuracy by the key's depth in the document (rows, 0.1 "
        "near the start to 0.9 near the question) and by evaluation length (columns). "
        + _alt_depth()
    ),
    caption=lambda: (
        "Passkey accuracy of the stretched RoPE models by the key's depth (0: the start of "
        "the document, 1: right before the question) and by length, mean over the seeds."
    ),
)
def _(theme):
    data = _extension()
    lengths = data["eval_lens"]
    depths = list(data["methods"]["rope"]["zero_shot"]["passkey"][str(lengths[0])])
    stages = ("zero_shot", "fine_tuned")
    phone = phone_layout_active()
    # Wide: stages in rows, methods side by side. Phone: methods in rows, stages side by
    # side, so that each panel keeps room for its columns and the labels stay level.
    fig = new_figure(4.4, 7.4) if phone else new_figure(7.6, 3.6)
    shape = (len(METHOD_LABELS), 2) if phone else (2, len(METHOD_LABELS))
    axes = fig.add_gridspec(*shape).subplots(sharex=True, sharey=True)
    if phone:
        axes = axes.T
    # every other length on a phone's wider panels, the two ends on the narrow wide ones
    shown = range(0, len(lengths), 2) if phone else (0, len(lengths) - 1)
    for row, stage in enumerate(stages):
        for col, (method, label) in enumerate(METHOD_LABELS.items()):
            ax = axes[row, col]
            grid = _depth_grid(data["methods"][method][stage], lengths)
            image = ax.imshow(
                grid, cmap=theme.sequential, vmin=0, vmax=1, aspect="auto", origin="lower"
            )
            ax.set_xticks(range(len(lengths)), minor=True)
            ax.set_xticks(list(shown), [f"{lengths[i]:,}" for i in shown])
            ax.set_yticks(range(len(depths)), depths)
            name, stage_name = label.replace(", unchanged", ""), stage.replace("_", "-")
            if phone:
                if row == 0:
                    ax.set_ylabel(f"{name}\ndepth")
                if col == 0:
                    ax.set_title(stage_name, fontsize=10)
            else:
                if row == 0:
                    ax.set_title(name, fontsize=9)
                if col == 0:
                    ax.set_ylabel(f"{stage_name}\ndepth")
    if phone:  # under the bottom panels, above the colour bar
        for ax in axes[:, -1]:
            ax.set_xlabel("length (tokens)")
    else:
        fig.supxlabel("evaluation length (tokens)", fontsize=10)
        fig.get_layout_engine().set(wspace=0.1)  # "1,024" and the next panel's "64" apart
    fig.colorbar(
        image,
        ax=axes,
        label="passkey accuracy",
        shrink=0.8,
        **({"location": "bottom", "aspect": 30} if phone else {}),
    )
    return fig


def _alt_depth() -> str:
    data = _extension()
    last = data["eval_lens"][-1]
    parts = []
    for method, label in METHOD_LABELS.items():
        grid = _depth_grid(data["methods"][method]["zero_shot"], [last])
        parts.append(
            f"{label} {grid[0, 0]:.2f} with the key at the start, {grid[-1, 0]:.2f} near the end"
        )
    return f"Zero-shot at {last:,} tokens: " + "; ".join(parts) + "."


def _extension_table(stage: str) -> Table:
    data = _extension()
    lengths = data["eval_lens"]
    rows = []
    for method, label in METHOD_LABELS.items():
        metrics = data["methods"][method][stage]
        rows.append([label, *(_cell(metrics["non_overlapping"][str(n)]["mean"]) for n in lengths)])
    return Table(["method", *(f"{n:,}" for n in lengths)], rows)


@table(
    "extension_zero_shot",
    caption="Loss of the stretched RoPE models, zero-shot: mean over the seeds, range in brackets.",
    cards=False,
)
def _():
    return _extension_table("zero_shot")


@table(
    "extension_fine_tuned",
    caption="Loss of the stretched RoPE models after the fine-tune: mean over the seeds, range "
    "in brackets.",
    cards=False,
)
def _():
    return _extension_table("fine_tuned")


@table(
    "extension_passkey",
    caption="Passkey accuracy of the stretched RoPE models at each length, averaged over the "
    "depths, zero-shot and fine-tuned: mean over the seeds.",
    cards=False,
)
def _():
    data = _extension()
    lengths = data["eval_lens"]
    rows = []
    for method, label in METHOD_LABELS.items():
        for stage in ("zero_shot", "fine_tuned"):
            metrics = data["methods"][method][stage]
            accs = [_span(_passkey_by_length(metrics, n))[0] for n in lengths]
            rows.append([label, stage.replace("_", "-"), *accs])
    columns = ["method", "stage", *(f"{n:,}" for n in lengths)]
    # accuracies keep two decimals even where every model scored 1
    return Table(columns, rows, default_format=".2f", whole_numbers=False)


# Numbers quoted in the prose ---------------------------------------------------------
#
# Each is a mean over the seeds, read from the results files; ``first``, ``mid`` and
# ``last`` are the shortest, the middle and the longest evaluation length, ``target``
# the context-extension length. tests/test_evidence.py checks that the comparisons the
# page draws from them hold in the stored results.


def loss(encoding: str, n: int, mode: str = "non_overlapping") -> float:
    """Mean loss of ``encoding``'s models at length ``n`` (``mode``: or ``"sliding"``)."""
    metric = results("length_generalisation")["methods"][encoding][mode][str(n)]["mean"]
    return _span(metric)[0]


def passkey(encoding: str, n: int) -> float:
    """Mean passkey accuracy of ``encoding``'s models at length ``n`` (over the depths)."""
    return _span(_passkey_by_length(results("length_generalisation")["methods"][encoding], n))[0]


def extension_loss(method: str, stage: str, n: int) -> float:
    """Mean loss of the RoPE models stretched by ``method`` (``stage``: zero_shot or
    fine_tuned) at length ``n``."""
    metrics = _extension()["methods"][method][stage]
    return _span(metrics["non_overlapping"][str(n)]["mean"])[0]


def extension_passkey(method: str, stage: str, n: int) -> float:
    """Mean passkey accuracy of the RoPE models stretched by ``method`` at length ``n``."""
    return _span(_passkey_by_length(_extension()["methods"][method][stage], n))[0]


def _at(where: str) -> int:
    lengths = _lengths()
    positions = {"first": lengths[0], "mid": lengths[len(lengths) // 2], "last": lengths[-1]}
    return positions[where] if where in positions else _extension()["target_len"]


def _quote(name: str, compute, spec: str) -> None:
    value(name)(lambda: format(compute(), spec))


for _enc, _where in (
    ("learned", "first"),
    ("learned", "last"),
    ("sinusoidal", "first"),
    ("sinusoidal", "last"),
    ("rope", "first"),
    ("rope", "mid"),
    ("rope", "last"),
    ("nope", "first"),
    ("nope", "last"),
    ("t5", "first"),
    ("t5", "last"),
    ("alibi", "first"),
    ("alibi", "last"),
    ("xpos", "first"),
    ("xpos", "last"),
):
    _quote(f"loss_{_enc}_{_where}", lambda e=_enc, w=_where: loss(e, _at(w)), ".2f")

_quote("sliding_rope_last", lambda: loss("rope", _at("last"), "sliding"), ".2f")

for _enc, _where in (
    ("nope", "last"),
    ("t5", "last"),
    ("alibi", "last"),
    ("rope", "last"),
    ("xpos", "last"),
    ("learned", "first"),
):
    _quote(f"passkey_{_enc}_{_where}", lambda e=_enc, w=_where: passkey(e, _at(w)), ".2f")


def _train_final(encoding: str) -> float:
    """An encoding's final training loss, mean over the seeds."""
    return _span(results("length_generalisation")["methods"][encoding]["train_loss_final"])[0]


_quote("train_final_nope", lambda: _train_final("nope"), ".2f")


@value("train_final_rope_xpos")
def _():
    """RoPE's and xPos's final training loss, as the prose quotes them: once if equal."""
    rope, xpos = (f"{_train_final(e):.2f}" for e in ("rope", "xpos"))
    return f"both at {rope}" if rope == xpos else f"at {rope} and {xpos}"


for _method, _stage, _where in (
    ("pi", "zero", "first"),
    ("pi", "tuned", "target"),
    ("ntk", "zero", "last"),
    ("dynamic", "zero", "last"),
    ("yarn", "zero", "last"),
    ("rope", "tuned", "target"),
    ("rope", "tuned", "last"),
):
    _stage_key = "zero_shot" if _stage == "zero" else "fine_tuned"
    _quote(
        f"ext_{_method}_{_stage}_{_where}",
        lambda m=_method, k=_stage_key, w=_where: extension_loss(m, k, _at(w)),
        ".2f",
    )

for _method, _stage in (
    ("dynamic", "zero"),
    ("yarn", "zero"),
    ("ntk", "zero"),
    ("pi", "zero"),
    ("rope", "tuned"),
    ("dynamic", "tuned"),
):
    _quote(
        f"ext_pk_{_method}_{_stage}_last",
        lambda m=_method, k=_stage: extension_passkey(
            m, "zero_shot" if k == "zero" else "fine_tuned", _at("last")
        ),
        ".2f",
    )


@value("parameters")
def _():
    counts = [m["parameters"] for m in results("length_generalisation")["methods"].values()]
    return f"{round(float(np.mean(counts)), -4):,.0f}"


@value("wall_minutes")
def _():
    return _wall_minutes()


@value("cores")
def _():
    return str(results("length_generalisation")["run"]["hardware"]["cpu_count"])


def t5_buckets_seen() -> tuple[int, int, int]:
    """T5 model: (longest distance in a training window, its bucket, buckets never seen).

    The bucket settings are read from the results file's note on the T5 model.
    """
    data = results("length_generalisation")
    note = data["notes"]["t5"]
    buckets = int(re.search(r"num_buckets=(\d+)", note).group(1))
    max_distance = int(re.search(r"max_distance=(\d+)", note).group(1))
    longest = data["train_len"] - 1
    seen = int(
        t5_relative_bucket(
            -longest, bidirectional=False, num_buckets=buckets, max_distance=max_distance
        )
    )
    return longest, seen, buckets - 1 - seen


@value("t5_seen_distance")
def _():
    return str(t5_buckets_seen()[0])


@value("t5_seen_bucket")
def _():
    return str(t5_buckets_seen()[1])


@value("t5_unseen_buckets")
def _():
    return str(t5_buckets_seen()[2])
