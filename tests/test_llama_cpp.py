"""llama.cpp itself: the flags ``inspect --for llama.cpp`` prints, run on a real llama.cpp.

``scripts/llama_cpp_check`` builds tiny transformers models, one per position setting,
writes them as GGUF with llama.cpp's own converter and runs them in llama.cpp
(``llama-cpp-python``, built from source) with the printed flags; its results are stored
in ``docs/data/runtimes/llama_cpp.json`` and chapter 26 shows them.

Always checked: the stored results come from the current harness, the flags stored are
what the library prints now for each stored config, and what they say is what the book
says (every setting agrees, every perturbed flag fails, the cache measurements). Where
llama.cpp is installed (``python3 scripts/book.py llama-cpp --install``; ``.ci/run`` does
it) the whole comparison runs again and must reach the same verdicts; elsewhere those
tests are skipped, naming that command.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from script_packages import load_package

from pe_explained import llama_cpp_arguments

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "scripts" / "llama_cpp_check"
RESULTS = ROOT / "docs" / "data" / "runtimes" / "llama_cpp.json"
RERUN = "rerun `python3 scripts/book.py llama-cpp`"


load_package("llama_cpp_check")
from llama_cpp_check import install, run, settings  # noqa: E402

STORED = json.loads(RESULTS.read_text(encoding="utf-8"))


def test_stored_results_come_from_the_current_harness():
    assert STORED["code_hash"] == run.code_hash(), f"the harness changed since: {RERUN}"


def test_the_stale_check_fails_when_the_harness_changes(tmp_path):
    copy = tmp_path / "harness"
    copy.mkdir()
    for path in PACKAGE.glob("*.py"):
        (copy / path.name).write_bytes(path.read_bytes())
    assert run.code_hash(copy) == run.code_hash()
    (copy / "compare.py").write_text("NOISE_MULTIPLE = 1000\n", encoding="utf-8")
    assert run.code_hash(copy) != run.code_hash()


@pytest.mark.parametrize("stored", STORED["settings"], ids=lambda c: c["setting"])
def test_stored_flags_are_what_inspect_prints_now(stored):
    """A change to ``llama_cpp_arguments`` that changes a setting's flags needs a rerun."""
    printed = llama_cpp_arguments(stored["config"], seq_len=stored["seq_len"])["arguments"]
    assert printed == stored["arguments"], f"the printed flags changed: {RERUN}"


def test_every_setting_is_stored():
    assert [c["setting"] for c in STORED["settings"]] == [s.name for s in settings.SETTINGS]


@pytest.mark.parametrize("stored", STORED["settings"], ids=lambda c: c["setting"])
def test_every_printed_flag_set_agrees_with_transformers(stored):
    """Every setting agrees within the tolerance, except those for which the flags warn
    that llama.cpp cannot reproduce the config: those must really differ."""
    assert stored["repeat_diff"] == 0.0  # llama.cpp run twice: the same logits
    if stored["reproducible"]:
        assert stored["agree"], (stored["setting"], stored["max_abs_diff"], stored["tolerance"])
        assert stored["max_abs_diff"] <= stored["tolerance"]
    else:
        assert stored["warnings"], stored["setting"]
        assert stored["max_abs_diff"] > 100 * stored["tolerance"], stored


@pytest.mark.parametrize("stored", STORED["perturbations"], ids=lambda p: p["name"])
def test_every_perturbed_flag_fails(stored):
    """The comparison catches a wrong base, factor, beta, attention factor or layout: each
    moves the logits by more than 1,000 times the tolerance."""
    assert not stored["agree"]
    assert stored["max_abs_diff"] > 1000 * stored["tolerance"], stored


#: DeepSeek-V2's architecture: llama.cpp hands the rotation an attention factor of
#: 1 / (0.1 ln s + 1) and scales the scores instead, so the K-shift puts no factor in.
MLA_SHIFTS = {"cache-mla-yarn4"}


