"""The page harness itself: it finds every kind of fence, and fails on a wrong answer.

Each test writes a small markdown page and runs pytest on it with the book's
Sybil (``pytester``), then reads the outcomes the way a reader of the test
report would.
"""

from __future__ import annotations

import sys

import matplotlib
import pytest
from pages import PYTHON_FENCE_INFO, book_sybil, run_code, run_doctest, start_session

pytest_plugins = ["pytester"]

PAGE = """\
# A page

```python title="setup.py" linenums="1"
x = 2
```

!!! note
    Indented inside an admonition:

    ```pycon
    >>> x + 1
    3
    ```

=== "Tab"

    ```py
    y = x * 10
    ```

```{ .python .annotate }
z = y + 1
```

~~~python3
assert z == 21
~~~

```bash
echo not python
```
"""

CONFTEST = """\
from pathlib import Path

from pages import book_sybil

pytest_collect_file = book_sybil(Path(__file__).parent).pytest()
"""


def run_page(pytester, text, *args):
    pytester.makeconftest(CONFTEST)
    pytester.makefile(".md", page=text)
    return pytester.runpytest("-p", "no:cacheprovider", "-ra", *args)


def test_finds_every_python_fence(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    examples = list(book_sybil(tmp_path).parse(page).examples())
    assert [e.line for e in examples] == [3, 10, 17, 21, 25]
    evaluators = [e.region.evaluator for e in examples]
    assert evaluators == [run_code, run_doctest, run_code, run_code, run_code]
    assert examples[1].parsed == ">>> x + 1\n3\n"  # dedented out of the admonition


@pytest.mark.parametrize(
    "info",
    ["python", "py", "python3", "pycon", "Python", 'python title="a b"', "{ .python .x }", "{.py}"],
)
def test_python_fence_info_is_recognised(info):
    assert PYTHON_FENCE_INFO.match(info + "\n")


@pytest.mark.parametrize("info", ["", "bash", "text", "pyodide", "python-repl", "{ .text }"])
def test_other_fence_info_is_not(info):
    assert not PYTHON_FENCE_INFO.match(info + "\n")


def test_runs_blocks_in_one_namespace_with_readable_ids(pytester):
    result = run_page(pytester, PAGE, "-v")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["page.md::line:10,column:1 PASSED*"])


def test_wrong_output_fails(pytester):
    result = run_page(pytester, "```pycon\n>>> 1 + 1\n3\n>>> 2 + 2\n5\n```\n")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*line 2,*", "Expected:", "    3", "Got:", "    2"])
    assert "Expected:\n    5" not in result.stdout.str()  # stops at the first wrong output


def test_wrong_output_reports_its_own_line(pytester):
    result = run_page(pytester, "```pycon\n>>> 1 + 1\n2\n>>> 2 + 2\n5\n```\n")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*line 4,*", "Expected:", "    5", "Got:", "    4"])


def test_exception_in_plain_block_fails(pytester):
    result = run_page(pytester, "```python\nraise RuntimeError('boom')\n```\n")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*RuntimeError: boom*"])


@pytest.mark.parametrize(
    "failing",
    ["```python\nx = undefined_name\n```", "```pycon\n>>> 1 + 1\n3\n```"],
    ids=["exception", "wrong-output"],
)
def test_later_blocks_are_skipped_after_a_failure(pytester, failing):
    page = (
        f"```python\nw = 1\n```\n\n{failing}\n\n```python\ny = x\n```\n\n```pycon\n>>> y\n1\n```\n"
    )
    result = run_page(pytester, page)
    result.assert_outcomes(passed=1, failed=1, skipped=2)
    result.stdout.fnmatch_lines(
        ["SKIPPED [[]2[]] *: an earlier example on this page failed: line 5 (page.md)"]
    )
    assert "name 'x' is not defined" not in result.stdout.str()  # no cascade


def test_one_selected_example_runs_after_the_earlier_ones(pytester):
    result = run_page(pytester, PAGE, "page.md::line:21,column:1")
    result.assert_outcomes(passed=1)


def test_one_selected_example_is_skipped_after_an_earlier_failure(pytester):
    page = "```python\nraise RuntimeError\n```\n\n```python\nx = 1\n```\n"
    result = run_page(pytester, page, "page.md::line:5,column:1")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*an earlier example on this page failed: line 1 (page.md)"])


def test_torch_blocks_are_skipped_without_torch(pytester, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    page = (
        "```python\nx = 1\n```\n\n"
        "```python\nimport torch\nx = torch.zeros(1)\n```\n\n"
        "!!! note\n    ```pycon\n    >>> from torch import nn\n    ```\n\n"
        "```python\nassert x == 1\n```\n"
    )
    result = run_page(pytester, page)
    result.assert_outcomes(passed=2, skipped=2)
    result.stdout.fnmatch_lines(
        ["SKIPPED [[]2[]] *: PyTorch is not installed (optional for the book)"]
    )


def test_pages_draw_figures_off_screen():
    namespace = {}
    start_session(namespace)
    assert namespace == {"__name__": "__page__"}
    assert matplotlib.get_backend().lower() == "agg"


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ("changes each row. - **The sum of the attention outputs differs", True),
        ("the | --- | row", True),
        ("a **bold** word left as typed", True),
        ("a list item, then - a dash, and x ** 2 in prose", False),
    ],
)
def test_the_browser_check_sees_markdown_that_did_not_render(text, raw):
    from browser_support import _RAW_MARKDOWN

    assert bool(_RAW_MARKDOWN.search(text)) == raw
