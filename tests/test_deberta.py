"""DeBERTa's disentangled attention against a pair-by-pair reading of the paper's eq. (3)–(4).

The transformers comparison is in ``tests/test_transformers_positions.py``; here the
library is held to loops written from the formulas, for both readings of the
position→content index, and to the properties the chapter states.
"""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import deberta_relative_index, disentangled_scores, disentangled_terms


def delta(i: int, j: int, k: int) -> int:
    """Eq. (3): 0 if i − j ≤ −k, 2k − 1 if i − j ≥ k, else i − j + k."""
    if i - j <= -k:
        return 0
    if i - j >= k:
        return 2 * k - 1
    return i - j + k


def loop_scores(q, k, q_r, k_r, paper: bool) -> np.ndarray:
    span = len(q_r) // 2
    n, d = q.shape
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            p2c_row = delta(j, i, span) if paper else delta(i, j, span)
            out[i, j] = q[i] @ k[j] + q[i] @ k_r[delta(i, j, span)] + k[j] @ q_r[p2c_row]
    return out / np.sqrt(3 * d)


def random_case(seed: int, n: int = 7, span: int = 3, d: int = 4):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(n, d)), *rng.normal(size=(2, 2 * span, d))


def test_relative_index_is_equation_3():
    for k in (1, 2, 5):
        index = deberta_relative_index(6, 9, k)
        assert index.tolist() == [[delta(i, j, k) for j in range(9)] for i in range(6)]


@pytest.mark.parametrize("p2c_index", ["code", "paper"])
@pytest.mark.parametrize("seed", range(4))
def test_scores_equal_the_loop(p2c_index, seed):
    args = random_case(seed, n=3 + 2 * seed, span=1 + seed)
    expected = loop_scores(*args, paper=p2c_index == "paper")
    np.testing.assert_allclose(
        disentangled_scores(*args, p2c_index=p2c_index), expected, rtol=1e-12
    )


def test_the_loop_tells_the_two_readings_apart():
    args = random_case(0)
    assert not np.allclose(disentangled_scores(*args, p2c_index="code"), loop_scores(*args, True))


def test_position_terms_depend_on_the_clipped_distance_only():
    # with every content vector equal, both position terms are constant along diagonals,
    # and beyond the clip (|i − j| >= k) constant altogether
    q = np.tile(np.random.default_rng(1).normal(size=4), (8, 1))
    _, _, q_r, k_r = random_case(1, span=2)
    terms = disentangled_terms(q, q, q_r, k_r)
    for name in ("content-position", "position-content"):
        t = terms[name]
        for offset in range(-7, 8):
            diagonal = np.diagonal(t, offset)
            np.testing.assert_allclose(diagonal, diagonal[0], rtol=1e-12)
        assert np.isclose(t[7, 0], t[5, 0]) and np.isclose(t[0, 7], t[0, 2])


def test_the_content_term_is_plain_attention():
    q, k, q_r, k_r = random_case(2)
    np.testing.assert_allclose(disentangled_terms(q, k, q_r, k_r)["content-content"], q @ k.T)


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda: disentangled_scores(
                np.ones((3, 2)), np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 2))
            ),
            "one shape",
        ),
        (
            lambda: disentangled_scores(
                np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2))
            ),
            "even number of rows",
        ),
        (
            lambda: disentangled_scores(
                np.ones((3, 2)), np.ones((3, 2)), np.ones((4, 3)), np.ones((4, 3))
            ),
            "head_dim=2",
        ),
        (
            lambda: disentangled_scores(
                np.ones((3, 2)), np.ones((3, 2)), np.ones((4, 2)), np.ones((2, 2))
            ),
            "q_position and k_position",
        ),
        (lambda: deberta_relative_index(3, 3, 0), "max_relative_positions"),
    ],
)
def test_bad_shapes_are_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()
