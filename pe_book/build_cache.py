"""The build's memory: what the registries computed, kept on disk with the files it read.

A build computes the text of every value, table, caption and alt text it shows, and draws
every figure. Most of that does not change between two builds, so :class:`BuildCache`
keeps each result in ``.cache/book/`` with the files it *depended on*, each with a hash of
its bytes, and the next build reads the result back while every one of those files hashes
the same (and the Python and package versions are the same). The files an entry depends
on are

* the module of the function that computes it (a chapter module), the modules of the
  book that turn its kind into text (:data:`PIPELINE`), and every module of the two
  packages these import or read a name from (``pe.NAME``, ``from pe_explained import
  NAME``), followed to the end (:func:`static_closure`);
* every file those modules read (``docs/data/…``, ``references.toml``, a page whose
  chapter number the glossary quotes): an audit hook sees each file opened in the
  process and charges it to the module of the book or the library whose code opened
  it (:func:`reads`). A module's reads are often memoised, so they are charged to the
  module, not to the entry being computed when they happened, and kept across builds
  in ``reads.json``.

``tests/test_build_cache.py`` runs each value and table, and figures, with every Python
frame traced and every file opening seen, and shows that the static closure holds every
file whose code ran, and its reads every file opened.

So an edit to ``pe_explained/kv_cache.py`` recomputes the values and figures whose
modules read from it, and nothing else; an edit to a page's prose recomputes nothing. Each
recomputed entry says why (:attr:`BuildCache.recomputed`). The published build starts
from an empty cache (a clean clone has none), and a cached build writes the same bytes.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import json
import os
import platform
import sys
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

import pe_explained

__all__ = [
    "PIPELINE",
    "BuildCache",
    "reads",
    "dependencies",
    "environment_key",
    "file_hash",
    "kept_file",
    "origins",
    "static_closure",
]

#: The repository: only files under it are dependencies.
ROOT = Path(__file__).resolve().parent.parent
#: The packages whose modules the static closure follows.
PACKAGES = {
    "pe_explained": Path(pe_explained.__file__).resolve().parent,
    "pe_book": Path(__file__).resolve().parent,
}


def reads() -> dict[str, set[str]]:
    """The files each module of the two packages has opened in this process (and, once a
    :class:`BuildCache` has loaded them, in earlier builds): ``{module file: {file}}``,
    absolute paths. An audit hook, installed once per process, keeps it up to date: an
    audit hook cannot be removed, and ``mkdocs serve`` imports this module again for
    every build, so the hook and the map live on :mod:`sys`."""
    found = getattr(sys, "_pe_book_reads", None)
    if found is None:
        found = sys._pe_book_reads = {}
        folders = tuple(str(f) + os.sep for f in PACKAGES.values())

        def hook(event: str, args: tuple) -> None:
            if event != "open" or not isinstance(args[0], str | Path):
                return
            if str(args[0]).endswith((".py", ".pyc")):  # imports: the static closure's
                return
            frame = sys._getframe(1)
            while frame is not None and not frame.f_code.co_filename.startswith(folders):
                frame = frame.f_back
            if frame is not None and frame.f_code.co_filename != __file__:  # not its hashing
                path = os.path.abspath(args[0])
                found.setdefault(frame.f_code.co_filename, set()).add(path)

        sys.addaudithook(hook)
    return found


def environment_key() -> str:
    """What every entry depends on besides files: Python and the packages that compute
    and draw, and this module's own code (a change of how entries are kept)."""
    import matplotlib
    import numpy

    versions = f"{platform.python_version()} numpy {numpy.__version__} mpl {matplotlib.__version__}"
    return hashlib.sha256(f"{versions}\0{file_hash(Path(__file__))}".encode()).hexdigest()[:16]


_HASHES: dict[Path, tuple[int, int, str]] = {}


def file_hash(path: Path) -> str:
    """The sha256 of ``path``'s bytes ("" when it is gone), read again only when its size
    or modification time changed."""
    try:
        stat = path.stat()
    except OSError:
        return ""
    known = _HASHES.get(path)
    if known and known[:2] == (stat.st_mtime_ns, stat.st_size):
        return known[2]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    _HASHES[path] = (stat.st_mtime_ns, stat.st_size, digest)
    return digest


def kept_file(path: Path, compute: Callable[[], bytes]) -> bytes:
    """The bytes of ``path`` where it exists, else ``compute()``, written there first: to a
    file of this process renamed into place, so that a build stopped half way or another
    build at the same time never leaves part of a file. For results named by the hash of
    everything they are made from (a plot made smaller, the library's wheel)."""
    path = Path(path)
    if path.is_file():
        return path.read_bytes()
    data = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_bytes(data)
    partial.replace(path)
    return data


# The static closure -----------------------------------------------------------------------


def _module_file(module: str) -> Path | None:
    """The source file of a module of the two packages, without importing it."""
    package, _, rest = module.partition(".")
    if package not in PACKAGES:
        return None
    base = PACKAGES[package].joinpath(*rest.split(".")) if rest else PACKAGES[package]
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path) -> str:
    for package, folder in PACKAGES.items():
        if path.is_relative_to(folder):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    raise ValueError(f"{path} is in neither package")


