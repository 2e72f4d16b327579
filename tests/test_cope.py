"""CoPE (Golovneva et al., 2024): contextual positions and their interpolated embeddings.

* every gate 1 gives ``p_ij = i − j + 1`` (relative positions counted from 1), every
  gate 0 gives 0, every gate ½ gives ``(i − j + 1) / 2``;
* gates open on marked tokens only count the marked tokens between key and query;
* the positions against a loop over ``Σ_{k=j…i} σ(z_ik)``;
* the bias interpolates ``q · e[p]``; the paper's two ways (interpolate the vectors,
  or the products) agree; whole positions read their row; positions past the table
  read its last row.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_explained import cope_bias, cope_positions

RNG = np.random.default_rng(0)


def test_all_gates_open_give_relative_positions():
    p = cope_positions(np.full((6, 6), 60.0))
    i, j = np.tril_indices(6)
    np.testing.assert_allclose(p[i, j], i - j + 1, rtol=1e-12)
    assert np.all(p[np.triu_indices(6, 1)] == 0.0)


def test_closed_and_half_open_gates():
    assert np.abs(cope_positions(np.full((5, 5), -60.0))).max() < 1e-20
    p = cope_positions(np.zeros((5, 5)))
    i, j = np.tril_indices(5)
    np.testing.assert_allclose(p[i, j], (i - j + 1) / 2, rtol=1e-15)


def test_positions_against_a_loop():
    z = RNG.normal(size=(2, 7, 7))
    p = cope_positions(z)
    for h in range(2):
        for i in range(7):
            for j in range(i + 1):
                gates = [1 / (1 + math.exp(-z[h, i, k])) for k in range(j, i + 1)]
                assert p[h, i, j] == pytest.approx(sum(gates), rel=1e-12)


def test_gates_open_on_marked_tokens_count_the_marks():
    """A query whose key products are large on marked tokens (a sentence end, say) and
    very negative elsewhere: p_ij counts the marked tokens from j to i."""
    marked = np.array([0, 0, 1, 0, 0, 1, 0, 1])
    z = np.where(marked[None, :] == 1, 60.0, -60.0) * np.ones((8, 1))
    p = cope_positions(z)
    counts = [[marked[j : i + 1].sum() if j <= i else 0 for j in range(8)] for i in range(8)]
    np.testing.assert_allclose(p, counts, atol=1e-12)


def test_bias_interpolates_and_the_two_ways_of_the_paper_agree():
    q = RNG.normal(size=(3, 5, 4))
    e = RNG.normal(size=(6, 4))
    p = cope_positions(RNG.normal(size=(3, 5, 5)))
    bias = cope_bias(q, p, e)
    # the raw way: interpolate the embedding vectors first, then take q · e[p]
    low, high = np.floor(p).astype(int), np.ceil(p).astype(int)
    w = (p - low)[..., None]
    vectors = (1 - w) * e[low] + w * e[high]
    np.testing.assert_allclose(bias, np.einsum("hid,hijd->hij", q, vectors), rtol=1e-12)


def test_whole_positions_read_their_row_and_large_ones_the_last():
    q = RNG.normal(size=(2, 3))
    e = RNG.normal(size=(4, 3))
    p = np.array([[0.0, 3.0], [2.0, 9.0]])
    bias = cope_bias(q, p, e)
    expected = [[q[0] @ e[0], q[0] @ e[3]], [q[1] @ e[2], q[1] @ e[3]]]
    np.testing.assert_allclose(bias, expected, rtol=1e-12)


@pytest.mark.parametrize(
    "queries, positions, table, message",
    [
        (np.ones((2, 3)), -np.ones((2, 2)), np.ones((4, 3)), "positions must be >= 0"),
        (np.ones((2, 3)), np.ones((2, 2)), np.ones((4, 2)), "head_dim = 3"),
        (np.ones((2, 3)), np.ones((3, 3)), np.ones((4, 3)), "positions must have shape"),
    ],
)
def test_bad_bias_arguments_are_refused(queries, positions, table, message):
    with pytest.raises(ValueError, match=message):
        cope_bias(queries, positions, table)


def test_non_square_gate_logits_are_refused():
    with pytest.raises(ValueError, match="square"):
        cope_positions(np.ones((3, 4)))
