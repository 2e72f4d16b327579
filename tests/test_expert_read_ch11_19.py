"""What an expert read of chapters 11–13, 16, 18–19 and notebooks 1, 2 and 4 found, held
to what is true (issue 50).

1. The models that pair RoPE's dimensions 2i and 2i + 1 were named as if the list were
   complete. Chapter 16 now names examples, each a ``model_type`` in the library's
   list, quotes that list whole, says it is not complete and points to ``inspect``;
   notebook 4 names examples from the same list. (transformers itself:
   ``tests/test_transformers_interleaved.py``.)
2. ALiBi's key-only bias gives the same weights in exact arithmetic only: chapter 12
   quotes ``alibi_weight_error`` in float32 and bfloat16.
3. Without positions attention is permutation-equivariant only without a causal mask.
4. How long contexts are reached: counted from the gallery's configs at build time,
   the count checked here against the files read without the library.
5. ALiBi's extrapolation: no "modest factor"; the paper's own analysis.
6. "Learned embeddings often work better": not false, unsupported by one ablation.
7. The porting checklist: per query head, per key head under grouped-query attention,
   biases and q/k-norm weights.
8. The rest: values, slopes for powers of two, the symmetric bias, half-open bands,
   the models after GPT-2.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pe_book import TABLES, VALUES, load_all
from pe_book.chapters import alibi, conventions, rope
from pe_book.models import MODELS_DIR
from pe_explained import rope_settings
from pe_explained.hf_config import _INTERLEAVED_MODEL_TYPES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

load_all()


def _page(relative: str) -> str:
    return (DOCS / relative).read_text(encoding="utf-8")


def _flat(text: str) -> str:
    return " ".join(text.split())


def _notebook(name: str) -> str:
    """A notebook's source on one line, its Markdown cells' comment markers dropped."""
    text = (DOCS / "notebooks" / name).read_text(encoding="utf-8")
    return _flat(re.sub(r"(?m)^# ?", "", text))


# ---- 1. interleaved pairs


#: The types the read named, whose transformers code pairs 2j with 2j + 1.
READ_NAMED = ("cohere", "cohere2", "cohere2_moe", "glm", "glm4", "ernie4_5", "helium", "codegen")


def test_the_library_lists_every_type_the_read_named_and_roformer():
    assert set(READ_NAMED) | {"roformer"} <= _INTERLEAVED_MODEL_TYPES


@pytest.mark.parametrize("model_type", sorted(_INTERLEAVED_MODEL_TYPES))
def test_the_library_reads_every_such_type_as_interleaved(model_type):
    config = {"model_type": model_type, "rope_theta": 10000.0, "head_dim": 64}
    assert {s.layout for s in rope_settings(config).values()} == {"interleaved"}


def test_chapter_16_names_examples_from_the_librarys_list():
    page = _flat(_page("practice/conventions.md"))
    for name, types in conventions.INTERLEAVED_EXAMPLES.items():
        assert name in page, name
        assert set(types) <= _INTERLEAVED_MODEL_TYPES, name
    assert "not a complete list" in page and "python -m pe_explained inspect" in page
    assert "{{ value: conventions.interleaved_model_types }}" in page


def test_chapter_16_quotes_the_librarys_list_whole():
    shown = re.findall(r"`([a-z0-9_]+)`", VALUES["conventions.interleaved_model_types"].text())
    assert shown == sorted(_INTERLEAVED_MODEL_TYPES)
    count = VALUES["conventions.interleaved_model_type_count"].text()
    assert count == str(len(_INTERLEAVED_MODEL_TYPES))


#: The models notebook 4 names as examples of interleaved pairs.
NOTEBOOK_EXAMPLES = ("GPT-J", "Command R", "GLM", "Helium", "Llama 4", "DeepSeek-V2", "DeepSeek-V3")


def test_notebook_4_names_examples_and_points_to_inspect():
    notebook = _notebook("part4-practice.py")
    cell = notebook.split("# 2. RoPE: interleaved or halves")[1].split("%%")[0]
    assert "for example" in cell and "python -m pe_explained inspect" in cell
    for name in NOTEBOOK_EXAMPLES:
        assert name in cell, name
        assert name in conventions.INTERLEAVED_EXAMPLES, name
    assert "names them" not in cell


def test_the_config_inspector_knows_the_same_interleaved_types():
    """The page keeps no list of its own: its reading takes the library's registry of
    families from the widget's data (pe_explained.families.FAMILIES)."""
    from pe_book import load_all
    from pe_book.interactive import INTERACTIVES

    script = (DOCS / "assets" / "javascripts" / "inspector-layers.js").read_text(encoding="utf-8")
    assert 'const INTERLEAVED = { has: ruled("pairing", "interleaved") };' in script
    assert not re.search(r"const INTERLEAVED = set\(", script)
    load_all()
    families = INTERACTIVES["inspector"].defaults()["families"]
    words = [t for t, f in families.items() if f["pairing"] == "interleaved"]
    assert sorted(words) == sorted(_INTERLEAVED_MODEL_TYPES)


# ---- 2. ALiBi's two forms in low precision


def test_chapter_12_quotes_the_errors_of_both_forms():
    page = _page("modern/alibi.md")
    for form in ("relative", "keys"):
        for dtype in ("float32", "bfloat16"):
            assert f"{{{{ value: alibi.weight_error_{form}_{dtype} }}}}" in page
    assert "exactly the same attention" not in _flat(page)


