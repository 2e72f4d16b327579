"""A notebook downloaded from the site runs outside a clone of the book.

The ``.ipynb`` the site offers imports the library alone (never the book's ``pe_book``);
its first cell installs the library from the wheel the site serves beside it
(``pe_book/wheel.py``) where it is missing, and does nothing where it is installed (the
build's kernels); its style cell sets what ``pe_book.notebooks.use_notebook_style`` sets,
so that the page's plots look as they did; and every link into the book names a page of
the built site, in the form the site serves (``a/b.html``), with its anchor.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import venv
import zipfile
from pathlib import Path, PurePosixPath

import pytest
from browser_support import built_site, mkdocs_config

from pe_book.notebooks import notebook_json, read_notebook
from pe_book.wheel import ZIP_DATE, library_wheel, wheel_path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "docs" / "notebooks").glob("*.py"))
SITE_URL = mkdocs_config()["site_url"]
_IMPORTS_BOOK = re.compile(r"^\s*(?:from|import)\s+pe_book\b", re.M)


def _code(source: Path) -> list[str]:
    return [c.source for c in read_notebook(source).cells if c.cell_type == "code"]


# --- what a reader downloads -------------------------------------------------------------


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_the_download_never_names_the_books_own_package(source):
    assert "pe_book" not in notebook_json(source), f"{source.name} names pe_book"


def test_the_check_sees_an_import_of_the_book():
    assert _IMPORTS_BOOK.search("import numpy\nfrom pe_book.notebooks import x\n")
    assert _IMPORTS_BOOK.search("if True:\n    import pe_book\n")
    assert not _IMPORTS_BOOK.search("import pe_explained\n# pe_book is not needed\n")


def test_every_notebook_first_installs_the_wheel_the_site_serves_where_it_is_missing():
    """One install cell, the same in every notebook: it names the site's address and the
    wheel's path the build writes, and installs only where ``pe_explained`` is missing."""
    first = {source.name: _code(source)[0] for source in SOURCES}
    cell = first[SOURCES[0].name]
    assert all(text == cell for text in first.values()), "the install cells differ"
    assert f'SITE = "{SITE_URL}"' in cell
    assert f'WHEEL = SITE + "{wheel_path(ROOT)}"' in cell
    assert 'if importlib.util.find_spec("pe_explained") is None:' in cell
    assert not re.search(r"^\s*(?:from|import)\s+pe_explained\b", cell, re.M)
    for source in SOURCES:
        assert not any(_IMPORTS_BOOK.search(text) for text in _code(source)), source.name


#: Settings the style cell leaves as matplotlib has them, where the book's style differs
#: only in name: the same drawing.
SAME_DRAWING = {
    "font.family": "['sans-serif'] draws in DejaVu Sans, the first of font.sans-serif",
    "legend.facecolor": "'inherit' is the axes' white",
    "savefig.facecolor": "'auto' is the figure's white",
    "svg.hashsalt": "SVG only; a notebook draws PNG",
}


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_the_style_cell_sets_the_books_notebook_style(source):
    """Run in a fresh matplotlib, the cell that updates ``plt.rcParams`` leaves the
    settings :func:`use_notebook_style` leaves (but :data:`SAME_DRAWING`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pe_book.notebooks import use_notebook_style

    (cell,) = [text for text in _code(source) if "plt.rcParams.update(" in text]
    assert matplotlib.rcParamsDefault["font.sans-serif"][0] == "DejaVu Sans"
    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        exec(cell, {"plt": plt})
        written = dict(matplotlib.rcParams)
    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        use_notebook_style()
        book = dict(matplotlib.rcParams)
    differ = {k for k in book if written[k] != book[k]} - set(SAME_DRAWING)
    assert not differ, {k: (written[k], book[k]) for k in sorted(differ)}


# --- links resolved against the build ------------------------------------------------------


def book_links(notebook: dict, site_url: str) -> list[str]:
    """Every address into the book that a notebook (``.ipynb`` as data) writes, in a
    Markdown link or anywhere in a cell, in order."""
    found = []
    pattern = re.compile(re.escape(site_url) + r"[^\s)\"'<>\]]*")
    for cell in notebook["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        found += pattern.findall(text)
    return found


def broken_links(links: list[str], site: Path, site_url: str) -> list[str]:
    """The links of ``links`` (addresses under ``site_url``) that lead nowhere in the
    built ``site``, each with why: no such file (a folder's address finds its
    ``index.html``, as a static host serves it), or no element with the anchor's id."""
    broken = []
    for link in links:
        path, _, anchor = link[len(site_url) :].partition("#")
        if path == "" or path.endswith("/"):
            path += "index.html"
        target = site / path
        if not target.is_file():
            broken.append(f"{link}: no {path} in the site")
        elif anchor and not re.search(
            rf"""\bid=["']?{re.escape(anchor)}["'\s>]""", target.read_text(encoding="utf-8")
        ):
            broken.append(f"{link}: {path} has no element with id {anchor!r}")
    return broken


