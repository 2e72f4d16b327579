"""Differential tests: M-RoPE position ids of videos against transformers' own code.

transformers' ``get_rope_index`` of ``Qwen2VLModel``, ``Qwen2_5_VLModel`` and
``Qwen3VLModel``, called on the least object it needs (a config holding
``spatial_merge_size`` and ``tokens_per_second``, and the model class's own
``get_vision_position_ids``), numbers sequences of text, images and videos; each
row must equal :func:`pe_explained.mrope_video_position_ids` exactly, and the
``rope_deltas`` it returns must say that decoding continues at ``ids.max() + 1``.
The sequences cover a short clip with text around it, Qwen2.5-VL's time ids at
frame rates that give fractional steps, collapse them or round them in float32, a
mix of images and videos, Qwen3-VL's frames between timestamp text, and a
left-padded batch. ``second_per_grid_ts`` is passed as the processor returns it, a
float32 tensor (checked here too).

A harness test shows that a wrong rule (time ids not truncated, rounded to nearest,
multiplied in float64, the other place to resume the text, the other model's rule)
gives ids that differ from transformers'.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
import pytest

transformers = pytest.importorskip(
    "transformers", reason="transformers is not installed (differential tests run in CI)"
)
torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed (differential tests run in CI)"
)

from transformers.models.qwen2_5_vl import modeling_qwen2_5_vl  # noqa: E402
from transformers.models.qwen2_vl import modeling_qwen2_vl  # noqa: E402
from transformers.models.qwen3_vl import modeling_qwen3_vl  # noqa: E402

from pe_explained import mrope_video_position_ids  # noqa: E402

MODELS = {
    "qwen2_vl": modeling_qwen2_vl.Qwen2VLModel,
    "qwen2_5_vl": modeling_qwen2_5_vl.Qwen2_5_VLModel,
    "qwen3_vl": modeling_qwen3_vl.Qwen3VLModel,
}
TEXT, IMAGE, VIDEO = 0, 1, 2  # transformers' mm_token_type_ids


@dataclass(frozen=True)
class Sequence:
    """Text runs and vision items in turn; ``grids`` rows are (t, h, w) in patches."""

    text_lengths: list[int]
    grids: list[list[int]]
    videos: list[bool]  # False: an image (t = 1)
    seconds_per_grid: list[float] = field(default_factory=list)  # one per item (Qwen2.5-VL)
    frame_text_lengths: list[int] = field(default_factory=list)  # one per gap (Qwen3-VL)

    def ours(self, model, *, merge=2, tokens_per_second=2, resume="spatial"):
        kwargs = {"model": model, "spatial_merge_size": merge, "resume": resume}
        if model == "qwen2_5_vl":
            kwargs["tokens_per_second"] = tokens_per_second
            if self.seconds_per_grid:
                kwargs["seconds_per_grid"] = self.seconds_per_grid
        if model == "qwen3_vl" and self.frame_text_lengths:
            kwargs["frame_text_lengths"] = self.frame_text_lengths
        return mrope_video_position_ids(self.text_lengths, self.grids, **kwargs)

    def token_types(self, model, merge):
        """transformers' mm_token_type_ids of the sequence, with Qwen3-VL's frames apart."""
        gaps = iter(self.frame_text_lengths)
        types = [TEXT] * self.text_lengths[0]
        for (steps, height, width), video, n_text in zip(
            self.grids, self.videos, self.text_lengths[1:], strict=True
        ):
            tokens = height * width // merge**2
            if video and model == "qwen3_vl":  # <t s><|vision_start|>frame<|vision_end|> …
                for k in range(steps):
                    types += [VIDEO] * tokens + ([TEXT] * next(gaps) if k < steps - 1 else [])
            else:
                types += [VIDEO if video else IMAGE] * (steps * tokens)
            types += [TEXT] * n_text
        return types


def _rope_index_owner(model, merge, tokens_per_second):
    """The least ``get_rope_index`` needs: a vision config and ``get_vision_position_ids``."""
    model_cls = MODELS[model]

    class Owner:
        config = SimpleNamespace(
            vision_config=SimpleNamespace(
                spatial_merge_size=merge, tokens_per_second=tokens_per_second
            )
        )
        get_vision_position_ids = model_cls.get_vision_position_ids
        get_rope_index = model_cls.get_rope_index

    return Owner()


def reference_position_ids(model, sequences, *, merge=2, tokens_per_second=2):
    """transformers' ids (3, batch, seq) and rope deltas (batch,) of left-padded ``sequences``."""
    rows = [s.token_types(model, merge) for s in sequences]
    width = max(map(len, rows))
    token_types = torch.tensor([[TEXT] * (width - len(r)) + r for r in rows], dtype=torch.int32)
    mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], dtype=torch.long)
    items = [(g, v, t) for s in sequences for g, v, t in zip(*_item_lists(s), strict=True)]
    images = [g for g, video, _ in items if not video]
    videos = [g for g, video, _ in items if video]
    kwargs = {
        "mm_token_type_ids": token_types,
        "image_grid_thw": torch.tensor(images, dtype=torch.long) if images else None,
        "video_grid_thw": torch.tensor(videos, dtype=torch.long) if videos else None,
        "attention_mask": mask if len(sequences) > 1 else None,
    }
    seconds = [t for _, video, t in items if video and t is not None]
    if model == "qwen2_5_vl" and seconds:
        # as the processor returns it: a list of floats made a tensor by BatchFeature
        kwargs["second_per_grid_ts"] = torch.tensor(seconds)
    owner = _rope_index_owner(model, merge, tokens_per_second)
    ids, deltas = owner.get_rope_index(torch.zeros_like(token_types, dtype=torch.long), **kwargs)
    return ids.numpy(), deltas[:, 0].numpy(), mask.numpy().astype(bool)