def test_the_key_form_moves_the_weights_in_bfloat16_only():
    """'in bfloat16 … weights of order one moved'; float32 small for both forms."""
    assert alibi._weight_error("keys", "bfloat16") > 0.1
    assert alibi._weight_error("relative", "bfloat16") < 0.01
    assert max(alibi._weight_error(f, "float32") for f in ("relative", "keys")) < 1e-4


# ---- 3. the causal mask


def test_the_mask_is_named_where_attention_is_called_permutation_equivariant():
    fact_check = _flat(_page("practice/fact-check.md"))
    item9 = fact_check.split("## 9.")[1].split("## 10.")[0]
    assert "without a causal mask" in item9.split("**Correct statement.**")[1]
    part1 = _notebook("part1-foundations.py")
    assert "without a causal mask" in part1.split("# Takeaways")[1]
    part2 = _notebook("part2-model.py")
    assert "Plain attention without a causal mask only reorders" in part2


# ---- 4. how long contexts are reached


def _raw_rope_types(value) -> set[str]:
    """Every ``rope_type`` or ``type`` inside a config's RoPE dicts, read without the library."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("rope_scaling", "rope_parameters") and isinstance(item, dict):
                found |= _rope_dict_types(item)
            else:
                found |= _raw_rope_types(item)
    elif isinstance(value, list):
        for item in value:
            found |= _raw_rope_types(item)
    return found


def _rope_dict_types(rope: dict) -> set[str]:
    types = {rope.get("rope_type", rope.get("type"))} - {None}
    for item in rope.values():  # per layer type: {"full_attention": {...}, ...}
        if isinstance(item, dict):
            types |= _rope_dict_types(item)
    return types


def test_the_remapping_census_agrees_with_the_files():
    census = rope._long_context_census()
    remapped = sorted(
        path.stem
        for path in MODELS_DIR.glob("*.json")
        if path.stem in census["long"]
        and _raw_rope_types(json.loads(path.read_text(encoding="utf-8"))["config"])
        - {"default", "mrope"}
    )
    assert remapped == sorted(census["remapped"])
    assert len(census["rules"]) == len(census["remapped"])  # one rule each
    assert set(census["remapped"]) <= set(census["long"])
    # "mostly": more than half ship a rule, most of them on a raised base
    long_count, ruled = len(census["long"]), len(census["remapped"])
    assert 2 * ruled > long_count
    assert 2 * len(set(census["remapped"]) & set(census["raised"])) > ruled


@pytest.mark.parametrize(
    ("page", "old"),
    [
        ("modern/rope.md", "as most long-context models today, by raising the base"),
        ("modern/context-extension.md", "sometimes with one of these rules on top"),
        ("practice/fact-check.md", "long contexts are reached by interpolating positions"),
    ],
)
def test_the_old_sentences_are_gone_and_the_count_is_quoted(page, old):
    text = _flat(_page(page))
    assert old not in text
    assert "{{ value: rope.long_context_remapped }}" in text


# ---- 5. and 6. ALiBi's range, learned embeddings


def test_alibis_range_is_not_called_modest_and_the_papers_analysis_is_given():
    section = _flat(_page("modern/alibi.md")).split("## Extrapolation")[1]
    assert "modest factor" not in section
    assert "appendix B" in section and "Tables 2 and 3" in section


def test_item_8_splits_its_verdict():
    item8 = _flat(_page("practice/fact-check.md")).split("## 8.")[1].split("## 9.")[0]
    verdict = item8.split("**Verdict.**")[1].split("**Proof.**")[0]
    assert not verdict.startswith("False.")
    assert "The first is false" in verdict and "not supported" in verdict


# ---- 7. the porting checklist


@pytest.mark.parametrize("page", ["modern/rope.md", "practice/conventions.md"])
def test_the_permutation_goes_head_by_head_with_biases_and_norms(page):
    text = _flat(_page(page))
    assert "num_key_value_heads" in text and "q_norm" in text and "bias" in text
    assert "key head" in text


# ---- 8. the rest


def test_bands_are_written_as_the_distances_they_hold():
    assert "1–99" in VALUES["rope.decay_band_means"].text()
    assert "1,000–9,999" in VALUES["rope.decay_band_means"].text()
    header = TABLES["context_extension.abf_decay"].build().columns
    assert "distance 32,768–131,071" in header and "distance 1–99" in header


def test_alibis_slopes_halve_only_for_eight_heads_and_the_bias_has_the_books_letters():
    page = _flat(_page("modern/alibi.md"))
    assert "slopes halve from head to head, with 16" in page
    assert "symmetric variant" not in page and "defines ALiBi for causal" in page
    assert "$-m(i - j)" not in page and "+m\\,j$" not in page  # m_h, the glossary's name
    assert "m, n = " not in page  # n is the head count in this chapter
    slope = _flat(_page("appendix/glossary.md")).split("{{ symbol: slope }}")[1]
    assert "|m - n|" not in slope.split("{{ symbol:")[0]


def test_rope_names_the_port_that_rotates_values():
    assert "`rotary_value`" in _flat(_page("modern/rope.md"))


def test_the_models_after_gpt2_include_the_alibi_ones():
    item11 = _flat(_page("practice/fact-check.md")).split("## 11.")[1]
    bullet = item11.split("learned positional embeddings.")[1].split("- **")[0]
    for name in ("OPT", "BLOOM", "MPT", "ALiBi"):
        assert name in bullet, name
