"""The book's own experiments (``scripts/experiments/``) and their committed results.

- The results files ``docs/data/experiments/*.json`` (the miniature) and
  ``docs/data/experiments/large/*.json`` (the larger scale) follow the schema: command,
  preset, device, seeds (at least three), versions, code hash, ``train_len``,
  ``eval_lens`` and one value per seed for every method, metric and length.
- They were made by the current code: their code hash is the hash of the sources of
  ``scripts/experiments/`` (a stale file fails, saying which command remakes it), and
  that hash changes when a source changes.
- With torch (skipped, saying why, without it): the quick run gives the same numbers
  twice, and the positional tensors of the models are the library's values.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from script_packages import load_package

import pe_explained as pe

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "scripts" / "experiments"
RESULTS = ROOT / "docs" / "data" / "experiments"
EXPERIMENTS = ("length_generalisation", "context_extension")
#: The encodings the first experiment must cover (xPos is optional).
REQUIRED_ENCODINGS = {"nope", "learned", "sinusoidal", "rope", "alibi", "t5"}
#: The designs of 2025–26 models, in both scales.
NEW_DESIGNS = {"rope_nope", "swa_nope", "partial", "p_rope", "rope_1e6"}
FREQUENCY_METHODS = {"rope", "pi", "ntk", "dynamic", "yarn"}
REMAP_METHODS = {"self_extend", "rerope", "dual_chunk"}
EXTENSION_METHODS = FREQUENCY_METHODS | REMAP_METHODS
#: Each preset's committed results folder.
PRESET_FOLDERS = {"mini": RESULTS, "large": RESULTS / "large"}
RERUN = "rerun `python3 scripts/book.py experiments`"


experiments = load_package("experiments")


def _torch():
    return pytest.importorskip(
        "torch", reason="torch is not installed: `python3 scripts/book.py experiments` adds it"
    )


# Schema ------------------------------------------------------------------------------


def _leaves_per_seed(node, seeds: int, where: str) -> int:
    """Check every leaf under ``node`` is a list of ``seeds`` values; return how many."""
    if isinstance(node, dict):
        assert node, f"{where} is empty"
        return sum(_leaves_per_seed(v, seeds, f"{where}.{k}") for k, v in node.items())
    assert isinstance(node, list) and len(node) == seeds, f"{where}: not one value per seed"
    for value in node:
        if isinstance(value, list):  # a curve: loss by position
            assert value and all(np.isfinite(value)), f"{where}: bad curve"
        else:
            assert isinstance(value, float | int) and np.isfinite(value), f"{where}: {value!r}"
    return 1


def _check_metrics(metrics: dict, lengths: list[int], seeds: int, where: str) -> None:
    """``non_overlapping``, ``passkey`` and ``passkey_answer_loss`` hold every length, one
    value per seed."""
    for metric in ("non_overlapping", "passkey", "passkey_answer_loss"):
        assert sorted(metrics[metric], key=int) == [str(n) for n in lengths], f"{where}.{metric}"
        _leaves_per_seed(metrics[metric], seeds, f"{where}.{metric}")
    for n in lengths:
        curves = metrics["non_overlapping"][str(n)]["by_position"]
        assert len({len(c) for c in curves}) == 1, f"{where}: curves of unequal length"


def check_schema(result: dict, name: str, min_seeds: int = 3) -> None:
    """Assert that ``result`` (one results file) has the documented schema."""
    assert result["experiment"] == name
    assert result["command"].startswith("python3 scripts/book.py experiments")
    seeds = result["seeds"]
    assert len(set(seeds)) == len(seeds) >= min_seeds and all(isinstance(s, int) for s in seeds)
    assert set(result["versions"]) == {"pe_explained", "torch", "numpy", "python"}
    assert result["versions"]["pe_explained"] == pe.__version__
    assert len(result["code_hash"]) == 64 and int(result["code_hash"], 16) >= 0
    lengths = result["eval_lens"]
    assert isinstance(result["train_len"], int) and lengths[0] == result["train_len"]
    assert lengths == sorted(lengths) and len(lengths) >= 3
    assert result["run"]["wall_time_s"] > 0 and result["run"]["hardware"]["cpu_count"] >= 1
    assert result["preset"] in PRESET_FOLDERS
    assert result["device"]["kind"] in ("cpu", "cuda") and result["device"]["name"]
    for key in ("unigram_entropy", "loss_floor"):  # one value per seed: its own documents
        assert len(result["reference"][key]) == len(seeds)
        assert all(0 < v < np.log(64) for v in result["reference"][key])
    floors = result["reference"]["loss_floor_by_position"]
    assert sorted(floors, key=int) == [str(n) for n in lengths]
    for per_seed in floors.values():
        for curve in per_seed:
            assert len(curve) == result["settings"]["bins"]
            assert all(0 < v < np.log(64) for v in curve)
    settings, task = result["settings"], result["task"]
    assert 0 < settings["passkey_share"] <= 1 and settings["answer_weight"] >= 0
    assert len(task["digit_ids"]) == task["key_length"]
    assert all(len(ids) == task["digit_values"] for ids in task["digit_ids"])
    methods = result["methods"]
    n = len(seeds)
    if name == "length_generalisation":
        assert REQUIRED_ENCODINGS | NEW_DESIGNS <= set(methods)
        for method, metrics in methods.items():
            _check_metrics(metrics, lengths, n, method)
            assert sorted(metrics["sliding"], key=int) == [str(n) for n in lengths]
            _leaves_per_seed(metrics["sliding"], n, f"{method}.sliding")
            _leaves_per_seed(metrics["train_loss_final"], n, f"{method}.train_loss_final")
    else:
        assert set(methods) == EXTENSION_METHODS
        assert result["target_len"] == result["factor"] * result["train_len"]
        assert result["fine_tune"]["answer_weight"] == settings["answer_weight"]
        documents = settings["passkey_samples"] * len(settings["depths"])
        for method, metrics in methods.items():
            _check_metrics(metrics["zero_shot"], lengths, n, f"{method}.zero_shot")
            if method in REMAP_METHODS:  # used zero-shot only
                assert "fine_tuned" not in metrics and metrics["remap"]["name"], method
                continue
            _check_metrics(metrics["fine_tuned"], lengths, n, f"{method}.fine_tuned")
            changed = metrics["passkey_changed"]
            assert sorted(changed, key=int) == [str(n) for n in lengths], method
            assert all(0 <= c <= documents for v in changed.values() for c in v), method


def check_fine_tuned_model_evaluated(result: dict) -> None:
    """The fine-tuned numbers are a new model's: for every method, seed and length its
    loss differs from the zero-shot model's (a cached model, a reused result or the
    zero-shot model evaluated twice would give the same numbers)."""
    for method, metrics in result["methods"].items():
        if "fine_tuned" not in metrics:  # the remapping methods, zero-shot only
            continue
        for n in result["eval_lens"]:
            zero = metrics["zero_shot"]["non_overlapping"][str(n)]["mean"]
            tuned = metrics["fine_tuned"]["non_overlapping"][str(n)]["mean"]
            answers = [
                metrics[k]["passkey_answer_loss"][str(n)] for k in ("zero_shot", "fine_tuned")
            ]
            for seed, (a, b) in enumerate(zip(zero, tuned, strict=True)):
                assert a != b, f"{method} seed {seed} at {n}: fine-tuned loss = zero-shot loss"
                assert answers[0][seed] != answers[1][seed], f"{method} seed {seed} at {n}"


def _committed(name: str, preset: str = "mini") -> dict:
    path = PRESET_FOLDERS[preset] / f"{name}.json"
    if not path.exists():
        pytest.fail(f"{path.relative_to(ROOT)} is missing: {RERUN} --preset {preset}")
    return json.loads(path.read_text())


#: The presets whose results are committed: the miniature always; the larger scale once
#: its GPU run is in.
COMMITTED = [
    p for p, folder in PRESET_FOLDERS.items() if (folder / "length_generalisation.json").exists()
]


def test_the_miniatures_results_are_committed():
    assert "mini" in COMMITTED, f"the miniature's results are missing: {RERUN}"


@pytest.mark.parametrize("preset", COMMITTED)
@pytest.mark.parametrize("name", EXPERIMENTS)
def test_committed_results_follow_the_schema(name, preset):
    result = _committed(name, preset)
    check_schema(result, name)
    assert result["preset"] == preset


@pytest.mark.parametrize("preset", COMMITTED)
@pytest.mark.parametrize("name", EXPERIMENTS)
def test_committed_results_come_from_the_current_code(name, preset):
    recorded = _committed(name, preset)["code_hash"]
    assert recorded == experiments.code_hash(), (
        f"{preset}: {name}.json was made by other code than scripts/experiments/ "
        f"now holds (stale results): {RERUN} --preset {preset}"
    )


def test_only_the_known_experiments_have_results():
    for folder in PRESET_FOLDERS.values():
        assert {p.stem for p in folder.glob("*.json")} <= set(EXPERIMENTS)


def test_the_stale_check_fails_when_a_source_changes(tmp_path):
    """A copy of the sources hashes alike; a changed number, a new file or a rename do
    not; a comment, blank lines or other words in a docstring do (they compute nothing)."""
    copy = tmp_path / "experiments"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    original = experiments.code_hash(copy)
    assert original == experiments.code_hash()
    model = copy / "model.py"
    text = model.read_text()
    model.write_text(text.replace("4 * d", "2 * d", 1))
    assert experiments.code_hash(copy) != original
    model.write_text(text)
    assert experiments.code_hash(copy) == original
    model.write_text("# a comment\n" + text.replace('"""', '"""Other words. ', 1) + "\n\n")
    assert experiments.code_hash(copy) == original  # layout, comments, docstrings: not code
    model.write_text(text)
    (copy / "extra.py").write_text("")
    assert experiments.code_hash(copy) != original
    (copy / "extra.py").unlink()
    (copy / "model.py").rename(copy / "model2.py")
    assert experiments.code_hash(copy) != original


def test_a_result_with_a_wrong_hash_is_reported_stale(tmp_path, monkeypatch):
    """The staleness test itself fails on a results file from other code."""
    fake = tmp_path / "results"
    fake.mkdir()
    result = {"code_hash": "0" * 64}
    (fake / "length_generalisation.json").write_text(json.dumps(result))
    monkeypatch.setitem(PRESET_FOLDERS, "mini", fake)
    with pytest.raises(AssertionError, match="stale results"):
        test_committed_results_come_from_the_current_code("length_generalisation", "mini")


def test_the_committed_fine_tuned_numbers_are_a_new_models():
    check_fine_tuned_model_evaluated(_committed("context_extension"))


def test_the_fine_tune_check_fails_when_the_zero_shot_model_is_evaluated_twice():
    broken = json.loads(json.dumps(_committed("context_extension")))
    entry = broken["methods"]["pi"]
    entry["fine_tuned"] = json.loads(json.dumps(entry["zero_shot"]))
    with pytest.raises(AssertionError, match="fine-tuned loss = zero-shot loss"):
        check_fine_tuned_model_evaluated(broken)


def test_the_schema_check_rejects_a_missing_seed():
    result = _committed("length_generalisation")
    broken = json.loads(json.dumps(result))
    broken["methods"]["rope"]["non_overlapping"][str(result["train_len"])]["mean"].pop()
    with pytest.raises(AssertionError, match="one value per seed"):
        check_schema(broken, "length_generalisation")


# The quick run -----------------------------------------------------------------------


def _experiment_env() -> dict[str, str]:
    """This process's environment with what ``book.py experiments`` adds for the run."""
    spec = importlib.util.spec_from_file_location("book", ROOT / "scripts" / "book.py")
    book = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(book)
    return {**book.EXPERIMENT_ENV, **os.environ}


