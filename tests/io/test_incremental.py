"""Incremental runs against a real aiohttp server on 127.0.0.1 whose site changes between runs.

Each test reads a site, changes it (a child's lastmod moves, children come and go, validators
answer 304 or are ignored), reads it again with the same state store, and asserts exactly
which documents the server was asked for on the second run (its request log), what the walk
emitted, and what the change feed said.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import (
    ChangeKind,
    EntryChange,
    MemoryStateStore,
    SitemapReader,
    SqliteStateStore,
    StateStore,
    Status,
    walk_sync,
)
from sitemap_reader._cli import main
from sitemap_reader._io._state._store import ChangeFeedStore
from tests.support.http_site import (
    FAST,
    Run,
    Served,
    ThreadedServer,
    reset_after,
    serve,
    sitemapindex,
    slow,
    status,
    text,
    urlset,
    xml,
)
from tests.support.incremental import Validated, config, run

# -- helpers ----------------------------------------------------------------------------------


def fetched(s: Served, mark: int) -> list[str]:
    """The paths the server was asked for since ``mark`` requests, sorted."""
    return sorted(s.site.paths()[mark:])


def changes(run_: Run) -> set[tuple[str, str]]:
    return {(e.change.value, e.loc) for e in run_.events if type(e) is EntryChange}


def size(body: str) -> int:
    return len(body.encode())


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> StateStore:
    """Every walk test runs on both stores: they keep one contract."""
    made = (
        MemoryStateStore()
        if request.param == "memory"
        else SqliteStateStore(tmp_path / "state.sqlite")
    )
    request.addfinalizer(made.close)
    return made


class WithoutFeed:
    """A store with no change feed: the skipping half of a SQLite store, and nothing more."""

    def __init__(self, inner: SqliteStateStore) -> None:
        self.get, self.put, self.touch = inner.get, inner.put, inner.touch
        self.states, self.close = inner.states, inner.close


# -- skipping by the index's lastmod ------------------------------------------------------------


async def test_second_run_fetches_only_children_whose_lastmod_moved_or_that_are_new(
    aiohttp_server: AiohttpServer, store: StateStore
) -> None:
    """A second run fetches robots.txt, the index, the child whose lastmod moved and the new
    child; it skips the unchanged child (reported unchanged, its size saved) and the removed
    one, and emits the entries of the fetched children only."""
    s = await serve(aiohttp_server)
    a, b = urlset(s.a("/p/a1"), s.a("/p/a2")), urlset(s.a("/p/b1"))
    s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
    s.add(
        "/index.xml",
        xml(
            sitemapindex(
                (s.a("/a.xml"), "2024-01-01"),
                (s.a("/b.xml"), "2024-01-01"),
                (s.a("/d.xml"), "2024-01-01"),
            )
        ),
    )
    s.add("/a.xml", xml(a))
    s.add("/b.xml", xml(b))
    s.add("/d.xml", xml(urlset(s.a("/p/d1"))))

    first, _ = await run(store, s.a("/"))
    assert sorted(first.locs) == [s.a(p) for p in ("/p/a1", "/p/a2", "/p/b1", "/p/d1")]

    s.add(
        "/index.xml",
        xml(
            sitemapindex(
                (s.a("/a.xml"), "2024-01-01"),
                (s.a("/b.xml"), "2024-02-01T10:00:00Z"),
                (s.a("/e.xml"), "2024-01-01"),
            )
        ),
    )
    s.add("/b.xml", xml(urlset(s.a("/p/b1"), s.a("/p/b2"))))
    s.add("/e.xml", xml(urlset(s.a("/p/e1"))))
    mark = len(s.site.hits)

    second, progress = await run(store, s.a("/"))

    assert fetched(s, mark) == ["/b.xml", "/e.xml", "/index.xml", "/robots.txt"]
    assert sorted(second.locs) == [s.a("/p/b1"), s.a("/p/b2"), s.a("/p/e1")]
    skipped = second.report(s.a("/a.xml"))
    assert (skipped.status, skipped.http_status, skipped.bytes) == (Status.UNCHANGED, None, 0)
    assert skipped.lastmod == datetime(2024, 1, 1, tzinfo=timezone.utc)
    assert second.report(s.a("/b.xml")).status is Status.OK
    assert all(r.url != s.a("/d.xml") for r in second.reports)
    assert (progress.unchanged, progress.bytes_saved) == (1, size(a))
    assert second.problems == []


async def test_a_store_without_a_change_feed_skips_and_refuses_the_feed(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """A store that only remembers documents (no stage, changes...) serves skipping: the
    second run fetches the index alone. Asking it for the change feed is refused up front,
    naming the store, before anything is read."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex((s.a("/a.xml"), "2024-01-01"))))
    s.add("/a.xml", xml(urlset(s.a("/p/a1"))))
    store = WithoutFeed(SqliteStateStore(tmp_path / "state.sqlite"))
    try:
        assert not isinstance(store, ChangeFeedStore)
        first, _ = await run(store, s.a("/index.xml"))
        assert first.locs == [s.a("/p/a1")]
        mark = len(s.site.hits)

        second, progress = await run(store, s.a("/index.xml"))

        assert fetched(s, mark) == ["/index.xml"]
        assert second.entries == []
        assert progress.unchanged == 1
        with pytest.raises(TypeError, match="WithoutFeed has no stage"):
            SitemapReader(config(changes=True), state=store)
        assert len(s.site.hits) == mark + 1  # the refusal read nothing
    finally:
        store.close()


