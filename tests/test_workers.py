"""The build's heavy work in worker processes (pe_book.workers): which pages get a job,
which figures go with them, and what a page's job leaves in the build cache."""

from __future__ import annotations

import json

from pe_book import build_cache, workers

KEY = "value:context_extension.yarn_low"
PAGE = "A value: {{ value: context_extension.yarn_low }}.\n\n{{ figure: rope_decay }}\n"


def _variants(name: str, folder) -> list[tuple[str, str, str, str]]:
    return [
        (name, t, layout, str(folder)) for t in ("light", "dark") for layout in ("wide", "phone")
    ]


def test_a_page_needs_a_worker_until_every_text_it_shows_is_kept(tmp_path):
    cache = build_cache.BuildCache(tmp_path)
    assert workers.needs_work(PAGE, "modern/page.md", cache)
    workers._warm_page("modern/page.md", PAGE, str(tmp_path))  # the value, alt, caption
    assert not workers.needs_work(PAGE, "modern/page.md", cache)


def test_a_page_shares_its_job_with_the_figures_it_shows_and_comes_first(tmp_path):
    cache = build_cache.BuildCache(tmp_path)
    figures = {n: _variants(n, tmp_path) for n in ("alibi_bias_per_head", "rope_decay")}
    jobs = workers.plan(cache, {"modern/page.md": PAGE, "other.md": "No values."}, figures)
    assert jobs == [
        (figures["rope_decay"], ("modern/page.md", PAGE, str(tmp_path))),
        (figures["alibi_bias_per_head"], None),
    ]
    assert set(figures) == {"alibi_bias_per_head", "rope_decay"}  # the caller's map is kept


def test_a_pages_job_keeps_its_texts_and_says_why_it_computed_one_again(tmp_path):
    assert workers._warm_page("modern/page.md", PAGE, str(tmp_path)) == {}
    text, why = build_cache.BuildCache(tmp_path).lookup(KEY)
    assert why is None and text
    (path,) = (tmp_path / "value").glob("*.json")
    entry = json.loads(path.read_text())
    entry["files"]["pe_explained/rope.py"] = "0" * 64
    path.write_text(json.dumps(entry))
    recomputed = workers._warm_page("modern/page.md", PAGE, str(tmp_path))
    assert recomputed == {KEY: "pe_explained/rope.py changed"}


def test_a_broken_shortcode_is_left_to_the_pages_own_rendering(tmp_path):
    page = "{{ value: context_extension.no_such_value }}"
    assert workers._warm_page("modern/page.md", page, str(tmp_path)) == {}
    assert not workers.needs_work(page, "modern/page.md", build_cache.BuildCache(tmp_path))
