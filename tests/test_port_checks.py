"""check_rope_port: the library's own rotation passes every check, in both layouts, and
each deliberately broken port fails exactly the checks that should catch it.

The expected failures follow from what each mistake does to RoPE's definition
(Su et al., 2021: pair i of a row at position pos turns by pos · ω_i):

- a wrong layout is still a rotation by the right angles, of other pairs: only the
  layout and the comparisons with the reference can see it;
- a wrong exponent, or a sign lost in the rotation, changes the angles but keeps them
  proportional to the position: the frequencies and the reference see it, relativity
  does not (scores still depend on m − n, or on n − m);
- a position offset by one shifts every angle by ω_i: position 0 is no longer the
  identity, and every comparison with the reference fails, but differences of
  positions, and so relativity and the recovered frequencies, are untouched;
- a scaled output keeps the angles and changes every length;
- angles in float16 are rounded to 11 significant bits and overflow past 65,504.
"""

from __future__ import annotations

import numpy as np
import pytest

import pe_explained as pe
from pe_explained._checks import check_callable
from pe_explained.port_checks import (
    CHECKS,
    NEAR,
    PORT_VARIANTS,
    SCALED_OUTPUT,
    PortCheck,
    check_rope_port,
    example_rope_port,
)
from pe_explained.rope import apply_rope, interleaved_to_halves_permutation, rope_frequencies
from pe_explained.sinusoidal import LAYOUTS

REFERENCE = {"reference, near", "reference, far"}
#: What each port fails at the defaults (far position 100,000, float32), checked in the
#: layout it was built for.
EXPECTED_FAILURES = {
    "library": set(),
    "float32 recipe": set(),
    "wrong layout": {"layout"} | REFERENCE,
    "exponent i/d": {"frequencies"} | REFERENCE,
    # past 65,504 a float16 angle is inf and its cosine NaN: every far comparison fails,
    # the lengths of pairs included; the frequencies are probed up to 65,536
    "float16 angles": {"pair norms", "relative positions", "frequencies"} | REFERENCE,
    "negated angle": {"frequencies"} | REFERENCE,
    "offset by one": {"identity at 0"} | REFERENCE,
    "scaled output": {"identity at 0", "pair norms"} | REFERENCE,
}


def _other(layout: str) -> str:
    return LAYOUTS[1 - LAYOUTS.index(layout)]


def test_the_checks_are_named_once_and_every_variant_has_an_expectation():
    assert len(set(CHECKS)) == len(CHECKS) == 7
    assert set(EXPECTED_FAILURES) == set(PORT_VARIANTS)
    assert all(failed <= set(CHECKS) for failed in EXPECTED_FAILURES.values())


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("variant", PORT_VARIANTS)
def test_each_port_fails_exactly_the_checks_that_should_catch_it(variant, layout):
    report = check_rope_port(example_rope_port(variant, 128, layout=layout), 128, layout=layout)
    assert set(report.failed) == EXPECTED_FAILURES[variant], str(report)
    assert report.passed is (not EXPECTED_FAILURES[variant])
    assert [c.name for c in report.checks] == list(CHECKS)
    for check in report.checks:  # a verdict is its number against its tolerance
        assert check.passed is bool(check.measured <= check.tolerance)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("head_dim, base", [(4, 10000.0), (8, 10000.0), (64, 5e5), (256, 1e6)])
def test_the_library_passes_everything_even_held_to_exact_angles(layout, dtype, head_dim, base):
    port = example_rope_port("library", head_dim, base=base, layout=layout)
    for exact in (False, True):
        report = check_rope_port(
            port, head_dim, base=base, layout=layout, dtype=dtype, exact_angles=exact
        )
        assert report.passed, str(report)
    assert report.detected_layout == layout
    inv_freq, _ = rope_frequencies(head_dim, base=base)
    np.testing.assert_allclose(report.recovered_inv_freq, inv_freq, rtol=1e-6)
    assert report.recovered_base == pytest.approx(base, rel=1e-6)


