"""A split read: discovery (robots.txt, indexes, leaves sniffed) then the leaves, anywhere.

The property that matters: the leaves' reads, put together, give what one walk gives.
"""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import Entry, Leaf, Problem, SitemapReader, SitemapVisited, Status
from tests.support.http_site import (
    FAST,
    Served,
    gz_file,
    redirect,
    rss,
    serve,
    sitemapindex,
    status,
    text,
    text_sitemap,
    urlset,
    xml,
)


def _site(s: Served) -> None:
    """A tree with every kind of leaf, a nested index, a redirect, a cross-submission and
    a broken leaf."""
    s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\nSitemap: {s.b('/cross.xml')}\n"))
    s.add(
        "/index.xml",
        xml(
            sitemapindex(
                s.a("/big.xml"),
                s.a("/nested.xml"),
                s.a("/feed.rss"),
                s.a("/list.txt"),
                s.a("/moved.xml"),
                s.a("/broken.xml"),
                s.a("/tiny.xml"),
            )
        ),
    )
    s.add("/big.xml", xml(urlset(*(s.a(f"/big/{i}") for i in range(20_000)))))
    s.add("/nested.xml", xml(sitemapindex(s.a("/gz.xml.gz"))))
    s.add("/gz.xml.gz", gz_file(urlset(*(s.a(f"/gz/{i}") for i in range(500)))))
    s.add("/feed.rss", xml(rss(s.a("/news/1"), s.a("/news/2"))))
    s.add("/list.txt", text(text_sitemap(s.a("/t/1"), s.a("/t/2"), s.b("/elsewhere"))))
    s.add("/moved.xml", redirect(s.a("/new/place.xml")))
    s.add("/new/place.xml", xml(urlset(s.a("/new/1"), s.a("/moved-out"))))
    s.add("/broken.xml", status(404))
    s.add("/tiny.xml", xml(urlset(s.a("/tiny"))))
    # On another host, vouched for by 127.0.0.1's robots.txt: may list 127.0.0.1's pages.
    s.add("/cross.xml", xml(urlset(s.a("/vouched"), s.b("/own"))), host="localhost")


async def _discover(url: str) -> tuple[list[Leaf], list[object], SitemapReader]:
    leaves: list[Leaf] = []
    others: list[object] = []
    async with SitemapReader(FAST) as reader:
        async for batch in reader.discover_batches(url):
            for item in batch:
                if isinstance(item, Leaf):
                    leaves.append(item)
                else:
                    others.append(item)
    return leaves, others, reader


async def _read(leaves: list[Leaf]) -> list[object]:
    async with SitemapReader(FAST) as reader:
        return [e async for batch in reader.leaf_batches(*leaves) for e in batch]


