"""The pace per host: the Pacer's start times on an injected clock (waits counted, nothing
slept), then real runs against a loopback server that logs when each request arrived.

Only lower bounds on the gaps are asserted: a loaded machine makes requests later, never
earlier. But a request arrives a little after it starts, and on a loaded machine one may
arrive later than the next does after its own start, so the gaps are compared with the
delay less ``JITTER``: without a pace they are a few milliseconds, far below that.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
from pathlib import Path

import pytest
from aiohttp import web
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import (
    LimitExceeded,
    Pace,
    ProblemKind,
    RetryPolicy,
    ScopePolicy,
    SitemapReader,
    Timeouts,
)
from sitemap_reader._io._http._pace import Pacer, host_of
from sitemap_reader._io._http._pace_store import LocalPace, PaceBook
from tests.support.http_site import (
    FAST,
    Served,
    redirect,
    sequence,
    serve,
    sitemapindex,
    status,
    text,
    urlset,
    walk,
    xml,
)

DELAY = 0.4
JITTER = 0.15  # the latency of one request less that of the next, at most


class FakeTime:
    """A clock that only moves when slept on; every sleep is counted."""

    def __init__(self) -> None:
        self.now = 100.0
        self.waits: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


def pacer(pace: Pace, deadline: float | None = None) -> tuple[Pacer, FakeTime]:
    fake = FakeTime()
    return Pacer(pace, deadline, clock=fake.clock, sleep=fake.sleep), fake


# -- the Pacer --------------------------------------------------------------------------------


async def test_starts_to_one_host_are_spread_by_the_delay_even_when_asked_at_once() -> None:
    paced, fake = pacer(Pace(delay=2.0))
    started: list[float] = []

    async def one() -> None:
        await paced.start("https://a.example/x.xml")
        started.append(fake.now)

    await asyncio.gather(one(), one(), one())

    assert started == [100.0, 102.0, 104.0]  # the first at once; each later one takes a turn
    assert fake.waits == [2.0, 2.0]


async def test_other_hosts_and_ports_are_not_held_up() -> None:
    paced, fake = pacer(Pace(delay=5.0))
    for url in ("https://a.example/", "https://b.example/", "https://a.example:8443/"):
        await paced.start(url)
    assert fake.waits == []
    assert host_of("https://a.example/x") == host_of("https://a.example:443/y") == "a.example:443"
    assert host_of("http://a.example/x") == "a.example:80"


async def test_time_already_passed_counts_toward_the_delay() -> None:
    paced, fake = pacer(Pace(delay=2.0))
    await paced.start("https://a.example/")
    fake.now += 1.5  # the first request took 1.5 s
    await paced.start("https://a.example/")
    fake.now += 3.0
    await paced.start("https://a.example/")
    assert fake.waits == [0.5]


async def test_slowing_a_host_is_capped_and_never_speeds_it_up() -> None:
    paced, fake = pacer(Pace(delay=1.0, max_delay=4.0))
    await paced.start("https://a.example/")
    assert paced.slow("a.example:443", 60.0) == 4.0  # a Retry-After of a minute: capped
    assert paced.slow("a.example:443", 2.0) == 4.0  # a shorter one later does not shorten it
    assert paced.slow("b.example:443", 0.5) == 1.0  # below Pace.delay: the delay stands
    await paced.start("https://a.example/")
    await paced.start("https://b.example/")
    assert fake.waits == [4.0]  # from the last start with the new gap; b is not slowed


async def test_a_start_past_the_deadline_is_refused_without_waiting() -> None:
    paced, fake = pacer(Pace(delay=10.0), deadline=105.0)
    await paced.start("https://a.example/one")
    with pytest.raises(LimitExceeded) as refused:
        await paced.start("https://a.example/two")
    assert refused.value.kind is ProblemKind.DEADLINE
    assert refused.value.url == "https://a.example/two"
    assert "a.example:443" in str(refused.value) and "deadline" in str(refused.value)
    assert fake.waits == []
    await paced.start("https://b.example/")  # another host may still start


async def test_pacers_sharing_a_store_share_the_starts_and_the_slowdowns() -> None:
    """Two readers' pacers on one store: their starts to a host are spread as one pacer's,
    and a slowdown one learns spaces the other's next start too."""
    fake = FakeTime()
    store = LocalPace(PaceBook(fake.clock))
    one, two = (
        Pacer(Pace(delay=1.0), None, store=store, clock=fake.clock, sleep=fake.sleep)
        for _ in range(2)
    )
    await one.start("https://a.example/x")
    await two.start("https://a.example/y")
    assert fake.waits == [1.0]  # the second reader queued behind the first's start

    one.slow("a.example:443", 3.0)  # a Crawl-delay the first reader read
    await two.start("https://a.example/z")
    assert fake.waits == [1.0, 3.0]  # the other reader's next start, spaced by it
    assert two.delay("a.example:443") == 1.0  # that reader never learned it itself


