"""The library's wheel, served beside the notebooks' downloads, so that a notebook run
outside a clone of the book (Colab, a fresh Jupyter) installs the ``pe_explained`` the
book was built with: its first cell installs it from the site where it is missing.

:func:`library_wheel` builds it with the project's own build backend (setuptools, from
the venv: nothing is downloaded) in a copy of the library's sources in a temporary
folder, so a build writes nothing into the work tree, and writes the archive again with
every entry dated :data:`ZIP_DATE` and readable by all: the same sources give the same
bytes, on every build. A wheel built once is kept by the hash of what it was built from.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from importlib.metadata import version
from pathlib import Path, PurePosixPath

from .build_cache import kept_file

__all__ = ["WHEEL_DIR", "ZIP_DATE", "library_wheel", "wheel_path"]

#: Folder of the site holding the wheel: beside the notebooks' ``.ipynb`` downloads.
WHEEL_DIR = "notebooks"
#: The date of every entry of the archive: the earliest a zip file can hold.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
#: What the wheel is built from, relative to the project's root.
SOURCES = ("pyproject.toml", "README.md", "pe_explained")
_BUILD = "import sys, setuptools.build_meta as backend; backend.build_wheel(sys.argv[1])"


def wheel_path(root) -> str:
    """Docs-relative path of the wheel, named for the project's name and version
    (``pyproject.toml``): ``notebooks/pe_explained-0.1.0-py3-none-any.whl``."""
    project = tomllib.loads((Path(root) / "pyproject.toml").read_text(encoding="utf-8"))
    name = project["project"]["name"].replace("-", "_")
    return f"{WHEEL_DIR}/{name}-{project['project']['version']}-py3-none-any.whl"


def _source_files(root: Path) -> list[Path]:
    """Every file the wheel is built from, in a fixed order, compiled files left out."""
    found = []
    for name in SOURCES:
        path = root / name
        if path.is_dir():
            found += [
                p
                for p in path.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
            ]
        else:
            found.append(path)
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def library_wheel(root, cache: Path | None = None) -> bytes:
    """The wheel of the library in the project at ``root``, as bytes; named as
    :func:`wheel_path` says. With a ``cache`` folder, kept there by the hash of its
    sources and the backend's version, and read back instead of built again."""
    root = Path(root)
    files = _source_files(root)
    digest = hashlib.sha256(f"setuptools {version('setuptools')}\0{ZIP_DATE}\0".encode())
    for path in files:
        digest.update(f"{path.relative_to(root).as_posix()}\0".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    if cache is None:
        return _built(root, files)
    kept = Path(cache) / f"{digest.hexdigest()[:32]}.whl"
    return kept_file(kept, lambda: _built(root, files))


def _built(root: Path, files: list[Path]) -> bytes:
    """The wheel of ``files`` (the library's sources under ``root``), built in a
    temporary folder and made the same bytes every time (:func:`_fixed`)."""
    name = PurePosixPath(wheel_path(root)).name
    with tempfile.TemporaryDirectory(prefix="pe-wheel-") as folder:
        project, out = Path(folder) / "project", Path(folder) / "dist"
        for path in files:
            target = project / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        out.mkdir()
        done = subprocess.run(
            [sys.executable, "-c", _BUILD, str(out)],
            cwd=project,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(f"building the library's wheel failed:\n{done.stderr[-3000:]}")
        built = out / name
        if not built.is_file():
            raise RuntimeError(f"the build backend wrote {sorted(os.listdir(out))}, not {name}")
        return _fixed(built, Path(folder) / "fixed.whl")


def _fixed(wheel: Path, dest: Path) -> bytes:
    """The archive ``wheel`` written again, its entries in their order, each dated
    :data:`ZIP_DATE`, a plain file readable by all: its bytes."""
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(dest, "w") as fixed:
        for entry in source.infolist():
            info = zipfile.ZipInfo(entry.filename, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # unix: the attributes below are a file's mode
            info.external_attr = 0o100644 << 16
            fixed.writestr(info, source.read(entry))
    return dest.read_bytes()
