"""The SSRF guard: documents may not send the reader to private addresses; sources may.

127.0.0.1 and localhost reach the same test server but are different hosts: a source on one
makes the other a host "the documents named", which resolves to loopback and is refused.
No test sends anything to any other address (the address tables are pure computation).
"""

from __future__ import annotations

import dataclasses
import socket
from pathlib import Path

import aiohttp
import pytest
from aiohttp.abc import AbstractResolver, ResolveResult
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import ReaderConfig, ScopePolicy, SitemapReader, Status
from sitemap_reader._io._http._guard import Guard, Refused, special
from sitemap_reader._io._http._resolver import GuardedResolver
from tests.support.cli import run_cli
from tests.support.http_site import (
    FAST,
    Run,
    ThreadedServer,
    redirect,
    serve,
    sitemapindex,
    text,
    urlset,
    walk,
    xml,
)

# Scope off: the scope rules alone already keep an index from naming another host; the
# guard is what still stands when scope is off, host-wide or vouched by robots.txt.
OPEN = dataclasses.replace(FAST, scope=ScopePolicy.OFF)
GUARDED = dataclasses.replace(OPEN, allow_private=False)


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),  # cloud metadata (AWS, GCP, Azure, ...)
        ("fe80::1%eth0", "link-local"),
        ("fd00:ec2::254", "private"),  # AWS metadata over IPv6
        ("100.100.100.200", "special-purpose"),  # Alibaba metadata, shared space 100.64/10
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("::ffff:127.0.0.1", "loopback"),  # IPv4-mapped
        ("::ffff:169.254.169.254", "link-local"),
        ("2002:7f00:1::", "loopback"),  # 6to4 around 127.0.0.1
        ("64:ff9b::a9fe:a9fe", "link-local"),  # NAT64 around 169.254.169.254
        ("192.0.2.1", "private"),  # documentation range
        ("93.184.216.34", None),
        ("8.8.8.8", None),
        ("2606:4700:4700::1111", None),
    ],
)
def test_special_addresses(address: str, why: str | None) -> None:
    assert special(address) == why


async def test_a_child_on_a_host_resolving_to_loopback_is_refused_unrequested(
    aiohttp_server: AiohttpServer,
) -> None:
    """An index on the source's host names a child on another host that resolves to
    loopback: nothing is sent there, a Problem names host and address, siblings are read."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.b("/evil.xml"), s.a("/good.xml"))))
    s.add("/good.xml", xml(urlset(s.a("/page"))))
    s.add("/evil.xml", xml(urlset(s.b("/secret"))))

    run = await walk(s.a("/index.xml"), config=GUARDED)

    assert run.locs == [s.a("/page")]
    assert s.site.paths(host="localhost") == []
    problem = run.problem("private-address")
    assert problem.url == s.b("/evil.xml")
    assert "localhost is at 127.0.0.1, a loopback address" in problem.message
    assert "--allow-private" in problem.message
    assert run.report(s.b("/evil.xml")).status is Status.FAILED


async def test_refusal_is_not_retried(aiohttp_server: AiohttpServer) -> None:
    """A refusal is final: the guard is asked once, not once per attempt."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.b("/evil.xml"))))

    async with SitemapReader(GUARDED) as reader:
        run = Run([e async for e in reader.walk(s.a("/index.xml"))])

    assert run.kinds == ["private-address"]
    assert reader.progress.failed == 1
    assert s.site.paths() == ["/index.xml"]


async def test_robots_sitemap_line_to_loopback_is_refused(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text(f"Sitemap: {s.b('/s.xml')}\nSitemap: {s.a('/ok.xml')}\n"))
    s.add("/ok.xml", xml(urlset(s.a("/page"))))
    s.add("/s.xml", xml(urlset(s.b("/page"))))

    run = await walk(s.a("/"), config=GUARDED)

    assert run.locs == [s.a("/page")]
    assert s.site.paths(host="localhost") == []
    assert run.problem("private-address").url == s.b("/s.xml")


async def test_redirect_to_loopback_is_refused_before_it_is_followed(
    aiohttp_server: AiohttpServer,
) -> None:
    """The source's own host redirects to another host that is loopback: the hop is not
    requested, even though the first URL was the user's own."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", redirect(s.b("/internal.xml")))
    s.add("/internal.xml", xml(urlset(s.b("/page"))))

    run = await walk(s.a("/sitemap.xml"), config=GUARDED)

    assert run.entries == []
    assert s.site.paths() == ["/sitemap.xml"]
    assert run.problem("private-address").url == s.a("/sitemap.xml")


async def test_an_ip_literal_named_by_a_document_is_refused_before_a_request(
    aiohttp_server: AiohttpServer,
) -> None:
    """aiohttp connects to IP literals without a resolver: the guard checks them first. The
    source here is on localhost, so 127.0.0.1 is the host the document named."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/literal.xml"), s.b("/own.xml"))))
    s.add("/own.xml", xml(urlset(s.b("/page"))))

    run = await walk(s.b("/index.xml"), config=GUARDED)

    assert run.locs == [s.b("/page")]
    assert s.site.paths(host="127.0.0.1") == []
    assert "127.0.0.1 is at 127.0.0.1, a loopback address" in run.problem("private-address").message


