"""Faults under load: the reader against a loopback site where 10% of responses fail.

The site (``_faulty_site.py``, in a process of its own) is robots.txt -> an index -> 199
urlsets of 300 to 3,000 URLs (200 sitemaps), and fails a share of its responses at random
(seeded): 5xx, resets midway through the body, stalls past the read timeout, truncated
bodies. The reader runs here, in-process, through the public API (``SitemapReader`` and
``walk_batches``), with a short read timeout and enough retries; one event loop for the
whole soak, a new reader and session each run:

    python benchmarks/bench_soak.py                    # 10 minutes, 10% faults
    python benchmarks/bench_soak.py --seconds 60 --seed 3

A fault-free run first gives the expected URLs (and must find as many as the site holds).
Then runs repeat until ``--seconds`` have passed, each checked against that set: URLs
missing, delivered twice or unexpected; requests the reader sent (counted by an aiohttp
trace) against requests the server saw; the faults injected by kind; the process's RSS
after the run and its peak during the run (VmHWM, reset before each run); open file
descriptors and asyncio tasks left after the run. It prints a line a run, then a summary
and the summary as JSON (``--json FILE`` writes it too).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

import aiohttp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _faulty_site import CATEGORIES, FaultySite, SiteSpec, category  # found through the path

from sitemap_reader import (
    Entry,
    Problem,
    ReaderConfig,
    RetryPolicy,
    SitemapReader,
    SitemapVisited,
    Status,
    Timeouts,
)


@dataclass(frozen=True)
class Settings:
    """One soak: the site, the fault rate, the reader's timeouts and retries."""

    seconds: float = 600.0
    seed: int = 0
    sitemaps: int = 200
    min_urls: int = 300
    max_urls: int = 3000
    fault_rate: float = 0.10
    read_timeout: float = 1.0
    connect_timeout: float = 1.0
    # 8 tries at a 10% rate: a document is lost with odds of 1e-8 (about 1e-4 for a whole
    # 10-minute soak), so a loss says something about the reader, not about luck.
    attempts: int = 8
    backoff: float = 0.05
    max_backoff: float = 1.0

    def site(self) -> SiteSpec:
        # A stall outlasts every timeout of the reader, so the reader always gives up first.
        stall = 3 * (self.read_timeout + self.connect_timeout)
        return SiteSpec(self.sitemaps, self.min_urls, self.max_urls, self.seed, stall)

    def config(self) -> ReaderConfig:
        return ReaderConfig(
            timeouts=Timeouts(connect=self.connect_timeout, read=self.read_timeout, request=60.0),
            retry=RetryPolicy(
                attempts=self.attempts, backoff=self.backoff, max_backoff=self.max_backoff
            ),
        )


@dataclass
class RunResult:
    """One run, checked against the expected URLs."""

    run: int
    seconds: float
    delivered: int  # Entry records received
    missing: int  # expected URLs not received
    duplicates: int  # expected URLs received more than once
    unexpected: int  # URLs received that the reference run did not have
    requests_sent: int  # HTTP requests the reader sent (an aiohttp trace)
    requests_seen: int  # requests the server received
    faults: dict[str, int]  # injected by the server during this run, by kind
    statuses: dict[str, int]  # documents by report status
    problems: dict[str, int]  # Problem events by kind
    rss_mb: float  # VmRSS after the run
    peak_mb: float  # VmHWM during the run
    fds: int  # open file descriptors after the run
    tasks: int  # asyncio tasks alive after the run, this one excluded
    losses: list[dict[str, Any]] = field(default_factory=list)  # documents short of the reference


class Expected:
    """The reference run's URLs as a sorted array of 64-bit hashes (a few MB for 300,000
    URLs, where a set of the strings would weigh more than the reader does), checked
    collision-free; each run ticks them off in a bytearray."""

    def __init__(self, hashes: array[int], entries: dict[str, int]) -> None:
        self.hashes = array("q", sorted(hashes))
        if any(a == b for a, b in zip(self.hashes, self.hashes[1:], strict=False)):
            raise SystemExit("the reference run delivered a URL twice (or a hash collided)")
        self.entries = entries  # entries of each document, by URL

    def __len__(self) -> int:
        return len(self.hashes)


