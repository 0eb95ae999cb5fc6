"""The recheck sample by site size: runs until a hidden change is found, and what runs cost.

The ``silent`` site of ``_trust_sites.py`` (index lastmods frozen, entries without lastmods:
no single read shows that a child changed), with CHILDREN children of URLS URLs each,
served on 127.0.0.1 from files, twice: with no validators (every request answered with the
whole file, as from a server that generates its sitemaps) and by aiohttp's static handler
(ETag and Last-Modified, 304 to a conditional request). For each size and ``recheck``
(the default byte budget, and the former default of 4 children a run): a fresh state file,
a cold read, WARM runs with nothing changed and on to the next run that asks a child again
(their bytes, mean and most, as a share of the cold read's); then the child that run asked
last gains a URL behind its unmoved index lastmod, right after it was checked: the whole
rotation passes before it is asked again (the worst case). The site is read again
(``trust_lastmod`` auto) until that URL comes out: the runs that took, and whether the
source's lastmods were then distrusted.

    python benchmarks/bench_recheck.py
    python benchmarks/bench_recheck.py --children 1 3 5 20 100 --urls 500 --warm 10 --runs 60
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import re
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _trust_sites import StaticServer, TrustSite

import sitemap_reader as sr

MODES: tuple[int | None, ...] = (None, 4)  # the byte budget (default), 4 children a run


async def one_run(url: str, state: Path, recheck: int | None) -> tuple[int, set[str], str]:
    """One incremental run: bytes received, the URLs emitted, why lastmods were distrusted."""
    incremental = sr.Incremental(recheck=recheck)
    config = dataclasses.replace(sr.DEFAULT_CONFIG, incremental=incremental)
    locs: set[str] = set()
    async with sr.SitemapReader(config, state=state) as reader:
        async for batch in reader.walk_batches(url):
            locs.update(e.loc for e in batch if type(e) is sr.Entry)
    return reader.progress.bytes, locs, "; ".join(reader.progress.distrusted.values())


def latest(state: Path) -> tuple[datetime, str]:
    """The child checked last (when, and its URL)."""
    with sr.SqliteStateStore(state) as store:
        return max(
            (s.checked_at, s.url) for s in store.states() if re.search(r"/c\d+\.xml$", s.url)
        )


def until_found(
    server: StaticServer, tmp: Path, name: str, children: int, urls: int, recheck: int | None,
    warm: int, most: int,
) -> str:  # fmt: skip
    base = f"http://127.0.0.1:{server.port}/{name}"
    robots = f"{base}/robots.txt"
    site = TrustSite("silent", tmp / name, base, children, urls)
    state = tmp / f"{name}.sqlite"
    site.build(datetime.now(timezone.utc))
    cold = asyncio.run(one_run(robots, state, recheck))[0]
    spent = [asyncio.run(one_run(robots, state, recheck))[0] for _ in range(warm)]
    # Then on to a run that asks a child again: the one it asked last changes right after
    # it was checked, so the whole rotation passes before it is asked again (the worst case).
    last = latest(state)
    for _ in range(most):
        spent.append(asyncio.run(one_run(robots, state, recheck))[0])
        if latest(state) != last:
            break
    last = latest(state)
    gained = site.change(int(last[1].rsplit("/c", 1)[1].removesuffix(".xml")))
    site.build(datetime.now(timezone.utc))
    runs, found, why = 0, False, ""
    while not found and runs < most:
        _, locs, why = asyncio.run(one_run(robots, state, recheck))
        runs += 1
        found = gained in locs
    mean, peak = sum(spent) / len(spent) / cold, max(spent) / cold
    said = f"{runs}" if found else f"not in {runs}"
    return f"{mean:>9.2%} {peak:>9.2%} {said:>10} {'yes' if why else 'no':>10}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--children", type=int, nargs="+", default=[1, 3, 5, 20, 100])
    parser.add_argument("--urls", type=int, default=500, help="URLs per child")
    parser.add_argument("--warm", type=int, default=10, help="runs with nothing changed")
    parser.add_argument("--runs", type=int, default=60, help="give up after this many runs")
    args = parser.parse_args()
    print(
        f"silent site, {args.urls} URLs a child; {args.warm} runs with nothing changed (their "
        "bytes, as a share of the cold read's), then the child the sample reaches last changes"
    )
    print(f"{'server':14} {'children':>8} {'recheck':>8} {'mean':>9} {'most':>9} {'runs':>10} "
          f"{'distrusted':>10}")  # fmt: skip
    for validators in (False, True):
        with (
            tempfile.TemporaryDirectory(prefix="bench-recheck-") as tmp,
            StaticServer(Path(tmp), validators=validators) as server,
        ):
            for children in args.children:
                for recheck in MODES:
                    name = f"site{children}-{recheck or 'budget'}"
                    row = until_found(
                        server, Path(tmp), name, children, args.urls, recheck,
                        args.warm, args.runs,
                    )  # fmt: skip
                    print(
                        f"{'validators' if validators else 'no validators':14} "
                        f"{children:>8} {recheck or 'budget':>8} {row}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