def _quick(out: Path, *options: str) -> tuple[dict, str]:
    """Run ``run.py --quick`` with ``options`` in a fresh process, as ``book.py
    experiments`` starts it; its results and stderr. On a timeout the run's whole process
    group is killed, its worker processes too (left running, they would hold the cores
    for the rest of the tests)."""
    process = subprocess.Popen(
        [sys.executable, str(PACKAGE / "run.py"), "--quick", "--out", str(out), *options],
        cwd=ROOT,
        env=_experiment_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _, stderr = process.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    assert process.returncode == 0, stderr[-2000:]
    written = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}
    return written, stderr


def _numbers(result: dict) -> dict:
    """A results file without what may differ between equal runs: the run's wall time
    and hardware, and the command line."""
    return {k: v for k, v in result.items() if k not in ("run", "command")}


@pytest.fixture(scope="module")
def quick_runs(tmp_path_factory):
    """The quick miniature, run twice in fresh processes with the same command line."""
    _torch()
    out = tmp_path_factory.mktemp("quick")
    first, _ = _quick(out)
    second, stderr = _quick(out)
    return [first, second], stderr


@pytest.mark.slow
def test_two_worker_processes_give_the_same_numbers_as_one(quick_runs, tmp_path):
    (first, _), _ = quick_runs
    parallel, _ = _quick(tmp_path, "--jobs", "2")
    for name in EXPERIMENTS:
        assert _numbers(parallel[name]) == _numbers(first[name]), name


