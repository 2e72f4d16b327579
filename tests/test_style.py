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


def _yaml(path: Path) -> dict:
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_pre_commit_runs_the_same_ruff_checks_without_downloads():
    config = _yaml(ROOT / ".pre-commit-config.yaml")
    assert [repo["repo"] for repo in config["repos"]] == ["local"]  # nothing fetched
    entries = {hook["id"]: hook["entry"] for hook in config["repos"][0]["hooks"]}
    assert entries["ruff-check"].split()[1:3] == ["check", "--force-exclude"]
    assert entries["ruff-format"].split()[1:4] == ["format", "--check", "--force-exclude"]


def test_the_workflow_runs_ci_run_on_pull_requests_and_pushes():
    workflow = _yaml(ROOT / ".github" / "workflows" / "ci.yml")
    triggers = workflow[True] if True in workflow else workflow["on"]  # YAML 1.1 reads on: as True
    assert "pull_request" in triggers and "push" in triggers
    steps = [step.get("run", "") for step in workflow["jobs"]["ci"]["steps"]]
    assert "bash .ci/run" in steps
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 scripts/book.py test" in ci_run  # the README's test command
