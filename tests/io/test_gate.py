"""The host gate: a bound per host shared beyond one reader, asked before each request
attempt and given back once its body is read; the run's deadline ends a wait for it."""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter, defaultdict

from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import Problem, SitemapReader
from tests.support.http_site import (
    FAST,
    Flights,
    sequence,
    serve,
    sitemapindex,
    slow,
    status,
    urlset,
    xml,
)


class Turns:
    """A gate of ``n`` turns per host, logging what it was asked."""

    def __init__(self, n: int) -> None:
        self._turns: defaultdict[str, asyncio.Semaphore] = defaultdict(lambda: asyncio.Semaphore(n))
        self.entered: Counter[str] = Counter()
        self.left: Counter[str] = Counter()

    async def enter(self, host: str, timeout: float | None) -> bool:
        try:
            await asyncio.wait_for(self._turns[host].acquire(), timeout)
        except asyncio.TimeoutError:
            return False
        self.entered[host] += 1
        return True

    def leave(self, host: str) -> None:
        self.left[host] += 1
        self._turns[host].release()


class Closed:
    """A gate that never gives a turn: it waits as long as it may."""

    def __init__(self) -> None:
        self.timeouts: list[float | None] = []

    async def enter(self, host: str, timeout: float | None) -> bool:
        self.timeouts.append(timeout)
        await asyncio.sleep(timeout or 0.0)
        return False

    def leave(self, host: str) -> None:
        raise AssertionError("no turn was given")


async def test_every_attempt_takes_a_turn_and_the_gate_bounds_the_host(
    aiohttp_server: AiohttpServer,
) -> None:
    """One turn at the host: the server answers one request at a time though the reader
    alone would send four; a retried child takes a turn per attempt; all are given back."""
    s = await serve(aiohttp_server)
    flights = Flights()
    children = [f"/c{i}.xml" for i in range(4)]
    s.add("/index.xml", flights.around(xml(sitemapindex(*map(s.a, children)))))
    for child in children[1:]:
        s.add(child, flights.around(slow(xml(urlset(s.a(f"{child}/1"))), 0.05)))
    s.add(children[0], flights.around(sequence(status(503), xml(urlset(s.a("/c0.xml/1"))))))
    gate = Turns(1)

    async with SitemapReader(FAST, gate=gate) as reader:
        locs = [entry.loc async for entry in reader.entries(s.a("/index.xml"))]

    assert sorted(locs) == sorted(s.a(f"{c}/1") for c in children)
    host = f"127.0.0.1:{s.port}"
    assert gate.entered == gate.left == Counter({host: 1 + 4 + 1})  # index, children, retry
    assert len(flights.log) == 6
    assert flights.most_at_once() == 1


async def test_the_deadline_ends_a_wait_for_a_turn(aiohttp_server: AiohttpServer) -> None:
    """A gate that gives no turn: the wait ends at the run's deadline, a problem names the
    URL and the host, and nothing reaches the server."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", xml(urlset(s.a("/1"))))
    config = dataclasses.replace(FAST, timeouts=dataclasses.replace(FAST.timeouts, deadline=0.2))
    gate = Closed()

    async with SitemapReader(config, gate=gate) as reader:
        events = [e async for e in reader.walk(s.a("/sitemap.xml"))]

    problems = [e for e in events if isinstance(e, Problem)]
    assert [(p.kind, p.url) for p in problems] == [("deadline", s.a("/sitemap.xml"))]
    assert f"waiting for a turn at 127.0.0.1:{s.port}" in problems[0].message
    assert len(gate.timeouts) == 1 and 0 < (gate.timeouts[0] or 0) <= 0.2
    assert s.site.hits == []