@pytest.mark.slow
def test_an_interrupted_run_continues_from_its_units(quick_runs, tmp_path):
    """Units kept in --units are read back, not recomputed: a unit file edited by hand
    shows up in the results."""
    (first, _), _ = quick_runs
    units = tmp_path / "units"
    _quick(tmp_path / "a", "--units", str(units), "--only", "length_generalisation")
    path = units / "length_generalisation-nope-0.json"
    kept = json.loads(path.read_text())
    kept["result"]["train_loss_final"] = 123.0
    path.write_text(json.dumps(kept))
    again, stderr = _quick(tmp_path / "b", "--units", str(units), "--only", "length_generalisation")
    assert "kept from" in stderr
    nope = again["length_generalisation"]["methods"]["nope"]["train_loss_final"]
    assert (
        nope[0] == 123.0
        and nope[1:] == first["length_generalisation"]["methods"]["nope"]["train_loss_final"][1:]
    )


@pytest.mark.slow
def test_the_large_presets_quick_form_runs_on_the_cpu(tmp_path):
    _torch()
    result, _ = _quick(tmp_path, "--preset", "large")
    for name in EXPERIMENTS:
        check_schema(result[name], name)
        assert result[name]["preset"] == "large" and result[name]["device"]["kind"] == "cpu"


