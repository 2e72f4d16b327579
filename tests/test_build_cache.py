"""The build cache (:mod:`pe_book.build_cache`): an entry is read back while the files it
depends on are unchanged, computed again (saying why) when one changed, and the files it
is said to depend on hold every file whose code runs, or is opened, while computing it."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from pe_book import FIGURES, TABLES, VALUES, build_cache, load_all
from pe_book.pages.tables import table_markdown
from pe_book.render import render_svg

ROOT = build_cache.ROOT


@contextmanager
def traced():
    """Every file whose Python code starts running inside the block, and every file
    opened there (an audit hook: installed once, reporting only while a block runs)."""
    files: set[str] = set()
    opened.append(files)

    def started(frame, event, arg):
        files.add(frame.f_code.co_filename)

    before = sys.gettrace()
    sys.settrace(started)
    try:
        yield files
    finally:
        sys.settrace(before)
        opened.remove(files)


opened: list[set[str]] = []


def _audit(event: str, args: tuple) -> None:
    if event == "open" and opened and isinstance(args[0], str | Path):
        for files in opened:
            files.add(str(Path(args[0]).resolve()))


sys.addaudithook(_audit)


def _ran(files: set[str]) -> set[Path]:
    """The sources of the two packages among ``files``."""
    packages = build_cache.PACKAGES.values()
    return {
        Path(f)
        for f in files
        if f.endswith(".py") and any(Path(f).is_relative_to(p) for p in packages)
    }


def _uncovered(key: str, compute, closure=build_cache.static_closure) -> set[str]:
    """The files of the two packages whose code ran computing ``key`` but that ``closure``
    of its origins leaves out."""
    with traced() as files:
        compute()
    covered = closure(build_cache.origins(key))
    return {p.relative_to(ROOT).as_posix() for p in _ran(files) - covered}


def _entries(figure_step: int):
    load_all()
    for name, spec in sorted(VALUES.items()):
        if not spec.constant:
            yield f"value:{name}", spec.text
    for name in sorted(TABLES):
        yield f"table:{name}", lambda name=name: table_markdown(name)
    for name in sorted(FIGURES)[::figure_step]:
        yield f"figure:{name}/light/wide", lambda name=name: render_svg(name, "light")


def _opened(files: set[str]) -> set[str]:
    """The files of the project among ``files`` that are not Python sources."""
    return {f for f in files if not f.endswith(".py") and build_cache._ours(Path(f))}


@pytest.mark.slow
def test_the_dependencies_hold_every_file_whose_code_runs_and_every_file_opened():
    missed, unread = {}, {}
    for key, compute in _entries(figure_step=7):
        with traced() as files:
            if uncovered := _uncovered(key, compute):
                missed[key] = sorted(uncovered)
        depends = {str(ROOT / f) for f in build_cache.dependencies(key)}
        if opened_here := _opened(files) - depends:
            unread[key] = sorted(opened_here)
    assert not missed, f"entries whose dependencies miss code that ran: {missed}"
    assert not unread, f"entries whose dependencies miss a file they opened: {unread}"


def test_the_check_finds_a_closure_that_does_not_follow_imports():
    """The harness above fails on a wrong answer: with each entry's origins alone (no
    imports followed) code that ran is missed."""
    load_all()
    key = "figure:alibi_bias_per_head/dark/phone"
    missed = _uncovered(key, lambda: render_svg("alibi_bias_per_head", "dark", "phone"), set)
    assert "pe_explained/alibi.py" in missed and "pe_book/style.py" in missed


def test_an_entry_depends_on_the_library_module_its_chapter_reads_and_not_on_others():
    files = build_cache.dependencies("value:cache_positions.drift_f16_large")
    assert "pe_explained/kv_cache.py" in files
    assert "pe_book/chapters/cache_positions/moves.py" in files
    assert "pe_book/text.py" in files  # the value's pipeline
    assert not any(f.startswith("pe_book/chapters/alibi") for f in files)
    figure = build_cache.dependencies("figure:alibi_bias_per_head/light/wide")
    assert "pe_book/render.py" in figure and "pe_explained/alibi.py" in figure
    assert "pe_explained/kv_cache.py" not in figure


def test_an_unknown_kind_of_entry_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown kind of entry 'chart'"):
        build_cache.origins("chart:alibi_bias_per_head")


def test_an_entry_is_computed_once_then_read_back(tmp_path):
    cache = build_cache.BuildCache(tmp_path)
    calls = []

    def compute():
        calls.append(1)
        return "4,096"

    key = "value:context_extension.yarn_low"
    assert cache.text(key, compute) == "4,096"
    again = build_cache.BuildCache(tmp_path)
    assert again.text(key, compute) == "4,096"
    assert calls == [1]
    assert not cache.recomputed and not again.recomputed  # a first computation is no "again"
    assert again.used == {key}


def _tamper(folder: Path, field: str, change) -> None:
    (path,) = folder.rglob("*.json")
    entry = json.loads(path.read_text())
    entry[field] = change(entry[field])
    path.write_text(json.dumps(entry))


def test_a_changed_source_file_computes_the_entry_again_and_says_which(tmp_path):
    key = "value:cache_positions.drift_f16_large"
    build_cache.BuildCache(tmp_path).text(key, lambda: "old")
    _tamper(tmp_path, "files", lambda files: {**files, "pe_explained/kv_cache.py": "0" * 64})
    cache = build_cache.BuildCache(tmp_path)
    assert cache.text(key, lambda: "new") == "new"
    assert cache.recomputed == {key: "pe_explained/kv_cache.py changed"}
    assert build_cache.BuildCache(tmp_path).lookup(key) == ("new", None)


def test_a_changed_environment_computes_every_entry_again(tmp_path):
    key = "value:context_extension.yarn_low"
    build_cache.BuildCache(tmp_path).text(key, lambda: "old")
    _tamper(tmp_path, "environment", lambda value: "changed")
    text, reason = build_cache.BuildCache(tmp_path).lookup(key)
    assert text is None and reason == "Python or a package changed"


def test_a_file_a_module_read_is_a_dependency_of_what_uses_the_module(tmp_path):
    """The stored llama.cpp run is read (once, memoised) by the chapter's module: the
    values of that module depend on it, and the reads are kept for the next build."""
    load_all()
    key = "value:cache_positions.shift_keep"
    VALUES["cache_positions.shift_keep"].text()
    stored = "docs/data/runtimes/llama_cpp.json"
    assert stored in build_cache.dependencies(key)
    assert stored not in build_cache.dependencies("value:alibi.bloom_ladder_heads")
    cache = build_cache.BuildCache(tmp_path)
    cache.save_reads()
    kept = json.loads((tmp_path / "reads.json").read_text())["reads"]
    assert any(stored in files for files in kept.values())
    assert not any(f.endswith(".py") for files in kept.values() for f in files)
    assert "pe_book/build_cache.py" not in kept  # the files it hashes are not its reads


def test_an_unreadable_entry_is_computed_again(tmp_path):
    key = "value:context_extension.yarn_low"
    cache = build_cache.BuildCache(tmp_path)
    cache.text(key, lambda: "old")
    (path,) = tmp_path.rglob("*.json")
    path.write_text("{not json")
    assert build_cache.BuildCache(tmp_path).text(key, lambda: "new") == "new"


def test_a_file_hash_follows_an_edit(tmp_path):
    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    first = build_cache.file_hash(path)
    path.write_text("x = 22\n")
    assert build_cache.file_hash(path) != first
    assert build_cache.file_hash(tmp_path / "gone.py") == ""
