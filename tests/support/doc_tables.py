"""The tables of docs/architecture.md, read as the project tests check them.

A table is found by its header row (its cells, as written); each row comes back as its
cells, and each cell's names are the spans it writes in backticks.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = ROOT / "docs" / "architecture.md"

_NAME = re.compile(r"`([^`]+)`")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split(" | ")]


def table(header: str, text: str | None = None) -> list[list[str]]:
    """The rows (cells) of the one table of docs/architecture.md whose header is ``header``
    (``"Module | Names"``, cells joined by `` | ``), its separator row left out."""
    lines = (text if text is not None else ARCHITECTURE.read_text(encoding="utf-8")).splitlines()
    starts = [i for i, line in enumerate(lines) if _cells(line) == header.split(" | ")]
    assert len(starts) == 1, f"{len(starts)} tables headed {header!r} in {ARCHITECTURE.name}"
    width = len(header.split(" | "))
    rows = []
    for line in lines[starts[0] + 2 :]:
        if not line.strip().startswith("|"):
            break
        cells = _cells(line)
        assert len(cells) == width, f"a row of {width} cells expected: {line.strip()}"
        rows.append(cells)
    assert rows, f"the table headed {header!r} has no rows"
    return rows


def names(cell: str) -> list[str]:
    """The names a cell writes in backticks."""
    return _NAME.findall(cell)