@pytest.mark.slow
def test_the_quick_run_gives_identical_numbers_twice(quick_runs):
    (first, second), _ = quick_runs
    for name in EXPERIMENTS:
        a, b = dict(first[name]), dict(second[name])
        assert a.pop("run") and b.pop("run")
        assert a == b, f"{name}: two quick runs with the same seeds differ"


@pytest.mark.slow
@pytest.mark.parametrize("name", EXPERIMENTS)
def test_the_quick_run_writes_the_schema(quick_runs, name):
    (first, _), _ = quick_runs
    check_schema(first[name], name)
    assert first[name]["code_hash"] == experiments.code_hash()
    assert "--quick" in first[name]["command"]


@pytest.mark.slow
def test_the_quick_run_evaluates_the_fine_tuned_models(quick_runs):
    (first, _), _ = quick_runs
    check_fine_tuned_model_evaluated(first["context_extension"])


@pytest.mark.slow
def test_the_quick_run_draws_a_progress_bar(quick_runs):
    _, stderr = quick_runs
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("[" + "#" * 30 + "]"), last


# The harness uses the library ----------------------------------------------------------


def _model(encoding: str, **settings):
    _torch()
    from experiments.model import ModelConfig, TinyDecoder

    return TinyDecoder(ModelConfig(encoding=encoding, train_len=16, **settings))


def test_the_sinusoidal_table_is_the_librarys():
    model = _model("sinusoidal")
    table = model.sinusoidal_table(40).numpy()
    np.testing.assert_allclose(table, pe.sinusoidal(40, 128), atol=1e-7)


