"""Chapter 22's tables: the set-up, and loss and passkey accuracy by length, each cell
the mean over the seeds with their range."""

from __future__ import annotations

from ... import Table, table
from ...experiments import passkey_by_length, results, seed_cell, span
from ...notation import DM
from .common import ENCODING_LABELS, METHOD_LABELS, extension, machine, wall_minutes

# Set-up ------------------------------------------------------------------------------


@table(
    "encodings",
    caption="What each model takes from pe_explained: the one place where the seven "
    "decoders differ.",
)
def _():
    train_len = results("length_generalisation")["train_len"]
    uses = {
        "nope": "nothing: the causal mask alone",
        "learned": f"a trained table of {train_len} rows; later positions read the last row",
        "sinusoidal": "`sinusoidal(n, d_model)`, added to the token embeddings",
        "rope": "`rope_frequencies(head_dim)`, queries and keys rotated",
        "xpos": "RoPE, then `xpos_scale` on queries and its inverse on keys",
        "alibi": r"`alibi_slopes(num_heads)`, a bias of $-m_h\,(i - j)$ in head $h$",
        "t5": "`t5_relative_bucket`, one learned bias per bucket and head",
    }
    return Table(
        ["encoding", "what the model uses"], [[ENCODING_LABELS[k], v] for k, v in uses.items()]
    )


@table("setup", caption="How the models were trained and evaluated (the results files' settings).")
def _():
    data = results("length_generalisation")
    s = data["settings"]
    task = data["task"]
    ext = results("context_extension")
    rows = [
        [
            "model",
            f"decoder, {s['layers']} layers, width ${DM} = {s['d_model']}$, {s['heads']} heads",
        ],
        ["parameters", f"{data['methods']['rope']['parameters']:,} (RoPE)"],
        ["training", f"{s['steps']} steps of {s['batch']} × {data['train_len']} tokens"],
        [
            "objective",
            "next-token cross-entropy averaged over every position, plus "
            f"{s['answer_weight']:g} × the cross-entropy of the "
            f"{task['key_length']} answer digits averaged over the passkey rows "
            f"({s['passkey_share']:.0%} of each batch's windows, the key at a random depth)",
        ],
        [
            "passkey",
            f"{task['key_length']} digits of {task['digit_values']} values; digit $s$ has ids "
            "of its own ("
            + ", ".join(f"{ids[0]}–{ids[-1]}" for ids in task["digit_ids"])
            + "), so each answer is the one token of its kind before the question; "
            f"{s['passkey_samples']} documents per seed and depth at depths "
            + ", ".join(f"{d:g}" for d in s["depths"]),
        ],
        [
            "evaluation text",
            f"{s['eval_rows']} documents of {2 * max(data['eval_lens']) + 1:,} tokens per seed, "
            "drawn with that seed (as are its passkey documents)",
        ],
        ["evaluation lengths", ", ".join(f"{n:,}" for n in data["eval_lens"])],
        ["seeds", ", ".join(str(x) for x in data["seeds"])],
        [
            "context extension",
            f"factor {ext['factor']}, fine-tune {ext['fine_tune']['steps']} steps of "
            f"{ext['fine_tune']['batch']} × {ext['target_len']} tokens",
        ],
        ["wall time", f"{wall_minutes()} minutes, both experiments, on {machine()}"],
    ]
    return Table(["setting", "value"], rows)


# Length generalisation ---------------------------------------------------------------


def by_length(header: str, labels: dict, metrics_of, metric: str) -> Table:
    """One row per entry of ``labels`` and one column per evaluation length, each cell the
    mean over the seeds with their range: the loss (``metric`` ``"non_overlapping"`` or
    ``"sliding"``) or the passkey accuracy averaged over the depths (``"passkey"``) of
    ``metrics_of(key)``."""
    lengths = results("length_generalisation")["eval_lens"]
    rows = []
    for key, label in labels.items():
        metrics = metrics_of(key)
        if metric == "passkey":
            cells = [seed_cell(passkey_by_length(metrics, n)) for n in lengths]
        else:
            cells = [seed_cell(metrics[metric][str(n)]["mean"]) for n in lengths]
        rows.append([label, *cells])
    return Table([header, *(f"{n:,}" for n in lengths)], rows)


def _encoding(key: str) -> dict:
    return results("length_generalisation")["methods"][key]


def _encodings() -> dict:
    """The labels of the encodings the results hold (xPos may be left out of a run)."""
    methods = results("length_generalisation")["methods"]
    return {e: label for e, label in ENCODING_LABELS.items() if e in methods}


@table(
    "length_loss",
    repeats="evidence_length_loss",
    caption=lambda: (
        "Mean loss over non-overlapping windows of each length (nats per token): mean over "
        f"the {len(results('length_generalisation')['seeds'])} seeds, range in brackets. "
        f"Trained at {results('length_generalisation')['train_len']} tokens."
    ),
)
def _():
    return by_length("encoding", _encodings(), _encoding, "non_overlapping")


@table(
    "sliding_loss",
    repeats="evidence_length_loss",
    caption=lambda: (
        "Mean loss with a sliding window of each length, scoring the last quarter of every "
        "window (nats per token): mean over the seeds, range in brackets."
    ),
)
def _():
    return by_length("encoding", _encodings(), _encoding, "sliding")


@table(
    "passkey",
    repeats="evidence_passkey",
    caption=lambda: (
        "Passkey accuracy at each length, averaged over the depths: mean over the seeds, "
        "range in brackets."
    ),
)
def _():
    return by_length("encoding", _encodings(), _encoding, "passkey")


# Context extension -------------------------------------------------------------------


def _extension_table(stage: str) -> Table:
    def metrics_of(method: str) -> dict:
        return extension()["methods"][method][stage]

    return by_length("method", METHOD_LABELS, metrics_of, "non_overlapping")


@table(
    "extension_zero_shot",
    repeats="evidence_extension",
    caption="Loss of the stretched RoPE models, zero-shot: mean over the seeds, range in brackets.",
)
def _():
    return _extension_table("zero_shot")


@table(
    "extension_fine_tuned",
    repeats="evidence_extension",
    caption="Loss of the stretched RoPE models after the fine-tune: mean over the seeds, range "
    "in brackets.",
)
def _():
    return _extension_table("fine_tuned")


@table(
    "extension_passkey",
    repeats="evidence_extension",
    caption="Passkey accuracy of the stretched RoPE models at each length, averaged over the "
    "depths, zero-shot and fine-tuned: mean over the seeds.",
)
def _():
    data = extension()
    lengths = data["eval_lens"]
    rows = []
    for method, label in METHOD_LABELS.items():
        for stage in ("zero_shot", "fine_tuned"):
            metrics = data["methods"][method][stage]
            accs = [span(passkey_by_length(metrics, n))[0] for n in lengths]
            rows.append([label, stage.replace("_", "-"), *accs])
    columns = ["method", "stage", *(f"{n:,}" for n in lengths)]
    # accuracies keep two decimals even where every model scored 1
    return Table(columns, rows, default_format=".2f", whole_numbers=False)
