"""Chapter 21, time in M-RoPE: the time ids of one short clip under the three Qwen-VL rules."""

from __future__ import annotations

from functools import cache

import numpy as np
from matplotlib.ticker import MaxNLocator

from pe_explained import mrope_pair_axes, mrope_video_position_ids

from ... import figure, value
from ...style import new_figure
from .settings import _gallery_config

#: The clip: text, a video of VIDEO_GRID (t grid steps of two frames, h × w patches
#: merged 2 × 2 into tokens), text; tokens_per_second as in Qwen2.5-VL's released
#: vision configs; the frame rates the two Qwen2.5-VL panels sample at (two frames a
#: grid step: a step lasts 2 / fps seconds); Qwen3-VL's timestamp text between frames.
TEXT_RUNS, VIDEO_GRID, TOKENS_PER_SECOND = (2, 2), (4, 4, 4), 2
SLOW_FPS, FAST_FPS, FRAMES_PER_STEP, TIMESTAMP_TOKENS = 2, 8, 2, 5
QUOTED = ("TOKENS_PER_SECOND", "SLOW_FPS", "FAST_FPS")


@cache
def panels() -> dict[str, np.ndarray]:
    """Panel title → the (t, h, w) ids of the clip under that rule."""
    runs, grids = list(TEXT_RUNS), [list(VIDEO_GRID)]

    def qwen25(fps: int) -> np.ndarray:
        return mrope_video_position_ids(
            runs,
            grids,
            model="qwen2_5_vl",
            seconds_per_grid=FRAMES_PER_STEP / fps,
            tokens_per_second=TOKENS_PER_SECOND,
        )

    return {
        "Qwen2-VL: one id a grid step": mrope_video_position_ids(runs, grids, model="qwen2_vl"),
        f"Qwen2.5-VL at {SLOW_FPS} frames/s: time in ids": qwen25(SLOW_FPS),
        f"Qwen2.5-VL at {FAST_FPS} frames/s: steps share ids": qwen25(FAST_FPS),
        "Qwen3-VL: time in text between frames": mrope_video_position_ids(
            runs, grids, model="qwen3_vl", frame_text_lengths=TIMESTAMP_TOKENS
        ),
    }


def _video_tokens() -> int:
    t, h, w = VIDEO_GRID
    return t * (h // 2) * (w // 2)


def _steps(ids: np.ndarray) -> list[int]:
    """The distinct time ids of the video's grid steps (Qwen2/2.5-VL layout)."""
    start, per_step = TEXT_RUNS[0], _video_tokens() // VIDEO_GRID[0]
    return [int(ids[0, start + k * per_step]) for k in range(VIDEO_GRID[0])]


@value("video_slow_steps")
def _():
    return ", ".join(str(s) for s in _steps(list(panels().values())[1]))


@value("video_fast_steps")
def _():
    return ", ".join(str(s) for s in _steps(list(panels().values())[2]))


@value("video_text_resumes")
def _():
    """Where the text after the clip resumes under Qwen2-VL's rule, and the largest id
    the clip holds."""
    ids = list(panels().values())[0]
    after = TEXT_RUNS[0] + _video_tokens()
    return f"{int(ids[0, after])} (the clip's time ids reach {int(ids[0, :after].max())})"


@figure(
    "mrope_video_time_ids",
    alt=lambda: (
        f"Four panels of time ids against token index for {TEXT_RUNS[0]} text tokens, a "
        f"video of {VIDEO_GRID[0]} grid steps of {_video_tokens() // VIDEO_GRID[0]} tokens "
        f"and {TEXT_RUNS[1]} text tokens. Qwen2-VL's time id rises by one per step; "
        f"Qwen2.5-VL's at {SLOW_FPS} frames a second rises by two per step "
        f"({_steps(list(panels().values())[1])}), at {FAST_FPS} frames a second two steps "
        f"share each id ({_steps(list(panels().values())[2])}); Qwen3-VL keeps the time id of "
        "every frame at its start, with timestamp text between frames."
    ),
    caption=lambda: (
        "The time id of every token of a short clip under the three Qwen-VL rules "
        "(<code>pe_explained.mrope_video_position_ids</code>); video tokens shaded."
    ),
)
def _(theme):
    fig = new_figure(7.0, 4.6)
    axes = fig.subplots(2, 2).ravel()
    for ax, (title, ids) in zip(axes, panels().items(), strict=True):
        seq = ids.shape[1]
        video = np.zeros(seq, dtype=bool)
        per_step = _video_tokens() // VIDEO_GRID[0]
        # Qwen3-VL: each grid step a frame of its own, timestamp text between frames
        gap = TIMESTAMP_TOKENS if title.startswith("Qwen3") else 0
        for k in range(VIDEO_GRID[0]):
            start = TEXT_RUNS[0] + k * (per_step + gap)
            video[start : start + per_step] = True
        for index in np.flatnonzero(video):
            ax.axvspan(index - 0.5, index + 0.5, color=theme.cycle[3], alpha=0.15, lw=0)
        ax.plot(
            np.arange(seq),
            ids[0],
            marker="o",
            linestyle="none",
            markersize=3.5,
            color=theme.cycle[0],
        )
        ax.set_title(title, fontsize=9)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(-0.5, max(int(ids[0].max()), 8) + 1)
    for ax in axes[2:]:
        ax.set_xlabel("token index")
    for ax in axes[::2]:
        ax.set_ylabel("time id t")
    return fig


def _qwen3_vl_params() -> dict:
    """The rope_parameters of Qwen3-VL's gallery config."""
    return _gallery_config("qwen3-vl-f1")["text_config"]["rope_parameters"]


def _qwen3_vl_axes() -> np.ndarray:
    """The axis (0 time, 1 row, 2 column) of each of its pairs."""
    params = _qwen3_vl_params()
    return mrope_pair_axes(params["mrope_section"], interleaved=params["mrope_interleaved"])


@value("qwen3_vl_section")
def _():
    return str(_qwen3_vl_params()["mrope_section"])


@value("qwen3_vl_time_tail")
def _():
    """How many of the slowest pairs all follow time (the run of 0s at the end)."""
    axes = _qwen3_vl_axes()
    tail = len(axes) - len(np.trim_zeros(axes, "b"))
    return str(tail)


@value("qwen3_vl_cycled")
def _():
    """Pairs dealt to time, row and column in turn before the tail."""
    axes = _qwen3_vl_axes()
    return str(len(np.trim_zeros(axes, "b")))
