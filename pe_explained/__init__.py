"""pe_explained: every positional encoding the book discusses, in numpy.

The functions follow the published formulas and the conventions of real model
code; the book's figures and tables are computed from them at build time.
"""

from .alibi import alibi_bias, alibi_slopes
from .conventions import fairseq_positions, fairseq_sinusoidal, tensor2tensor_timing_signal
from .deberta import deberta_relative_index, disentangled_scores, disentangled_terms
from .hf_config import (
    config_attention_temperature,
    config_rope_frequencies,
    layer_rope_types,
    rope_settings,
)
from .layer import SinusoidalPositionalEncoding, TokenEmbedding
from .learned import LearnedPositionalEmbedding, learned_parameter_count
from .mla import mla_scores, mla_softmax_scale
from .model_report import inspect_config
from .multimodal import (
    apply_mrope,
    apply_rope_2d,
    mrope_pair_axes,
    mrope_position_ids,
    patch_grid_positions,
    rope_2d_frequencies,
)
from .nope import nope_position_signal, recover_positions, uniform_attention
from .position_ids import opt_position_rows, position_ids_from_mask
from .precision import (
    ANGLE_PRECISIONS,
    first_colliding_position,
    float32_rope_cos_sin,
    rope_angle_error,
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
from .sinusoidal import LAYOUTS, sinusoidal, sinusoidal_frequencies, sinusoidal_wavelengths
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
    "alibi_bias",
    "alibi_slopes",
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
    "relative_shift",
    "position_ids_from_mask",
    "opt_position_rows",
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
    "stored_positions",
    "xpos_centred_positions",
    "xpos_safe_position",
    "apply_mrope",
    "apply_rope_2d",
    "mrope_pair_axes",
    "mrope_position_ids",
    "patch_grid_positions",
    "rope_2d_frequencies",
    "rope_settings",
    "config_rope_frequencies",
    "layer_rope_types",
    "config_attention_temperature",
    "attention_temperature",
    "mla_scores",
    "mla_softmax_scale",
    "inspect_config",
]

__version__ = "0.1.0"
