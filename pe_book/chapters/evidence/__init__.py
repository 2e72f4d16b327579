"""Chapter 22, evidence: what the book's own tiny models do past their training length.

Everything here is read from the results files ``docs/data/experiments/*.json``
(:mod:`pe_book.experiments`), which ``python3 scripts/book.py experiments`` writes (the
models are trained with PyTorch; building the book needs no torch). Each metric holds
one value per seed; the figures show every seed, the tables the mean and the range over
the seeds. The chapter is one package, its registrations named ``evidence.<name>``:

* :mod:`.common`: the encodings' and methods' names and looks, and the means the
  chapter reads (:func:`loss`, :func:`passkey`, :func:`extension_loss`, …);
* :mod:`.figures`, :mod:`.tables`, :mod:`.values`: what the page shows;
  :mod:`.designs`: the designs of 2025–26 and the remapping methods;
  :mod:`.claims`: the values behind its comparisons (absolute levels, convergence,
  where RoPE degrades, the fine-tune and retrieval, what the ranges cover);
  :mod:`.paired`: paired per-seed differences and standard errors over the seeds.
"""

from __future__ import annotations

from ...experiments import depth_grid, results
from . import claims, designs, figures, paired, tables, values
from .claims import (
    answer_loss,
    documents_changed,
    fine_tune_angle_ratios,
    loss_range,
    pairs_as_in_training,
    passkey_best,
    rope_degradation,
    same_cells,
    train_slopes,
)
from .common import (
    ENCODING_LABELS,
    LAST_BLOCKS,
    METHOD_LABELS,
    binomial_se,
    degradation,
    excess,
    excess_from,
    extension_loss,
    extension_passkey,
    loss,
    passkey,
    passkey_documents,
    train_final,
    train_gap,
    train_slope,
    window_excess,
)
from .values import t5_buckets_seen, t5_first_unseen_distance

__all__ = [
    "ENCODING_LABELS",
    "LAST_BLOCKS",
    "METHOD_LABELS",
    "answer_loss",
    "binomial_se",
    "claims",
    "degradation",
    "designs",
    "depth_grid",
    "documents_changed",
    "excess",
    "excess_from",
    "extension_loss",
    "extension_passkey",
    "figures",
    "fine_tune_angle_ratios",
    "loss",
    "loss_range",
    "paired",
    "pairs_as_in_training",
    "passkey",
    "passkey_best",
    "passkey_documents",
    "results",
    "rope_degradation",
    "same_cells",
    "tables",
    "t5_buckets_seen",
    "t5_first_unseen_distance",
    "train_final",
    "train_gap",
    "train_slope",
    "train_slopes",
    "values",
    "window_excess",
]
