"""Chapter 22's claims hold in the stored results.

The page quotes numbers from ``docs/data/experiments/*.json`` through registered values;
the comparisons it draws in words ("rises", "stays flat", "the worst at retrieval") are
checked here against the same files, so a new run that changes the picture fails a test
instead of leaving the prose wrong. No torch: only the results files are read.
"""

from __future__ import annotations

import numpy as np
import pytest

from pe_book.chapters import evidence as ev

LENGTHS = ev.results("length_generalisation")["eval_lens"]
FIRST, MID, LAST = LENGTHS[0], LENGTHS[len(LENGTHS) // 2], LENGTHS[-1]
TARGET = ev.results("context_extension")["target_len"]
#: Within this many nats, the page calls two losses the same ("flat", "side by side").
FLAT = 0.05


def test_every_model_learns_well_past_the_unigram_entropy():
    data = ev.results("length_generalisation")
    unigram = data["reference"]["unigram_entropy"]
    for encoding, metrics in data["methods"].items():
        assert max(metrics["train_loss_final"]) < unigram - 0.5, encoding


def test_rope_and_xpos_end_training_lower_than_nope():
    final = {
        e: np.mean(ev.results("length_generalisation")["methods"][e]["train_loss_final"])
        for e in ("rope", "xpos", "nope")
    }
    assert final["rope"] < final["nope"] and final["xpos"] < final["nope"]


@pytest.mark.parametrize("encoding", ["learned", "sinusoidal"])
def test_absolute_encodings_get_worse_at_once(encoding):
    losses = [ev.loss(encoding, n) for n in LENGTHS]
    assert all(a < b for a, b in zip(losses, losses[1:], strict=False)), losses


def test_rope_holds_for_a_while_then_breaks():
    assert abs(ev.loss("rope", MID) - ev.loss("rope", FIRST)) < FLAT
    assert ev.loss("rope", LAST) > ev.loss("rope", FIRST) + 0.1


@pytest.mark.parametrize("encoding", ["nope", "t5"])
def test_nope_and_t5_stay_flat(encoding):
    losses = [ev.loss(encoding, n) for n in LENGTHS]
    assert max(losses) - min(losses) < FLAT, losses


def test_nope_and_t5_run_side_by_side():
    for n in LENGTHS:
        assert abs(ev.loss("nope", n) - ev.loss("t5", n)) < FLAT, n


@pytest.mark.parametrize("encoding", ["alibi", "xpos"])
def test_alibi_and_xpos_improve_with_length(encoding):
    assert ev.loss(encoding, LAST) < ev.loss(encoding, FIRST)


def test_the_sliding_window_scores_rope_worse_at_the_longest_length():
    assert ev.loss("rope", LAST, "sliding") > ev.loss("rope", LAST)


def test_t5_buckets_past_the_training_length_were_never_trained():
    longest, seen, unseen = ev.t5_buckets_seen()
    assert longest == FIRST - 1 and unseen > 0


def test_passkey_story():
    pk = {e: ev.passkey(e, LAST) for e in ("nope", "t5", "alibi", "rope", "xpos")}
    assert pk["nope"] >= 0.95 and pk["t5"] >= 0.95
    assert pk["xpos"] < pk["rope"] < pk["alibi"] < pk["nope"], pk
    # xPos: the best by loss at the longest length, the worst at retrieval
    losses = {e: ev.loss(e, LAST) for e in ev.results("length_generalisation")["methods"]}
    assert min(losses, key=losses.get) == "xpos", losses
    assert ev.passkey("learned", FIRST) < 0.5


def test_position_interpolation_needs_its_fine_tune():
    assert ev.extension_loss("pi", "zero_shot", FIRST) > ev.loss("rope", FIRST) + 0.2
    tuned = {m: ev.extension_loss(m, "fine_tuned", TARGET) for m in ev.METHOD_LABELS}
    assert max(tuned, key=tuned.get) == "pi", tuned


@pytest.mark.parametrize("method", ["ntk", "dynamic", "yarn"])
def test_frequency_aware_methods_keep_short_windows_and_hold_further(method):
    assert abs(ev.extension_loss(method, "zero_shot", FIRST) - ev.loss("rope", FIRST)) < FLAT
    assert ev.extension_loss(method, "zero_shot", LAST) < ev.loss("rope", LAST)


def test_retrieval_separates_the_methods():
    pk = {m: ev.extension_passkey(m, "zero_shot", LAST) for m in ("dynamic", "yarn", "ntk")}
    assert pk["dynamic"] > pk["ntk"] and pk["yarn"] > pk["ntk"], pk
    assert pk["ntk"] > ev.passkey("rope", LAST)


@pytest.mark.parametrize("method", list(ev.METHOD_LABELS))
def test_fine_tuning_helps_every_method_at_the_target_length(method):
    tuned = ev.extension_loss(method, "fine_tuned", TARGET)
    assert tuned < ev.extension_loss(method, "zero_shot", TARGET)


def test_fine_tuned_rope_holds_its_loss_but_not_its_retrieval():
    at_target = ev.extension_loss("rope", "fine_tuned", TARGET)
    assert abs(ev.extension_loss("rope", "fine_tuned", LAST) - at_target) < FLAT
    rope = ev.extension_passkey("rope", "fine_tuned", LAST)
    assert rope < 0.6 and rope < ev.extension_passkey("dynamic", "fine_tuned", LAST)


def test_position_interpolation_retrieves_better_than_plain_rope_zero_shot():
    assert ev.extension_passkey("pi", "zero_shot", LAST) > ev.passkey("rope", LAST) + 0.3


@pytest.mark.parametrize("method", list(ev.METHOD_LABELS))
def test_keys_far_from_the_question_are_lost_first(method):
    for stage in ("zero_shot", "fine_tuned"):
        grid = ev.depth_grid(ev.results("context_extension")["methods"][method][stage], [LAST])
        assert grid[0, 0] <= grid[-1, 0], (stage, grid[:, 0])
