"""Positions with more than one coordinate: M-RoPE (Qwen2-VL, Qwen3-VL) and Pixtral's 2-D RoPE.

Analytic values first (position ids of text, images and videos worked out by hand
for Qwen2-VL, Qwen2.5-VL and Qwen3-VL, the pair-to-axis tables of the released
configs), then identities in float64: text-only input is plain RoPE, a rotated score
depends only on the difference of each coordinate, every pair turns by its own
coordinate's angle. The comparison with transformers itself is in
``tests/test_transformers_multimodal.py`` and ``tests/test_transformers_video.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import pe_explained as pe
from pe_explained import (
    apply_mrope,
    apply_rope,
    apply_rope_2d,
    mrope_pair_axes,
    mrope_position_ids,
    mrope_video_position_ids,
    patch_grid_positions,
    rope_2d_frequencies,
    rope_frequencies,
)

RNG = np.random.default_rng(2409)

# ---------------------------------------------------------------------------
# M-RoPE position ids
# ---------------------------------------------------------------------------


def test_text_image_text_by_hand():
    # 3 text tokens, an image of 4 × 6 patches merged 2 × 2 into 2 × 3 tokens, 2 text tokens
    ids = mrope_position_ids([3, 2], [[4, 6]], spatial_merge_size=2)
    assert ids.shape == (3, 3 + 6 + 2)
    assert ids.dtype == np.int64
    assert ids.tolist() == [
        [0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7],  # t: the image is one instant
        [0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7],  # h: row of the token, from the image's start
        [0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7],  # w: column of the token
    ]


def test_text_only_is_the_diagonal():
    ids = mrope_position_ids([5], [])
    assert ids.tolist() == [list(range(5))] * 3


def test_text_resumes_after_the_largest_id_of_the_image():
    # a tall image: 8 × 2 tokens after merging; the next text starts at 1 + 8
    ids = mrope_position_ids([1, 1], [[16, 4]])
    assert ids[:, 1:-1].max() == 1 + 8 - 1
    assert ids[:, -1].tolist() == [9, 9, 9]


def test_two_images_back_to_back_and_no_text_around():
    # image A: 2 × 2 tokens at start 0; image B: 1 × 3 tokens at start 0 + 2
    ids = mrope_position_ids([0, 0, 0], [[4, 4], [2, 6]])
    assert ids.tolist() == [
        [0, 0, 0, 0, 2, 2, 2],
        [0, 0, 1, 1, 2, 2, 2],
        [0, 1, 0, 1, 2, 3, 4],
    ]


def test_merge_size_one_takes_the_grid_as_tokens():
    a = mrope_position_ids([2, 3], [[2, 3]], spatial_merge_size=1)
    b = mrope_position_ids([2, 3], [[4, 6]], spatial_merge_size=2)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("text_lengths", "image_grids", "merge", "match"),
    [
        ([3, 2], [[4, 5]], 2, "image_grids"),  # 5 not divisible by the merge size
        ([3, 2], [[0, 4]], 2, "image_grids"),  # an empty image
        ([3], [[4, 4]], 2, "text_lengths"),  # one text run too few
        ([3, -1], [[4, 4]], 2, "text_lengths"),
        ([3, 2], [[4, 4, 4]], 2, "image_grids"),  # (t, h, w): images are (h, w) here
        ([3, 2], [[4, 4]], 0, "spatial_merge_size"),
    ],
)
def test_position_ids_reject_bad_layouts(text_lengths, image_grids, merge, match):
    with pytest.raises(ValueError, match=match):
        mrope_position_ids(text_lengths, image_grids, spatial_merge_size=merge)


# ---------------------------------------------------------------------------
# Videos: Qwen2-VL, Qwen2.5-VL and Qwen3-VL
# ---------------------------------------------------------------------------

#: A short clip: 4 temporal grid steps of 4 × 4 patches, 2 × 2 tokens after merging
CLIP = [4, 4, 4]


def test_qwen2_vl_clip_by_hand():
    # 2 words, the clip at start 2, 2 words; each grid step is one time id further
    ids = mrope_video_position_ids([2, 2], [CLIP], model="qwen2_vl")
    assert ids.dtype == np.int64
    assert ids.tolist() == [
        [0, 1] + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [4, 5],
        [0, 1] + [2, 2, 3, 3] * 4 + [4, 5],
        [0, 1] + [2, 3, 2, 3] * 4 + [4, 5],
    ]


def test_text_after_a_video_resumes_after_its_rows_and_columns_or_after_its_largest_id():
    # transformers 5 resumes at start + max(H, W) = 2 + 2 = 4, below the clip's last time id 5;
    # transformers 4 at 1 + the largest id = 6. Decoding continues at ids.max() + 1 = 6.
    spatial = mrope_video_position_ids([2, 2], [CLIP], model="qwen2_vl")
    largest = mrope_video_position_ids([2, 2], [CLIP], model="qwen2_vl", resume="max")
    assert spatial[:, -2:].tolist() == [[4, 5]] * 3
    assert largest[:, -2:].tolist() == [[6, 7]] * 3
    np.testing.assert_array_equal(spatial[:, :-2], largest[:, :-2])
    assert spatial.max() + 1 == 6


@pytest.mark.parametrize(
    ("fps", "steps", "expected"),
    [
        (2.0, 4, [0, 2, 4, 6]),  # 1 s a step × 2 ids a second: 2 ids a step
        (8.0, 4, [0, 0, 1, 1]),  # 0.25 s a step: half an id, truncated
        (16.0, 8, [0, 0, 0, 0, 1, 1, 1, 1]),  # a quarter of an id
        (30.0, 8, [0] * 8),  # 2/30 s a step: 7 steps are 0.93 of an id, all one instant
        (1.0, 3, [0, 4, 8]),  # 2 s a step
    ],
)
def test_qwen2_5_vl_time_ids_are_truncated_seconds_times_tokens_per_second(fps, steps, expected):
    # second_per_grid = temporal_patch_size / fps; time id of step k = ⌊k · 2 · second_per_grid⌋
    seconds = 2 / fps
    ids = mrope_video_position_ids(
        [1, 1], [[steps, 4, 4]], model="qwen2_5_vl", seconds_per_grid=seconds, tokens_per_second=2
    )
    times = ids[0, 1:-1].reshape(steps, 4)  # 4 tokens per grid step share its time id
    assert (times == times[:, :1]).all()
    assert (times[:, 0] - 1).tolist() == expected
    assert ids[:, -1].tolist() == [3, 3, 3]  # text after: 1 + max(H, W)


def test_qwen2_5_vl_multiplies_in_float32_as_transformers():
    # fps 23/7: 2 ids a second × 14/23 s a step = 28/23 of an id a step. At step 23 the exact
    # product is 28; float32 rounds 28/23 down, and 23 × that truncates to 27.
    seconds = 2 / (23 / 7)
    ids = mrope_video_position_ids(
        [0, 0], [[24, 2, 2]], model="qwen2_5_vl", seconds_per_grid=seconds
    )
    step = np.float32(2) * np.float32(seconds)
    assert np.float32(23) * step < 28
    assert ids[0, -1] == 27
    assert ids[0].tolist() == np.trunc(np.arange(24, dtype=np.float32) * step).astype(int).tolist()


def test_qwen2_5_vl_at_one_id_a_step_is_qwen2_vl():
    a = mrope_video_position_ids([3, 1, 2], [CLIP, [1, 2, 6]], model="qwen2_vl")
    b = mrope_video_position_ids(
        [3, 1, 2], [CLIP, [1, 2, 6]], model="qwen2_5_vl", seconds_per_grid=[0.5, 7.0]
    )
    np.testing.assert_array_equal(a, b)  # 0.5 s × 2 = one id a step; an image has one step


def test_qwen3_vl_video_is_its_frames_as_images_between_timestamps():
    # 1 word; 3 frames of 2 × 4 patches (1 × 2 tokens), 2 and 3 text tokens between them
    # (<|vision_end|>, the timestamp "<1.5 seconds>", <|vision_start|>); 1 word
    ids = mrope_video_position_ids([1, 1], [[3, 2, 4]], model="qwen3_vl", frame_text_lengths=[2, 3])
    assert ids.tolist() == [
        [0, 1, 1, 3, 4, 5, 5, 7, 8, 9, 10, 10, 12],
        [0, 1, 1, 3, 4, 5, 5, 7, 8, 9, 10, 10, 12],
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    ]
    frames = mrope_position_ids([1, 2, 3, 1], [[2, 4]] * 3)
    np.testing.assert_array_equal(ids, frames)
    # one count for every gap
    same = mrope_video_position_ids([1, 1], [[3, 2, 4]], model="qwen3_vl", frame_text_lengths=2)
    np.testing.assert_array_equal(same, mrope_position_ids([1, 2, 2, 1], [[2, 4]] * 3))


@pytest.mark.parametrize("model", ["qwen2_vl", "qwen2_5_vl", "qwen3_vl"])
@pytest.mark.parametrize("resume", ["spatial", "max"])
def test_images_are_one_step_grids_under_every_convention(model, resume):
    images = mrope_position_ids([3, 1, 2], [[4, 6], [16, 4]])
    ids = mrope_video_position_ids([3, 1, 2], [[1, 4, 6], [1, 16, 4]], model=model, resume=resume)
    np.testing.assert_array_equal(ids, images)


def test_videos_and_images_mixed():
    # Qwen2.5-VL: text 2, clip (0.25 s a step), text 1, image 2 × 6 patches (1 × 3 tokens), text 1
    ids = mrope_video_position_ids(
        [2, 1, 1], [CLIP, [1, 2, 6]], model="qwen2_5_vl", seconds_per_grid=[0.25, 1.0]
    )
    assert ids.shape == (3, 2 + 16 + 1 + 3 + 1)
    assert ids[0, 2:18].tolist() == [2] * 8 + [3] * 8
    assert ids[:, 18].tolist() == [4, 4, 4]  # text after the clip: 2 + max(2, 2)
    assert ids[:, 19:22].tolist() == [[5, 5, 5], [5, 5, 5], [5, 6, 7]]
    assert ids[:, 22].tolist() == [8, 8, 8]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"grids": [[0, 4, 4]]}, "grids"),  # no grid step
        ({"grids": [[2, 4, 5]]}, "grids"),  # 5 patches cannot merge by 2
        ({"grids": [[4, 4]]}, "grids"),  # (h, w) without t
        ({"text_lengths": [2]}, "text_lengths"),
        ({"model": "qwen2_vl", "seconds_per_grid": 0.5}, "seconds_per_grid"),  # Qwen2.5-VL's
        ({"model": "qwen3_vl", "tokens_per_second": 4}, "tokens_per_second"),
        ({"model": "qwen2_5_vl", "seconds_per_grid": [0.5, 0.5]}, "seconds_per_grid"),
        ({"model": "qwen2_5_vl", "seconds_per_grid": -0.5}, "seconds_per_grid"),
        ({"model": "qwen2_5_vl", "tokens_per_second": 0}, "tokens_per_second"),
        ({"model": "qwen2_5_vl", "frame_text_lengths": 2}, "frame_text_lengths"),  # Qwen3-VL's
        ({"model": "qwen3_vl"}, "frame_text_lengths"),  # 4 frames need the text between them
        ({"model": "qwen3_vl", "frame_text_lengths": [2, 2]}, "frame_text_lengths"),  # 3 gaps
        ({"model": "qwen3_vl", "frame_text_lengths": [2, -1, 2]}, "frame_text_lengths"),
        ({"model": "qwen4_vl"}, "model"),
        ({"resume": "min"}, "resume"),
    ],
)
def test_video_position_ids_reject_bad_arguments(kwargs, match):
    call = {"text_lengths": [2, 2], "grids": [CLIP], **kwargs}
    with pytest.raises(ValueError, match=match):
        mrope_video_position_ids(call.pop("text_lengths"), call.pop("grids"), **call)


# ---------------------------------------------------------------------------
# Which pair takes which coordinate
# ---------------------------------------------------------------------------


def test_qwen2_vl_sections_are_contiguous():
    axes = mrope_pair_axes([16, 24, 24])
    assert axes.shape == (64,)
    assert axes.tolist() == [0] * 16 + [1] * 24 + [2] * 24


def test_qwen3_vl_interleaves_t_h_w_then_t():
    axes = mrope_pair_axes([24, 20, 20], interleaved=True)
    assert axes.tolist() == [0, 1, 2] * 20 + [0] * 4
    assert np.bincount(axes).tolist() == [24, 20, 20]


@pytest.mark.parametrize("section", [[4, 30, 30], [2, 2, 30]])
def test_interleaving_must_fit_in_the_pairs(section):
    # 30 h (or w) pairs every third place need 90 places; there are 64
    with pytest.raises(ValueError, match="mrope_section"):
        mrope_pair_axes(section, interleaved=True)
    assert np.bincount(mrope_pair_axes(section), minlength=3).tolist() == section


def test_mrope_section_needs_three_non_negative_entries():
    with pytest.raises(ValueError, match="mrope_section"):
        mrope_pair_axes([16, 48])
    with pytest.raises(ValueError, match="mrope_section"):
        mrope_pair_axes([16, -8, 56])


# ---------------------------------------------------------------------------
# Applying M-RoPE
# ---------------------------------------------------------------------------

HEAD_DIM = 32
SECTION = [4, 6, 6]  # 16 pairs, contiguous (Qwen2-VL's style)
#: Sections whose interleaving fits 16 pairs, for each style (Qwen3-VL's needs 3·h, 3·w <= 16)
SECTIONS = {False: SECTION, True: [6, 5, 5]}
INV_FREQ, _ = rope_frequencies(HEAD_DIM, base=10000.0)


@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("layout", ["halves", "interleaved"])
def test_text_only_input_is_plain_rope(interleaved, layout):
    x = RNG.standard_normal((2, 3, 40, HEAD_DIM))
    ids = mrope_position_ids([40], [])
    section = SECTIONS[interleaved]
    ours = apply_mrope(
        x, ids, INV_FREQ, mrope_section=section, interleaved=interleaved, layout=layout
    )
    np.testing.assert_array_equal(ours, apply_rope(x, 40, INV_FREQ, layout=layout))


@pytest.mark.parametrize("interleaved", [False, True])
def test_every_pair_turns_by_its_own_coordinate(interleaved):
    # x = 1 in the first member of every pair: the output holds cos θ and sin θ
    ids = mrope_position_ids([2, 1], [[4, 6]])
    x = np.zeros((ids.shape[1], HEAD_DIM))
    x[:, : HEAD_DIM // 2] = 1.0
    section = SECTIONS[interleaved]
    out = apply_mrope(x, ids, INV_FREQ, mrope_section=section, interleaved=interleaved)
    axes = mrope_pair_axes(section, interleaved=interleaved)
    theta = ids[axes].T * INV_FREQ  # θ[s, i] = ids[axis(i), s] · ω_i
    np.testing.assert_array_equal(out[:, : HEAD_DIM // 2], np.cos(theta))
    np.testing.assert_array_equal(out[:, HEAD_DIM // 2 :], np.sin(theta))


@pytest.mark.parametrize("interleaved", [False, True])
def test_score_depends_on_the_difference_of_each_coordinate(interleaved):
    # shifting t, h and w by three different amounts leaves every q·k score unchanged
    ids = mrope_position_ids([3, 1, 2], [[4, 6], [6, 2]])
    q, k = RNG.standard_normal((2, ids.shape[1], HEAD_DIM))
    kw = {"mrope_section": SECTIONS[interleaved], "interleaved": interleaved}

    def scores(p):
        return apply_mrope(q, p, INV_FREQ, **kw) @ apply_mrope(k, p, INV_FREQ, **kw).T

    shifted = ids + np.array([[7], [130], [1001]])
    np.testing.assert_allclose(scores(shifted), scores(ids), rtol=0, atol=1e-11)
    # moving one token along one coordinate alone does change it: each section reads its id
    for axis in range(3):
        moved = ids.copy()
        moved[axis, -1] += 5
        assert np.abs(scores(moved) - scores(ids)).max() > 1e-3


def test_norm_preserved_and_attention_factor():
    x = RNG.standard_normal((5, 11, HEAD_DIM))
    ids = mrope_position_ids([3, 2], [[4, 6]])
    out = apply_mrope(x, ids, INV_FREQ, mrope_section=SECTION, attention_factor=1.5)
    np.testing.assert_allclose(
        np.linalg.norm(out, axis=-1), 1.5 * np.linalg.norm(x, axis=-1), rtol=1e-13
    )


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_dtype_is_kept(dtype):
    x = RNG.standard_normal((11, HEAD_DIM)).astype(dtype)
    ids = mrope_position_ids([3, 2], [[4, 6]])
    out = apply_mrope(x, ids, INV_FREQ, mrope_section=SECTION)
    assert out.dtype == dtype
    ref = apply_mrope(x.astype(np.float64), ids, INV_FREQ, mrope_section=SECTION)
    np.testing.assert_allclose(out, ref, atol=4 * np.finfo(dtype).eps * np.abs(x).max())


def test_apply_mrope_rejects_mismatches():
    x = np.ones((11, HEAD_DIM))
    ids = mrope_position_ids([3, 2], [[4, 6]])
    with pytest.raises(ValueError, match="position_ids"):
        apply_mrope(x, ids[:2], INV_FREQ, mrope_section=SECTION)
    with pytest.raises(ValueError, match="position_ids"):
        apply_mrope(x[:10], ids, INV_FREQ, mrope_section=SECTION)
    with pytest.raises(ValueError, match="mrope_section"):
        apply_mrope(x, ids, INV_FREQ, mrope_section=[4, 6, 8])
    with pytest.raises(ValueError, match="inv_freq"):
        apply_mrope(x, ids, INV_FREQ[:-1], mrope_section=SECTION)
    with pytest.raises(ValueError, match="position_ids"):
        apply_mrope(x, -ids, INV_FREQ, mrope_section=SECTION)


# ---------------------------------------------------------------------------
# Pixtral's 2-D RoPE
# ---------------------------------------------------------------------------


def test_patch_grid_positions_are_row_major():
    assert patch_grid_positions(2, 3).tolist() == [[0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2]]
    assert patch_grid_positions(0, 3).shape == (2, 0)


def test_rows_and_columns_take_alternate_frequencies():
    ladder, _ = rope_frequencies(16)
    freq = rope_2d_frequencies(16)
    # rows: ω_0, ω_2, ω_4, ω_6; columns: ω_1, ω_3, ω_5, ω_7
    np.testing.assert_array_equal(freq, np.concatenate([ladder[0::2], ladder[1::2]]))
    with pytest.raises(ValueError, match="head_dim"):
        rope_2d_frequencies(18)  # 9 pairs cannot split between rows and columns


def test_2d_rope_by_hand():
    # head_dim 4: pair 0 (dims 0, 2) turns by row · ω_0, pair 1 (dims 1, 3) by col · ω_1
    freq = rope_2d_frequencies(4, base=100.0)  # ω = [1, 0.1]
    x = np.array([[1.0, 1.0, 0.0, 0.0]])
    out = apply_rope_2d(x, [[2], [3]], freq)
    expected = [[np.cos(2.0), np.cos(0.3), np.sin(2.0), np.sin(0.3)]]
    np.testing.assert_allclose(out, expected, rtol=1e-15)


def test_2d_rope_score_depends_on_row_and_column_offsets():
    head_dim = 32
    freq = rope_2d_frequencies(head_dim)
    pos = patch_grid_positions(4, 5)
    q, k = RNG.standard_normal((2, pos.shape[1], head_dim))

    def scores(p):
        return apply_rope_2d(q, p, freq) @ apply_rope_2d(k, p, freq).T

    np.testing.assert_allclose(scores(pos + [[9], [40]]), scores(pos), rtol=0, atol=1e-11)
    # a 2-D grid is M-RoPE with two coordinates and two halves of pairs
    ids = np.concatenate([pos[:1], pos])  # (row, row, col)
    half = head_dim // 2
    np.testing.assert_array_equal(
        apply_rope_2d(q, pos, freq),
        apply_mrope(q, ids, freq, mrope_section=[0, half // 2, half // 2]),
    )


def test_apply_rope_2d_rejects_mismatches():
    freq = rope_2d_frequencies(8)
    with pytest.raises(ValueError, match="positions"):
        apply_rope_2d(np.ones((6, 8)), patch_grid_positions(2, 2), freq)
    with pytest.raises(ValueError, match="positions"):
        apply_rope_2d(np.ones((4, 8)), np.zeros((3, 4)), freq)
    with pytest.raises(ValueError, match="inv_freq"):
        apply_rope_2d(np.ones((4, 8)), patch_grid_positions(2, 2), [1.0, 0.1, 0.01])
    with pytest.raises(ValueError, match="head_dim"):
        apply_rope_2d(np.ones((4, 6)), patch_grid_positions(2, 2), [1.0, 0.1, 0.01])


@pytest.mark.parametrize(
    "call",
    [
        lambda: pe.mrope_position_ids([1, 1], [[100_000, 100_000]]),
        lambda: pe.mrope_video_position_ids([1, 1], [[10**9, 10**9, 10**9]]),
        lambda: pe.mrope_video_position_ids([1, 1], [[2**62, 2, 2]]),  # would overflow int64
        lambda: pe.mrope_video_position_ids(
            [1, 1], [[4097, 2, 2]], model="qwen3_vl", frame_text_lengths=4096
        ),
    ],
)
def test_a_sequence_too_long_to_lay_out_is_refused_before_any_allocation(call):
    with pytest.raises(ValueError, match="text_lengths with the grids asks for a sequence"):
        call()