def test_apply_rope_itself_passes_in_both_layouts():
    """The library's function as a reader would wrap it, not through example_rope_port."""
    inv_freq, _ = rope_frequencies(64, base=5e5)
    for layout in LAYOUTS:

        def rotate(x, positions, layout=layout):
            return apply_rope(x, positions, inv_freq, layout=layout)

        assert check_rope_port(rotate, 64, base=5e5, layout=layout).passed
        assert check_rope_port(rotate, 64, base=5e5, layout=_other(layout)).failed == (
            "layout",
            "reference, near",
            "reference, far",
        )


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_wrong_layout_is_detected_and_its_frequencies_are_still_right(layout):
    port = example_rope_port("wrong layout", 128, layout=layout)
    report = check_rope_port(port, 128, layout=layout)
    assert report.detected_layout == _other(layout)
    assert report["layout"].measured == 64  # every pair of the declared layout is split
    np.testing.assert_allclose(report.recovered_inv_freq, rope_frequencies(128)[0], rtol=1e-6)
    assert f"'{_other(layout)}'" in report["layout"].meaning


def test_the_exponent_bug_is_a_ladder_with_the_square_root_of_the_base():
    """inv_freq from arange(0, d) (truncated) instead of arange(0, d, 2): base^(−i/d)."""
    report = check_rope_port(example_rope_port("exponent i/d", 128), 128)
    assert report.recovered_base == pytest.approx(100.0, rel=1e-6)
    assert report["frequencies"].measured == pytest.approx(10000.0 ** (63 / 128) - 1, rel=1e-6)
    assert "100" in report["frequencies"].meaning


def test_a_lost_sign_turns_every_pair_backwards_by_the_right_amount():
    report = check_rope_port(example_rope_port("negated angle", 64), 64)
    np.testing.assert_allclose(report.recovered_inv_freq, -rope_frequencies(64)[0], rtol=1e-6)
    assert report.recovered_base == pytest.approx(10000.0, rel=1e-6)
    assert report["frequencies"].measured == pytest.approx(2.0, rel=1e-6)
    assert "backwards" in report["frequencies"].meaning


def test_an_offset_and_a_scale_are_measured_at_position_0():
    offset = check_rope_port(example_rope_port("offset by one", 8), 8)
    x = np.random.default_rng(0).normal(size=(4, NEAR, 8)).astype(np.float32)
    turned = apply_rope(x.astype(np.float64), np.ones(NEAR, dtype=np.int64), rope_frequencies(8)[0])
    moved = np.linalg.norm(turned - x, axis=-1) / np.linalg.norm(x, axis=-1)
    assert offset["identity at 0"].measured == pytest.approx(moved.max(), rel=1e-5)
    scaled = check_rope_port(example_rope_port("scaled output", 8), 8)
    assert scaled["identity at 0"].measured == pytest.approx(SCALED_OUTPUT - 1, rel=1e-5)


def test_float16_angles_keep_lengths_below_their_overflow_but_not_their_angles():
    """With every position below 65,504 no angle overflows: lengths are kept, angles are not."""
    report = check_rope_port(example_rope_port("float16 angles", 128), 128, far_position=60_000)
    assert set(report.failed) == {"relative positions", "frequencies"} | REFERENCE


def test_the_float32_recipe_passes_its_own_budget_but_not_exact_angles():
    port = example_rope_port("float32 recipe", 128)
    assert check_rope_port(port, 128).passed
    strict = check_rope_port(port, 128, exact_angles=True)
    assert {"relative positions", "reference, far"} <= set(strict.failed)
    assert not {"identity at 0", "pair norms", "layout"} & set(strict.failed)
    # the allowance is the float32 recipe's own first-order angle error, 2u · pos
    assert check_rope_port(port, 128)["reference, far"].tolerance == pytest.approx(
        8 * 2.0**-24 + 2 * 2.0**-24 * 100_000
    )


# ---- ports that are no RoPE at all, or a RoPE with its output permuted


