"""The house style is enforced, not hoped for: ruff's lint rules and its formatter pass.

The rule set (pyflakes, pycodestyle, isort, bugbear, pyupgrade, numpy) and the
exclusions live in ``pyproject.toml``; ``.pre-commit-config.yaml`` runs the same
two commands before each commit.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def ruff(*args: str) -> subprocess.CompletedProcess:
    pytest.importorskip("ruff", reason="ruff is installed by scripts/book.py (requirements.txt)")
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_lint_passes():
    done = ruff("check", "--no-cache", "--output-format", "concise", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_leaves_every_file_unchanged():
    done = ruff("format", "--no-cache", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_lint_rules_catch_a_real_mistake(tmp_path):
    """The harness fails on bad code: an unused import and an unsorted block."""
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nimport os\n\nx = 1\n")
    done = ruff("check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(bad))
    assert done.returncode == 1 and "F401" in done.stdout and "I001" in done.stdout
