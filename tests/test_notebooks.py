"""The companion notebooks run, and their pages are trimmed, stable and checked.

Every ``docs/notebooks/*.py`` is read with jupytext and executed with nbclient in
the kernel the build uses (the venv's Python).
"""

from __future__ import annotations

import json
import re
import sys
import time
import warnings
from pathlib import Path

import pytest
from browser_support import mkdocs_config

from pe_book.notebooks import download_name, is_notebook, notebook_json, read_notebook
from pe_book.pages import BookError
from pe_book.pages.loading import NOTEBOOK_CSS
from pe_book.pages.notebook import finish_html, plot_files, relative_url

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SOURCES = sorted((DOCS / "notebooks").glob("*.py"))
SITE = "https://pe-explained.github.io/pe_explained/"
TIMEOUT = 60  # seconds per cell; a notebook takes a few seconds in all


# Run before each notebook in the tests' shared kernel: a fresh namespace, and figures
# created and laid out but not rendered to PNG (the build renders them). One kernel
# for all notebooks keeps the tests fast; the build gives each notebook its own.
PREAMBLE = "%reset -f\n%matplotlib inline\n%config InlineBackend.figure_formats = set()"


@pytest.fixture(scope="module")
def executed():
    """Every notebook executed in one kernel, each after :data:`PREAMBLE`, with its time."""
    import nbclient
    import nbformat

    notebooks = {source.name: read_notebook(source) for source in SOURCES}
    cells = []
    for number, (name, notebook) in enumerate(notebooks.items()):
        cells.append((name, nbformat.v4.new_code_cell(PREAMBLE)))
        cells += [(name, cell) for cell in notebook.cells]
        for cell in notebook.cells:  # ids unique across the combined notebook
            cell["id"] = f"{number}-{cell['id']}"
    combined = nbformat.v4.new_notebook(cells=[cell for _, cell in cells])
    client = nbclient.NotebookClient(
        combined,
        timeout=TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT)}},
    )
    seconds = dict.fromkeys(notebooks, 0.0)
    with warnings.catch_warnings():  # Jupyter's own deprecations do not concern the book
        warnings.simplefilter("ignore", DeprecationWarning)
        with client.setup_kernel():
            for index, (name, cell) in enumerate(cells):
                start = time.perf_counter()
                try:
                    client.execute_cell(cell, index)
                except nbclient.exceptions.CellExecutionError as error:
                    pytest.fail(f"{name}, cell {cell.get('id')}: {error}")
                seconds[name] += time.perf_counter() - start
    return {name: (notebook, seconds[name]) for name, notebook in notebooks.items()}


def test_there_is_a_notebook_for_every_part():
    names = [s.stem for s in SOURCES]
    for part in ("part1-", "part2-", "part3-", "part4-"):
        assert any(n.startswith(part) for n in names), f"no notebook for {part}"


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_notebook_runs_without_errors_or_warnings(executed, source):
    notebook, seconds = executed[source.name]
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", f"{cell.id}: {output.get('ename')}"
            assert output.get("name") != "stderr", f"{cell.id} wrote to stderr: {output.text}"
    assert seconds < 20, f"{source.name} took {seconds:.1f} s"


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_every_plot_has_alt_text(executed, source):
    notebook, _ = executed[source.name]
    plots = 0
    for cell in notebook.cells:
        shown = [
            o
            for o in cell.get("outputs", [])
            if o.get("data", {}).get("text/plain", "").startswith("<Figure size")
        ]
        if shown:
            plots += 1
            assert len(cell.metadata.get("alt", "")) >= 40, f"{cell.id} draws without alt text"
            assert cell.metadata.get("caption"), f"{cell.id} draws without a caption"
        elif "alt" in cell.metadata or "caption" in cell.metadata:
            pytest.fail(f"{cell.id} has alt text or a caption but shows no figure")
    assert plots >= 1
    prose = " ".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    uncited = [n for n in range(1, plots + 1) if not re.search(rf"\bFigure {n}\b", prose)]
    assert not uncited, f"figures never cited by number in the prose: {uncited}"