def test_the_link_check_finds_a_missing_page_a_folder_style_link_and_a_missing_anchor(
    tmp_path,
):
    site, url = tmp_path / "site", "https://example.org/book/"
    (site / "part").mkdir(parents=True)
    (site / "index.html").write_text("<h1 id=top>Home</h1>")
    (site / "part" / "page.html").write_text('<h2 id="why">Why</h2>')
    notebook = {
        "cells": [
            {"source": [f"See [the page]({url}part/page.html#why) and [home]({url}).\n"]},
            {"source": f'SITE = "{url}"\nprint("{url}part/page.html")'},
            {"source": f"[a]({url}part/page/) [b]({url}part/gone.html) [c]({url}part/page.html#x)"},
        ]
    }
    links = book_links(notebook, url)
    assert links[:4] == [f"{url}part/page.html#why", url, url, f"{url}part/page.html"]
    assert broken_links(links[:4], site, url) == []
    assert broken_links(links[4:], site, url) == [
        f"{url}part/page/: no part/page/index.html in the site",
        f"{url}part/gone.html: no part/gone.html in the site",
        f"{url}part/page.html#x: part/page.html has no element with id 'x'",
    ]


@pytest.mark.site
def test_every_link_of_every_download_leads_to_a_page_of_the_built_site():
    site = built_site()
    downloads = sorted((site / "notebooks").glob("*.ipynb"))
    assert [p.stem for p in downloads] == [s.stem for s in SOURCES]
    for download in downloads:
        notebook = json.loads(download.read_text(encoding="utf-8"))
        links = book_links(notebook, SITE_URL)
        assert len(links) >= 3, f"{download.name}: {links}"
        assert broken_links(links, site, SITE_URL) == [], download.name
    served = site / wheel_path(ROOT)
    assert served.is_file(), f"the site serves no {wheel_path(ROOT)}"
    assert served.read_bytes() == library_wheel(ROOT, ROOT / ".cache" / "wheel")


# --- the wheel -----------------------------------------------------------------------------


@pytest.mark.slow
def test_the_wheel_is_the_same_bytes_every_time_and_holds_the_library(tmp_path):
    first, second = library_wheel(ROOT), library_wheel(ROOT)
    assert first == second, "two builds of the wheel differ"
    assert library_wheel(ROOT, tmp_path) == first  # built and kept
    assert library_wheel(ROOT, tmp_path) == first  # read back
    with zipfile.ZipFile(io.BytesIO(first)) as archive:
        assert archive.testzip() is None
        entries = archive.infolist()
        names = [e.filename for e in entries]
        assert {e.date_time for e in entries} == {ZIP_DATE}
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
    library = sorted(f"pe_explained/{p.name}" for p in (ROOT / "pe_explained").glob("*.py"))
    assert sorted(n for n in names if n.startswith("pe_explained/")) == library
    assert "Requires-Dist: numpy>=2.0" in text
    stem = PurePosixPath(wheel_path(ROOT)).name.removesuffix("-py3-none-any.whl")
    assert f"{stem}.dist-info/RECORD" in names


# --- a fresh environment -------------------------------------------------------------------


def _distributions(names: list[str]) -> dict:
    """The installed distributions ``names`` and every one they require (extras left
    out), from this environment."""
    from importlib.metadata import PackageNotFoundError, distribution

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    found, todo = {}, list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in found:
            continue
        try:
            dist = distribution(name)
        except PackageNotFoundError:  # required only where a marker does not hold here
            continue
        found[name] = dist
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return found


def _link_packages(names: list[str], folder: Path) -> set[str]:
    """Link the top-level modules and metadata of ``names`` and what they require into
    ``folder``: the packages a reader's Jupyter has, and nothing of the book."""
    folder.mkdir()
    for dist in _distributions(names).values():
        tops = {PurePosixPath(str(f)).parts[0] for f in dist.files or []}
        for top in sorted(tops):
            if top in ("..", "__pycache__") or top.endswith(".pth") or (folder / top).exists():
                continue
            (folder / top).symlink_to(Path(str(dist.locate_file(top))))
    return {p.name for p in folder.iterdir()}