def test_the_alibi_bias_uses_the_librarys_slopes():
    model = _model("alibi", heads=4, d_model=64)
    bias = model.alibi_bias(10).numpy()
    slopes = pe.alibi_slopes(4)
    np.testing.assert_allclose(bias[:, 9, 8], -slopes, rtol=1e-6)
    np.testing.assert_allclose(bias[:, 9, 0], -9 * slopes, rtol=1e-6)
    assert np.isneginf(bias[:, 0, 1]).all() and (bias[:, 5, 5] == 0).all()


def test_the_t5_buckets_are_the_librarys():
    model = _model("t5")
    buckets = model.t5_buckets(300).numpy()
    i = np.arange(300)
    expected = pe.t5_relative_bucket(
        i[None, :] - i[:, None], bidirectional=False, num_buckets=32, max_distance=128
    )
    np.testing.assert_array_equal(buckets, expected)


@pytest.mark.parametrize(
    "scaling",
    [
        None,
        {"rope_type": "linear", "factor": 4.0},
        {"rope_type": "dynamic", "factor": 4.0, "original_max_position_embeddings": 16},
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 16},
    ],
    ids=["rope", "pi", "dynamic", "yarn"],
)
def test_the_rotation_is_the_librarys_apply_rope(scaling):
    """The model's rotated queries equal ``pe_explained.apply_rope`` ("halves" layout)
    with the library's frequencies and attention factor."""
    torch = _torch()
    from experiments.model import Rope, rotate

    model = _model("rope")
    model.rope = Rope(base=10000.0, scaling=scaling)
    n, head_dim = 100, model.config.head_dim
    cos, sin, _, _ = model.rotation(n)
    x = np.random.default_rng(0).normal(size=(2, n, head_dim))
    got = rotate(torch.from_numpy(x).float(), cos, sin).numpy()
    seq_len = n if scaling and scaling["rope_type"] == "dynamic" else None
    inv_freq, factor = pe.rope_frequencies(head_dim, scaling=scaling, seq_len=seq_len)
    want = pe.apply_rope(x, n, inv_freq, layout="halves", attention_factor=factor)
    np.testing.assert_allclose(got, want, atol=2e-5)
    if scaling and scaling["rope_type"] == "yarn":
        assert factor > 1  # the attention factor is applied, not dropped


def test_the_ntk_method_uses_the_librarys_base():
    _torch()
    from experiments.settings import MINI, extension_rope

    rope = extension_rope("ntk", MINI, 10000.0)
    head_dim = MINI.d_model // MINI.heads
    assert rope.base == pe.ntk_aware_base(10000.0, MINI.extension_factor, head_dim)


