"""The chapter's parameters and number formats, shared by its modules."""

from __future__ import annotations

# ---- the toy model of the distance figure: trained on TRAIN positions, reading SEQ_LEN
TRAIN, SEQ_LEN = 32, 96
#: Self-Extend's G and w, and llama.cpp's --grp-attn-n and --grp-attn-w (W = w here).
GROUP, WINDOW = 4, 8
#: DCA: chunk_size equal to the training length, as Qwen2.5-1M's config sets it.
CHUNK, LOCAL = TRAIN, 8
#: ReRoPE's window and leaky ReRoPE's factor (16, as in the reference code).
REROPE_WINDOW, LEAKY = 8, 16

# ---- a Llama 2 sized model (4,096 positions) for the tables
LLAMA2 = 4096
#: Self-Extend and llama.cpp with the same G and w = W.
SE_GROUP, SE_WINDOW = 8, 1024
#: Tokens llama.cpp reads a prompt in (--batch-size); it groups only between batches.
BATCH = 2048
#: A prompt whose keys' rotations are measured: 3,072 tokens, -gan 8 -gaw 1024 -b 512.
LONG_PROMPT, LONG_GROUP, LONG_WIDTH, LONG_BATCH = 3072, 8, 1024, 512
#: ChunkLlama's replace_with_chunkllama: chunk_size = 3c/4, local_size = c/8.
CL_CHUNK, CL_LOCAL = 3 * LLAMA2 // 4, LLAMA2 // 8
#: ReRoPE's reference code: window 512, leaky factor 16.
RR_WINDOW, RR_FACTOR = 512, 16
#: Text lengths of the largest-distance table (the longest Self-Extend serves is added).
LENGTHS = (4096, 16384, 65536, 1_048_576)
#: The README's example text length, and the neighbour windows it advises for Llama 2.
README_LENGTH, README_W_LOW, README_W_HIGH = 15800, 512, 1536
#: Target lengths of the group-size table.
TARGETS = (8192, README_LENGTH, 32768, 65536, 131072)
#: The README's empirical share of the trained distances to use.
FRACTION = 2 / 3

#: The gallery entry whose dual_chunk_attention_config the chapter reads.
QWEN = "qwen2.5-14b-instruct-1m"

# ---- PoSE: a window of POSE_TRAIN tokens given ids spread over POSE_TARGET
POSE_TRAIN, POSE_TARGET, POSE_DRAWS, POSE_SEED = 32, 128, 6, 0

QUOTED = (
    "LONG_PROMPT",
    "LONG_GROUP",
    "LONG_WIDTH",
    "LONG_BATCH",
    "TRAIN",
    "SEQ_LEN",
    "GROUP",
    "WINDOW",
    "CHUNK",
    "LOCAL",
    "REROPE_WINDOW",
    "LEAKY",
    "LLAMA2",
    "SE_GROUP",
    "SE_WINDOW",
    "BATCH",
    "CL_CHUNK",
    "CL_LOCAL",
    "RR_WINDOW",
    "RR_FACTOR",
    "README_LENGTH",
    "README_W_LOW",
    "README_W_HIGH",
    "POSE_TRAIN",
    "POSE_TARGET",
    "POSE_DRAWS",
)


def tex_int(n: int) -> str:
    """An integer for a formula: ``1{,}024``, one number with its thousands separator."""
    return f"{n:,}".replace(",", "{,}")


def distance_text(x) -> str:
    """A distance as the prose writes it: whole numbers with separators, else one decimal."""
    x = float(x)
    return f"{x:,.0f}" if x.is_integer() else f"{x:,.1f}"
