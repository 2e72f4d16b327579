"""The book's own experiments: tiny transformers trained by the book.

``data`` (the synthetic language and the passkey task), ``model`` (a small decoder whose
positional encoding comes from ``pe_explained``), ``remap`` (remapped positions),
``train`` (training and evaluation), ``settings`` (the presets) and ``run`` (the
experiments, the command line, the results files in ``docs/data/experiments/``).

This module needs no torch: it holds what the runner and the tests share about the
results' provenance, :func:`code_hash`.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

#: This folder: the sources the results depend on.
HERE = Path(__file__).resolve().parent


def source_files(folder: Path = HERE) -> list[Path]:
    """The experiment's source files: every ``*.py`` under ``folder`` but this one (which
    computes nothing), sorted by path."""
    return sorted(
        p
        for p in folder.rglob("*.py")
        if "__pycache__" not in p.parts and p.relative_to(folder).as_posix() != "__init__.py"
    )


def _without_docstrings(tree: ast.AST) -> ast.AST:
    """``tree`` with the docstring of every module, class and function removed."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    node.body = body[1:] or [ast.Pass()]
    return tree


def code_text(path: Path) -> str:
    """What of a source file the hash covers: its syntax tree without docstrings
    (``ast.dump``), so that layout, comments and docstrings do not count, and every
    name, number and statement does."""
    return ast.dump(_without_docstrings(ast.parse(path.read_text(encoding="utf-8"))))


def code_hash(folder: Path = HERE) -> str:
    """sha256 over the sorted source files of ``folder``: each file's relative path, a
    NUL byte, its :func:`code_text`, a NUL byte.

    The results files record it; a results file whose hash differs from the current
    sources' is stale (the code that made it is gone).
    """
    digest = hashlib.sha256()
    for path in source_files(folder):
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(b"\0")
        digest.update(code_text(path).encode())
        digest.update(b"\0")
    return digest.hexdigest()
