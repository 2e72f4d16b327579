"""The notebook stage: an executed notebook's page, as mkdocs-jupyter writes it,
finished as the chapters' pages are. :func:`finish_html`

* drops the ~600 KB of JupyterLab CSS and the scripts nbconvert inlines (the
  site ships a small stylesheet instead, ``assets/stylesheets/notebooks.css``),
* replaces the random cell ids nbconvert writes with stable ones, so that two
  builds give identical pages,
* gives every plot the alt text of its cell (the cell's ``alt`` metadata,
  ``# %% alt="…"`` in the source; a plot without one fails the build) and makes it a
  numbered figure, "Figure 1", "Figure 2", … with the cell's ``caption`` under it,
* sets the math of its Markdown cells as MathML and binds it to its punctuation, as the
  MathML and typography stages do for the chapters,
* turns links to the published book into links relative to the page, checking
  that the page exists and that the link names it as the site serves it (so that it
  works in the downloaded notebook too), and adds a link to download the notebook.

:func:`plot_files` then moves the plots nbconvert inlines as ``data:`` URIs into files
of their own, loaded lazily: the page's HTML shrinks from ~160 KB to ~15 KB gzipped, so
its text shows without waiting for the plots. :func:`finish_page` runs both for a MkDocs
page, cached on disk.
"""

from __future__ import annotations

import base64
import hashlib
import os
import posixpath
import re
from pathlib import Path, PurePosixPath

from ..build_cache import kept_file
from ..notebooks import NOTEBOOK_DIR, download_name, read_notebook
from ..render import source_fingerprint
from ..text import caption_html, inline_math_html
from .base import BookError
from .mathml import render_math
from .typography import bound_punctuation, joined_numbers

__all__ = ["PLOT_DIR", "finish_html", "finish_page", "plot_files", "relative_url"]


def finish_page(html: str, page, config, files) -> str:
    """:func:`finish_html` for a MkDocs page of a notebook, cached on disk.

    Parsing a notebook page takes about a second; the result depends only on the
    arguments and the library's sources, so a rebuild with nothing changed reuses it.
    """
    page_urls = {f.src_uri: f.url for f in files.documentation_pages()}
    site_url = config.site_url or ""
    source = Path(page.file.abs_src_path).read_bytes()
    digest = hashlib.sha256(source_fingerprint().encode())
    for part in (html, page.file.src_uri, page.url, site_url, repr(sorted(page_urls.items()))):
        digest.update(b"\0" + part.encode())
    digest.update(source)
    cache = (
        Path(config.config_file_path).resolve().parent
        / ".cache"
        / "notebook-pages"
        / f"{digest.hexdigest()[:32]}.html"
    )
    if cache.exists():
        return _with_plot_files(
            cache.read_text(encoding="utf-8"), page, config, files, cache.parent
        )
    finished = finish_html(
        html,
        read_notebook(page.file.abs_src_path),
        page=page.file.src_uri,
        page_url=page.url,
        site_url=site_url,
        page_urls=page_urls,
    )
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(finished, encoding="utf-8")
    partial.replace(cache)
    return _with_plot_files(finished, page, config, files, cache.parent)


def _with_plot_files(html: str, page, config, files, folder: Path) -> str:
    """:func:`plot_files`, each plot added to the site's files (written with the assets),
    its smaller PNG kept in ``folder``."""
    from mkdocs.structure.files import File

    html, plots = plot_files(html, page.file.src_uri, page.url, folder / "png")
    for path, data in plots.items():
        files.append(File.generated(config, path, content=data))
    return html


_INLINE_PNG = re.compile(
    r'(<(?:img|source)\b[^>]*?\b(?:src|srcset)=")data:image/png;base64,([A-Za-z0-9+/=\s]+)(")'
)
#: Folder of the site for the notebooks' plots (docs-relative).
PLOT_DIR = f"{NOTEBOOK_DIR}/plots"


def plot_files(
    html: str, page: str, page_url: str, cache: Path | None = None
) -> tuple[str, dict[str, bytes]]:
    """Move every PNG inlined in a notebook page into a file of its own.

    Returns the page, whose images now point at ``notebooks/plots/<notebook>-<n>.png``
    (``n`` counts the plots in page order) and load lazily, their phone sources at
    ``<notebook>-<n>-phone.png``, and those files' bytes by
    docs-relative path. Each PNG is stored losslessly in as few bytes as Pillow finds
    (without its alpha channel when every pixel is opaque): the same pixels; with a
    ``cache`` folder, kept there by the hash of the PNG it was made from.
    """
    stem = PurePosixPath(page).stem
    plots: dict[str, bytes] = {}

    def move(match: re.Match) -> str:
        tag = match.group(1)
        number = sum(not path.endswith("-phone.png") for path in plots) + 1
        if tag.startswith("<source"):  # the phone drawing, before the plot's <img>
            path = f"{PLOT_DIR}/{stem}-{number}-phone.png"
        else:
            path = f"{PLOT_DIR}/{stem}-{number}.png"
            tag = tag.replace("<img", '<img loading="lazy" decoding="async"', 1)
        plots[path] = _kept_png(base64.b64decode("".join(match.group(2).split())), cache)
        return f"{tag}{relative_url(path, page_url)}{match.group(3)}"

    return _INLINE_PNG.sub(move, html), plots


