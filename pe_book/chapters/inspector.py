"""Appendix, the config inspector: the gallery's configs for the widget that reads a
``config.json`` in the page (``docs/assets/javascripts/inspector*.js``) and computes the
report of ``python -m pe_explained inspect`` there."""

from __future__ import annotations

import json
from dataclasses import asdict

from pe_explained.families import FAMILIES

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
