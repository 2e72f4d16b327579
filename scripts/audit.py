#!/usr/bin/env python3
"""Lighthouse scores of every page of the built site (mobile emulation).

    .venv/bin/python scripts/audit.py                       # every page of site/
    .venv/bin/python scripts/audit.py --site DIR index.html modern/rope.html

Serves the built site on 127.0.0.1 (a free port; text gzip-compressed, as a static host
sends it), runs Lighthouse on each page ``--runs`` times (3 by default)
with the system Chromium (CHROME_PATH=/usr/bin/chromium) and prints a table of
the median of each of the four category scores over the runs (one run is too noisy to
judge a page by), then every audit of the median run that kept a score below 1 and why.
Targets: performance >= 0.95; accessibility, best practices and SEO = 1.00.
Exit status 1 when a page misses a target. Not part of the test suite.

Lighthouse comes from npm: ``npm install --prefix .cache/node lighthouse``
(done here on first use; .cache/ is not committed), or any ``lighthouse`` on PATH.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE_PREFIX = ROOT / ".cache" / "node"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
TARGETS = {"performance": 0.95, "accessibility": 1.0, "best-practices": 1.0, "seo": 1.0}


def _screenshots():
    spec = importlib.util.spec_from_file_location(
        "screenshots", ROOT / "scripts" / "screenshots.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lighthouse_command() -> list[str]:
    local = NODE_PREFIX / "node_modules" / ".bin" / "lighthouse"
    if not local.exists() and shutil.which("lighthouse"):
        return [shutil.which("lighthouse")]
    if not local.exists():
        print("[audit] installing lighthouse into .cache/node (first run only)", flush=True)
        subprocess.run(
            [
                "npm",
                "install",
                "--prefix",
                str(NODE_PREFIX),
                "--no-audit",
                "--no-fund",
                "lighthouse",
            ],
            check=True,
        )
    return [str(local)]


def audit(command: list[str], url: str, chromium: str, out: Path) -> dict:
    """Run Lighthouse on one URL; returns its JSON report."""
    env = dict(os.environ, CHROME_PATH=chromium)
    flags = " ".join(_screenshots().CHROMIUM_ARGS)
    result = subprocess.run(
        [
            *command,
            url,
            "--quiet",
            "--output=json",
            f"--output-path={out}",
            f"--only-categories={','.join(CATEGORIES)}",
            f"--chrome-flags={flags}",
            "--max-wait-for-load=60000",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0 or not out.exists():
        raise RuntimeError(f"lighthouse failed on {url}:\n{result.stderr[-2000:]}")
    return json.loads(out.read_text())


def shortfalls(report: dict) -> list[str]:
    """Audits of the four categories that did not get full marks, with their titles."""
    found = []
    for name in CATEGORIES:
        for ref in report["categories"][name]["auditRefs"]:
            item = report["audits"][ref["id"]]
            score = item.get("score")
            if ref.get("weight", 0) and score is not None and score < 1:
                value = item.get("displayValue", "")
                found.append(f"{name}: {item['id']} ({score:.2f}) {item['title']} {value}".rstrip())
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help="pages such as index.html modern/rope.html")
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--json", type=Path, help="also write all scores to this file")
    parser.add_argument("--runs", type=int, default=3, help="Lighthouse runs per page (3)")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").exists():
        print(f"no built site in {args.site}: run python3 scripts/book.py build", file=sys.stderr)
        return 2
    shots = _screenshots()
    pages = [shots.page_file(args.site, p) for p in args.pages] or shots.pages_of(args.site)
    command = lighthouse_command()
    server, base = shots.serve(args.site)
    rows, notes, missed = [], {}, 0
    try:
        with tempfile.TemporaryDirectory(prefix="pe-audit-") as tmp:
            for n, page in enumerate(pages):
                reports = [
                    audit(command, base + page, args.chromium, Path(tmp) / f"{n}-{k}.json")
                    for k in range(max(1, args.runs))
                ]
                runs = [{c: r["categories"][c]["score"] or 0 for c in CATEGORIES} for r in reports]
                scores = {c: statistics.median(run[c] for run in runs) for c in CATEGORIES}
                # the notes of the run whose performance is the median one
                ranked = sorted(range(len(runs)), key=lambda k: runs[k]["performance"])
                rows.append((page, scores))
                notes[page] = shortfalls(reports[ranked[len(ranked) // 2]])
                missed += any(scores[c] < TARGETS[c] for c in CATEGORIES)
                spread = ", ".join(f"{run['performance']:.2f}" for run in runs)
                print(
                    f"[audit] {page}: "
                    + "  ".join(f"{c} {scores[c]:.2f}" for c in CATEGORIES)
                    + f"  (performance per run: {spread})",
                    flush=True,
                )
    finally:
        server.shutdown()
        server.server_close()
    width = max(len(p) for p, _ in rows)
    print()
    print(f"| {'page':<{width}} | performance | accessibility | best practices | SEO  |")
    print(f"|{'-' * (width + 2)}|-------------|---------------|----------------|------|")
    for page, s in rows:
        print(
            f"| {page:<{width}} | {s['performance']:>11.2f} | {s['accessibility']:>13.2f} "
            f"| {s['best-practices']:>14.2f} | {s['seo']:>4.2f} |"
        )
    for page, found in notes.items():
        for line in found:
            print(f"[audit] {page}: {line}")
    if args.json:
        args.json.write_text(json.dumps(dict(rows), indent=1))
    print(f"[audit] {len(rows) - missed} of {len(rows)} pages meet every target")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
