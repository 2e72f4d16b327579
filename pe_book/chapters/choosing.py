"""Chapter 17, choosing an encoding: parameters and per-layer work for one configuration."""

from __future__ import annotations

from pe_explained.learned import learned_parameter_count
from pe_explained.rope import rope_frequencies

from .. import Table, table, value

D_MODEL, NUM_HEADS, NUM_LAYERS, SEQ_LEN, T5_BUCKETS = 4096, 32, 32, 4096, 32
HEAD_DIM = D_MODEL // NUM_HEADS


@table(
    "costs",
    caption=f"One decoder configuration: d_model = {D_MODEL}, {NUM_HEADS} heads of "
    f"{HEAD_DIM}, {NUM_LAYERS} layers, sequences of {SEQ_LEN} tokens.",
)
def _():
    rotated = 2 * NUM_HEADS * 2 * len(rope_frequencies(HEAD_DIM)[0])  # q and k, 2 per pair
    bias_per_row = NUM_HEADS * SEQ_LEN  # one number per head and key, per query token
    rows = [
        ["sinusoidal (absolute, added once)", 0, 0, D_MODEL],
        ["learned absolute", learned_parameter_count(SEQ_LEN, D_MODEL), 0, D_MODEL],
        ["T5 relative bias", T5_BUCKETS * NUM_HEADS, bias_per_row, 0],
        ["ALiBi", 0, bias_per_row, 0],
        ["RoPE", 0, rotated, 0],
        ["xPos (rotated and scaled)", 0, rotated, 0],
        ["NoPE", 0, 0, 0],
    ]
    return Table(
        [
            "encoding",
            "trained parameters",
            "numbers added or rotated per token, per layer",
            "numbers added per token at the input",
        ],
        rows,
        formats={
            "trained parameters": ",d",
            "numbers added or rotated per token, per layer": ",d",
            "numbers added per token at the input": ",d",
        },
    )


@value("learned_parameters")
def _():
    return f"{learned_parameter_count(SEQ_LEN, D_MODEL):,}"


@value("t5_parameters")
def _():
    return f"{T5_BUCKETS * NUM_HEADS:,}"


@value("bias_share")
def _():
    # one bias number per score, against head_dim multiply-adds for the q·k product
    bias = NUM_HEADS * SEQ_LEN  # per query token, per layer
    products = NUM_HEADS * SEQ_LEN * HEAD_DIM  # head_dim multiply-adds per score
    return f"1/{products // bias}"
