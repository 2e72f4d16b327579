"""The command line: output, errors without tracebacks, and every command shown on its page."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pe_book.cli
from pe_explained import sinusoidal
from pe_explained.cli import HEATMAP_CHARS, build_parser, format_table, main, text_heatmap

PAGE = Path(__file__).resolve().parent.parent / "docs" / "practice" / "cli.md"


def run(argv, capsys, entry=main):
    """Exit status and (stdout, stderr) of ``entry(argv)``; argparse errors exit via SystemExit."""
    try:
        status = entry(argv)
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def test_table_prints_the_library_values(capsys):
    status, out, err = run(
        [
            "table",
            "--positions",
            "5",
            "--d-model",
            "6",
            "--base",
            "100",
            "--layout",
            "halves",
            "--precision",
            "6",
        ],
        capsys,
    )
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["pos"] + [f"dim{j}" for j in range(6)]
    values = np.array([[float(v) for v in line.split()[1:]] for line in lines[1:]])
    np.testing.assert_allclose(values, sinusoidal(5, 6, base=100, layout="halves"), atol=5e-7)


def test_table_never_prints_negative_zero():
    assert "-0.00" not in format_table(np.array([[-1e-9, 0.0]]), precision=2)


def test_heatmap_maps_values_to_characters(capsys):
    assert text_heatmap(np.array([[-1.0, -0.05, 0.05, 0.999, 1.0]])) == "0 | =+@@|"
    status, out, _ = run(["heatmap", "--positions", "3", "--d-model", "4"], capsys)
    assert status == 0
    rows = out.splitlines()[:3]
    assert rows[0] == f"0 |{HEATMAP_CHARS[5]}@{HEATMAP_CHARS[5]}@|"  # sin 0 = 0, cos 0 = 1
    assert len(out.splitlines()) == 4  # three positions and the legend


@pytest.mark.parametrize(
    "argv, message",
    [
        (["table", "--d-model", "7"], "error: d_model must be even"),
        (["table", "--positions", "-3"], "error: positions as a count must be >= 0"),
        (["table", "--base", "1"], "error: base must be > 1"),
        (["table", "--precision", "-1"], "error: precision must be >= 0"),
        (["heatmap", "--base", "nan"], "error: base must be finite"),
    ],
)
def test_library_errors_are_one_line_and_exit_2(argv, message, capsys):
    status, out, err = run(argv, capsys)
    assert status == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["figure", "no_such_figure", "--out", "x.svg"], "error: unknown figure 'no_such_figure'"),
        (["figure", "--out", "x.svg"], "error: figure needs a NAME"),
    ],
)
def test_book_errors_are_one_line_and_exit_2(argv, message, capsys):
    status, out, err = run(argv, capsys, entry=pe_book.cli.main)
    assert status == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "argv", [["table", "--positions", "x"], ["table", "--layout", "odd"], ["nope"], []]
)
def test_syntax_errors_exit_2_with_usage(argv, capsys):
    status, _, err = run(argv, capsys)
    assert status == 2 and "usage:" in err and "Traceback" not in err


def test_help_documents_every_option(capsys):
    for command, options in [
        ("table", ["--positions", "--d-model", "--base", "--layout", "--precision"]),
        ("heatmap", ["--positions", "--d-model", "--base", "--layout"]),
    ]:
        status, out, _ = run([command, "--help"], capsys)
        assert status == 0
        for option in options:
            assert option in out, (command, option)
    status, out, _ = run(["figure", "--help"], capsys, entry=pe_book.cli.main)
    assert status == 0
    for option in ["--out", "--theme", "--list", "NAME"]:
        assert option in out, ("figure", option)


def test_the_description_names_every_command():
    """``--help``'s description says what each command does: the table, the heatmap
    (drawn as text) and ``inspect``."""
    parser = build_parser()
    (commands,) = [a for a in parser._actions if a.dest == "command"]
    words = {"table": "table", "heatmap": "draw it as text", "inspect": "inspect"}
    assert set(commands.choices) == set(words)
    for word in words.values():
        assert word in parser.description, word


def test_library_command_has_no_figure():
    """Drawing needs matplotlib, which the library does not depend on."""
    assert "figure" not in build_parser().format_help()


def test_figure_list_and_write(tmp_path, capsys):
    from pe_book import FIGURES, load_all
    from pe_book.render import render_svg

    load_all()
    status, out, _ = run(["figure", "--list"], capsys, entry=pe_book.cli.main)
    assert status == 0 and out.split() == sorted(FIGURES)
    name = "sinusoidal_waves"
    target = tmp_path / "waves.svg"
    argv = ["figure", name, "--out", str(target), "--theme", "dark"]
    status, out, _ = run(argv, capsys, entry=pe_book.cli.main)
    assert status == 0 and out.startswith(f"wrote {target} ({name}, dark theme")
    assert target.read_bytes() == render_svg(name, "dark")


def test_module_entry_point_runs():
    done = subprocess.run(
        [sys.executable, "-m", "pe_explained", "table", "--positions", "1", "--d-model", "2"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.split() == [
        "pos",
        "dim0",
        "dim1",
        "0",
        "0.0000",
        "1.0000",
    ]


def test_book_entry_point_runs():
    done = subprocess.run(
        [sys.executable, "-m", "pe_book", "figure", "--list"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "sinusoidal_heatmap" in done.stdout.split()


def page_commands() -> list[tuple[str, str]]:
    """(command, expected output) for every ``$ command`` in the page's console blocks."""
    text = PAGE.read_text(encoding="utf-8")
    pairs = []
    for block in re.findall(r"^```console\n(.*?)^```", text, flags=re.S | re.M):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            pairs.append((command, output))
    return pairs


def test_the_page_shows_commands():
    assert len(page_commands()) >= 4


@pytest.mark.parametrize("command, expected", page_commands(), ids=[c for c, _ in page_commands()])
def test_page_console_output_is_real(command, expected, tmp_path, monkeypatch, capsys):
    words = shlex.split(command)
    entries = {
        ("python", "-m", "pe_explained"): main,
        ("pe-explained",): main,
        ("python", "-m", "pe_book"): pe_book.cli.main,
    }
    prefix = next((p for p in entries if tuple(words[: len(p)]) == p), None)
    assert prefix is not None, command
    monkeypatch.chdir(tmp_path)  # figures are written here, not into the repository
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps usage text to the terminal width
    _, out, err = run(words[len(prefix) :], capsys, entry=entries[prefix])
    shown = "\n".join(line.rstrip() for line in (out + err).splitlines())
    assert shown == expected.rstrip("\n"), f"the page shows other output for: {command}"