async def test_child_without_lastmod_in_its_index_is_always_fetched(
    aiohttp_server: AiohttpServer, store: StateStore
) -> None:
    """An index without lastmods gives nothing to skip by: every child is fetched again,
    and with the same bytes nothing is emitted (the children are reported unchanged)."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/a.xml"), s.a("/b.xml"))))
    s.add("/a.xml", xml(urlset(s.a("/p/a1"))))
    s.add("/b.xml", xml(urlset(s.a("/p/b1"))))
    await run(store, s.a("/index.xml"))
    mark = len(s.site.hits)

    second, progress = await run(store, s.a("/index.xml"))

    assert fetched(s, mark) == ["/a.xml", "/b.xml", "/index.xml"]
    assert second.entries == []
    assert [second.report(s.a(p)).status for p in ("/a.xml", "/b.xml")] == [Status.UNCHANGED] * 2
    assert (progress.unchanged, progress.bytes_saved) == (2, 0)  # fetched again: nothing saved


async def test_max_age_turns_a_skip_into_a_conditional_request(
    aiohttp_server: AiohttpServer, store: StateStore
) -> None:
    """A child whose last check is older than max_age is asked again, with its validators,
    even though its index lastmod did not move; a 304 keeps it unchanged."""
    s = await serve(aiohttp_server)
    child = Validated(urlset(s.a("/p/1")), etag='"v1"')
    s.add("/index.xml", xml(sitemapindex((s.a("/a.xml"), "2024-01-01"))))
    s.add("/a.xml", child)
    await run(store, s.a("/index.xml"))
    assert child.seen == [(None, None)]

    await run(store, s.a("/index.xml"))  # within max_age: skipped
    assert len(child.seen) == 1
    second, progress = await run(store, s.a("/index.xml"), max_age=0)

    assert child.seen[1:] == [('"v1"', None)]
    assert second.report(s.a("/a.xml")).http_status == 304
    assert second.entries == [] and progress.unchanged == 1


# -- conditional requests ---------------------------------------------------------------------------


async def test_validators_304_and_a_server_that_ignores_them(
    aiohttp_server: AiohttpServer, store: StateStore
) -> None:
    """Children are asked with If-None-Match / If-Modified-Since; a 304 is unchanged (its size
    saved), a server that ignores them sends the same bytes (unchanged, nothing emitted), and
    when such a server's bytes change, every entry of that sitemap is emitted."""
    s = await serve(aiohttp_server)
    tagged = Validated(urlset(s.a("/p/x")), etag='W/"x1"')
    dated = Validated(urlset(s.a("/p/w")), last_modified="Wed, 01 May 2024 10:00:00 GMT")
    deaf = Validated(urlset(s.a("/p/y1"), s.a("/p/y2")), etag='"y1"', honour=False)
    s.add("/index.xml", xml(sitemapindex(s.a("/x.xml"), s.a("/w.xml"), s.a("/y.xml"))))
    s.add("/x.xml", tagged)
    s.add("/w.xml", dated)
    s.add("/y.xml", deaf)
    first, _ = await run(store, s.a("/index.xml"))
    assert len(first.entries) == 4

    second, progress = await run(store, s.a("/index.xml"))

    assert tagged.seen[-1] == ('W/"x1"', None)
    assert dated.seen[-1] == (None, "Wed, 01 May 2024 10:00:00 GMT")
    assert deaf.seen[-1] == ('"y1"', None)
    assert [second.report(s.a(p)).http_status for p in ("/x.xml", "/w.xml", "/y.xml")] == [
        304,
        304,
        200,
    ]
    assert {r.status for r in second.reports if r.url != s.a("/index.xml")} == {Status.UNCHANGED}
    assert second.entries == []
    assert progress.bytes_saved == size(tagged.body) + size(dated.body)

    deaf.body = urlset(s.a("/p/y1"), s.a("/p/y2"), s.a("/p/y3"))
    third, _ = await run(store, s.a("/index.xml"))

    assert sorted(third.locs) == [s.a("/p/y1"), s.a("/p/y2"), s.a("/p/y3")]
    assert third.report(s.a("/y.xml")).status is Status.OK


