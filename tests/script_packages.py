"""Import a package of ``scripts/`` (not installed) under its folder's name, once."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_package(name: str) -> ModuleType:
    """``scripts/<name>/`` as the package ``name``, its submodules importable beneath it."""
    if name not in sys.modules:
        folder = SCRIPTS / name
        spec = importlib.util.spec_from_file_location(
            name, folder / "__init__.py", submodule_search_locations=[str(folder)]
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]
