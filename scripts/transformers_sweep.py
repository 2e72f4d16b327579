#!/usr/bin/env python3
"""Every model type transformers ships, checked as ``inspect --verify`` checks a config.

    .venv/bin/python scripts/transformers_sweep.py           # docs/data/transformers_sweep.json
    .venv/bin/python scripts/transformers_sweep.py --check   # CI: the stored file holds

For each ``model_type`` of transformers' configuration mapping, the config is its
configuration class's default, as ``to_dict()`` writes it (the shape a released
``config.json`` of that family has). :func:`pe_explained.verify.verify` builds the
tiny model and compares each layer with the library's reading. Each family gets a
status:

* ``agrees``: every layer agrees, and the library has read the family's code;
* ``agrees, assumed``: every layer agrees, but the library has not read the family's
  code (``inspect`` prints ``?``): its guess happened to be right;
* ``differs``: a layer differs (the first differences kept); ``differs, assumed``: it
  differs where the library has not read the code (``inspect`` prints ``?``, not ``R``);
* ``refused``: the library refuses the config (no RoPE settings it can read, …);
* ``not built``: transformers builds no tiny model of it here (a vision or audio
  model, an encoder without token inputs, a size the check does not shrink, …).

A family that agrees is checked once more with ``partial_rotary_factor`` set below 1 in
every RoPE dict of its text part (0.5; 0.75 where the config already gives 0.5): its
``partial`` entry says whether the library reads that config as transformers runs it
(``agrees``), refuses one transformers cannot run either (``refused; transformers fails
too``), or not (``differs``, ``refused, but transformers runs it``): the evidence for
:data:`pe_explained.families.PARTIALS`.

The result is written with sorted keys, the versions and the hash of the code that made
it; ``tests/test_transformers_sweep.py`` holds it current.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "data" / "transformers_sweep.json"
#: The ``partial`` entries of a family the library reads as transformers runs it.
PARTIAL_AGREES = ("agrees", "refused; transformers fails too")


def code_files() -> list[Path]:
    """The files whose code decides the result: the library (its reading and
    ``verify.py``) and this script."""
    library = sorted((ROOT / "pe_explained").rglob("*.py"))
    return [p for p in library if "__pycache__" not in p.parts] + [Path(__file__).resolve()]


def code_hash() -> str:
    """sha256 over :func:`code_files`: each one's path from the root and its bytes."""
    digest = hashlib.sha256()
    for path in code_files():
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def with_share(config: dict) -> dict:
    """``config`` with a ``partial_rotary_factor`` below 1 in every RoPE dict of its text
    part (and at its top level where it has no dict): 0.5, or 0.75 where it gives 0.5."""
    from pe_explained.hf_config import text_part
    from pe_explained.hf_families import rope_dicts

    config = json.loads(json.dumps(config))
    part, where = text_part(config)
    part = config["text_config"] if where.endswith("['text_config']") else config
    share = 0.75 if '"partial_rotary_factor": 0.5' in json.dumps(part) else 0.5
    key, dicts = rope_dicts(part)  # the dicts the library reads, the same objects
    for _, entry in dicts if key is not None else [(None, part)]:
        entry["partial_rotary_factor"] = share
    return config


def partial(config: dict) -> str:
    """How the library reads :func:`with_share` of ``config`` against transformers."""
    from pe_explained import read_model
    from pe_explained.verify import observe, shrink_for_class, verify

    shared = with_share(config)
    try:
        read_model(shared)
    except (ValueError, TypeError):
        try:
            observe(with_share(shrink_for_class(config)))
        except Exception:  # noqa: BLE001 - any failure of transformers is the point
            return "refused; transformers fails too"
        return "refused, but transformers runs it"
    try:
        result = verify(shared)
    except Exception as exc:  # noqa: BLE001 - recorded
        return f"not built: {type(exc).__name__}: {exc}"[:200]
    return "agrees" if result.agrees else f"differs: {result.differences[0]}"[:200]


def check(model_type: str) -> dict:
    """The status of one model type (see the module)."""
    import transformers

    from pe_explained import read_model
    from pe_explained.verify import verify

    try:
        config = transformers.AutoConfig.for_model(model_type).to_dict()
    except Exception as exc:  # noqa: BLE001 - a class that needs arguments, recorded
        return {"status": "not built", "detail": f"no default config: {exc}"[:200]}
    config = {k: v for k, v in config.items() if not k.startswith("_")}
    config.pop("transformers_version", None)
    try:
        reading = read_model(config)
    except (ValueError, TypeError) as exc:
        return {"status": "refused", "detail": str(exc).split("\n")[0][:200]}
    try:
        result = verify(config)
    except ValueError as exc:
        return {"status": "not built", "detail": str(exc).split("\n")[0][:200]}
    except Exception as exc:  # noqa: BLE001 - a family's own failure, recorded as such
        return {"status": "not built", "detail": f"{type(exc).__name__}: {exc}"[:200]}
    assumed = any(p.assumed for p in reading.layers)
    if result.differences:
        return {
            "status": "differs, assumed" if assumed else "differs",
            "layers": result.layers,
            "detail": "; ".join(result.differences[:3])[:300],
        }
    status = "agrees, assumed" if assumed else "agrees"
    return {"status": status, "layers": result.layers, "partial": partial(config)}


def main(argv: list[str]) -> int:
    """Run the sweep and write :data:`OUT`; with ``--check``, write nothing and exit 1 if
    any family's entry differs from the stored one (CI: the stored file is what the
    transformers installed does), or if a family the library has read differs."""
    import torch
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    checking = argv == ["--check"]
    if argv and not checking:
        sys.exit("usage: transformers_sweep.py [--check]")

    families = {}
    start = time.monotonic()
    names = sorted(CONFIG_MAPPING_NAMES)
    for k, model_type in enumerate(names, 1):
        families[model_type] = entry = check(model_type)
        print(f"[sweep] {k}/{len(names)} {model_type}: {entry['status']}", file=sys.stderr)
    result = {
        "command": "python3 scripts/transformers_sweep.py",
        "transformers": transformers.__version__,
        "torch": torch.__version__.split("+")[0],
        "code_hash": code_hash(),
        "families": families,
    }
    counts: dict[str, int] = {}
    for entry in families.values():
        counts[entry["status"]] = counts.get(entry["status"], 0) + 1
    took = f"{counts} in {time.monotonic() - start:.0f} s"
    wrong = sorted(
        name
        for name, entry in families.items()
        if entry["status"] == "differs"
        or (entry["status"] == "agrees" and entry["partial"] not in PARTIAL_AGREES)
    )
    if checking:
        stored = json.loads(OUT.read_text(encoding="utf-8"))
        changed = sorted(
            name
            for name in families.keys() | stored["families"].keys()
            if families.get(name) != stored["families"].get(name)
        )
        if stored["code_hash"] != result["code_hash"]:
            changed.insert(0, "(the library or this script changed since the stored run)")
        for name in changed + [f"{name}: read, and differs" for name in wrong]:
            print(f"[sweep] not as stored: {name}", file=sys.stderr)
        print(f"[sweep] {took}; {OUT.name} {'differs' if changed else 'holds'}", file=sys.stderr)
        return 1 if changed or wrong else 0
    OUT.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"[sweep] {took}; wrote {OUT}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