def _item_lists(sequence):
    seconds = sequence.seconds_per_grid or [None] * len(sequence.grids)
    return sequence.grids, sequence.videos, seconds


#: A short clip: 4 grid steps of 4 × 4 patches (2 × 2 tokens), text before and after
CLIP = Sequence([3, 2], [[4, 4, 4]], [True], [1.0], [5, 5, 6])


def _qwen2_5_clip(fps, steps, height=4, width=4, *, before=2, after=3):
    # second_per_grid_ts = temporal_patch_size / fps, the processor's rule
    return Sequence([before, after], [[steps, height, width]], [True], [2 / fps])


SEQUENCES = {
    "clip": CLIP,
    # a long clip: time ids pass its 2 rows and columns, and the text after resumes below them
    "long clip": Sequence([1, 4], [[10, 4, 4]], [True], [1.0], [3] * 9),
    "image, clip, image": Sequence(
        [2, 3, 1, 2],
        [[1, 4, 6], [4, 4, 4], [1, 6, 2]],
        [False, True, False],
        [0.3, 0.25, 7.0],  # images' entries are not used
        [6, 6, 7],
    ),
    "two videos": Sequence([1, 2, 1], [[3, 2, 6], [2, 8, 4]], [True, True], [0.5, 1.5], [4] * 3),
}

#: Qwen2.5-VL clips at frame rates that give fractional steps (tokens_per_second = 2)
QWEN2_5_CLIPS = {
    "fps 2: 2 ids a step": _qwen2_5_clip(2, 4),
    "fps 8: half an id a step, 0 0 1 1": _qwen2_5_clip(8, 4),
    "fps 16: a quarter of an id a step": _qwen2_5_clip(16, 8),
    "fps 30: every step at time 0": _qwen2_5_clip(30, 8),
    "fps 2.4: 5/6 of an id a step": _qwen2_5_clip(2.4, 12, 2, 6),
    "fps 23/7: float32 truncates 23 x 28/23 to 27": _qwen2_5_clip(23 / 7, 24, 2, 2),
    "fps 13/5: float32 keeps 39 x 20/13 at 60": _qwen2_5_clip(13 / 5, 40, 2, 2),
    "fps 1: 4 ids a step, realistic size": _qwen2_5_clip(1, 6, 16, 24, before=14, after=9),
}


def _check_equal(model, sequences, **kwargs):
    theirs, deltas, mask = reference_position_ids(model, sequences, **kwargs)
    for row, sequence in enumerate(sequences):
        ours = sequence.ours(model, **kwargs)
        np.testing.assert_array_equal(theirs[:, row, mask[row]], ours)
        assert (theirs[:, row, ~mask[row]] == 0).all()  # padding stays at 0
        # decoding continues at ids.max() + 1: rope_deltas = that - the number of tokens
        assert deltas[row] == ours.max() + 1 - ours.shape[1]


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("name", sorted(SEQUENCES))
def test_video_position_ids_equal_get_rope_index(model, name):
    _check_equal(model, [SEQUENCES[name]])


@pytest.mark.parametrize("name", sorted(QWEN2_5_CLIPS))
def test_qwen2_5_vl_time_ids_equal_get_rope_index(name):
    _check_equal("qwen2_5_vl", [QWEN2_5_CLIPS[name]])


