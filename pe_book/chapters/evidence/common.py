"""What chapter 22's figures, tables and values share: the names of the encodings and
methods, their line styles, and the numbers read from the results (means over seeds)."""

from __future__ import annotations

import numpy as np

from ...experiments import passkey_by_length, results, span

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


def looks(theme, keys) -> dict[str, tuple]:
    """Colour, line style and marker of each of ``keys`` (methods or designs beside RoPE):
    ``"rope"`` as RoPE is drawn in every figure of the chapter, each other key in one of
    the other colours of the house cycle, in order (a legend or end labels name them)."""
    rope = list(ENCODING_LABELS).index("rope")
    found = {"rope": (theme.cycle[rope], STYLES[rope], MARKERS[rope])}
    others = [k for k in range(len(theme.cycle)) if k != rope]
    for key, k in zip([key for key in keys if key != "rope"], others, strict=False):
        found[key] = (theme.cycle[k], STYLES[k], MARKERS[k])
    return found


def per_length(ax, lengths, per_seed_values, label, colour, style, marker) -> None:
    """A line through the seed means and one marker per seed, at every length."""
    per_seed = np.asarray(per_seed_values, dtype=float)  # (lengths, seeds)
    ax.plot(lengths, per_seed.mean(axis=1), style, color=colour, label=label)
    for x, column in zip(lengths, per_seed, strict=True):
        ax.plot([x] * len(column), column, marker, color=colour, markersize=3.5, alpha=0.8)


def length_axis(ax, lengths, train_len) -> None:
    """Evaluation lengths on a log₂ axis, the training length dotted, horizontal grid."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(lengths, [f"{n:,}" for n in lengths])
    ax.minorticks_off()
    ax.axvline(train_len, color=ax.xaxis.label.get_color(), linewidth=1.1, linestyle=":")
    ax.set_xlabel("evaluation length (tokens)")
    ax.grid(True, axis="y")


def eval_lengths() -> list[int]:
    """The evaluation lengths of the length-generalisation experiment."""
    return results("length_generalisation")["eval_lens"]


def extension() -> dict:
    """The context-extension experiment's results."""
    return results("context_extension")


def wall_minutes() -> str:
    """The wall time of the run that made both experiments' results, in whole minutes."""
    return f"{results('length_generalisation')['run']['wall_time_s'] / 60:.0f}"


def machine() -> str:
    """Where the results were computed, as the prose says it: the GPU and the worker
    processes that shared it, or the CPU cores."""
    data = results("length_generalisation")
    jobs = data["run"]["hardware"]["jobs"]
    if data["device"]["kind"] == "cuda":
        return f"one {data['device']['name']} GPU shared by {jobs} worker processes"
    return f"{data['run']['hardware']['cpu_count']} CPU cores"


def first_block() -> float:
    """The highest first-block training loss over the encodings (seed mean)."""
    methods = results("length_generalisation")["methods"]
    return max(float(np.mean([c[0] for c in m["train_curve"]])) for m in methods.values())


def block_steps() -> int:
    """Training steps per point of the stored training curves."""
    data = results("length_generalisation")
    return data["settings"]["steps"] // len(data["methods"]["rope"]["train_curve"][0])


def train_final(encoding: str) -> float:
    """An encoding's final training loss, mean over the seeds."""
    return span(results("length_generalisation")["methods"][encoding]["train_loss_final"])[0]


#: Points of the training curve (blocks) over which :func:`train_slope` fits its line.
LAST_BLOCKS = 5
#: :func:`train_slope` gives the fall per this many steps.
SLOPE_STEPS = 100


def train_slope(encoding: str, blocks: int = LAST_BLOCKS) -> float:
    """How fast an encoding's training loss still falls at the end: the slope of a
    straight line fitted to the last ``blocks`` points of the seed-mean training curve,
    in nats per :data:`SLOPE_STEPS` steps (negative: still falling)."""
    curves = np.asarray(results("length_generalisation")["methods"][encoding]["train_curve"])
    mean = curves.mean(axis=0)[-blocks:]
    steps = block_steps() * np.arange(len(mean))
    return float(np.polyfit(steps, mean, 1)[0] * SLOPE_STEPS)


def train_gap(encoding: str, other: str, blocks_before_end: int = 0) -> float:
    """``encoding``'s seed-mean training-curve point minus ``other``'s, ``blocks_before_end``
    points before the last."""
    methods = results("length_generalisation")["methods"]
    at = -1 - blocks_before_end
    a, b = (np.mean(methods[e]["train_curve"], axis=0)[at] for e in (encoding, other))
    return float(a - b)


