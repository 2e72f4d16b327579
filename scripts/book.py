#!/usr/bin/env python3
"""Set up, build, serve and test the book with one command each.

    python3 scripts/book.py serve   # build the site and serve it on http://127.0.0.1:8000/pe_explained/
    python3 scripts/book.py build   # build the site into site/ (strict: any warning fails)
    python3 scripts/book.py test    # run every test
    python3 scripts/book.py check docs/<part>/<page>.md
                                    # every rule the tests hold one page to, for that
                                    # page alone (scripts/check_page.py; --map: which
                                    # chapter module registers what each page shows)
    python3 scripts/book.py experiments [--preset mini|large] [--device cpu|cuda]
                                    [--jobs N] [--quick] [--out DIR] [--units DIR]
                                    # train the book's tiny models (PyTorch) and write
                                    # docs/data/experiments/ (--quick: a miniature)
    python3 scripts/book.py llama-cpp [--install] [--check]
                                    # build llama.cpp from source (once, into .venv), run
                                    # the printed flags on it, write docs/data/runtimes/

Each command first makes sure ``.venv`` exists and holds exactly the packages in
requirements.txt, the library ``pe_explained`` (editable) and the book's own
package ``pe_book`` (importable from this folder through a ``.pth`` file: it is
never part of the installed library). The set-up is skipped when
requirements.txt and pyproject.toml have not changed since the last one.
Needs only Python >= 3.11; extra arguments are passed on to mkdocs or pytest.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".book-setup"
#: Bumped when the set-up itself changes, so that existing venvs are set up again.
SETUP_VERSION = "2"


def _say(message: str) -> None:
    print(f"[book] {message}", flush=True)


def _fingerprint() -> str:
    digest = hashlib.sha256(f"{sys.version} setup {SETUP_VERSION}".encode())
    for name in ("requirements.txt", "pyproject.toml"):
        digest.update((ROOT / name).read_bytes())
    return digest.hexdigest()


def setup() -> None:
    """Create .venv and install the pinned requirements, unless already done."""
    if sys.version_info < (3, 11):  # noqa: UP036 - this script may be started by any python3
        sys.exit(f"[book] Python >= 3.11 is needed, this is {sys.version.split()[0]}")
    wanted = _fingerprint()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    if not (BIN / "python").exists():
        _say(f"creating virtual environment in {VENV}")
        venv.EnvBuilder(with_pip=True).create(VENV)
    pip = [str(BIN / "python"), "-m", "pip", "--disable-pip-version-check", "--quiet"]
    _say("installing pinned requirements (first run only; about a minute)")
    subprocess.run([*pip, "install", "-r", str(ROOT / "requirements.txt")], check=True)
    subprocess.run(
        [*pip, "install", "--no-deps", "--no-build-isolation", "-e", str(ROOT)], check=True
    )
    # The book's package (pe_book/) is imported by the MkDocs hook, the notebooks and the
    # tests, but it is not part of the library's distribution: a .pth file puts this
    # folder on the venv's path instead.
    purelib = subprocess.run(
        [str(BIN / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(purelib) / "pe_book.pth").write_text(f"{ROOT}\n")
    STAMP.write_text(wanted)
    _say("set-up done")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("NO_MKDOCS_2_WARNING", "1")
    env.setdefault("PYTHONHASHSEED", "0")
    if "SOURCE_DATE_EPOCH" not in env:  # reproducible dates: the last commit's
        try:
            stamp = subprocess.run(
                ["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True
            ).stdout.strip()
        except OSError:
            stamp = ""
        env["SOURCE_DATE_EPOCH"] = stamp or "0"
    return env


def _torch() -> None:
    """Install torch==2.13.0 into .venv unless it imports there (experiments only).

    PE_TORCH_INDEX, if set, is passed to pip as ``--index-url`` (as ``.ci/run`` does).
    """
    python = str(BIN / "python")
    if subprocess.run([python, "-c", "import torch"], capture_output=True).returncode == 0:
        return
    index = os.environ.get("PE_TORCH_INDEX")
    _say("installing torch 2.13.0 for the experiments (first run only)")
    subprocess.run(
        [python, "-m", "pip", "--disable-pip-version-check", "--quiet", "install"]
        + (["--index-url", index] if index else [])
        + ["torch==2.13.0"],
        check=True,
    )


def _transformers() -> None:
    """Install transformers==5.23.0 into .venv unless it imports there (llama-cpp only)."""
    python = str(BIN / "python")
    if subprocess.run([python, "-c", "import transformers"], capture_output=True).returncode:
        _say("installing transformers 5.23.0 for the llama.cpp comparisons (first run only)")
        subprocess.run(
            [python, "-m", "pip", "--disable-pip-version-check", "--quiet", "install"]
            + ["transformers==5.23.0"],
            check=True,
        )


#: What the experiments' worker processes need on a CPU: OpenMP threads that sleep when
#: they wait. Spinning, two workers of two threads each on two cores take each other's
#: cores (``--quick --jobs 2``: 423 s instead of 13 s). The numbers do not change.
EXPERIMENT_ENV = {"OMP_WAIT_POLICY": "PASSIVE"}


def _run(args: list[str], extra: dict[str, str] | None = None) -> int:
    env = _env()
    for name, value in (extra or {}).items():
        env.setdefault(name, value)
    return subprocess.run(args, cwd=ROOT, env=env).returncode


def main(argv: list[str]) -> int:
    commands = ("serve", "build", "test", "check", "setup", "experiments", "llama-cpp")
    if not argv or argv[0] not in commands:
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    setup()
    if command == "setup":
        return 0
    if command == "serve":
        # --dirty: a rebuild renders only what changed (scripts/hooks.py, "dirty serve")
        serve = [str(BIN / "mkdocs"), "serve", "--strict", "--dirty", "-a", "127.0.0.1:8000"]
        return _run([*serve, *rest])
    if command == "build":
        return _run([str(BIN / "mkdocs"), "build", "--strict", *rest])
    if command == "check":
        return _run([str(BIN / "python"), str(ROOT / "scripts" / "check_page.py"), *rest])
    if command == "experiments":
        _torch()
        script = ROOT / "scripts" / "experiments" / "run.py"
        return _run([str(BIN / "python"), str(script), *rest], EXPERIMENT_ENV)
    if command == "llama-cpp":
        _torch()
        _transformers()
        script = ROOT / "scripts" / "llama_cpp_check" / "run.py"
        return _run([str(BIN / "python"), str(script), *rest])
    return _run([str(BIN / "python"), "-m", "pytest", *rest])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
