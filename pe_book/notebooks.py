"""The companion notebooks: jupytext sources in ``docs/notebooks/``, executed, and
their downloads.

Each notebook is a jupytext "percent" ``.py`` file (readable diffs). At build time the
``mkdocs-jupyter`` plugin executes it (in the background, started by
:func:`start_executing`, cached by the library's sources: :func:`configure_jupyter`)
and turns it into a page, which the page pipeline then finishes
(:mod:`pe_book.pages.notebook`).

:func:`notebook_json` writes the ``.ipynb`` offered for download (generated at
build time, never committed), which runs outside a clone of the book: it imports the
library alone (its first cell installs it where it is missing, from the wheel the site
serves beside it, :mod:`pe_book.wheel`), and its style cell sets the book's light
colours on a white background, readable in a dark Jupyter theme too, as
:func:`use_notebook_style` does (the tests hold the two equal). On the site's dark
palette the stylesheet inverts the plots' lightness (keeping their hues), so that they
do not glare as white cards. In the kernels the build starts, every plot is drawn a
second time for a phone's column (:func:`phone_png`: narrower, panels stacked, legends
under their panels), which the page shows under 600 px instead of the wide plot.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from importlib.metadata import version
from pathlib import Path, PurePosixPath

__all__ = [
    "NOTEBOOK_DIR",
    "is_notebook",
    "download_name",
    "read_notebook",
    "execute_notebook",
    "notebook_json",
    "use_notebook_style",
    "configure_jupyter",
    "start_executing",
    "wait_for",
]

#: Folder of docs/ holding the notebook sources; every ``*.py`` in it is a notebook.
NOTEBOOK_DIR = "notebooks"


def is_notebook(src_uri: str) -> bool:
    """Whether a docs-relative path (``notebooks/part1-foundations.py``) is a notebook."""
    path = PurePosixPath(src_uri)
    return path.parent.as_posix() == NOTEBOOK_DIR and path.suffix == ".py"


def download_name(src_uri: str) -> str:
    """Docs-relative path of a notebook's download: ``notebooks/<name>.ipynb``."""
    if not is_notebook(src_uri):
        raise ValueError(f"src_uri must be a notebook source in {NOTEBOOK_DIR}/, got {src_uri!r}")
    return PurePosixPath(src_uri).with_suffix(".ipynb").as_posix()


def read_notebook(path):
    """The notebook of a jupytext source, with stable cell ids ``cell-00``, ``cell-01``, …

    jupytext gives every cell a random id; numbering them makes the downloaded
    ``.ipynb`` and the page the same on every build.
    """
    import jupytext

    notebook = jupytext.read(Path(path), fmt="py:percent")
    notebook.nbformat_minor = max(notebook.nbformat_minor, 5)  # 4.5: cells have ids
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{index:02d}"
        if "incorrectly_encoded_metadata" in cell.metadata:  # jupytext's fallback
            raise ValueError(
                f"{path}: cell {index} has a '# %%' line whose metadata jupytext cannot "
                f"read: {cell.metadata['incorrectly_encoded_metadata'][:60]!r}… (write each "
                'value as key="…", without backslashes)'
            )
    return notebook


def notebook_json(path) -> str:
    """The ``.ipynb`` text of a jupytext source (no outputs), validated and stable."""
    import nbformat

    notebook = read_notebook(path)
    nbformat.validate(notebook)
    return nbformat.writes(notebook) + "\n"


#: At build time every plot is also drawn for a phone's column: this wide (inches; about
#: 330 CSS px at the page's scale, so its text keeps the size it has on a wide screen),
#: at this resolution (two pixels a CSS pixel), as this extra output of the cell, which
#: the page shows under 600 px instead of the wide plot (:mod:`pe_book.pages.notebook`).
PHONE_PLOT_INCHES, PHONE_PLOT_DPI = 3.4, 200
#: The least height of a panel on a phone, and what each legend under a panel adds.
PHONE_PANEL_INCHES, PHONE_LEGEND_INCHES = 2.6, 0.6
PHONE_PLOT_MIME = "image/x-pe-phone-png"
#: Run as the kernels the build starts (:func:`execute_notebook`) start, not in a reader's:
#: every plot is drawn for a phone too, with no line of the notebook asking for it.
PHONE_PLOTS_SETUP = "__import__('pe_book.notebooks').notebooks._draw_phone_plots()"


