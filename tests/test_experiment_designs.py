"""The experiments' newer designs use what the library says, and fail on a wrong answer.

- Remapped positions (Self-Extend, ReRoPE, Dual Chunk Attention): the passes a model
  attends with give exactly the library's distance matrices, and the attention they
  give equals a direct computation ``q · R(D_ij) k`` with the library's distances.
- The layer patterns of the 2025–26 designs are ``pe_explained.layer_positions``'s; the
  sliding window masks the keys it should; partial and proportional rotation leave the
  unrotated dims alone and rotate the others as ``pe_explained.apply_rope`` does.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_experiments import _torch, experiments  # noqa: F401  (loads the package)

import pe_explained as pe


def _model(encoding: str, **settings):
    _torch()
    from experiments.model import ModelConfig, TinyDecoder

    return TinyDecoder(ModelConfig(encoding=encoding, train_len=16, **settings))


def _remaps():
    from experiments.remap import DualChunk, ReRoPE, SelfExtend

    return [SelfExtend(3, 4), SelfExtend(2, 4), ReRoPE(5), DualChunk(10, 4), DualChunk(6, 1)]


@pytest.mark.parametrize("length", [1, 7, 23, 40])
def test_the_passes_give_the_librarys_distances(length):
    _torch()
    from experiments.remap import implied_distances

    for remap in _remaps():
        np.testing.assert_array_equal(
            implied_distances(remap, length), remap.distances(length), err_msg=repr(remap)
        )


def test_the_distance_check_fails_on_a_wrong_pass():
    """A Self-Extend whose grouped query forgets the shift gives other distances."""
    _torch()
    from experiments.remap import SelfExtend, implied_distances

    class Unshifted(SelfExtend):
        def passes(self, length):
            (exact, grouped) = super().passes(length)
            query, key, region = grouped
            return [exact, (np.arange(length) // self.group_size * 1.0, key, region)]

    wrong = Unshifted(3, 4)
    assert not np.array_equal(implied_distances(wrong, 30), wrong.distances(30))


def _direct_attention(q, k, v, distances, inv_freq):
    """softmax_j(q_i · R(D_ij) k_j / √d) v, one (i, j) at a time, with pe.apply_rope."""
    n, d = q.shape
    logits = np.full((n, n), -np.inf)
    for i in range(n):
        for j in range(i + 1):
            turned = pe.apply_rope(q[i][None], [distances[i, j]], inv_freq, layout="halves")
            logits[i, j] = turned[0] @ k[j] / np.sqrt(d)
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (weights / weights.sum(axis=1, keepdims=True)) @ v


def test_remapped_attention_is_q_rotated_by_the_librarys_distance():
    torch = _torch()
    from experiments.model import remapped_attention, rope_cos_sin

    n, d = 19, 8
    rng = np.random.default_rng(3)
    q, k, v = (rng.normal(size=(n, d)) for _ in range(3))
    inv_freq, _ = pe.rope_frequencies(d, base=100.0)
    for remap in _remaps():
        passes = []
        for query, key, region in remap.passes(n):
            passes.append(
                (
                    *rope_cos_sin(inv_freq, 1.0, query),
                    *rope_cos_sin(inv_freq, 1.0, key),
                    torch.from_numpy(region),
                )
            )
        t = [torch.from_numpy(x).float() for x in (q, k, v)]
        got = remapped_attention(*t, passes).numpy()
        want = _direct_attention(q, k, v, remap.distances(n), inv_freq)
        np.testing.assert_allclose(got, want, atol=2e-5, err_msg=repr(remap))


def test_a_remap_that_changes_nothing_gives_the_plain_models_logits():
    """ReRoPE with a window longer than the text is plain RoPE: the same logits."""
    torch = _torch()
    from experiments.remap import ReRoPE

    model = _model("rope", layers=2, d_model=32, heads=2).eval()
    tokens = torch.from_numpy(np.random.default_rng(0).integers(0, 40, size=(2, 30)))
    with torch.no_grad():
        plain = model(tokens)
        model.remap = ReRoPE(window=64)
        remapped = model(tokens)
        model.remap = ReRoPE(window=4)
        capped = model(tokens)
    torch.testing.assert_close(remapped, plain, atol=2e-5, rtol=1e-5)
    assert not torch.allclose(capped[:, 10:], plain[:, 10:], atol=1e-3)


@pytest.mark.parametrize(
    ("encoding", "model_type"), [("rope_nope", "smollm3"), ("swa_nope", "cohere2")]
)
def test_the_layer_patterns_are_the_librarys(encoding, model_type):
    _torch()
    from experiments.model import ModelConfig

    config = ModelConfig(encoding=encoding, train_len=64, layers=8)
    layers = config.layers_rotated()
    expected = [(p.source == "rotary", p.window) for p in pe.layer_positions(config.layer_config())]
    assert list(layers) == expected and config.layer_config()["model_type"] == model_type
    assert [r for r, _ in layers] == [True, True, True, False] * 2  # every 4th: no rotation
    windows = {w for r, w in layers if r}
    assert windows == ({16} if encoding == "swa_nope" else {None})


def test_the_sliding_window_hides_keys_beyond_it():
    torch = _torch()
    model = _model("swa_nope", layers=4, d_model=32, heads=2)  # window 16 // 4 = 4
    mask = model.attention(0, 10).bias.numpy()
    visible = np.isfinite(mask)
    i, j = np.indices(mask.shape)
    np.testing.assert_array_equal(visible, (i - j >= 0) & (i - j < 4))
    nope = model.attention(3, 10)
    assert nope.rotation is None and nope.bias is None  # global, causal, not rotated
    assert torch.is_tensor(model.attention(0, 10).rotation[0])


@pytest.mark.parametrize("encoding", ["partial", "p_rope"])
def test_partial_and_proportional_rotation_leave_the_rest_alone(encoding):
    torch = _torch()
    from experiments.model import rotate

    model = _model(encoding, d_model=64, heads=2)  # head_dim 32
    n, head_dim = 50, 32
    cos, sin, _, _ = model.rotation(n)
    x = np.random.default_rng(1).normal(size=(n, head_dim))
    got = rotate(torch.from_numpy(x).float(), cos, sin).numpy()
    if encoding == "partial":  # a quarter of the dims, their own ladder
        inv_freq, _ = pe.rope_frequencies(head_dim, partial_rotary_factor=0.25)
        assert cos.shape[-1] == 8
        want = np.concatenate(
            [pe.apply_rope(x[:, :8], n, inv_freq, layout="halves"), x[:, 8:]], axis=1
        )
    else:  # the whole ladder, slow pairs at frequency 0
        scaling = {"rope_type": "proportional", "partial_rotary_factor": 0.25}
        inv_freq, _ = pe.rope_frequencies(head_dim, scaling=scaling)
        assert (inv_freq[4:] == 0).all() and (inv_freq[:4] > 0).all()
        want = pe.apply_rope(x, n, inv_freq, layout="halves")
        unrotated = [c for c in range(head_dim) if c % 16 >= 4]
        np.testing.assert_array_equal(got[:, unrotated], x[:, unrotated].astype(np.float32))
    np.testing.assert_allclose(got, want, atol=2e-5)


def test_the_high_base_model_uses_base_one_million():
    model = _model("rope_1e6", d_model=64, heads=2)
    assert model.rope.base == 1e6


def test_the_remap_settings_reach_the_target_length():
    """Self-Extend's group size keeps f · L tokens within the trained distances; ReRoPE
    and DCA never show more than L."""
    _torch()
    from experiments.settings import MINI, extension_remap

    target = MINI.extension_factor * MINI.train_len
    for method in ("self_extend", "rerope", "dual_chunk"):
        remap = extension_remap(method, MINI)
        assert remap.distances(target).max() <= MINI.train_len, method
    assert extension_remap("pi", MINI) is None
    with pytest.raises(ValueError, match="method"):
        extension_remap("longrope", MINI)
