"""The book's own experiments: tiny transformers trained on this machine.

``data`` (the synthetic language and the passkey task), ``model`` (a small decoder whose
positional encoding comes from ``pe_explained``), ``train`` (training and evaluation)
and ``run`` (the experiments, the command line, the results files in
``docs/data/experiments/``).

This module needs no torch: it holds what the runner and the tests share about the
results' provenance, :func:`code_hash`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

#: This folder: the sources the results depend on.
HERE = Path(__file__).resolve().parent


def source_files(folder: Path = HERE) -> list[Path]:
    """The experiment's source files: every ``*.py`` under ``folder``, sorted by path."""
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def code_hash(folder: Path = HERE) -> str:
    """sha256 over the sorted source files of ``folder``: each file's relative path,
    a NUL byte, its bytes, a NUL byte.

    The results files record it; a results file whose hash differs from the current
    sources' is stale (the code that made it is gone).
    """
    digest = hashlib.sha256()
    for path in source_files(folder):
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()