def test_a_book_says_how_long_until_a_host_is_free() -> None:
    """What a partition of read_sites waits for before it gives a shared host's lease back:
    nothing for a host never started, the rest of the delay after a start, raised by a
    slowdown, nothing once it has passed."""
    fake = FakeTime()
    book = PaceBook(fake.clock)
    assert book.free_in("a.example:443") == 0.0
    book.take("a.example:443", 2.0, None)
    assert book.free_in("a.example:443") == 2.0
    book.slow("a.example:443", 5.0)
    fake.now += 1.0
    assert book.free_in("a.example:443") == 4.0
    assert book.free_in("b.example:443") == 0.0
    fake.now += 10.0
    assert book.free_in("a.example:443") == 0.0


@pytest.mark.parametrize("value", [-1.0, float("inf"), float("nan")])
def test_a_pace_is_a_finite_number_of_seconds(value: float) -> None:
    with pytest.raises(ValueError, match=r"Pace\.delay"):
        Pace(delay=value)
    with pytest.raises(ValueError, match=r"Pace\.max_delay"):
        Pace(max_delay=value)


# -- real runs --------------------------------------------------------------------------------


def gaps(s: Served, host: str) -> list[float]:
    """Seconds between the arrivals of consecutive requests to ``host``."""
    times = sorted(h.at for h in s.site.hits if h.host == host)
    return [b - a for a, b in itertools.pairwise(times)]


def three_children(s: Served, robots: str = "") -> None:
    """robots.txt (``robots`` first) -> index -> three urlsets, all on 127.0.0.1."""
    s.add("/robots.txt", text(f"{robots}Sitemap: {s.a('/index.xml')}\n"))
    s.add("/index.xml", xml(sitemapindex(*[s.a(f"/{n}.xml") for n in range(3)])))
    for n in range(3):
        s.add(f"/{n}.xml", xml(urlset(s.a(f"/p{n}"))))