@pytest.mark.parametrize("tokens_per_second", [1, 4, 25])
def test_qwen2_5_vl_other_tokens_per_second(tokens_per_second):
    clips = [QWEN2_5_CLIPS["fps 2.4: 5/6 of an id a step"], SEQUENCES["image, clip, image"]]
    for clip in clips:
        _check_equal("qwen2_5_vl", [clip], tokens_per_second=tokens_per_second)


def test_qwen2_5_vl_without_second_per_grid_ts_takes_one_second():
    clip = Sequence([3, 2], [[4, 4, 4]], [True])  # no durations: transformers takes 1 s a step
    _check_equal("qwen2_5_vl", [clip])
    np.testing.assert_array_equal(
        clip.ours("qwen2_5_vl"), mrope_video_position_ids([3, 2], [[4, 4, 4]], model="qwen2_5_vl")
    )


@pytest.mark.parametrize("model", sorted(MODELS))
def test_merge_size_one(model):
    _check_equal(model, [Sequence([2, 1], [[3, 2, 3]], [True], [0.5], [2, 2])], merge=1)


@pytest.mark.parametrize("model", sorted(MODELS))
def test_left_padded_batch(model):
    # the attention mask drops padding; each row is numbered from 0 on its own
    batch = [CLIP, SEQUENCES["image, clip, image"], Sequence([4], [], [])]
    _check_equal(model, batch)


def test_processor_gives_second_per_grid_ts_in_float32():
    # Qwen2_5_VLProcessor returns a list of temporal_patch_size / fps; BatchFeature makes it
    features = transformers.BatchFeature({"second_per_grid_ts": [2 / 3, 0.25]}, tensor_type="pt")
    assert features["second_per_grid_ts"].dtype == torch.float32


# ---------------------------------------------------------------------------
# The harness rejects wrong answers
# ---------------------------------------------------------------------------


def _single_video_ids(sequence, rounding):
    """A clip's ids built in the test with the time rule ``rounding(k, step)`` for step k."""
    (before, after), ((steps, height, width),) = sequence.text_lengths, sequence.grids
    rows, cols = height // 2, width // 2
    k, r, c = np.unravel_index(np.arange(steps * rows * cols), (steps, rows, cols))
    times = rounding(k, 2 * sequence.seconds_per_grid[0])  # tokens_per_second = 2
    video = np.stack([times, r, c]) + before
    text_after = np.arange(after) + before + max(rows, cols)
    return np.concatenate(
        [np.tile(np.arange(before), (3, 1)), video, np.tile(text_after, (3, 1))], axis=1
    )


RULES = {
    "float32, truncated": lambda k, s: np.trunc(k.astype(np.float32) * np.float32(s)),
    "not truncated": lambda k, s: k * s,
    "rounded to nearest": lambda k, s: np.floor(k * s + 0.5),
    "float64, truncated": lambda k, s: np.trunc(k * s),
}


@pytest.mark.parametrize(
    "name", ["fps 8: half an id a step, 0 0 1 1", "fps 23/7: float32 truncates 23 x 28/23 to 27"]
)
def test_the_harness_rejects_wrong_time_rules(name):
    clip = QWEN2_5_CLIPS[name]
    theirs = reference_position_ids("qwen2_5_vl", [clip])[0][:, 0]
    np.testing.assert_array_equal(_single_video_ids(clip, RULES["float32, truncated"]), theirs)
    wrong = ["not truncated", "rounded to nearest"] if "fps 8" in name else ["float64, truncated"]
    for rule in wrong:
        with pytest.raises(AssertionError):
            np.testing.assert_array_equal(_single_video_ids(clip, RULES[rule]), theirs)


@pytest.mark.parametrize("model", sorted(MODELS))
def test_the_harness_rejects_the_other_model_and_resuming_at_the_largest_id(model):
    sequence = SEQUENCES["long clip"]
    theirs = reference_position_ids(model, [sequence])[0][:, 0]
    np.testing.assert_array_equal(sequence.ours(model), theirs)
    for other in sorted(set(MODELS) - {model}):
        if other == "qwen3_vl" or model == "qwen3_vl":  # a different number of tokens
            assert sequence.ours(other).shape != theirs.shape
        else:  # one id a step against 2 ids a step (1 s × tokens_per_second 2)
            with pytest.raises(AssertionError):
                np.testing.assert_array_equal(sequence.ours(other), theirs)
    resumed = sequence.ours(model, resume="max")
    if model == "qwen3_vl":  # one-step frames: both rules agree
        np.testing.assert_array_equal(resumed, theirs)
    else:
        with pytest.raises(AssertionError):
            np.testing.assert_array_equal(resumed, theirs)