class Tally:
    """What one run delivered."""

    def __init__(self, expected: Expected | None) -> None:
        self.expected = expected
        self.seen = bytearray(len(expected) if expected else 0)
        self.hashes: array[int] = array("q")  # the reference run keeps every hash
        self.delivered = self.duplicates = self.unexpected = 0
        self.statuses: Counter[str] = Counter()
        self.problems: Counter[str] = Counter()
        self.entries: dict[str, int] = {}
        self.losses: list[dict[str, Any]] = []

    def entry(self, loc: str) -> None:
        self.delivered += 1
        key = hash(loc)
        if self.expected is None:
            self.hashes.append(key)
            return
        hashes = self.expected.hashes
        at = bisect_left(hashes, key)
        if at == len(hashes) or hashes[at] != key:
            self.unexpected += 1
        elif self.seen[at]:
            self.duplicates += 1
        else:
            self.seen[at] = 1

    def visited(self, report: SitemapVisited) -> None:
        self.statuses[report.status.value] += 1
        self.entries[report.url] = report.entries
        short = self.expected is not None and report.entries != self.expected.entries.get(
            report.url, report.entries
        )
        if report.status is not Status.OK or short:
            self.losses.append(
                {
                    "url": report.url,
                    "status": report.status.value,
                    "http_status": report.http_status,
                    "entries": report.entries,
                    "problems": [f"{p.kind}: {p.message}" for p in report.problems],
                }
            )

    @property
    def missing(self) -> int:
        return self.seen.count(0)


class Requests:
    """Requests the reader's session sent: every time request headers went out, which
    counts aiohttp's own silent retry on a dropped keep-alive connection too."""

    def __init__(self) -> None:
        self.sent = 0
        self.trace = aiohttp.TraceConfig()
        self.trace.on_request_headers_sent.append(self._sent)

    async def _sent(self, *args: object) -> None:
        self.sent += 1


async def read_once(url: str, config: ReaderConfig, expected: Expected | None) -> tuple[Tally, int]:
    """One run of a new reader over ``url``; what it delivered and the requests it sent."""
    tally = Tally(expected)
    requests = Requests()
    limits = config.limits
    # The reader's own session, plus a trace: the reader is given it and leaves it open.
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(
            limit=limits.max_concurrency, limit_per_host=limits.per_host
        ),
        headers={"User-Agent": config.user_agent},
        trust_env=False,
        trace_configs=[requests.trace],
    )
    async with session, SitemapReader(config, session=session) as reader:
        async for batch in reader.walk_batches(url):
            for event in batch:
                if type(event) is Entry:
                    tally.entry(event.loc)
                elif type(event) is SitemapVisited:
                    tally.visited(event)
                elif type(event) is Problem:
                    tally.problems[event.kind] += 1
    return tally, requests.sent


# -- the process -----------------------------------------------------------------------------


