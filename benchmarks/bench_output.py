"""Output benchmark: what writing JSON lines costs in a ``dump`` of one document.

    python benchmarks/bench_output.py [--docs mixed,plain,exact] [--urls N] [--repeat R]

For each generated 50,000-URL document (``bench_parse``'s, cached in ``benchmarks/.data/``),
best of R, on CPU time:

* ``parse``: a ``SitemapParser`` fed 64 KiB chunks, the entries of each chunk kept as the
  batch the walk would hand on, the collector set as the command line sets it (in this
  process);
* ``write jsonl``: those batches through the Python writer (``python_entry_writer``), to
  ``os.devnull`` (in this process);
* ``write jsonl (rust)``: the same through a ``LinePlan``, what ``dump`` and ``line_batches``
  write with: its bytes (``LinePlan.encode``) to ``os.devnull`` opened for bytes; timed where
  the plan chooses the crate's writer (``_native.LineWriter``: the compiled core);
* ``json.dumps``: the same entries as ``json.dumps(entry_to_dict(e))``, the obvious writer,
  for comparison (in this process);
* ``write csv`` and ``write txt``, each by both writers: the same for those formats;
* ``dump --format jsonl`` and ``dump --format txt``: the whole command in its own process,
  stdout to ``/dev/null``; the CPU time of the child (start-up and imports included); the
  ``(pure)`` rows with ``SITEMAP_READER_PURE=1``.

The writer's share is ``write jsonl`` over the pure ``dump --format jsonl``, and the compiled
writer's over the compiled one (issue 13 asks at most about 15%). No network is used.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_corpus import best_of  # (the benchmarks are scripts, not a package)
from bench_parse import make_docs

from sitemap_reader import Entry, LinePlan, SitemapParser
from sitemap_reader._base._gc import few_collections
from sitemap_reader._core._pure import PURE_ENV
from sitemap_reader._core._xml._core_choice import COMPILED
from sitemap_reader._output._lines import entry_to_dict, python_entry_writer

CHUNK = 65_536
SHARE_AIM = 0.15


def batches_of(data: bytes) -> list[list[Entry]]:
    # The collector set as the command line sets it for its run: kept batches would
    # otherwise make each full collection walk every entry read so far.
    with few_collections():
        return _batches_of(data)


def _batches_of(data: bytes) -> list[list[Entry]]:
    parser = SitemapParser("https://www.example.com/sitemap.xml")
    batches: list[list[Entry]] = []
    for start in range(0, len(data), CHUNK):
        events = parser.feed(data[start : start + CHUNK])
        batches.append([e for e in events if isinstance(e, Entry)])
    batches.append([e for e in parser.close() if isinstance(e, Entry)])
    return batches


def best_cpu(repeat: int, run: Callable[[], object]) -> float:
    return best_of(repeat, run, time.process_time)


def child_cpu(repeat: int, argv: list[str], *, pure: bool = False) -> float:
    """Best user + system time of ``argv`` run in a child, stdout to /dev/null; ``pure``
    sets SITEMAP_READER_PURE=1 for it."""
    env = {**os.environ, PURE_ENV: "1"} if pure else {**os.environ, PURE_ENV: ""}
    best = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(os.devnull, "wb") as null:
            subprocess.run(argv, stdout=null, stderr=subprocess.DEVNULL, check=True, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, used)
    return best


def measure(path: Path, repeat: int) -> dict[str, float]:
    data = path.read_bytes()
    batches = batches_of(data)
    urls = sum(len(b) for b in batches)
    with open(os.devnull, "w", encoding="utf-8") as sink, open(os.devnull, "wb") as raw:

        def write_as(
            fmt: str, make: Callable[[str, IO[str]], Callable[[list[Entry]], None]]
        ) -> None:
            writer = make(fmt, sink)
            for batch in batches:
                writer(batch)
            sink.flush()

        def write() -> None:
            writer = python_entry_writer("jsonl", sink)
            for batch in batches:
                writer(batch)

        def write_plan(plan: LinePlan) -> None:
            put = raw.write
            put(plan.header)
            for batch in batches:
                put(plan.encode(batch))

        def dumps() -> None:
            # (a batch a write, as the jsonl writer does)
            lines = ("".join([json.dumps(entry_to_dict(e)) + "\n" for e in b]) for b in batches)
            sink.writelines(lines)

        figures = {
            "urls": float(urls),
            "parse": best_cpu(repeat, lambda: batches_of(data)),
            "write jsonl": best_cpu(repeat, write),
            "json.dumps": best_cpu(repeat, dumps),
        }
        plans = {fmt: LinePlan(fmt) for fmt in ("jsonl", "csv", "txt")}
        for fmt, plan in plans.items():
            if fmt != "jsonl":
                figures[f"write {fmt}"] = best_cpu(
                    repeat, functools.partial(write_as, fmt, python_entry_writer)
                )
            if plan.compiled is not None:  # (else the plan writes with python_entry_writer)
                figures[f"write {fmt} (rust)"] = best_cpu(
                    repeat, functools.partial(write_plan, plan)
                )
    dump = [sys.executable, "-m", "sitemap_reader", "dump", str(path), "--quiet"]
    figures["dump --format jsonl (pure)"] = child_cpu(
        repeat, [*dump, "--format", "jsonl"], pure=True
    )
    figures["dump --format txt (pure)"] = child_cpu(repeat, [*dump, "--format", "txt"], pure=True)
    if COMPILED:
        figures["dump --format jsonl"] = child_cpu(repeat, [*dump, "--format", "jsonl"])
        figures["dump --format txt"] = child_cpu(repeat, [*dump, "--format", "txt"])
    return figures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", default="mixed,plain,exact")
    ap.add_argument("--urls", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", type=Path, metavar="FILE", help="also write the results here")
    args = ap.parse_args(argv)
    names = args.docs.split(",")
    if not set(names) <= {"plain", "mixed", "exact"}:
        ap.error("--docs takes plain, mixed and exact")
    results: dict[str, dict[str, float]] = {}
    verdicts: list[str] = []
    print(f"CPU seconds, best of {args.repeat} (load {os.getloadavg()[0]:.1f})")
    for doc in make_docs(args.urls, args.seed, names):
        figures = measure(doc.path, args.repeat)
        results[doc.name] = figures
        print(f"\n{doc.name}: {int(figures['urls']):,} URLs, {doc.xml_bytes / 1e6:.1f} MB")
        whole = figures["dump --format jsonl (pure)"]
        for key, value in figures.items():
            if key != "urls":
                print(f"  {key:<27} {value:7.3f} s  {value / whole:6.1%} of the pure jsonl dump")
        shares = [("python", "write jsonl", "dump --format jsonl (pure)")]
        if COMPILED:
            shares.append(("rust", "write jsonl (rust)", "dump --format jsonl"))
        for writer, part, run in shares:
            share = figures[part] / figures[run]
            verdict = "met" if share <= SHARE_AIM else "NOT met"
            verdicts.append(
                f"  {doc.name}, {writer} writer: {share:.1%} of its dump (aim ~15%): {verdict}"
            )
    print("\nAims:\n" + "\n".join(verdicts))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