def test_a_port_that_does_nothing_is_caught():
    report = check_rope_port(lambda x, positions: x, 16)
    assert report.detected_layout == "no pairs"
    assert set(report.failed) == {"layout", "frequencies"} | REFERENCE
    assert np.isnan(report.recovered_base)


def test_a_rotation_returned_in_another_order_fails_at_position_0_and_passes_undone():
    """transformers' DeepSeek code rotates interleaved pairs and returns them in halves
    order, for the queries and the keys alike: the scores are right, the vectors are not
    RoPE's. Undoing the permutation makes it the interleaved rotation."""
    inv_freq, _ = rope_frequencies(16)
    perm = interleaved_to_halves_permutation(16)

    def permuted(x, positions):
        return apply_rope(x, positions, inv_freq, layout="interleaved")[..., perm]

    report = check_rope_port(permuted, 16, layout="interleaved")
    assert "identity at 0" in report.failed and "relative positions" not in report.failed

    def undone(x, positions):
        return permuted(x, positions)[..., np.argsort(perm)]

    assert check_rope_port(undone, 16, layout="interleaved").passed


# ---- the report


def test_the_report_reads_as_text_and_finds_its_checks_by_name():
    report = check_rope_port(example_rope_port("wrong layout", 8), 8)
    text = str(report)
    assert text.splitlines()[1] == "3 of 7 checks fail"
    wide = check_rope_port(example_rope_port("float16 angles", 128), 128, exact_angles=True)
    assert all(len(line) <= 80 for line in f"{text}\n{wide}".splitlines())  # a page's column
    for check in report.checks:
        assert check.name in text and isinstance(check, PortCheck)
    assert "fail  layout" in text and "pass  identity at 0" in text
    assert report["layout"] is report.checks[CHECKS.index("layout")]
    with pytest.raises(KeyError, match="no check named 'norms'"):
        report["norms"]


def test_a_report_is_reproducible():
    port = example_rope_port("float16 angles", 32)
    assert str(check_rope_port(port, 32)) == str(check_rope_port(port, 32))


def test_the_port_gets_copies_it_may_overwrite():
    def in_place(x, positions):
        x[...] = apply_rope(x, positions, rope_frequencies(8)[0])
        positions[...] = 0
        return x

    assert check_rope_port(in_place, 8).passed


# ---- bad arguments, and ports that break the contract of a port


