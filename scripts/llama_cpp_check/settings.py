"""The position settings run in llama.cpp: one tiny model per setting, built in transformers.

Each :class:`Setting` is a ``config.json`` of a small model with random weights (two
layers, width 128, four heads of 32 dims, a vocabulary of 256) in one family that
llama.cpp's converter accepts, chosen so that its positions are one setting the book's
``inspect --for llama.cpp`` prints flags for. Contexts are short (an original context
of 64 tokens, a prompt of :data:`PROMPT` tokens) so that every position past the
original context is reached in a second on a CPU; the weights are drawn with a larger
spread than the families' defaults (``initializer_range``), so that attention is peaked
and a wrong position moves the logits well above float32's noise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Tokens in the prompt compared (positions 0 … PROMPT − 1).
PROMPT = 192
#: The original (pre-extension) context of the settings that extend one.
ORIGINAL = 64
#: The context the flags are printed for (``--seq-len``, so ``-c``): the models' own
#: max_position_embeddings, or more where a config states less than the prompt.
CONTEXT = 256
#: What every tiny model shares.
COMMON = {
    "vocab_size": 256,
    "hidden_size": 128,
    "intermediate_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 32,
    "initializer_range": 0.25,
    "tie_word_embeddings": False,
    "max_position_embeddings": 256,
    "pad_token_id": 0,
    "bos_token_id": 1,
    "eos_token_id": 2,
}


@dataclass(frozen=True)
class Setting:
    """One position setting: the tiny model's config and what llama.cpp makes of it."""

    name: str
    #: The setting in words, as chapter 26's table shows it.
    label: str
    #: transformers' ``model_type`` of the tiny model.
    model_type: str
    #: Fields of its config.json beyond :data:`COMMON`.
    config: dict = field(default_factory=dict)
    #: The GGUF architecture llama.cpp's converter writes for it.
    arch: str = "llama"
    #: How the rotated pairs are laid out, in transformers → in llama.cpp.
    layout: str = "halves → halves (NEOX)"
    #: Whether llama.cpp can reproduce it: ``False`` where ``inspect --for llama.cpp`` warns
    #: that it cannot, which the run must confirm (the logits must differ).
    reproducible: bool = True
    #: The family's feed-forward uses GELU, which ggml's CPU kernel reads from a float16
    #: table: its output projection is zeroed (see :func:`models.build`).
    gelu: bool = False

    def hf_config(self) -> dict:
        return {**COMMON, "model_type": self.model_type, **self.config}


def _rope(rope_type: str = "default", theta: float = 10_000.0, **extra) -> dict:
    return {"rope_parameters": {"rope_type": rope_type, "rope_theta": theta, **extra}}


_LLAMA_LAYOUT = "halves → pairs (NORM; the converter permutes q, k)"
_YARN = {"factor": 4.0, "original_max_position_embeddings": ORIGINAL}

#: DeepSeek-V2's positions: YaRN with its mscale pair, and MLA (a latent of 32 and a
#: rotary key of 16 dims cached per token, shared by the heads).
_DEEPSEEK = {
    **_rope("yarn", **_YARN, mscale=0.707, mscale_all_dim=0.707),
    # llama.cpp's deepseek2 loader requires q_lora_rank in the GGUF, which the
    # converter writes only when the config has one
    "q_lora_rank": 32,
    "kv_lora_rank": 32,
    "qk_rope_head_dim": 16,
    "qk_nope_head_dim": 16,
    "v_head_dim": 16,
    "head_dim": 16,
    "num_key_value_heads": 4,
    "first_k_dense_replace": 2,  # every layer dense: no experts to route
    "n_routed_experts": 4,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 64,
}