def phone_png(fig) -> bytes:
    """``fig`` drawn for a phone's column, as PNG bytes; ``fig`` is left as it was.

    The figure is made :data:`PHONE_PLOT_INCHES` wide; panels side by side in one row
    are stacked in one column instead (each keeps its height), and constrained layout
    places them again, so lines, labels and legends are drawn anew at the narrow width
    with their text at its size in points (not a wide plot shrunk)."""
    import io

    from matplotlib.gridspec import GridSpec

    width, height = fig.get_size_inches()
    axes = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    grids = {id(ax.get_subplotspec().get_gridspec()) for ax in axes}
    specs = [ax.get_subplotspec() for ax in axes]
    panels = axes[0].get_subplotspec().get_gridspec().get_geometry() if axes else (1, 1)
    stack = len(grids) == 1 and panels[0] == 1 and panels[1] > 1
    legends = [ax.get_legend() for ax in axes if ax.get_legend() is not None]
    placed = [(legend._loc, legend._bbox_to_anchor) for legend in legends]
    labels = [(text, text.get_text()) for ax in axes for text in _labels(ax)]
    try:
        if stack:
            column = GridSpec(panels[1], 1, figure=fig)
            for ax, spec in zip(axes, specs, strict=True):
                ax.set_subplotspec(column[spec.colspan.start, 0])
        for legend in legends:  # under its panel, where it covers no data
            legend.set_loc("upper center")
            legend.set_bbox_to_anchor((0.5, -0.22), transform=legend.axes.transAxes)
        for text, words in labels:  # a label longer than a phone's panel on two lines
            text.set_text(_wrapped(words))
        rows = panels[1] if stack else panels[0]  # on the phone
        row = max(height / panels[0], PHONE_PANEL_INCHES)
        fig.set_size_inches(PHONE_PLOT_INCHES, rows * row + PHONE_LEGEND_INCHES * len(legends))
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=PHONE_PLOT_DPI, bbox_inches="tight")
        return buffer.getvalue()
    finally:
        fig.set_size_inches(width, height)
        for ax, spec in zip(axes, specs, strict=True):
            ax.set_subplotspec(spec)
        for legend, (loc, anchor) in zip(legends, placed, strict=True):
            legend._loc, legend._bbox_to_anchor = loc, anchor  # as set, None included
        for text, words in labels:
            text.set_text(words)


def _labels(ax) -> list:
    """The texts of ``ax`` that a phone's panel may need to wrap: axis labels, title and
    the entries of its legend."""
    legend = ax.get_legend()
    return [ax.xaxis.label, ax.yaxis.label, ax.title, *(legend.get_texts() if legend else [])]


def _shown_length(text: str) -> int:
    """About how many characters ``text`` shows: math spans without ``$`` and commands."""
    return len(re.sub(r"\$([^$]*)\$", lambda m: re.sub(r"\\[a-zA-Z]+|[{}^_]", "", m[1]), text))


def _wrapped(words: str, width: int = 30) -> str:
    """``words`` on lines of about ``width`` characters, broken at spaces outside math
    (``$…$``), so a label keeps to a phone's panel.

    >>> _wrapped("dimension index $j$ (low $j$ = high frequency)", 20)
    'dimension index $j$\\n(low $j$ = high\\nfrequency)'
    """
    if len(words) <= width or "\n" in words:
        return words
    # the words, a math span kept whole with what it touches ("($j$," is one word)
    tokens = re.findall(r"(?:[^\s$]|\$[^$]*\$)+", words)
    lines, current = [], ""
    for token in tokens:
        joined = f"{current} {token}" if current else token
        if current and _shown_length(joined) > width:
            lines.append(current)
            joined = token
        current = joined
    return "\n".join([*lines, current])


