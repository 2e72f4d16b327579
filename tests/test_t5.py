"""T5's relative-position buckets against a plain-Python re-derivation and hand-checked values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_explained.t5 import t5_relative_bucket


def reference_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """One relative position (key − query) at a time, in plain Python floats."""
    bucket = 0
    if bidirectional:
        num_buckets //= 2
        if relative_position > 0:
            bucket += num_buckets
        n = abs(relative_position)
    else:
        n = max(-relative_position, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return bucket + n
    large = max_exact + int(
        math.log(n / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    )
    return bucket + min(large, num_buckets - 1)


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets, max_distance", [(32, 128), (64, 256), (16, 64), (8, 20)])
def test_matches_plain_python(bidirectional, num_buckets, max_distance):
    rel = np.arange(-5000, 5001)
    got = t5_relative_bucket(
        rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    expected = [reference_bucket(int(r), bidirectional, num_buckets, max_distance) for r in rel]
    assert got.tolist() == expected


def test_hand_checked_bidirectional_values():
    # 16 buckets per direction; 8 exact (distances 0-7), then 8 log-spaced up to 128.
    rel = [0, -1, -7, -8, -11, -12, -16, -23, -32, -46, -64, -90, -91, -127, -128, -(10**6)]
    assert t5_relative_bucket(np.array(rel)).tolist() == [
        0,
        1,
        7,
        8,
        8,
        9,
        10,
        11,
        12,
        13,
        14,
        14,
        15,
        15,
        15,
        15,
    ]
    # keys after the query use the upper half of the buckets
    assert t5_relative_bucket(np.array([1, 7, 8, 91, 10**6])).tolist() == [17, 23, 24, 31, 31]


def test_hand_checked_causal_values():
    # 16 exact (0-15), 16 log-spaced; every key after the query shares bucket 0.
    rel = np.array([5, 1, 0, -1, -15, -16, -19, -112, -113, -(10**6)])
    assert t5_relative_bucket(rel, bidirectional=False).tolist() == [
        0,
        0,
        0,
        1,
        15,
        16,
        17,
        30,
        31,
        31,
    ]


def test_query_key_matrix_is_toeplitz_and_the_sign_is_key_minus_query():
    query = np.arange(6)[:, None]
    key = np.arange(6)[None, :]
    buckets = t5_relative_bucket(key - query)
    assert buckets.shape == (6, 6) and buckets.dtype == np.int64
    assert buckets[5].tolist() == [5, 4, 3, 2, 1, 0]  # last query: every key is before it
    assert buckets[0].tolist() == [0, 17, 18, 19, 20, 21]  # first query: every key after it
    for k in range(-5, 6):
        assert len(set(np.diagonal(buckets, k).tolist())) == 1


def test_scalar_and_dtype():
    assert t5_relative_bucket(-3).tolist() == 3
    assert t5_relative_bucket(np.array([-3], dtype=np.int16)).tolist() == [3]
    assert t5_relative_bucket(np.zeros((0,), dtype=np.int64)).shape == (0,)


BAD = [
    (dict(relative_position=np.array([0.5])), TypeError, "relative_position must hold integers"),
    (dict(relative_position=[True]), TypeError, "relative_position must hold integers"),
    (dict(relative_position="3"), TypeError, "relative_position must hold integers"),
    (dict(relative_position=[0], num_buckets=3), ValueError, "num_buckets must be >= 4"),
    (
        dict(relative_position=[0], num_buckets=1, bidirectional=False),
        ValueError,
        "num_buckets must be >= 2",
    ),
    (dict(relative_position=[0], max_distance=8), ValueError, "max_distance must be >"),
    (
        dict(relative_position=[0], bidirectional=1),
        TypeError,
        "bidirectional must be True or False",
    ),
    (dict(relative_position=[0], num_buckets=32.0), TypeError, "num_buckets must be an integer"),
]


@pytest.mark.parametrize("kwargs, error, message", BAD, ids=[m for _, _, m in BAD])
def test_bad_input_is_named(kwargs, error, message):
    with pytest.raises(error, match=message):
        t5_relative_bucket(**kwargs)
