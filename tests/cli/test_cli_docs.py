"""docs/cli.md gives each command's ``--help`` as the command prints it: the blocks that
docs/gen_cli.py generates are the real output, and the same text the contract pins."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.help_pins import HELP

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    sys.version_info[:2] != (3, 11), reason="argparse's --help layout is pinned as 3.11 prints it"
)


def gen_cli() -> ModuleType:
    """docs/gen_cli.py, a script beside the pages rather than a module of the package."""
    spec = importlib.util.spec_from_file_location("gen_cli", ROOT / "docs" / "gen_cli.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def blocks(page: str) -> dict[tuple[str, ...], str]:
    """The generated ``--help`` blocks of the page, by command."""
    generated = page.split(gen_cli().MARKER, 1)[1]
    block = r"^### sitemap-reader ?(.*?)\n\n```text\n(.*?)```$"
    found = re.findall(block, generated, re.MULTILINE | re.DOTALL)
    return {tuple(name.split()): text for name, text in found}


def test_the_page_is_what_the_script_generates() -> None:
    """``python docs/gen_cli.py --check`` passes: the page is not stale."""
    assert gen_cli().main(["--check"]) == 0


def test_the_page_gives_the_pinned_help_of_every_command() -> None:
    """Every command of the pinned contract has its block, and the block is the pinned text."""
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert blocks(page) == HELP


def test_a_stale_page_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A page whose blocks differ from the --help output fails the check, and the script
    rewrites it to the real output."""
    module = gen_cli()
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    stale = tmp_path / "cli.md"
    stale.write_text(page.replace("--max-depth", "--max-dept"), encoding="utf-8")
    monkeypatch.setattr(module, "CLI_MD", stale)
    assert module.main(["--check"]) == 1
    assert module.main([]) == 0
    assert stale.read_text(encoding="utf-8").split(module.MARKER)[1] == page.split(module.MARKER)[1]
