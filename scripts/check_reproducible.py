#!/usr/bin/env python3
"""Check that the site builds byte for byte the same twice.

    .venv/bin/python scripts/check_reproducible.py [PROJECT_DIR]

Copies the project's files (what git tracks plus new files it does not ignore)
into a temporary directory, builds the site there twice with the same
``SOURCE_DATE_EPOCH`` (the last commit's time unless set): first with no
build cache at all (every figure drawn, every value and table computed), then
again with the cache the first build left. Every file of the two sites must be
identical; differing files are listed with the first place they differ. Exit
status 1 when anything differs.
Run by ``.ci/run``; takes about as long as two builds, one of them cold.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def project_files(root: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [name for name in listed.split("\0") if name and (root / name).is_file()]


def copy_project(source: Path, dest: Path) -> Path:
    for name in project_files(source):
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / name, target)
    return dest


def source_date_epoch() -> str:
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return os.environ["SOURCE_DATE_EPOCH"]
    stamp = subprocess.run(
        ["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return stamp or "0"


def build_env(project: Path, epoch: str) -> dict[str, str]:
    """The environment MkDocs runs in for ``project``: its sources first on the path."""
    return dict(
        os.environ,
        SOURCE_DATE_EPOCH=epoch,
        NO_MKDOCS_2_WARNING="1",
        PYTHONHASHSEED="0",
        PYTHONPATH=str(project),
    )


def build(project: Path, site: Path, epoch: str, strict: bool = True) -> float:
    """Seconds for ``mkdocs build`` of ``project`` into ``site``; exits on a failure."""
    env = build_env(project, epoch)
    mkdocs = Path(sys.executable).with_name("mkdocs")
    start = time.perf_counter()
    result = subprocess.run(
        [str(mkdocs), "build", "--quiet", "-d", str(site), *(["--strict"] * strict)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        sys.exit(f"build failed:\n{result.stdout}{result.stderr}")
    return time.perf_counter() - start


def first_difference(a: Path, b: Path) -> str:
    x, y = a.read_bytes(), b.read_bytes()
    at = next(
        (i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), min(len(x), len(y))
    )
    return (
        f"byte {at} of {len(x)}/{len(y)}: "
        f"{x[max(0, at - 40) : at + 40]!r} vs {y[max(0, at - 40) : at + 40]!r}"
    )


def compare(one: Path, two: Path) -> list[str]:
    files_one = {p.relative_to(one) for p in one.rglob("*") if p.is_file()}
    files_two = {p.relative_to(two) for p in two.rglob("*") if p.is_file()}
    problems = [f"only in the first build: {p}" for p in sorted(files_one - files_two)]
    problems += [f"only in the second build: {p}" for p in sorted(files_two - files_one)]
    for rel in sorted(files_one & files_two):
        if not filecmp.cmp(one / rel, two / rel, shallow=False):
            problems.append(f"differs: {rel} ({first_difference(one / rel, two / rel)})")
    return problems


def main(argv: list[str]) -> int:
    source = Path(argv[0]).resolve() if argv else ROOT  # another checkout of the project
    epoch = source_date_epoch()
    with tempfile.TemporaryDirectory(prefix="pe-repro-") as tmp:
        project = copy_project(source, Path(tmp) / "project")
        shutil.rmtree(project / ".cache", ignore_errors=True)
        cold = build(project, Path(tmp) / "one", epoch)
        warm = build(project, Path(tmp) / "two", epoch)
        problems = compare(Path(tmp) / "one", Path(tmp) / "two")
        count = sum(1 for p in (Path(tmp) / "one").rglob("*") if p.is_file())
    print(
        f"[repro] SOURCE_DATE_EPOCH={epoch}: build with no cache {cold:.1f} s, "
        f"with the cache {warm:.1f} s; {count} files compared"
    )
    for problem in problems:
        print(f"[repro] {problem}")
    if problems:
        print(f"[repro] FAIL: {len(problems)} difference(s) between two builds")
        return 1
    print("[repro] OK: the two sites are byte-identical")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