async def test_sources_hosts_are_trusted_and_allow_private_opens_the_guard(
    aiohttp_server: AiohttpServer,
) -> None:
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/mine.xml"), s.b("/other.xml"))))
    s.add("/mine.xml", xml(urlset(s.a("/1"))))
    s.add("/other.xml", xml(urlset(s.b("/2"))))

    both = await walk(s.a("/index.xml"), s.b("/other.xml"), config=GUARDED)
    opened = await walk(s.a("/index.xml"), config=OPEN)

    # Two sources: both hosts are the user's own, so nothing is refused.
    assert sorted(both.locs) == [s.a("/1"), s.b("/2")]
    assert "private-address" not in both.kinds
    # allow_private: the index's cross-host child is fetched (and judged by scope alone).
    assert "private-address" not in opened.kinds
    assert s.count("/other.xml", host="localhost") == 2


async def test_guarded_resolver_filters_what_the_connector_sees() -> None:
    """The reader's own session resolves through the guard: an untrusted name that resolves
    only to loopback raises inside the connector; a trusted one passes unchanged."""
    guard = Guard(owns_resolver=True)
    resolver = GuardedResolver(guard)
    try:
        with pytest.raises(Refused) as refused:
            await resolver.resolve("localhost", 80)
        guard.trust("http://localhost/")
        trusted = await resolver.resolve("localhost", 80)
    finally:
        await resolver.close()
    assert refused.value.refusal.host == "localhost"
    assert trusted and all(r["host"] in ("127.0.0.1", "::1") for r in trusted)


class _Rebinding(AbstractResolver):
    """A caller's resolver that answers ``rebind.test`` with 127.0.0.1, a name the system
    resolver does not know: the name looks harmless when checked, and is loopback when used
    (what DNS rebinding does with a short TTL)."""

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        address = "127.0.0.1" if host.rstrip(".") == "rebind.test" else host
        return [
            {
                "hostname": host,
                "host": address,
                "port": port,
                "family": socket.AF_INET,
                "proto": 0,
                "flags": 0,
            }
        ]

    async def close(self) -> None:
        return None


async def test_rebinding_is_caught_on_the_connected_address(
    aiohttp_server: AiohttpServer,
) -> None:
    """With a caller's session the guard cannot resolve for the connector; it checks the
    socket's peer before reading: the name's answer at connect time is what counts."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(f"http://rebind.test:{s.port}/child.xml")))
    s.add("/child.xml", xml(urlset(f"http://rebind.test:{s.port}/page")))
    connector = aiohttp.TCPConnector(resolver=_Rebinding())
    async with (
        aiohttp.ClientSession(connector=connector) as session,
        SitemapReader(GUARDED, session=session) as reader,
    ):
        run = Run([e async for e in reader.walk(s.a("/index.xml"))])

    assert run.entries == []
    problem = run.problem("private-address")
    assert "rebind.test is at 127.0.0.1, a loopback address" in problem.message
    assert run.report(f"http://rebind.test:{s.port}/child.xml").status is Status.FAILED


def test_cli_refuses_then_allow_private_reads(tmp_path: Path) -> None:
    """A local file names no host, so every host it names is the documents' choice."""
    with ThreadedServer() as s:
        s.add("/c.xml", xml(urlset(s.a("/1"))))
        index = tmp_path / "index.xml"
        index.write_text(sitemapindex(s.a("/c.xml")))

        guarded = run_cli("dump", "--format", "txt", "--no-progress", str(index))
        opened = run_cli("dump", "--format", "txt", "--allow-private", str(index))

    assert guarded.stdout == b""
    assert "a loopback address" in guarded.stderr.decode()
    assert "[private-address]" in guarded.stderr.decode()
    assert opened.stdout.decode().split() == [s.a("/1")]


def test_allow_private_default_is_off() -> None:
    assert ReaderConfig().allow_private is False


async def test_non_http_urls_in_documents_are_refused_and_reported(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """file:, data:, ftp: and the like, named by robots.txt, an index, a urlset or a
    redirect, are never fetched or opened: each is dropped with a Problem."""
    secret = tmp_path / "secret.xml"
    secret.write_text(urlset("http://127.0.0.1/SECRET-PAGE"))
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text(f"Sitemap: {secret.as_uri()}\nSitemap: {s.a('/index.xml')}\n"))
    s.add(
        "/index.xml",
        xml(sitemapindex(secret.as_uri(), "data:text/xml,<urlset/>", s.a("/s.xml"), s.a("/r"))),
    )
    s.add("/s.xml", xml(urlset(s.a("/page"), secret.as_uri(), "ftp://127.0.0.1/f")))
    s.add("/r", redirect(secret.as_uri()))

    run = await walk(s.a("/"), config=GUARDED)

    assert run.locs == [s.a("/page")]
    assert "SECRET-PAGE" not in repr(run.events)
    messages = " ".join(p.message for p in run.problems)
    assert f"the Sitemap value {secret.as_uri()!r} is not an http(s) URL" in messages
    assert "not an absolute http(s) URL were dropped" in messages
    assert f"redirect to {secret.as_uri()!r}, which is not an http(s) URL" in messages
    assert run.report(s.a("/r")).status is Status.FAILED