def test_kernel_is_the_python_running_the_build():
    from jupyter_client.manager import KernelManager

    manager = KernelManager(kernel_name="python3")
    assert manager.format_kernel_cmd()[0] == sys.executable


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_download_is_stable_valid_and_without_outputs(source):
    text = notebook_json(source)
    assert text == notebook_json(source), "two reads must give the same .ipynb"
    notebook = json.loads(text)
    ids = [cell["id"] for cell in notebook["cells"]]
    assert ids == [f"cell-{i:02d}" for i in range(len(ids))]
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    assert all(not c.get("outputs") for c in notebook["cells"] if c["cell_type"] == "code")
    assert notebook["cells"][0]["cell_type"] == "markdown"
    assert "".join(notebook["cells"][0]["source"]).startswith("# ")


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_links_to_the_book_name_existing_pages_as_the_site_serves_them(source):
    """``use_directory_urls: false``: a page is ``a/b.html`` (the downloaded notebook
    follows its links as written; tests/test_notebook_downloads.py checks the build's)."""
    assert mkdocs_config()["use_directory_urls"] is False
    for target in re.findall(re.escape(SITE) + r"([\w/.-]*)", source.read_text(encoding="utf-8")):
        if not target:  # the site's root (the install cell's SITE)
            continue
        assert target.endswith(".html"), f"{target}: write {target.rstrip('/')}.html"
        assert (DOCS / target).with_suffix(".md").exists(), target


def test_every_notebook_is_in_the_nav_and_executed_strictly():
    config = mkdocs_config()
    text = json.dumps(config["nav"])
    for source in SOURCES:
        assert f"notebooks/{source.name}" in text, f"{source.name} is not in the nav"
    plugins = [p for p in config["plugins"] if isinstance(p, dict) and "mkdocs-jupyter" in p]
    assert plugins, "the mkdocs-jupyter plugin is not configured"
    options = plugins[0]["mkdocs-jupyter"]
    assert options["execute"] is True and options["allow_errors"] is False
    # the notebooks' styles are linked on their pages only (pe_book/pages/loading.py)
    assert "assets/stylesheets/notebooks.css" not in config["extra_css"]
    assert (ROOT / "docs" / NOTEBOOK_CSS).is_file()


def test_notebook_paths():
    assert is_notebook("notebooks/part1-foundations.py")
    assert not is_notebook("notebooks/index.md") and not is_notebook("foundations/x.py")
    assert download_name("notebooks/part1-foundations.py") == "notebooks/part1-foundations.ipynb"
    with pytest.raises(ValueError, match="src_uri"):
        download_name("foundations/sinusoidal.md")
    assert relative_url("foundations/sinusoidal.html", "notebooks/a.html") == (
        "../foundations/sinusoidal.html"
    )


# A minimal page as mkdocs-jupyter renders it: inlined CSS and scripts, random cell ids.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAAAAACcgYFdAAAAC0lEQVR4nGNggAIAAAkAAftSuKkAAAAASUVORK5CYII="
RENDERED = f"""<style>.jp-Cell {{ color: red }}</style><script>var x;</script>
<div class="jupyter-wrapper"><div class="jp-Notebook">
<div class="jp-Cell jp-MarkdownCell jp-Notebook-cell" id="cell-id=9f3a01bc">
<h1>Title</h1><p><a href="{SITE}foundations/sinusoidal.html#why">see</a>
<a href="https://example.org/">elsewhere</a></p></div>
<div class="jp-Cell jp-CodeCell jp-Notebook-cell">
<div class="jp-Cell jp-CodeCell jp-Notebook-cell" id="cell-id=77aa0e1d">
<div class="jp-Collapser"></div>
<div class="highlight-ipynb hl-python"><pre><span></span><span class="n">x</span></pre></div>
<div class="zeroclipboard-container">copy</div><div class="clipboard-copy-txt">x</div>
<div class="jp-RenderedImage jp-OutputArea-output">\
<img class="" src="data:image/png;base64,{PNG}"/></div>
</div></div></div></div>"""
PAGES = {"foundations/sinusoidal.md": "foundations/sinusoidal.html", "index.md": "index.html"}


def _notebook(alt: str, caption: str = "A plot of $x$ against d_model."):
    import nbformat

    cells = [nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell("x")]
    cells[1].metadata["alt"] = alt
    if caption:
        cells[1].metadata["caption"] = caption
    for index, cell in enumerate(cells):
        cell["id"] = f"cell-{index:02d}"
    return nbformat.v4.new_notebook(cells=cells)


def _finish(notebook, html=RENDERED):
    return finish_html(
        html,
        notebook,
        page="notebooks/demo.py",
        page_url="notebooks/demo.html",
        site_url=SITE,
        page_urls=PAGES,
    )