@cache
def _top_level_names(path: Path) -> frozenset[str]:
    """The names a module assigns at its top level."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        for target in targets:
            if isinstance(target, ast.Name):
                names.add(target.id)
    return frozenset(names)


def _name_file(module: str, name: str) -> set[Path]:
    """The file that defines ``module.name``: a submodule, a function's or a class's
    module, or the submodule that assigns a constant (every file of the package when no
    one does, to be safe)."""
    submodule = _module_file(f"{module}.{name}")
    if submodule:
        return {submodule}
    package = _module_file(module)
    if name.startswith("__"):  # __file__, __version__: the module's own
        return {package} if package else set()
    try:
        thing = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return {package} if package else set()
    home = getattr(thing, "__module__", None)
    if isinstance(home, str) and _module_file(home) and callable(thing):
        return {_module_file(home)}
    if package and name in _top_level_names(package):
        return {package}
    folder = package.parent if package and package.name == "__init__.py" else None
    found = {p for p in (folder.rglob("*.py") if folder else ()) if name in _top_level_names(p)}
    return found or ({*folder.rglob("*.py")} if folder else set())


def _attribute_chain(node: ast.Attribute) -> list[str]:
    chain = []
    while isinstance(node, ast.Attribute):
        chain.append(node.attr)
        node = node.value
    return [node.id, *reversed(chain)] if isinstance(node, ast.Name) else []


@cache
def _imports(path: Path, stamp: tuple[int, int]) -> frozenset[Path]:
    """The files of the two packages ``path`` reads from: its imports, and through a
    module imported whole (``import pe_explained as pe``) each ``pe.NAME`` it uses.
    ``stamp`` (modification time, size) makes an edited file parsed again."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: set[Path] = set()
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _module_file(alias.name):
                    found.add(_module_file(alias.name))
                    aliases[alias.asname or alias.name.partition(".")[0]] = (
                        alias.name if alias.asname else alias.name.partition(".")[0]
                    )
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            if _module_file(base):
                found.add(_module_file(base))
                for alias in node.names:
                    found |= _name_file(base, alias.name)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Store):
            chain = _attribute_chain(node)
            if chain and chain[0] in aliases and len(chain) > 1:
                module = aliases[chain[0]]
                for name in chain[1:]:
                    found |= _name_file(module, name)
                    if not _module_file(f"{module}.{name}"):
                        break
                    module = f"{module}.{name}"
    found.discard(path)
    return frozenset(found)


def static_closure(files: Iterable[Path]) -> set[Path]:
    """``files`` and every file of the two packages they read from, followed to the end;
    a package's ``__init__.py`` is kept but not followed (its imports re-export)."""
    done: set[Path] = set()
    todo = [Path(f) for f in files]
    while todo:
        path = todo.pop()
        if path in done:
            continue
        done.add(path)
        if path.name == "__init__.py" or not any(path.is_relative_to(f) for f in PACKAGES.values()):
            continue
        stat = path.stat()
        todo.extend(_imports(path, (stat.st_mtime_ns, stat.st_size)) - done)
    return done


#: The book's modules that turn each kind of entry into text, besides the function that
#: computes it (paths under ``pe_book/``).
PIPELINE = {
    "value": ("__init__.py", "text.py"),
    "table": ("__init__.py", "pages/tables.py", "text.py"),
    "table-caption": ("__init__.py",),
    "alt": ("__init__.py",),
    "caption": ("__init__.py",),
    "figure": ("__init__.py", "render.py"),
    "interactive": ("interactive.py",),
    "html": ("pages/__init__.py",),  # a page's HTML stages; the stamp: its HTML's hash
    "font": ("fonts.py",),  # the math font's subset; the stamp: its characters' hash
    # MkDocs' and its plugins' stages of a page; the stamp: their input's hash
    "markdown": ("kept_stages.py",),
    "search": ("kept_stages.py",),
    "print": ("kept_stages.py",),
}


def origins(key: str) -> set[Path]:
    """The files of the functions that compute entry ``key`` (``"kind:name"``; a figure's
    ``"figure:name/theme/layout"``) and of its kind's :data:`PIPELINE`."""
    from . import FIGURES, TABLES, VALUES
    from .interactive import INTERACTIVES

    kind, _, name = key.partition(":")
    if kind not in PIPELINE:
        raise ValueError(f"unknown kind of entry {kind!r} in {key!r}; known: {sorted(PIPELINE)}")
    functions: list = []
    if kind == "value":
        functions = [VALUES[name].compute]
    elif kind in ("table", "table-caption"):
        functions = [TABLES[name].build, TABLES[name].caption_text]
    elif kind in ("alt", "caption", "figure"):
        spec = FIGURES[name.partition("/")[0]]
        functions = [spec.draw, spec.alt_text, spec.caption_text]
    elif kind == "interactive":
        functions = [INTERACTIVES[name].defaults]
    files = {Path(f.__code__.co_filename) for f in functions if hasattr(f, "__code__")}
    return files | {PACKAGES["pe_book"] / part for part in PIPELINE[kind]}


