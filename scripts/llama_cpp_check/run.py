"""Run every comparison and write ``docs/data/runtimes/llama_cpp.json``.

    python3 scripts/book.py llama-cpp            # install llama.cpp if needed, run, write
    python3 scripts/book.py llama-cpp --check    # run, compare with the stored file

The file records the command, the seed, the versions (llama-cpp-python and the llama.cpp
commit it vendors, transformers, torch, numpy), :func:`code_hash` of this folder, and
per setting its ``config.json``, the flags printed for it and the logit differences
measured; then the perturbed flags, each of which must fail, and the cache measurements.
Differences are rounded to 3 significant digits, factors to 6.

    python3 scripts/book.py llama-cpp --install  # only build llama.cpp
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RESULTS = ROOT / "docs" / "data" / "runtimes" / "llama_cpp.json"
SEED = 0

if __package__ in (None, ""):  # run as a script: import the folder as a package
    sys.path.insert(0, str(HERE.parent))
    __package__ = HERE.name

from . import compare, install, models  # noqa: E402
from .settings import (  # noqa: E402
    BY_NAME,
    CACHE_SETTINGS,
    COMMON,
    CONTEXT,
    ORIGINAL,
    PROMPT,
    SETTINGS,
)


def code_hash(folder: Path = HERE) -> str:
    """SHA-256 of this folder's Python sources (the flags themselves are checked apart:
    ``tests/test_llama_cpp.py`` holds the stored ones to what the library prints now)."""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _round(value, digits=3):
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    if isinstance(value, dict):
        return {k: _round(v, 6 if k in _EXACT else digits) for k, v in value.items()}
    if isinstance(value, list):
        return [_round(v, digits) for v in value]
    return value


#: Values kept to 6 significant digits (factors, not differences).
_EXACT = {"key_scale", "m", "config"}


def _replace(args: list[str], flag: str, value: str | None) -> list[str]:
    """``args`` with ``flag``'s value replaced (``None``: the flag and its value left out)."""
    out = list(args)
    at = next(i for i, a in enumerate(out) if a == flag or a.startswith(flag))
    if flag.startswith("--"):
        if value is None:
            del out[at : at + 2]
        else:
            out[at + 1] = value
    else:  # a value such as an --override-kv entry
        if value is None:
            del out[at - 1 : at + 1]
        else:
            out[at] = value
    return out


#: (name, setting, what is wrong, how the printed flags are changed); every one must fail.
PERTURBATIONS = (
    ("base", "plain-1e4", "--rope-freq-base 10500 (5% off)", ("--rope-freq-base", "10500.0")),
    ("factor", "linear", "--rope-freq-scale 0.2 (×5 for ×4)", ("--rope-freq-scale", "0.2")),
    ("beta", "yarn-betas", "--yarn-beta-fast 32 instead of 4", ("--yarn-beta-fast", "32.0")),
    (
        "betas left to the GGUF",
        "yarn-betas",
        "no --yarn-beta-fast/--yarn-beta-slow: the GGUF stores 4 and 0.5",
        ("--yarn-beta-fast", None, "--yarn-beta-slow", None),
    ),
    (
        "attention factor",
        "yarn-betas",
        "no --override-kv of rope.scaling.attn_factor",
        ("ARCH.rope.scaling.attn_factor", None),
    ),
    (
        "layer pattern left to the GGUF",
        "gemma3",
        "no --override-kv of attention.sliding_window_pattern: every sixth layer global",
        ("ARCH.attention.sliding_window_pattern", None),
    ),
    (
        "yarn_log_multiplier 0.1",
        "yarn-ministral3",
        "--override-kv ARCH.rope.scaling.yarn_log_multiplier=float:0.1 (as DeepSeek's loader "
        "needs)",
        ("--override-kv", "ARCH.rope.scaling.yarn_log_multiplier=float:0.1", "-c", "256"),
    ),
)


def _perturbed(args: list[str], change: tuple) -> list[str]:
    if change[0] == "--override-kv":  # append an override the printed flags do not have
        return args[:-2] + list(change[:2]) + args[-2:]
    out = list(args)
    for flag, value in zip(change[::2], change[1::2], strict=True):
        out = _replace(out, flag, value)
    return out


