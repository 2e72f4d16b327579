"""Chapter 21: the sliding windows of the gallery's models, and the windows that never cut."""

from __future__ import annotations

from ... import value
from .settings import _reports, inert_window


def _windowed_rows() -> list[tuple[str, int, int, int]]:
    """(model, slower pairs, pairs, window) of every gallery row whose window cuts (shorter
    than the context)."""
    rows = []
    for entry, report in _reports():
        for block in report["layer_types"].values():
            held = block.get("long", block)
            if block["sliding_window"] is not None and not inert_window(block):
                turning = held["pairs_turning_within_window"]
                rows.append(
                    (entry.model, held["pairs"] - turning, held["pairs"], block["sliding_window"])
                )
    return rows


@value("windowed_slower")
def _():
    """The slower pairs of every windowed row: "…; and 66 of 128 in Gemma 3 1B IT, window 512"."""
    parts = [
        f"{slower} of {pairs} in {model}, window {window:,}"
        for model, slower, pairs, window in _windowed_rows()
    ]
    return "; ".join(parts[:-1]) + f"; and {parts[-1]}" if len(parts) > 1 else parts[0]


def _inert() -> list[tuple[str, int, int]]:
    """(model, window, context) of every gallery row whose window is at least its context."""
    return [
        (entry.model, block["sliding_window"], block["max_position_embeddings"])
        for entry, report in _reports()
        for block in report["layer_types"].values()
        if inert_window(block)
    ]


@value("inert_windows")
def _():
    """ "Phi-3.5 mini instruct and Phi-4 mini instruct state a window of 262,144 tokens, longer
    than their context of 131,072" (one clause per window and context)."""
    rows = _inert()
    groups: dict[tuple[int, int], list[str]] = {}
    for model, window, context in rows:
        groups.setdefault((window, context), []).append(model)
    clauses = []
    for (window, context), models in groups.items():
        names = " and ".join([", ".join(models[:-1]), models[-1]] if len(models) > 1 else models)
        verb = "state" if len(models) > 1 else "states"
        longer = "as long as" if window == context else "longer than"
        their = "their" if len(models) > 1 else "its"
        clauses.append(
            f"{names} {verb} a window of {window:,} tokens, {longer} {their} context of {context:,}"
        )
    return "; ".join(clauses)