def _draw_phone_plots() -> None:
    """Give every figure the kernel displays a second output, :func:`phone_png` as
    :data:`PHONE_PLOT_MIME` (base64), beside the inline backend's PNG.

    Selecting the inline backend (``%matplotlib inline``, or importing pyplot) takes
    figures off every formatter, this one too: it is given them again after every cell,
    before the inline backend shows the cell's figures."""
    import base64

    from IPython import get_ipython
    from IPython.core.formatters import BaseFormatter

    shell = get_ipython()
    if shell is None:
        return
    formatter = shell.display_formatter.formatters.get(PHONE_PLOT_MIME)
    if formatter is None:

        class PhonePlot(BaseFormatter):
            format_type = PHONE_PLOT_MIME

        formatter = PhonePlot(parent=shell.display_formatter)
        shell.display_formatter.formatters[PHONE_PLOT_MIME] = formatter
        shell.display_formatter.active_types.append(PHONE_PLOT_MIME)
        shell.events.register("post_execute", _draw_phone_plots)
    formatter.for_type_by_name(
        "matplotlib.figure",
        "Figure",
        lambda fig: base64.b64encode(phone_png(fig)).decode("ascii"),
    )


def use_notebook_style() -> None:
    """Draw with the book's light theme on a white background, with constrained layout:
    what the style cell of every notebook sets (``tests/test_notebook_downloads.py``)."""
    import matplotlib

    from .style import THEMES

    matplotlib.rcParams.update(THEMES["light"].rc)
    matplotlib.rcParams.update(
        {
            "figure.facecolor": "white",
            "axes.facecolor": "white",
            "savefig.facecolor": "white",
            "savefig.transparent": False,
            "figure.constrained_layout.use": True,
            "figure.dpi": 100,
        }
    )


def configure_jupyter(config) -> None:
    """Key mkdocs-jupyter's cache by the library's sources, not only the notebook's.

    The plugin reuses an executed page while the notebook file is unchanged; a
    change to ``pe_explained`` must run the notebooks again. Cache folders of
    other keys unused for an hour are removed.
    """
    plugin = config.plugins.get("mkdocs-jupyter")
    if plugin is None:
        return
    from .render import source_fingerprint

    digest = hashlib.sha256(source_fingerprint().encode())
    for package in ("mkdocs-jupyter", "nbconvert", "ipykernel", "jupytext"):
        digest.update(f"{package} {version(package)}".encode())
    key = digest.hexdigest()[:16]
    root = Path(config.config_file_path).resolve().parent / ".cache" / "notebooks"
    plugin.config["cache_dir"] = str(root / key)
    (root / key).mkdir(parents=True, exist_ok=True)
    os.utime(root / key)  # in use: not stale for the builds of other keys
    for old in root.iterdir():
        if old.is_dir() and old.name != key and time.time() - old.stat().st_mtime > 3600:
            shutil.rmtree(old, ignore_errors=True)


_pending: dict[str, Future] = {}


def start_executing(files, config) -> None:
    """Execute every notebook not yet in mkdocs-jupyter's cache, all at once, in the background.

    mkdocs-jupyter runs each notebook when its page is rendered, one after the
    other; most of that time a kernel computes while the build waits. Started
    early, the kernels run side by side and alongside the rest of the build; each
    result goes into the plugin's cache, where the page's render then finds it.
    :func:`wait_for` collects a notebook's result (and its error) before its page.
    """
    plugin = config.plugins.get("mkdocs-jupyter")
    _pending.clear()
    if plugin is None or not (plugin.config["execute"] and plugin.config["cache"]):
        return
    from mkdocs_jupyter.plugin import _compute_cache_key, _get_cache_path

    sources = [f.abs_src_path for f in files if is_notebook(f.src_uri)]
    jobs = {}
    for source in sources:
        cache = _get_cache_path(
            plugin.config["cache_dir"], _compute_cache_key(source, plugin.config, True)
        )
        if not cache.exists():
            jobs[source] = cache
    if not jobs:
        return
    pool = ThreadPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1, 4))
    for source, cache in jobs.items():
        _pending[source] = pool.submit(_execute_into_cache, source, cache, dict(plugin.config))
    pool.shutdown(wait=False)


def wait_for(source: str) -> None:
    """Block until the background execution of notebook ``source`` (if any) has finished."""
    future = _pending.pop(source, None)
    if future is not None:
        future.result()


