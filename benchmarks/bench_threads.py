"""Documents parsed in threads (``--parse-threads``) against inline, in one process.

    python benchmarks/bench_threads.py                       # 8 x 50,000 URLs
    python benchmarks/bench_threads.py --part site --shape mixed --rounds 2

The loopback site of ``bench_site.py`` (robots.txt -> index -> CHILDREN gzipped urlsets),
read by ``sitemap-reader dump --format jsonl -o /dev/null`` in a fresh process, with
``--parse-threads 0`` (inline, every document parsed on the event loop) and
``--parse-threads 2`` (two threads), and beside them ``--workers auto`` (processes) for
scale; each under the compiled core (the default) and ``SITEMAP_READER_PURE=1``. Per
reader: wall time, CPU time (user + system, the process and its workers), CPU/wall (above
1: more than one core at work), URLs/s and peak RSS. Rounds alternate the readers, so a
busy spell of the machine does not fall on one of them only.

``--part site`` is the only part left: the ``tokenizer`` part timed the standalone urlset
tokenizer, which was removed (issue 30).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _bytecode import compile_package
from bench_site import _found, run_measured, site_served

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


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("site",), default="site")
    parser.add_argument("--children", type=int, default=8)
    parser.add_argument("--urls-per-child", type=int, default=50_000)
    parser.add_argument("--readers", default=",".join(SITE_READERS))
    parser.add_argument("--shape", choices=("plain", "mixed", "cdata"), default="mixed")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", metavar="FILE", help="also write the results here")
    args = parser.parse_args(argv)
    compile_package()  # each dump's process starts from bytecode, as after pip install
    results = site_part(args)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
