"""Chapter 20, "The product": how the installed transformers computes RoPE's angles.

The chapter once said that transformers computes ``inv_freq @ position_ids`` as a matrix
product, which TF32 can round (positions colliding from 2,048 on). That was 4.x's code
(4.51.3 in the report the chapter cites). In 5.23, the version the book follows, every
rotary class multiplies element-wise, which never runs in TF32. These tests read the
installed modeling code, without importing it (no torch needed), and hold the page to
it: no rotary product of positions and frequencies is a matrix product, Llama's
``forward`` has the line the page quotes, and the page quotes it.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

SPEC = importlib.util.find_spec("transformers")
pytestmark = pytest.mark.skipif(
    SPEC is None, reason="transformers is not installed (differential tests run in CI)"
)
PAGE = Path(__file__).resolve().parent.parent / "docs" / "practice" / "precision.md"
#: The element-wise product of Llama's rotary class, as the page quotes it.
QUOTED = "position_ids[..., None].float() * self.inv_freq"


def _models() -> Path:
    return Path(SPEC.origin).parent / "models"


def angle_matmuls(source: str) -> list[str]:
    """Every matrix product (``@``, ``torch.matmul``, ``torch.bmm``) of ``source`` whose
    operands name the frequencies or the positions.

    >>> angle_matmuls("freqs = (inv_freq_expanded.float() @ position_ids_expanded.float())")
    ['inv_freq_expanded.float() @ position_ids_expanded.float()']
    >>> angle_matmuls("freqs = position_ids[..., None].float() * self.inv_freq")
    []
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            text = ast.unparse(node)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("matmul", "bmm", "mm")
        ):
            text = ast.unparse(node)
        else:
            continue
        if re.search(r"inv_freq|position_ids|positions", text):
            found.append(text)
    return found


def test_no_rotary_class_multiplies_positions_by_frequencies_as_a_matrix_product():
    files = sorted(_models().glob("*/modeling_*.py"))
    assert len(files) > 100
    found = {
        f.relative_to(_models()).as_posix(): hits
        for f in files
        if "inv_freq" in (text := f.read_text(encoding="utf-8")) and (hits := angle_matmuls(text))
    }
    assert found == {}


def test_llamas_rotary_class_multiplies_element_wise_and_the_page_says_so():
    source = (_models() / "llama" / "modeling_llama.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    rotary = next(
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.ClassDef) and n.name == "LlamaRotaryEmbedding"
    )
    forward = next(n for n in rotary.body if isinstance(n, ast.FunctionDef) and n.name == "forward")
    assert QUOTED in ast.get_source_segment(source, forward)
    page = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert f"`{QUOTED}`" in page
    assert "transformers computes `inv_freq @ position_ids`" not in page


def test_the_check_sees_the_matrix_product_of_4x():
    """transformers 4.51.3's line, as the report quotes it."""
    old = "freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)"
    assert angle_matmuls(old)
    assert angle_matmuls("freqs = torch.matmul(inv_freq, position_ids)")
