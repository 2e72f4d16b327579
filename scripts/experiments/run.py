"""Run the book's experiments and write their results to ``docs/data/experiments/``.

    python3 scripts/book.py experiments            # the full run (about 20 minutes, 2 cores)
    python3 scripts/book.py experiments --quick    # a miniature of each, into a temp folder

Options: ``--quick``, ``--out DIR``, ``--only NAME`` (``length_generalisation`` or
``context_extension``; repeatable), ``--seeds 0,1,2``. A progress bar goes to stderr.

Experiments
    ``length_generalisation``: one model per encoding and seed, trained at ``train_len``
    tokens, evaluated at 1, 2, 4, 8 and 16 times that: loss by position
    (non-overlapping windows), loss with a sliding window, passkey accuracy by depth
    and the passkey answers' loss.

    ``context_extension``: the RoPE models of the first experiment, with the context
    stretched ``factor`` times by position interpolation, NTK-aware scaling, dynamic
    NTK and YaRN (plus plain RoPE for comparison), all through
    ``pe_explained.rope_frequencies``; evaluated zero-shot and after a short fine-tune
    at ``factor · train_len`` tokens, with the number of passkey documents whose
    outcome the fine-tune changed.

Each results file records the command, the seeds, the versions, :func:`code_hash` of
this folder, and per method and length the metric with one value per seed. Numbers are
rounded to 6 significant digits and written with sorted keys; the ``"run"`` section
(wall time, hardware) is the only part that differs between two runs with the same
seeds on one machine.
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
from dataclasses import asdict, dataclass, replace
from pathlib import Path

if not __package__:  # started as a file: make the package importable by its name
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import pe_explained as pe  # noqa: E402
from experiments import code_hash, data  # noqa: E402
from experiments.model import ENCODINGS, ModelConfig, Rope, TinyDecoder, parameter_count  # noqa: E402
from experiments.train import (  # noqa: E402
    TrainConfig,
    floor_by_position,
    new_model,
    non_overlapping,
    passkey_documents,
    sliding,
    train,
)

ROOT = Path(__file__).resolve().parents[2]
#: Where the full run writes its results (committed with the book).
RESULTS = ROOT / "docs" / "data" / "experiments"
#: The experiments, in the order they run.
EXPERIMENTS = ("length_generalisation", "context_extension")
#: Seed of the evaluation documents and passkeys: every model sees the same ones.
EVAL_SEED = 1_000_003
#: Significant digits kept in the results files.
DIGITS = 6


@dataclass(frozen=True)
class Settings:
    """Everything that sizes a run; :data:`FULL` and :data:`QUICK` are the two in use."""

    train_len: int
    factors: tuple[int, ...]
    seeds: tuple[int, ...]
    d_model: int
    layers: int
    heads: int
    steps: int
    batch: int
    lr: float
    #: Evaluation documents: rows, each ``2 · max(eval_lens)`` tokens long (plus one).
    eval_rows: int
    #: Bins of the loss-by-position curves.
    bins: int
    #: Sliding window: stride as a fraction of the window.
    stride_share: float
    depths: tuple[float, ...]
    passkey_samples: int
    #: Context extension: stretch factor, fine-tune steps and batch (rows).
    extension_factor: int
    finetune_steps: int
    finetune_batch: int
    finetune_lr: float
    #: Training objective: share of each batch made of passkey documents, and the
    #: weight of the passkey answers' loss beside the language loss (``train``).
    passkey_share: float = 0.25
    answer_weight: float = 1.0
    encodings: tuple[str, ...] = ENCODINGS
    extension_methods: tuple[str, ...] = ("rope", "pi", "ntk", "dynamic", "yarn")

    @property
    def eval_lens(self) -> list[int]:
        """Evaluation lengths: ``factor · train_len`` for every factor."""
        return [f * self.train_len for f in self.factors]

    def model_config(self, encoding: str) -> ModelConfig:
        """The model of ``encoding`` at these settings."""
        return ModelConfig(
            encoding=encoding,
            train_len=self.train_len,
            d_model=self.d_model,
            layers=self.layers,
            heads=self.heads,
        )

    def train_config(self) -> TrainConfig:
        """Training at ``train_len``."""
        return TrainConfig(
            steps=self.steps,
            batch=self.batch,
            length=self.train_len,
            lr=self.lr,
            passkey_share=self.passkey_share,
            answer_weight=self.answer_weight,
        )

    def finetune_config(self) -> TrainConfig:
        """The fine-tune of the context-extension experiment, at ``factor · train_len``."""
        return TrainConfig(
            steps=self.finetune_steps,
            batch=self.finetune_batch,
            length=self.extension_factor * self.train_len,
            lr=self.finetune_lr,
            warmup=max(1, self.finetune_steps // 10),
            passkey_share=self.passkey_share,
            answer_weight=self.answer_weight,
        )


FULL = Settings(
    train_len=64,
    factors=(1, 2, 4, 8, 16),
    seeds=(0, 1, 2),
    d_model=128,
    layers=4,
    heads=4,
    steps=200,
    batch=32,
    lr=3e-3,
    eval_rows=8,
    bins=16,
    stride_share=0.25,
    depths=(0.1, 0.3, 0.5, 0.7, 0.9),
    passkey_samples=16,
    extension_factor=4,
    finetune_steps=40,
    finetune_batch=8,
    finetune_lr=1e-3,
)

QUICK = replace(
    FULL,
    train_len=32,
    factors=(1, 2, 4),
    d_model=32,
    layers=2,
    heads=2,
    steps=12,
    batch=8,
    eval_rows=2,
    bins=4,
    depths=(0.2, 0.8),
    passkey_samples=4,
    extension_factor=2,
    finetune_steps=4,
    finetune_batch=4,
)


# Context-extension methods -----------------------------------------------------------


def extension_rope(method: str, settings: Settings, base: float) -> Rope:
    """The RoPE settings of a context-extension ``method`` for factor ``f`` and length ``L``.

    ``rope``: unchanged. ``pi``: ``{"rope_type": "linear", "factor": f}`` (every
    frequency divided by ``f``). ``ntk``: a new base ``pe_explained.ntk_aware_base(base,
    f, head_dim) = base · f^(d/(d−2))``. ``dynamic``: ``{"rope_type": "dynamic",
    "factor": f, "original_max_position_embeddings": L}``, recomputed for every length.
    ``yarn``: ``{"rope_type": "yarn", "factor": f, "original_max_position_embeddings":
    L}``, whose attention factor multiplies cos and sin.
    """
    f = float(settings.extension_factor)
    length = settings.train_len
    head_dim = settings.d_model // settings.heads
    if method == "rope":
        return Rope(base=base)
    if method == "pi":
        return Rope(base=base, scaling={"rope_type": "linear", "factor": f})
    if method == "ntk":
        return Rope(base=pe.ntk_aware_base(base, f, head_dim))
    if method in ("dynamic", "yarn"):
        scaling = {"rope_type": method, "factor": f, "original_max_position_embeddings": length}
        return Rope(base=base, scaling=scaling)
    raise ValueError(f"method must be one of rope, pi, ntk, dynamic, yarn; got {method!r}")


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
    """Trains the models once and runs the experiments on them."""

    def __init__(self, settings: Settings, progress: Progress) -> None:
        self.settings = settings
        self.progress = progress
        self.language = data.Language()
        s = settings
        self.eval_tokens, self.eval_topics = self.language.documents(
            s.eval_rows, 2 * max(s.eval_lens) + 1, np.random.default_rng(EVAL_SEED)
        )
        self.models: dict[tuple[str, int], TinyDecoder] = {}
        self.curves: dict[tuple[str, int], list[float]] = {}

    def reference(self) -> dict:
        """The losses a model is judged against, on the evaluation documents: the
        unigram entropy, the generator's own loss (the floor; also binned by position
        as the models' loss by position is, per evaluation length) and ``ln VOCAB``."""
        s = self.settings
        floor = self.language.token_losses(self.eval_tokens, self.eval_topics)
        return {
            "unigram_entropy": data.unigram_entropy(self.eval_tokens),
            "loss_floor": self.language.loss_floor(self.eval_tokens, self.eval_topics),
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
            model = new_model(s.model_config(encoding), seed)
            self.curves[key] = train(model, s.train_config(), seed, self.language)
            self.models[key] = model
            self.progress.step(f"{encoding} seed {seed}: trained")
        return self.models[key]

    def evaluate(
        self, model: TinyDecoder, label: str, with_sliding: bool, documents: dict | None = None
    ) -> dict:
        """Loss by position, sliding-window loss (if asked), passkey accuracy by depth and
        the passkey answers' mean loss, per length.

        ``documents``, if given, receives each passkey document's outcome: an array of
        booleans per ``(length, depth)``.
        """
        s = self.settings
        out: dict = {"non_overlapping": {}, "passkey": {}, "passkey_answer_loss": {}}
        if with_sliding:
            out["sliding"] = {}
        self.progress.show(f"{label}: evaluating")
        for n in s.eval_lens:
            out["non_overlapping"][str(n)] = non_overlapping(model, self.eval_tokens, n, s.bins)
            if with_sliding:
                stride = max(1, int(s.stride_share * n))
                out["sliding"][str(n)] = sliding(model, self.eval_tokens, n, stride)
            out["passkey"][str(n)] = {}
            answer_losses = []
            for d in s.depths:
                passed, answer_loss = passkey_documents(
                    model, self.language, n, d, s.passkey_samples, EVAL_SEED
                )
                out["passkey"][str(n)][f"{d:g}"] = float(passed.mean())
                answer_losses.append(answer_loss)
                if documents is not None:
                    documents[(n, d)] = passed
            out["passkey_answer_loss"][str(n)] = float(np.mean(answer_losses))
        self.progress.step(f"{label}: evaluated")
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


# The experiments ---------------------------------------------------------------------


def length_generalisation(runner: Runner) -> dict:
    """Every encoding trained at ``train_len``, evaluated at every length; per seed."""
    s = runner.settings
    methods = {}
    for encoding in s.encodings:
        per_seed = []
        for seed in s.seeds:
            model = runner.trained(encoding, seed)
            result = runner.evaluate(model, f"{encoding} seed {seed}", with_sliding=True)
            curve = runner.curves[(encoding, seed)]
            result["train_loss_final"] = float(np.mean(curve[-10:]))
            blocks = range(0, len(curve), 10)
            result["train_curve"] = [float(np.mean(curve[i : i + 10])) for i in blocks]
            per_seed.append(result)
        methods[encoding] = gather(per_seed)
        methods[encoding]["parameters"] = parameter_count(runner.models[(encoding, s.seeds[0])])
    return {
        "description": (
            "Loss by position (non-overlapping windows), sliding-window loss and passkey "
            "accuracy of tiny decoders trained at train_len with each positional encoding, "
            "evaluated at every length of eval_lens. Metric leaves are lists over seeds."
        ),
        "methods": methods,
        "notes": {
            "learned": "positions >= train_len read the table's last row (clamped)",
            "t5": (
                f"buckets of pe_explained.t5_relative_bucket(bidirectional=False, "
                f"num_buckets={s.model_config('t5').t5_buckets}, max_distance="
                f"{s.model_config('t5').t5_max_distance}); one bias per bucket and head, "
                "shared by the layers, zero at initialisation (buckets never seen in "
                "training keep 0)"
            ),
            "xpos": (
                "RoPE (halves) then queries times pe_explained.xpos_scale and keys divided "
                "by it, centred positions, scale_base = train_len / 2"
            ),
            "sliding": "windows of the evaluation length, stride = stride_share x length; "
            "only the last stride predictions of each window are scored",
            "train_loss_final": "mean next-token loss of the last 10 training steps",
            "train_curve": "mean next-token loss of each block of 10 training steps",
            "passkey_answer_loss": "mean cross-entropy of the true key digits after ASK, "
            "over the documents of every depth",
        },
    }


def context_extension(runner: Runner) -> dict:
    """The RoPE models stretched by each method, zero-shot and fine-tuned; per seed."""
    s = runner.settings
    methods = {}
    for method in s.extension_methods:
        per_seed = []
        for seed in s.seeds:
            base_model = runner.trained("rope", seed)
            model = copy.deepcopy(base_model)
            model.rope = extension_rope(method, s, s.model_config("rope").rope_base)
            label = f"{method} seed {seed}"
            before: dict = {}
            zero_shot = runner.evaluate(model, f"{label} zero-shot", False, before)
            runner.progress.show(f"{label}: fine-tuning")
            curve = train(model, s.finetune_config(), seed, runner.language)
            runner.progress.step(f"{label}: fine-tuned")
            after: dict = {}
            tuned = runner.evaluate(model, f"{label} fine-tuned", False, after)
            tuned["finetune_loss_final"] = float(np.mean(curve[-5:]))
            changed = {
                str(n): int(sum((before[n, d] != after[n, d]).sum() for d in s.depths))
                for n in s.eval_lens
            }
            per_seed.append(
                {"zero_shot": zero_shot, "fine_tuned": tuned, "passkey_changed": changed}
            )
        entry = gather(per_seed)
        rope = extension_rope(method, s, s.model_config("rope").rope_base)
        entry["rope"] = {"base": rope.base, "scaling": rope.scaling}
        methods[method] = entry
    return {
        "description": (
            "RoPE models trained at train_len, their context stretched by factor with each "
            "method (rope_frequencies of pe_explained), evaluated zero-shot and after a "
            "fine-tune at factor x train_len. Metric leaves are lists over seeds."
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
            "fine_tune": "same objective as training, at target_len, with the method's frequencies",
            "passkey_changed": "passkey documents (of depths x passkey_samples per length) "
            "found zero-shot and not after the fine-tune, or the reverse",
        },
    }


# Writing -----------------------------------------------------------------------------


def provenance(settings: Settings, argv: list[str]) -> dict:
    """What made a results file: command, seeds, versions, code hash, settings."""
    return {
        "command": " ".join(["python3", "scripts/book.py", "experiments", *argv]),
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


def hardware() -> dict:
    """The machine: CPU count, torch threads, platform, processor."""
    return {
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
    }


# Command line ------------------------------------------------------------------------


def parse(argv: list[str]) -> argparse.Namespace:
    """Read the command line; a bad value is a ValueError naming the option."""
    parser = argparse.ArgumentParser(
        prog="python3 scripts/book.py experiments", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="a miniature of every experiment")
    parser.add_argument("--out", help="folder for the results (default: see --quick)")
    parser.add_argument("--only", action="append", help=f"one of {', '.join(EXPERIMENTS)}")
    parser.add_argument("--seeds", help="comma-separated seeds, e.g. 0,1,2")
    args = parser.parse_args(argv)
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


def tasks(settings: Settings, experiments: tuple[str, ...]) -> int:
    """Number of progress steps: trainings, evaluations and fine-tunes."""
    seeds = len(settings.seeds)
    count = 0
    if "length_generalisation" in experiments:
        count += 2 * len(settings.encodings) * seeds
    if "context_extension" in experiments:
        if "length_generalisation" not in experiments:
            count += seeds  # the RoPE models are trained here
        count += 3 * len(settings.extension_methods) * seeds
    return count


def main(argv: list[str] | None = None) -> int:
    """Run the chosen experiments and write one results file each; return 0."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse(argv)
    settings = QUICK if args.quick else FULL
    if args.seeds is not None:
        settings = replace(settings, seeds=args.seeds)
    if args.out is not None:
        out = Path(args.out)
    elif args.quick:
        out = Path(tempfile.mkdtemp(prefix="pe-experiments-quick-"))
    else:
        out = RESULTS
    experiments = tuple(e for e in EXPERIMENTS if not args.only or e in args.only)
    torch.set_num_threads(2)
    torch.use_deterministic_algorithms(True)
    progress = Progress(tasks(settings, experiments))
    runner = Runner(settings, progress)
    header = provenance(settings, argv)
    header["reference"] = runner.reference()
    runs = {"length_generalisation": length_generalisation, "context_extension": context_extension}
    for name in experiments:
        start = time.monotonic()
        result = runs[name](runner)
        result.update(header)
        result["experiment"] = name
        result["run"] = {"wall_time_s": time.monotonic() - start, "hardware": hardware()}
        write(out / f"{name}.json", result)
    progress.close()
    print(f"[experiments] results in {out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
