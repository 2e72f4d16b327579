"""Find and run the Python examples of the book's pages.

Every fenced block whose language is ``python``, ``py``, ``python3`` or
``pycon`` is an example, whatever follows the language in the fence (a title,
line numbers, attributes) and however deeply it is indented (admonitions,
content tabs). Blocks of one page run in order in one shared namespace, like a
reader's session. A block with ``>>>`` prompts is a doctest: its outputs are
compared. Other blocks are executed and must not raise.
"""

from __future__ import annotations

import doctest
import re
from dataclasses import dataclass
from pathlib import Path

PYTHON_LANGUAGES = {"python", "py", "python3", "pycon"}
FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*)$")
DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    language: str
    source: str  # dedented code

    @property
    def is_doctest(self) -> bool:
        return self.language == "pycon" or self.source.lstrip().startswith(">>>")


def fence_language(info: str) -> str:
    """Language of a fence info string: ``python title="x"`` or ``{ .python }`` → python."""
    info = info.strip()
    if info.startswith("{"):
        match = re.search(r"\.([\w+-]+)", info)
        return match.group(1).lower() if match else ""
    return info.split(maxsplit=1)[0].lower() if info else ""


def find_blocks(text: str, path: Path = Path("<string>")) -> list[Block]:
    """Every Python block of a markdown text, in order."""
    lines = text.splitlines()
    blocks, n = [], 0
    while n < len(lines):
        match = FENCE_OPEN.match(lines[n])
        if not match:
            n += 1
            continue
        indent, fence = match.group("indent"), match.group("fence")
        language = fence_language(match.group("info"))
        body, end = [], n + 1
        while end < len(lines):
            stripped = lines[end].strip()
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                break
            body.append(
                lines[end][len(indent) :] if lines[end].startswith(indent) else lines[end].lstrip()
            )
            end += 1
        else:
            raise ValueError(f"{path}:{n + 1}: code fence is never closed")
        if language in PYTHON_LANGUAGES:
            blocks.append(Block(path, n + 1, language, "\n".join(body) + "\n"))
        n = end + 1
    return blocks


class ExampleFailed(AssertionError):
    pass


def run_block(block: Block, namespace: dict) -> None:
    """Run one block in ``namespace``; raise ExampleFailed with a readable report."""
    name = f"{block.path}:{block.line}"
    if block.is_doctest:
        parser = doctest.DocTestParser()
        test = parser.get_doctest(block.source, namespace, name, str(block.path), block.line)
        report: list[str] = []
        runner = doctest.DocTestRunner(optionflags=DOCTEST_FLAGS, verbose=False)
        runner.run(test, out=report.append, clear_globs=False)
        namespace.update(test.globs)  # DocTest works on a copy of the namespace
        if runner.failures:
            raise ExampleFailed("".join(report))
        return
    try:
        code = compile(block.source, name, "exec")
        exec(code, namespace)  # noqa: S102 - running the book's own examples
    except Exception as exc:
        raise ExampleFailed(f"{name}: {type(exc).__name__}: {exc}") from exc