def test_finished_page_is_trimmed_stable_and_has_a_download_link():
    alt = "A plot of x against y that shows nothing in particular at all."
    out = _finish(_notebook(alt))
    assert "<style" not in out and "<script" not in out and "clipboard" not in out
    assert "cell-id=" not in out and 'id="cell-00"' in out and 'id="cell-01"' in out
    assert f'alt="{alt}"' in out and 'width="2"' in out and 'height="3"' in out
    assert 'href="../foundations/sinusoidal.html#why"' in out
    assert 'href="https://example.org/"' in out
    assert re.search(r'<a class="md-button" download="" href="demo.ipynb">', out)
    assert '<div class="highlight"><pre><code><span></span><span class="n">x</span></code>' in out
    assert out == _finish(_notebook(alt))


def test_plots_move_out_of_the_page_into_files_loaded_lazily():
    import base64

    alt = "A plot of x against y that shows nothing in particular at all."
    finished = _finish(_notebook(alt))
    page, plots = plot_files(finished, "notebooks/demo.py", "notebooks/demo.html")
    assert list(plots) == ["notebooks/plots/demo-1.png"]
    assert _pixels(plots["notebooks/plots/demo-1.png"]) == _pixels(base64.b64decode(PNG))
    assert "data:image" not in page
    (image,) = re.findall(r"<img\b[^>]*>", page)
    for attribute in ('src="plots/demo-1.png"', 'loading="lazy"', f'alt="{alt}"', 'width="2"'):
        assert attribute in image
    assert page.replace(image, "") == finished.replace(re.search(r"<img\b[^>]*>", finished)[0], "")
    assert plot_files(page, "notebooks/demo.py", "notebooks/demo.html") == (page, {})


def test_a_plot_made_smaller_once_is_read_back_from_the_cache(tmp_path, monkeypatch):
    """With a cache folder, plot_files gives the same bytes, and a second build reads
    them back instead of encoding the PNG again."""
    from pe_book.pages import notebook

    finished = _finish(_notebook("A plot of x against y that shows nothing at all, twice."))
    plain = plot_files(finished, "notebooks/demo.py", "notebooks/demo.html")
    kept = plot_files(finished, "notebooks/demo.py", "notebooks/demo.html", tmp_path)
    assert kept == plain and len(list(tmp_path.glob("*.png"))) == 1

    def no_encoding(*args):
        raise AssertionError("encoded again")

    monkeypatch.setattr(notebook, "_smaller_png", no_encoding)
    assert plot_files(finished, "notebooks/demo.py", "notebooks/demo.html", tmp_path) == plain
    with pytest.raises(AssertionError, match="encoded again"):  # the harness sees an encoding
        plot_files(finished, "notebooks/demo.py", "notebooks/demo.html", tmp_path / "new")


#: A 4 × 6 PNG: the phone drawing of the test's 2 × 3 plot.
PHONE_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAGCAAAAADBUmCpAAAAEUlEQVR4nGNs"
    "YGBgYGLAQQAAD1IAjIUL/0cAAAAASUVORK5CYII="
)


def test_a_plot_with_a_phone_drawing_becomes_a_picture_with_a_phone_source():
    """The build's kernels draw each plot for a phone too (pe_book.notebooks.phone_png);
    the page shows it under 600 px through a <picture>, sized at two pixels a CSS pixel,
    and both images move into files of their own."""
    import base64

    from pe_book.notebooks import with_phone_plots

    alt = "A plot of x against y that shows nothing in particular at all."
    html = with_phone_plots(RENDERED, [PHONE_PNG])
    page, plots = plot_files(
        _finish(_notebook(alt), html), "notebooks/demo.py", "notebooks/demo.html"
    )
    assert list(plots) == ["notebooks/plots/demo-1-phone.png", "notebooks/plots/demo-1.png"]
    assert _pixels(plots["notebooks/plots/demo-1-phone.png"]) == _pixels(
        base64.b64decode(PHONE_PNG)
    )
    picture = re.search(r"<picture>(.*?)</picture>", page, re.S).group(1)
    source, image = re.findall(r"<(?:source|img)\b[^>]*>", picture)
    for attribute in (
        'media="(max-width: 600px)"',
        'srcset="plots/demo-1-phone.png"',
        'width="2"',
        'height="3"',
    ):
        assert attribute in source
    assert 'src="plots/demo-1.png"' in image and "data-phone-png" not in page
    with pytest.raises(ValueError, match="shows 1 plots, the notebook drew 2"):
        with_phone_plots(RENDERED, [PHONE_PNG, None])


