"""The hostile-server benchmark: every row's outcome holds (one run of each attack, about
10 s), and the table of docs/safety.md is the benchmark's, row for row."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_hostile  # found through the path set above
from _hostile_attacks import ROWS, Attack, Row, Setup, expect

from tests.support.hostile import Measured
from tests.support.http_site import Served


def test_every_outcome_of_the_table_holds() -> None:
    lines, broken = asyncio.run(bench_hostile.run(ROWS, repeat=1))
    assert broken == []
    assert len(lines) == len(ROWS)
    for line, row in zip(lines, ROWS, strict=True):
        assert line.startswith(f"| {row.attack} | ") and line.endswith(f" | {row.outcome} |")


def test_a_broken_outcome_is_reported() -> None:
    """A check that fails is named with its row, and so is a time bound that is passed."""
    row = next(r for r in ROWS if r.name == "redirects")
    attack = row.attacks[0]

    def build(s: Served, tmp: Path) -> Setup:
        setup = attack.build(s, tmp)

        def check(m: Measured) -> None:
            expect(len(m.run.locs) == 3, "three entries")

        return Setup(setup.source, setup.config, check, seconds=0.0)

    broken_row = Row("redirects", row.attack, row.outcome, (Attack(build, attack.site),))
    _, broken = asyncio.run(bench_hostile.run([broken_row], repeat=1))
    assert broken[0].startswith("redirects: took ") and broken[0].endswith("bound 0 s")
    assert broken[1:] == ["redirects: three entries"]


def test_the_docs_table_is_the_benchmarks() -> None:
    """docs/safety.md gives the table as the script prints it: the same rows, attacks and
    outcomes in order, and a figure for each attack of a row."""
    page = (ROOT / "docs" / "safety.md").read_text(encoding="utf-8")
    start = page.index(bench_hostile.HEADER) + len(bench_hostile.HEADER) + 1
    rows = page[start:].split("\n\n", 1)[0].splitlines()
    assert len(rows) == len(ROWS)
    for line, row in zip(rows, ROWS, strict=True):
        cells = line.split(" | ")
        assert cells[0] == f"| {row.attack}" and line.endswith(f" | {row.outcome} |")
        for cell, unit in ((cells[1], "s"), (cells[2], "MB")):
            assert re.fullmatch(rf"\d+\.\d+(?: / \d+\.\d+)* {unit}", cell), line
            assert cell.count(" / ") == len(row.attacks) - 1, line
    assert "python benchmarks/bench_hostile.py" in page
