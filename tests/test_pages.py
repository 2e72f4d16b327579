"""Every Python example on every page of the book runs, and its outputs match."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pytest
from pages import find_blocks, run_block

matplotlib.use("Agg")

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
BLOCKS = [b for page in PAGES for b in find_blocks(page.read_text(encoding="utf-8"), page)]
_sessions: dict[Path, tuple[dict, set[int]]] = {}


def _session(block):
    """The page's namespace, with every earlier block of the page already run."""
    namespace, done = _sessions.setdefault(block.path, ({"__name__": "__page__"}, set()))
    for earlier in [b for b in BLOCKS if b.path == block.path and b.line < block.line]:
        if earlier.line not in done:
            done.add(earlier.line)
            try:
                run_block(earlier, namespace)
            except Exception:
                pass  # reported by its own test
    done.add(block.line)
    return namespace


def _needs_torch(block) -> bool:
    return bool(re.search(r"^\s*(?:>>>\s*)?(?:import torch|from torch)\b", block.source, re.M))


@pytest.mark.parametrize(
    "block", BLOCKS, ids=[f"{b.path.relative_to(DOCS)}:{b.line}" for b in BLOCKS]
)
def test_example(block):
    if _needs_torch(block):
        pytest.importorskip("torch", reason="PyTorch is not installed (optional for the book)")
    run_block(block, _session(block))


def test_pages_have_examples():
    assert len(BLOCKS) >= 5, "the page harness found suspiciously few examples"


@pytest.mark.parametrize(
    "source, needs",
    [
        (">>> import torch\n", True),
        ("import torch.nn as nn\n", True),
        ("    from torch import nn\n", True),
        (">>> import torchvision\n", False),
        ("x = 1  # import torch later\n", False),
    ],
)
def test_torch_blocks_are_recognised(source, needs):
    from pages import Block

    assert _needs_torch(Block(DOCS, 1, "pycon", source)) is needs
