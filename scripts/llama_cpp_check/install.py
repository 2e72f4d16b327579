"""Build llama.cpp for the comparisons: ``llama-cpp-python`` from source, CPU only.

``llama-cpp-python`` 0.3.36 vendors llama.cpp at commit 0c1e57098; pip builds it with the
system's C++ compiler and CMake (about six minutes on two cores), leaving out the
multimodal library (``LLAVA_BUILD=OFF``), which the comparisons do not use. The same
tree's converter (``convert_hf_to_gguf.py``, ``conversion/``, ``gguf-py/``) is copied
to ``<venv>/llama.cpp``, so that the GGUF files come from the code that reads them. A
venv that already holds both is left as it is.

    python3 scripts/book.py llama-cpp --install     # only this step
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

LLAMA_CPP_PYTHON = "0.3.36"
#: The llama.cpp commit that llama-cpp-python 0.3.36 vendors.
LLAMA_CPP_COMMIT = "0c1e57098"
#: What to copy from the vendored tree: the converter and the gguf package it imports.
CONVERTER = ("convert_hf_to_gguf.py", "conversion", "gguf-py")
#: The command that installs it, for messages.
COMMAND = "python3 scripts/book.py llama-cpp --install"


def tree() -> Path:
    """Where the converter of the built commit lives: beside the venv's packages."""
    return Path(sys.prefix) / "llama.cpp"


def installed() -> str | None:
    """Why llama.cpp is not ready in this interpreter (``None`` when it is)."""
    try:
        version = importlib.metadata.version("llama_cpp_python")
    except importlib.metadata.PackageNotFoundError:
        return f"llama-cpp-python is not installed (run `{COMMAND}`)"
    if version != LLAMA_CPP_PYTHON:
        return f"llama-cpp-python {version} is installed, {LLAMA_CPP_PYTHON} is needed"
    if not (tree() / CONVERTER[0]).exists():
        return f"llama.cpp's converter is missing from {tree()} (run `{COMMAND}`)"
    for module in ("torch", "transformers"):
        try:
            importlib.metadata.version(module)
        except importlib.metadata.PackageNotFoundError:
            return f"{module} is not installed (the tiny models are built with it)"
    return None


def ensure(log=print) -> Path:
    """Install llama-cpp-python and the converter unless present; the converter's tree."""
    if installed() is None:
        return tree()
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    with tempfile.TemporaryDirectory(prefix="pe-llama-cpp-src-") as tmp:
        log(f"[llama.cpp] fetching the llama-cpp-python {LLAMA_CPP_PYTHON} source")
        subprocess.run(
            [*pip, "download", "--no-deps", "--no-binary", ":all:", "-d", tmp]
            + [f"llama-cpp-python=={LLAMA_CPP_PYTHON}"],
            check=True,
        )
        (sdist,) = Path(tmp).glob("llama_cpp_python-*.tar.gz")
        with tarfile.open(sdist) as archive:
            archive.extractall(tmp, filter="data")
        vendored = Path(tmp) / sdist.name.removesuffix(".tar.gz") / "vendor" / "llama.cpp"
        target = tree()
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for name in CONVERTER:
            source = vendored / name
            if source.is_dir():
                shutil.copytree(source, target / name)
            else:
                shutil.copy2(source, target / name)
        log("[llama.cpp] building llama.cpp (CPU, about six minutes on two cores)")
        env = dict(os.environ)
        env["CMAKE_ARGS"] = "-DLLAVA_BUILD=OFF"
        env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
        subprocess.run([*pip, "install", str(sdist)], check=True, env=env)
    reason = installed()
    if reason is not None:
        raise RuntimeError(f"llama.cpp set-up failed: {reason}")
    return tree()


if __name__ == "__main__":
    print(ensure())