async def test_leaves_read_apart_give_what_one_walk_gives(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    _site(s)
    async with SitemapReader(FAST) as reader:
        whole = [e async for e in reader.walk(s.a("/"))]

    leaves, found, discovery = await _discover(s.a("/"))
    # Each leaf read on its own (as Dask tasks would), after a trip through pickle.
    parts = [await _read([pickle.loads(pickle.dumps(leaf))]) for leaf in leaves]

    def rows(events: Sequence[object]) -> list[tuple[str, str]]:
        return [(e.sitemap, e.loc) for e in events if isinstance(e, Entry)]

    split = [row for part in parts for row in rows(part)]
    assert Counter(split) == Counter(rows(whole))
    assert len(split) == 20_000 + 500 + 2 + 2 + 2 + 1 + 2
    # Scope travels with a leaf: robots.txt's vouching lets the cross-submitted sitemap
    # list 127.0.0.1's pages and the redirected one any folder; the text list may not
    # name another host.
    assert (s.b("/cross.xml"), s.a("/vouched")) in split
    assert (s.a("/new/place.xml"), s.a("/moved-out")) in split
    assert not any(loc == s.b("/elsewhere") for _, loc in split)
    # Discovery read no entries; it found the seven leaves, and reported the rest.
    assert discovery.progress.entries == 0
    names = ("/big.xml", "/gz.xml.gz", "/feed.rss", "/list.txt", "/moved.xml", "/tiny.xml")
    assert sorted(leaf.url for leaf in leaves) == sorted([*map(s.a, names), s.b("/cross.xml")])
    reports = {r.url: r for r in found if isinstance(r, SitemapVisited)}
    assert reports[s.a("/broken.xml")].status is Status.FAILED
    assert reports[s.a("/nested.xml")].status is Status.OK
    assert s.a("/big.xml") not in reports  # a leaf is reported by its read
    gz = next(leaf for leaf in leaves if leaf.url.endswith(".gz"))
    assert (gz.depth, gz.source, gz.root) == (2, s.a("/nested.xml"), s.a("/"))
    # Problems of the leaves come with their reads, as in the whole walk.
    split_kinds = sorted(p.kind for part in parts for p in part if isinstance(p, Problem))
    whole_kinds = sorted(p.kind for p in whole if isinstance(p, Problem))
    found_kinds = sorted(p.kind for p in found if isinstance(p, Problem))
    assert sorted(split_kinds + found_kinds) == whole_kinds


async def test_discovery_fetches_only_the_first_bytes_of_a_leaf(
    aiohttp_server: AiohttpServer,
) -> None:
    s = await serve(aiohttp_server)
    big = urlset(*(s.a(f"/p/{i:07d}") for i in range(100_000))).encode()
    s.add("/index.xml", xml(sitemapindex(s.a("/big.xml"))))
    s.add("/big.xml", xml(big))

    leaves, _, discovery = await _discover(s.a("/index.xml"))

    assert [leaf.url for leaf in leaves] == [s.a("/big.xml")]
    index_size = len(sitemapindex(s.a("/big.xml")).encode())
    assert discovery.progress.bytes - index_size < len(big) // 4
    assert len(big) > 4_000_000


async def test_a_source_that_is_a_leaf_is_one_leaf(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    s.add("/s.xml", xml(urlset(s.a("/1"), s.a("/2"))))

    leaves, found, _ = await _discover(s.a("/s.xml"))
    read = await _read(leaves)

    assert [(leaf.url, leaf.depth, leaf.source) for leaf in leaves] == [(s.a("/s.xml"), 0, "")]
    assert found == []
    assert [e.loc for e in read if isinstance(e, Entry)] == [s.a("/1"), s.a("/2")]
    assert [r.status for r in read if isinstance(r, SitemapVisited)] == [Status.OK]


async def test_discovery_remembers_leaves_in_its_store(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """With a store, a leaf found once is handed out again without a request (its own read
    decides whether it changed); the store never records it as read."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex((s.a("/a.xml"), "2026-05-01"), s.a("/b.xml"))))
    s.add("/a.xml", xml(urlset(s.a("/1"))))
    s.add("/b.xml", gz_file(urlset(s.a("/2"))))
    state = tmp_path / "tree.sqlite"

    async def discover() -> list[Leaf]:
        async with SitemapReader(FAST, state=state) as reader:
            return [
                item
                async for batch in reader.discover_batches(s.a("/index.xml"))
                for item in batch
                if isinstance(item, Leaf)
            ]

    first = await discover()
    requests = len(s.site.hits)
    again = await discover()

    assert [leaf.url for leaf in again] == [leaf.url for leaf in first]
    assert [leaf.url for leaf in first] == [s.a("/a.xml"), s.a("/b.xml")]
    assert [h.path for h in s.site.hits[requests:]] == ["/index.xml"]
    assert first[0].size == len(urlset(s.a("/1")).encode())
    assert again[0].size is None  # remembered, not asked
    async with SitemapReader(FAST, state=state) as reader:
        recorded = reader._store.get(s.a("/a.xml")) if reader._store else None
    assert recorded is not None and recorded.entries == 0
