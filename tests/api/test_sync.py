"""The blocking wrappers against a local server that runs on its own thread and loop."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import closing

import pytest

from sitemap_reader import (
    Entry,
    Event,
    Limits,
    Problem,
    SitemapVisited,
    Status,
    Timeouts,
    check_sync,
    collect_urls_sync,
    entries_sync,
    walk_sync,
)
from tests.support.http_site import (
    FAST,
    Served,
    ThreadedServer,
    gated,
    sitemapindex,
    text,
    urlset,
    xml,
)

ONE_AT_A_TIME = dataclasses.replace(FAST, limits=Limits(max_concurrency=1))
# One request at a time, and a read timeout longer than the slow handler's answer (3 s).
PATIENT = dataclasses.replace(
    ONE_AT_A_TIME, timeouts=Timeouts(connect=2.0, read=10.0, request=10.0)
)


@pytest.fixture
def served() -> Iterator[Served]:
    with ThreadedServer() as s:
        s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
        s.add("/index.xml", xml(sitemapindex(s.a("/a.xml"), s.a("/missing.xml"), s.a("/b.txt"))))
        s.add("/a.xml", xml(urlset(s.a("/a/1"), s.a("/a/2"))))
        s.add("/b.txt", text(f"{s.a('/b/1')}\n"))
        yield s


def generator(it: Iterator[Entry]) -> Generator[Entry, None, None]:
    """The wrappers are generators (so they can be closed), though typed as iterators."""
    assert isinstance(it, Generator)
    return it


def no_reader_threads() -> bool:
    return not any(t.name == "sitemap-reader" for t in threading.enumerate())


def test_entries_sync(served: Served) -> None:
    """``entries_sync`` yields the site's entries as Entry records."""
    got = list(entries_sync(served.a("/"), config=FAST))

    assert all(type(e) is Entry for e in got)
    assert sorted(e.loc for e in got) == [served.a("/a/1"), served.a("/a/2"), served.a("/b/1")]
    assert no_reader_threads()


def test_collect_urls_sync(served: Served) -> None:
    """``collect_urls_sync`` returns the page URLs as a list of strings, each sitemap in order."""
    urls = collect_urls_sync(served.a("/a.xml"), served.a("/b.txt"), config=ONE_AT_A_TIME)

    assert urls == [served.a("/a/1"), served.a("/a/2"), served.a("/b/1")]


def test_walk_sync_reports_everything(served: Served) -> None:
    """``walk_sync`` yields entries, the failing child's problem and one report per document."""
    events = list(walk_sync(served.a("/"), config=FAST))

    reports = {e.url: e.status for e in events if type(e) is SitemapVisited}
    assert reports == {
        served.a("/robots.txt"): Status.OK,
        served.a("/index.xml"): Status.OK,
        served.a("/a.xml"): Status.OK,
        served.a("/missing.xml"): Status.FAILED,
        served.a("/b.txt"): Status.OK,
    }
    problems = [e for e in events if type(e) is Problem]
    assert [(p.kind, p.url) for p in problems] == [("http-status", served.a("/missing.xml"))]
    assert sum(type(e) is Entry for e in events) == 3


def test_walk_sync_raises_the_run_s_error() -> None:
    """An error of the run (here: no source at all) is raised in the consumer's thread."""
    with pytest.raises(ValueError, match="at least one source"):
        list(walk_sync(config=FAST))
    assert no_reader_threads()


def test_stopping_early_stops_the_run() -> None:
    """Leaving the loop early stops the run: the remaining children are never requested."""
    with ThreadedServer() as s:
        children = [s.a(f"/c{i}.xml") for i in range(200)]
        s.add("/index.xml", xml(sitemapindex(*children)))
        for i in range(200):
            s.add(f"/c{i}.xml", xml(urlset(s.a(f"/c{i}/page"))))

        with closing(generator(entries_sync(s.a("/index.xml"), config=ONE_AT_A_TIME))) as entries:
            first = next(entries)

        assert first.loc == s.a("/c0/page")
        assert no_reader_threads()
        fetched = len(s.site.hits)
        time.sleep(0.2)
        assert len(s.site.hits) == fetched, "requests went on after the consumer stopped"
        assert fetched < 100


