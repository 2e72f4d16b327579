"""The stored sweep of every family transformers ships (``scripts/transformers_sweep.py``).

The stored file must come from the current library and script (its code hash); where
transformers 5.23 is installed, families re-checked now must give the stored entries;
and no family whose code the library has read may differ from what transformers does
(one it has not read is marked assumed, and ``inspect`` prints ``?`` for its layers).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import transformers_sweep as sweep  # noqa: E402

STORED = json.loads(sweep.OUT.read_text(encoding="utf-8"))
RERUN = "rerun: .venv/bin/python scripts/transformers_sweep.py (needs torch and transformers)"
STATUSES = {"agrees", "agrees, assumed", "differs", "differs, assumed", "refused", "not built"}


def test_the_stored_sweep_comes_from_the_current_library():
    assert STORED["code_hash"] == sweep.code_hash(), (
        f"docs/data/transformers_sweep.json was made by another library or script: {RERUN}"
    )


def test_the_stale_check_sees_a_change_of_the_library(tmp_path, monkeypatch):
    files = sweep.code_files()
    changed = tmp_path / files[0].name
    changed.write_bytes(files[0].read_bytes() + b"\n# changed\n")
    monkeypatch.setattr(sweep, "ROOT", tmp_path)
    monkeypatch.setattr(sweep, "code_files", lambda: [changed])
    assert sweep.code_hash() != STORED["code_hash"]


def test_every_family_has_a_status_and_none_the_library_read_differs():
    families = STORED["families"]
    assert len(families) > 500 and {e["status"] for e in families.values()} <= STATUSES
    read_and_wrong = sorted(n for n, e in families.items() if e["status"] == "differs")
    # and none differs once its config sets a partial_rotary_factor (families.PARTIALS)
    read_and_wrong += sorted(
        f"{n} (partial: {e['partial']})"
        for n, e in families.items()
        if e["status"] == "agrees" and e["partial"] not in sweep.PARTIAL_AGREES
    )
    assert read_and_wrong == [], (
        f"the library's reading differs from transformers: {read_and_wrong}"
    )


@pytest.mark.skipif(
    importlib.util.find_spec("transformers") is None or importlib.util.find_spec("torch") is None,
    reason="transformers and torch are not installed (differential tests run in CI)",
)
def test_families_checked_again_give_the_stored_entries():
    import transformers

    if transformers.__version__ != STORED["transformers"]:
        pytest.skip(f"transformers {transformers.__version__}, the sweep ran on another")
    families = STORED["families"]
    sample = []
    for status in sorted(STATUSES):
        sample += sorted(n for n, e in families.items() if e["status"] == status)[:2]
    assert {name: sweep.check(name) for name in sample} == {n: families[n] for n in sample}
