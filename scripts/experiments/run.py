"""Run the book's experiments and write their results to ``docs/data/experiments/``.

    python3 scripts/book.py experiments                    # the miniature (CPU)
    python3 scripts/book.py experiments --preset large --device cuda --jobs 8
    python3 scripts/book.py experiments --quick            # seconds, into a temp folder

Options: ``--preset mini|large`` (``experiments.settings``), ``--quick``, ``--device
cpu|cuda``, ``--jobs N`` (worker processes; results do not depend on it), ``--out
DIR``, ``--units DIR`` (each finished model's results are kept there, and a rerun
with the same folder continues where an interrupted one stopped), ``--only NAME``
(``length_generalisation`` or ``context_extension``; repeatable), ``--seeds 0,1,2``.
A progress bar goes to stderr. ``book.py experiments`` starts this script with
``OMP_WAIT_POLICY=PASSIVE`` (``book.EXPERIMENT_ENV``): several worker processes on a CPU
then let each other's cores be; started directly with ``--jobs 2`` or more on a CPU, set
it too.

Experiments
    ``length_generalisation``: one model per encoding and seed, trained at ``train_len``
    tokens, evaluated at 1, 2, 4, 8 and 16 times that: loss by position
    (non-overlapping windows), loss with a sliding window, passkey accuracy by depth
    and the passkey answers' loss, and the training curve.

    ``context_extension``: the RoPE models of the first experiment, with the context
    stretched ``factor`` times by position interpolation, NTK-aware scaling, dynamic
    NTK and YaRN (plus plain RoPE for comparison), all through
    ``pe_explained.rope_frequencies``, evaluated zero-shot and after a short fine-tune
    at ``factor · train_len`` tokens; and by Self-Extend, ReRoPE and Dual Chunk
    Attention (``experiments.remap``), zero-shot.

Each seed's model is evaluated on its own documents (drawn with the evaluation seed and
the training seed), so the ranges over seeds cover both the training and the sample of
documents. Each results file records the command, the preset, the device, the seeds,
the versions, :func:`code_hash` of this folder, and per method and length the metric
with one value per seed. Numbers are rounded to 6 significant digits and written with
sorted keys; the ``"run"`` section (wall time, hardware) is the only part that differs
between two runs with the same seeds on one machine.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, replace
from multiprocessing import get_context
from pathlib import Path

if not __package__:  # started as a file: make the package importable by its name
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import pe_explained as pe  # noqa: E402
from experiments import code_hash, data  # noqa: E402
from experiments.model import TinyDecoder, parameter_count  # noqa: E402
from experiments.settings import (  # noqa: E402
    PRESETS,
    REMAP_METHODS,
    Settings,
    extension_remap,
    extension_rope,
    quick,
)
from experiments.train import (  # noqa: E402
    floor_by_position,
    new_model,
    non_overlapping,
    passkey_documents,
    sliding,
    train,
)

ROOT = Path(__file__).resolve().parents[2]
#: Where a full run writes its results (committed with the book): the miniature's in
#: this folder, each other preset's in a subfolder named after it.
RESULTS = ROOT / "docs" / "data" / "experiments"
#: The experiments, in the order they run.
EXPERIMENTS = ("length_generalisation", "context_extension")
#: Seed of the evaluation documents and passkeys, with each training seed.
EVAL_SEED = 1_000_003
#: Significant digits kept in the results files.
DIGITS = 6


def results_folder(preset: str) -> Path:
    """Where the full run of ``preset`` writes: :data:`RESULTS` for the miniature,
    ``RESULTS / preset`` for the others."""
    return RESULTS if preset == "mini" else RESULTS / preset


# Progress ----------------------------------------------------------------------------


class Progress:
    """A plain-text progress bar on stderr: ``[####----] 12/42 rope seed 1 train  3m10s``."""

    def __init__(self, total: int, width: int = 30) -> None:
        self.total, self.done, self.width = total, 0, width
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()

    def show(self, label: str) -> None:
        """Redraw the bar with ``label`` as the task under way."""
        filled = round(self.width * self.done / max(1, self.total))
        elapsed = time.monotonic() - self.start
        minutes, seconds = divmod(int(elapsed), 60)
        line = (
            f"[{'#' * filled}{'-' * (self.width - filled)}] {self.done}/{self.total} "
            f"{label}  {minutes}m{seconds:02d}s"
        )
        if self.tty:
            sys.stderr.write("\r" + line.ljust(100)[:100])
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def step(self, label: str) -> None:
        """Count one task as done."""
        self.done += 1
        self.show(label)

    def close(self) -> None:
        """End the bar's line."""
        if self.tty:
            sys.stderr.write("\n")
            sys.stderr.flush()


# Shared pieces -----------------------------------------------------------------------


def rounded(value):
    """``value`` with every float rounded to :data:`DIGITS` significant digits."""
    if isinstance(value, float):
        return float(f"{value:.{DIGITS}g}")
    if isinstance(value, dict):
        return {str(k): rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(v) for v in value]
    return value


class Runner:
    """Trains the models and evaluates them, each seed on its own documents."""

    def __init__(self, settings: Settings, device: str = "cpu", progress=None) -> None:
        self.settings = settings
        self.device = device
        self.progress = progress or Progress(0)
        self.language = data.Language()
        self._documents: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.models: dict[tuple[str, int], TinyDecoder] = {}
        self.curves: dict[tuple[str, int], list[float]] = {}

    def documents(self, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """Seed ``seed``'s evaluation documents and their topics, drawn with
        ``default_rng([EVAL_SEED, seed])``: ``eval_rows`` rows of ``2 · max(eval_lens) + 1``."""
        if seed not in self._documents:
            s = self.settings
            rng = np.random.default_rng([EVAL_SEED, seed])
            self._documents[seed] = self.language.documents(
                s.eval_rows, 2 * max(s.eval_lens) + 1, rng
            )
        return self._documents[seed]

    def reference(self, seed: int) -> dict:
        """The losses a model is judged against, on seed ``seed``'s documents: the
        unigram entropy, the generator's own loss (the floor; also binned by position
        as the models' loss by position is, per evaluation length) and ``ln VOCAB``."""
        s = self.settings
        tokens, topics = self.documents(seed)
        floor = self.language.token_losses(tokens, topics)
        return {
            "unigram_entropy": data.unigram_entropy(tokens),
            "loss_floor": self.language.loss_floor(tokens, topics),
            "loss_floor_by_position": {
                str(n): floor_by_position(floor, n, s.bins) for n in s.eval_lens
            },
            "uniform": float(np.log(data.VOCAB)),
        }

    def trained(self, encoding: str, seed: int) -> TinyDecoder:
        """The model of ``encoding`` trained with ``seed`` (trained on first use)."""
        key = (encoding, seed)
        if key not in self.models:
            s = self.settings
            self.progress.show(f"{encoding} seed {seed}: training")
            model = new_model(s.model_config(encoding), seed, self.device)
            self.curves[key] = train(model, s.train_config(), seed, self.language)
            self.models[key] = model
        return self.models[key]

    def evaluate(
        self, model: TinyDecoder, seed: int, label: str, with_sliding: bool, documents=None
    ) -> dict:
        """Loss by position, sliding-window loss (if asked), passkey accuracy by depth and
        the passkey answers' mean loss, per length, on seed ``seed``'s documents.

        ``documents``, if given, receives each passkey document's outcome: an array of
        booleans per ``(length, depth)``.
        """
        s = self.settings
        tokens, _ = self.documents(seed)
        batch = s.eval_batch_tokens
        out: dict = {"non_overlapping": {}, "passkey": {}, "passkey_answer_loss": {}}
        if with_sliding:
            out["sliding"] = {}
        self.progress.show(f"{label}: evaluating")
        for n in s.eval_lens:
            out["non_overlapping"][str(n)] = non_overlapping(model, tokens, n, s.bins, batch)
            if with_sliding:
                stride = max(1, int(s.stride_share * n))
                out["sliding"][str(n)] = sliding(model, tokens, n, stride, batch)
            out["passkey"][str(n)] = {}
            answer_losses = []
            for d in s.depths:
                passed, answer_loss = passkey_documents(
                    model, self.language, n, d, s.passkey_samples, (EVAL_SEED, seed), batch
                )
                out["passkey"][str(n)][f"{d:g}"] = float(passed.mean())
                answer_losses.append(answer_loss)
                if documents is not None:
                    documents[(n, d)] = passed
            out["passkey_answer_loss"][str(n)] = float(np.mean(answer_losses))
        return out


def gather(per_seed: list[dict]) -> dict:
    """Turn one result dict per seed into one dict whose leaves are lists over the seeds.

    ``[{"a": {"b": 1.0}}, {"a": {"b": 2.0}}]`` becomes ``{"a": {"b": [1.0, 2.0]}}``;
    a leaf that is itself a list (a loss-by-position curve) becomes a list of lists.
    """
    first = per_seed[0]
    if isinstance(first, dict):
        return {k: gather([r[k] for r in per_seed]) for k in first}
    return list(per_seed)


# Units of work: one model (length generalisation) or one seed's RoPE model stretched by
# every method (context extension). Their results depend on nothing but the unit.


def units(settings: Settings, experiments: tuple[str, ...]) -> list[tuple]:
    """The units of a run, longest first: ``("context_extension", seed)`` and
    ``("length_generalisation", encoding, seed)``."""
    out: list[tuple] = []
    if "context_extension" in experiments:
        out += [("context_extension", seed) for seed in settings.seeds]
    if "length_generalisation" in experiments:
        out += [
            ("length_generalisation", e, seed)
            for e in settings.encodings
            for seed in settings.seeds
        ]
    return out


def length_unit(runner: Runner, encoding: str, seed: int) -> dict:
    """One model of ``encoding`` and ``seed``, trained and evaluated."""
    model = runner.trained(encoding, seed)
    result = runner.evaluate(model, seed, f"{encoding} seed {seed}", with_sliding=True)
    curve = runner.curves[(encoding, seed)]
    result["train_loss_final"] = float(np.mean(curve[-10:]))
    result["train_curve"] = [float(np.mean(curve[i : i + 10])) for i in range(0, len(curve), 10)]
    result["parameters"] = parameter_count(model)
    return result


def extension_unit(runner: Runner, seed: int) -> dict:
    """Seed ``seed``'s RoPE model stretched by every method: zero-shot, and for the
    frequency methods fine-tuned too, with the passkey documents the fine-tune changed."""
    s = runner.settings
    out = {}
    base_model = runner.trained("rope", seed)
    for method in s.extension_methods:
        model = copy.deepcopy(base_model)
        model.rope = extension_rope(method, s, s.model_config("rope").rope_base)
        model.remap = extension_remap(method, s)
        label = f"{method} seed {seed}"
        before: dict = {}
        entry = {"zero_shot": runner.evaluate(model, seed, f"{label} zero-shot", False, before)}
        if method not in REMAP_METHODS:
            runner.progress.show(f"{label}: fine-tuning")
            curve = train(model, s.finetune_config(), seed, runner.language)
            after: dict = {}
            tuned = runner.evaluate(model, seed, f"{label} fine-tuned", False, after)
            tuned["finetune_loss_final"] = float(np.mean(curve[-5:]))
            entry["fine_tuned"] = tuned
            entry["passkey_changed"] = {
                str(n): int(sum((before[n, d] != after[n, d]).sum() for d in s.depths))
                for n in s.eval_lens
            }
        out[method] = entry
    return out


def run_unit(runner: Runner, unit: tuple) -> dict:
    """The results of one unit, with the reference losses of its seed."""
    if unit[0] == "context_extension":
        result = extension_unit(runner, unit[1])
    else:
        result = length_unit(runner, unit[1], unit[2])
    return {"result": result, "reference": runner.reference(unit[-1])}


def unit_name(unit: tuple) -> str:
    """A file name for ``unit``: ``length_generalisation-rope-1.json``."""
    return "-".join(str(part) for part in unit) + ".json"


_WORKER: dict = {}


def _start_worker(settings: Settings, device: str) -> None:
    """Set up a worker process: threads, determinism, one :class:`Runner`."""
    configure(device)
    _WORKER["runner"] = Runner(settings, device)


def _worker_unit(unit: tuple) -> tuple[tuple, dict]:
    return unit, run_unit(_WORKER["runner"], unit)


def configure(device: str) -> None:
    """Threads and determinism: two CPU threads on a CPU (results then match across
    machines of one kind), one beside a GPU; deterministic algorithms; on CUDA,
    TF32 matrix products and the plain ("math") attention kernel, whose backward pass
    is deterministic."""
    if device.startswith("cuda"):
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.set_num_threads(1)
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cuda.enable_flash_sdp(False)
        torch.backends.cuda.enable_mem_efficient_sdp(False)
        torch.backends.cuda.enable_cudnn_sdp(False)
        # Some CUDA kernels have no deterministic form: warn (into the log), not fail.
        torch.use_deterministic_algorithms(True, warn_only=True)
    else:
        torch.set_num_threads(2)
        torch.use_deterministic_algorithms(True)


def run_units(
    settings: Settings, device: str, todo: list[tuple], jobs: int, folder: Path, progress: Progress
) -> dict:
    """Run every unit of ``todo`` not already in ``folder`` (``jobs`` processes), keep
    each result there as it finishes, and return them all by unit."""
    folder.mkdir(parents=True, exist_ok=True)
    done = {}
    for unit in todo:
        path = folder / unit_name(unit)
        if path.exists():
            done[unit] = json.loads(path.read_text())
            progress.step(f"{' '.join(map(str, unit[1:]))}: kept from {folder}")
    left = [u for u in todo if u not in done]

    def keep(unit: tuple, value: dict) -> None:
        (folder / unit_name(unit)).write_text(json.dumps(value))
        done[unit] = value
        progress.step(f"{unit[0]} {' '.join(map(str, unit[1:]))}: done")

    if jobs == 1:
        configure(device)
        runner = Runner(settings, device, progress)
        for unit in left:
            keep(unit, run_unit(runner, unit))
        return done
    context = get_context("spawn")
    with ProcessPoolExecutor(jobs, context, _start_worker, (settings, device)) as pool:
        for future in as_completed([pool.submit(_worker_unit, unit) for unit in left]):
            keep(*future.result())
    return done


def length_generalisation(settings: Settings, done: dict) -> dict:
    """Every encoding trained at ``train_len``, evaluated at every length; per seed."""
    s = settings
    methods = {}
    for encoding in s.encodings:
        per_seed = [done["length_generalisation", encoding, seed]["result"] for seed in s.seeds]
        parameters = {r.pop("parameters") for r in per_seed}
        methods[encoding] = gather(per_seed)
        methods[encoding]["parameters"] = parameters.pop()
    t5 = s.model_config("t5")
    return {
        "description": (
            "Loss by position (non-overlapping windows), sliding-window loss and passkey "
            "accuracy of tiny decoders trained at train_len with each positional encoding, "
            "evaluated at every length of eval_lens. Metric leaves are lists over seeds."
        ),
        "methods": methods,
        "layers": {e: [list(p) for p in s.model_config(e).layers_rotated()] for e in s.encodings},
        "notes": {
            "learned": "positions >= train_len read the table's last row (clamped)",
            "t5": (
                f"buckets of pe_explained.t5_relative_bucket(bidirectional=False, "
                f"num_buckets={t5.t5_buckets}, max_distance={t5.t5_max_distance}); one bias "
                "per bucket and head, shared by the layers, zero at initialisation (buckets "
                "never seen in training keep 0)"
            ),
            "xpos": (
                "RoPE (halves) then queries times pe_explained.xpos_scale and keys divided "
                "by it, centred positions, scale_base = train_len / 2"
            ),
            "rope_nope": "RoPE in the layers pe_explained.layer_positions gives a SmolLM3 "
            "config with no_rope_layer_interval 4; no rotation in every 4th",
            "swa_nope": "RoPE with a sliding window of window_share x train_len keys in the "
            "layers layer_positions gives a Cohere 2 config with sliding_window_pattern 4; "
            "full attention without rotation in every 4th",
            "partial": "RoPE on the first quarter of each head (partial_rotary_factor 0.25)",
            "p_rope": "p-RoPE: rope_type proportional, partial_rotary_factor 0.25",
            "rope_1e6": "RoPE with base 1e6",
            "layers": "per encoding and layer: [rotates, sliding window or null]",
            "sliding": "windows of the evaluation length, stride = stride_share x length; "
            "only the last stride predictions of each window are scored",
            "train_loss_final": "mean next-token loss of the last 10 training steps",
            "train_curve": "mean next-token loss of each block of 10 training steps",
            "passkey_answer_loss": "mean cross-entropy of the true key digits after ASK, "
            "over the documents of every depth",
        },
    }


def context_extension(settings: Settings, done: dict) -> dict:
    """The RoPE models stretched by each method, zero-shot (and fine-tuned); per seed."""
    s = settings
    methods = {}
    for method in s.extension_methods:
        entry = gather([done["context_extension", seed]["result"][method] for seed in s.seeds])
        rope = extension_rope(method, s, s.model_config("rope").rope_base)
        entry["rope"] = {"base": rope.base, "scaling": rope.scaling}
        remap = extension_remap(method, s)
        if remap is not None:
            entry["remap"] = {"name": type(remap).__name__, **asdict(remap)}
        methods[method] = entry
    return {
        "description": (
            "RoPE models trained at train_len, their context stretched by factor with each "
            "method (rope_frequencies of pe_explained, or remapped positions), evaluated "
            "zero-shot and, for the frequency methods, after a fine-tune at factor x "
            "train_len. Metric leaves are lists over seeds."
        ),
        "factor": s.extension_factor,
        "target_len": s.extension_factor * s.train_len,
        "fine_tune": asdict(s.finetune_config()),
        "methods": methods,
        "notes": {
            "rope": "plain RoPE, no scaling (extrapolation)",
            "pi": "position interpolation: rope_type linear",
            "ntk": "NTK-aware: base = pe_explained.ntk_aware_base(base, factor, head_dim)",
            "dynamic": "dynamic NTK: rope_type dynamic, seq_len = the evaluated length "
            "(the fine-tune length while fine-tuning)",
            "yarn": "YaRN: rope_type yarn; cos and sin times its attention factor",
            "self_extend": "Self-Extend (authors' convention): neighbour window train_len/4, "
            "group size from pe_explained.self_extend_group_size for target_len",
            "rerope": "ReRoPE: window train_len/2",
            "dual_chunk": "Dual Chunk Attention as vLLM computes it: chunk_size 3/4 and "
            "local_size 1/8 of train_len",
            "fine_tune": "same objective as training, at target_len, with the method's frequencies",
            "passkey_changed": "passkey documents (of depths x passkey_samples per length) "
            "found zero-shot and not after the fine-tune, or the reverse",
        },
    }


# Writing -----------------------------------------------------------------------------


def provenance(settings: Settings, argv: list[str], preset: str, device: str) -> dict:
    """What made a results file: command, preset, device, seeds, versions, code hash,
    settings."""
    return {
        "command": " ".join(["python3", "scripts/book.py", "experiments", *argv]),
        "preset": preset,
        "device": describe_device(device),
        "seeds": list(settings.seeds),
        "versions": {
            "pe_explained": pe.__version__,
            "torch": torch.__version__,
            "numpy": np.__version__,
            "python": platform.python_version(),
        },
        "code_hash": code_hash(),
        "train_len": settings.train_len,
        "eval_lens": settings.eval_lens,
        "settings": {k: v for k, v in asdict(settings).items() if k not in ("seeds", "train_len")},
        "task": task(),
    }


def task() -> dict:
    """The language and the passkey as ``data`` defines them, and the training objective."""
    slots = [
        list(range(data.FIRST_DIGIT + data.DIGITS * s, data.FIRST_DIGIT + data.DIGITS * (s + 1)))
        for s in range(data.KEY_LENGTH)
    ]
    return {
        "vocab": data.VOCAB,
        "words": data.WORDS,
        "topics": data.TOPICS,
        "key_length": data.KEY_LENGTH,
        "digit_values": data.DIGITS,
        "digit_ids": slots,
        "objective": "mean next-token cross-entropy over every position + answer_weight x "
        "mean cross-entropy of the key_length answer tokens of the passkey rows",
    }


def dumps(value, indent: int = 0) -> str:
    """JSON text with sorted keys, one key per line, lists of numbers on one line."""
    pad = " " * (indent + 1)
    if isinstance(value, dict) and value:
        items = [f"{pad}{json.dumps(k)}: {dumps(value[k], indent + 1)}" for k in sorted(value)]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        items = [pad + dumps(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    return json.dumps(value, sort_keys=True)


def write(path: Path, result: dict) -> None:
    """Write ``result`` as JSON (:func:`dumps`), floats at :data:`DIGITS` significant digits."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(rounded(result)) + "\n")


def describe_device(device: str) -> dict:
    """The device the models ran on: its kind, its name, and on CUDA the precision of
    matrix products (TF32)."""
    if device.startswith("cuda"):
        return {"kind": "cuda", "name": torch.cuda.get_device_name(device), "matmul": "tf32"}
    return {"kind": "cpu", "name": platform.processor() or platform.machine(), "matmul": "float32"}


def hardware(jobs: int) -> dict:
    """The machine: CPU count, torch threads per worker, worker processes, platform."""
    return {
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "jobs": jobs,
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
    }


# Command line ------------------------------------------------------------------------


def parse(argv: list[str]) -> argparse.Namespace:
    """Read the command line; a bad value is a ValueError naming the option."""
    parser = argparse.ArgumentParser(
        prog="python3 scripts/book.py experiments", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--preset", default="mini", help=f"one of {', '.join(PRESETS)}")
    parser.add_argument("--quick", action="store_true", help="a miniature of the preset")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (cuda:N)")
    parser.add_argument("--jobs", default="1", help="worker processes (default 1)")
    parser.add_argument("--out", help="folder for the results (default: see --quick)")
    parser.add_argument("--units", help="folder keeping each finished unit (resumable)")
    parser.add_argument("--only", action="append", help=f"one of {', '.join(EXPERIMENTS)}")
    parser.add_argument("--seeds", help="comma-separated seeds, e.g. 0,1,2")
    args = parser.parse_args(argv)
    if args.preset not in PRESETS:
        raise ValueError(f"--preset must be one of {', '.join(PRESETS)}, got {args.preset!r}")
    if not (args.device == "cpu" or args.device == "cuda" or args.device.startswith("cuda:")):
        raise ValueError(f"--device must be cpu, cuda or cuda:N, got {args.device!r}")
    if args.device != "cpu" and not torch.cuda.is_available():
        raise ValueError(f"--device {args.device}: this torch sees no CUDA device")
    if not args.jobs.isdigit() or int(args.jobs) < 1:
        raise ValueError(f"--jobs must be an integer >= 1, got {args.jobs!r}")
    args.jobs = int(args.jobs)
    for name in args.only or []:
        if name not in EXPERIMENTS:
            raise ValueError(f"--only must be one of {', '.join(EXPERIMENTS)}, got {name!r}")
    if args.seeds is not None:
        try:
            seeds = tuple(int(part) for part in args.seeds.split(","))
        except ValueError:
            raise ValueError(
                f"--seeds must be comma-separated integers, got {args.seeds!r}"
            ) from None
        if len(set(seeds)) != len(seeds) or min(seeds) < 0:
            raise ValueError(f"--seeds must be distinct integers >= 0, got {args.seeds!r}")
        args.seeds = seeds
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the chosen experiments and write one results file each; return 0."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse(argv)
    settings = PRESETS[args.preset]
    if args.quick:
        settings = quick(settings)
    if args.seeds is not None:
        settings = replace(settings, seeds=args.seeds)
    if args.out is not None:
        out = Path(args.out)
    elif args.quick:
        out = Path(tempfile.mkdtemp(prefix="pe-experiments-quick-"))
    else:
        out = results_folder(args.preset)
    experiments = tuple(e for e in EXPERIMENTS if not args.only or e in args.only)
    todo = units(settings, experiments)
    folder = Path(args.units) if args.units else Path(tempfile.mkdtemp(prefix="pe-units-"))
    progress = Progress(len(todo))
    configure(args.device)
    start = time.monotonic()
    done = run_units(settings, args.device, todo, args.jobs, folder, progress)
    wall = time.monotonic() - start
    header = provenance(settings, argv, args.preset, args.device)
    by_seed = {unit[-1]: value["reference"] for unit, value in done.items()}
    header["reference"] = gather([by_seed[seed] for seed in settings.seeds])
    runs = {"length_generalisation": length_generalisation, "context_extension": context_extension}
    for name in experiments:
        result = runs[name](settings, done)
        result.update(header)
        result["experiment"] = name
        result["run"] = {"wall_time_s": wall, "hardware": hardware(args.jobs)}
        write(out / f"{name}.json", result)
    progress.close()
    print(f"[experiments] results in {out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
