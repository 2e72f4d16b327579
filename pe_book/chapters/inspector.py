"""Appendix, the config inspector: the gallery's configs for the widget that reads a
``config.json`` in the page (``docs/assets/javascripts/inspector*.js``) and computes the
report of ``python -m pe_explained inspect`` there; and the stored sweep of every family
transformers ships, checked as ``inspect --verify`` checks a config
(``scripts/transformers_sweep.py``, ``docs/data/transformers_sweep.json``)."""

from __future__ import annotations

import json
from dataclasses import asdict
from functools import cache
from pathlib import Path

from pe_explained.families import FAMILIES, PARTIALS

from .. import Table, table
from ..interactive import interactive
from ..models import load_models

#: The gallery model the inspector opens on: two layer types, one of them scaled.
START = "Gemma 3 12B IT (text tower)"


@interactive(
    "inspector",
    title="Inspect a config: pick a model of the gallery, paste a config.json or drop its "
    "file, and read what it does to positions, layer by layer.",
    script="inspector",
)
def _():
    # only each model's name and its config: the page carries no more of the gallery; and
    # the library's registry of families, which the page's reading follows as it is
    return {
        "models": [[m.model, m.config] for m in load_models()],
        "start": START,
        # as JSON holds it (a tuple of notes is a list)
        "families": json.loads(json.dumps({name: asdict(f) for name, f in FAMILIES.items()})),
    }


#: The stored sweep (``scripts/transformers_sweep.py``).
SWEEP = Path(__file__).resolve().parents[2] / "docs" / "data" / "transformers_sweep.json"
#: What each status of the sweep says, in the order the table lists them.
STATUSES = {
    "agrees": "every layer agrees; the library has read the family's code",
    "agrees, assumed": "every layer agrees, though the library has not read the code "
    "(inspect prints ? for its layers)",
    "differs, assumed": "a layer differs where the library has not read the code "
    "(inspect prints ?, not a guess shown as read)",
    "differs": "a layer differs where the library has read the code",
    "refused": "the library refuses the class's default config (most: no rotary "
    "embedding, or not a text model)",
    "not built": "transformers builds no tiny text model of it here (vision or audio "
    "alone, or sizes the check does not shrink)",
}
#: A status with more families than this lists the first of them only.
LISTED = 60


@cache
def sweep() -> dict:
    """The stored sweep."""
    if not SWEEP.exists():
        raise FileNotFoundError(f"{SWEEP} is missing: run python3 scripts/transformers_sweep.py")
    return json.loads(SWEEP.read_text(encoding="utf-8"))


def _names(families: list[str], listed: int = LISTED) -> str:
    shown = ", ".join(f"`{name}`" for name in families[:listed])
    more = len(families) - listed
    return shown + (f", … and {more:,} more" if more > 0 else "")


@table(
    "sweep",
    caption=lambda: (
        f"Every model type of transformers {sweep()['transformers']} checked as "
        "inspect --verify checks a config: its class's default config, a tiny model, each "
        "layer compared."
    ),
)
def _():
    families = sweep()["families"]
    rows = []
    for status, meaning in STATUSES.items():
        found = sorted(name for name, entry in families.items() if entry["status"] == status)
        rows.append([status, meaning, len(found), _names(found) if found else "none"])
    return Table(["status", "what it means", "families", "model types"], rows)


@table(
    "partial",
    caption=lambda: (
        "What each family's code does with a partial_rotary_factor below 1, and what the "
        f"sweep found building each agreeing family again with one (transformers "
        f"{sweep()['transformers']})."
    ),
)
def _():
    families = sweep()["families"]
    rows = []
    for rule, meaning in PARTIALS.items():
        names = sorted(
            name for name, f in FAMILIES.items() if f.partial == rule and f.pairing is not None
        )
        found: dict[str, int] = {}
        for name in names:
            entry = families.get(name, {})
            if entry.get("status") == "agrees":
                verdict = entry["partial"].split(":")[0]
                found[verdict] = found.get(verdict, 0) + 1
        checked = "; ".join(f"{verdict}: {n}" for verdict, n in sorted(found.items()))
        rows.append([rule, meaning, len(names), checked or "none built", _names(names, 24)])
    return Table(["rule", "what its code does", "families", "checked", "model types"], rows)