async def test_unchanged_robots_and_index_still_schedule_their_children(
    aiohttp_server: AiohttpServer, store: StateStore
) -> None:
    """robots.txt and an index that answer 304 name what they named last time: the children
    are queued with their recorded lastmods and skipped, so the run asks for nothing else."""
    s = await serve(aiohttp_server)
    robots = Validated(f"Sitemap: {s.a('/index.xml')}\n", etag='"r"')
    index = Validated(
        sitemapindex((s.a("/a.xml"), "2024-01-01"), (s.a("/b.xml"), "2024-01-02")), etag='"i"'
    )
    s.add("/robots.txt", robots)
    s.add("/index.xml", index)
    s.add("/a.xml", xml(urlset(s.a("/p/a"))))
    s.add("/b.xml", xml(urlset(s.a("/p/b"))))
    await run(store, s.a("/"))
    mark = len(s.site.hits)

    second, progress = await run(store, s.a("/"))

    assert fetched(s, mark) == ["/index.xml", "/robots.txt"]
    assert (robots.seen[-1], index.seen[-1]) == (('"r"', None), ('"i"', None))
    assert second.report(s.a("/robots.txt")).status is Status.UNCHANGED
    report = second.report(s.a("/index.xml"))
    assert (report.status, report.children, report.http_status) == (Status.UNCHANGED, 2, 304)
    for path, day in (("/a.xml", 1), ("/b.xml", 2)):
        child = second.report(s.a(path))
        assert child.status is Status.UNCHANGED
        assert child.lastmod == datetime(2024, 1, day, tzinfo=timezone.utc)
        assert child.source == s.a("/index.xml")
    assert second.entries == []
    assert progress.unchanged == 4


async def test_read_all_fetches_and_emits_everything_without_validators(
    aiohttp_server: AiohttpServer, store: StateStore
) -> None:
    """``read_all`` reads as if there were no store (no skips, no validators, every entry),
    and records afresh so that the next default run skips again."""
    s = await serve(aiohttp_server)
    child = Validated(urlset(s.a("/p/1"), s.a("/p/2")), etag='"c"')
    s.add("/index.xml", xml(sitemapindex((s.a("/a.xml"), "2024-01-01"))))
    s.add("/a.xml", child)
    await run(store, s.a("/index.xml"))

    everything, _ = await run(store, s.a("/index.xml"), read_all=True)

    assert sorted(everything.locs) == [s.a("/p/1"), s.a("/p/2")]
    assert child.seen == [(None, None), (None, None)]
    mark = len(s.site.hits)
    again, _ = await run(store, s.a("/index.xml"))
    assert fetched(s, mark) == ["/index.xml"] and again.entries == []


