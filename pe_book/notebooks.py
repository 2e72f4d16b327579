"""The companion notebooks: jupytext sources in ``docs/notebooks/``, executed, and
their downloads.

Each notebook is a jupytext "percent" ``.py`` file (readable diffs). At build time the
``mkdocs-jupyter`` plugin executes it (in the background, started by
:func:`start_executing`, cached by the library's sources: :func:`configure_jupyter`)
and turns it into a page, which the page pipeline then finishes
(:mod:`pe_book.pages.notebook`).

:func:`notebook_json` writes the ``.ipynb`` offered for download (generated at
build time, never committed). In a notebook, :func:`use_notebook_style` draws
with the book's light colours on a white background, readable in a dark Jupyter
theme too; on the site's dark palette the stylesheet inverts the plots' lightness
(keeping their hues), so that they do not glare as white cards.
"""

from __future__ import annotations

import hashlib
import os
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


def use_notebook_style() -> None:
    """Draw with the book's light theme on a white background, with constrained layout."""
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
    nbclient.NotebookClient(notebook, kernel_name=kernel_name, allow_errors=allow_errors).execute()
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
    with tempfile.TemporaryDirectory() as folder:
        executed_path = Path(folder) / f"{Path(source).stem}.ipynb"
        nbformat.write(executed, executed_path)
        body = _render(str(executed_path), options)
    toc_tokens, title = _get_nb_toc_tokens(source, options["toc_depth"])
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    partial.write_text(
        json.dumps({"content": body, "toc_tokens": toc_tokens, "title": title}), encoding="utf-8"
    )
    partial.replace(cache)


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