def _fresh_python(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A new virtual environment in ``tmp_path`` (pip only, no system packages) that sees
    numpy, matplotlib, ipykernel and what they require, and the environment to run it
    in: no PYTHONPATH, no user site, pip without an index (the wheel is all it gets)."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(env_dir)
    python = env_dir / "bin" / "python"
    linked = _link_packages(["numpy", "matplotlib", "ipykernel"], tmp_path / "packages")
    assert not {"pe_book", "pe_explained"} & {n.split("-")[0] for n in linked}, linked
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "reader-packages.pth").write_text(f"{tmp_path / 'packages'}\n")
    (tmp_path / "home").mkdir()
    env = {
        "PATH": f"{env_dir / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(tmp_path / "home"),
        "PYTHONNOUSERSITE": "1",
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_ROOT_USER_ACTION": "ignore",
        "JUPYTER_PLATFORM_DIRS": "1",
    }
    return python, env


def _imports(python: Path, env: dict, module: str, cwd: Path) -> bool:
    code = f"import {module}"
    return (
        subprocess.run([python, "-c", code], env=env, cwd=cwd, capture_output=True).returncode == 0
    )


def _run_downloaded(python, env, notebook: dict, cwd: Path, tmp_path: Path):
    """Execute ``notebook`` (``.ipynb`` data) in a kernel of ``python``: the notebook with
    its outputs."""
    import nbclient
    import nbformat

    kernels = tmp_path / "jupyter" / "kernels" / "reader"
    kernels.mkdir(parents=True, exist_ok=True)
    argv = [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec = {"argv": argv, "display_name": "reader", "language": "python"}
    (kernels / "kernel.json").write_text(json.dumps(spec))
    node = nbformat.reads(json.dumps(notebook), as_version=4)
    client = nbclient.NotebookClient(
        node, kernel_name="reader", timeout=180, resources={"metadata": {"path": str(cwd)}}
    )
    client.execute(env=env)
    return node


@pytest.mark.slow
def test_a_downloaded_notebook_runs_top_to_bottom_in_a_fresh_environment(tmp_path, monkeypatch):
    """Each ``.ipynb`` as the site offers it, run in a kernel of a new virtual environment,
    from a folder outside the clone: the first notebook's install cell installs the
    library from the wheel (the site's address pointed at a folder holding the build's
    wheel), the others find it installed; no cell fails, every plot is drawn."""
    python, env = _fresh_python(tmp_path)
    cwd = tmp_path / "reader"
    cwd.mkdir()
    assert ROOT not in cwd.parents
    assert not _imports(python, env, "pe_book", cwd), "the book's package leaks in"
    assert not _imports(python, env, "pe_explained", cwd), "the library is there already"
    assert _imports(python, env, "matplotlib.pyplot", cwd)
    site = tmp_path / "site"
    (site / wheel_path(ROOT)).parent.mkdir(parents=True)
    (site / wheel_path(ROOT)).write_bytes(library_wheel(ROOT, ROOT / ".cache" / "wheel"))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    for source in SOURCES:
        notebook = json.loads(notebook_json(source))
        install = notebook["cells"][[c["cell_type"] for c in notebook["cells"]].index("code")]
        text = "".join(install["source"])
        assert text.count(f'"{SITE_URL}"') == 1
        install["source"] = text.replace(f'"{SITE_URL}"', f'"{site.as_uri()}/"')
        done = _run_downloaded(python, env, notebook, cwd, tmp_path)
        errors = [
            f"{cell.id}: {out.get('ename')}: {out.get('evalue')}"
            for cell in done.cells
            for out in cell.get("outputs", [])
            if out.output_type == "error"
        ]
        assert not errors, f"{source.name}: {errors}"
        plots = sum(
            "image/png" in out.get("data", {})
            for cell in done.cells
            for out in cell.get("outputs", [])
        )
        drawn = sum("alt" in c.metadata for c in read_notebook(source).cells)
        assert plots == drawn > 0, f"{source.name}: {plots} plots for {drawn} figures"
    where = subprocess.run(
        [python, "-c", "import pe_explained; print(pe_explained.__file__)"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert Path(where).resolve().is_relative_to(tmp_path / "venv"), where
