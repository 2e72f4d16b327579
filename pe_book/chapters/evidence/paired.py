"""Chapter 22's paired statistics over seeds: what one seed's run says against another's.

A seed is a training run and a sample of evaluation text; two models of the same seed
read the same documents, so the difference between them *per seed* (a paired
difference) removes how hard that seed's text is. The page states a difference as
real only with its per-seed values or the standard error of their mean over the seeds
(:func:`seed_se`); with three seeds that standard error is the honest measure of how
far another set of runs could move a mean, and it is larger than the binomial
standard error of a passkey cell, which counts documents only. Every number here is
read from the results files (tests/test_evidence.py checks the claims drawn from them).
"""

from __future__ import annotations

import re

import numpy as np

from pe_explained import rope_frequencies

from ... import value
from ...experiments import passkey_by_length, results
from ...text import format_cell
from .claims import passkey_best
from .common import bin_width, degradation, excess, extension, length_at


def seed_se(values) -> float:
    """Standard error of the mean over the seeds: the sample standard deviation of the
    per-seed ``values`` (``ddof=1``) over the square root of their number.

    >>> round(seed_se([0.83, 0.525, 0.62]), 4)
    0.0901
    """
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or len(array) < 2:
        raise ValueError(f"values must be one value per seed, at least two, got {array.shape}")
    return float(array.std(ddof=1) / np.sqrt(len(array)))


def per_seed(model: str, n: int, metric: str = "non_overlapping") -> np.ndarray:
    """One value per seed of ``model`` at length ``n``: its loss (``metric``
    ``"non_overlapping"`` or ``"sliding"``) or its passkey accuracy averaged over the
    depths (``"passkey"``)."""
    metrics = results("length_generalisation")["methods"][model]
    if metric == "passkey":
        return np.asarray(passkey_by_length(metrics, n), dtype=float)
    return np.asarray(metrics[metric][str(n)]["mean"], dtype=float)


def paired(a: str, b: str, n: int, metric: str = "non_overlapping") -> np.ndarray:
    """``a`` minus ``b`` at length ``n``, seed by seed (the same seed's documents)."""
    return per_seed(a, n, metric) - per_seed(b, n, metric)


def rise(model: str, metric: str = "non_overlapping") -> np.ndarray:
    """Per seed: ``model``'s loss at the longest length minus at the training length."""
    return per_seed(model, length_at("last"), metric) - per_seed(model, length_at("first"), metric)


def signed(values, spec: str = ".3f") -> str:
    """Per-seed values as the prose lists them, each with its sign.

    >>> signed([0.0131, 0.0333, -0.0025])
    '+0.013, +0.033 and −0.003'
    """
    parts = [("+" if v > 0 else "") + format_cell(float(v), spec) for v in values]
    parts = [p.replace("+−", "−") for p in parts]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def plain(values, spec: str = ".3f") -> str:
    """Per-seed values as the prose lists them, without signs.

    >>> plain([0.0671, 0.054, 0.018])
    '0.067, 0.054 and 0.018'
    """
    parts = [format_cell(float(v), spec) for v in values]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def mean_se(values, spec: str = ".3f") -> str:
    """``mean ± standard error over the seeds`` of per-seed ``values``.

    >>> mean_se([0.011, 0.019, -0.003])
    '0.009 ± 0.006'
    """
    mean = float(np.mean(values))
    return f"{format_cell(mean, spec)} ± {format_cell(seed_se(values), spec)}"


def _register(name: str, compute) -> None:
    value(name)(compute)


# NoPE and T5's bias: a slow rise, and a gap to RoPE that closes --------------------------

for _model, _metric, _tag in (
    ("t5", "non_overlapping", ""),
    ("t5", "sliding", "_sliding"),
    ("nope", "sliding", "_sliding"),
    ("alibi", "sliding", "_sliding"),
    ("xpos", "sliding", "_sliding"),
):
    _register(f"rise_{_model}{_tag}_seeds", lambda m=_model, k=_metric: signed(rise(m, k)))
_register("rise_t5_sliding_se", lambda: mean_se(rise("t5", "sliding")))


def rises_in_every_seed(model: str, metric: str) -> bool:
    """Whether ``model``'s loss is higher at the longest length than at the training
    length in every seed."""
    return bool((rise(model, metric) > 0).all())


for _where in ("first", "last"):
    _register(
        f"edge_t5_nope_{_where}_seeds",
        lambda w=_where: signed(paired("nope", "t5", length_at(w))),
    )
for _model in ("nope", "t5"):
    _register(
        f"sliding_gap_{_model}_rope_last",
        lambda m=_model: f"{paired(m, 'rope', length_at('last'), 'sliding').mean():.2f}",
    )
    _register(
        f"sliding_gap_{_model}_rope_last_seeds",
        lambda m=_model: plain(paired(m, "rope", length_at("last"), "sliding")),
    )


def sliding_gaps(model: str) -> np.ndarray:
    """``model``'s sliding-window loss minus RoPE's at every length, mean over the seeds."""
    return np.array(
        [
            paired(model, "rope", n, "sliding").mean()
            for n in results("length_generalisation")["eval_lens"]
        ]
    )