def excess(encoding: str, n: int) -> np.ndarray:
    """Excess loss by position in windows of ``n`` tokens: the model's loss minus the
    generator's own, mean over the seeds, one value per bin."""
    data = results("length_generalisation")
    curves = np.asarray(data["methods"][encoding]["non_overlapping"][str(n)]["by_position"])
    floors = np.asarray(data["reference"]["loss_floor_by_position"][str(n)])  # per seed
    return (curves - floors).mean(axis=0)


def bin_width(n: int) -> int:
    """Positions per bin of the loss-by-position curves in windows of ``n`` tokens."""
    return n // results("length_generalisation")["settings"]["bins"]


def excess_from() -> int:
    """The first position of :func:`window_excess`: a quarter into the training window,
    where every model has some context."""
    return results("length_generalisation")["train_len"] // 4


def window_excess(encoding: str) -> float:
    """Mean excess loss over the generator inside the training window, from
    :func:`excess_from` to its end (windows of the training length)."""
    n = results("length_generalisation")["train_len"]
    return float(excess(encoding, n)[excess_from() // bin_width(n) :].mean())


def degradation(encoding: str, n: int) -> tuple[int, tuple[float, float], tuple[float, float]]:
    """Where ``encoding``'s excess loss by position, in windows of ``n`` tokens, leaves the
    range it had inside the training window.

    The range inside is that of the bins from the second (the first has almost no
    context) to the training length. Returns the first position from which every later
    bin lies above that range (``n`` if none), the (smallest, largest) excess of the bins
    from the second up to that position, and of the bins from it on.
    """
    train_len = results("length_generalisation")["train_len"]
    curve = excess(encoding, n)
    width = bin_width(n)
    ceiling = curve[1 : train_len // width].max()
    above = curve > ceiling
    first = len(curve)
    while first > 1 and above[first - 1]:
        first -= 1
    before, after = curve[1:first], curve[first:]
    past = (float(after.min()), float(after.max())) if len(after) else (np.nan, np.nan)
    return first * width, (float(before.min()), float(before.max())), past


def passkey_documents() -> int:
    """Passkey documents per length and seed: documents per depth times the depths."""
    s = results("length_generalisation")["settings"]
    return s["passkey_samples"] * len(s["depths"])


def binomial_se(p: float) -> float:
    """Standard error of one seed's passkey accuracy ``p`` from its documents alone:
    ``sqrt(p (1 − p) / documents)``."""
    return float(np.sqrt(p * (1 - p) / passkey_documents()))


def loss(encoding: str, n: int, mode: str = "non_overlapping") -> float:
    """Mean loss of ``encoding``'s models at length ``n`` (``mode``: or ``"sliding"``)."""
    metric = results("length_generalisation")["methods"][encoding][mode][str(n)]["mean"]
    return span(metric)[0]


def passkey(encoding: str, n: int) -> float:
    """Mean passkey accuracy of ``encoding``'s models at length ``n`` (over the depths)."""
    return span(passkey_by_length(results("length_generalisation")["methods"][encoding], n))[0]


def extension_loss(method: str, stage: str, n: int) -> float:
    """Mean loss of the RoPE models stretched by ``method`` (``stage``: zero_shot or
    fine_tuned) at length ``n``."""
    metrics = extension()["methods"][method][stage]
    return span(metrics["non_overlapping"][str(n)]["mean"])[0]


def extension_passkey(method: str, stage: str, n: int) -> float:
    """Mean passkey accuracy of the RoPE models stretched by ``method`` at length ``n``."""
    return span(passkey_by_length(extension()["methods"][method][stage], n))[0]


def length_at(where: str) -> int:
    """The shortest (``first``), the next (``second``), the middle (``mid``) or the longest
    (``last``) evaluation length, or the context-extension length (``target``)."""
    lengths = eval_lengths()
    positions = {
        "first": lengths[0],
        "second": lengths[1],
        "mid": lengths[len(lengths) // 2],
        "last": lengths[-1],
    }
    return positions[where] if where in positions else extension()["target_len"]


def key_count() -> int:
    """How many passkeys there are (one in that many is found by chance): the values of a
    digit to the power of the key's length, as the results record the task."""
    task = results("length_generalisation")["task"]
    return task["digit_values"] ** task["key_length"]
