"""Chapter 17, choosing an encoding: parameters and per-layer work for one configuration."""

from __future__ import annotations

from pe_explained.learned import learned_parameter_count
from pe_explained.rope import rope_frequencies

from .. import Table, table, value

D_MODEL, NUM_HEADS, NUM_LAYERS, SEQ_LEN, T5_BUCKETS = 4096, 32, 32, 4096, 32
HEAD_DIM = D_MODEL // NUM_HEADS


def _cite(*keys: str) -> str:
    """A citation of ``keys``, expanded by the page's shortcode stage as on the pages."""
    return f"{{{{ cite: {', '.join(keys)} }}}}"


@table(
    "at_a_glance",
    caption="The encodings side by side: where each acts, what it knows about position, "
    "what has been measured beyond the training length, and models that use it.",
)
def _():
    glance = [
        (
            "sinusoidal ([ch. 3](../foundations/sinusoidal.md))",
            "added to the input embeddings",
            "absolute (relative through rotation)",
            f"degrades in ALiBi's tests {_cite('press2022')}",
            f"original Transformer {_cite('vaswani2017')}",
        ),
        (
            "learned absolute ([ch. 9](../model/learned.md))",
            "added to the input embeddings",
            "absolute",
            "none: no row for position $L_{\\max}$",
            f"BERT {_cite('devlin2019')}, GPT-2 {_cite('radford2019')}",
        ),
        (
            "T5 relative bias ([ch. 13](../modern/t5-bias.md))",
            "added to every score",
            "relative, bucketed",
            f"any length runs; degrades in ALiBi's language-model tests {_cite('press2022')}, "
            f"best explicit encoding on small reasoning tasks {_cite('kazemnejad2023')}",
            f"T5 {_cite('raffel2020')}",
        ),
        (
            "ALiBi ([ch. 12](../modern/alibi.md))",
            "added to every score",
            "relative, linear penalty",
            f"stable perplexity beyond training length {_cite('press2022')}",
            f"BLOOM {_cite('bigscience2022')}, MPT {_cite('mosaicml2023')}",
        ),
        (
            "RoPE ([ch. 11](../modern/rope.md))",
            "rotates queries and keys",
            "relative (from absolute rotations)",
            "degrades without rescaling; extended by PI, NTK, YaRN "
            f"([ch. 15](../modern/context-extension.md); "
            f"{_cite('chen2023', 'peng2024')})",
            f"GPT-NeoX {_cite('black2022')}, Llama {_cite('touvron2023')}, "
            f"Mistral {_cite('jiang2023')}, Qwen {_cite('bai2023')}",
        ),
        (
            "xPos ([ch. 14](../modern/xpos-nope.md))",
            "rotates and scales queries and keys",
            "relative, with decay",
            f"reported better than RoPE past training length {_cite('sun2023')}; on the "
            "book's models it nearly holds its loss but loses a far key ([ch. 22](evidence.md))",
            "research models",
        ),
        (
            "NoPE ([ch. 14](../modern/xpos-nope.md))",
            "nowhere: the causal mask alone",
            "implicit (decoders only)",
            f"generalised better on small reasoning tasks {_cite('kazemnejad2023')}; "
            f"longer context than explicit encodings, yet limited {_cite('wang2024nope')}",
            f"research models {_cite('haviv2022')}; some layers of Llama 4 and Command R7B "
            "([ch. 21](todays-models.md))",
        ),
    ]
    return Table(
        [
            "encoding",
            "where it acts",
            "absolute or relative",
            "length beyond training",
            "notable models",
        ],
        glance,
    )


@table(
    "costs",
    caption=f"One decoder configuration: d_model = {D_MODEL:,}, {NUM_HEADS} heads of "
    f"{HEAD_DIM}, {NUM_LAYERS} layers, sequences of {SEQ_LEN:,} tokens.",
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
