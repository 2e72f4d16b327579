"""pe_explained: every positional encoding the book discusses, in numpy.

The functions follow the published formulas and the conventions of real model
code; the book's figures and tables are computed from them at build time.
"""

from .alibi import ALIBI_FORMS, BIAS_DTYPES, alibi_bias, alibi_slopes, alibi_weight_error
from .conventions import fairseq_positions, fairseq_sinusoidal, tensor2tensor_timing_signal
from .cope import cope_bias, cope_positions
from .deberta import deberta_relative_index, disentangled_scores, disentangled_terms
from .draft_tree import draft_tree_positions
from .dual_chunk import (
    dual_chunk_attention_factor,
    dual_chunk_config,
    dual_chunk_distances,
    dual_chunk_largest_distance,
    dual_chunk_position_ids,
)
from .fire import fire_bias, fire_normalized_distance
from .hf_nonrotary import nonrotary_positions
from .kerple import KERPLE_VARIANTS, kerple_bias
from .kv_cache import cached_angle_error, key_error, repeated_shift_error, shift_rotated_keys
from .layer import SinusoidalPositionalEncoding, TokenEmbedding
from .learned import LearnedPositionalEmbedding, learned_parameter_count
from .mla import mla_cache_size, mla_scores, mla_softmax_scale
from .model_reading import (
    ModelPositions,
    config_attention_temperature,
    config_rope_frequencies,
    layer_positions,
    layer_rope_types,
    read_model,
    rope_settings,
)
from .model_report import inspect_config
from .multimodal import (
    apply_mrope,
    apply_rope_2d,
    mrope_pair_axes,
    mrope_position_ids,
    mrope_video_position_ids,
    patch_grid_positions,
    rope_2d_frequencies,
)
from .nope import nope_position_signal, recover_positions, uniform_attention
from .packing import (
    attended_offsets,
    cu_seqlens_from_position_ids,
    packed_causal_mask,
    packed_position_ids,
    packed_sequence_ids,
)
from .port_checks import check_rope_port, example_rope_port
from .pose import pose_position_ids
from .position_ids import opt_position_rows, position_ids_from_mask, score_shift_error
from .precision import (
    ANGLE_PRECISIONS,
    first_colliding_position,
    float32_rope_cos_sin,
    rope_angle_error,
    rope_score_error,
    round_to_bfloat16,
    stored_positions,
)
from .properties import slow_pair_count
from .relative import (
    four_term_scores,
    relative_distances,
    relative_sinusoid,
    shaw_attention,
    shaw_relative_index,
    transformer_xl_terms,
)
from .relative_shift import relative_shift, skew
from .rerope import rerope_distances, rerope_largest_distance
from .rope import (
    ROPE_TYPES,
    apply_rope,
    interleaved_to_halves_permutation,
    ntk_aware_base,
    rope_decay_bound,
    rope_decay_bound_mean,
    rope_frequencies,
    rope_pair_groups,
    rope_wavelengths,
    yarn_correction_range,
)
from .runtimes import (
    llama_cpp_arguments,
    runtime_arguments,
    vllm_arguments,
    vllm_max_model_len,
)
from .self_extend import (
    group_attention_distances,
    group_attention_largest_distance,
    group_attention_rotated_distances,
    self_extend_distances,
    self_extend_group_size,
    self_extend_largest_distance,
    self_extend_max_length,
)
from .sinusoidal import LAYOUTS, sinusoidal, sinusoidal_frequencies, sinusoidal_wavelengths
from .streaming import learned_sink_weights, streaming_distances, streaming_positions
from .t5 import t5_relative_bucket
from .temperature import attention_temperature
from .xpos import (
    expected_rotary_score,
    xpos_centred_positions,
    xpos_safe_position,
    xpos_scale,
    xpos_zeta,
)

__all__ = [
    "ROPE_TYPES",
    "apply_rope",
    "interleaved_to_halves_permutation",
    "ntk_aware_base",
    "rope_decay_bound",
    "rope_decay_bound_mean",
    "rope_frequencies",
    "rope_wavelengths",
    "yarn_correction_range",
    "ALIBI_FORMS",
    "BIAS_DTYPES",
    "alibi_bias",
    "alibi_slopes",
    "alibi_weight_error",
    "expected_rotary_score",
    "fairseq_positions",
    "fairseq_sinusoidal",
    "nope_position_signal",
    "recover_positions",
    "t5_relative_bucket",
    "tensor2tensor_timing_signal",
    "uniform_attention",
    "xpos_scale",
    "xpos_zeta",
    "SinusoidalPositionalEncoding",
    "TokenEmbedding",
    "LearnedPositionalEmbedding",
    "learned_parameter_count",
    "four_term_scores",
    "relative_distances",
    "relative_sinusoid",
    "shaw_attention",
    "shaw_relative_index",
    "transformer_xl_terms",
    "KERPLE_VARIANTS",
    "kerple_bias",
    "fire_bias",
    "fire_normalized_distance",
    "cope_bias",
    "cope_positions",
    "relative_shift",
    "position_ids_from_mask",
    "opt_position_rows",
    "score_shift_error",
    "shift_rotated_keys",
    "repeated_shift_error",
    "draft_tree_positions",
    "cached_angle_error",
    "key_error",
    "streaming_positions",
    "streaming_distances",
    "learned_sink_weights",
    "packed_position_ids",
    "packed_causal_mask",
    "cu_seqlens_from_position_ids",
    "packed_sequence_ids",
    "attended_offsets",
    "self_extend_distances",
    "self_extend_largest_distance",
    "self_extend_max_length",
    "self_extend_group_size",
    "group_attention_distances",
    "group_attention_largest_distance",
    "group_attention_rotated_distances",
    "dual_chunk_position_ids",
    "dual_chunk_distances",
    "dual_chunk_largest_distance",
    "dual_chunk_config",
    "dual_chunk_attention_factor",
    "rerope_distances",
    "rerope_largest_distance",
    "pose_position_ids",
    "deberta_relative_index",
    "disentangled_terms",
    "disentangled_scores",
    "skew",
    "LAYOUTS",
    "sinusoidal",
    "sinusoidal_frequencies",
    "sinusoidal_wavelengths",
    "rope_pair_groups",
    "slow_pair_count",
    "ANGLE_PRECISIONS",
    "first_colliding_position",
    "float32_rope_cos_sin",
    "rope_angle_error",
    "rope_score_error",
    "round_to_bfloat16",
    "stored_positions",
    "xpos_centred_positions",
    "xpos_safe_position",
    "apply_mrope",
    "apply_rope_2d",
    "mrope_pair_axes",
    "mrope_position_ids",
    "mrope_video_position_ids",
    "patch_grid_positions",
    "rope_2d_frequencies",
    "read_model",
    "ModelPositions",
    "rope_settings",
    "config_rope_frequencies",
    "layer_positions",
    "nonrotary_positions",
    "layer_rope_types",
    "config_attention_temperature",
    "attention_temperature",
    "mla_cache_size",
    "mla_scores",
    "mla_softmax_scale",
    "inspect_config",
    "llama_cpp_arguments",
    "vllm_arguments",
    "vllm_max_model_len",
    "runtime_arguments",
    "check_rope_port",
    "example_rope_port",
]

__version__ = "0.1.0"
