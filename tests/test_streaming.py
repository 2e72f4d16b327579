"""StreamingLLM's kept tokens and positions: small cases by hand, the paper's example, the
bound on distances within the cache, and the step a cache of rotated keys takes."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import (
    apply_rope,
    learned_sink_weights,
    rope_frequencies,
    shift_rotated_keys,
    streaming_distances,
    streaming_positions,
)


def test_the_papers_example():
    """Section 3.2: tokens [0, 1, 2, 3, 6, 7, 8] cached, token 9 being decoded."""
    kept, cache = streaming_positions(10, 4, 4)
    assert kept.tolist() == [0, 1, 2, 3, 6, 7, 8, 9]
    assert cache.tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    assert streaming_positions(10, 4, 4, mode="original")[1].tolist() == kept.tolist()


@pytest.mark.parametrize(
    "total, n_sink, window, kept",
    [
        (0, 2, 3, []),
        (4, 2, 3, [0, 1, 2, 3]),  # nothing evicted yet
        (5, 2, 3, [0, 1, 2, 3, 4]),  # exactly full
        (6, 2, 3, [0, 1, 3, 4, 5]),  # token 2 evicted
        (7, 0, 3, [4, 5, 6]),  # no sinks: plain window attention
        (7, 2, 1, [0, 1, 6]),  # the current token alone beside the sinks
    ],
)
def test_small_cases_by_hand(total, n_sink, window, kept):
    got, cache = streaming_positions(total, n_sink, window)
    assert got.tolist() == kept
    assert cache.tolist() == list(range(len(kept)))
    assert streaming_positions(total, n_sink, window, mode="original")[1].tolist() == kept


def test_the_distances_by_hand():
    assert streaming_distances(6, 2, 3).tolist() == [
        [0, -1, -2, -3, -4],
        [1, 0, -1, -2, -3],
        [2, 1, 0, -1, -2],
        [3, 2, 1, 0, -1],
        [4, 3, 2, 1, 0],
    ]
    assert streaming_distances(6, 2, 3, mode="original")[-1].tolist() == [5, 4, 2, 1, 0]


@pytest.mark.parametrize("total", [8, 100, 10**6, 10**12])
def test_within_the_cache_no_distance_exceeds_the_cache(total):
    """However long the stream, positions within the cache keep every distance below
    n_sink + window; the stream's own positions put the sinks `total − 1` away."""
    cache = streaming_distances(total, 4, 4)
    original = streaming_distances(total, 4, 4, mode="original")
    assert cache.max() == min(total, 8) - 1
    assert original.max() == total - 1
    # the window's distances among themselves agree in both schemes
    np.testing.assert_array_equal(cache[4:, 4:], original[4:, 4:])