_INLINED = re.compile(r"<(style|script)\b[^>]*>.*?</\1\s*>", re.S | re.I)


def finish_html(
    html: str, notebook, *, page: str, page_url: str, site_url: str, page_urls: dict[str, str]
) -> str:
    """The page HTML of an executed notebook, trimmed, made stable and checked.

    Parameters
    ----------
    html : str
        What mkdocs-jupyter rendered for the notebook.
    notebook : NotebookNode
        The same notebook as :func:`read_notebook` reads it (for cell ids and alt text).
    page : str
        The docs-relative source path, e.g. ``"notebooks/part1-foundations.py"``.
    page_url : str
        The site-relative URL of the page (``"notebooks/part1-foundations.html"``).
    site_url : str
        The published address of the book; links starting with it become relative.
    page_urls : dict of str to str
        Docs-relative source path -> site-relative URL of every page. A link to
        the book must name one of them as the site serves it (``a/b.html``, or ``a/b/``
        with ``use_directory_urls``), or the site's root: the downloaded notebook keeps
        the link as it is written.
    """
    from bs4 import BeautifulSoup, Comment

    html = _INLINED.sub("", html)  # cheaper than parsing ~600 KB of CSS first
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup.find_all(["style", "script"]):
        tag.decompose()
    for tag in soup.select(".zeroclipboard-container, .clipboard-copy-txt, .jp-Collapser"):
        tag.decompose()
    for comment in soup.find_all(string=lambda text: isinstance(text, Comment)):
        comment.extract()
    for block in soup.select("div.highlight-ipynb"):  # styled like every code block of the site
        block["class"] = ["highlight"]
        pre = block.find("pre")
        code = soup.new_tag("code")
        code.extend(list(pre.contents))
        pre.append(code)

    cells = soup.select('div.jp-Cell[id^="cell-id="]')
    if len(cells) != len(notebook.cells):
        raise BookError(
            f"{page}: the page shows {len(cells)} cells, the notebook has {len(notebook.cells)}"
        )
    figures = 0
    for div, cell in zip(cells, notebook.cells, strict=True):
        div["id"] = cell["id"]
        images = div.select(".jp-OutputArea-output img")
        if not images:
            continue
        alt = str(cell.metadata.get("alt", "")).strip()
        if len(alt) < 40:
            raise BookError(
                f"{page}: cell {cell['id']} draws a plot but has no alt text saying what it "
                'shows (add alt="…" of at least 40 characters to its "# %%" line)'
            )
        caption = str(cell.metadata.get("caption", "")).strip()
        if not caption or len(images) > 1:
            raise BookError(
                f"{page}: cell {cell['id']} must draw one plot with a caption "
                '(caption="…" on its "# %%" line)'
            )
        image = images[0]
        image["alt"] = alt
        size = _png_size(image.get("src", ""))
        if size:
            image["width"], image["height"] = map(str, size)
        if not image.get("class"):
            del image["class"]
        _phone_source(soup, image)
        figures += 1
        _number_plot(soup, image, figures, caption)

    aliases = _url_aliases(page_urls)
    for link in soup.find_all("a", href=True):
        link["href"] = _local_link(link["href"], page, page_url, site_url, aliases)

    download = relative_url(download_name(page), page_url)
    button = BeautifulSoup(
        f'<p class="nb-download"><a class="md-button" href="{download}" download>'
        "Download this notebook "  # the file name is never broken at its hyphen
        f'<span class="pe-nobreak">({PurePosixPath(download).name})</span></a></p>',
        "html.parser",
    )
    first = soup.select_one("div.jp-MarkdownCell")
    if first is None:
        raise BookError(f"{page}: a notebook must start with a markdown cell (its title)")
    first.insert_after(button)
    for text in [
        t for cell in soup.select("div.jp-MarkdownCell") for t in cell.find_all(string=True)
    ]:
        if "$" in text and text.find_parent(["code", "pre"]) is None:
            text.replace_with(BeautifulSoup(inline_math_html(str(text), plain=True), "html.parser"))
    # the same MathML as the chapters', and their line breaks
    return joined_numbers(bound_punctuation(render_math(str(soup), page)))


#: Under this width a plot shows its phone drawing (pe_book.notebooks.phone_png).
PHONE_MEDIA = "(max-width: 600px)"


