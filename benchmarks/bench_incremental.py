"""Incremental runs: the loopback site of bench_site.py read again with a state store.

The site (served by ``bench_site.serve``, imported, in a process of its own) is robots.txt ->
index -> CHILDREN gzipped urlsets of URLS_PER_CHILD URLs (1,000,000 by default), each child
with a ``<lastmod>`` in the index; the server sends no validators. Passes, each in a fresh
process (wall time and peak RSS from ``os.wait4``), on one state file:

0. no store, for reference: what recording costs a cold run;
1. cold: an empty store: everything is read, recorded and emitted;
2. unchanged: the same site again: robots.txt and the index are fetched, every child is
   skipped by its index lastmod;
3. one changed: as 2, after one child's recorded lastmod was moved back a day and its
   digest dropped, which is what the store holds after that file changed on the server (the
   loopback site's content is fixed, so the change is made on the reader's side);
4. ``--unchanged N`` more runs with nothing changed (10 by default): what the recheck sample
   costs over runs (children without validators are fetched whole, within its byte budget).

A pass drives ``SitemapReader`` and counts records (no output, so the cold pass is not
slowed by serialisation and the fractions are conservative) and reports the exact bytes
received. Then the same cold/unchanged pair through the CLI (``sitemap-reader dump --state
FILE -o /dev/null``), whose wall time includes starting Python. ``--changes`` adds the pair
with the change feed on, and the state files' sizes (bytes a URL). ``--short`` runs only the
reference, the cold ``--state`` pass and (with ``--changes``) the feed's pair: the passes
whose cost grows with the site, for the memory points at 1,000,000 and 10,000,000 URLs
(``--children 200``); with ``--repeat N``, its cold passes N times, interleaved, and the ratios
of the best of each (wall and CPU time): what a shared machine's load moves least.

With ``--trust-sites``, instead: the three sites of ``_trust_sites.py`` (an honest one, a
lying index, a build-stamped one; CHILDREN x URLS_PER_CHILD each, served from files that are
rewritten between runs), each read three times on a fresh state file under each
``--trust-lastmod``: cold, a second run (nothing changed; the stamped site is rebuilt with
new stamps), and a third after one child gained a URL (a served file changed). For each: the
bytes received, the walk time, and whether the third run found the new URL. The recheck
sample's figures by site size are ``bench_recheck.py``'s.

    python benchmarks/bench_incremental.py
    python benchmarks/bench_incremental.py --changes
    python benchmarks/bench_incremental.py --changes --short --children 200   # 10,000,000 URLs
    python benchmarks/bench_incremental.py --changes --short --repeat 3
    python benchmarks/bench_incremental.py --trust-sites --children 20 --urls-per-child 2000
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_site  # found through the path set above, as bench_site finds _generate
from _bytecode import compile_package
from _trust_sites import KINDS, StaticServer, TrustSite

import sitemap_reader as sr

# -- one pass (in its own process) --------------------------------------------------------------


async def one_pass(url: str, state: str, changes: bool) -> dict[str, float]:
    """Read the site with ``state`` ("-": none); count what came out."""
    config = dataclasses.replace(sr.DEFAULT_CONFIG, incremental=sr.Incremental(changes=changes))
    entries = feed = 0
    start = time.perf_counter()
    async with sr.SitemapReader(config, state=None if state == "-" else state) as reader:
        async for batch in reader.walk_batches(url):
            for event in batch:
                kind = type(event)
                if kind is sr.Entry:
                    entries += 1
                elif kind is sr.EntryChange:
                    feed += 1
    p = reader.progress
    return {
        "walk_seconds": time.perf_counter() - start,  # the run alone, without starting Python
        "entries": entries,
        "changes": feed,
        "bytes": p.bytes,
        "unchanged": p.unchanged,
        "saved": p.bytes_saved,
    }


def measure(command: list[str]) -> dict[str, object]:
    """Run ``command`` in a fresh process: its wall time, peak RSS and JSON output."""
    run = bench_site.run_measured(command)
    if run.code != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{run.err}")
    result: dict[str, object] = {
        "seconds": run.seconds,
        "peak_rss_mb": run.peak_rss_mb,
        "cpu_seconds": run.cpu_seconds,  # moves less than wall time on a shared machine
    }
    if run.out.strip():
        result.update(json.loads(run.out))
    result["summary"] = run.err.strip().splitlines()[-1] if run.err.strip() else ""
    return result


def library_pass(url: str, state: Path | str, changes: bool = False) -> dict[str, object]:
    command = [sys.executable, __file__, "--pass", url, str(state)]
    return measure([*command, "--changes"] if changes else command)


def cli_pass(url: str, state: Path) -> dict[str, object]:
    return measure(
        [sys.executable, "-m", "sitemap_reader", "dump", url, "--state", str(state),
         "-o", os.devnull, "--no-progress"]
    )  # fmt: skip


def change_one_child(state: Path) -> str:
    """Make the store hold, for one child, what it holds after that file changed."""
    with sr.SqliteStateStore(state) as store:
        child = next(s for s in store.states() if s.format is sr.Format.URLSET)
        assert child.lastmod is not None
        store.put(
            dataclasses.replace(child, lastmod=child.lastmod - timedelta(days=1), digest=None)
        )
    return child.url


# -- the report ----------------------------------------------------------------------------------


def row(name: str, r: dict[str, object]) -> str:
    records = f"{r['entries']:>10,} URLs" if "entries" in r else " " * 15
    if r.get("changes"):
        records = f"{r['changes']:>10,} chg "
    received = f"{r['bytes']:>12,} B" if "bytes" in r else " " * 14
    walk = f"(walk {float(r['walk_seconds']):6.2f} s)" if "walk_seconds" in r else " " * 17  # type: ignore[arg-type]
    return (
        f"{name:24} {float(r['seconds']):7.2f} s {walk} {received} {records}"  # type: ignore[arg-type]
        f" {float(r['peak_rss_mb']):7.1f} MB RSS"  # type: ignore[arg-type]
    )


def number(r: dict[str, object], key: str) -> float:
    return float(r[key])  # type: ignore[arg-type]


def fraction(part: dict[str, object], whole: dict[str, object], key: str) -> str:
    return f"{float(part[key]) / float(whole[key]):.2%}"  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--children", type=int, default=20)
    parser.add_argument("--urls-per-child", type=int, default=50_000)
    parser.add_argument("--changes", action="store_true", help="also time the change feed")
    parser.add_argument(
        "--short", action="store_true", help="only the passes that grow with the site"
    )
    parser.add_argument(
        "--unchanged", type=int, default=10, help="more runs with nothing changed, at the end"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="with --short: the cold passes N times, interleaved, and the ratios of their best",
    )
    parser.add_argument(
        "--trust-sites", action="store_true", help="the lastmod trust figures instead"
    )
    parser.add_argument(
        "--pass", dest="one", nargs=2, metavar=("URL", "STATE"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.one:
        url, state = args.one
        print(json.dumps(asyncio.run(one_pass(url, state, args.changes))))
        return
    compile_package()  # each pass's process starts from bytecode, as after pip install

    if args.trust_sites:
        trust_figures(args.children, args.urls_per_child)
        return
    expected = args.children * args.urls_per_child
    with (
        tempfile.TemporaryDirectory(prefix="bench-incremental-") as tmp,
        bench_site.site_served(args.children, args.urls_per_child) as url,
    ):
        print(f"site: {url} ({args.children} x {args.urls_per_child:,} = {expected:,} URLs)")
        if args.short and args.repeat > 1:
            repeated(url, Path(tmp), args.changes, args.repeat)
            return
        run(url, Path(tmp), args.changes, args.children, args.unchanged, args.short)


def per_url(path: Path, urls: int) -> str:
    """The state file's size (its WAL checkpointed in: the last run closed it)."""
    size = path.stat().st_size
    return f"{size / 1e6:,.1f} MB, {size / urls:.1f} bytes a URL"