def execute_notebook(source, *, kernel_name: str = "python3", allow_errors: bool = False):
    """Run the notebook of jupytext source ``source`` and return it with deterministic outputs.

    A kernel sends a cell's printed text in chunks whose boundaries depend on timing,
    so one ``print`` can arrive as one stream output in one run and as two in another,
    and the page's HTML differs. Consecutive stream outputs of a cell are merged
    after execution (nbconvert's exporter merges them only *before* it executes), so
    the same source always gives the same outputs.
    """
    import nbclient
    from nbconvert.preprocessors import CoalesceStreamsPreprocessor

    notebook = read_notebook(source)
    client = nbclient.NotebookClient(
        notebook,
        kernel_name=kernel_name,
        allow_errors=allow_errors,
        extra_arguments=[f"--IPKernelApp.exec_lines={PHONE_PLOTS_SETUP}"],
    )
    client.execute()
    notebook, _ = CoalesceStreamsPreprocessor().preprocess(notebook, {})
    return notebook


def _execute_into_cache(source: str, cache: Path, options: dict) -> None:
    """What mkdocs-jupyter renders for ``source``, written where its cache looks for it.

    The notebook is executed here (:func:`execute_notebook`) and handed to the
    plugin's converter already executed, as an ``.ipynb`` in a temporary folder.
    """
    import json
    import tempfile

    import nbformat
    from mkdocs_jupyter.plugin import _get_nb_toc_tokens

    executed = execute_notebook(
        source, kernel_name=options["kernel_name"], allow_errors=options["allow_errors"]
    )
    phones = take_phone_plots(executed)
    if None in phones:
        raise RuntimeError(f"{source}: plot {phones.index(None) + 1} was not drawn for a phone")
    with tempfile.TemporaryDirectory() as folder:
        executed_path = Path(folder) / f"{Path(source).stem}.ipynb"
        nbformat.write(executed, executed_path)
        body = with_phone_plots(_render(str(executed_path), options), phones)
    toc_tokens, title = _get_nb_toc_tokens(source, options["toc_depth"])
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    partial.write_text(
        json.dumps({"content": body, "toc_tokens": toc_tokens, "title": title}), encoding="utf-8"
    )
    partial.replace(cache)


def take_phone_plots(notebook) -> list[str | None]:
    """The phone drawing (base64 PNG) of every plot of ``notebook`` in order, ``None``
    for a plot without one, each taken out of its output (nbconvert shows only the
    wide plot; :func:`with_phone_plots` puts them back into the page)."""
    phones = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            phone = data.pop(PHONE_PLOT_MIME, None)
            if "image/png" in data:
                phones.append(phone)
    return phones


_INLINE_PLOT = re.compile(r'<img\b(?=[^>]*\bsrc="data:image/png;base64,)')


def with_phone_plots(html: str, phones: list[str | None]) -> str:
    """``html`` with each phone drawing as ``data-phone-png`` on its plot's ``<img>``
    (the page pipeline makes it the phone's source of a ``<picture>``).

    >>> with_phone_plots('<img src="data:image/png;base64,AAAA">', ["QUJD"])
    '<img data-phone-png="QUJD" src="data:image/png;base64,AAAA">'
    """
    found = len(_INLINE_PLOT.findall(html))
    if found != len(phones):
        raise ValueError(f"the page shows {found} plots, the notebook drew {len(phones)}")
    phones_left = iter(phones)

    def tag(match: re.Match) -> str:
        phone = next(phones_left)
        return match.group(0) if phone is None else f'<img data-phone-png="{phone}"'

    return _INLINE_PLOT.sub(tag, html)


def _render(executed_path: str, options: dict) -> str:
    """mkdocs-jupyter's HTML for an executed notebook, with the plugin's options."""
    from mkdocs_jupyter import convert

    return convert.nb2html(
        executed_path,
        execute=False,
        kernel_name=options["kernel_name"],
        theme=options["theme"],
        allow_errors=options["allow_errors"],
        show_input=options["show_input"],
        no_input=options["no_input"],
        no_prompt=options["no_prompt"],
        remove_tag_config=options["remove_tag_config"],
        highlight_extra_classes=options["highlight_extra_classes"],
        include_requirejs=options["include_requirejs"],
        custom_mathjax_url=options["custom_mathjax_url"],
    )
