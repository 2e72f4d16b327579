"""The build's heavy work, shared by the cores before MkDocs renders a page.

Drawing the figures and computing the pages' values and tables is most of a cold build.
:func:`prepare` hands both to one worker process per core, as jobs:

* a page whose computed texts (values, tables, captions, alt texts) the build cache
  lacks, with the figures it shows that the cache lacks: the worker expands the page's
  shortcodes (:func:`pe_book.pages.expand_shortcodes`) into the cache and throws the
  Markdown away, and draws the figures, so that what the chapter module computes once
  (``functools.cache``) serves the page and its figures in one process;
* a figure shown by no such page: its variants (:func:`pe_book.render.render_variant`).

What a worker computes lands in the build cache (:class:`~pe_book.build_cache.BuildCache`),
where MkDocs' rendering of each page then finds it. A worker sends back the figures'
SVG, what its modules read (:func:`~pe_book.build_cache.reads`) and why it computed each
page's entry again, for the build's log. A page's shortcode that fails in a worker is
left for the main process, which fails on it with the page's name.

A page is probed first in the main process, with lookups only: a build that finds every
entry kept starts no worker for it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

from . import FIGURES, load_all
from .build_cache import BuildCache, reads
from .render import LAYOUTS, _render_cached
from .style import THEMES

__all__ = ["needs_work", "plan", "prepare"]

_FIGURE = re.compile(r"\{\{\s*figure\s*:\s*([\w-]+)\s*\}\}")

#: One job: the figure variants to draw (``(name, theme, layout, cache folder)``), and the
#: page to expand (``(uri, markdown, cache folder)``) or None.
Job = tuple[list[tuple[str, str, str, str]], tuple[str, str, str] | None]


class _AnySize(dict):
    """Figure sizes for a page expanded only for its computed texts: any figure, 0 × 0."""

    def __missing__(self, key):
        return (0, 0)


class _Missing(Exception):
    """A page's probe met an entry the build cache does not have."""


def _expand(markdown: str, uri: str, cached) -> None:
    from .pages import expand_shortcodes  # the page pipeline imports the renderer

    expand_shortcodes(markdown, uri, _AnySize(), cached)


def needs_work(markdown: str, uri: str, cache: BuildCache) -> bool:
    """Whether page ``uri`` shows a computed text that ``cache`` does not hold (or holds
    from changed files), found by expanding its shortcodes with lookups only."""

    def probe(key, compute, stamp=""):
        text, _ = cache.lookup(key, stamp)
        if text is None:
            raise _Missing(key)
        return text

    try:
        _expand(markdown, uri, probe)
    except _Missing:
        return True
    except Exception:  # a broken shortcode: the page's own rendering reports it
        return False
    return False


def _warm_page(uri: str, markdown: str, folder: str) -> dict[str, str]:
    """Page ``uri``'s computed texts, into the build cache in ``folder``; each entry
    computed again, with why."""
    cache = BuildCache(folder)
    try:
        _expand(markdown, uri, cache.text)
    except Exception:  # reported by the main process, which computes the page again
        pass
    return cache.recomputed


def _run(job: Job) -> tuple[list[bytes], dict, dict]:
    """One job in a worker: its figures' SVG, what the process's modules read, and its
    page's recomputed entries."""
    figures, page = job
    recomputed = _warm_page(*page) if page is not None else {}
    return [_render_cached(f) for f in figures], reads(), recomputed


def plan(cache: BuildCache, pages: Mapping[str, str], figures: dict[str, list]) -> list[Job]:
    """The jobs: each page of ``pages`` (``{uri: markdown}``) that :func:`needs_work`, with
    the variants it shows of ``figures`` (``{name: [variant job, …]}``, the ones to draw),
    most figures first; then each figure left, alone."""
    left = dict(figures)
    jobs: list[Job] = []
    for uri, markdown in sorted(pages.items()):
        if needs_work(markdown, uri, cache):
            shown = dict.fromkeys(_FIGURE.findall(markdown))
            drawn = [f for name in shown for f in left.pop(name, [])]
            jobs.append((drawn, (uri, markdown, str(cache.folder))))
    jobs.sort(key=lambda job: -len(job[0]))
    return jobs + [(drawn, None) for drawn in left.values()]


def prepare(cache: BuildCache, pages: Mapping[str, str] = {}) -> dict[tuple[str, str, str], bytes]:
    """Every registered figure in both palettes and both layouts, keyed ``(name, theme,
    layout)``, from ``cache`` where possible; and the computed texts of ``pages``
    (``{uri: markdown}``) put in ``cache`` where it lacks them.

    The work goes to one process per core, the jobs with a page first, the most figures
    first among them; ``cache.recomputed`` gets each figure variant drawn again and each
    entry a page computed again, with why.
    """
    load_all()
    folder = str(cache.folder)
    variants = [(n, t, layout) for n in sorted(FIGURES) for t in THEMES for layout in LAYOUTS]
    found: dict[tuple[str, str, str], bytes] = {}
    missing: dict[str, list] = {}
    for variant in variants:
        key = "figure:" + "/".join(variant)
        text, why = cache.lookup(key)
        if text is None:
            missing.setdefault(variant[0], []).append((*variant, folder))
            if why:
                cache.recomputed[key] = why
        else:
            found[variant] = text.encode()
    jobs = plan(cache, pages, missing)
    workers = min(os.cpu_count() or 1, len(jobs))
    if workers > 1 and len(jobs) > 2:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            done = list(pool.map(_run, jobs))
        for _, read, _ in done:
            for module, files in read.items():
                reads().setdefault(module, set()).update(files)
    else:
        done = [_run(job) for job in jobs]
    for (figures, _), (svgs, _, recomputed) in zip(jobs, done, strict=True):
        found.update((f[:3], svg) for f, svg in zip(figures, svgs, strict=True))
        cache.recomputed.update(recomputed)
    return {variant: found[variant] for variant in variants}
