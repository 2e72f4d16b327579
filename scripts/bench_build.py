#!/usr/bin/env python3
"""Benchmark: the author's loop, against a plain MkDocs site built in the same run.

    .venv/bin/python scripts/bench_build.py

In a copy of the project (what git tracks, no ``.cache/``), ``mkdocs build --strict``
three times: cold (no build cache, notebooks executed), with nothing changed, and after a
prose edit of one page (a blank line appended to ``docs/foundations/order-problem.md``).
The limit: a plain MkDocs site of the same pages (the book's Markdown with its
``{{ … }}`` shortcodes taken out, the same theme, no hook and no plugin) built the same
three ways in the same run. Printed: each time, and the book's over the plain site's.

Targets (the author's loop): cold ≤ 60 s, unchanged ≤ 5 s, one-page edit ≤ 3 s. A full
build re-renders every page, so an edit costs an unchanged build; exit status 1 when a
target is missed (``.ci/run`` reports it, not fatal: a loaded CI machine is not a
performance lab).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from check_reproducible import ROOT, copy_project, source_date_epoch  # noqa: E402

TARGETS = {"cold": 60.0, "unchanged": 5.0, "one-page edit": 3.0}
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


def build(project: Path, site: Path, epoch: str, strict: bool) -> float:
    """Seconds for ``mkdocs build`` of ``project`` into ``site`` (the book: strict; the
    plain site's links to figures it lacks are warnings, not failures)."""
    env = dict(os.environ, SOURCE_DATE_EPOCH=epoch, NO_MKDOCS_2_WARNING="1", PYTHONHASHSEED="0")
    env["PYTHONPATH"] = str(project)
    mkdocs = Path(sys.executable).with_name("mkdocs")
    command = [str(mkdocs), "build", "--quiet", "-d", str(site), *(["--strict"] * strict)]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"[bench_build] build of {project} failed:\n{done.stdout}{done.stderr}")
    return time.perf_counter() - start


def three_builds(project: Path, out: Path, epoch: str, strict: bool) -> dict[str, float]:
    """Cold, unchanged and after a one-page edit: seconds each."""
    times = {"cold": build(project, out / "a", epoch, strict)}
    times["unchanged"] = build(project, out / "b", epoch, strict)
    with (project / EDITED).open("a", encoding="utf-8") as page:
        page.write("\n")
    times["one-page edit"] = build(project, out / "c", epoch, strict)
    return times


def main() -> int:
    epoch = source_date_epoch()
    with tempfile.TemporaryDirectory(prefix="pe-bench-build-") as tmp:
        project = copy_project(ROOT, Path(tmp) / "project")
        shutil.rmtree(project / ".cache", ignore_errors=True)
        plain = plain_site(project, Path(tmp) / "plain")
        limit = three_builds(plain, Path(tmp) / "plain-site", epoch, strict=False)
        book = three_builds(project, Path(tmp) / "site", epoch, strict=True)
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