def _raises(x, positions):
    raise RuntimeError("no kernel for this shape")


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"rotate": None}, TypeError, "rotate must be callable"),
        ({"rotate": _raises}, ValueError, "rotate raised RuntimeError: no kernel for this shape"),
        ({"rotate": lambda x, p: x[..., :-1]}, ValueError, "rotate must return .* shape"),
        ({"rotate": lambda x, p: None}, TypeError, "the output of rotate must hold real"),
        ({"rotate": lambda x, p: x + 0j}, TypeError, "the output of rotate must hold real"),
        ({"head_dim": 2}, ValueError, "head_dim must be >= 4"),
        ({"head_dim": 7}, ValueError, "head_dim must be even"),
        ({"far_position": 2 * NEAR - 1}, ValueError, f"far_position must be >= {2 * NEAR}"),
        ({"far_position": 2**53}, ValueError, "far_position must be < 2"),
        ({"dtype": np.int32}, TypeError, "dtype must be a float dtype"),
        ({"dtype": np.longdouble}, ValueError, "dtype must be float16, float32 or float64"),
        ({"layout": "split"}, ValueError, "layout must be one of"),
        ({"exact_angles": 1}, TypeError, "exact_angles must be True or False"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    call = {"rotate": example_rope_port("library", 8), "head_dim": 8, **kwargs}
    with pytest.raises(error, match=match):
        check_rope_port(**call)


def test_check_callable_takes_functions_and_refuses_the_rest():
    assert check_callable("rotate", len) is len
    with pytest.raises(TypeError, match=r"rotate must be callable \(a function\), got str"):
        check_callable("rotate", "apply_rope")


def test_the_example_ports_check_what_they_are_given():
    port = example_rope_port("float32 recipe", 8)
    with pytest.raises(ValueError, match="x's last axis must be head_dim = 8"):
        port(np.ones((1, 2, 4), dtype=np.float32), [0, 1])
    with pytest.raises(ValueError, match="positions must have one entry per row"):
        port(np.ones((1, 2, 8), dtype=np.float32), [0])
    with pytest.raises(ValueError, match="variant must be one of"):
        example_rope_port("typo", 8)


def test_the_exports():
    assert pe.check_rope_port is check_rope_port
    assert pe.example_rope_port is example_rope_port


# ---- transformers' own rotations as ports


def _hf_port(apply, head_dim: int, base: float):
    """transformers' ``apply``(q, k, cos, sin) with cos and sin from Llama's rotary class,
    as a port: float32, the tables of transformers' default recipe."""
    torch = pytest.importorskip("torch", reason="torch is not installed")
    transformers = pytest.importorskip("transformers", reason="transformers is not installed")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    config = transformers.LlamaConfig(
        hidden_size=4 * head_dim, num_attention_heads=4, head_dim=head_dim, rope_theta=base
    )
    rotary = LlamaRotaryEmbedding(config=config)

    def rotate(x, positions):
        q = torch.from_numpy(np.ascontiguousarray(x))[:, None]  # (batch, 1 head, seq, d)
        cos, sin = rotary(q, torch.from_numpy(positions)[None])
        out, _ = apply(q, q, cos, sin)
        return out[:, 0].numpy()

    return rotate


def test_transformers_llama_rotation_passes_as_halves():
    pytest.importorskip("transformers", reason="transformers is not installed")
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    port = _hf_port(apply_rotary_pos_emb, 128, 10000.0)
    assert check_rope_port(port, 128, layout="halves").passed
    assert check_rope_port(port, 128, layout="interleaved").failed == (
        "layout",
        "reference, near",
        "reference, far",
    )


def test_transformers_deepseek_v32_pairs_its_indexer_in_halves_and_its_mla_interleaved():
    """transformers 5.23, modeling_deepseek_v32.py: the indexer calls apply_rotary_pos_emb
    (rotate_half), MLA apply_rotary_pos_emb_interleave, which returns its pairs in halves
    order (the same permutation for queries and keys, so the scores are kept)."""
    pytest.importorskip("transformers", reason="transformers is not installed")
    from transformers.models.deepseek_v32 import modeling_deepseek_v32 as ds

    indexer = _hf_port(ds.apply_rotary_pos_emb, 64, 10000.0)
    assert check_rope_port(indexer, 64, layout="halves").passed
    perm = interleaved_to_halves_permutation(64)
    mla = _hf_port(ds.apply_rotary_pos_emb_interleave, 64, 10000.0)
    as_returned = check_rope_port(mla, 64, layout="interleaved")
    assert "identity at 0" in as_returned.failed
    assert "relative positions" not in as_returned.failed  # the scores are kept

    def mla_in_place(x, positions):
        return mla(x, positions)[..., np.argsort(perm)]

    assert check_rope_port(mla_in_place, 64, layout="interleaved").passed
    assert "layout" in check_rope_port(mla_in_place, 64, layout="halves").failed


# ---- chapter 27's prose, held to the chapter's own reports


def test_the_chapter_states_what_its_reports_find():
    """'Every broken port fails both comparisons with the reference, and besides them the
    check that names its mistake …'; 'the exponent i/d is a ladder whose base is the
    square root of the intended one, and the negated angle the right ladder turned
    backwards'; 'The float32 recipe passes'."""
    from pe_book.chapters import testing_a_port as chapter

    for variant in PORT_VARIANTS:
        assert set(chapter._report(variant).failed) == EXPECTED_FAILURES[variant]
    assert chapter._report("exponent i/d").recovered_base == pytest.approx(chapter.BASE**0.5)
    backwards = chapter._report("negated angle")
    assert (backwards.recovered_inv_freq < 0).all()
    assert backwards.recovered_base == pytest.approx(chapter.BASE, rel=1e-6)