def _status_kb(name: str) -> float:
    match = re.search(rf"^{name}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.MULTILINE)
    return float(match[1]) if match else 0.0


def reset_peak() -> bool:
    """Reset VmHWM (Linux 4.0+), so the next reading is the peak since now."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd")) - 1  # less the one listing it


# -- the soak ------------------------------------------------------------------------------


async def settle(site: FaultySite, since: dict[str, Any]) -> dict[str, Any]:
    """The server's counters once it has no request in progress (a stall it is serving ends
    when the reader hangs up), as differences from ``since``."""
    loop = asyncio.get_running_loop()
    for _ in range(200):
        now = await loop.run_in_executor(None, site.stats)
        if now["active"] == 0:
            break
        await asyncio.sleep(0.05)
    faults = Counter(now["faults"])
    faults.subtract(since["faults"])
    return {
        "now": now,
        "requests": int(now["requests"]) - int(since["requests"]),
        "faults": {k: v for k, v in sorted(faults.items()) if v},
    }


async def soak(settings: Settings, out: TextIO | None = sys.stdout) -> dict[str, Any]:
    """Serve the site, run the reference run and then the faulty runs; the summary."""
    say: Callable[[str], None] = (
        (lambda line: print(line, file=out, flush=True)) if out else (lambda line: None)
    )
    config = settings.config()
    with FaultySite(settings.site()) as site:
        loop = asyncio.get_running_loop()
        start_stats = await loop.run_in_executor(None, site.stats)
        say(
            f"site: {site.url} ({start_stats['documents']} documents, "
            f"{start_stats['urls']:,} URLs); faults at {settings.fault_rate:.0%}"
        )
        # The reference: no faults.
        began = time.perf_counter()
        reference, sent = await read_once(site.url, config, None)
        ref_seconds = time.perf_counter() - began
        counted = await settle(site, start_stats)
        ref_requests = counted["requests"]
        if (
            reference.delivered != start_stats["urls"]
            or reference.problems
            or set(reference.statuses) != {"ok"}
        ):
            raise SystemExit(
                f"the fault-free run delivered {reference.delivered:,} of "
                f"{start_stats['urls']:,} URLs; problems {dict(reference.problems)}, "
                f"statuses {dict(reference.statuses)}"
            )
        expected = Expected(reference.hashes, reference.entries)
        del reference
        say(
            f"reference: {len(expected):,} URLs in {ref_seconds:.1f} s, "
            f"{sent} requests (server saw {counted['requests']})"
        )
        await loop.run_in_executor(None, site.set_rate, settings.fault_rate)
        before = counted["now"]
        baseline = {"rss_mb": _status_kb("VmRSS") / 1024, "fds": open_fds()}
        peak_resets = reset_peak()
        say(
            f"{'run':>4} {'secs':>6} {'sent':>5} {'seen':>5} {'faults':>6} {'delivered':>9} "
            f"{'missing':>7} {'rss MB':>7} {'peak MB':>7} {'fds':>4} {'tasks':>5}"
        )
        results: list[RunResult] = []
        soak_start = time.monotonic()
        while not results or time.monotonic() - soak_start < settings.seconds:
            if peak_resets:
                reset_peak()
            began = time.perf_counter()
            tally, sent = await read_once(site.url, config, expected)
            seconds = time.perf_counter() - began
            counted = await settle(site, before)
            before = counted["now"]
            result = RunResult(
                run=len(results) + 1,
                seconds=seconds,
                delivered=tally.delivered,
                missing=tally.missing,
                duplicates=tally.duplicates,
                unexpected=tally.unexpected,
                requests_sent=sent,
                requests_seen=counted["requests"],
                faults=counted["faults"],
                statuses=dict(tally.statuses),
                problems=dict(tally.problems),
                rss_mb=_status_kb("VmRSS") / 1024,
                peak_mb=_status_kb("VmHWM") / 1024,
                fds=open_fds(),
                tasks=len(asyncio.all_tasks()) - 1,
                losses=tally.losses[:10],
            )
            results.append(result)
            flag = "" if _complete(result) else "  <- " + ", ".join(_faults_of(result))
            say(
                f"{result.run:4} {seconds:6.1f} {sent:5} {result.requests_seen:5} "
                f"{sum(result.faults.values()):6} {result.delivered:9,} {result.missing:7,} "
                f"{result.rss_mb:7.1f} {result.peak_mb:7.1f} {result.fds:4} {result.tasks:5}{flag}"
            )
        summary = summarise(settings, start_stats, len(expected), ref_seconds, baseline, results)
        summary["reference"]["requests"] = ref_requests
        # The server's own totals, the reference run included (/_stats and /_control are not).
        summary["server"] = {k: before[k] for k in ("requests", "not_found", "faults")}
        summary["peak_is_per_run"] = peak_resets
    for line in table(summary):
        say(line)
    return summary


def _complete(result: RunResult) -> bool:
    return not (result.missing or result.duplicates or result.unexpected or result.problems)


def _faults_of(result: RunResult) -> list[str]:
    said = [f"{n} {kind}" for kind, n in result.problems.items()]
    if result.duplicates:
        said.append(f"{result.duplicates} delivered twice")
    if result.unexpected:
        said.append(f"{result.unexpected} unexpected")
    return said or ["URLs missing"]


def _spread(values: list[float]) -> dict[str, float]:
    """First, last, max, and flatness: the max of the last ten runs less that of the first ten."""
    k = max(1, min(10, len(values) // 2))
    return {
        "first": round(values[0], 1),
        "last": round(values[-1], 1),
        "min": round(min(values), 1),
        "max": round(max(values), 1),
        "first_runs_max": round(max(values[:k]), 1),
        "last_runs_max": round(max(values[-k:]), 1),
        "growth": round(max(values[-k:]) - max(values[:k]), 1),
        "window": k,
    }


def summarise(
    settings: Settings,
    site: dict[str, Any],
    expected: int,
    ref_seconds: float,
    baseline: dict[str, float],
    results: list[RunResult],
) -> dict[str, Any]:
    faults: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    problems: Counter[str] = Counter()
    for r in results:
        faults.update(r.faults)
        statuses.update(r.statuses)
        problems.update(r.problems)
    by_category: Counter[str] = Counter()
    for kind, n in faults.items():
        by_category[category(kind)] += n
    seen = sum(r.requests_seen for r in results)
    lossy = [r for r in results if not _complete(r)]
    return {
        "settings": asdict(settings),
        "site": {"documents": site["documents"], "urls": site["urls"]},
        "reference": {"urls": expected, "seconds": round(ref_seconds, 2)},
        "runs": len(results),
        "seconds": round(sum(r.seconds for r in results), 1),
        "run_seconds": _spread([r.seconds for r in results]),
        "requests": {
            "sent": sum(r.requests_sent for r in results),
            "seen": seen,
            "runs_where_they_differ": sum(r.requests_sent != r.requests_seen for r in results),
        },
        "faults": {
            "total": sum(faults.values()),
            "rate": round(sum(faults.values()) / seen, 4) if seen else 0.0,
            "by_category": {c: by_category[c] for c in CATEGORIES},
            "by_kind": dict(sorted(faults.items())),
        },
        "urls": {
            "expected_per_run": expected,
            "delivered": sum(r.delivered for r in results),
            "runs_complete": len(results) - len(lossy),
            "runs_with_losses": len(lossy),
            "missing": sum(r.missing for r in results),
            "duplicates": sum(r.duplicates for r in results),
            "unexpected": sum(r.unexpected for r in results),
        },
        "statuses": dict(statuses),
        "problems": dict(problems),
        "losses": [{"run": r.run, "missing": r.missing, "documents": r.losses} for r in lossy[:20]],
        "baseline": {k: round(v, 1) for k, v in baseline.items()},
        "rss_mb": _spread([r.rss_mb for r in results]),
        "peak_rss_mb": _spread([r.peak_mb for r in results]),
        "fds": _spread([float(r.fds) for r in results]),
        "tasks_left": max(r.tasks for r in results),
        "per_run": [
            {
                "run": r.run,
                "seconds": round(r.seconds, 2),
                "sent": r.requests_sent,
                "seen": r.requests_seen,
                "faults": sum(r.faults.values()),
                "delivered": r.delivered,
                "missing": r.missing,
                "rss_mb": round(r.rss_mb, 1),
                "peak_mb": round(r.peak_mb, 1),
                "fds": r.fds,
            }
            for r in results
        ],
    }


def table(s: dict[str, Any]) -> list[str]:
    """The summary for people."""
    u, f, q = s["urls"], s["faults"], s["requests"]
    rss, peak, fds = s["rss_mb"], s["peak_rss_mb"], s["fds"]
    kinds = ", ".join(f"{k} {n}" for k, n in f["by_kind"].items())
    runs, took = s["run_seconds"], s["seconds"]
    lines = {
        "runs": f"{s['runs']} in {took:.0f} s ({runs['min']:.1f} to {runs['max']:.1f} s a run)",
        "requests": (
            f"{q['sent']:,} sent, {q['seen']:,} seen by the server "
            f"({q['runs_where_they_differ']} runs where they differ)"
        ),
        "faults injected": f"{f['total']:,} ({f['rate']:.1%} of requests): {kinds}",
        "URLs": (
            f"{u['runs_complete']} of {s['runs']} runs delivered all {u['expected_per_run']:,}; "
            f"missing {u['missing']:,}, twice {u['duplicates']:,}, "
            f"unexpected {u['unexpected']:,}"
        ),
        "RSS after a run": (
            f"{rss['first']:.1f} first, {rss['last']:.1f} last, {rss['max']:.1f} max MB; "
            f"the last {rss['window']} runs' max less the first {rss['window']}'s: "
            f"{rss['growth']:+.1f} MB"
        ),
        "peak RSS in a run": (
            f"{peak['first']:.1f} first, {peak['last']:.1f} last, {peak['max']:.1f} max MB; "
            f"growth {peak['growth']:+.1f} MB"
        ),
        "open fds after": (
            f"{fds['first']:.0f} first, {fds['last']:.0f} last, {fds['max']:.0f} max "
            f"({s['baseline']['fds']:.0f} before the runs); "
            f"asyncio tasks left: {s['tasks_left']}"
        ),
    }
    return ["", *(f"{name:20}{text}" for name, text in lines.items())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="how long to repeat runs")
    parser.add_argument("--seed", type=int, default=0, help="the site's and the faults' seed")
    parser.add_argument("--rate", type=float, default=0.10, help="share of responses that fail")
    parser.add_argument("--sitemaps", type=int, default=200, help="the index and its urlsets")
    parser.add_argument("--json", metavar="FILE", help="also write the summary here")
    args = parser.parse_args()
    settings = Settings(
        seconds=args.seconds, seed=args.seed, fault_rate=args.rate, sitemaps=args.sitemaps
    )
    summary = asyncio.run(soak(settings))
    text = json.dumps({k: v for k, v in summary.items() if k != "per_run"}, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