def test_a_cache_of_rotated_keys_reaches_the_cache_positions_by_shifting():
    """One decoding step past a full cache: drop the oldest window token, move the rest of
    the window back by one (Δ = −1), keep the sinks (Δ = 0); the keys are those rotated
    at the new step's positions within the cache."""
    head_dim, n_sink, window = 16, 2, 4
    inv_freq, _ = rope_frequencies(head_dim)
    keys = np.random.default_rng(0).normal(size=(12, head_dim))  # one per stream token
    kept, pos = streaming_positions(9, n_sink, window)  # tokens 0, 1, 5, 6, 7, 8
    cache = apply_rope(keys[kept], pos, inv_freq)
    new_kept, new_pos = streaming_positions(10, n_sink, window)  # tokens 0, 1, 6, 7, 8, 9
    survivors = np.isin(kept, new_kept)  # token 5 leaves
    moved = shift_rotated_keys(cache[survivors], [0, 0, -1, -1, -1], inv_freq)
    np.testing.assert_allclose(moved, apply_rope(keys[new_kept[:-1]], new_pos[:-1], inv_freq))
    # with the stream's own positions nothing moves: the keys stay where they were rotated
    orig_kept, orig_pos = streaming_positions(10, n_sink, window, mode="original")
    np.testing.assert_allclose(
        apply_rope(keys[kept], kept, inv_freq)[survivors],
        apply_rope(keys[orig_kept[:-1]], orig_pos[:-1], inv_freq),
    )


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: streaming_positions(10, 4, 0), ValueError, "window must be >= 1"),
        (lambda: streaming_positions(-1, 4, 4), ValueError, "total must be >= 0"),
        (lambda: streaming_positions(10, 4, 4, mode="stream"), ValueError, "mode"),
        (lambda: streaming_positions(2**40, 4, 2**30), ValueError, "n_sink \\+ window asks"),
        (lambda: streaming_distances(10**6, 4, 10**4), ValueError, "distance matrix"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------------------
# A learned sink: a logit in the softmax's denominator, no token and no position
# ---------------------------------------------------------------------------


def _sink_softmax_by_hand(scores, sink_logit):
    """gpt-oss's recipe as transformers writes it (``eager_attention_forward`` in
    ``models/gpt_oss/modeling_gpt_oss.py``): the sink logit appended as one more column,
    the row's maximum subtracted, softmax, the last column dropped."""
    scores = np.asarray(scores, dtype=np.float64)
    column = np.full((*scores.shape[:-1], 1), float(sink_logit))
    combined = np.concatenate([scores, column], axis=-1)
    combined = combined - combined.max(axis=-1, keepdims=True)
    probs = np.exp(combined) / np.exp(combined).sum(axis=-1, keepdims=True)
    return probs[..., :-1], probs[..., -1]


def test_equal_scores_by_hand():
    """n keys of score 0 and a sink logit b: each key e^0 / (e^b + n), the sink e^b / (e^b + n)."""
    weights, sink = learned_sink_weights(np.zeros(4), np.log(4.0))
    np.testing.assert_allclose(weights, [0.125] * 4)
    assert sink == pytest.approx(0.5)
    weights, sink = learned_sink_weights(np.zeros(3), 0.0)
    np.testing.assert_allclose(weights, [0.25] * 3)
    assert sink == pytest.approx(0.25)


def test_weights_and_sink_add_up_to_one_and_match_the_reference_recipe():
    scores = np.random.default_rng(3).normal(scale=4.0, size=(2, 5, 7))
    for sink_logit in (-20.0, -1.5, 0.0, 2.5, 30.0):
        weights, sink = learned_sink_weights(scores, sink_logit)
        np.testing.assert_allclose(weights.sum(axis=-1) + sink, 1.0, rtol=1e-12)
        ref_weights, ref_sink = _sink_softmax_by_hand(scores, sink_logit)
        np.testing.assert_allclose(weights, ref_weights, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(sink, ref_sink, rtol=1e-12, atol=1e-300)
    # the harness tells a plain softmax (no sink) apart
    plain = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    assert np.abs(learned_sink_weights(scores, 2.5)[0] - plain).max() > 0.01


def test_a_very_low_sink_logit_is_a_plain_softmax():
    scores = np.array([1.0, 2.0, 3.0])
    weights, sink = learned_sink_weights(scores, -1000.0)
    np.testing.assert_allclose(weights, np.exp(scores) / np.exp(scores).sum(), rtol=1e-12)
    assert sink == 0.0


def test_a_masked_row_gives_every_weight_to_the_sink():
    """With every key masked (−inf), a plain softmax has no answer; the sink takes it all,
    and the head's output is the zero vector."""
    weights, sink = learned_sink_weights(np.full(5, -np.inf), 0.7)
    assert weights.tolist() == [0.0] * 5
    assert sink == 1.0


def test_adding_one_constant_to_the_scores_and_the_sink_changes_nothing():
    """The sink is one more logit of the softmax: raising the scores by c is the same as
    lowering the sink logit by c."""
    scores = np.array([0.3, -1.0, 2.0])
    w1, s1 = learned_sink_weights(scores + 1.0, 0.5)
    w2, s2 = learned_sink_weights(scores, -0.5)
    np.testing.assert_allclose(w1, w2, rtol=1e-12)
    assert s1 == pytest.approx(s2, rel=1e-12)


def test_large_logits_do_not_overflow():
    weights, sink = learned_sink_weights(np.array([1000.0, 999.0]), 1001.0)
    assert np.all(np.isfinite(weights)) and np.isfinite(sink)
    assert sink == pytest.approx(1 / (1 + np.exp(-1) + np.exp(-2)))


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: learned_sink_weights([0.0, np.nan], 0.0), ValueError, "scores"),
        (lambda: learned_sink_weights([0.0, np.inf], 0.0), ValueError, "scores"),
        (lambda: learned_sink_weights([0.0, 1.0], np.inf), ValueError, "sink_logit"),
        (lambda: learned_sink_weights([0.0, 1.0], "0"), TypeError, "sink_logit"),
        (lambda: learned_sink_weights(3.0, 0.0), ValueError, "scores must be"),
        (lambda: learned_sink_weights([True, False], 0.0), TypeError, "scores"),
    ],
)
def test_learned_sink_weights_refuses_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
