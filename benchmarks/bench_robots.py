"""The robots.txt matcher's cost (``--robots obey``) on hostile robots.txt files, both cores.

    python benchmarks/bench_robots.py                   # 100,000 URLs, every shape, both cores
    python benchmarks/bench_robots.py --urls 10000 --only star --cores pure

Each shape is a robots.txt of the 500 KiB RFC 9309 asks crawlers to parse at least (what the
walk reads, ``ROBOTS_MAX_BYTES``), made of one kind of rule a site may write to make every
URL's judgement slow; ``plain`` is a usual one for comparison. Each core parses it once and
judges the same URLs (a product site's paths, with a query on every tenth), the pure core
through ``RobotsRules.disallows`` and the compiled one through ``_native.RobotsRules.judge``
(one Python call a URL: a compiled run judges in the crate, without it). The table gives the
parse and the judgement times, the best of ``--repeat``, the URLs disallowed (which both
cores must agree on: a difference exits 1), and the rules with ``*`` the bound dropped.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]

from sitemap_reader._core._formats._robots import product_token
from sitemap_reader._core._formats._robots_rules import RobotsRules

SIZE = 512_000  # ROBOTS_MAX_BYTES: the 500 KiB the walk reads of a robots.txt
AGENT = "sitemap-reader/1.0"


def _filled(line: Callable[[int], str], head: str = "User-agent: *\n") -> bytes:
    """``head`` and then lines ``line(0)``, ``line(1)``, ... up to ``SIZE`` bytes."""
    out, size, i = [head], len(head), 0
    while True:
        text = line(i) + "\n"
        if size + len(text) > SIZE:
            return "".join(out).encode()
        out.append(text)
        size += len(text)
        i += 1


SHAPES: dict[str, Callable[[], bytes]] = {
    # A usual robots.txt: a few prefixes, one wildcard.
    "plain": lambda: (
        b"User-agent: *\nDisallow: /cart/\nDisallow: /account/\nDisallow: /*?session=\n"
        b"Allow: /account/help\nDisallow: /search\n"
    ),
    # Rules that start with "*": each may match anywhere, so each is tried on every URL.
    "star": lambda: _filled(lambda i: f"Disallow: *q{i:x}z"),
    # Long rules of many "*" whose pieces a URL holds but the last: each searched for in turn.
    "many-stars": lambda: _filled(lambda i: "Disallow: /*p*/*i*t*e*m*-*" + "*".join(str(i)) + "*q"),
    # "**" runs: empty pieces that cost a step each.
    "star-runs": lambda: _filled(lambda i: f"Disallow: /p/{i}" + "*" * 400 + "x"),
    # Rules without "*": prefixes, tried one by one before the index.
    "prefixes": lambda: _filled(lambda i: f"Disallow: /p/{i}/"),
    # The same rule again and again.
    "repeated": lambda: _filled(lambda i: "Disallow: /*.pdf$"),
}


def urls(count: int) -> list[str]:
    return [
        f"https://shop.invalid/p/{i % 5000}/item-{i}.html" + ("?colour=red" if i % 10 == 0 else "")
        for i in range(count)
    ]


def _best(repeat: int, work: Callable[[], object]) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - start)
    return best, result


def measure(core: str, body: bytes, locs: list[str], repeat: int) -> tuple[float, float, int]:
    """Seconds to parse ``body``, seconds to judge ``locs``, and how many it disallowed."""
    if core == "pure":
        parse_s, rules = _best(repeat, lambda: RobotsRules.parse(body, AGENT))
        judge = rules.disallows  # type: ignore[attr-defined]
    else:
        from sitemap_reader import _native

        product = product_token(AGENT)
        parse_s, compiled = _best(repeat, lambda: _native.RobotsRules(body, product))
        judge_both = compiled.judge  # type: ignore[attr-defined]

        def judge(url: str) -> bool:
            return bool(judge_both(url)[0])

    judge_s, disallowed = _best(repeat, lambda: sum(map(judge, locs)))
    return parse_s, judge_s, int(disallowed)  # type: ignore[call-overload]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--urls", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="", help="shapes, comma-separated (default: all)")
    parser.add_argument("--cores", default="pure,compiled")
    args = parser.parse_args()
    shapes = [s for s in SHAPES if not args.only or s in args.only.split(",")]
    cores = args.cores.split(",")
    locs = urls(args.urls)
    print(f"{args.urls:,} URLs, best of {args.repeat}\n")
    print(
        "| robots.txt | bytes | rules with `*` dropped | core | parse | judge | µs a URL | disallowed |"
    )
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    differ = []
    for shape in shapes:
        body = SHAPES[shape]()
        group = RobotsRules.parse(body, AGENT).group
        # (getattr: the same script measures a checkout from before the bound)
        dropped = getattr(group, "dropped", None) if group is not None else 0
        dropped_text = "-" if dropped is None else f"{dropped:,}"
        counts = set()
        for core in cores:
            parse_s, judge_s, disallowed = measure(core, body, locs, args.repeat)
            counts.add(disallowed)
            print(
                f"| {shape} | {len(body):,} | {dropped_text} | {core} | {parse_s * 1000:,.1f} ms"
                f" | {judge_s:,.2f} s | {judge_s / len(locs) * 1e6:,.2f} | {disallowed:,} |",
                flush=True,
            )
        if len(counts) > 1:
            differ.append(shape)
    if differ:
        print(f"\nthe cores disallowed different counts on: {', '.join(differ)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