def _phone_source(soup, image) -> None:
    """Wrap ``image`` in a ``<picture>`` whose phone source is its ``data-phone-png``
    (drawn at two pixels a CSS pixel, so sized at half its pixels), if it has one."""
    phone = image.attrs.pop("data-phone-png", None)
    if phone is None:
        return
    src = f"data:image/png;base64,{phone}"
    width, height = _png_size(src) or (0, 0)
    picture = soup.new_tag("picture")
    image.wrap(picture)
    source = soup.new_tag(
        "source",
        attrs={"media": PHONE_MEDIA, "srcset": src, "width": width // 2, "height": height // 2},
    )
    image.insert_before(source)


def _number_plot(soup, image, number: int, caption: str) -> None:
    """Make the output holding ``image`` a numbered figure, "Figure ``number``", with
    ``caption`` under it, like the chapters' figures (the page's own numbering)."""
    from bs4 import BeautifulSoup

    box = image.find_parent("div", class_="jp-RenderedImage") or image
    figure = soup.new_tag("figure", attrs={"class": "nb-figure", "id": f"figure-{number}"})
    box.wrap(figure)
    text = caption_html(f"Figure {number}", caption)
    figure.append(BeautifulSoup(f"<figcaption>{text}</figcaption>", "html.parser"))


def _png_size(src: str) -> tuple[int, int] | None:
    """Width and height of an inline PNG (``data:image/png;base64,…``) from its header."""
    prefix = "data:image/png;base64,"
    if not src.startswith(prefix):
        return None
    header = base64.b64decode(src[len(prefix) : len(prefix) + 32])
    if header[:8] != b"\x89PNG\r\n\x1a\n" or header[12:16] != b"IHDR":
        return None
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")


def relative_url(target: str, page_url: str) -> str:
    """Link from the page at site-relative ``page_url`` to site-relative ``target``.

    >>> relative_url("notebooks/a.ipynb", "notebooks/a.html")
    'a.ipynb'
    >>> relative_url("foundations/sinusoidal/", "notebooks/a/")
    '../../foundations/sinusoidal/'
    >>> relative_url("", "notebooks/a.html")
    '../'
    """
    here = page_url if page_url.endswith("/") else posixpath.dirname(page_url) + "/"
    relative = posixpath.relpath(target.rstrip("/") or ".", here.rstrip("/") or ".")
    if target.endswith("/") or not target:
        relative = relative.rstrip("/") + "/"
    return relative


def _url_aliases(page_urls: dict[str, str]) -> dict[str, str]:
    """Both URL styles of every page (``a/b/`` and ``a/b.html``) -> its actual URL."""
    aliases = {}
    for src, url in page_urls.items():
        stem = PurePosixPath(src).with_suffix("").as_posix()
        if PurePosixPath(src).stem == "index":
            folder = posixpath.dirname(stem)
            names = [f"{folder}/" if folder else "", f"{stem}.html"]
        else:
            names = [f"{stem}/", f"{stem}.html"]
        aliases.update(dict.fromkeys(names, url))
    return aliases


def _local_link(href: str, page: str, page_url: str, site_url: str, aliases: dict[str, str]) -> str:
    """A link to the published book made relative to the page; other links unchanged."""
    base = site_url.rstrip("/") + "/"
    if not href.startswith(base):
        return href
    target, _, fragment = href[len(base) :].partition("#")
    if target not in aliases:
        raise BookError(f"{page}: link to {href} is not a page of the book")
    if target not in (aliases[target], ""):
        raise BookError(
            f"{page}: link to {href} names a page the site serves as {base}{aliases[target]}"
            " (a link of the downloaded notebook is followed as it is written)"
        )
    return relative_url(aliases[target], page_url) + (f"#{fragment}" if fragment else "")


def _kept_png(data: bytes, cache: Path | None) -> bytes:
    """:func:`_smaller_png` of ``data``, kept in the folder ``cache`` (when given), named
    by the hash of ``data``, the Pillow version and the book's sources, and read back
    there instead of encoding again (about a tenth of a second a plot)."""
    if cache is None:
        return _smaller_png(data)
    import PIL

    digest = hashlib.sha256(f"{PIL.__version__}\0{source_fingerprint()}\0".encode())
    digest.update(data)
    return kept_file(cache / f"{digest.hexdigest()[:32]}.png", lambda: _smaller_png(data))


def _smaller_png(data: bytes) -> bytes:
    """The image of PNG ``data`` re-encoded losslessly if that is smaller: RGB for an
    opaque RGBA image, zlib's best compression with Pillow's optimised encoder."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        image.load()
        if image.mode == "RGBA" and image.getchannel("A").getextrema() == (255, 255):
            image = image.convert("RGB")
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=True)
    smaller = buffer.getvalue()
    return smaller if len(smaller) < len(data) else data