def run(url: str, tmp: Path, changes: bool, children: int, unchanged: int, short: bool) -> None:
    reference = library_pass(url, "-")
    print(row("no store (reference)", reference), flush=True)
    urls = int(number(reference, "entries"))
    state = tmp / "state.sqlite"
    cold = library_pass(url, state)
    print(row("cold (empty store)", cold), flush=True)
    print(
        f"--state cold: {fraction(cold, reference, 'seconds')} of the reference's time "
        f"({fraction(cold, reference, 'walk_seconds')} of its walk time, "
        f"{fraction(cold, reference, 'cpu_seconds')} of its CPU time); state file "
        f"{per_url(state, urls)}"
    )
    if short:
        if changes:
            feed_pair(url, tmp, reference, urls)
        return
    warm = library_pass(url, state)
    print(row("unchanged", warm), flush=True)
    changed = change_one_child(state)
    one = library_pass(url, state)
    print(row(f"1 of {children} changed", one), flush=True)
    print(
        f"unchanged: {fraction(warm, cold, 'bytes')} of the cold bytes, "
        f"{fraction(warm, cold, 'seconds')} of its process time "
        f"({fraction(warm, cold, 'walk_seconds')} of its walk time); {warm['unchanged']} "
        f"sitemaps unchanged, {warm['saved']:,} bytes not fetched again\n"
        f"1 of {children} changed ({changed.rsplit('/', 1)[-1]}): "
        f"{fraction(one, cold, 'bytes')} of the cold bytes (1/{children} = {1 / children:.2%}), "
        f"{fraction(one, cold, 'seconds')} of its process time "
        f"({fraction(one, cold, 'walk_seconds')} of its walk time)"
    )
    if unchanged:
        more = [number(library_pass(url, state), "bytes") for _ in range(unchanged)]
        whole, base = number(cold, "bytes"), number(warm, "bytes")
        print(
            f"{unchanged} more unchanged runs: {sum(more) / unchanged / whole:.2%} of the cold "
            f"bytes a run on average, {max(more) / whole:.2%} at most ("
            f"{sum(b > base for b in more)} of them asked a child again: the recheck sample)"
        )

    cli_state = tmp / "cli.sqlite"
    cli_cold = cli_pass(url, cli_state)
    print(row("CLI cold", cli_cold), flush=True)
    cli_warm = cli_pass(url, cli_state)
    print(row("CLI unchanged", cli_warm), flush=True)
    print(f"CLI unchanged: {fraction(cli_warm, cli_cold, 'seconds')} of the cold time")
    print(f"  {cli_warm['summary']}")

    if changes:
        feed_pair(url, tmp, reference, urls)


