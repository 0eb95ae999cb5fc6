"""Leaving an iteration of ``SitemapReader`` early, without ``contextlib.aclosing``.

``async for ... : break`` inside ``async with SitemapReader()`` leaves the async generator
suspended; leaving the block must still stop the run before the session closes, so no
worker meets a closed session and nothing is printed at ``asyncio.run``'s shutdown. The
subprocess runs turn every warning into an error and turn asyncio's debug mode on (it
reports tasks destroyed pending and exceptions never retrieved; slow callbacks, a matter of
the clock, are not looked for). The site is
served on 127.0.0.1 by this process.
"""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys
from collections.abc import Iterator

import pytest

from sitemap_reader import Entry, SitemapReader, Timeouts
from tests.support.http_site import (
    FAST,
    Served,
    ThreadedServer,
    hang,
    sitemapindex,
    text,
    urlset,
    xml,
)

CHILDREN = 40
PER_CHILD = 300
PATIENT = dataclasses.replace(FAST, timeouts=Timeouts(connect=2.0, read=30.0, request=30.0))

# Each method of the reader iterated in its own asyncio.run, left at event ``stop``
# (counted in events, a batch's events one by one; discovery and check, which give about
# one Leaf or one finding per child, at ``stop_per_child``): how far it went is printed.
SCRIPT = """
import asyncio, sys
from sitemap_reader import SitemapReader
from tests.support.http_site import FAST

root, stop, stop_per_child = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# Debug mode (-X dev turns it on for every loop) also logs a callback slower than 0.1 s: a
# reading of the clock, which a busy machine passes; this test looks for the rest of it.
# (Each loop sets its own at creation, so it is raised on the running loop.)
def patient():
    asyncio.get_running_loop().slow_callback_duration = 3600

async def leaves():
    patient()
    async with SitemapReader(FAST) as reader:
        return [e for batch in [b async for b in reader.discover_batches(root)]
                for e in batch if type(e).__name__ == "Leaf"]

def events(reader, method, found):
    if method == "leaf_batches":
        return reader.leaf_batches(*found)
    return getattr(reader, method)(root)

async def leave(method, found):
    patient()
    seen, at = 0, stop_per_child if method in ("discover_batches", "check") else stop
    async with SitemapReader(FAST) as reader:
        async for item in events(reader, method, found):
            seen += len(item) if isinstance(item, list) else 1
            if seen >= at:
                break
    print(method, seen)

found = asyncio.run(leaves())
for method in ("walk", "entries", "walk_batches", "discover_batches", "leaf_batches", "check"):
    asyncio.run(leave(method, found), debug=True)
"""


@pytest.fixture(scope="module")
def big_site() -> Iterator[Served]:
    with ThreadedServer() as s:
        children = [s.a(f"/c{i}.xml") for i in range(CHILDREN)]
        s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
        s.add("/index.xml", xml(sitemapindex(*children)))
        for i in range(CHILDREN):  # each lists its first page twice: a finding for check
            pages = [s.a(f"/c{i}/{j}") for j in range(PER_CHILD)]
            s.add(f"/c{i}.xml", xml(urlset(*pages, pages[0])))
        yield s


@pytest.mark.parametrize(
    ("stop", "stop_per_child"),
    [(1, 1), (2, 2), (CHILDREN * PER_CHILD // 3, CHILDREN // 2)],
    ids=["first-event", "first-entries", "mid-site"],
)
def test_breaking_out_is_clean_at_shutdown(
    big_site: Served, stop: int, stop_per_child: int
) -> None:
    """Every iterator of the reader, left at the first events or mid-site: exit 0, nothing
    on stderr (no 'Session is closed', no task destroyed pending, no warning)."""
    done = subprocess.run(
        [
            sys.executable,
            "-W",
            "error",
            "-X",
            "dev",
            "-c",
            SCRIPT,
            big_site.a("/"),
            str(stop),
            str(stop_per_child),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )

    assert done.stderr.decode() == ""
    assert done.returncode == 0
    counts = {m: int(n) for m, n in (line.split() for line in done.stdout.decode().splitlines())}
    # Left where asked (a batch may pass the mark), far from the end of the site.
    for per_child in ("discover_batches", "check"):
        assert stop_per_child <= counts.pop(per_child) < CHILDREN, done.stdout
    assert set(counts) == {"walk", "entries", "walk_batches", "leaf_batches"}
    assert all(stop <= n < CHILDREN * PER_CHILD for n in counts.values()), counts


async def test_leaving_the_block_stops_the_run(big_site: Served) -> None:
    """Once the block is left, none of the run's tasks is pending and no request follows."""
    before = len(big_site.site.hits)
    async with SitemapReader(FAST) as reader:
        async for event in reader.walk(big_site.a("/")):
            if type(event) is Entry:
                break
    assert asyncio.all_tasks() == {asyncio.current_task()}
    await asyncio.sleep(0.2)  # requests sent before the close reach the server
    hits = len(big_site.site.hits)
    await asyncio.sleep(0.3)
    assert len(big_site.site.hits) == hits, "requests went on after the reader closed"
    assert hits - before < 2 + CHILDREN, "the whole site was read"


async def test_a_consumer_waiting_when_the_reader_closes_is_told() -> None:
    """A walk iterated by another task when the reader closes ends with a clear error,
    instead of waiting for a batch that will never come."""
    first = asyncio.Event()
    with ThreadedServer() as s:
        s.add("/a.xml", xml(urlset(s.a("/1"))))
        s.add("/hangs.xml", hang(10))  # answers after the test is over
        reader = SitemapReader(PATIENT)
        await reader.__aenter__()

        async def consume() -> None:
            async for _entry in reader.entries(s.a("/a.xml"), s.a("/hangs.xml")):
                first.set()

        consumer = asyncio.ensure_future(consume())
        await asyncio.wait_for(first.wait(), 5)
        await asyncio.sleep(0.05)  # the consumer waits for the next batch now
        await reader.aclose()

        with pytest.raises(RuntimeError, match="closed during this walk"):
            await asyncio.wait_for(consumer, 5)
