#!/usr/bin/env python3
"""Benchmark: the author's loop, against a plain MkDocs site built in the same run.

    .venv/bin/python scripts/bench_build.py

In a copy of the project (what git tracks, no ``.cache/``), ``mkdocs build --strict``
three times: cold (no build cache, notebooks executed), with nothing changed, and after a
prose edit of one page (a line appended to ``docs/foundations/order-problem.md``); then
``book.py serve``'s ``mkdocs serve --strict --dirty``, timed from the same edit to the
rebuilt site's reload.
The limit: a plain MkDocs site of the same pages (the book's Markdown with its
``{{ … }}`` shortcodes taken out, the same theme, no hook and no plugin) built the same
three ways in the same run. Printed: each time, and the book's over the plain site's.

Targets (the author's loop): cold ≤ 60 s, unchanged ≤ 5 s, one-page edit in serve ≤ 3 s
(a full build re-renders every page, so an edit there costs an unchanged build); exit
status 1 when a target is missed (``.ci/run`` reports it, not fatal: a loaded CI machine is not a
performance lab).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from check_reproducible import (  # noqa: E402
    ROOT,
    build,
    build_env,
    copy_project,
    source_date_epoch,
)

TARGETS = {"cold": 60.0, "unchanged": 5.0, "edit in serve": 3.0}
EDITED = Path("docs/foundations/order-problem.md")
SHORTCODE = re.compile(r"\{\{.*?\}\}")


def plain_site(project: Path, folder: Path) -> Path:
    """A plain MkDocs project of the book's pages: their Markdown without shortcodes."""
    docs = folder / "docs"
    for page in sorted((project / "docs").rglob("*.md")):
        target = docs / page.relative_to(project / "docs")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(SHORTCODE.sub("", page.read_text(encoding="utf-8")), encoding="utf-8")
    (folder / "mkdocs.yml").write_text("site_name: plain\ntheme:\n  name: material\n")
    return folder


def edit(project: Path, n: int) -> None:
    """Append a paragraph to the edited page."""
    with (project / EDITED).open("a", encoding="utf-8") as page:
        page.write(f"\nAn edit, number {n}.\n")


def served_edit(project: Path, epoch: str, strict: bool, port: int) -> float:
    """Seconds from a one-page edit to the reload of ``mkdocs serve --dirty``."""
    env = build_env(project, epoch)
    mkdocs = Path(sys.executable).with_name("mkdocs")
    command = [str(mkdocs), "serve", "--dirty", "-a", f"127.0.0.1:{port}", *(["--strict"] * strict)]
    log = project.parent / f"serve-{port}.log"
    with log.open("w") as out:
        server = subprocess.Popen(command, cwd=project, env=env, stdout=out, stderr=out)
        try:
            _wait_for(log, "Serving on", 0, server)
            time.sleep(1.0)  # the watcher has started
            start, seen = time.perf_counter(), log.read_text().count("Reloading browsers")
            edit(project, 2)
            _wait_for(log, "Reloading browsers", seen, server)
            return time.perf_counter() - start
        finally:
            server.terminate()
            server.wait(30)


def _wait_for(log: Path, line: str, seen: int, server: subprocess.Popen) -> None:
    """Wait until ``log`` holds ``line`` more than ``seen`` times (at most 10 minutes)."""
    deadline = time.perf_counter() + 600
    while log.read_text().count(line) <= seen:
        if server.poll() is not None or time.perf_counter() > deadline:
            sys.exit(f"[bench_build] serve stopped or hung:\n{log.read_text()[-2000:]}")
        time.sleep(0.05)


def three_builds(project: Path, out: Path, epoch: str, strict: bool, port: int) -> dict:
    """Cold, unchanged, and a one-page edit in ``serve``: seconds each."""
    times = {"cold": build(project, out / "a", epoch, strict)}
    times["unchanged"] = build(project, out / "b", epoch, strict)
    edit(project, 1)
    times["edit in serve"] = served_edit(project, epoch, strict, port)
    return times


def main() -> int:
    epoch = source_date_epoch()
    with tempfile.TemporaryDirectory(prefix="pe-bench-build-") as tmp:
        project = copy_project(ROOT, Path(tmp) / "project")
        shutil.rmtree(project / ".cache", ignore_errors=True)
        plain = plain_site(project, Path(tmp) / "plain")
        limit = three_builds(plain, Path(tmp) / "plain-site", epoch, strict=False, port=8731)
        book = three_builds(project, Path(tmp) / "site", epoch, strict=True, port=8732)
    missed = []
    print("[bench_build] mkdocs build --strict, seconds (the plain site: the limit)")
    for case, target in TARGETS.items():
        ok = book[case] <= target
        missed += [] if ok else [case]
        print(
            f"  {case:<14} book {book[case]:6.1f}  plain {limit[case]:5.1f}  "
            f"ratio {book[case] / limit[case]:5.1f}  target ≤ {target:.0f} s: "
            f"{'met' if ok else 'MISSED'}"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
