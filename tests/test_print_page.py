"""The one-page book keeps every figure once, in its light variant (pe_book/print_page.py)."""

from __future__ import annotations

import pytest

from pe_book.print_page import (
    finish_print_page,
    light_figures_only,
    move_plugin_assets,
    sources_beside_images,
    with_assets,
)


def _picture(name: str, theme: str) -> str:
    return (
        f'<picture><source media="(max-width: 600px)" '
        f'srcset="assets/figures/{name}-{theme}-phone.svg" width="420" height="400">'
        f'<img src="assets/figures/{name}-{theme}.svg#only-{theme}" alt="A figure of {name}." '
        f'width="640" height="320"></picture>'
    )


def _figure(name: str) -> str:
    return (
        f'<figure id="fig-{name}">\n  {_picture(name, "light")}\n  {_picture(name, "dark")}\n'
        f"  <figcaption>Figure of {name}</figcaption>\n</figure>\n"
    )


PAGE = (
    "<html><body><p>Text before.</p>\n"
    + _figure("rope_pairs")
    + "<p>Between.</p>\n"
    + _figure("alibi_slopes")
    + '<img src="assets/figures/old-light.svg#only-light" alt="Lone light image.">\n'
    + '<img src="assets/figures/old-dark.svg#only-dark" alt="Lone dark image.">\n'
    + '<img src="assets/images/logo.png" alt="Not a figure.">\n'
    + "</body></html>"
)
PAGE = PAGE.replace("<html><body>", "<html><head><title>Book</title></head><body>")


def test_dark_variants_go_and_everything_else_stays():
    out = light_figures_only(PAGE)
    assert "-dark" not in out and "#only-dark" not in out
    for name in ("rope_pairs", "alibi_slopes"):
        assert out.count(f"{name}-light.svg#only-light") == 1
        assert out.count(f"{name}-light-phone.svg") == 1
        assert f"<figcaption>Figure of {name}</figcaption>" in out
    assert out.count("<picture>") == 2 and out.count("</picture>") == 2
    assert "old-light.svg#only-light" in out and "logo.png" in out
    assert "Text before." in out and "Between." in out
    assert out == light_figures_only(out)


def test_a_figure_without_its_light_variant_fails():
    page = "<body>" + _picture("only_dark", "dark") + "</body>"
    with pytest.raises(ValueError, match="only_dark"):
        light_figures_only(page)


def test_the_built_page_is_rewritten_in_place(tmp_path):
    solution = '<details class="success"><summary>Solution</summary>x = 1</details>'
    (tmp_path / "print_page.html").write_text(PAGE + solution, encoding="utf-8")
    assert finish_print_page(tmp_path)
    printed = (tmp_path / "print_page.html").read_text(encoding="utf-8")
    assert "#only-dark" not in printed
    assert '<details class="success" open><summary>Solution</summary>' in printed
    assert not finish_print_page(tmp_path / "elsewhere")


def test_print_site_assets_leave_every_page_and_come_back_on_its_own():
    config = {
        "extra_css": ["css/print-site.css", "css/print-site-material.css", "assets/book.css"],
        "extra_javascript": ["js/print-site.js", "assets/book.js"],
    }
    moved = move_plugin_assets(config)
    assert config == {"extra_css": ["assets/book.css"], "extra_javascript": ["assets/book.js"]}
    assert moved == {
        "css": ["css/print-site.css", "css/print-site-material.css"],
        "js": ["js/print-site.js"],
    }
    page = with_assets(PAGE, **moved)
    head = page.split("</head>")[0]
    assert '<link rel="stylesheet" href="css/print-site.css">' in head
    assert '<link rel="stylesheet" href="css/print-site-material.css">' in head
    assert '<script src="js/print-site.js" defer></script>' in head
    assert with_assets(page, **moved) == page


def test_the_built_page_gets_the_plugin_assets(tmp_path):
    (tmp_path / "print_page.html").write_text(PAGE, encoding="utf-8")
    finish_print_page(tmp_path, css=["css/print-site.css"], js=["js/print-site.js"])
    page = (tmp_path / "print_page.html").read_text(encoding="utf-8")
    assert 'href="css/print-site.css"' in page and 'src="js/print-site.js"' in page


def test_phone_sources_point_where_their_images_point():
    # print-site rewrote the <img> of a chapter in foundations/ for the root page, not the
    # srcset: ../assets/figures/… would leave the site
    picture = _picture("rope_pairs", "light").replace(
        'srcset="assets/figures/', 'srcset="../assets/figures/'
    )
    fixed = sources_beside_images(f"<p>{picture}</p>")
    assert 'srcset="assets/figures/rope_pairs-light-phone.svg"' in fixed
    assert fixed == f"<p>{_picture('rope_pairs', 'light')}</p>"
    assert sources_beside_images(PAGE) == PAGE
