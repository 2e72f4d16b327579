"""The page harness itself: it finds every kind of fence and fails on a wrong answer."""

from __future__ import annotations

import pytest
from pages import ExampleFailed, fence_language, find_blocks, run_block

PAGE = """
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

```bash
echo not python
```
"""


def test_finds_every_python_fence():
    blocks = find_blocks(PAGE)
    assert [b.language for b in blocks] == ["python", "pycon", "py", "python"]
    assert blocks[1].source == ">>> x + 1\n3\n"


@pytest.mark.parametrize(
    "info, language",
    [
        ("python", "python"),
        ('python title="a b"', "python"),
        ("pycon", "pycon"),
        ("{ .py .copy }", "py"),
        ("", ""),
        ("bash", "bash"),
    ],
)
def test_fence_language(info, language):
    assert fence_language(info) == language


def test_runs_blocks_in_one_namespace():
    namespace = {}
    for block in find_blocks(PAGE):
        run_block(block, namespace)
    assert namespace["z"] == 21


def test_wrong_output_fails():
    (block,) = find_blocks("```pycon\n>>> 1 + 1\n3\n```\n")
    with pytest.raises(ExampleFailed, match="Expected"):
        run_block(block, {})


def test_exception_in_plain_block_fails():
    (block,) = find_blocks("```python\nraise RuntimeError('boom')\n```\n")
    with pytest.raises(ExampleFailed, match="boom"):
        run_block(block, {})


def test_unclosed_fence_is_an_error():
    with pytest.raises(ValueError, match="never closed"):
        find_blocks("```python\nx = 1\n")
