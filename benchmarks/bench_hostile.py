"""The hostile-server table of docs/safety.md, measured and checked: every attack it lists is run
against the hostile server of the tests (``tests/support/hostile.py``, aiohttp on 127.0.0.1, in this
process and loop), and every outcome the table states is asserted.

    python benchmarks/bench_hostile.py                 # the table, each attack run 3 times
    python benchmarks/bench_hostile.py --repeat 1 --only redirects,fan-out

Each attack runs on a new server with a new reader. Its run time is the median over the
repeats, its memory the highest tracemalloc peak (the server's allocations included: the
hostile handlers write pieces of at most 64 KiB). Every repeat must end within the attack's
time bound and stay under its memory bound (16 MiB for one document in flight, 32 MiB for
four), and show the outcome of its row. The table is printed as markdown, as docs/safety.md gives
it; a broken outcome is printed after it and the exit status is 1.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from aiohttp.test_utils import TestServer

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # the attacks, and the server in the tests

from _hostile_attacks import ROWS, Attack, Broken, Row  # found through the path

from tests.support.hostile import Measured, MiB, measured_walk
from tests.support.http_site import FAST_SHUTDOWN, Served


@dataclass(frozen=True)
class Figures:
    """One attack over its repeats: the median run time, the highest peak, what broke."""

    seconds: float
    peak: int
    broken: tuple[str, ...]


async def _once(attack: Attack, tmp: Path) -> tuple[Measured, list[str]]:
    site = attack.site()
    server = TestServer(site.app(), host="127.0.0.1")
    await server.start_server(shutdown_timeout=FAST_SHUTDOWN)
    try:
        assert server.port is not None
        setup = attack.build(Served(site, server.port), tmp)
        m = await measured_walk(setup.source, config=setup.config)
    finally:
        await server.close()
    broken = []
    if m.seconds >= setup.seconds:
        broken.append(f"took {m.seconds:.1f} s, bound {setup.seconds:g} s")
    if m.peak >= setup.peak:
        broken.append(f"peaked at {m.peak / MiB:.1f} MiB, bound {setup.peak / MiB:g} MiB")
    try:
        setup.check(m)
    except Broken as exc:
        broken.append(str(exc))
    return m, broken


async def measure(attack: Attack, repeat: int) -> Figures:
    times, peaks, broken = [], [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            m, faults = await _once(attack, Path(tmp))
        times.append(m.seconds)
        peaks.append(m.peak)
        broken += faults
    return Figures(statistics.median(times), max(peaks), tuple(dict.fromkeys(broken)))


def _seconds(value: float) -> str:
    """Two digits that mean something: 0.004, 0.06, 0.7, 2.0."""
    return f"{value:.3f}" if value < 0.0095 else f"{value:.2f}" if value < 0.095 else f"{value:.1f}"


def table_line(row: Row, figures: Sequence[Figures]) -> str:
    seconds = " / ".join(_seconds(f.seconds) for f in figures)
    peaks = " / ".join(f"{f.peak / 1e6:.1f}" for f in figures)
    return f"| {row.attack} | {seconds} s | {peaks} MB | {row.outcome} |"


HEADER = "| attack | run time | peak traced memory | outcome |\n| --- | ---: | ---: | --- |"


async def run(rows: Sequence[Row], repeat: int) -> tuple[list[str], list[str]]:
    """The table's lines, and what broke (empty when every outcome held)."""
    lines, broken = [], []
    for row in rows:
        figures = [await measure(attack, repeat) for attack in row.attacks]
        lines.append(table_line(row, figures))
        for i, f in enumerate(figures):
            which = f" (attack {i + 1} of {len(figures)})" if len(figures) > 1 else ""
            broken += [f"{row.name}{which}: {what}" for what in f.broken]
    return lines, broken


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each attack (default 3)")
    names = ", ".join(row.name for row in ROWS)
    ap.add_argument("--only", help=f"rows to run, comma-separated: {names}")
    args = ap.parse_args()
    rows = ROWS
    if args.only:
        wanted = set(args.only.split(","))
        if wanted - {row.name for row in ROWS}:
            ap.error(f"no such row: {', '.join(sorted(wanted - {r.name for r in ROWS}))}")
        rows = tuple(row for row in ROWS if row.name in wanted)
    lines, broken = asyncio.run(run(rows, max(1, args.repeat)))
    print(HEADER)
    print("\n".join(lines))
    if broken:
        print("\n".join(["", "outcomes that do not hold:", *broken]), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