@value("crossing_len")
def _():
    """Twice the longest length: where RoPE meets NoPE and T5's bias on the sliding
    window if the gap keeps closing as over the last doubling (tests check the pace)."""
    return f"{2 * length_at('last'):,}"


# The designs ------------------------------------------------------------------------------

for _model in ("swa_nope", "p_rope"):
    for _where in ("first", "last"):
        _register(
            f"sliding_{_model}_{_where}",
            lambda m=_model, w=_where: f"{per_seed(m, length_at(w), 'sliding').mean():.2f}",
        )
_register("loss_p_rope_first", lambda: f"{per_seed('p_rope', length_at('first')).mean():.2f}")


@value("sliding_range_swa_nope")
def _():
    """The sliding-window loss of sliding-window RoPE with global NoPE over every length:
    smallest–largest of the seed means."""
    means = [
        per_seed("swa_nope", n, "sliding").mean()
        for n in results("length_generalisation")["eval_lens"]
    ]
    low, high = f"{min(means):.2f}", f"{max(means):.2f}"
    return low if low == high else f"{low}–{high}"


def monotone_seeds(model: str, metric: str) -> int:
    """Seeds in which ``model``'s loss falls at every longer length."""
    lengths = results("length_generalisation")["eval_lens"]
    table = np.array([per_seed(model, n, metric) for n in lengths])  # (lengths, seeds)
    return int((np.diff(table, axis=0) < 0).all(axis=0).sum())


# One NoPE layer in four: a small gain in every seed
_register(
    "gain_rope_nope_loss_seeds", lambda: signed(paired("rope_nope", "rope", length_at("last")))
)
_register(
    "gain_rope_nope_passkey_seeds",
    lambda: signed(paired("rope_nope", "rope", length_at("last"), "passkey"), ".3f"),
)
_register("gain_rope_nope_loss_se", lambda: mean_se(paired("rope_nope", "rope", length_at("last"))))
_register(
    "gain_rope_nope_passkey_se",
    lambda: mean_se(paired("rope_nope", "rope", length_at("last"), "passkey")),
)


# A base of 10⁶: higher from some length on, at the training length within seed noise


def higher_from(model: str, other: str = "rope") -> int:
    """The shortest length from which ``model``'s loss is above ``other``'s at every
    longer length, in every seed (the longest length plus one if none)."""
    lengths = results("length_generalisation")["eval_lens"]
    above = [bool((paired(model, other, n) > 0).all()) for n in lengths]
    first = len(lengths)
    while first > 0 and above[first - 1]:
        first -= 1
    return lengths[first] if first < len(lengths) else lengths[-1] + 1


@value("rope_1e6_higher_from")
def _():
    return f"{higher_from('rope_1e6'):,}"


_register(
    "gap_rope_1e6_first_seeds", lambda: signed(paired("rope_1e6", "rope", length_at("first")))
)
_register("gap_rope_1e6_first_se", lambda: mean_se(paired("rope_1e6", "rope", length_at("first"))))
_register(
    "gain_rope_1e6_passkey_se",
    lambda: mean_se(paired("rope_1e6", "rope", length_at("last"), "passkey"), ".2f"),
)


# Retrieval: the seed spread against the binomial floor -----------------------------------


def widest_passkey_length(model: str = "rope") -> int:
    """The length at which ``model``'s passkey accuracy varies most from seed to seed (the
    largest :func:`seed_se`)."""
    lengths = results("length_generalisation")["eval_lens"]
    return max(lengths, key=lambda n: seed_se(per_seed(model, n, "passkey")))


@value("spread_len")
def _():
    return f"{widest_passkey_length():,}"


_register(
    "passkey_rope_spread",
    lambda: f"{per_seed('rope', widest_passkey_length(), 'passkey').mean():.2f}",
)
_register(
    "passkey_rope_spread_seeds",
    lambda: plain(per_seed("rope", widest_passkey_length(), "passkey")),
)
_register(
    "passkey_rope_spread_se",
    lambda: f"{seed_se(per_seed('rope', widest_passkey_length(), 'passkey')):.2f}",
)
_register(
    "gain_sinusoidal_alibi_passkey_se",
    lambda: mean_se(paired("sinusoidal", "alibi", length_at("last"), "passkey"), ".2f"),
)


# Where RoPE's loss leaves its trained range: a span, not a point ---------------------------


