"""The positional-encoding layer: precomputed table, slicing, max_len, scaling, dropout."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import sinusoidal
from pe_explained.layer import SinusoidalPositionalEncoding, TokenEmbedding, dropout


def test_table_is_the_sinusoidal_table_computed_once_and_read_only():
    layer = SinusoidalPositionalEncoding(16, max_len=50, base=500.0, layout="halves")
    np.testing.assert_array_equal(layer.table, sinusoidal(50, 16, base=500.0, layout="halves"))
    with pytest.raises(ValueError, match="read-only"):
        layer.table[0, 0] = 1.0


def test_call_adds_the_first_seq_len_rows_to_every_batch_element():
    layer = SinusoidalPositionalEncoding(8, max_len=20)
    x = np.random.default_rng(0).normal(size=(3, 7, 8))
    out = layer(x)
    assert out.shape == (3, 7, 8)
    np.testing.assert_allclose(out - x, np.broadcast_to(sinusoidal(7, 8), (3, 7, 8)), atol=0)
    # 2-D input (one sequence) and an offset for cached decoding
    np.testing.assert_allclose(layer(x[0, :2], offset=5) - x[0, :2], sinusoidal(20, 8)[5:7])


def test_exceeding_max_len_is_a_clear_error():
    layer = SinusoidalPositionalEncoding(8, max_len=10)
    layer(np.zeros((1, 10, 8)))  # exactly max_len is fine
    with pytest.raises(ValueError, match=r"exceed max_len=10.*0…9"):
        layer(np.zeros((1, 11, 8)))
    with pytest.raises(ValueError, match="exceed max_len"):
        layer.encoding(3, offset=8)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"d_model": 7, "max_len": 4}, ValueError, "even"),
        ({"d_model": 8, "max_len": 0}, ValueError, "max_len must be >= 1"),
        ({"d_model": 8, "max_len": 4.0}, TypeError, "max_len must be an integer"),
        ({"d_model": 8, "max_len": 4, "dropout": 1.0}, ValueError, "dropout must be < 1"),
        ({"d_model": 8, "max_len": 4, "dropout": -0.1}, ValueError, "dropout must be >= 0"),
        ({"d_model": 8, "max_len": 4, "base": 1.0}, ValueError, "base must be > 1"),
        ({"d_model": 8, "max_len": 4, "layout": "x"}, ValueError, "layout must be one of"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        SinusoidalPositionalEncoding(**kwargs)


def test_bad_inputs_name_the_input():
    layer = SinusoidalPositionalEncoding(8, max_len=10)
    with pytest.raises(ValueError, match=r"shape \(batch, seq_len, d_model=8\)"):
        layer(np.zeros((2, 3, 6)))
    with pytest.raises(ValueError, match="finite"):
        layer(np.full((1, 2, 8), np.nan))
    with pytest.raises(TypeError, match="real numbers"):
        layer(np.zeros((1, 2, 8), dtype=bool))


def test_dropout_only_in_training_keeps_the_mean_and_is_reproducible():
    x = np.ones((4, 10, 8))
    layer = SinusoidalPositionalEncoding(8, max_len=10, dropout=0.5, seed=3)
    np.testing.assert_array_equal(layer(x), layer(x))  # evaluation: no dropout
    out = layer(x, training=True)
    expected = 2.0 * (x + sinusoidal(10, 8))
    assert np.all((out == 0.0) | np.isclose(out, expected))
    assert 0.3 < np.mean(out == 0.0) < 0.7
    again = SinusoidalPositionalEncoding(8, max_len=10, dropout=0.5, seed=3)(x, training=True)
    np.testing.assert_array_equal(out, again)
    big = dropout(np.ones(200_000), 0.25, np.random.default_rng(0))
    assert abs(big.mean() - 1.0) < 0.01
    with pytest.raises(ValueError, match="rate must be < 1"):
        dropout(big, 1.0, np.random.default_rng(0))


def test_token_embedding_is_scaled_by_sqrt_d_model_to_unit_variance():
    d_model = 64
    emb = TokenEmbedding(1000, d_model, seed=0)
    ids = np.arange(1000).reshape(10, 100)
    out = emb(ids)
    assert out.shape == (10, 100, d_model)
    np.testing.assert_allclose(out, emb.weight[ids] * 8.0)
    assert abs(out.std() - 1.0) < 0.02  # std d_model**-0.5 times sqrt(d_model)
    np.testing.assert_array_equal(
        TokenEmbedding(1000, d_model, seed=0, scale=False)(ids), emb.weight[ids]
    )
    with pytest.raises(ValueError, match=r"token_ids must be in 0…999"):
        emb([[1000]])
    with pytest.raises(TypeError, match="integers"):
        emb([[1.5]])


def test_transformer_shapes_match_a_real_forward_pass():
    from pe_explained.layer import transformer_shapes

    batch, seq_len, d_model, num_heads = 2, 5, 16, 4
    shapes = transformer_shapes(batch, seq_len, d_model, num_heads, d_ff=24)
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 50, size=shapes["token ids"])
    emb = TokenEmbedding(50, d_model)(ids)
    layer = SinusoidalPositionalEncoding(d_model, max_len=seq_len)
    x = layer(emb)
    head_dim = d_model // num_heads
    q = (x @ rng.normal(size=(d_model, d_model))).reshape(batch, seq_len, num_heads, head_dim)
    q = q.transpose(0, 2, 1, 3)
    scores = q @ np.swapaxes(q, -1, -2)
    hidden = x @ rng.normal(size=(d_model, 24))
    got = {
        "token embeddings": emb.shape,
        "position table": layer.encoding(seq_len).shape,
        "model input": x.shape,
        "queries, keys, values": q.shape,
        "attention scores": scores.shape,
        "feed-forward hidden": hidden.shape,
    }
    for name, shape in got.items():
        assert shapes[name] == shape, name
    with pytest.raises(ValueError, match="divisible by num_heads"):
        transformer_shapes(1, 1, 10, 3)