async def test_requests_to_one_host_start_a_delay_apart(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    three_children(s)
    config = dataclasses.replace(FAST, pace=Pace(delay=DELAY))

    run = await walk(s.a("/"), config=config)

    assert sorted(run.locs) == [s.a(f"/p{n}") for n in range(3)]
    assert len(s.site.hits) == 5  # the three children were free to go at once (per_host 4)
    assert all(gap >= DELAY - JITTER for gap in gaps(s, "127.0.0.1"))


async def test_another_host_is_not_kept_waiting(aiohttp_server: AiohttpServer) -> None:
    """An index on 127.0.0.1 names a child there and one on localhost: the localhost one goes
    first, while 127.0.0.1's child waits for its host's turn."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/a.xml"), s.b("/b.xml"))))
    s.add("/a.xml", xml(urlset(s.a("/pa"))))
    s.add("/b.xml", xml(urlset(s.b("/pb"))))
    config = dataclasses.replace(FAST, pace=Pace(delay=DELAY), scope=ScopePolicy.OFF)

    run = await walk(s.a("/index.xml"), config=config)

    assert sorted(run.locs) == [s.a("/pa"), s.b("/pb")]
    assert s.site.paths() == ["/index.xml", "/b.xml", "/a.xml"]
    assert gaps(s, "127.0.0.1")[0] >= DELAY - JITTER


async def test_a_redirect_hop_and_a_retry_are_requests_too(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    s.add("/old.xml", redirect("/flaky.xml"))
    s.add("/flaky.xml", sequence(status(500), xml(urlset(s.a("/p")))))
    config = dataclasses.replace(FAST, pace=Pace(delay=DELAY))

    run = await walk(s.a("/old.xml"), config=config)

    assert run.locs == [s.a("/p")]
    assert s.site.paths() == ["/old.xml", "/flaky.xml"] * 2  # a retry starts over
    assert all(gap >= DELAY - JITTER for gap in gaps(s, "127.0.0.1"))


async def test_a_503_with_retry_after_slows_its_host_for_the_rest_of_the_run(
    aiohttp_server: AiohttpServer,
) -> None:
    """Retry-After: 60, capped (by max_delay and the retry policy's cap): every later request
    to the host, not only the retry, starts that long after the one before."""
    s = await serve(aiohttp_server)
    three_children(s)
    s.add(
        "/index.xml",
        sequence(
            status(503, headers={"Retry-After": "60"}),
            xml(sitemapindex(*[s.a(f"/{n}.xml") for n in range(3)])),
        ),
    )
    config = dataclasses.replace(
        FAST,
        pace=Pace(max_delay=DELAY),
        retry=RetryPolicy(backoff=0.01, max_backoff=0.05, max_retry_after=DELAY),
    )

    run = await walk(s.a("/index.xml"), config=config)

    assert sorted(run.locs) == [s.a(f"/p{n}") for n in range(3)]
    assert s.count("/index.xml") == 2
    spread = gaps(s, "127.0.0.1")
    assert len(spread) == 4 and all(gap >= DELAY - JITTER for gap in spread)


async def test_crawl_delay_is_obeyed_when_asked_and_capped(aiohttp_server: AiohttpServer) -> None:
    """Crawl-delay: 3600 for every agent, capped to max_delay: the run still ends, paced."""
    s = await serve(aiohttp_server)
    three_children(s, robots="User-agent: *\nCrawl-delay: 3600\n")
    config = dataclasses.replace(
        FAST,
        pace=Pace(obey_crawl_delay=True, max_delay=DELAY),
        timeouts=dataclasses.replace(FAST.timeouts, deadline=30.0),
    )

    run = await walk(s.a("/"), config=config)

    assert sorted(run.locs) == [s.a(f"/p{n}") for n in range(3)]
    assert run.problems == []
    assert len(s.site.hits) == 5
    assert all(gap >= DELAY - JITTER for gap in gaps(s, "127.0.0.1"))


async def test_the_deadline_ends_a_run_its_pace_would_carry_past_it(
    aiohttp_server: AiohttpServer,
) -> None:
    """A pace of a minute and a deadline of 2 s: after robots.txt, the index is not asked
    for (it would start after the deadline), and the run says so."""
    s = await serve(aiohttp_server)
    three_children(s)
    config = dataclasses.replace(
        FAST,
        pace=Pace(delay=60.0),
        timeouts=Timeouts(connect=2.0, read=0.5, request=5.0, deadline=2.0),
    )

    run = await walk(s.a("/"), config=config)

    assert s.site.paths() == ["/robots.txt"]
    assert run.locs == []
    assert ProblemKind.DEADLINE in run.kinds
    said = [p for p in run.problems if p.kind == ProblemKind.DEADLINE]
    assert any("127.0.0.1" in p.message and "pace" in p.message for p in said)


async def test_with_a_state_file_robots_txt_is_read_again_for_its_crawl_delay(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """A 304 has no body to read a Crawl-delay from: an obeying run with a state file asks
    for robots.txt unconditionally, so its second run is paced as its first was."""
    s = await serve(aiohttp_server)
    three_children(s)
    asked: list[str | None] = []

    async def robots(request: web.Request) -> web.StreamResponse:
        asked.append(request.headers.get("If-None-Match"))
        headers = {"ETag": '"r1"'}
        if request.headers.get("If-None-Match") == '"r1"':
            return web.Response(status=304, headers=headers)
        body = f"User-agent: *\nCrawl-delay: {DELAY}\nSitemap: {s.a('/index.xml')}\n"
        return web.Response(text=body, headers=headers)

    s.add("/robots.txt", robots)
    config = dataclasses.replace(FAST, pace=Pace(obey_crawl_delay=True))
    state = str(tmp_path / "state.sqlite")
    read = []
    for _ in range(2):
        async with SitemapReader(config, state=state) as reader:
            read.append(len([e async for e in reader.entries(s.a("/"))]))
    second = [h.at for h in s.site.hits[5:]]

    assert read == [3, 0]  # the second run found nothing new: its children came unchanged

    assert asked == [None, None]
    assert len(second) == 5
    assert all(b - a >= DELAY - JITTER for a, b in itertools.pairwise(second))


async def test_a_crawl_delay_that_is_no_number_is_ignored_and_said(
    aiohttp_server: AiohttpServer, caplog: pytest.LogCaptureFixture
) -> None:
    s = await serve(aiohttp_server)
    three_children(s, robots="User-agent: *\nCrawl-delay: soon\n")
    config = dataclasses.replace(FAST, pace=Pace(obey_crawl_delay=True))

    with caplog.at_level(logging.WARNING, logger="sitemap_reader"):
        run = await walk(s.a("/"), config=config)

    assert len(run.locs) == 3 and run.problems == []
    said = f"{s.a('/robots.txt')} line 2: the Crawl-delay value 'soon' is not a number of seconds"
    assert [r.getMessage() for r in caplog.records] == [f"{said}: ignored"]