def first_above(encoding: str, n: int) -> int:
    """The first position past the training window whose bin of ``encoding``'s excess loss
    (windows of ``n`` tokens, seed mean) lies above the range inside the window (the
    bins from the second to the training length); ``n`` if none does."""
    train_len = results("length_generalisation")["train_len"]
    curve = excess(encoding, n)
    width = bin_width(n)
    ceiling = curve[1 : train_len // width].max()
    above = np.flatnonzero(curve[train_len // width :] > ceiling)
    return (train_len // width + int(above[0])) * width if len(above) else n


def bin_against_inside(position: int, encoding: str = "rope") -> np.ndarray:
    """Per seed: the excess loss of the bin at ``position`` (windows of the middle length)
    minus that of the bin that holds the largest seed-mean excess inside the training
    window."""
    n = length_at("mid")
    data = results("length_generalisation")
    curves = np.asarray(data["methods"][encoding]["non_overlapping"][str(n)]["by_position"])
    floors = np.asarray(data["reference"]["loss_floor_by_position"][str(n)])
    per_seed_excess = curves - floors  # (seeds, bins)
    width = bin_width(n)
    top = 1 + int(np.argmax(excess(encoding, n)[1 : data["train_len"] // width]))
    return per_seed_excess[:, position // width] - per_seed_excess[:, top]


@value("rope_first_above_position")
def _():
    return str(first_above("rope", length_at("mid")))


@value("rope_first_above_ratio")
def _():
    """Where RoPE's excess loss first leaves its range, in multiples of the training length."""
    position = first_above("rope", length_at("mid"))
    return f"{position / results('length_generalisation')['train_len']:g}"


def break_within_noise() -> bool:
    """Whether the bins where RoPE's excess first leaves its range and where it leaves it
    for good lie within two standard errors over seeds of the largest bin inside."""
    position = degradation("rope", length_at("mid"))[0]
    bins = (first_above("rope", length_at("mid")), position)
    return all(abs(d.mean()) < 2 * seed_se(d) for d in (bin_against_inside(p) for p in bins))


# p-RoPE: its turning pairs saw every angle in training -------------------------------------


def rotated_share(encoding: str) -> float:
    """The share of the head ``encoding`` rotates, read from the results file's note."""
    note = results("length_generalisation")["notes"][encoding]
    return float(re.search(r"partial_rotary_factor (\d*\.?\d+)", note).group(1))


def turning_wavelengths(encoding: str) -> np.ndarray:
    """The wavelengths (positions per turn) of the pairs ``encoding``'s models turn, from
    ``pe_explained.rope_frequencies`` with the settings the results record."""
    s = results("length_generalisation")["settings"]
    head_dim = s["d_model"] // s["heads"]
    share = rotated_share(encoding)
    if encoding == "p_rope":
        scaling = {"rope_type": "proportional", "partial_rotary_factor": share}
        inv_freq, _ = rope_frequencies(head_dim, scaling=scaling)
    else:
        inv_freq, _ = rope_frequencies(head_dim, partial_rotary_factor=share)
    inv_freq = inv_freq[inv_freq > 0]
    return 2 * np.pi / inv_freq


@value("p_rope_turning")
def _():
    return str(len(turning_wavelengths("p_rope")))


@value("p_rope_wavelengths")
def _():
    return plain(turning_wavelengths("p_rope"), ".1f")


@value("partial_pairs")
def _():
    return str(len(turning_wavelengths("partial")))


@value("partial_slow_pairs")
def _():
    """Partial rotation's pairs that do not complete a turn within the training window."""
    train_len = results("length_generalisation")["train_len"]
    return str(int((turning_wavelengths("partial") > train_len).sum()))


_register("rise_p_rope_seeds", lambda: signed(rise("p_rope")))
_register("rise_p_rope_sliding_seeds", lambda: signed(rise("p_rope", "sliding")))


# Smaller claims -----------------------------------------------------------------------------


def pi_cells() -> dict[str, int]:
    """PI's seed × depth passkey cells at the longest length, zero-shot against
    fine-tuned: how many sit at the ceiling of 1 both times, and of the others how many
    are the same, higher and lower after the fine-tune."""
    entry = extension()["methods"]["pi"]
    n = str(length_at("last"))
    zero, tuned = entry["zero_shot"]["passkey"][n], entry["fine_tuned"]["passkey"][n]
    pairs = [(a, b) for d in zero for a, b in zip(zero[d], tuned[d], strict=True)]
    below = [(a, b) for a, b in pairs if not (a == b == 1.0)]
    return {
        "ceiling": len(pairs) - len(below),
        "below": len(below),
        "same": sum(a == b for a, b in below),
        "up": sum(b > a for a, b in below),
        "down": sum(b < a for a, b in below),
    }


for _key in ("ceiling", "below", "same", "up", "down"):
    _register(f"pi_cells_{_key}", lambda k=_key: str(pi_cells()[k]))


@value("passkey_learned_best_cell")
def _():
    """The learned table's best passkey accuracy as the tables print it (nearest)."""
    return f"{passkey_best('learned'):.2f}"


@value("dca_chunk_size")
def _():
    return str(extension()["methods"]["dual_chunk"]["remap"]["chunk_size"])


def tf32() -> bool:
    """Whether the run computed its float32 matrix products in TF32 (as recorded)."""
    return results("length_generalisation")["device"].get("matmul") == "tf32"


@value("matmul_note")
def _():
    """How the stored numbers were computed, and what a rerun elsewhere gives."""
    if tf32():
        return (
            "with TF32 matrix products on a GPU; a CPU computes them in full float32, so a "
            "CPU rerun of the same seeds gives slightly different numbers"
        )
    return (
        "in full float32; a GPU that computes its matrix products in TF32 gives slightly "
        "different numbers for the same seeds"
    )
