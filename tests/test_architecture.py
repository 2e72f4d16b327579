"""The book's package keeps its layers: no import circle, chapters apart from the page
pipeline, and modules small enough to read.

The imports are read from the sources (every ``import`` statement, at module level or
inside a function), not by importing: an import inside a function dodges a circle at
run time but is still one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "pe_book"

#: What a chapter module may import from the book: the registries, notation, house style,
#: the reference list, text formats, the interactive figures' registry, the model gallery,
#: the command-line parser it documents and the stored experiments' results.
CHAPTER_MAY_IMPORT = {
    "pe_book",
    "pe_book.chapters",
    "pe_book.cli",
    "pe_book.experiments",
    "pe_book.interactive",
    "pe_book.models",
    "pe_book.notation",
    "pe_book.references",
    "pe_book.style",
    "pe_book.text",
}
#: The most lines a module of the book may have.
MAX_LINES = 450


def module_name(path: Path, root: Path) -> str:
    """``pe_book/pages/mathml.py`` -> ``pe_book.pages.mathml``; a package is its ``__init__``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_from(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from … import`` statement in ``package`` reads from, made absolute."""
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    base = parts[: len(parts) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(root: Path) -> dict[str, set[str]]:
    """Every module of the package at ``root`` and the modules of that package it imports.

    ``from . import x`` counts as an import of the submodule ``x`` when there is one,
    otherwise of the package; ``from .a import b`` of ``a`` (or of ``a.b`` if ``b`` is a
    module). Imports of other packages are left out.
    """
    paths = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                origin = imported_from(node, package)
                targets = [
                    f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in paths else origin
                    for alias in node.names
                ]
            else:
                continue
            edges |= {t for t in targets if t in paths and t != name}
        graph[name] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected components of more than one
    module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_checker_finds_a_circle_hidden_in_a_function(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .sub import b\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text("def f():\n    from ..c import g\n")
    (package / "c.py").write_text("from . import a\ndef g(): pass\n")
    (package / "d.py").write_text("from .a import x\nimport pkg.c\n")
    graph = import_graph(package)
    assert graph["pkg.d"] == {"pkg.a", "pkg.c"}
    assert circles(graph) == [["pkg.a", "pkg.c", "pkg.sub.b"]]
    (package / "c.py").write_text("def g(): pass\n")
    assert circles(import_graph(package)) == []


def unresolved_imports(root: Path) -> list[str]:
    """Relative imports of the package at ``root`` that name no module or package of it
    (a module moved to a subpackage whose ``from .x import y`` still points beside it)."""
    paths = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    wrong = []
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                if imported_from(node, package) not in paths:
                    wrong.append(f"{name}: from {'.' * node.level}{node.module or ''}")
    return wrong


def test_every_relative_import_names_a_module(tmp_path):
    assert unresolved_imports(BOOK) == []
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "render.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "a.py").write_text("def f():\n    from .render import x\n")
    assert unresolved_imports(package) == ["pkg.sub.a: from .render"]


def test_no_import_circle_in_the_book():
    assert circles(import_graph(BOOK)) == []


def test_chapters_import_content_only():
    """A chapter says what its page shows; how a page is finished (the page pipeline,
    figure rendering, notebooks) is not its business."""
    graph = import_graph(BOOK)
    wrong = {
        name: sorted(t for t in targets if t not in CHAPTER_MAY_IMPORT and ".chapters." not in t)
        for name, targets in graph.items()
        if name.startswith("pe_book.chapters.")
    }
    assert {name: targets for name, targets in wrong.items() if targets} == {}


def test_the_layer_check_catches_a_chapter_that_imports_the_pipeline():
    graph = import_graph(BOOK)
    assert "pe_book.pages.shortcodes" in graph["pe_book.pages"]  # the graph sees the pipeline
    assert not CHAPTER_MAY_IMPORT & {m for m in graph if m.startswith("pe_book.pages")}
    assert "pe_book.render" not in CHAPTER_MAY_IMPORT


@pytest.mark.parametrize("path", sorted(BOOK.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_small(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines (at most {MAX_LINES})"
