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
  text and images, :func:`mrope_pair_axes` says which pair reads which id
  (``mrope_section``; Qwen2-VL's contiguous sections or Qwen3-VL's interleaved
  ones) and :func:`apply_mrope` rotates.
* **2-D RoPE** as in Pixtral (Agrawal et al., 2024, *Pixtral 12B*,
  arXiv:2410.07073): a patch at (row, col); rows and columns take alternate
  frequencies of the ordinary ladder. :func:`patch_grid_positions`,
  :func:`rope_2d_frequencies`, :func:`apply_rope_2d`.

Both give the same numbers as ``transformers`` (``models/qwen2_vl``,
``models/qwen3_vl``, ``models/pixtral``); ``tests/test_transformers_multimodal.py``
compares them.
"""

from __future__ import annotations

import numpy as np

from ._checks import (
    check_array,
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_positive_even_int,
    check_rotary_input,
)
from .rope import _complex_dtype, _rotate_pairs, rope_frequencies
from .sinusoidal import LAYOUTS

__all__ = [
    "apply_mrope",
    "apply_rope_2d",
    "mrope_pair_axes",
    "mrope_position_ids",
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
    Videos are not covered: their frames add a time coordinate spaced by a
    frame rate (Qwen2.5-VL's ``second_per_grid_ts`` and ``tokens_per_second``),
    and Qwen3-VL instead splits a video into one-frame grids separated by
    timestamp text.

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
    grids = check_array(
        "image_grids", image_grids, kind="integer", ndim=(1, 2), rule="of shape (n_images, 2)"
    )
    if grids.ndim == 1:
        if grids.size:
            raise ValueError(
                f"image_grids must be of shape (n_images, 2), one (height, width) per image, "
                f"got shape {grids.shape}"
            )
        grids = grids.reshape(0, 2)
    if grids.shape[1] != 2:
        raise ValueError(
            f"image_grids must be of shape (n_images, 2), one (height, width) per image, "
            f"got shape {grids.shape}"
        )
    if len(texts) != len(grids) + 1:
        raise ValueError(
            f"text_lengths must have one entry more than image_grids has rows (a run of text "
            f"before, between and after the images): got {len(texts)} text runs for "
            f"{len(grids)} image(s)"
        )
    merge = check_int("spatial_merge_size", spatial_merge_size, minimum=1)
    if grids.size and (grids.min() < merge or np.any(grids % merge)):
        raise ValueError(
            f"image_grids must hold positive multiples of spatial_merge_size = {merge} "
            f"(whole merged tokens), got {grids.tolist()}"
        )

    pieces, start = [], 0
    for i, n_text in enumerate(texts.tolist()):
        # text: (p, p, p) for p = start … start + n − 1
        pieces.append(np.broadcast_to(np.arange(start, start + n_text), (3, n_text)))
        start += n_text
        if i == len(grids):
            break
        height, width = (grids[i] // merge).tolist()
        rows, cols = np.divmod(np.arange(height * width), width)  # row-major token order
        # image at start p: (p, p + row, p + col)
        pieces.append(np.stack([np.zeros_like(rows), rows, cols]) + start)
        start += max(height, width)
    return np.concatenate(pieces, axis=1).astype(np.int64)


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
