"""A sentence in which a chapter does something — "chapter 6 finds …", "Chapter 4 proves …",
"as chapter 14 shows" — is a promise about that chapter, and it must land there.

Every such pointer on every page and in every notebook's prose is listed in
:data:`POINTERS`: by page, the start of the sentence from the chapter's name on (links
taken out), and for each chapter it names a phrase of that chapter's page that shows the
chapter does what the pointer says (a heading, a table, a sentence). A new pointer without
an entry fails, and so does an entry whose phrase is not on its chapter's page, or whose
pointer is gone. Where a pointer links to its chapter, the link must lead to the page of
that number, and to a heading of it when it names one.

A chapter named after a preposition or an article ("the waves figure of chapter 3 is …",
"introduced in chapter 1") is not the subject of its sentence and is no pointer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from markdown.extensions.toc import slugify

from pe_book.notebooks import read_notebook
from pe_book.pages.shortcodes import outside_fences
from pe_book.text import CHAPTER

DOCS = Path(__file__).resolve().parent.parent / "docs"
SITE = "https://pe-explained.github.io/pe_explained/"

#: Page → pointer (the sentence from the chapter's name on, links taken out, first letter
#: as written) → {chapter number: a phrase its page must hold, or several}. Phrases are
#: matched with runs of white space as one space, in the page's Markdown (shortcodes
#: unexpanded, code included).
POINTERS: dict[str, dict[str, dict[int, str | tuple[str, ...]]]] = {
    "index.md": {
        "chapter 14 shows how one attention head can read every position back": {
            14: "The simplest head shows how that becomes a number the model can use",
        },
        "chapter 8 follows the arrays through one layer to show where each acts.": {
            8: "This chapter follows the arrays through one layer",
        },
        "chapter 1 recalls in a few lines.": {1: "## Self-attention, briefly"},
    },
    "foundations/order-problem.md": {
        "chapter 14 shows how one attention head can read every position back": {
            14: "The simplest head shows how that becomes a number the model can use",
        },
    },
    "foundations/simpler-schemes.md": {
        "Chapter 1 showed that attention needs": {1: "## Adding position breaks the symmetry"},
        "chapter 6 finds, width by width, the position that comes closest": {
            6: "{{ table: intuitions.near_returns }}",
        },
        "Chapter 4 proves these properties": {4: "## A shift is a rotation"},
    },
    "foundations/sinusoidal.md": {
        "chapter 18 shows.": {18: "writing `2 * i` again doubles the exponent"},
        "chapter 4 shows:": {4: "## A shift is a rotation"},
        "chapter 4 proves it).": {4: "## A shift is a rotation"},
        "Chapter 16 compares these and the other conventions": {
            16: "## Sinusoidal tables: four conventions",
        },
    },
    "foundations/properties.md": {
        "Chapter 3 built the table": {3: "## The table"},
        "Chapter 18 works out that cosine, with its numbers, against the claim that the "
        "direction stays put.": {18: "The **cosine between consecutive differences**"},
        "chapters 1, 5 and 10 hold vectors as rows": {
            1: "multiplying each row from the right",
            5: "both as rows, as code holds them",
            10: "the query is $(E_i + U_i) W_q$",
        },
        "Chapter 10 splits such a score into four terms and shows how Transformer-XL makes "
        "its position term depend on the offset alone": {
            10: "and (d) only on the offset $i - j$, so it is constant along every diagonal",
        },
    },
    "foundations/adding-position.md": {
        "Chapter 1 showed the basic effect": {1: "## Adding position breaks the symmetry"},
    },
    "foundations/intuitions.md": {
        "chapter 2 measures the distances": {2: "# 7 → 8 flips four bits, 8 → 9 one"},
    },
    "model/layer.md": {
        "Chapter 3 built the sinusoidal table": {3: "## The table"},
    },
    "model/where-position-enters.md": {
        "chapter 7 builds that layer": {7: "This chapter writes that layer twice"},
        "Chapter 14 computes this and the findings behind it": {
            14: (r"\text{out}(i) = \frac{1}{i+1}", "This matches what the papers found"),
        },
    },
    "model/relative.md": {
        "Chapter 11 writes the same quantity for a query at $m$ and a key at $n$": {
            11: "a key at position $n$ then depends on the two positions only",
        },
        "chapters 12 and 13 keep $i$ and $j$": {
            12: "For query $i$ and key $j",
            13: "For query $i$ and key $j$",
        },
    },
    "modern/rope.md": {
        "Chapter 16 lists this and the other conventions": {16: "## RoPE: two layouts and a scale"},
        "chapter 16 names examples);": {16: "That is not a complete list"},
        "Chapter 15 shows what happens when the context is pushed past the trained length": {
            15: "that its slow pairs never reached in training",
        },
    },
    "modern/xpos-nope.md": {
        "Chapter 21 reads both from their configs": {
            21: "## A base per layer type, and layers without position",
        },
    },
    "practice/conventions.md": {
        "chapter 21 reads all of it from the config": {
            21: "## A base per layer type, and layers without position",
        },
    },
    "practice/evidence.md": {
        "Chapter 25 shows why most of these methods cost more than one attention pass, and "
        "where llama.cpp and vLLM depart from the papers.": {
            25: ("cost more than one attention pass", "where llama.cpp departs from"),
        },
        "Chapters 12 to 15 reported what papers found": {
            12: "## Extrapolation: what the paper shows",
            13: "generalised best to longer inputs",
            14: "generalised to longer inputs better",
            15: "were reported with perplexity and with passkey retrieval",
        },
    },
    "practice/todays-models.md": {
        "Chapters 11 and 15 built RoPE": {
            11: "# 11. Rotary position embedding",
            15: "# 15. Stretching the context",
        },
        "chapter 15 showed a context extension must handle": {
            15: "that its slow pairs never reached in training",
        },
    },
    "appendix/glossary.md": {
        "chapters 12 and 13 write a head's index $h$": {12: "head $h$", 13: "head $h$"},
        "chapter 2 divides positions by it": {2: "$PE(pos) = pos / L$"},
        "chapter 4 shows it acts as the same rotation": {
            4: "the same matrix moves every position forward by $k$",
        },
        "chapter 12 writes the positions $i$ and $j$, as the ALiBi paper does).": {
            12: "For query $i$ and key $j",
        },
        "Chapters 10, 12 and 13 write the query position $i$ and the key position $j$": {
            10: "how much query $i$",
            12: "For query $i$ and key $j",
            13: "For query $i$ and key $j$",
        },
        "chapter 14 follows the xPos paper": {
            14: "a query at position $n$ and of a key at position $m$",
        },
        "Chapter 1 computes them as the rows of $X W_q$ and $X W_k$": {
            1: r"S = \frac{(X W_q)(X W_k)^\top}{\sqrt{d_k}}",
        },
        "chapter 2 writes a table's row $PE(pos)$": {2: "one row $PE(pos)$ per position"},
        "chapter 3 builds the sinusoidal one": {3: "This chapter builds that table"},
        "chapter 5 writes it $p$ beside a token's vector $e$": {
            5: "Write $e$ for a token's vector and [$p$](../appendix/glossary.md#pe)",
        },
    },
    "inference/runtimes.md": {
        "chapter 23 for the context shift": {23: "## What llama.cpp's context shift does"},
        "chapter 25 for group attention": {25: "#### What the keys are rotated to"},
    },
    "notebooks/part3-modern.py": {
        "chapter 15 counts them": {15: "{{ value: context_extension.yarn_band_first }}"},
        "chapter 15 draws it, for a head width $d_k = 128$ (`head_dim`):": {
            15: "stretch of every pair"
        },
    },
    "notebooks/part1-foundations.py": {
        "chapter 14 shows how one attention head can read every position back from it.": {
            14: "The simplest head shows how that becomes a number the model can use",
        },
    },
    "notebooks/part4-practice.py": {
        "Chapter 16 gives the model types the library knows, and `python -m pe_explained "
        "inspect config.json` reports the pairing of any config.": {
            16: "{{ value: conventions.interleaved_model_types }}",
        },
    },
}

_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)")
_NUM = r"\d+(?:⟨[^⟩]*⟩)?"  # a chapter number, with the target of its link if it has one
_REF = re.compile(
    rf"\b[Cc]hapters?\s+(?P<numbers>{_NUM}(?:(?:,\s+|,?\s+and\s+|,?\s+or\s+|\s+to\s+){_NUM})*)"
    r"\s+(?P<word>[a-z]+)\b"
)
#: Words before a chapter's name that make it the object of a phrase, not a subject.
_NOT_SUBJECT = {"of", "in", "into", "from", "to", "with", "by", "for", "at", "on", "the", "a"}
#: Words after a chapter's name that make no claim about it.
_NOT_VERB = {"is", "are", "was", "has", "as", "a", "an", "and", "or", "it", "in", "onwards"}


@dataclass(frozen=True)
class Pointer:
    page: str  # under docs/
    text: str  # from the chapter's name to the end of its sentence, links taken out
    chapters: tuple[int, ...]
    links: tuple[tuple[int, str], ...]  # (chapter, link target) where its name is a link


def _numbers(refs: str) -> tuple[int, ...]:
    plain = re.sub(r"⟨[^⟩]*⟩", "", refs)
    if " to " in plain:  # "12 to 15"
        first, last = (int(n) for n in re.findall(r"\d+", plain))
        return tuple(range(first, last + 1))
    return tuple(int(n) for n in re.findall(r"\d+", plain))


def find_pointers(text: str, page: str) -> list[Pointer]:
    """The pointers of a page's prose (Markdown, its code fences left out beforehand)."""
    marked = re.sub(r"\s+", " ", _LINK.sub(lambda m: f"{m.group(1)}⟨{m.group(2)}⟩", text))
    found = []
    for match in _REF.finditer(marked):
        before = re.findall(r"[A-Za-z]+", marked[max(0, match.start() - 30) : match.start()])
        if (before and before[-1].lower() in _NOT_SUBJECT) or match["word"] in _NOT_VERB:
            continue
        rest = re.sub(r"⟨[^⟩]*⟩", "", marked[match.start() :])
        sentence = re.match(r".*?(?:[.;:!?](?=\s|$)|$)", rest).group(0)
        links = tuple((int(n), t) for n, t in re.findall(r"(\d+)⟨([^⟩]*)⟩", match["numbers"]))
        found.append(Pointer(page, sentence, _numbers(match["numbers"]), links))
    return found


