"""``ReaderConfig.headers`` over a real server: sent with every request of a run (robots.txt,
probes, sitemaps, redirect hops), credentials kept from another host after a redirect
(127.0.0.1 -> localhost: two hosts), and never shown in a problem or a repr."""

from __future__ import annotations

import dataclasses

import aiohttp
import pytest
from pytest_aiohttp.plugin import AiohttpServer
from yarl import URL

from sitemap_reader import ReaderConfig, ScopePolicy, SitemapReader
from sitemap_reader._base._headers import keeps_credentials
from tests.support.http_site import (
    FAST,
    redirect,
    serve,
    sitemapindex,
    status,
    urlset,
    walk,
    xml,
)

SECRET = "Bearer s3cret-token"
HEADERS = (("X-Crawl-Id", "run-7"), ("Authorization", SECRET), ("Cookie", "session=s3cret"))
WITH_HEADERS = dataclasses.replace(FAST, headers=HEADERS, scope=ScopePolicy.OFF)


async def test_every_request_of_a_run_carries_the_headers(aiohttp_server: AiohttpServer) -> None:
    """robots.txt (missing), the probe that finds the index, a same-host redirect, a child."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", status(404))
    s.add("/sitemap.xml", redirect(s.a("/maps/index.xml")))
    s.add("/maps/index.xml", xml(sitemapindex(s.a("/maps/a.xml"))))
    s.add("/maps/a.xml", xml(urlset(s.a("/p/1"))))

    run = await walk(s.a("/"), config=WITH_HEADERS)

    assert run.locs == [s.a("/p/1")]
    paths = s.site.paths()
    assert paths == ["/robots.txt", "/sitemap.xml", "/maps/index.xml", "/maps/a.xml"]
    for hit in s.site.hits:
        assert {k: hit.headers.get(k) for k, _ in HEADERS} == dict(HEADERS), hit.path
        assert hit.headers["User-Agent"] == FAST.user_agent


async def test_credentials_stay_behind_on_another_host(aiohttp_server: AiohttpServer) -> None:
    """A redirect to another host gets the caller's other headers, not its credentials; nor
    does any later hop, even one back to the first host."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/moved.xml"))))
    s.add("/moved.xml", redirect(s.b("/away.xml")), host="127.0.0.1")
    s.add("/away.xml", redirect(s.a("/back.xml")), host="localhost")
    s.add("/back.xml", xml(urlset(s.a("/p/1"))), host="127.0.0.1")

    run = await walk(s.a("/index.xml"), config=WITH_HEADERS)

    assert run.locs == [s.a("/p/1")]
    sent = {(h.host, h.path): h.headers for h in s.site.hits}
    for first in (("127.0.0.1", "/index.xml"), ("127.0.0.1", "/moved.xml")):
        assert sent[first]["Authorization"] == SECRET
        assert sent[first]["Cookie"] == "session=s3cret"
    for later in (("localhost", "/away.xml"), ("127.0.0.1", "/back.xml")):
        assert "Authorization" not in sent[later] and "Cookie" not in sent[later]
        assert sent[later]["X-Crawl-Id"] == "run-7"


async def test_a_header_wins_over_the_session_and_goes_through_a_callers_session(
    aiohttp_server: AiohttpServer,
) -> None:
    s = await serve(aiohttp_server)
    s.add("/s.xml", xml(urlset(s.a("/p/1"))))
    config = dataclasses.replace(FAST, headers=(("User-Agent", "my-crawler/2"), ("X-A", "1")))

    await walk(s.a("/s.xml"), config=config)
    async with aiohttp.ClientSession() as session, SitemapReader(config, session=session) as r:
        assert [e.loc async for e in r.entries(s.a("/s.xml"))] == [s.a("/p/1")]

    assert [(h["User-Agent"], h["X-A"]) for h in s.site.headers("/s.xml")] == [
        ("my-crawler/2", "1")
    ] * 2


async def test_a_secret_is_never_shown(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/gone.xml"), s.a("/deny.xml"))))
    s.add("/deny.xml", status(401))

    run = await walk(s.a("/index.xml"), config=WITH_HEADERS)

    assert len(run.problems) == 2
    assert all("s3cret" not in str(p) for p in run.problems)
    assert "s3cret" not in repr(WITH_HEADERS) and "s3cret" not in repr(run.events)


@pytest.mark.parametrize(
    ("headers", "error", "says"),
    [
        ((("Accept-Encoding", "identity"),), ValueError, "Accept-Encoding header is the reader's"),
        ((("If-None-Match", '"x"'),), ValueError, "If-None-Match header is the reader's"),
        ((("X-A", "one\r\nX-B: two"),), ValueError, "the X-A header holds a line break"),
        ((("Bearer s3cret", "x"),), ValueError, "(it is not shown: it may hold a secret)"),
        ((("X-A", 3),), TypeError, "the value of the X-A header must be a str"),
    ],
)
def test_bad_headers_are_refused_by_name(
    headers: tuple[tuple[str, object], ...], error: type[Exception], says: str
) -> None:
    with pytest.raises(error) as raised:
        ReaderConfig(headers=headers)  # type: ignore[arg-type]
    assert says in str(raised.value)
    assert "s3cret" not in str(raised.value)


@pytest.mark.parametrize(
    ("target", "kept"),
    [
        ("http://example.com/b.xml", True),
        ("https://example.com/b.xml", True),  # the same host, upgraded on the default ports
        ("http://example.com:8080/b.xml", False),
        ("http://cdn.example.com/b.xml", False),
        ("http://example.org/b.xml", False),
    ],
)
def test_which_redirects_keep_credentials(target: str, kept: bool) -> None:
    assert keeps_credentials(URL("http://example.com/a.xml"), URL(target)) is kept
    # Never downgraded: https -> http drops them.
    assert not keeps_credentials(URL("https://example.com/a.xml"), URL("http://example.com/"))
