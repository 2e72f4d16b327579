"""The layers: the library stands alone; the book is built on it, never the other way round.

library (``pe_explained``, numpy only) ← book (``pe_book``: figures, tables, pages)
← hook (``scripts/hooks.py``).
"""

from __future__ import annotations

import ast
import email
import json
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "pe_explained"
STDLIB = set(sys.stdlib_module_names)

#: Packages the book uses for drawing and markup; the library may load none of them.
BOOK_ONLY = [
    "matplotlib",
    "latex2mathml",
    "markdown",
    "mkdocs",
    "jinja2",
    "yaml",
    "PIL",
    "bs4",
    "nbformat",
    "jupytext",
    "pe_book",
    "scipy",
    "torch",
    "transformers",
    "ml_dtypes",
]


def imported_roots(path: Path) -> set[str]:
    """Top-level names of every absolute import in a module (relative imports excluded)."""
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize(
    "path", sorted(LIBRARY.rglob("*.py")), ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_library_modules_import_numpy_and_the_standard_library_only(path):
    extra = imported_roots(path) - STDLIB - {"numpy", "pe_explained"}
    assert not extra, f"{path.name} imports {sorted(extra)}"


def test_importing_the_library_loads_no_plotting_or_markup_package():
    code = (
        "import importlib, json, pkgutil, sys\n"
        "import pe_explained\n"
        "for info in pkgutil.walk_packages(pe_explained.__path__, 'pe_explained.'):\n"
        "    if not info.name.endswith('__main__'):\n"
        "        importlib.import_module(info.name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT / "tests"
    )
    loaded = set(json.loads(done.stdout))
    assert "numpy" in loaded
    assert not loaded & set(BOOK_ONLY), sorted(loaded & set(BOOK_ONLY))


def test_the_book_depends_on_the_library_not_the_reverse():
    book_imports = set().union(*(imported_roots(p) for p in (ROOT / "pe_book").rglob("*.py")))
    assert "pe_explained" in book_imports
    hook_imports = imported_roots(ROOT / "scripts" / "hooks.py")
    assert "pe_explained" not in hook_imports, "the hook reaches the library through the book"


@pytest.mark.slow
def test_the_wheel_holds_the_library_alone_and_requires_numpy_alone(tmp_path):
    """``pip install .`` pulls numpy alone: the built wheel's metadata and files say so."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(ROOT)],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("pe_explained-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        requires = email.message_from_bytes(archive.read(metadata)).get_all("Requires-Dist")
    assert requires == ["numpy>=2.0"]
    packages = {
        name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")
    }
    assert packages == {"pe_explained"}, packages


def test_the_book_package_is_on_the_path_of_the_venv_not_in_the_distribution():
    purelib = Path(sysconfig.get_paths()["purelib"])
    pth = purelib / "pe_book.pth"
    if not pth.exists():
        pytest.skip("not running in the venv made by scripts/book.py")
    assert Path(pth.read_text().strip()) == ROOT
