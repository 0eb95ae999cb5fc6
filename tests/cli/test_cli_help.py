"""The command line's contract, pinned: the exact ``--help`` text of the top-level parser and
of every command, and how the console script and ``python -m`` reach it.

argparse wraps at the terminal's width, so the tests fix it (COLUMNS=100). Its layout also
differs between Python versions (3.10 titles the options "optional arguments", 3.13 writes
``-o, --output FILE``): the text is pinned as Python 3.11 prints it.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sitemap_reader._cli import main
from tests.support.help_pins import HELP

pytestmark = pytest.mark.skipif(
    sys.version_info[:2] != (3, 11), reason="argparse's --help layout is pinned as 3.11 prints it"
)


@pytest.fixture(autouse=True)
def columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")


@pytest.mark.parametrize("command", list(HELP), ids=lambda c: " ".join(c) or "top")
def test_help_text_is_pinned(command: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    """``--help`` prints exactly the pinned text on stdout and exits 0."""
    with pytest.raises(SystemExit) as exit:
        main([*command, "--help"])
    assert exit.value.code == 0
    out, err = capsys.readouterr()
    assert (out, err) == (HELP[command], "")


@pytest.mark.parametrize("argv", [[], ["state"]], ids=["nothing", "state"])
def test_no_command_prints_its_help_and_exits_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """No command prints the top-level help on stderr, ``state`` with no action the help of
    ``state`` (its actions): exit 2."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", HELP[tuple(argv)])


def test_console_script_is_the_entrypoint(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """pyproject's ``[project.scripts]`` target imports and runs the same parser."""
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    script = re.search(r'^\[project\.scripts\]\nsitemap-reader = "(.+)"$', pyproject, re.MULTILINE)
    assert script is not None
    module, _, name = script[1].partition(":")
    entrypoint = getattr(importlib.import_module(module), name)
    monkeypatch.setattr(sys, "argv", ["sitemap-reader", "tree", "--help"])
    with pytest.raises(SystemExit) as exit:
        entrypoint()
    assert exit.value.code == 0
    assert capsys.readouterr().out == HELP[("tree",)]


def test_python_dash_m_prints_the_same_help() -> None:
    """``python -m sitemap_reader dump --help`` in a subprocess: the same text."""
    done = subprocess.run(
        [sys.executable, "-m", "sitemap_reader", "dump", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "COLUMNS": "100"},
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, HELP[("dump",)], "")
