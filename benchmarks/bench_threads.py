"""Documents parsed in threads (``--parse-threads``) against inline, in one process.

    python benchmarks/bench_threads.py                       # both parts, 8 x 50,000 URLs
    python benchmarks/bench_threads.py --part site --shape mixed --rounds 2
    python benchmarks/bench_threads.py --part tokenizer --urls 200000

Two parts:

``site``: the loopback site of ``bench_site.py`` (robots.txt -> index -> CHILDREN gzipped
urlsets), read by ``sitemap-reader dump --format jsonl -o /dev/null`` in a fresh process,
with ``--parse-threads 0`` (inline, every document parsed on the event loop) and
``--parse-threads 2`` (two threads), and beside them ``--workers auto`` (processes) for
scale; each under the compiled core (the default) and ``SITEMAP_READER_PURE=1``. Per
reader: wall time, CPU time (user + system, the process and its workers), CPU/wall (above
1: more than one core at work), URLs/s and peak RSS. Rounds alternate the readers, so a
busy spell of the machine does not fall on one of them only.

``tokenizer``: in this process, two large urlsets each fed through its own
``_native.UrlsetScanner`` in 64 KiB chunks, one after the other on one thread, then at once
on two threads; the same with the Python reference scanner. CPU/wall says whether the two
ran on two cores: the compiled scan runs with the GIL released (py.detach), the Python one
holds it. Best of ROUNDS.

The reader's core is still the Python one (``SitemapParser``; the compiled tokenizer is not
its core yet), so today ``--parse-threads 2`` on the site can only overlap what releases the
GIL inside the Python parser (zlib's inflating) with the rest: the ``tokenizer`` part shows
what two threads give once the parse runs compiled.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _bytecode import compile_package
from bench_site import _found, run_measured, site_served

CHUNK = 65_536
SITE_READERS: dict[str, tuple[list[str], dict[str, str]]] = {
    "inline": (["--parse-threads", "0"], {}),
    "threads": (["--parse-threads", "2"], {}),
    "workers": (["--parse-threads", "0", "--workers", "auto"], {}),
    "inline-pure": (["--parse-threads", "0"], {"SITEMAP_READER_PURE": "1"}),
    "threads-pure": (["--parse-threads", "2"], {"SITEMAP_READER_PURE": "1"}),
}


# -- the site -----------------------------------------------------------------------------------


def read_site(name: str, url: str, expected: int) -> dict[str, Any]:
    """``sitemap-reader dump`` of the site in a fresh process, as reader ``name``."""
    options, env = SITE_READERS[name]
    command = [sys.executable, "-m", "sitemap_reader", "dump", url, "--format", "jsonl"]
    command += ["-o", os.devnull, "--no-progress", *options]
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        run = run_measured(command)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    found = _found("sitemap-reader", run.out, run.err)
    return {
        "reader": name,
        "seconds": run.seconds,
        "cpu_seconds": run.cpu_seconds,
        "cpu_per_wall": run.cpu_seconds / run.seconds if run.seconds else 0.0,
        "urls": found,
        "urls_per_s": found / run.seconds if run.seconds else 0.0,
        "peak_rss_mb": run.peak_rss_mb,
        "ok": run.code == 0 and found >= expected * 0.99,
        "error": "" if run.code == 0 else run.err.strip().splitlines()[-1:],
    }


def site_part(args: argparse.Namespace) -> list[dict[str, Any]]:
    expected = args.children * args.urls_per_child
    readers = args.readers.split(",")
    results: list[dict[str, Any]] = []
    with site_served(args.children, args.urls_per_child, args.shape) as url:
        print(
            f"site: {args.children} x {args.urls_per_child:,} = {expected:,} URLs, "
            f"{args.shape} shape, gzipped children"
        )
        for round_ in range(1, args.rounds + 1):
            for name in readers:
                result = {"part": "site", "round": round_, **read_site(name, url, expected)}
                results.append(result)
                flag = "" if result["ok"] else f"  <- {result['error'] or 'too few URLs'}"
                print(
                    f"round {round_} {name:13} {result['seconds']:7.2f} s "
                    f"{result['cpu_seconds']:7.2f} s CPU  CPU/wall {result['cpu_per_wall']:4.2f} "
                    f"{result['urls_per_s']:>9,.0f} URLs/s {result['peak_rss_mb']:7.1f} MB "
                    f"peak RSS{flag}",
                    flush=True,
                )
    return results


# -- the tokenizer ------------------------------------------------------------------------------


def scan(make: Callable[[], Any], document: bytes) -> int:
    """Feed ``document`` to a new scanner in 64 KiB chunks; the records it gave."""
    scanner = make()
    records = 0
    for start in range(0, len(document), CHUNK):
        records += len(scanner.feed(document[start : start + CHUNK]))
    return records + len(scanner.close())


def timed(work: Callable[[], int]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of this process, and what ``work`` returned."""
    wall, cpu = time.perf_counter(), time.process_time()
    got = work()
    return time.perf_counter() - wall, time.process_time() - cpu, got


