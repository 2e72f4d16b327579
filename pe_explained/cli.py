"""The command line: ``python -m pe_explained`` (or ``pe-explained``).

Three commands:

* ``table``   prints the sinusoidal encoding as a table of numbers;
* ``heatmap`` prints it as text, one character per value;
* ``inspect`` reads a model's ``config.json`` and reports what it does to
  positions (:func:`pe_explained.model_report.inspect_config`), as text or JSON;
  with ``--for llama.cpp`` or ``--for vllm``, the arguments that give the model
  those positions in that runtime (:mod:`pe_explained.runtimes`).

They need numpy alone. The book's figures are drawn by the book's own command
line (``python -m pe_book figure``, in a clone of the book), which needs matplotlib.

Bad arguments end with a one-line ``error: …`` on stderr and exit status 2,
never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from . import __version__
from ._checks import check_int
from .model_report import format_report, inspect_config
from .runtimes import RUNTIMES, format_runtime_arguments, runtime_arguments
from .sinusoidal import LAYOUTS, sinusoidal

__all__ = ["main", "build_parser", "run_command", "format_table", "text_heatmap", "HEATMAP_CHARS"]

#: Characters from the lowest value (left) to the highest (right).
HEATMAP_CHARS = " .:-=+*#%@"
EXIT_ERROR = 2
#: Exit status of a check that ran and found a difference (``inspect --verify``).
EXIT_DIFFERS = 1


def format_table(pe: np.ndarray, precision: int = 4) -> str:
    """Rows ``pos  v0 v1 …``: right-aligned columns, fixed decimals, no "-0.000".

    >>> print(format_table(sinusoidal(2, 4), precision=2))
    pos  dim0  dim1  dim2  dim3
      0  0.00  1.00  0.00  1.00
      1  0.84  0.54  0.01  1.00
    """
    precision = check_int("precision", precision, minimum=0)
    if precision > 17:
        raise ValueError(
            f"precision must be <= 17 (float64 has ~17 significant digits), got {precision}"
        )

    def number(v: float) -> str:
        text = f"{v:.{precision}f}"
        return text[1:] if text.startswith("-") and float(text) == 0.0 else text

    header = ["pos"] + [f"dim{j}" for j in range(pe.shape[1])]
    rows = [[str(p)] + [number(v) for v in row] for p, row in enumerate(pe.tolist())]
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
    return "\n".join(
        "  ".join(cell.rjust(w) for cell, w in zip(r, widths, strict=True)) for r in [header, *rows]
    )


def text_heatmap(values: np.ndarray, *, low=-1.0, high=1.0, chars=HEATMAP_CHARS) -> str:
    """One character per value: ``chars[0]`` at ``low`` … ``chars[-1]`` at ``high``.

    Row p of the result is row p of ``values``, prefixed by its index.

    >>> print(text_heatmap(np.array([[-1.0, 0.0, 1.0]])))
    0 | +@|
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"values must be 2-D, got shape {values.shape}")
    if not high > low:
        raise ValueError(f"high must be > low, got low={low}, high={high}")
    levels = len(chars)
    # level = floor((v - low) / (high - low) * levels), clipped to the ramp
    level = np.clip(np.floor((values - low) / (high - low) * levels), 0, levels - 1).astype(int)
    label_width = len(str(max(len(values) - 1, 0)))
    return "\n".join(
        f"{p:>{label_width}} |{''.join(chars[k] for k in row)}|" for p, row in enumerate(level)
    )


