"""Chapter 16, conventions side by side: layouts, spacing, offsets, padding rows, RoPE layout."""

from __future__ import annotations

import numpy as np

from pe_explained import sinusoidal
from pe_explained.conventions import (
    fairseq_positions,
    fairseq_sinusoidal,
    tensor2tensor_timing_signal,
)
from pe_explained.hf_config import _INTERLEAVED_MODEL_TYPES
from pe_explained.rope import apply_rope, interleaved_to_halves_permutation, rope_frequencies

from .. import Table, table, value

D_MODEL, NUM_TOKENS, PADDING_IDX = 512, 1024, 1
HEAD_DIM, SEQ = 128, 64
YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
#: The models the page names as examples of interleaved pairs, with the ``model_type`` of
#: each; every one is in the library's list (``tests/test_interleaved_models.py``).
INTERLEAVED_EXAMPLES = {
    "GPT-J": ("gptj",),
    "CodeGen": ("codegen",),
    "Command R": ("cohere",),
    "Command R7B": ("cohere2",),
    "GLM": ("glm", "glm4"),
    "ERNIE 4.5": ("ernie4_5", "ernie4_5_moe"),
    "Helium": ("helium",),
    "RoFormer": ("roformer",),
    "Llama 4": ("llama4", "llama4_text"),
    "DeepSeek-V2": ("deepseek_v2",),
    "DeepSeek-V3": ("deepseek_v3",),
}


def _as_tokens_read_them() -> dict[str, np.ndarray]:
    """Rows for tokens 0 … NUM_TOKENS−1 under each convention (fairseq: shifted rows)."""
    rows = fairseq_positions(np.ones(NUM_TOKENS, dtype=bool), padding_idx=PADDING_IDX)
    fairseq = fairseq_sinusoidal(int(rows.max()) + 1, D_MODEL, padding_idx=PADDING_IDX)
    return {
        "paper": sinusoidal(NUM_TOKENS, D_MODEL),
        "halves": sinusoidal(NUM_TOKENS, D_MODEL, layout="halves"),
        "t2t": tensor2tensor_timing_signal(NUM_TOKENS, D_MODEL),
        "fairseq_table": fairseq_sinusoidal(NUM_TOKENS, D_MODEL),  # no padding row
        "fairseq": fairseq[rows],
    }


def _measured_frequencies(table_halves: np.ndarray) -> np.ndarray:
    """ω_i read back from row 1 of a [sin | cos] table: atan2(sin ω, cos ω)."""
    half = table_halves.shape[1] // 2
    return np.arctan2(table_halves[1, :half], table_halves[1, half:])


@table(
    "overview",
    caption=f"Four sinusoidal conventions at d_model = {D_MODEL}; the frequencies are read "
    "back from each table's row 1.",
)
def _():
    t = _as_tokens_read_them()
    paper_halves = t["halves"]
    fairseq_full = fairseq_sinusoidal(4, D_MODEL)
    cases = [
        ("paper (Vaswani et al.)", "interleaved: sin, cos, sin, …", paper_halves, 0, "none"),
        (
            "split halves (Hugging Face Marian, Pegasus)",
            "all sin, then all cos",
            paper_halves,
            0,
            "none",
        ),
        ("tensor2tensor", "all sin, then all cos", t["t2t"], 0, "none"),
        (
            "fairseq",
            "all sin, then all cos",
            fairseq_full,
            PADDING_IDX + 1,
            f"row {PADDING_IDX} all zeros",
        ),
    ]
    rows = []
    for name, layout, tab, first_row, padding in cases:
        omega = _measured_frequencies(tab)
        # omega_1 = 10000^(-1/denominator)  =>  denominator = ln(10000) / -ln(omega_1)
        denominator = np.log(10000.0) / -np.log(omega[1])
        rows.append([name, layout, denominator, 2 * np.pi / omega[-1], first_row, padding])
    return Table(
        [
            "convention",
            "layout",
            "exponent denominator",
            "last-pair wavelength",
            "row read by token 0",
            "padding row",
        ],
        rows,
        formats={"exponent denominator": ".6g", "last-pair wavelength": ",.0f"},
    )