SETTINGS = (
    Setting("plain-1e4", "plain RoPE, base 10⁴", "llama", _rope(), layout=_LLAMA_LAYOUT),
    Setting("plain-5e5", "plain RoPE, base 5·10⁵", "llama", _rope(theta=5e5), layout=_LLAMA_LAYOUT),
    Setting(
        "linear",
        "linear (PI), ×4",
        "llama",
        _rope("linear", factor=4.0),
        layout=_LLAMA_LAYOUT,
    ),
    Setting(
        "llama3",
        "Llama 3's rule, ×8",
        "llama",
        _rope(
            "llama3",
            theta=5e5,
            factor=8.0,
            low_freq_factor=1.0,
            high_freq_factor=4.0,
            original_max_position_embeddings=ORIGINAL,
        ),
        layout=_LLAMA_LAYOUT,
    ),
    Setting("yarn", "YaRN ×4 (Qwen-style)", "qwen2", _rope("yarn", **_YARN), arch="qwen2"),
    Setting(
        "yarn-betas",
        "YaRN ×4, β 4 and 0.5, attention factor 1",
        "qwen2",
        _rope("yarn", **_YARN, beta_fast=4.0, beta_slow=0.5, attention_factor=1.0),
        arch="qwen2",
    ),
    Setting(
        "yarn-ministral3",
        "YaRN ×4, mscale = mscale_all_dim = 1 (Ministral 3)",
        "ministral3",
        _rope("yarn", **_YARN, mscale=1.0, mscale_all_dim=1.0, llama_4_scaling_beta=0.0),
        arch="mistral3",
        layout=_LLAMA_LAYOUT,
    ),
    Setting(
        "yarn-deepseek",
        "YaRN ×4, mscale = mscale_all_dim = 0.707, MLA (DeepSeek-V2)",
        "deepseek_v2",
        _DEEPSEEK,
        arch="deepseek2",
    ),
    Setting(
        "longrope",
        "LongRoPE (Phi-3), long factors",
        "phi3",
        {
            **_rope(
                "longrope",
                short_factor=[1.0 + 0.05 * i for i in range(16)],
                long_factor=[1.0 + 0.4 * i for i in range(16)],
                original_max_position_embeddings=ORIGINAL,
            ),
            "original_max_position_embeddings": ORIGINAL,
        },
        arch="phi3",
    ),
    Setting(
        "partial",
        "partial rotation, half of each head (Phi-2)",
        "phi",
        # the converter writes a feed-forward width of 4 × hidden (phi.py), whatever the config
        {**_rope(partial_rotary_factor=0.5), "num_key_value_heads": 4, "intermediate_size": 512},
        arch="phi2",
        gelu=True,
    ),
    Setting(
        "gemma3",
        "sliding-window and global layers in turn, bases 10⁴ and 10⁶, linear ×8 (Gemma 3)",
        "gemma3_text",
        {
            "rope_parameters": {
                "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
                "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
            },
            # llama.cpp's gemma3 loader takes every sixth layer as global unless told another
            # period (the converter writes no pattern): this one needs the override
            "layer_types": ["sliding_attention", "full_attention"],
            "sliding_window": 32,
            "query_pre_attn_scalar": 32,
        },
        arch="gemma3",
        gelu=True,
    ),
    Setting(
        "yarn-untruncated",
        "YaRN ×4 with truncate: false (gpt-oss)",
        "qwen2",
        _rope("yarn", **_YARN, truncate=False),
        arch="qwen2",
        reproducible=False,
    ),
    Setting(
        "dynamic",
        "dynamic NTK ×4, prompt longer than the original context",
        "llama",
        {**_rope("dynamic", factor=4.0), "max_position_embeddings": ORIGINAL},
        layout=_LLAMA_LAYOUT,
        reproducible=False,
    ),
    Setting(
        "interleaved",
        "interleaved pairs (Cohere Command R)",
        "cohere",
        {**_rope(theta=5e5), "logit_scale": 1.0, "tie_word_embeddings": True},
        arch="command-r",
        layout="pairs → pairs (NORM)",
    ),
)

BY_NAME = {s.name: s for s in SETTINGS}

#: One-layer models for measuring the cache operations (with one layer a cached key
#: depends on its token and its rotation only, so transformers is an exact reference).
CACHE_SETTINGS = (
    Setting(
        "cache-plain",
        "plain RoPE, one layer",
        "llama",
        {**_rope(), "num_hidden_layers": 1},
        layout=_LLAMA_LAYOUT,
    ),
    Setting(
        "cache-yarn4",
        "YaRN ×4, one layer",
        "qwen2",
        {**_rope("yarn", **_YARN), "num_hidden_layers": 1},
        arch="qwen2",
    ),
    Setting(
        "cache-yarn8",
        "YaRN ×8, one layer",
        "qwen2",
        {**_rope("yarn", factor=8.0, original_max_position_embeddings=32), "num_hidden_layers": 1},
        arch="qwen2",
    ),
    Setting(
        "cache-mla-yarn4",
        "YaRN ×4, mscale = mscale_all_dim = 0.707, MLA (DeepSeek-V2), one layer",
        "deepseek_v2",
        {**_DEEPSEEK, "num_hidden_layers": 1, "first_k_dense_replace": 1},
        arch="deepseek2",
    ),
)

BY_NAME = {s.name: s for s in SETTINGS + CACHE_SETTINGS}