def _add_encoding_options(parser: argparse.ArgumentParser, positions: int, d_model: int) -> None:
    parser.add_argument(
        "--positions",
        type=int,
        default=positions,
        metavar="N",
        help=f"number of positions, 0 … N-1 (default {positions})",
    )
    parser.add_argument(
        "--d-model",
        type=int,
        default=d_model,
        metavar="D",
        help=f"width of the encoding, even (default {d_model})",
    )
    parser.add_argument(
        "--base", type=float, default=10000.0, help="base of the frequency ladder (default 10000)"
    )
    parser.add_argument(
        "--layout",
        choices=LAYOUTS,
        default="interleaved",
        help="interleaved: sin, cos, sin, … (the paper); "
        "halves: all sines, then all cosines (default interleaved)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pe_explained",
        description="Positional encodings from the command line: print the sinusoidal "
        "table or draw it as text, or inspect what a model's config.json does to positions.",
    )
    parser.add_argument("--version", action="version", version=f"pe_explained {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    table = commands.add_parser(
        "table",
        help="print the sinusoidal encoding as numbers, one row per position",
        description="Print the encoding PE(pos) of every position: one row per position, "
        "one column per dimension.",
    )
    _add_encoding_options(table, positions=8, d_model=8)
    table.add_argument(
        "--precision", type=int, default=4, metavar="P", help="decimal places (default 4)"
    )

    heatmap = commands.add_parser(
        "heatmap",
        help="print the sinusoidal encoding as text, one character per value",
        description="One row per position, one character per "
        f"dimension, from '{HEATMAP_CHARS[0]}' "
        f"at -1 to '{HEATMAP_CHARS[-1]}' at +1.",
    )
    _add_encoding_options(heatmap, positions=16, d_model=32)

    inspect = commands.add_parser(
        "inspect",
        help="report what a model's config.json does to positions",
        description="Read a Hugging Face config.json (v4 or v5 shape, text or multimodal; "
        "or a file of the book's model gallery) and report where every layer gets its "
        "positions from (rotary attention, attention without rotation, or no attention: "
        "linear-attention and state-space layers), one character per layer; then, per "
        "layer type: rope type, theta, head_dim and rotated dims, layout, "
        "the inverse frequencies and attention factor the model's rotary embedding holds, "
        "wavelengths, pairs completing a turn within the original and the extended context, "
        "the stretch against plain RoPE; then NoPE layers, attention temperature, MLA's "
        "softmax scale, what the config sets that is not modelled, and warnings for known "
        "pitfalls.",
    )
    inspect.add_argument("config", metavar="CONFIG.json", help="the model's config.json")
    inspect.add_argument(
        "--json", action="store_true", help="print one JSON object instead of text"
    )
    inspect.add_argument(
        "--seq-len",
        type=int,
        metavar="N",
        help="current sequence length, for rope types that read it (dynamic, longrope)",
    )
    inspect.add_argument(
        "--for",
        dest="runtime",
        choices=RUNTIMES,
        help="print the arguments that give the model these positions in a runtime "
        "(llama.cpp flags, vLLM --hf-overrides and --max-model-len; --seq-len sets the "
        "context), with warnings for what the runtime cannot express",
    )
    inspect.add_argument(
        "--verify",
        action="store_true",
        help="build a tiny model of the config with the transformers installed (widths "
        "shrunk, layers and positions kept), observe where each layer gets its positions "
        "from, and compare with this report: exit status 1 where a layer differs (needs "
        "torch and transformers)",
    )
    return parser


class Disagreement(Exception):
    """A check that ran and found a difference: its report is printed, exit status 1."""


def _read_config(path: str) -> tuple[dict, str]:
    """A config.json, loaded, and the name to report it under; a missing file or bad JSON
    is a one-line error naming the file.

    A file of the book's model gallery (``docs/data/models/*.json``) wraps the config as
    ``{"model": …, "hf_repo": …, "source": …, "config": {…}}``: its ``config`` is read,
    under the model's name.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise OSError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        config = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(config, dict):
        raise ValueError(
            f"{path} must hold a JSON object (a model's config), got {type(config).__name__}"
        )
    if isinstance(config.get("config"), dict) and {"model", "hf_repo"} & config.keys():
        name = config.get("model") or config.get("hf_repo")
        return config["config"], f"{path} ({name}: its 'config')"
    return config, path


def _inspect(args) -> str:
    config, name = _read_config(args.config)
    if args.verify:
        from .verify import verify

        result = verify(config)
        if not result.agrees:
            raise Disagreement(result.summary())
        return result.summary()
    if args.runtime is not None:
        result = runtime_arguments(config, args.runtime, seq_len=args.seq_len)
        if args.json:
            return json.dumps(result, indent=2, allow_nan=False)
        return format_runtime_arguments(result, name=name)
    report = inspect_config(config, seq_len=args.seq_len)
    if args.json:
        return json.dumps(report, indent=2, allow_nan=False)
    return format_report(report, name=name)


def _run(args) -> str:
    if args.command == "inspect":
        return _inspect(args)
    pe = sinusoidal(args.positions, args.d_model, base=args.base, layout=args.layout)
    if args.command == "table":
        return format_table(pe, args.precision)
    legend = (
        f"'{HEATMAP_CHARS[0]}' = -1 … '{HEATMAP_CHARS[-1]}' = +1; "
        f"columns = dimensions 0 … {args.d_model - 1}"
    )
    return text_heatmap(pe) + "\n" + legend


def run_command(parser: argparse.ArgumentParser, run, argv=None) -> int:
    """Parse ``argv`` with ``parser``, print ``run(args)``; return the exit status.

    A bad value (``ValueError``, ``TypeError``, ``OSError``) becomes one ``error:`` line
    on stderr and status 2, never a traceback; argparse exits with status 2 on bad syntax.
    """
    args = parser.parse_args(argv)
    try:
        output = run(args)
    except Disagreement as found:
        print(found)
        return EXIT_DIFFERS
    except (ValueError, TypeError, OSError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    print(output)
    return 0


def main(argv=None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    return run_command(build_parser(), _run, argv)