async def test_a_read_that_did_not_complete_is_not_recorded(
    aiohttp_server: AiohttpServer, store: StateStore
) -> None:
    """A child that failed, or was cut midway (its first entries emitted), is not recorded:
    the next run fetches it again and emits all its entries."""
    s = await serve(aiohttp_server)
    body = urlset(*[s.a(f"/p/{i}") for i in range(200)])
    s.add(
        "/index.xml",
        xml(sitemapindex((s.a("/a.xml"), "2024-01-01"), (s.a("/b.xml"), "2024-01-01"))),
    )
    s.add("/a.xml", status(500))
    s.add("/b.xml", reset_after(body, len(body) // 2))  # every attempt is cut
    first, _ = await run(store, s.a("/index.xml"))
    assert first.report(s.a("/a.xml")).status is Status.FAILED
    assert first.report(s.a("/b.xml")).status is Status.PARTIAL
    assert store.get(s.a("/a.xml")) is None and store.get(s.a("/b.xml")) is None
    s.add("/a.xml", xml(urlset(s.a("/p/a"))))
    s.add("/b.xml", xml(body))

    second, _ = await run(store, s.a("/index.xml"))

    assert sorted(second.locs) == sorted([s.a("/p/a"), *(s.a(f"/p/{i}") for i in range(200))])
    assert store.get(s.a("/a.xml")) is not None and store.get(s.a("/b.xml")) is not None


# -- the change feed --------------------------------------------------------------------------------


async def test_change_feed_new_modified_removed(
    aiohttp_server: AiohttpServer, store: StateStore
) -> None:
    """The first run with the feed says every URL is new, a re-run of the unchanged site says
    nothing, and after the site changed it says exactly: new (added, and in a new child),
    modified (lastmod moved), removed (gone from a re-read sitemap, or listed only by a
    child that left the index), never a URL that moved between sitemaps or is still listed."""
    s = await serve(aiohttp_server)
    p = s.a

    def site(a: str, b: str, children: list[tuple[str, str]]) -> None:
        s.add("/index.xml", xml(sitemapindex(*[(p(c), d) for c, d in children])))
        s.add("/a.xml", xml(a))
        s.add("/b.xml", xml(b))

    s.add("/c.xml", xml(urlset(p("/shared"), p("/6"))))
    s.add("/d.xml", xml(urlset(p("/5"), p("/shared"))))
    s.add("/e.xml", xml(urlset(p("/moved"), p("/8"))))
    site(
        urlset({"loc": p("/1"), "lastmod": "2024-01-01"}, {"loc": p("/2")}, p("/3")),
        urlset(p("/4"), p("/moved")),
        [("/a.xml", "2024-01-01"), ("/b.xml", "2024-01-01"), ("/c.xml", "2024-01-01"),
         ("/d.xml", "2024-01-01")],
    )  # fmt: skip

    first, _ = await run(store, s.a("/index.xml"), changes=True)
    assert first.entries == []  # the feed replaces entries
    every = ["/1", "/2", "/3", "/4", "/moved", "/shared", "/6", "/5"]
    assert sorted(changes(first)) == sorted(("new", p(u)) for u in every)
    assert len([e for e in first.events if type(e) is EntryChange]) == len(every)
    mark = len(s.site.hits)
    quiet, _ = await run(store, s.a("/index.xml"), changes=True)
    assert changes(quiet) == set() and fetched(s, mark) == ["/index.xml"]

    site(
        urlset({"loc": p("/1"), "lastmod": "2024-02-01"}, p("/3"), p("/7")),
        urlset(p("/4")),
        [("/a.xml", "2024-02-01"), ("/b.xml", "2024-02-01"), ("/c.xml", "2024-01-01"),
         ("/e.xml", "2024-01-01")],
    )  # fmt: skip
    mark = len(s.site.hits)
    third, _ = await run(store, s.a("/index.xml"), changes=True)

    assert fetched(s, mark) == ["/a.xml", "/b.xml", "/e.xml", "/index.xml"]
    assert changes(third) == {
        ("new", p("/7")),
        ("new", p("/8")),
        ("modified", p("/1")),
        ("removed", p("/2")),
        ("removed", p("/5")),
    }
    feed = {e.loc: e for e in third.events if type(e) is EntryChange}
    assert feed[p("/1")].lastmod == datetime(2024, 2, 1, tzinfo=timezone.utc)
    assert feed[p("/5")].sitemap == p("/d.xml")  # where it was listed last
    assert feed[p("/8")].sitemap == p("/e.xml")
    assert feed[p("/1")].change is ChangeKind.MODIFIED
    again, _ = await run(store, s.a("/index.xml"), changes=True)
    assert changes(again) == set()


async def test_a_peek_leaves_the_changes_pending(
    aiohttp_server: AiohttpServer, store: StateStore
) -> None:
    """Incremental(peek=True) hands the changes out and keeps them: the next run with the
    feed hands out the same, plus what changed since, and a run that takes them empties it."""
    s = await serve(aiohttp_server)
    p = s.a
    s.add("/index.xml", xml(sitemapindex((p("/a.xml"), "2024-01-01"))))
    s.add("/a.xml", xml(urlset(p("/1"), p("/2"))))
    await run(store, s.a("/index.xml"), changes=True)
    s.add("/index.xml", xml(sitemapindex((p("/a.xml"), "2024-02-01"))))
    s.add("/a.xml", xml(urlset(p("/1"), p("/3"))))
    looked, _ = await run(store, s.a("/index.xml"), changes=True, peek=True)
    expected = {("new", p("/3")), ("removed", p("/2"))}
    assert changes(looked) == expected
    again, _ = await run(store, s.a("/index.xml"), changes=True, peek=True)
    assert changes(again) == expected
    s.add("/index.xml", xml(sitemapindex((p("/a.xml"), "2024-03-01"))))
    s.add("/a.xml", xml(urlset(p("/1"), p("/3"), p("/4"))))
    taken, _ = await run(store, s.a("/index.xml"), changes=True)
    assert changes(taken) == expected | {("new", p("/4"))}
    after, _ = await run(store, s.a("/index.xml"), changes=True)
    assert changes(after) == set()


async def test_first_feed_after_plain_runs_starts_from_them(
    aiohttp_server: AiohttpServer, store: StateStore
) -> None:
    """Plain runs keep each sitemap's entries: the first run with the feed starts from what
    they recorded, so an unchanged site is skipped as usual and reports nothing."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex((s.a("/a.xml"), "2024-01-01"))))
    s.add("/a.xml", xml(urlset(s.a("/p/1"), s.a("/p/2"))))
    await run(store, s.a("/index.xml"))
    mark = len(s.site.hits)

    feed, _ = await run(store, s.a("/index.xml"), changes=True)

    assert fetched(s, mark) == ["/index.xml"]
    assert changes(feed) == set()


@pytest.mark.parametrize("plain_runs", [1, 2])
async def test_first_feed_after_plain_runs_reports_exactly_what_changed(
    aiohttp_server: AiohttpServer, store: StateStore, plain_runs: int
) -> None:
    """A plain run, then a change on the site (one URL removed, one new, one lastmod moved),
    then plain runs that read it (or none), then the first run with the feed: it reports
    exactly that change, measured from the first plain run."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex((s.a("/a.xml"), "2024-01-01"))))
    s.add(
        "/a.xml",
        xml(urlset({"loc": s.a("/p/1"), "lastmod": "2024-01-01"}, s.a("/p/2"), s.a("/p/3"))),
    )
    await run(store, s.a("/index.xml"))
    s.add("/index.xml", xml(sitemapindex((s.a("/a.xml"), "2024-02-01"))))
    s.add(
        "/a.xml",
        xml(urlset({"loc": s.a("/p/1"), "lastmod": "2024-02-01"}, s.a("/p/3"), s.a("/p/4"))),
    )
    for _ in range(plain_runs - 1):
        plain, _ = await run(store, s.a("/index.xml"))
        assert len(plain.entries) in (0, 3)  # read once, then unchanged

    feed, _ = await run(store, s.a("/index.xml"), changes=True)

    assert changes(feed) == {
        ("modified", s.a("/p/1")),
        ("removed", s.a("/p/2")),
        ("new", s.a("/p/4")),
    }
    again, _ = await run(store, s.a("/index.xml"), changes=True)
    assert changes(again) == set()


async def test_a_sitemap_that_left_its_index_between_plain_runs_is_removed_by_the_first_feed(
    aiohttp_server: AiohttpServer, store: StateStore
) -> None:
    """Plain runs only (no feed yet): a child that leaves its index is forgotten by the
    second, and the first run with the feed reports its URLs removed, nothing else."""
    s = await serve(aiohttp_server)
    s.add(
        "/index.xml",
        xml(sitemapindex((s.a("/a.xml"), "2024-01-01"), (s.a("/d.xml"), "2024-01-01"))),
    )
    s.add("/a.xml", xml(urlset(s.a("/p/a"))))
    s.add("/d.xml", xml(urlset(s.a("/p/d1"), s.a("/p/d2"))))
    await run(store, s.a("/index.xml"))
    s.add("/index.xml", xml(sitemapindex((s.a("/a.xml"), "2024-01-01"))))
    await run(store, s.a("/index.xml"))
    assert store.get(s.a("/d.xml")) is None

    feed, _ = await run(store, s.a("/index.xml"), changes=True)

    assert changes(feed) == {("removed", s.a("/p/d1")), ("removed", s.a("/p/d2"))}
    again, _ = await run(store, s.a("/index.xml"), changes=True)
    assert changes(again) == set()


async def test_removals_seen_by_plain_runs_reach_the_next_feed(
    aiohttp_server: AiohttpServer, store: StateStore
) -> None:
    """A child that leaves its index during a run without the feed is reported removed by the
    next run with it: plain runs keep the feed's pending changes."""
    s = await serve(aiohttp_server)
    s.add(
        "/index.xml",
        xml(sitemapindex((s.a("/a.xml"), "2024-01-01"), (s.a("/d.xml"), "2024-01-01"))),
    )
    s.add("/a.xml", xml(urlset(s.a("/p/a"))))
    s.add("/d.xml", xml(urlset(s.a("/p/d"))))
    await run(store, s.a("/index.xml"), changes=True)
    s.add("/index.xml", xml(sitemapindex((s.a("/a.xml"), "2024-01-01"))))
    plain, _ = await run(store, s.a("/index.xml"))
    assert plain.entries == [] and store.get(s.a("/d.xml")) is None

    feed, _ = await run(store, s.a("/index.xml"), changes=True)

    assert changes(feed) == {("removed", s.a("/p/d"))}


async def test_changes_need_a_store() -> None:
    """Asking for the change feed without a store is a programming error, said at once."""
    with pytest.raises(ValueError, match="needs a state store"):
        SitemapReader(config(changes=True))


def test_sync_wrappers_take_a_state_file(tmp_path: Path) -> None:
    """``walk_sync(..., state=path)`` opens the file on the walk's thread and closes it: the
    second run finds the child unchanged."""
    path = tmp_path / "state.sqlite"
    with ThreadedServer() as s:
        s.add("/index.xml", xml(sitemapindex((s.a("/a.xml"), "2024-01-01"))))
        s.add("/a.xml", xml(urlset(s.a("/p/1"))))
        first = list(walk_sync(s.a("/index.xml"), config=FAST, state=path))
        second = list(walk_sync(s.a("/index.xml"), config=FAST, state=path))

    assert Run(first).locs == [s.a("/p/1")]
    assert Run(second).entries == []
    assert Run(second).report(s.a("/a.xml")).status is Status.UNCHANGED


# -- a run killed midway ------------------------------------------------------------------------

CHILDREN = 120
PER_CHILD = 20


def test_a_run_killed_midway_leaves_a_store_the_next_run_completes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CLI run with the change feed, killed with SIGKILL while it reads and writes, leaves a
    store that opens cleanly; the next run fetches exactly the children it had not recorded
    and reports every URL as new exactly once."""
    path = tmp_path / "state.sqlite"
    with ThreadedServer() as s:
        pages = [s.a(f"/c/{i}/{j}") for i in range(CHILDREN) for j in range(PER_CHILD)]
        kids = [f"/c/{i}.xml" for i in range(CHILDREN)]
        s.add("/index.xml", xml(sitemapindex(*[(s.a(k), "2024-01-01") for k in kids])))
        for i, kid in enumerate(kids):
            # A little slow, so the run is still writing when it is killed.
            s.add(kid, slow(xml(urlset(*pages[i * PER_CHILD : (i + 1) * PER_CHILD])), 0.01))
        argv = ["dump", s.a("/index.xml"), "--state", str(path), "--changes", "--quiet"]
        argv += ["--recheck", "0"]  # the recorded children are skipped, none sampled
        child = subprocess.Popen(
            [sys.executable, "-m", "sitemap_reader", *argv, "--concurrency", "2"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 30
            while len(s.site.hits) < CHILDREN // 2 and time.monotonic() < deadline:
                time.sleep(0.002)
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.wait(timeout=10)
        assert child.returncode == -signal.SIGKILL

        with SqliteStateStore(path) as store:  # opens: the file is consistent
            recorded = {k for k in kids if store.get(s.a(k)) is not None}
            assert all(store.get(s.a(k)).entries == PER_CHILD for k in recorded)  # type: ignore[union-attr]
        assert 0 < len(recorded) < CHILDREN  # killed midway
        mark = len(s.site.hits)

        assert main([*argv, "--format", "txt"]) == 0

        assert fetched(s, mark) == sorted({"/index.xml", *(set(kids) - recorded)})
    out = capsys.readouterr().out
    assert sorted(out.splitlines()) == sorted(f"new\t{page}" for page in pages)


def test_killed_run_changes_are_delivered_by_the_next_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Changes recorded by a run stopped before it handed them out are handed out by the
    next run that completes (at least once): nothing is lost."""
    path = tmp_path / "state.sqlite"
    with ThreadedServer() as s:
        s.add("/index.xml", xml(sitemapindex((s.a("/a.xml"), "2024-01-01"))))
        s.add("/a.xml", xml(urlset(s.a("/p/1"), s.a("/p/2"))))
        with SqliteStateStore(path) as store:
            asyncio.run(walk_until_the_feed(store, s.a("/index.xml")))
        mark = len(s.site.hits)
        argv = ["dump", s.a("/index.xml"), "--state", str(path), "--changes", "-q"]
        assert main([*argv, "--recheck", "0"]) == 0
        assert fetched(s, mark) == ["/index.xml"]  # a.xml was recorded: not read again

    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted((r["change"], r["loc"]) for r in records) == [
        ("new", s.a("/p/1")),
        ("new", s.a("/p/2")),
    ]


async def walk_until_the_feed(store: StateStore, source: str) -> None:
    """Walk with the feed on and stop when the changes come out, as a killed consumer would."""
    async with SitemapReader(config(changes=True), state=store) as reader:
        async for batch in reader.walk_batches(source):
            if any(type(e) is EntryChange for e in batch):
                return
    raise AssertionError("the feed never came")