def tokenizer_part(args: argparse.Namespace) -> list[dict[str, Any]]:
    from _generate import SHAPES

    from sitemap_reader._core._xml import _tokenizer
    from sitemap_reader._core._xml._urlscan import PyUrlsetScanner

    documents = [
        SHAPES[args.shape](args.urls, seed=i, base_url=f"https://example.com/d{i}")
        for i in range(2)
    ]
    size = sum(map(len, documents))
    print(f"tokenizer: 2 x {args.urls:,} URLs ({size / 1e6:.1f} MB), {args.shape} shape")
    scanners: list[tuple[str, Callable[[], Any]]] = [("python", PyUrlsetScanner)]
    if _tokenizer.COMPILED:
        scanners.insert(0, ("rust", _tokenizer.UrlsetScanner))
    results: list[dict[str, Any]] = []
    pool = ThreadPoolExecutor(max_workers=2)
    for name, make in scanners:

        def one_thread(make: Callable[[], Any] = make) -> int:
            return sum(scan(make, d) for d in documents)

        def two_threads(make: Callable[[], Any] = make) -> int:
            return sum(pool.map(scan, (make, make), documents))

        for way, work in (("one thread", one_thread), ("two threads", two_threads)):
            best = min((timed(work) for _ in range(args.rounds)), key=lambda t: t[0])
            wall, cpu, records = best
            assert records == 2 * args.urls, (name, way, records)
            result = {
                "part": "tokenizer",
                "scanner": name,
                "way": way,
                "seconds": wall,
                "cpu_seconds": cpu,
                "cpu_per_wall": cpu / wall,
                "mb_per_s": size / 1e6 / wall,
            }
            results.append(result)
            print(
                f"{name:7} {way:12} {wall:7.3f} s {cpu:7.3f} s CPU  CPU/wall "
                f"{cpu / wall:4.2f}  {size / 1e6 / wall:7.1f} MB/s",
                flush=True,
            )
    pool.shutdown()
    return results


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("site", "tokenizer", "both"), default="both")
    parser.add_argument("--children", type=int, default=8)
    parser.add_argument("--urls-per-child", type=int, default=50_000)
    parser.add_argument("--readers", default=",".join(SITE_READERS))
    parser.add_argument("--shape", choices=("plain", "mixed", "cdata"), default="mixed")
    parser.add_argument("--urls", type=int, default=100_000, help="per tokenizer document")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", metavar="FILE", help="also write the results here")
    args = parser.parse_args(argv)
    compile_package()  # each dump's process starts from bytecode, as after pip install
    results: list[dict[str, Any]] = []
    # The site first: a reader's process is forked from this one, and its peak RSS counts
    # what this process held when it forked (the tokenizer's documents, once made).
    if args.part in ("site", "both"):
        results += site_part(args)
    if args.part in ("tokenizer", "both"):
        results += tokenizer_part(args)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