@table(
    "differences",
    caption="The largest difference between the vectors that tokens "
    f"0–{NUM_TOKENS - 1:,} receive, d_model = {D_MODEL}.",
)
def _():
    t = _as_tokens_read_them()
    order = interleaved_to_halves_permutation(D_MODEL)
    cases = [
        ("paper vs split halves", "column order only", t["paper"], t["halves"]),
        ("paper, columns reordered, vs split halves", "nothing", t["paper"][:, order], t["halves"]),
        ("split halves vs tensor2tensor", "frequency spacing (denominator)", t["halves"], t["t2t"]),
        (
            "tensor2tensor vs fairseq table without padding row",
            "nothing (same formula)",
            t["t2t"],
            t["fairseq_table"],
        ),
        (
            "tensor2tensor vs fairseq as tokens read it",
            f"offset: token $t$ reads row $t + {PADDING_IDX + 1}$",
            t["t2t"],
            t["fairseq"],
        ),
    ]
    rows = [[name, what, float(np.abs(a - b).max())] for name, what, a, b in cases]
    return Table(["compared", "what differs", "largest difference"], rows, default_format=".2e")


def _scores(q, k, inv_freq, layout, attention_factor=1.0):
    rq = apply_rope(q, SEQ, inv_freq, layout=layout, attention_factor=attention_factor)
    rk = apply_rope(k, SEQ, inv_freq, layout=layout, attention_factor=attention_factor)
    return rq @ rk.T


@table(
    "rope_layouts",
    caption=f"RoPE conventions, head_dim = {HEAD_DIM}, {SEQ} positions, random queries and "
    "keys: what changes in the attention scores $q^\\top k$.",
)
def _():
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(2, SEQ, HEAD_DIM))
    inv_freq, _ = rope_frequencies(HEAD_DIM)
    inter = _scores(q, k, inv_freq, "interleaved")
    halves_same = _scores(q, k, inv_freq, "halves")
    perm = interleaved_to_halves_permutation(HEAD_DIM)
    halves_perm = _scores(q[:, perm], k[:, perm], inv_freq, "halves")
    yarn_freq, factor = rope_frequencies(HEAD_DIM, scaling=YARN)
    plain = _scores(q, k, yarn_freq, "halves")
    scaled = _scores(q, k, yarn_freq, "halves", attention_factor=factor)
    rows = [
        [
            "interleaved vs halves, same $q$ and $k$",
            "largest score difference",
            float(np.abs(inter - halves_same).max()),
        ],
        [
            "interleaved vs halves, $q$ and $k$ dimensions permuted",
            "largest score difference",
            float(np.abs(inter - halves_perm).max()),
        ],
        [
            f"YaRN (factor {YARN['factor']:g}) with vs without `attention_factor`",
            "score ratio (median)",
            float(np.median(scaled / plain)),
        ],
    ]
    return Table(["compared", "measure", "value"], rows, default_format=".4g")


@value("yarn_attention_factor_squared")
def _():
    _, factor = rope_frequencies(HEAD_DIM, scaling=YARN)
    return f"{factor**2:.4f}"


@value("t2t_last_wavelength")
def _():
    return f"{2 * np.pi / _measured_frequencies(tensor2tensor_timing_signal(2, D_MODEL))[-1]:,.0f}"


@value("paper_last_wavelength")
def _():
    return f"{2 * np.pi / _measured_frequencies(sinusoidal(2, D_MODEL, layout='halves'))[-1]:,.0f}"


@value("interleaved_model_types")
def _():
    # the library's list, whole: the page names examples from it and says it is not complete
    return ", ".join(f"`{t}`" for t in sorted(_INTERLEAVED_MODEL_TYPES))


@value("interleaved_model_type_count")
def _():
    return str(len(_INTERLEAVED_MODEL_TYPES))
