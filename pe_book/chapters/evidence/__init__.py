"""Chapter 22, evidence: what the book's own tiny models do past their training length.

Everything here is read from the results files ``docs/data/experiments/*.json``
(:mod:`pe_book.experiments`), which ``python3 scripts/book.py experiments`` writes (the
models are trained with PyTorch; building the book needs no torch). Each metric holds
one value per seed; the figures show every seed, the tables the mean and the range over
the seeds. The chapter is one package, its registrations named ``evidence.<name>``:

* :mod:`.common`: the encodings' and methods' names and looks, and the means the
  chapter reads (:func:`loss`, :func:`passkey`, :func:`extension_loss`, …);
* :mod:`.figures`, :mod:`.tables`, :mod:`.values`: what the page shows.
"""

from __future__ import annotations

from ...experiments import depth_grid, results
from . import figures, tables, values
from .common import (
    ENCODING_LABELS,
    METHOD_LABELS,
    extension_loss,
    extension_passkey,
    loss,
    passkey,
)
from .values import t5_buckets_seen

__all__ = [
    "ENCODING_LABELS",
    "METHOD_LABELS",
    "depth_grid",
    "extension_loss",
    "extension_passkey",
    "figures",
    "loss",
    "passkey",
    "results",
    "tables",
    "t5_buckets_seen",
    "values",
]