def book_texts(docs: Path = DOCS) -> dict[str, str]:
    """The prose of every page (outside its code fences) and every notebook's markdown."""
    texts = {}
    for path in sorted(docs.rglob("*.md")):
        if "overrides" not in path.parts:
            lines = path.read_text(encoding="utf-8").splitlines()
            kept = [line for line, out in zip(lines, outside_fences(lines), strict=True) if out]
            texts[path.relative_to(docs).as_posix()] = "\n".join(kept)
    for path in sorted((docs / "notebooks").glob("*.py")):
        cells = read_notebook(path).cells
        markdown = "\n\n".join(c.source for c in cells if c.cell_type == "markdown")
        texts[path.relative_to(docs).as_posix()] = markdown
    return texts


def chapter_pages(docs: Path = DOCS) -> dict[int, str]:
    """The numbered chapters, by number: their paths under ``docs``."""
    pages = {}
    for path in docs.rglob("*.md"):
        title = CHAPTER.search(path.read_text(encoding="utf-8"))
        if title and "overrides" not in path.parts:
            pages[int(title.group(1))] = path.relative_to(docs).as_posix()
    return pages


def _target(page: str, link: str) -> tuple[str, str]:
    """The page (under docs/) and the anchor a link from ``page`` leads to."""
    path, _, anchor = link.partition("#")
    if path.startswith(SITE):  # a notebook links to the built site: modern/rope.html
        return path[len(SITE) :].rstrip("/").removesuffix(".html") + ".md", anchor
    if not path:
        return page, anchor
    parts = []
    for part in (PurePosixPath(page).parent / path).parts:
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts), anchor


