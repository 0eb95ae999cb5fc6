"""The compiled urlset tokenizer against lxml's loc-only floor (issue 20's first measure).

    python benchmarks/bench_native.py [--urls N] [--repeat R] [--docs plain,mixed,exact]

Times ``sitemap_reader._native.UrlsetScanner`` (it must be a release build: ``pip install
-e .`` makes one) on the plain, mixed and CDATA ("exact") documents of ``_generate.py``,
generated and cached as ``bench_parse.py`` does, fed in 64 KiB chunks and returning every
``<url>``'s loc, lastmod, changefreq and priority texts to Python. Beside it: the floor
(``bench_parse.py``'s lxml iterparse reading ``<loc>`` only), the tokenizer's Python
reference (the same contract on expat) and today's reader (``SitemapParser``, full
records), for scale. Each reader runs in its own fresh process, best of R; "x floor" is
its time over the floor's on the same document (CPU time in brackets: steadier on a
shared machine). The tokenizer's texts are not yet records: what it costs to make
``Entry`` objects of them is the rest of issue 20.

Two rows come from Rust alone (``cargo bench --bench tokenize``, built before the timing
starts, a release build): the tokenizer with no Python objects made, and quick-xml's
reader over the whole document with every event dropped, what the crate itself costs on
these documents. They are skipped where cargo is missing (``--no-cargo``: always).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from _generate import DEFAULT_URLS
from bench_parse import CHUNK, ROOT, _git_state, _lxml, _maxrss_mib, _sitemap_reader, make_docs

RUST_ROWS = {
    "quick-xml": "quick-xml alone, events dropped",
    "rust-alone": "tokenizer in Rust, no Python objects",
}
READERS = {
    "rust": "compiled tokenizer from Python",
    "python-ref": "its Python reference (expat)",
    "sitemap-reader": "SitemapParser today, full records",
    "lxml": "lxml iterparse loc (floor)",
}
FLOOR = "lxml"
CHILD_TIMEOUT = 900.0


def _scanner(data: bytes, chunk: int, compiled: bool) -> Callable[[], int]:
    if compiled:
        from sitemap_reader import _native

        if _native.build_profile != "release":
            raise SystemExit(f"the compiled core is a {_native.build_profile} build: not timed")
        make: Any = _native.UrlsetScanner
    else:
        from sitemap_reader._core._xml._urlscan import PyUrlsetScanner

        make = PyUrlsetScanner

    def run() -> int:
        scanner = make()
        n = 0
        for start in range(0, len(data), chunk):
            for fields in scanner.feed(data[start : start + chunk]):
                n += bool(fields[0])
        for fields in scanner.close():
            n += bool(fields[0])
        if scanner.error is not None:
            raise RuntimeError(str(scanner.error))
        return n

    return run


def child(key: str, path: Path, repeat: int, chunk: int) -> dict[str, Any]:
    data = path.read_bytes()
    builders: dict[str, Callable[[], Callable[[], int | None]]] = {
        "rust": lambda: _scanner(data, chunk, True),
        "python-ref": lambda: _scanner(data, chunk, False),
        "sitemap-reader": lambda: _sitemap_reader(data, True, chunk),
        "lxml": lambda: _lxml(data, False),
    }
    run = builders[key]()
    out: dict[str, Any] = {"times": [], "cpu": [], "counts": []}
    for _ in range(repeat):
        gc.collect()
        cpu, start = time.process_time(), time.perf_counter()
        count = run()
        out["times"].append(time.perf_counter() - start)
        out["cpu"].append(time.process_time() - cpu)
        out["counts"].append(count)
    out["rss_peak_mib"] = _maxrss_mib()
    return out


def _measure(key: str, path: Path, repeat: int, chunk: int) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", key, str(path)]
    cmd += ["--repeat", str(repeat), "--chunk", str(chunk)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=CHILD_TIMEOUT, check=False)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"failed": f"exit {proc.returncode}: {tail}"}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def rust_alone(paths: Sequence[Path]) -> dict[Path, dict[str, float]]:
    """The Rust-only figures of each document, keyed by path (empty without cargo)."""
    cmd = ["cargo", "bench", "--quiet", "--locked", "--bench", "tokenize", "--"]
    try:
        proc = subprocess.run(
            [*cmd, *map(str, paths)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"(no Rust-only rows: {exc})")
        return {}
    out: dict[Path, dict[str, float]] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            out[Path(row["path"]).resolve()] = row
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--urls", type=int, default=DEFAULT_URLS, help="URLs per document")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per reader, best kept")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunk", type=int, default=CHUNK, help="bytes per feed() (64 KiB)")
    ap.add_argument("--docs", default="plain,mixed,exact", help="any of plain, mixed, exact")
    ap.add_argument("--readers", default=",".join(READERS), help=f"any of {', '.join(READERS)}")
    ap.add_argument("--json", type=Path, metavar="FILE", help="also write the results here")
    ap.add_argument("--no-cargo", action="store_true", help="skip the Rust-only rows")
    ap.add_argument("--child", nargs=2, metavar=("READER", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]), args.repeat, args.chunk)))
        return 0
    names = [n.strip() for n in args.docs.split(",") if n.strip()]
    keys = [k.strip() for k in args.readers.split(",") if k.strip()]
    if set(names) - {"plain", "mixed", "exact"} or set(keys) - set(READERS):
        ap.error("unknown document or reader; see --help")
    if FLOOR not in keys:
        keys.append(FLOOR)

    print(
        f"compiled tokenizer benchmark ({_git_state()})\nPython {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; best of "
        f"{args.repeat}, {args.chunk:,}-byte chunks, each reader in a fresh process"
    )
    report: list[dict[str, Any]] = []
    docs = make_docs(args.urls, args.seed, names)
    alone = {} if args.no_cargo else rust_alone([doc.path for doc in docs])
    for doc in docs:
        results = {key: _measure(key, doc.path, args.repeat, args.chunk) for key in keys}
        floor = results[FLOOR]
        row = alone.get(doc.path.resolve())
        if row is not None:  # (one process for all documents: no CPU time of its own)
            results["quick-xml"] = {"times": [row["quick_xml_seconds"]], "counts": [None]}
            results["rust-alone"] = {"times": [row["seconds"]], "counts": [row["records"]]}
        print(f"\n{doc.name}: {doc.urls:,} URLs, {doc.xml_bytes / 1e6:.1f} MB XML")
        head = (
            f"  {'reader':<36} {'seconds':>7} {'(CPU)':>6} {'MB/s':>6} {'x floor':>13} {'URLs':>7}"
        )
        print(head + "\n  " + "-" * (len(head) - 2))
        labels = {**RUST_ROWS, **READERS}
        for key in [k for k in RUST_ROWS if k in results] + keys:
            r = results[key]
            if "failed" in r:
                print(f"  {labels[key]:<36} failed: {r['failed']}")
                continue
            best = min(range(len(r["times"])), key=r["times"].__getitem__)
            seconds, cpu = r["times"][best], r.get("cpu", [None])[best]
            ratio = "-"
            if "failed" not in floor:
                ratio = f"{seconds / min(floor['times']):.2f}x"
                if cpu is not None:
                    ratio += f" ({cpu / min(floor['cpu']):.2f}x)"
            urls = r["counts"][best]
            cpu_text = "-" if cpu is None else f"{cpu:.2f}"
            print(
                f"  {labels[key]:<36} {seconds:7.3f} {cpu_text:>6} "
                f"{doc.xml_bytes / seconds / 1e6:6.0f} {ratio:>13} {urls if urls is not None else '-':>7}"
            )
            report.append({"doc": doc.name, "reader": key, "seconds": seconds, "cpu": cpu, **r})
    print(
        "\nx floor: best wall time over the floor's best (CPU time over CPU time in brackets;\n"
        "the Rust-only rows run in one process, best of five, and have no CPU figure)."
    )
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