def repeated(url: str, tmp: Path, changes: bool, times: int) -> None:
    """The cold passes ``times`` times, interleaved (the reference, ``--state``, the feed),
    each on a new state file: on a shared machine, the best of each is the figure least
    moved by the others' load, for wall time and CPU time alike."""
    names = ["no store (reference)", "cold (empty store)"]
    if changes:
        names.append("change feed, cold")
    passes: dict[str, list[dict[str, object]]] = {name: [] for name in names}
    for i in range(times):
        for which, name in enumerate(names):
            state = "-" if which == 0 else tmp / f"repeat-{i}-{which}.sqlite"  # a new file each
            result = library_pass(url, state, changes=name == "change feed, cold")
            passes[name].append(result)
            print(row(f"{name} #{i + 1}", result), flush=True)
    best: dict[str, dict[str, object]] = {
        name: {key: min(number(r, key) for r in results) for key in ("seconds", "cpu_seconds")}
        for name, results in passes.items()
    }
    reference = best[names[0]]
    for name in names[1:]:
        print(
            f"{name}, best of {times}: {number(best[name], 'seconds'):.2f} s, "
            f"{fraction(best[name], reference, 'seconds')} of the reference's best time "
            f"({number(reference, 'seconds'):.2f} s); CPU {number(best[name], 'cpu_seconds'):.2f} s, "
            f"{fraction(best[name], reference, 'cpu_seconds')} of its best CPU time "
            f"({number(reference, 'cpu_seconds'):.2f} s)"
        )


def feed_pair(url: str, tmp: Path, reference: dict[str, object], urls: int) -> None:
    """The change feed cold, then again with nothing changed."""
    feed_state = tmp / "feed.sqlite"
    feed_cold = library_pass(url, feed_state, changes=True)
    print(row("change feed, cold", feed_cold), flush=True)
    feed_warm = library_pass(url, feed_state, changes=True)
    print(row("change feed, unchanged", feed_warm), flush=True)
    print(
        f"change feed: cold {fraction(feed_cold, reference, 'seconds')} of the reference's time "
        f"({fraction(feed_cold, reference, 'walk_seconds')} of its walk time, "
        f"{fraction(feed_cold, reference, 'cpu_seconds')} of its CPU time); state file "
        f"{per_url(feed_state, urls)}"
    )


# -- lastmod trust: three sites whose served files change ----------------------------------------


async def trust_pass(url: str, state: Path, mode: str) -> tuple[int, float, set[str], str]:
    """One run: bytes received, walk seconds, the URLs emitted, why lastmods were distrusted."""
    incremental = sr.Incremental(trust_lastmod=sr.TrustLastmod(mode))
    config = dataclasses.replace(sr.DEFAULT_CONFIG, incremental=incremental)
    locs: set[str] = set()
    start = time.perf_counter()
    async with sr.SitemapReader(config, state=state) as reader:
        async for batch in reader.walk_batches(url):
            locs.update(e.loc for e in batch if type(e) is sr.Entry)
    why = "; ".join(reader.progress.distrusted.values())
    return reader.progress.bytes, time.perf_counter() - start, locs, why


def trust_figures(children: int, urls: int) -> None:
    print(f"each site: robots.txt -> index -> {children} x {urls:,} URLs, plain XML")
    print(f"{'site':8} {'mode':6} {'cold':>19} {'2nd run':>22} {'1 changed':>22}  found  why")
    with (
        tempfile.TemporaryDirectory(prefix="bench-trust-") as tmp,
        StaticServer(Path(tmp)) as server,
    ):
        for kind in KINDS:
            for mode in (m.value for m in sr.TrustLastmod):
                name = f"{kind}-{mode}"
                base = f"http://127.0.0.1:{server.port}/{name}"
                site = TrustSite(kind, Path(tmp) / name, base, children, urls)
                state = Path(tmp) / f"{name}.sqlite"
                runs = []
                for step in range(3):
                    gained = site.change(children // 2) if step == 2 else ""
                    site.build(datetime.now(timezone.utc))
                    runs.append(asyncio.run(trust_pass(f"{base}/robots.txt", state, mode)))
                (cold, cold_s, _, _), second, third = runs
                cells = [
                    f"{b:>9,} B {s:5.2f} s ({b / cold:6.2%})" for b, s, _, _ in (second, third)
                ]
                cells.insert(0, f"{cold:>9,} B {cold_s:5.2f} s")
                found = "yes" if gained in third[2] else "NO"
                why = third[3] or second[3]
                print(
                    f"{kind:8} {mode:6} {cells[0]:>19} {cells[1]:>22} {cells[2]:>22}  "
                    f"{found:5}  {why}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