def test_a_phone_drawing_stacks_a_row_of_panels_and_leaves_the_figure_as_it_was():
    """phone_png draws a figure 3.4 inches wide, a row of panels as a column, a legend
    under its panel, and gives the figure back with its size, panels, legend and labels."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image

    from pe_book.notebooks import PHONE_PLOT_DPI, PHONE_PLOT_INCHES, phone_png, use_notebook_style

    use_notebook_style()
    fig, axes = plt.subplots(1, 2, figsize=(7, 3))
    for ax in axes:
        ax.plot([0, 1], [0, 1], label="a line")
        ax.set_ylabel("a label far longer than a phone panel is tall")
    axes[0].legend(loc="lower right")
    fig.canvas.draw()
    before = [ax.get_position().bounds for ax in axes]
    with Image.open(io.BytesIO(phone_png(fig))) as image:
        width, height = image.size
    assert width < 1.15 * PHONE_PLOT_INCHES * PHONE_PLOT_DPI and height > width  # stacked
    fig.canvas.draw()
    assert tuple(fig.get_size_inches()) == (7, 3)
    assert [ax.get_position().bounds for ax in axes] == before
    assert axes[0].get_legend()._loc == 4 and "\n" not in axes[0].get_ylabel()
    plt.close(fig)


def _pixels(png: bytes):
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        return image.size, image.convert("RGBA").tobytes()


def test_plot_files_are_the_same_pixels_in_fewer_bytes():
    import base64
    import io

    import matplotlib
    import numpy as np

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4, 2.5), dpi=100, facecolor="white")
    fig.subplots().plot(np.linspace(0, 6, 200), np.sin(np.linspace(0, 6, 200)))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", facecolor="white")
    png = buffer.getvalue()
    html = f'<img alt="a" src="data:image/png;base64,{base64.b64encode(png).decode()}"/>'
    _, plots = plot_files(html, "notebooks/demo.py", "notebooks/demo.html")
    (stored,) = plots.values()
    assert _pixels(stored) == _pixels(png)
    assert len(stored) < 0.95 * len(png)


def test_metadata_jupytext_cannot_read_fails_loudly(tmp_path):
    source = tmp_path / "demo.py"
    source.write_text('# %% [markdown]\n# # Title\n\n# %% alt="a" caption=unquoted words\nx = 1\n')
    with pytest.raises(ValueError, match="cell 1 .*metadata jupytext cannot read"):
        read_notebook(source)


def test_plot_without_alt_text_fails_the_build():
    with pytest.raises(BookError, match="cell-01.*alt text"):
        _finish(_notebook(""))


def test_a_plot_is_a_numbered_figure_with_its_caption_in_the_books_notation():
    out = _finish(_notebook("A plot of x against y that shows nothing in particular at all."))
    figure = re.search(r'<figure class="nb-figure" id="figure-1">(.*?)</figure>', out, re.S)
    assert figure, out
    assert "jp-RenderedImage" in figure.group(1) and "<img" in figure.group(1)
    caption = re.search(r"<figcaption>(.*?)</figcaption>", figure.group(1), re.S).group(1)
    assert '<span class="caption-number">Figure\u00a01</span>' in caption  # never broken
    assert caption.count("<math") == 2  # $x$, and d_model set as the glossary's d_model
    with pytest.raises(BookError, match="cell-01.*caption"):
        _finish(_notebook("A plot of x against y that shows nothing in particular at all.", ""))


def test_link_to_a_missing_page_fails_the_build():
    html = RENDERED.replace("foundations/sinusoidal.html#why", "foundations/nope/")
    with pytest.raises(BookError, match="foundations/nope/ is not a page"):
        _finish(_notebook("A plot of x against y that shows nothing in particular at all."), html)


def test_link_in_a_form_the_site_does_not_serve_fails_the_build():
    """The download keeps a link as written: a folder-style link is a 404 on a site built
    with ``use_directory_urls: false``, though the page's relative link would work."""
    html = RENDERED.replace("foundations/sinusoidal.html#why", "foundations/sinusoidal/#why")
    with pytest.raises(BookError, match="serves as .*foundations/sinusoidal.html"):
        _finish(_notebook("A plot of x against y that shows nothing in particular at all."), html)


def test_cells_must_match_the_notebook():
    notebook = _notebook("A plot of x against y that shows nothing in particular at all.")
    notebook.cells.append(notebook.cells[0].copy())
    with pytest.raises(BookError, match="2 cells, the notebook has 3"):
        _finish(notebook)


def test_printed_chunks_become_one_output(tmp_path):
    """A kernel may send one cell's text in several chunks; the build's execution merges them,
    so the page does not depend on timing."""
    from pe_book.notebooks import execute_notebook

    source = tmp_path / "chunks.py"
    source.write_text(
        "# %%\nimport time\nprint('a', flush=True)\ntime.sleep(0.3)\nprint('b')\n",
        encoding="utf-8",
    )
    notebook = execute_notebook(source)
    (cell,) = [c for c in notebook.cells if c.cell_type == "code"]
    assert [o.output_type for o in cell.outputs] == ["stream"]
    assert cell.outputs[0].text == "a\nb\n"