def test_stopping_early_does_not_wait_for_a_slow_fetch() -> None:
    """Leaving the loop while a slow fetch is in flight returns promptly, without waiting for it."""
    gate = threading.Event()
    with ThreadedServer() as s:
        s.add("/index.xml", xml(sitemapindex(s.a("/fast.xml"), s.a("/slow.xml"))))
        s.add("/fast.xml", xml(urlset(s.a("/fast"))))
        s.add("/slow.xml", gated(xml(urlset(s.a("/slow"))), gate, timeout=30.0))
        try:
            with closing(generator(entries_sync(s.a("/index.xml"), config=PATIENT))) as entries:
                assert next(entries).loc == s.a("/fast")
                for _ in range(200):  # wait (2 s at most) until the slow child is in flight
                    if s.count("/slow.xml"):
                        break
                    time.sleep(0.01)
                assert s.count("/slow.xml") == 1
                time.sleep(0.2)  # the run has handed over all it had; it waits for the slow child
            # Closed while the slow child is still held back: had closing waited for that
            # fetch, it would have returned only once the gate's 30 s were over and the
            # answer had gone out.
            served = "/slow.xml" in s.site.served_at
        finally:
            gate.set()

    assert not served, "closing the iterator waited for a fetch nobody wants"


# -- inside a running event loop (a notebook: a coroutine calls the blocking wrapper) -----------


def timeless(event: Event) -> Event:
    """The event without the time its document took (it differs from run to run)."""
    return dataclasses.replace(event, elapsed=0.0) if type(event) is SitemapVisited else event


def test_every_wrapper_inside_a_running_loop_gives_what_it_gives_outside(served: Served) -> None:
    """Called from a coroutine, as a notebook cell calls them, the wrappers run the walk on
    a thread and loop of their own and give what they give from plain sync code."""
    root = served.a("/")

    Every = tuple[list[Event], list[Entry], list[str], list[tuple[str, str]]]

    def every() -> Every:
        return (
            [timeless(e) for e in walk_sync(root, config=ONE_AT_A_TIME)],
            list(entries_sync(root, config=ONE_AT_A_TIME)),
            collect_urls_sync(root, config=ONE_AT_A_TIME),
            [(f.code, f.url) for f in check_sync(root, config=ONE_AT_A_TIME)],
        )

    async def cell() -> Every:
        return every()

    outside = every()
    inside = asyncio.run(cell())

    assert inside == outside
    events, entries, urls, findings = inside
    assert ("H201", served.a("/missing.xml")) in findings
    assert sum(type(e) is SitemapVisited for e in events) == 5
    assert urls == [e.loc for e in entries] == [s for s in urls if "/a/" in s or "/b/" in s]
    assert len(urls) == 3
    assert no_reader_threads()


def test_the_run_s_error_inside_a_running_loop_keeps_its_type() -> None:
    """An error of the run is raised in the caller's coroutine as it was raised."""

    async def cell() -> None:
        collect_urls_sync(config=FAST)

    with pytest.raises(ValueError, match="at least one source"):
        asyncio.run(cell())
    assert no_reader_threads()


@pytest.mark.parametrize("wrapper", [walk_sync, entries_sync])
def test_breaking_out_inside_a_running_loop_leaves_nothing_behind(
    wrapper: Callable[..., Iterator[Event]],
) -> None:
    """Leaving the loop early inside a coroutine: no reader thread, no task pending in the
    caller's loop, and no request after it."""
    with ThreadedServer() as s:
        children = [s.a(f"/c{i}.xml") for i in range(200)]
        s.add("/index.xml", xml(sitemapindex(*children)))
        for i in range(200):
            s.add(f"/c{i}.xml", xml(urlset(s.a(f"/c{i}/page"))))

        async def cell() -> tuple[Event, set[asyncio.Task[object]]]:
            for event in wrapper(s.a("/index.xml"), config=ONE_AT_A_TIME):  # noqa: B007
                break  # the generator is closed here, as it is dropped
            return event, asyncio.all_tasks() - {asyncio.current_task()}

        first, pending = asyncio.run(cell())

        assert isinstance(first, (Entry, SitemapVisited))
        assert pending == set()
        assert no_reader_threads()
        time.sleep(0.2)  # requests sent before the close reach the server
        fetched = len(s.site.hits)
        time.sleep(0.2)
        assert len(s.site.hits) == fetched, "requests went on after the consumer stopped"
        assert fetched < 100
