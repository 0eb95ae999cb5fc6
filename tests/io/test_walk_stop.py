"""A run stopped while its outbox is full ends at once: marking the end never waits for room
in the queue, and once the consumer has left no put waits for room nothing will make."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Iterator
from typing import cast

import pytest

from sitemap_reader import Entry, Event, SitemapReader
from sitemap_reader._base._run import Progress
from sitemap_reader._io._walk._outbox import Outbox
from tests.support.http_site import FAST, Served, ThreadedServer, sitemapindex, urlset, xml


async def test_closing_a_full_outbox_does_not_wait_and_ends_its_batches() -> None:
    outbox = Outbox(Progress())
    batches: list[list[Event]] = [
        [Entry(loc=f"https://e.example/{i}", sitemap="s")] for i in range(8)
    ]
    for batch in batches:
        await outbox.emit(batch, root="s")

    outbox.close()  # the queue is full: a put would wait for the consumer

    got: list[list[Event]] = []
    while (taken := await asyncio.wait_for(outbox.get(), 1)) is not None:
        got.append(taken)
    assert got == batches


async def test_once_abandoned_no_put_waits() -> None:
    outbox = Outbox(Progress())
    outbox.abandon()

    with pytest.raises(asyncio.CancelledError):
        await outbox.emit([Entry(loc="https://e.example/", sitemap="s")], root="s")


@pytest.fixture
def site() -> Iterator[Served]:
    """Four sitemaps of 5,000 URLs, served from a thread: the test's loop runs the reader alone."""
    with ThreadedServer() as s:
        children = [f"/c{i}.xml" for i in range(4)]
        s.add("/index.xml", xml(sitemapindex(*(s.a(c) for c in children))))
        for child in children:
            s.add(child, xml(urlset(*(s.a(f"{child}/{i}") for i in range(5_000)))))
        yield s


async def test_a_consumer_cancelled_while_the_outbox_is_full_leaves_nothing_running(
    site: Served,
) -> None:
    stuck = asyncio.Event()

    async def consume(reader: SitemapReader) -> None:
        walk = cast("AsyncGenerator[list[Event], None]", reader.walk_batches(site.a("/index.xml")))
        async with contextlib.aclosing(walk) as batches:
            async for _ in batches:
                stuck.set()
                await asyncio.Event().wait()  # a consumer that stopped reading (a blocked write)

    async with SitemapReader(FAST) as reader:
        task = asyncio.ensure_future(consume(reader))
        await asyncio.wait_for(stuck.wait(), 10)
        entries = -1
        while entries != reader.progress.entries:  # until the workers wait on a full outbox
            entries = reader.progress.entries
            await asyncio.sleep(0.2)
        task.cancel()
        await asyncio.wait({task}, timeout=3)

    # Every task of the run (workers, the closer, a generator closed by the loop) ends.
    others = asyncio.all_tasks() - {asyncio.current_task()}
    if others:
        await asyncio.wait(others, timeout=3)
    assert task.cancelled()
    assert [t for t in others if not t.done()] == []
    assert reader.progress.entries < 20_000  # stopped mid-read
