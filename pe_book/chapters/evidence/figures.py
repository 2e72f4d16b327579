"""Chapter 22's figures: training curves, loss and passkey accuracy by length, excess
loss by position, and the context-extension methods."""

from __future__ import annotations

import numpy as np

from ... import figure
from ...experiments import depth_grid, passkey_by_length, results, span
from ...style import label_line_ends, new_figure, phone_layout_active
from .common import (
    ENCODING_LABELS,
    LAST_BLOCKS,
    MARKERS,
    METHOD_LABELS,
    STYLES,
    block_steps,
    eval_lengths,
    extension,
    first_block,
    key_count,
    length_axis,
    looks,
    per_length,
)


def _references(ax, theme, data: dict, keys=("unigram_entropy", "loss_floor")) -> None:
    """Dashed lines at the unigram entropy and the loss floor of the evaluation text."""
    ref = data["reference"]
    names = {"unigram_entropy": "unigram entropy", "loss_floor": "loss floor"}
    for key, text in ((k, names[k]) for k in keys):
        level = float(np.mean(ref[key]))  # each seed's documents: their mean
        ax.axhline(level, color=theme.muted, linewidth=0.9, linestyle="--")
        # the entropy at the right end, where the curves have fallen far below it; the
        # floor in the middle, clear of the training length's line and the end labels
        x, align = (0.99, "right") if key == "unigram_entropy" else (0.5, "center")
        ax.annotate(
            text,
            (x, level),
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


@figure(
    "evidence_training",
    alt=lambda: (
        "Training loss against step for the tiny models of every encoding, one line per "
        f"encoding with a band over the seeds, falling from {first_block():.2f} (mean of the "
        f"first {block_steps()} steps) toward the loss floor of "
        f"{np.mean(results('length_generalisation')['reference']['loss_floor']):.2f}; dashed lines "
        "mark the unigram entropy and the floor; a shaded band marks the last "
        f"{LAST_BLOCKS * block_steps()} steps. " + _alt_training()
    ),
    caption=lambda: (
        f"Training loss of every model, mean of each block of {block_steps()} steps, against "
        "the unigram entropy and the generator's floor; shaded: the last "
        f"{LAST_BLOCKS * block_steps()} steps, where the text fits each slope."
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
        steps = block_steps() * (np.arange(curves.shape[1]) + 0.5)
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
    # the stretch over which the chapter fits each curve's final slope
    last = block_steps() * (curves.shape[1] - LAST_BLOCKS)
    ax.axvspan(last, block_steps() * curves.shape[1], color=theme.muted, alpha=0.12, linewidth=0)
    ax.set_xlabel("training step")
    ax.set_ylabel("loss (nats per token)")
    label_line_ends(ax, theme)
    ax.grid(True, axis="y")
    return fig


def _alt_training() -> str:
    data = results("length_generalisation")
    parts = [
        f"{label} {np.mean(data['methods'][enc]['train_loss_final']):.2f}"
        for enc, label in ENCODING_LABELS.items()
        if enc in data["methods"]
    ]
    return "Final training loss: " + "; ".join(parts) + "."


# Length generalisation ---------------------------------------------------------------


@figure(
    "evidence_length_loss",
    alt=lambda: (
        "Two panels of mean loss against evaluation length from "
        f"{eval_lengths()[0]} to {eval_lengths()[-1]:,} tokens (log scale), one line per "
        "encoding and one dot per seed: left, non-overlapping windows; right, a sliding window. "
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
            per_length(ax, lengths, values, label, colour, STYLES[i], MARKERS[i])
        length_axis(ax, lengths, data["train_len"])
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
            a = span(metric[str(first)]["mean"])[0]
            b = span(metric[str(last)]["mean"])[0]
            parts.append(f"{label} {a:.2f} to {b:.2f}")
    return (
        "Non-overlapping mean loss from the shortest to the longest length: "
        + "; ".join(parts)
        + "."
    )


@figure(
    "evidence_loss_by_position",
    alt=lambda: (
        f"Small multiples, one per encoding: excess loss (the model's loss minus the "
        f"generator's own loss on the same tokens) against position in windows of "
        f"{eval_lengths()[-1]:,} tokens, a line for the mean over the seeds and a band for their "
        f"range, with a dotted line at the training length "
        f"{results('length_generalisation')['train_len']}. " + _alt_by_position()
    ),
    caption=lambda: (
        f"Excess loss by position in non-overlapping windows of {eval_lengths()[-1]:,} tokens, in "
        f"bins of {eval_lengths()[-1] // results('length_generalisation')['settings']['bins']} "
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
    # each seed's models against the generator on that seed's own documents
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
        f"Passkey accuracy, averaged over {len(_depths())} depths, against evaluation length "
        "(log scale) for every encoding, one line for the mean over the seeds and one dot per "
        "seed. " + _alt_passkey()
    ),
    caption=lambda: (
        "The passkey: share of documents whose four key digits are all predicted, averaged "
        f"over the depths {', '.join(_depths())} (line: mean over the seeds; dots: each "
        f"seed). Chance is 1 in {key_count():,}."
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
            values = [passkey_by_length(data["methods"][enc], n) for n in lengths]
            per_length(ax, lengths, values, label, colour, STYLES[i], MARKERS[i])
    length_axis(ax, lengths, data["train_len"])
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
            accs = [span(passkey_by_length(data["methods"][enc], n))[0] for n in data["eval_lens"]]
            parts.append(f"{label} " + ", ".join(f"{a:.2f}" for a in accs))
    return "Mean accuracy at each length: " + "; ".join(parts) + "."


# Context extension -------------------------------------------------------------------


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
        f"{extension()['factor']} times (dotted: the training length; dashed: "
        f"{extension()['target_len']} tokens), zero-shot and after "
        f"{extension()['fine_tune']['steps']} fine-tuning steps at "
        f"{extension()['target_len']} tokens."
    ),
)
def _(theme):
    data = extension()
    lengths = data["eval_lens"]
    fig = new_figure(7.6, 6.0)
    axes = fig.subplots(2, 2, sharex=True, sharey="row")
    styles = looks(theme, METHOD_LABELS)
    for col, stage in enumerate(("zero_shot", "fine_tuned")):
        for method, label in METHOD_LABELS.items():
            metrics = data["methods"][method][stage]
            losses = [metrics["non_overlapping"][str(n)]["mean"] for n in lengths]
            per_length(axes[0, col], lengths, losses, label, *styles[method])
            accs = [passkey_by_length(metrics, n) for n in lengths]
            per_length(axes[1, col], lengths, accs, label, *styles[method])
        for ax in axes[:, col]:
            length_axis(ax, lengths, data["train_len"])
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


def _alt_extension() -> str:
    data = extension()
    parts = []
    for method, label in METHOD_LABELS.items():
        entry = data["methods"][method]
        last = str(data["eval_lens"][-1])
        zero = span(entry["zero_shot"]["non_overlapping"][last]["mean"])[0]
        tuned = span(entry["fine_tuned"]["non_overlapping"][last]["mean"])[0]
        parts.append(f"{label} {zero:.2f} zero-shot, {tuned:.2f} fine-tuned")
    return f"Mean loss at {data['eval_lens'][-1]:,} tokens: " + "; ".join(parts) + "."


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
    data = extension()
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
            grid = depth_grid(data["methods"][method][stage], lengths)
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
    data = extension()
    last = data["eval_lens"][-1]
    parts = []
    for method, label in METHOD_LABELS.items():
        grid = depth_grid(data["methods"][method]["zero_shot"], [last])
        parts.append(
            f"{label} {grid[0, 0]:.2f} with the key at the start, {grid[-1, 0]:.2f} near the end"
        )
    return f"Zero-shot at {last:,} tokens: " + "; ".join(parts) + "."