def test_the_builds_kernels_draw_every_plot_for_a_phone_unasked(tmp_path):
    """No line of a notebook asks for the phone drawings (a reader's kernel has no
    pe_book): the build starts its kernels with them, and they outlive the inline
    backend's set-up, which takes figures off every formatter."""
    from pe_book.notebooks import PHONE_PLOT_MIME, execute_notebook, take_phone_plots

    source = tmp_path / "plots.py"
    source.write_text(
        "# %%\n# %matplotlib inline\nimport matplotlib.pyplot as plt\n\n"
        "# %%\nplt.plot([0, 1])\n\n# %%\nplt.figure()\nplt.plot([1, 0])\n",
        encoding="utf-8",
    )
    notebook = execute_notebook(source)
    phones = take_phone_plots(notebook)
    assert len(phones) == 2 and None not in phones
    assert all(PHONE_PLOT_MIME not in o.get("data", {}) for c in notebook.cells for o in c.outputs)


def test_markdown_math_becomes_the_chapters_mathml():
    from pe_book.pages.mathml import render_math
    from pe_book.text import inline_math_html

    text = "angle $\\theta = pos \\cdot \\omega_i$ & <more>"
    html = render_math(inline_math_html(text, plain=True), "nb")
    assert "<math" in html and "&amp; &lt;more&gt;" in html and "$" not in html


_CODE_FORMULA = re.compile(r"`[^`\n]*(?:omega|theta|π|Σ|√|·)[^`\n]*`")


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_markdown_cells_write_formulas_as_math_not_code(source):
    """Prose formulas are $…$ (MathML, as in the chapters); code font is for code."""
    from pe_book.notebooks import read_notebook

    cells = [c.source for c in read_notebook(source).cells if c.cell_type == "markdown"]
    found = [m.group(0) for text in cells for m in _CODE_FORMULA.finditer(text)]
    assert not found, f"{source.name}: {found}"


#: A straight quote mark outside code, math and link targets: the chapters' Markdown
#: sets curly ones (smarty); the notebooks' prose is typed with them.
_VERBATIM = re.compile(r"`[^`]*`|\$[^$]*\$|\]\([^)]*\)")


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_markdown_cells_use_curly_quotes(source):
    from pe_book.notebooks import read_notebook

    cells = [c.source for c in read_notebook(source).cells if c.cell_type == "markdown"]
    found = [
        line
        for text in cells
        for line in text.splitlines()
        if re.search("['\"]", _VERBATIM.sub("", line))
    ]
    assert not found, f"{source.name}: {found}"


def test_loading_inserts_the_scripts_from_the_end_and_links_notebook_styles_on_their_pages():
    """The page's scripts leave its markup for one inline loader at the end of the body,
    which inserts them in their order (the stand-in, the theme's, the book's); the marks
    the theme's script sets as it starts are set as the body starts."""
    from pe_book.pages.loading import finish_output

    page = (
        '<head><link rel="stylesheet" href="../assets/stylesheets/book.css"></head><body>'
        '<script src="../assets/javascripts/iframe-worker.js"></script>'
        '<script src="../assets/javascripts/bundle.a5f9d56c.min.js"></script>'
        '<script src="../assets/javascripts/book.js" defer></script></body>'
    )
    chapter = finish_output(page, notebook=False, root="..")
    assert "<script src=" not in chapter and NOTEBOOK_CSS not in chapter
    order = ["iframe-worker.js", "bundle.a5f9d56c.min.js", "book.js"]
    assert [chapter.index(name) for name in order] == sorted(chapter.index(n) for n in order)
    assert chapter.count("<script>") == 2 and chapter.endswith("</script></body>")
    # the theme's marks are set as the body starts, before its first style
    marks = chapter[chapter.index("<body>") + len("<body>") :]
    assert marks.startswith("<script>") and "data-md-color-switching" in marks.split("</script>")[0]
    with pytest.raises(ValueError, match="body"):
        finish_output(page.replace("<body>", ""), notebook=False, root="..")
    with pytest.raises(ValueError, match="body"):
        finish_output(page.replace("</body>", ""), notebook=False, root="..")
    notebook = finish_output(page, notebook=True, root="..")
    assert f'<link rel="stylesheet" href="../{NOTEBOOK_CSS}">\n</head>' in notebook
    with pytest.raises(ValueError, match="head"):
        finish_output("<body><p>no head</p></body>", notebook=True, root=".")
