"""Positions with more than one coordinate: multimodal RoPE and 2-D RoPE for images.

A text token has one position; a patch of an image has a row and a column, and a
frame of a video a time as well. Rotary embeddings take such positions by giving
each pair of dimensions *one* of the coordinates: pair ``i`` turns by
``θ_i = p[axis(i)] · ω_i`` instead of ``p · ω_i``. Because a rotation by ``θ_q``
met by one by ``θ_k`` leaves ``θ_q − θ_k`` in the score, every pair sees the
offset of its own coordinate, and the score depends on the offsets (Δt, Δh, Δw)
alone.

Two families are implemented:

* **M-RoPE** (multimodal rotary position embedding; Wang et al., 2024,
  *Qwen2-VL*, arXiv:2409.12191). Every token has three ids (t, h, w). Text tokens
  get equal ids, so text is plain RoPE; an image's tokens take their row and
  column from the image's grid. :func:`mrope_position_ids` lays out a sequence of
  text and images; :func:`mrope_video_position_ids` one of text, images and
  videos under the three conventions of transformers: Qwen2-VL (a video's time id
  advances by one per temporal grid step), Qwen2.5-VL (by ``tokens_per_second``
  ids per second of video, truncated to integers, so frames close in time share
  an id) and Qwen3-VL (a video is its frames, each numbered as an image, with
  timestamp text between them). :func:`mrope_pair_axes` says which pair reads
  which id (``mrope_section``; Qwen2-VL's contiguous sections or Qwen3-VL's
  interleaved ones) and :func:`apply_mrope` rotates.
* **2-D RoPE** as in Pixtral (Agrawal et al., 2024, *Pixtral 12B*,
  arXiv:2410.07073): a patch at (row, col); rows and columns take alternate
  frequencies of the ordinary ladder. :func:`patch_grid_positions`,
  :func:`rope_2d_frequencies`, :func:`apply_rope_2d`.

Both give the same numbers as ``transformers`` (``models/qwen2_vl``,
``models/qwen2_5_vl``, ``models/qwen3_vl``, ``models/pixtral``);
``tests/test_transformers_multimodal.py`` and ``tests/test_transformers_video.py``
compare them.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import (
    check_array,
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_positive_even_int,
    check_rotary_input,
    check_size,
)
from .rope import _complex_dtype, _rotate_pairs, rope_frequencies
from .sinusoidal import LAYOUTS

__all__ = [
    "apply_mrope",
    "apply_rope_2d",
    "mrope_pair_axes",
    "mrope_position_ids",
    "mrope_video_position_ids",
    "patch_grid_positions",
    "rope_2d_frequencies",
]

# ---------------------------------------------------------------------------
# Shared: rotate every pair by the coordinate it is assigned
# ---------------------------------------------------------------------------


def _check_coordinates(name: str, value, n_axes: int, seq: int) -> np.ndarray:
    """Positions with ``n_axes`` coordinates: finite numbers >= 0, shape (n_axes, seq)."""
    rule = f"of shape ({n_axes}, seq), one row per coordinate"
    ids = check_array(name, value, ndim=2, rule=rule, minimum=0)
    if ids.shape != (n_axes, seq):
        raise ValueError(
            f"{name} must have shape ({n_axes}, seq) with seq = x.shape[-2] = {seq}, "
            f"got shape {ids.shape}"
        )
    return ids


def _check_inv_freq(value, half: int) -> np.ndarray:
    freq = check_array("inv_freq", value, ndim=1, minimum=0)
    if freq.shape != (half,):
        raise ValueError(
            f"inv_freq must have head_dim/2 = {half} entries (one per pair), got shape {freq.shape}"
        )
    return freq


def _rotate_by_axes(x, ids, axes, inv_freq, layout, scale) -> np.ndarray:
    """Rotate pair ``i`` of every row ``s`` by ``θ = ids[axes[i], s] · inv_freq[i]``."""
    # θ[s, i] = p_{axis(i)}(s) · ω_i, computed in float64 whatever the dtype of x
    theta = ids[axes].T * inv_freq
    rot = np.empty(theta.shape, dtype=_complex_dtype(x.dtype))
    rot.real, rot.imag = scale * np.cos(theta), scale * np.sin(theta)
    return _rotate_pairs(x, rot, layout)


# ---------------------------------------------------------------------------
# M-RoPE
# ---------------------------------------------------------------------------


def mrope_position_ids(text_lengths, image_grids, *, spatial_merge_size=2) -> np.ndarray:
    """The three position ids (t, h, w) of every token of a text-and-images sequence.

    The sequence alternates runs of text and images: ``text_lengths[0]`` text
    tokens, image 0, ``text_lengths[1]`` text tokens, image 1, …, and
    ``text_lengths[-1]`` text tokens at the end (any run may be empty). This is
    Qwen2-VL's rule (Wang et al., 2024, section 2.1), the rule of transformers'
    ``Qwen2VLModel.get_rope_index`` for images (Qwen2.5-VL's and Qwen3-VL's
    ``get_rope_index`` agree for images):

    * a text token at running position ``p`` gets ``(p, p, p)``: text alone is
      plain RoPE;
    * an image starting at ``p`` whose grid, after merging, is ``H × W`` tokens
      gives its token in row ``r`` and column ``c`` the ids ``(p, p + r, p + c)``
      (all of an image is one instant), tokens in row-major order;
    * the run after an image starts at ``p + max(H, W)``, one more than the
      largest id of the image.

    In a real prompt every image sits between two text tokens
    (``<|vision_start|>`` and ``<|vision_end|>``); transformers tells images
    apart by the text between them, so it cannot express two images with no
    token between, which this function numbers one after the other.

    Parameters
    ----------
    text_lengths : array_like of int, shape (n_images + 1,)
        Number of text tokens before, between and after the images (>= 0).
    image_grids : array_like of int, shape (n_images, 2)
        Height and width of every image in patches, as the vision encoder sees
        it (transformers' ``image_grid_thw`` without its ``t = 1``). ``[]`` for
        text only.
    spatial_merge_size : int, optional
        Side of the square of patches merged into one token (2 in Qwen2-VL,
        Qwen2.5-VL and Qwen3-VL configs); each image side must be a multiple of
        it. With 1, ``image_grids`` counts tokens.

    Returns
    -------
    ndarray of int64, shape (3, seq)
        Rows t, h, w; ``seq = sum(text_lengths) + Σ H·W``. Decoding continues at
        ``ids.max() + 1`` on the diagonal.

    Notes
    -----
    For videos, whose tokens also differ in time, see
    :func:`mrope_video_position_ids`; with one grid step per item it gives these ids.

    Examples
    --------
    Three words, an image of 4 × 6 patches (2 × 3 tokens after merging), two words:

    >>> t, h, w = mrope_position_ids([3, 2], [[4, 6]]).tolist()
    >>> t
    [0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7]
    >>> h
    [0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7]
    >>> w
    [0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7]
    """
    texts = check_array("text_lengths", text_lengths, kind="integer", ndim=1, minimum=0)
    grids = _check_grids("image_grids", image_grids, ("height", "width"), "image")
    _check_runs(texts, grids, "image_grids", "image(s)")
    merge = check_int("spatial_merge_size", spatial_merge_size, minimum=1)
    _check_merge("image_grids", grids, merge)
    _check_tokens(texts, grids, merge)

    one_instant = np.zeros(1, dtype=np.int64)
    blocks = [(one_instant, h, w) for h, w in (grids // merge).tolist()]
    return _lay_out(texts.tolist(), blocks, resume_at_max=False)


def _check_grids(name: str, value, axes: tuple[str, ...], item: str) -> np.ndarray:
    """Grids of shape (n, len(axes)) of integers; ``[]`` for none."""
    shape = f"(n_{item}s, {len(axes)})"
    rule = f"of shape {shape}, one ({', '.join(axes)}) per {item}"
    grids = check_array(name, value, kind="integer", ndim=(1, 2), rule=f"of shape {shape}")
    if grids.ndim == 1 and not grids.size:
        grids = grids.reshape(0, len(axes))
    if grids.ndim != 2 or grids.shape[1] != len(axes):
        raise ValueError(f"{name} must be {rule}, got shape {grids.shape}")
    return grids


def _check_runs(texts: np.ndarray, grids: np.ndarray, grids_name: str, items: str) -> None:
    if len(texts) != len(grids) + 1:
        raise ValueError(
            f"text_lengths must have one entry more than {grids_name} has rows (a run of text "
            f"before, between and after the {items.removesuffix('(s)')}s): got {len(texts)} "
            f"text runs for {len(grids)} {items}"
        )


#: The most tokens a sequence of position ids may hold (the ids are (3, seq) int64).
MAX_TOKENS = 1 << 24


def _check_tokens(texts: np.ndarray, grids: np.ndarray, merge: int, extra: int = 0) -> None:
    """Refuse a sequence of more than :data:`MAX_TOKENS` tokens before laying it out
    (counted in Python integers, so absurd grids cannot overflow the count)."""
    vision = sum(math.prod(int(v) for v in row) // merge**2 for row in grids)
    check_size(
        "text_lengths with the grids",
        sum(int(t) for t in texts) + vision + extra,
        limit=MAX_TOKENS,
        what="a sequence",
    )


def _check_merge(name: str, grids: np.ndarray, merge: int) -> None:
    """Heights and widths (the last two columns) in whole merged tokens."""
    sides = grids[:, -2:]
    if sides.size and (sides.min() < merge or np.any(sides % merge)):
        raise ValueError(
            f"{name} must hold heights and widths that are positive multiples of "
            f"spatial_merge_size = {merge} (whole merged tokens), got {grids.tolist()}"
        )


def _lay_out(texts: list[int], blocks: list, *, resume_at_max: bool) -> np.ndarray:
    """The (3, seq) ids of text runs and vision blocks in turn.

    ``texts`` has one run more than ``blocks``; a block is (time ids of its grid steps
    relative to its start, height, width), sides in merged tokens.
    """
    pieces, start = [], 0
    for i, n_text in enumerate(texts):
        # text: (p, p, p) for p = start … start + n − 1
        pieces.append(np.broadcast_to(np.arange(start, start + n_text), (3, n_text)))
        start += n_text
        if i == len(blocks):
            break
        times, height, width = blocks[i]
        # token (k, r, c), grid step first, then row-major: (p + time_k, p + r, p + c)
        step, row, col = np.unravel_index(
            np.arange(len(times) * height * width), (len(times), height, width)
        )
        block = np.stack([times[step], row, col]) + start
        pieces.append(block)
        # transformers 5: p + max(H, W), whatever the time ids; transformers 4: largest id + 1
        start = int(block.max()) + 1 if resume_at_max else start + max(height, width)
    return np.concatenate(pieces, axis=1).astype(np.int64)


#: The conventions of :func:`mrope_video_position_ids`.
_VIDEO_MODELS = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl")
#: Where the text after a vision item resumes (:func:`mrope_video_position_ids`).
_RESUME = ("spatial", "max")


def mrope_video_position_ids(
    text_lengths,
    grids,
    *,
    model="qwen2_vl",
    seconds_per_grid=1.0,
    tokens_per_second=2.0,
    frame_text_lengths=None,
    spatial_merge_size=2,
    resume="spatial",
) -> np.ndarray:
    """The ids (t, h, w) of every token of a sequence of text, images and videos (M-RoPE).

    The sequence alternates runs of text and vision items, as in
    :func:`mrope_position_ids`: ``text_lengths[0]`` text tokens, item 0,
    ``text_lengths[1]`` text tokens, …; an item is an image or a video, given by its
    grid ``(t, h, w)``: ``t`` temporal grid steps (``temporal_patch_size`` = 2
    frames each; 1 for an image), ``h × w`` patches a step, ``H × W`` tokens after
    merging (``H = h / spatial_merge_size``). Text tokens and the grid's rows and
    columns are numbered as for an image; what the three models of transformers 5.23
    (``get_rope_index`` of ``Qwen2VLModel``, ``Qwen2_5_VLModel``, ``Qwen3VLModel``)
    do differently is time. An item starting at ``p`` gives the token of grid step
    ``k``, row ``r``, column ``c`` the ids ``(p + τ_k, p + r, p + c)``, tokens ordered
    by step, then row, then column, where

    * ``"qwen2_vl"``: ``τ_k = k``, one id a grid step whatever the frame rate;
    * ``"qwen2_5_vl"``: ``τ_k = ⌊k · tokens_per_second · seconds_per_grid⌋``,
      absolute time: ``tokens_per_second`` ids a second of video (2 in the released
      configs), truncated to an integer. When a step lasts less than
      ``1 / tokens_per_second`` seconds (a high frame rate) consecutive steps share an
      id: at 8 frames a second a step is 0.25 s, half an id, and the time ids run
      0, 0, 1, 1, …. As in transformers, the product is computed in float32 (the
      processor returns ``second_per_grid_ts`` as a float32 tensor), which can fall
      just below an exact integer and truncate one lower;
    * ``"qwen3_vl"``: a video is ``t`` items of one step each, one per grid step,
      with the text the processor writes between them (``<|vision_end|>``, the
      timestamp ``<1.5 seconds>``, ``<|vision_start|>``): every frame is numbered as
      an image at its own start, ``τ = 0``; time is told by the timestamps' text.

    The text after an item resumes at ``p + max(H, W)`` (``resume="spatial"``,
    transformers 5), whatever the time ids: after a video whose time ids pass its
    rows and columns the text reuses ids the video holds. transformers 4's
    ``get_rope_index``, the code Qwen2-VL and Qwen2.5-VL were released with, resumes
    at the item's largest id + 1 (``resume="max"``). The two agree for images and
    for Qwen3-VL, whose items have one step. Either way decoding continues at
    ``ids.max() + 1`` (transformers' ``rope_deltas``).

    Parameters
    ----------
    text_lengths : array_like of int, shape (n_items + 1,)
        Number of text tokens before, between and after the items (>= 0).
    grids : array_like of int, shape (n_items, 3)
        ``(t, h, w)`` of every item in the order of the sequence, as the vision
        encoder sees it (rows of transformers' ``image_grid_thw`` and
        ``video_grid_thw``); ``t >= 1``, ``h`` and ``w`` multiples of
        ``spatial_merge_size``. ``[]`` for text only.
    model : {"qwen2_vl", "qwen2_5_vl", "qwen3_vl"}, optional
        Whose rule for time.
    seconds_per_grid : float or array_like of float, shape (n_items,), optional
        ``"qwen2_5_vl"`` only: seconds one grid step of each item lasts
        (transformers' ``second_per_grid_ts``; the processor's
        ``temporal_patch_size / fps`` of the sampled frames; 1 when absent, the
        default). An image's entry is not used (one step is at time 0). One number
        applies to every item.
    tokens_per_second : float, optional
        ``"qwen2_5_vl"`` only: time ids a second (the vision config's
        ``tokens_per_second``; 2 in Qwen2.5-VL's released configs).
    frame_text_lengths : int or array_like of int, optional
        ``"qwen3_vl"`` only: the number of text tokens between two consecutive
        frames of a video, one entry per gap, videos in order
        (``Σ (t − 1)`` entries), or one count for every gap. Needed when an item
        has ``t > 1``.
    spatial_merge_size : int, optional
        Side of the square of patches merged into one token (2 in every released
        config).
    resume : {"spatial", "max"}, optional
        Where the text after an item resumes: ``p + max(H, W)`` (transformers 5) or
        the item's largest id + 1 (transformers 4).

    Returns
    -------
    ndarray of int64, shape (3, seq)
        Rows t, h, w; ``seq = sum(text_lengths) + Σ t·H·W`` plus, for Qwen3-VL,
        the text between frames.

    Notes
    -----
    References: transformers 5.23, ``models/qwen2_vl/modeling_qwen2_vl.py``,
    ``models/qwen2_5_vl/modeling_qwen2_5_vl.py`` and
    ``models/qwen3_vl/modeling_qwen3_vl.py`` (``get_rope_index`` and
    ``get_vision_position_ids`` of each ``…Model``); ``second_per_grid_ts`` from
    ``Qwen2_5_VLProcessor`` (``processing_qwen2_5_vl.py``), the frames' timestamp text
    from ``Qwen3VLProcessor.replace_video_token`` (``processing_qwen3_vl.py``).

    A batch is numbered one sequence at a time: transformers takes the tokens its
    attention mask keeps, numbers them from 0 as here, and leaves 0 at padding. It
    finds items as runs of image or video tokens, so it needs text between two
    items (and between two Qwen3-VL frames); this function numbers items with no
    text between them one after the other.

    Examples
    --------
    A word, a clip of 4 grid steps of 4 × 4 patches (2 × 2 tokens), a word. Qwen2-VL
    advances time one id a step; the word after resumes at 1 + 2:

    >>> ids = mrope_video_position_ids([1, 1], [[4, 4, 4]], model="qwen2_vl")
    >>> ids[0].tolist()
    [0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3]
    >>> ids[:, 1:5].tolist()  # the first step: rows and columns
    [[1, 1, 1, 1], [1, 1, 2, 2], [1, 2, 1, 2]]

    Qwen2.5-VL at 8 frames a second (0.25 s a step, 2 ids a second: half an id a step):

    >>> ids = mrope_video_position_ids(
    ...     [1, 1], [[4, 4, 4]], model="qwen2_5_vl", seconds_per_grid=0.25, tokens_per_second=2
    ... )
    >>> ids[0].tolist()
    [0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3]

    Qwen3-VL: each step a frame at its own start, 3 tokens of timestamp text between:

    >>> ids = mrope_video_position_ids(
    ...     [1, 1], [[2, 4, 4]], model="qwen3_vl", frame_text_lengths=3
    ... )
    >>> ids[0].tolist()
    [0, 1, 1, 1, 1, 3, 4, 5, 6, 6, 6, 6, 8]
    """
    texts = check_array("text_lengths", text_lengths, kind="integer", ndim=1, minimum=0)
    grids = _check_grids("grids", grids, ("t", "height", "width"), "item")
    _check_runs(texts, grids, "grids", "item(s)")
    model = check_choice("model", model, _VIDEO_MODELS)
    seconds = check_array(
        "seconds_per_grid", seconds_per_grid, ndim=(0, 1), rule="a number or 1-D", minimum=0
    )
    per_second = check_float("tokens_per_second", tokens_per_second, greater_than=0.0)
    gaps = None
    if frame_text_lengths is not None:
        gaps = check_array(
            "frame_text_lengths",
            frame_text_lengths,
            kind="integer",
            ndim=(0, 1),
            rule="an int or 1-D",
            minimum=0,
        )
    merge = check_int("spatial_merge_size", spatial_merge_size, minimum=1)
    resume = check_choice("resume", resume, _RESUME)
    if grids.size and grids[:, 0].min() < 1:
        raise ValueError(
            f"grids must have t >= 1 temporal grid steps (1 for an image), got {grids.tolist()}"
        )
    _check_merge("grids", grids, merge)
    if seconds.ndim == 1 and seconds.shape != (len(grids),):
        raise ValueError(
            f"seconds_per_grid must be one number or one per item ({len(grids)}), "
            f"got shape {seconds.shape}"
        )
    if model != "qwen2_5_vl":
        for name, value, default in [
            ("seconds_per_grid", seconds, 1.0),
            ("tokens_per_second", per_second, 2.0),
        ]:
            if np.any(value != default):
                raise ValueError(
                    f"{name} is Qwen2.5-VL's (model='qwen2_5_vl'); model={model!r} spaces "
                    f"time without it, got {name}={np.asarray(value).tolist()}"
                )
    n_gaps = int((grids[:, 0] - 1).sum()) if grids.size else 0
    if model != "qwen3_vl" and gaps is not None:
        raise ValueError(
            f"frame_text_lengths is Qwen3-VL's (model='qwen3_vl'), whose videos are frames "
            f"between timestamp text; model={model!r} numbers a video as one grid"
        )
    if model == "qwen3_vl" and n_gaps and gaps is None:
        raise ValueError(
            f"frame_text_lengths is needed for model='qwen3_vl': the text tokens between the "
            f"frames of each video ({n_gaps} gap(s) here)"
        )
    if gaps is not None and gaps.ndim == 1 and gaps.shape != (n_gaps,):
        raise ValueError(
            f"frame_text_lengths must have one entry per gap between consecutive frames "
            f"(sum of t - 1 = {n_gaps}), or be one int, got shape {gaps.shape}"
        )

    # the text between frames counts too: at most its largest run per gap
    between = 0 if gaps is None else int(np.max(gaps, initial=0)) * n_gaps
    _check_tokens(texts, grids, merge, between)
    steps, heights, widths = grids.T.tolist() if grids.size else ([], [], [])
    heights = [h // merge for h in heights]
    widths = [w // merge for w in widths]
    if model == "qwen3_vl":
        # every grid step a one-step item; the text between frames between them
        between = iter(np.broadcast_to(gaps if gaps is not None else 0, (n_gaps,)).tolist())
        runs, blocks, one_instant = [int(texts[0])], [], np.zeros(1, dtype=np.int64)
        for i, (n_steps, height, width) in enumerate(zip(steps, heights, widths, strict=True)):
            for k in range(n_steps):
                blocks.append((one_instant, height, width))
                runs.append(next(between) if k < n_steps - 1 else int(texts[i + 1]))
        return _lay_out(runs, blocks, resume_at_max=resume == "max")

    seconds = np.broadcast_to(seconds, (len(grids),))
    blocks = []
    for n_steps, height, width, second in zip(steps, heights, widths, seconds, strict=True):
        if model == "qwen2_vl":
            times = np.arange(n_steps, dtype=np.int64)  # τ_k = k
        else:
            # τ_k = ⌊k · tokens_per_second · seconds_per_grid⌋, in float32 as transformers
            step = np.float32(per_second) * np.float32(second)
            times = np.trunc(np.arange(n_steps, dtype=np.float32) * step).astype(np.int64)
        blocks.append((times, height, width))
    return _lay_out(texts.tolist(), blocks, resume_at_max=resume == "max")


def _check_section(mrope_section) -> np.ndarray:
    section = check_array("mrope_section", mrope_section, kind="integer", ndim=1, minimum=0)
    if section.shape != (3,):
        raise ValueError(
            f"mrope_section must have 3 entries (pairs for t, h and w), got shape {section.shape}"
        )
    return section


def mrope_pair_axes(mrope_section, *, interleaved=False) -> np.ndarray:
    """Which coordinate (0 = t, 1 = h, 2 = w) every pair of an M-RoPE head reads.

    Parameters
    ----------
    mrope_section : array_like of 3 ints
        Number of pairs for t, h and w (``rope_parameters["mrope_section"]`` of a
        Qwen2-VL or Qwen3-VL config: ``[16, 24, 24]`` and ``[24, 20, 20]`` for
        ``head_dim`` 128). The head has ``sum(mrope_section)`` pairs.
    interleaved : bool, optional
        ``False``: contiguous sections, t first, then h, then w (Qwen2-VL and
        Qwen2.5-VL; transformers' ``Qwen2VLRotaryEmbedding``).
        ``True``: Qwen3-VL's layout (``Qwen3VLTextRotaryEmbedding``): the pairs
        cycle t, h, w, t, h, w, … so each coordinate meets fast and slow
        frequencies alike; pair ``3j + 1`` reads h for ``j < mrope_section[1]``,
        pair ``3j + 2`` reads w for ``j < mrope_section[2]``, every other pair t.
        The cycle must fit: ``3·mrope_section[1] <= pairs + 1`` and
        ``3·mrope_section[2] <= pairs``.

    Returns
    -------
    ndarray of int64, shape (sum(mrope_section),)

    Examples
    --------
    >>> mrope_pair_axes([3, 3, 2]).tolist()
    [0, 0, 0, 1, 1, 1, 2, 2]
    >>> mrope_pair_axes([3, 3, 2], interleaved=True).tolist()
    [0, 1, 2, 0, 1, 2, 0, 1]
    """
    section = _check_section(mrope_section)
    interleaved = check_bool("interleaved", interleaved)
    pairs = int(section.sum())
    if not interleaved:
        return np.repeat(np.arange(3, dtype=np.int64), section)
    n_h, n_w = section[1:].tolist()
    if 3 * n_h > pairs + 1 or 3 * n_w > pairs:
        raise ValueError(
            f"mrope_section {section.tolist()} does not fit interleaved: {n_h} h and {n_w} w "
            f"pairs every third place need more than the {pairs} pairs"
        )
    axes = np.zeros(pairs, dtype=np.int64)
    axes[1 : 3 * n_h : 3] = 1  # pairs 1, 4, 7, …: h
    axes[2 : 3 * n_w : 3] = 2  # pairs 2, 5, 8, …: w
    return axes


def apply_mrope(
    x,
    position_ids,
    inv_freq,
    *,
    mrope_section,
    interleaved=False,
    layout="halves",
    attention_factor=1.0,
) -> np.ndarray:
    """Rotate queries or keys by their three position ids (M-RoPE).

    Pair ``i`` of a row with ids ``(t, h, w)`` turns by
    ``θ_i = ω_i · (t, h, w)[axis(i)]``, with ``axis`` from :func:`mrope_pair_axes`;
    the rotation itself is RoPE's. The output is that of transformers'
    ``apply_rotary_pos_emb`` fed with the ``cos`` and ``sin`` of
    ``Qwen2VLRotaryEmbedding`` (``interleaved=False``) or
    ``Qwen3VLTextRotaryEmbedding`` (``interleaved=True``), whose layout is
    ``"halves"``. When the three ids are equal (text) it is
    :func:`~pe_explained.apply_rope`.

    Parameters
    ----------
    x : ndarray, shape (..., seq, head_dim)
        Queries or keys (float16/32/64).
    position_ids : array_like, shape (3, seq)
        Rows t, h, w (from :func:`mrope_position_ids`); finite numbers >= 0.
    inv_freq : array_like, shape (head_dim // 2,)
        Angular frequency of every pair (:func:`~pe_explained.rope_frequencies`;
        Qwen2-VL uses base 1,000,000).
    mrope_section : array_like of 3 ints
        Pairs for t, h and w; they must add up to ``head_dim // 2``.
    interleaved : bool, optional
        Qwen3-VL's interleaved assignment instead of Qwen2-VL's sections.
    layout : {"halves", "interleaved"}, optional
        Which dimensions form a pair (as in :func:`~pe_explained.apply_rope`);
        unrelated to ``interleaved``.
    attention_factor : float, optional
        Multiplies cos and sin, as in :func:`~pe_explained.apply_rope`.

    Returns
    -------
    ndarray, same shape and dtype as ``x``

    Examples
    --------
    One image token at (t, h, w) = (3, 4, 5); head_dim 6, one pair per coordinate,
    all at ω = 1: the first half of the output holds cos 3, cos 4, cos 5, the second
    half sin 3, sin 4, sin 5.

    >>> x = np.array([[1.0, 1.0, 1.0, 0.0, 0.0, 0.0]])
    >>> apply_mrope(x, [[3], [4], [5]], [1.0, 1.0, 1.0], mrope_section=[1, 1, 1]).round(4).tolist()
    [[-0.99, -0.6536, 0.2837, 0.1411, -0.7568, -0.9589]]
    """
    head_dim = check_rotary_input("x", x).shape[-1]
    ids = _check_coordinates("position_ids", position_ids, 3, x.shape[-2])
    freq = _check_inv_freq(inv_freq, head_dim // 2)
    section = _check_section(mrope_section)
    if section.sum() != head_dim // 2:
        raise ValueError(
            f"mrope_section must add up to head_dim/2 = {head_dim // 2} pairs, got "
            f"{section.tolist()} (sum {section.sum()})"
        )
    axes = mrope_pair_axes(section, interleaved=interleaved)
    layout = check_choice("layout", layout, LAYOUTS)
    scale = check_float("attention_factor", attention_factor, greater_than=0.0)
    return _rotate_by_axes(x, ids, axes, freq, layout, scale)


# ---------------------------------------------------------------------------
# 2-D RoPE (Pixtral)
# ---------------------------------------------------------------------------


def patch_grid_positions(height, width) -> np.ndarray:
    """(row, column) of every patch of a ``height × width`` grid, in row-major order.

    Pixtral numbers the patches of each image from (0, 0), row by row
    (transformers' ``PixtralVisionModel.forward``); several images are their
    grids one after the other.

    Returns
    -------
    ndarray of int64, shape (2, height · width)

    Examples
    --------
    >>> patch_grid_positions(2, 3).tolist()
    [[0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2]]
    """
    height = check_int("height", height, minimum=0)
    width = check_int("width", width, minimum=0)
    rows, cols = np.divmod(np.arange(height * width, dtype=np.int64), max(width, 1))
    return np.stack([rows, cols])


def rope_2d_frequencies(head_dim, *, base=10000.0) -> np.ndarray:
    """Pixtral's frequencies: rows take the even rungs of RoPE's ladder, columns the odd ones.

    With the ordinary ladder ``ω_j = base^(-2j / head_dim)``, ``j = 0 … head_dim/2 − 1``,
    the first ``head_dim/4`` pairs turn with the row at ``ω_0, ω_2, ω_4, …`` and the
    last ``head_dim/4`` with the column at ``ω_1, ω_3, ω_5, …``, so both coordinates
    span the whole range of wavelengths (Agrawal et al., 2024; transformers'
    ``PixtralVisionRotaryEmbedding.compute_axial_rope_parameters``).

    Parameters
    ----------
    head_dim : int
        A multiple of 4 (pairs split evenly between rows and columns).
    base : float, optional
        ``rope_theta`` (10000 in Pixtral).

    Returns
    -------
    ndarray, shape (head_dim // 2,): row frequencies, then column frequencies.

    Examples
    --------
    >>> rope_2d_frequencies(8, base=10000.0).tolist()
    [1.0, 0.01, 0.1, 0.001]
    """
    head_dim = check_positive_even_int("head_dim", head_dim)
    if head_dim % 4:
        raise ValueError(
            f"head_dim must be a multiple of 4 (half the pairs for rows, half for columns), "
            f"got {head_dim}"
        )
    ladder, _ = rope_frequencies(head_dim, base=base)
    return np.concatenate([ladder[0::2], ladder[1::2]])


def apply_rope_2d(x, positions, inv_freq, *, layout="halves") -> np.ndarray:
    """Rotate image patches by their (row, column): 2-D RoPE as in Pixtral.

    Pair ``i`` turns by ``row · inv_freq[i]`` for ``i < head_dim/4`` and by
    ``col · inv_freq[i]`` after: the score of two patches depends on their row and
    column offsets alone. With :func:`rope_2d_frequencies` and ``layout="halves"``
    the result is transformers' ``apply_rotary_pos_emb`` with the ``cos`` and
    ``sin`` of ``PixtralVisionRotaryEmbedding``; Mistral's own code multiplies
    adjacent pairs as complex numbers (``layout="interleaved"``).

    Parameters
    ----------
    x : ndarray, shape (..., seq, head_dim)
        Queries or keys of the patches (float16/32/64); ``head_dim`` a multiple of 4.
    positions : array_like, shape (2, seq)
        Rows and columns (from :func:`patch_grid_positions`); numbers >= 0.
    inv_freq : array_like, shape (head_dim // 2,)
        Row frequencies then column frequencies (:func:`rope_2d_frequencies`).
    layout : {"halves", "interleaved"}, optional

    Returns
    -------
    ndarray, same shape and dtype as ``x``

    Examples
    --------
    A patch at row 2, column 3; head_dim 4, ω = [1, 0.1]:

    >>> x = np.array([[1.0, 1.0, 0.0, 0.0]])
    >>> apply_rope_2d(x, [[2], [3]], [1.0, 0.1]).round(4).tolist()
    [[-0.4161, 0.9553, 0.9093, 0.2955]]
    """
    head_dim = check_rotary_input("x", x).shape[-1]
    if head_dim % 4:
        raise ValueError(
            f"x's last axis (head_dim) must be a multiple of 4 for 2-D RoPE, got {head_dim}"
        )
    pos = _check_coordinates("positions", positions, 2, x.shape[-2])
    freq = _check_inv_freq(inv_freq, head_dim // 2)
    layout = check_choice("layout", layout, LAYOUTS)
    axes = np.repeat(np.arange(2), head_dim // 4)  # first half of the pairs: rows
    return _rotate_by_axes(x, pos, axes, freq, layout, 1.0)
