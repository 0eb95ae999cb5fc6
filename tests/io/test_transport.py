"""A caller's Transport carries every request of a walk, while the SSRF guard, redirects,
retries and budgets stay the reader's.

The transport here is aiohttp's own over a real session to a loopback server, wrapped to log
each GET it is asked for: what it logs is what a host framework's downloader would be asked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import aiohttp
import pytest
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import (
    Event,
    Limits,
    ReaderConfig,
    ScopePolicy,
    SitemapReader,
    Transport,
    TransportResponse,
)
from sitemap_reader._io._http._aiohttp import AiohttpTransport
from tests.support.http_site import (
    FAST,
    Run,
    redirect,
    sequence,
    serve,
    sitemapindex,
    status,
    text,
    urlset,
    xml,
)

GUARDED = dataclasses.replace(FAST, scope=ScopePolicy.OFF, allow_private=False)


class Logged:
    """A transport that logs each GET (URL and headers) and hands it to aiohttp's."""

    def __init__(self, session: aiohttp.ClientSession) -> None:
        self._inner = AiohttpTransport(session)
        self.gets: list[tuple[str, dict[str, str]]] = []

    async def get(
        self, url: str, headers: Mapping[str, str], *, proxy: str | None = None
    ) -> TransportResponse:
        self.gets.append((url, dict(headers)))
        return await self._inner.get(url, headers, proxy=proxy)

    @property
    def urls(self) -> list[str]:
        return [url for url, _ in self.gets]


async def walk_through(transport: Transport, source: str, config: ReaderConfig = FAST) -> Run:
    async with SitemapReader(config, transport=transport) as reader:
        events: list[Event] = [event async for event in reader.walk(source)]
    return Run(events)


async def test_every_request_goes_through_the_transport_one_hop_at_a_time(
    aiohttp_server: AiohttpServer,
) -> None:
    """robots.txt, a redirected index and a child retried after a 503: each GET is the
    transport's, each hop a GET of its own, each retry another; the server saw nothing else."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text(f"Sitemap: {s.a('/old.xml')}\n"))
    s.add("/old.xml", redirect(s.a("/index.xml")))
    s.add("/index.xml", xml(sitemapindex(s.a("/child.xml"))))
    s.add("/child.xml", sequence(status(503), xml(urlset(s.a("/page")))))

    async with aiohttp.ClientSession() as session:
        logged = Logged(session)
        run = await walk_through(logged, s.a("/"))

    assert run.locs == [s.a("/page")]
    paths = ["/robots.txt", "/old.xml", "/index.xml", "/child.xml", "/child.xml"]
    assert logged.urls == [s.a(p) for p in paths]
    assert s.site.paths() == paths
    assert all("Accept-Encoding" in headers for _, headers in logged.gets)
    assert run.report(s.a("/old.xml")).final_url == s.a("/index.xml")


async def test_the_guard_judges_a_documents_host_before_the_transport_is_asked(
    aiohttp_server: AiohttpServer,
) -> None:
    """With a caller's transport the guard cannot be its resolver: it resolves the name
    itself, and a child on a loopback host the documents named is never handed over."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.b("/internal.xml"))))
    s.add("/internal.xml", xml(urlset(s.b("/page"))))

    async with aiohttp.ClientSession() as session:
        logged = Logged(session)
        run = await walk_through(logged, s.a("/index.xml"), GUARDED)

    assert logged.urls == [s.a("/index.xml")]
    assert s.site.paths(host="localhost") == []
    problem = run.problem("private-address")
    assert problem.url == s.b("/internal.xml")
    assert "localhost" in problem.message


async def test_the_run_budget_holds_whatever_the_transport(
    aiohttp_server: AiohttpServer,
) -> None:
    """The run's body-byte budget is counted on what the transport hands over."""
    s = await serve(aiohttp_server)
    s.add("/s.xml", xml(urlset(*(s.a(f"/p{i}") for i in range(2000)))))
    config = dataclasses.replace(FAST, limits=Limits(max_total_bytes=10_000))

    async with aiohttp.ClientSession() as session:
        run = await walk_through(Logged(session), s.a("/s.xml"), config)

    problem = run.problem("max-total-bytes")
    assert problem.url == s.a("/s.xml")
    assert 0 < len(run.entries) < 2000


def test_a_session_and_a_transport_are_refused_together() -> None:
    with pytest.raises(ValueError, match="session or a transport"):
        SitemapReader(session=object(), transport=object())  # type: ignore[arg-type]