def _ours(path: Path) -> bool:
    """Whether ``path`` is a file of the project (not of the virtual environment, the
    cache or bytecode)."""
    if not path.is_relative_to(ROOT) or not path.is_file():
        return False
    return not {".venv", ".cache", "__pycache__", ".git"} & set(path.relative_to(ROOT).parts)


def dependencies(key: str) -> dict[str, str]:
    """The files entry ``key`` depends on (its :func:`origins`, their static closure and
    what those modules read), relative to the root, each with its hash."""
    modules = static_closure(origins(key))
    read = reads()
    files = modules | {Path(f) for m in modules for f in read.get(str(m), ())}
    return {f.relative_to(ROOT).as_posix(): file_hash(f) for f in sorted(files) if _ours(f)}


# The cache --------------------------------------------------------------------------------


class BuildCache:
    """Entries ``<folder>/<kind>/<key>.json``: ``{"environment", "stamp", "files",
    "text"}``, and
    ``<folder>/reads.json``: what each module has read (:func:`reads`).

    :meth:`text` returns an entry's text, recomputed when a file it depends on changed;
    :attr:`recomputed` lists each recomputed key with why, :attr:`used` each key read.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.environment = environment_key()
        found = reads()
        try:
            kept = json.loads((self.folder / "reads.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            kept = {}
        if kept.get("environment") != self.environment:  # kept by other code: not used
            kept = {}
        for module, files in kept.get("reads", {}).items():
            found.setdefault(str(ROOT / module), set()).update(str(ROOT / f) for f in files)
        self.recomputed: dict[str, str] = {}
        self.used: set[str] = set()
        #: Entries found current in this build, by key and stamp: a page probed before
        #: it is rendered (:func:`pe_book.workers.needs_work`) reads each entry once.
        self._current: dict[tuple[str, str], str] = {}
        self._hashes: dict[str, str] = {}  # each file's hash, taken once per build

    def _path(self, key: str) -> Path:
        kind, _, name = key.partition(":")
        digest = hashlib.sha256(key.encode()).hexdigest()[:12]
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)[:80]
        return self.folder / kind / f"{safe}-{digest}.json"

    def lookup(self, key: str, stamp: str = "") -> tuple[str | None, str | None]:
        """``(text, None)`` for an entry whose files are all unchanged (and that was made
        from an input stamped ``stamp``); else ``(None, why)``: why it must be computed
        again ("" when there is no entry)."""
        if (key, stamp) in self._current:
            return self._current[key, stamp], None
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None, ""
        if entry.get("environment") != self.environment:
            return None, "Python or a package changed"
        if entry.get("stamp", "") != stamp:
            return None, "its input changed"
        changed = [f for f, h in entry["files"].items() if self._hash(f) != h]
        if changed:
            more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
            return None, f"{changed[0]}{more} changed"
        self._current[key, stamp] = entry["text"]
        return entry["text"], None

    def _hash(self, file: str) -> str:
        """:func:`file_hash` of ``file`` (relative to the root), taken once by this cache:
        a build reads its sources as they were when it started."""
        if file not in self._hashes:
            self._hashes[file] = file_hash(ROOT / file)
        return self._hashes[file]

    def text(self, key: str, compute: Callable[[], str], stamp: str = "") -> str:
        """The text of ``key`` (``"value:chapter.name"``), from the cache when every file it
        depends on is unchanged, else ``compute()``, kept with what it read. ``stamp`` says
        which input the text was made from (a hash), where the key does not."""
        self.used.add(key)
        text, why = self.lookup(key, stamp)
        if text is not None:
            return text
        text = compute()
        self.store(key, text, stamp)
        if why:
            self.recomputed[key] = why
        return text

    def store(self, key: str, text: str, stamp: str = "") -> None:
        """Keep ``text`` as the entry ``key`` with the files it depends on."""
        entry = {
            "environment": self.environment,
            "stamp": stamp,
            "files": dependencies(key),
            "text": text,
        }
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(entry, sort_keys=True), encoding="utf-8")
        tmp.replace(path)

    def save_reads(self) -> None:
        """Keep what the modules read (files of the project only), for the next build."""
        ours = {
            Path(m).relative_to(ROOT).as_posix(): sorted(
                Path(f).relative_to(ROOT).as_posix() for f in files if _ours(Path(f))
            )
            for m, files in reads().items()
            if Path(m).is_relative_to(ROOT)
        }
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f"reads.{os.getpid()}.tmp"
        kept = {"environment": self.environment, "reads": {m: f for m, f in ours.items() if f}}
        tmp.write_text(json.dumps(kept, indent=0, sort_keys=True))
        tmp.replace(self.folder / "reads.json")


reads()  # installed as this module is imported, before any chapter module reads