def run(folder: Path, tree: Path, *, seed: int = SEED, log=print) -> dict:
    """Build, convert and compare everything in ``folder``; the results as written."""
    started = time.time()
    all_settings = SETTINGS + CACHE_SETTINGS
    jobs = [(models.build(s, seed, folder), folder / f"{s.name}.gguf") for s in all_settings]
    models.convert(tree, jobs)
    wrong = folder / "wrong-layout"
    wrong.mkdir(exist_ok=True)
    layout = BY_NAME["plain-1e4"]
    models.convert(tree, [(folder / layout.name, wrong / f"{layout.name}.gguf")], permute=False)
    log(f"[llama.cpp] {len(jobs) + 1} GGUF files written ({time.time() - started:.0f} s)")
    settings = []
    for s in SETTINGS:
        check = compare.flag_check(s, folder, seed)
        check |= {"label": s.label, "arch": s.arch, "layout": s.layout}
        check["reproducible"] = s.reproducible
        check["config"] = models.config_json(folder / s.name)
        settings.append(check)
        diff, tolerance = check["max_abs_diff"], check["tolerance"]
        log(f"[llama.cpp] {s.name}: max |Δ| {diff:.2e} (tolerance {tolerance:.1e})")
    perturbations = []
    for name, setting, what, change in PERTURBATIONS:
        printed = next(c for c in settings if c["setting"] == setting)["arguments"]
        args = _perturbed(printed, change)
        check = compare.flag_check(BY_NAME[setting], folder, seed, args)
        perturbations.append({"name": name, "what": what, **check})
    check = compare.flag_check(layout, folder, seed, gguf=wrong / f"{layout.name}.gguf")
    perturbations.append(
        {"name": "layout", "what": "q and k not permuted to llama.cpp's pairs", **check}
    )
    for p in perturbations:
        log(f"[llama.cpp] perturbed {p['name']}: max |Δ| {p['max_abs_diff']:.2e}")
    shifts = [
        compare.shift_check(BY_NAME[name], folder, seed, shifts=k)
        for name in ("cache-plain", "cache-yarn4", "cache-yarn8", "cache-mla-yarn4")
        for k in (1, 3)
    ]
    widths = [
        compare.cache_width(BY_NAME[n], folder, seed) for n in ("cache-yarn4", "cache-mla-yarn4")
    ]
    divs = [compare.div_check(BY_NAME["cache-plain"], folder, seed, d=d) for d in (2, 4, 8)]
    can_shift = [compare.shift_support(BY_NAME[name], folder) for name in ("plain-1e4", "gemma3")]
    rollbacks = [
        compare.rollback_check(BY_NAME[n], folder, seed) for n in ("cache-plain", "cache-yarn4")
    ]
    plain = BY_NAME["cache-plain"]
    group_attention = [  # chapter 25's toy, and a prompt in batches of 512
        compare.group_attention_check(plain, folder, seed, n=96, g=4, w=8, batch=1),
        compare.group_attention_check(plain, folder, seed, n=3072, g=8, w=1024, batch=512),
    ]
    import llama_cpp
    import numpy
    import torch
    import transformers

    return _round(
        {
            "command": "python3 scripts/book.py llama-cpp",
            "seed": seed,
            "code_hash": code_hash(),
            "versions": {
                "llama-cpp-python": llama_cpp.__version__,
                "llama.cpp": install.LLAMA_CPP_COMMIT,
                "transformers": transformers.__version__,
                "torch": torch.__version__,
                "numpy": numpy.__version__,
                "python": platform.python_version(),
            },
            "noise_multiple": compare.NOISE_MULTIPLE,
            "model": {
                k: COMMON[k]
                for k in (
                    "num_hidden_layers",
                    "hidden_size",
                    "num_attention_heads",
                    "head_dim",
                    "vocab_size",
                )
            },
            "prompt": PROMPT,
            "original_context": ORIGINAL,
            "context": CONTEXT,
            "settings": settings,
            "perturbations": perturbations,
            "shifts": shifts,
            "divs": divs,
            "group_attention": group_attention,
            "can_shift": can_shift,
            "rollbacks": rollbacks,
            "cache_widths": widths,
        }
    )


def verdicts(result: dict) -> dict:
    """What a run concludes, without the exact differences (which vary in their last
    digits across machines): per setting its flags and whether they agree, per
    perturbation whether it agrees, per cache measurement the hypothesis that fits best."""
    return {
        "settings": {c["setting"]: (c["arguments"], c["agree"]) for c in result["settings"]},
        "perturbations": {p["name"]: p["agree"] for p in result["perturbations"]},
        "shifts": {
            f"{c['setting']} ×{c['shifts']}": min(c["diffs"], key=c["diffs"].get)
            for c in result["shifts"]
        },
        "divs": {f"d={c['d']}": min(c["diffs"], key=c["diffs"].get) for c in result["divs"]},
        "can_shift": {c["setting"]: (c["default"], c["--swa-full"]) for c in result["can_shift"]},
        "rollbacks": {c["setting"]: c["diff"] < 1e-4 for c in result["rollbacks"]},
        "cache_widths": {
            c["setting"]: (c["llama_cpp_bytes_per_token"], c["transformers_numbers_per_token"])
            for c in result.get("cache_widths", [])
        },
        "group_attention": {
            f"{c['n']} tokens": min(c["diffs"], key=c["diffs"].get)
            for c in result["group_attention"]
        },
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("--install", action="store_true", help="only build llama.cpp")
    parser.add_argument("--out", type=Path, default=RESULTS)
    options = parser.parse_args(argv)
    tree = install.ensure(log=print)
    if options.install:
        return 0
    with tempfile.TemporaryDirectory(prefix="pe-llama-cpp-") as tmp:
        result = run(Path(tmp), tree)
    text = json.dumps(result, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if options.check:
        stored = json.loads(options.out.read_text(encoding="utf-8"))
        same = verdicts(stored) == verdicts(json.loads(text))
        print(f"[llama.cpp] stored results {'match' if same else 'DIFFER from'} this run")
        return 0 if same else 1
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(text, encoding="utf-8")
    print(f"[llama.cpp] wrote {options.out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
