"""The PyTorch layer shown on the layer page holds the same table as the numpy library.

The PyTorch code lives only on the page (the library never imports torch); this
test runs the page's code and compares. Skipped when PyTorch is not installed.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from pages import find_blocks

from pe_explained import sinusoidal
from pe_explained.layer import SinusoidalPositionalEncoding

torch = pytest.importorskip("torch", reason="PyTorch is not installed (optional for the book)")

PAGE = Path(__file__).resolve().parent.parent / "docs" / "model" / "layer.md"


@pytest.fixture(scope="module")
def page_code() -> dict:
    """The namespace after running the page's plain-Python PyTorch blocks."""
    blocks = [
        b
        for b in find_blocks(PAGE.read_text(encoding="utf-8"), PAGE)
        if not b.is_doctest and re.search(r"^import torch", b.source, re.M)
    ]
    assert blocks, "the layer page has no PyTorch code block"
    namespace: dict = {"__name__": "torch_layer_page"}
    for block in blocks:
        exec(compile(block.source, f"{PAGE}:{block.line}", "exec"), namespace)  # noqa: S102
    return namespace


@pytest.mark.parametrize(
    "d_model, max_len, base", [(8, 16, 10000.0), (512, 1024, 10000.0), (64, 300, 500.0)]
)
def test_torch_table_equals_the_numpy_table(page_code, d_model, max_len, base):
    layer = page_code["TorchSinusoidalPositionalEncoding"](d_model, max_len, base=base)
    table = layer.table.numpy()
    assert table.dtype == np.float32 and table.shape == (max_len, d_model)
    np.testing.assert_array_equal(table, sinusoidal(max_len, d_model, base=base, dtype=np.float32))
    np.testing.assert_allclose(
        table, SinusoidalPositionalEncoding(d_model, max_len, base=base).table, atol=6e-8
    )


def test_torch_layer_behaves_like_the_numpy_layer(page_code):
    layer = page_code["TorchSinusoidalPositionalEncoding"](16, 12, dropout=0.5)
    assert list(layer.parameters()) == [] and "table" not in layer.state_dict()
    layer.eval()
    x = torch.randn(3, 5, 16)
    np.testing.assert_allclose(
        layer(x).numpy(),
        SinusoidalPositionalEncoding(16, 12)(x.numpy().astype(np.float64)),
        atol=1e-6,
    )
    with pytest.raises(ValueError, match="exceeds max_len=12"):
        layer(torch.zeros(1, 13, 16))
    with pytest.raises(ValueError, match="even"):
        page_code["TorchSinusoidalPositionalEncoding"](7, 4)


def test_torch_model_input_shapes_and_scale(page_code):
    torch.manual_seed(0)
    model = page_code["TorchInput"](vocab_size=100, d_model=32, max_len=20, dropout=0.0)
    ids = torch.randint(0, 100, (2, 7))
    out = model(ids)
    assert tuple(out.shape) == (2, 7, 32)
    expected = model.embed.weight[ids] * 32**0.5 + model.positional.table[:7]
    torch.testing.assert_close(out, expected)


def float32_units_apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many float32 numbers apart each pair of entries is (0: equal, 1: neighbours)."""
    a, b = (np.asarray(x, dtype=np.float32).view(np.int32).astype(np.int64) for x in (a, b))
    # int32 views order floats of one sign; map negatives so that the order is monotonic
    a, b = (np.where(x < 0, np.int64(-(2**31)) - x, x) for x in (a, b))
    return np.abs(a - b)


def test_float32_units_apart_counts_neighbours():
    one = np.float32(1.0)
    assert float32_units_apart(one, np.nextafter(one, np.float32(2))) == 1
    assert float32_units_apart(np.float32(-0.5), np.float32(-0.5)) == 0
    small = np.float32(1e-7)
    two_up = np.nextafter(np.nextafter(small, np.float32(1)), np.float32(1))
    assert float32_units_apart(small, two_up) == 2
    tiny = np.float32(np.finfo(np.float32).smallest_subnormal)
    assert float32_units_apart(-tiny, tiny) == 2  # across zero: -tiny, ±0, tiny


def test_large_torch_table_differs_from_the_numpy_table_by_rounding_only(page_code):
    """What the page says of large tables: each table is its own float64 table rounded once
    (within half a float32 unit of it); a few entries differ, by one or two float32 units
    in the last place, never more than 2**-24 (one unit of a value between 1/2 and 1)."""
    layer = page_code["TorchSinusoidalPositionalEncoding"](512, 8192)
    table = layer.table.numpy()
    ours = sinusoidal(8192, 512, dtype=np.float32)
    np.testing.assert_array_equal(ours, sinusoidal(8192, 512).astype(np.float32))
    differ = table != ours
    assert 0 < differ.sum() < 100  # a few of 4.2 million
    assert set(float32_units_apart(table[differ], ours[differ]).tolist()) <= {1, 2}
    assert np.abs(table - ours).max() <= 2.0**-24
    # half an ulp of a value in [1/2, 1) is 2**-25: more than one ulp apart would exceed 2**-24
    assert np.abs(table - ours).max() > 2.0**-25