def test_a_context_shift_multiplies_every_cached_key_by_yarns_factor():
    """After seq_add the K-shift rotates the cached keys through rope_yarn, which multiplies
    cos and sin by 0.1 ln s + 1 again; plain RoPE's shift is exact, and so is DeepSeek-V2's
    (MLA), whose rotation llama.cpp runs with the factor divided out."""
    assert {c["setting"] for c in STORED["shifts"]} >= MLA_SHIFTS
    for measured in STORED["shifts"]:
        best = min(measured["diffs"], key=measured["diffs"].get)
        assert measured["diffs"][best] < 1e-4, measured
        if measured["m"] == 1.0:
            assert list(measured["diffs"]) == ["no factor"]
        elif measured["setting"] in MLA_SHIFTS:
            assert best == "no factor", measured
            assert measured["diffs"]["every cached key × m per shift"] > 0.1, measured
            if "key_scale" in measured:
                assert measured["key_scale"] == pytest.approx(1.0, abs=1e-4)
        else:
            assert best == "every cached key × m per shift", measured
            assert measured["diffs"]["no factor"] > 0.1
            if "key_scale" in measured:
                assert measured["key_scale"] == pytest.approx(measured["m"], abs=1e-4)


def test_group_attentions_keys_are_rotated_to_two_p_minus_p_over_d():
    for measured in STORED["divs"]:
        diffs = measured["diffs"]
        assert diffs["rotation 2p - p // d"] < 1e-4, measured
        assert diffs["cell position p // d"] > 1.0, measured


def test_group_attention_as_llama_cpp_runs_it_is_the_rotated_distances():
    """llama-completion's -gan/-gaw loop replayed on llama.cpp: the last token's logits are
    transformers' with the keys where group_attention_rotated_distances puts them, not
    where the cells (group_attention_distances) say."""
    for measured in STORED["group_attention"]:
        assert measured["diffs"]["rotations"] < 1e-3, measured
        assert measured["diffs"]["cells"] > 1.0, measured


def test_a_sliding_window_cache_cannot_shift_unless_it_is_full_length():
    """llama.cpp's iSWA cache shifts only when both caches can and are the same size
    (get_can_shift): a Gemma 3 at -c 4096 cannot, until --swa-full; plain RoPE can."""
    measured = {c["setting"]: c for c in STORED["can_shift"]}
    assert (measured["plain-1e4"]["default"], measured["plain-1e4"]["--swa-full"]) == (True, True)
    assert (measured["gemma3"]["default"], measured["gemma3"]["--swa-full"]) == (False, True)


def test_mla_caches_a_latent_and_one_rotary_key_per_token():
    """llama.cpp's DeepSeek-V2 cache grows by the latent and the rotary key per token and
    layer (float32, plus 12 bytes of cell bookkeeping: position, sequence count, sequence
    id), as transformers' does; the GQA model caches full keys and values."""
    widths = {c["setting"]: c for c in STORED["cache_widths"]}
    mla, gqa = widths["cache-mla-yarn4"], widths["cache-yarn4"]
    assert mla["transformers_numbers_per_token"] == mla["latent"] + mla["rotary"]
    for c in (mla, gqa):
        assert c["llama_cpp_bytes_per_token"] == 4 * c["transformers_numbers_per_token"] + 12
    assert mla["full_numbers_per_token"] > 3 * mla["transformers_numbers_per_token"]


def test_a_speculative_rollback_needs_no_rotation():
    """Draft tokens decoded at their positions and the rejected ones removed (seq_rm): the
    next token's logits are transformers' with the accepted tokens where they are."""
    assert {c["setting"] for c in STORED["rollbacks"]} == {"cache-plain", "cache-yarn4"}
    for measured in STORED["rollbacks"]:
        assert measured["diff"] < 1e-4, measured


# --- the comparison itself, where llama.cpp is installed -------------------------------


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    reason = install.installed()
    if reason is not None:
        pytest.skip(f"llama.cpp comparisons: {reason}")
    return run.run(tmp_path_factory.mktemp("llama-cpp"), install.tree(), log=lambda _: None)


def test_llama_cpp_reaches_the_stored_verdicts(fresh):
    assert run.verdicts(fresh) == run.verdicts(STORED), RERUN


def test_llama_cpp_agrees_with_transformers_on_every_setting(fresh):
    for measured in fresh["settings"]:
        assert measured["agree"] == measured["reproducible"], measured
        assert measured["repeat_diff"] == 0.0
    for measured in fresh["perturbations"]:
        assert not measured["agree"], measured