def _headings(markdown: str) -> set[str]:
    lines = markdown.splitlines()
    return {
        slugify(line.lstrip("#").strip(), "-")
        for line, out in zip(lines, outside_fences(lines), strict=True)
        if out and re.match(r"#{1,6}\s", line)
    }


def pointer_problems(
    registry: dict[str, dict[str, dict[int, str | tuple[str, ...]]]], docs: Path = DOCS
) -> list[str]:
    """Every way the book's pointers and ``registry`` disagree, as sentences."""
    texts, pages = book_texts(docs), chapter_pages(docs)
    sources = {n: (docs / p).read_text(encoding="utf-8") for n, p in pages.items()}
    problems, used = [], set()
    for page, text in texts.items():
        for pointer in find_pointers(text, page):
            entries = [k for k in registry.get(page, {}) if pointer.text.startswith(k)]
            if len(entries) != 1:
                problems.append(f"{page}: {len(entries)} entries for {pointer.text!r}")
                continue
            used.add((page, entries[0]))
            evidence = registry[page][entries[0]]
            if set(evidence) != set(pointer.chapters):
                problems.append(f"{page}: {entries[0]!r} names chapters {pointer.chapters}")
            for number, link in pointer.links:
                target, anchor = _target(page, link)
                if target != pages.get(number):
                    problems.append(f"{page}: {entries[0]!r} links chapter {number} to {link}")
                elif anchor and anchor not in _headings(sources[number]):
                    problems.append(f"{page}: {entries[0]!r} links to #{anchor}: no such heading")
    for page, entries in registry.items():
        for key, evidence in entries.items():
            if (page, key) not in used:
                problems.append(f"{page}: no pointer {key!r} on the page any more")
            for number, phrases in evidence.items():
                target = re.sub(r"\s+", " ", sources.get(number, ""))
                for phrase in (phrases,) if isinstance(phrases, str) else phrases:
                    if re.sub(r"\s+", " ", phrase) in target:
                        continue
                    problems.append(f"{page}: {key!r} — chapter {number} does not hold {phrase!r}")
    return problems