def test_the_xpos_scales_are_the_librarys():
    model = _model("xpos")
    _, _, q_scale, k_scale = model.rotation(50)
    positions = pe.xpos_centred_positions(50)
    want = pe.xpos_scale(32, positions, scale_base=8.0, layout="halves")
    np.testing.assert_allclose(q_scale.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(k_scale.numpy(), 1 / want, rtol=1e-6)


def test_learned_positions_past_the_table_read_its_last_row():
    torch = _torch()
    model = _model("learned", layers=1)
    table = model.position.weight.detach()
    tokens = torch.zeros(1, 20, dtype=torch.long)
    seen = []
    model.embed.register_forward_hook(lambda m, i, out: seen.append(out))
    model.blocks[0].register_forward_pre_hook(lambda m, args: seen.append(args[0]))
    model(tokens)
    added = (seen[1] - seen[0])[0]
    torch.testing.assert_close(added[:16], table)
    torch.testing.assert_close(added[16:], table[-1].expand(4, -1))


# Data and command line ---------------------------------------------------------------


def test_the_passkey_sits_at_its_depth_and_is_asked_for_last():
    from experiments import data

    language = data.Language()
    tokens, keys = language.passkeys(3, 60, 0.5, np.random.default_rng(0))
    at = round(0.5 * (60 - 10))
    assert (tokens[:, at] == data.KEY).all() and (tokens[:, -5] == data.ASK).all()
    np.testing.assert_array_equal(tokens[:, at + 1 : at + 5], keys)
    np.testing.assert_array_equal(tokens[:, -4:], keys)
    slots = (keys - data.FIRST_DIGIT) // data.DIGITS
    assert (slots == np.arange(4)).all()  # digit s comes from slot s's own ids


def test_every_model_reads_the_same_passkey_documents(monkeypatch):
    """The documents depend on the evaluation seed, the length and the depth, not on the
    model: the ranges over training seeds are not sampling error."""
    _torch()
    from experiments import data
    from experiments.train import passkey_accuracy, passkey_documents

    language = data.Language()
    seen = []
    original = data.Language.passkeys

    def record(self, *args):
        tokens, keys = original(self, *args)
        seen.append(tokens.copy())
        return tokens, keys

    monkeypatch.setattr(data.Language, "passkeys", record)
    for model in (_model("rope", layers=1, d_model=32, heads=2), _model("nope", layers=1)):
        passed, answer = passkey_documents(model, language, 40, 0.3, 3, seed=11)
        assert passed.shape == answer.shape == (3,) and (answer > 0).all()
        assert passkey_accuracy(model, language, 40, 0.3, 3, seed=11) == passed.mean()
    assert len(seen) == 4
    np.testing.assert_array_equal(seen[0], seen[2])


def test_the_answer_term_of_the_objective_is_weighted_by_answer_weight():
    """One step with the answer term and one without move the weights differently."""
    torch = _torch()
    from experiments import data
    from experiments.train import TrainConfig, train

    language = data.Language()
    steps = []
    for weight in (1.0, 0.0):
        torch.manual_seed(0)  # the same initial model both times
        model = _model("rope", layers=1, d_model=32, heads=2)
        config = TrainConfig(steps=1, batch=4, length=24, answer_weight=weight)
        train(model, config, seed=0, language=language)
        steps.append(model.head.weight.detach().clone())
    assert not torch.equal(steps[0], steps[1])


def test_the_language_is_the_same_for_the_same_seed():
    from experiments import data

    a = data.Language().stream(2, 50, np.random.default_rng(7))
    b = data.Language().stream(2, 50, np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    assert a.max() < data.WORDS


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["--seeds", "0,x"], "--seeds"),
        (["--seeds", "1,1"], "--seeds"),
        (["--only", "x"], "--only"),
        (["--preset", "huge"], "--preset"),
        (["--device", "tpu"], "--device"),
        (["--jobs", "0"], "--jobs"),
    ],
)
def test_bad_command_line_values_name_the_option(argv, option):
    _torch()
    from experiments.run import parse

    with pytest.raises(ValueError, match=option):
        parse(argv)


def test_the_generators_own_loss_is_binned_as_the_models_loss():
    """floor_by_position against a loop over windows and positions, by hand."""
    _torch()
    from experiments import data
    from experiments.train import floor_by_position

    language = data.Language()
    tokens, topics = language.documents(3, 4 * 8 + 1, np.random.default_rng(5))
    losses = language.token_losses(tokens, topics)
    assert np.isnan(losses[:, :2]).all() and np.isfinite(losses[:, 2:]).all()
    a, b, c = tokens[1, 5], tokens[1, 6], tokens[1, 7]
    assert losses[1, 7] == pytest.approx(-np.log(language.prob[topics[1], a, b, c]))
    length, bins = 8, 4
    sums, counts = np.zeros(length), np.zeros(length)
    for row in losses:
        for start in range(0, 4 * 8, length):
            for p in range(length):
                value = row[start + p + 1]  # the prediction at p is of the next token
                if np.isfinite(value):
                    sums[p] += value
                    counts[p] += 1
    expected = (sums / counts).reshape(bins, -1).mean(axis=1)
    np.testing.assert_allclose(floor_by_position(losses, length, bins), expected, rtol=1e-12)
    assert language.loss_floor(tokens, topics) == pytest.approx(np.nanmean(losses))