def test_every_pointer_lands_on_what_it_promises():
    problems = pointer_problems(POINTERS)
    assert problems == [], (
        f"{problems}: add or update the sentence's entry in POINTERS (a phrase of that "
        "chapter's page that shows it does what the sentence says)"
    )


def test_pointers_are_found_in_prose_as_written():
    text = (
        "as [chapter 14](../modern/xpos-nope.md) measures. The waves figure of chapter 3\n"
        "is this picture; Chapters 12 to 15 reported it. Introduced in chapter 1 as $p$. "
        "chapters [12](a.md) and [13](b.md) write $h$ (chapter 10 onwards)."
    )
    found = find_pointers(text, "x.md")
    assert [(p.chapters, p.text) for p in found] == [
        ((14,), "chapter 14 measures."),
        ((12, 13, 14, 15), "Chapters 12 to 15 reported it."),
        ((12, 13), "chapters 12 and 13 write $h$ (chapter 10 onwards)."),
    ]
    assert found[0].links == ((14, "../modern/xpos-nope.md"),)
    assert found[2].links == ((12, "a.md"), (13, "b.md"))


def test_the_check_fails_on_the_pointers_that_once_missed():
    """Chapter 4 once sent the reader to chapter 8 for W_qᵀW_k, which chapter 8 never
    discusses, and chapter 2 to chapter 6 for "how often" distant positions come close,
    which chapter 6 does not count; a pointer without an entry fails too."""
    wrong = {page: dict(entries) for page, entries in POINTERS.items()}
    wrong["foundations/properties.md"]["chapters 1, 5 and 10 hold vectors as rows"] = {
        1: "multiplying each row from the right",
        5: "W_q^\\top W_k",
        10: "W_q^\\top W_k",
    }
    problems = pointer_problems(wrong)
    assert any("chapter 5 does not hold 'W_q^\\\\top W_k'" in p for p in problems), problems
    del wrong["foundations/simpler-schemes.md"][
        "chapter 6 finds, width by width, the position that comes closest"
    ]
    wrong["foundations/simpler-schemes.md"]["chapter 6 measures how often"] = {6: "how often"}
    problems = pointer_problems(wrong)
    assert any("0 entries for 'chapter 6 finds" in p for p in problems)
    assert any("no pointer 'chapter 6 measures how often'" in p for p in problems)
    assert any("chapter 6 does not hold 'how often'" in p for p in problems)


def test_the_check_follows_links_and_their_headings():
    assert _target("foundations/properties.md", "../model/relative.md#x") == (
        "model/relative.md",
        "x",
    )
    assert _target("notebooks/a.py", SITE + "modern/rope/") == ("modern/rope.md", "")
    assert _target("notebooks/a.py", SITE + "modern/rope.html#x") == ("modern/rope.md", "x")
    assert "transformer-xl-four-terms" in _headings((DOCS / "model" / "relative.md").read_text())
