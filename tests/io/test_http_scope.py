"""Scope over a real server: path prefix, port, scheme, host, cross-submission, index children.

127.0.0.1 and localhost reach the same server but are different hosts to the reader, so
every cross-host case here is real; a second server gives a real other port.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import ScopePolicy, Status
from tests.support.http_site import (
    FAST,
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

HOST = dataclasses.replace(FAST, scope=ScopePolicy.HOST)
OFF = dataclasses.replace(FAST, scope=ScopePolicy.OFF)


# -- page URLs ---------------------------------------------------------------------------------


async def test_direct_sitemap_keeps_its_folder_only(aiohttp_server: AiohttpServer) -> None:
    """A sitemap given directly may list URLs under its own folder, nothing else."""
    s = await serve(aiohttp_server)
    listed = [
        s.a("/catalog/a"),
        s.a("/catalog/sub/b"),
        s.a("/other/c"),
        s.a("/catalogue-d"),  # a string prefix of the folder name, not inside the folder
        s.a("/"),
    ]
    s.add("/catalog/sitemap.xml", xml(urlset(*listed)))

    run = await walk(s.a("/catalog/sitemap.xml"))

    assert run.locs == listed[:2]
    report = run.report(s.a("/catalog/sitemap.xml"))
    assert report.dropped == (("outside-folder", 3),)
    assert report.entries == 2


async def test_scheme_port_and_subdomain_are_other_places(aiohttp_server: AiohttpServer) -> None:
    """Another scheme, another port and a subdomain are out of a sitemap's scope."""
    s = await serve(aiohttp_server)
    other = await serve(aiohttp_server)
    port = s.port
    listed = [
        s.b("/kept"),
        f"https://localhost:{port}/scheme",
        f"http://localhost:{other.port}/port",
        f"http://www.localhost:{port}/subdomain",
        "http://localhost/default-port",
        s.a("/other-host"),
    ]
    s.add("/sitemap.xml", xml(urlset(*listed)))

    run = await walk(s.b("/sitemap.xml"))

    assert run.locs == [s.b("/kept")]
    assert run.report(s.b("/sitemap.xml")).dropped == (
        ("other-host", 2),
        ("other-port", 2),
        ("other-scheme", 1),
    )


async def test_robots_vouches_for_its_whole_origin(aiohttp_server: AiohttpServer) -> None:
    """A sitemap named by robots.txt may list any URL on that robots.txt's exact origin."""
    s = await serve(aiohttp_server)
    other = await serve(aiohttp_server)
    s.add("/robots.txt", text(f"Sitemap: {s.a('/sitemaps/deep/s.xml')}\n"))
    listed = [
        s.a("/"),
        s.a("/products/1"),
        s.a("/sitemaps/deep/x"),
        f"http://127.0.0.1:{other.port}/port",
        f"https://127.0.0.1:{s.port}/scheme",
        s.b("/host"),
    ]
    s.add("/sitemaps/deep/s.xml", xml(urlset(*listed)))

    run = await walk(s.a("/"))

    assert run.locs == listed[:3]
    assert run.report(s.a("/sitemaps/deep/s.xml")).dropped == (
        ("other-host", 1),
        ("other-port", 1),
        ("other-scheme", 1),
    )


async def test_cross_submission(aiohttp_server: AiohttpServer) -> None:
    """A sitemap on host B named by host A's robots.txt may list A's URLs (A's exact origin),
    plus the B URLs its own location allows."""
    s = await serve(aiohttp_server)
    other = await serve(aiohttp_server)
    s.add("/robots.txt", text(f"Sitemap: {s.b('/maps/cross.xml')}\n"), host="127.0.0.1")
    listed = [
        s.a("/a-page"),
        s.a("/deep/a-page"),
        s.b("/maps/b-page"),
        s.b("/b-elsewhere"),  # B's own URLs follow the location rule alone
        f"https://127.0.0.1:{s.port}/a-other-scheme",
        f"http://127.0.0.1:{other.port}/a-other-port",
    ]
    s.add("/maps/cross.xml", xml(urlset(*listed)), host="localhost")

    run = await walk(s.a("/"))

    assert run.locs == listed[:3]
    assert s.count("/maps/cross.xml", host="localhost") == 1
    report = run.report(s.b("/maps/cross.xml"))
    assert report.status is Status.OK
    assert report.dropped == (("other-host", 2), ("outside-folder", 1))


async def test_sitemap_on_b_never_vouches_for_a_by_itself(aiohttp_server: AiohttpServer) -> None:
    """A sitemap on host B lists no host-A URL, whether given directly or named by B's robots."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text(f"Sitemap: {s.b('/s.xml')}\n"), host="localhost")
    s.add("/s.xml", xml(urlset(s.a("/a-page"), s.b("/b-page"))), host="localhost")

    for source in (s.b("/s.xml"), s.b("/")):
        run = await walk(source)
        assert run.locs == [s.b("/b-page")], source
        assert run.report(s.b("/s.xml")).dropped == (("other-host", 1),)


async def test_redirected_sitemap_judged_on_its_final_url(aiohttp_server: AiohttpServer) -> None:
    """A sitemap that redirects to another host lists that host's URLs, not the first one's."""
    s = await serve(aiohttp_server)
    s.add("/s.xml", redirect(s.b("/s.xml")), host="127.0.0.1")
    s.add("/s.xml", xml(urlset(s.a("/a-page"), s.b("/b-page"))), host="localhost")

    run = await walk(s.a("/s.xml"))

    assert run.locs == [s.b("/b-page")]
    report = run.report(s.a("/s.xml"))
    assert (report.final_url, report.dropped) == (s.b("/s.xml"), (("other-host", 1),))
    assert run.entries[0].sitemap == s.b("/s.xml")


async def test_scope_host(aiohttp_server: AiohttpServer) -> None:
    """``ScopePolicy.HOST`` keeps any URL on the sitemap's host, whatever scheme, port, folder."""
    s = await serve(aiohttp_server)
    other = await serve(aiohttp_server)
    listed = [
        s.a("/other-folder"),
        f"https://127.0.0.1:{s.port}/scheme",
        f"http://127.0.0.1:{other.port}/port",
        s.b("/other-host"),
    ]
    s.add("/catalog/s.xml", xml(urlset(*listed)))

    run = await walk(s.a("/catalog/s.xml"), config=HOST)

    assert run.locs == listed[:3]
    assert run.report(s.a("/catalog/s.xml")).dropped == (("other-host", 1),)


async def test_scope_off(aiohttp_server: AiohttpServer) -> None:
    """``ScopePolicy.OFF`` keeps every URL and follows index children on any host."""
    s = await serve(aiohttp_server)
    listed = [s.a("/x"), s.b("/y"), "https://example.invalid/z"]
    s.add("/catalog/index.xml", xml(sitemapindex(s.b("/elsewhere.xml"))), host="127.0.0.1")
    s.add("/elsewhere.xml", xml(urlset(*listed)), host="localhost")

    run = await walk(s.a("/catalog/index.xml"), config=OFF)

    assert run.locs == listed
    assert run.report(s.b("/elsewhere.xml")).dropped == ()


# -- index children -----------------------------------------------------------------------------


async def test_out_of_scope_index_children_are_never_fetched(
    aiohttp_server: AiohttpServer,
) -> None:
    """A direct index may name sitemaps on its own origin (any folder); children on another host
    or port are reported and never requested."""
    s = await serve(aiohttp_server)
    other = await serve(aiohttp_server)
    s.add(
        "/idx/index.xml",
        xml(
            sitemapindex(
                s.a("/idx/child.xml"),
                s.a("/elsewhere/child.xml"),
                s.b("/idx/child.xml"),
                f"http://127.0.0.1:{other.port}/idx/child.xml",
            )
        ),
    )
    s.add("/idx/child.xml", xml(urlset(s.a("/idx/page"))))
    s.add("/elsewhere/child.xml", xml(urlset(s.a("/elsewhere/page"))))
    other.add("/idx/child.xml", xml(urlset(s.a("/idx/other-port-page"))))

    run = await walk(s.a("/idx/index.xml"))

    assert sorted(run.locs) == [s.a("/elsewhere/page"), s.a("/idx/page")]
    assert s.site.paths(host="localhost") == []
    assert other.site.paths() == []
    refused = sorted(p.url for p in run.problems if p.kind == "out-of-scope")
    assert refused == sorted(
        [s.b("/idx/child.xml"), f"http://127.0.0.1:{other.port}/idx/child.xml"]
    )
    assert all(s.a("/idx/index.xml") in p.message for p in run.problems)


async def test_vouched_index_children(aiohttp_server: AiohttpServer) -> None:
    """An index named by A's robots.txt may name children anywhere on A, not on another host."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text(f"Sitemap: {s.a('/maps/index.xml')}\n"))
    s.add(
        "/maps/index.xml",
        xml(sitemapindex(s.a("/other/child.xml"), s.b("/child.xml"))),
        host="127.0.0.1",
    )
    s.add("/other/child.xml", xml(urlset(s.a("/root-page"))))
    s.add("/child.xml", xml(urlset(s.b("/b-page"))))

    run = await walk(s.a("/"))

    assert run.locs == [s.a("/root-page")]
    assert s.site.paths(host="localhost") == []
    assert run.problem("out-of-scope").url == s.b("/child.xml")


async def test_cross_submitted_index_may_name_children_on_both_hosts(
    aiohttp_server: AiohttpServer,
) -> None:
    """An index on B named by A's robots.txt may name sitemaps on B (its own origin) and on A
    (the vouching origin); their entries may list A's URLs."""
    s = await serve(aiohttp_server)
    other = await serve(aiohttp_server)
    s.add("/robots.txt", text(f"Sitemap: {s.b('/index.xml')}\n"), host="127.0.0.1")
    s.add(
        "/index.xml",
        xml(
            sitemapindex(
                s.a("/on-a.xml"),
                s.b("/sub/on-b.xml"),
                f"http://localhost:{other.port}/on-other-port.xml",
            )
        ),
        host="localhost",
    )
    s.add("/on-a.xml", xml(urlset(s.a("/a1"))), host="127.0.0.1")
    s.add("/sub/on-b.xml", xml(urlset(s.a("/a2"), s.b("/sub/b1"), s.b("/b2"))), host="localhost")
    other.add("/on-other-port.xml", xml(urlset(s.a("/a3"))))

    run = await walk(s.a("/"))

    assert sorted(run.locs) == sorted([s.a("/a1"), s.a("/a2"), s.b("/sub/b1")])
    assert run.report(s.b("/sub/on-b.xml")).dropped == (("outside-folder", 1),)
    assert other.site.paths() == []
    assert run.problem("out-of-scope").url == f"http://localhost:{other.port}/on-other-port.xml"


async def test_child_redirecting_out_of_scope_is_skipped(aiohttp_server: AiohttpServer) -> None:
    """An index child that redirects to another host is skipped as out of scope, unread."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/child.xml"))), host="127.0.0.1")
    s.add("/child.xml", redirect(s.b("/child.xml")), host="127.0.0.1")
    s.add("/child.xml", xml(urlset(s.b("/b-page"))), host="localhost")

    run = await walk(s.a("/index.xml"))

    assert run.entries == []
    report = run.report(s.a("/child.xml"))
    assert (report.status, report.final_url) == (Status.SKIPPED, s.b("/child.xml"))
    assert [p.kind for p in report.problems] == ["out-of-scope"]
    assert report.problems[0].url == s.a("/child.xml")
    assert s.b("/child.xml") in report.problems[0].message


async def test_scope_is_judged_once_on_the_final_url(aiohttp_server: AiohttpServer) -> None:
    """A hop through another host is no fault when the chain ends in scope; a chain that
    ends out of scope is refused there, its body unread."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/through.xml"), s.a("/away.xml"))))
    s.add("/through.xml", redirect(s.b("/hop")))
    s.add("/hop", redirect(s.a("/real.xml")), host="localhost")
    s.add("/real.xml", xml(urlset(s.a("/kept"))))
    s.add("/away.xml", redirect(s.b("/away.xml")))
    s.add("/away.xml", xml(urlset(s.b("/b-page"))), host="localhost")

    run = await walk(s.a("/index.xml"))

    assert run.locs == [s.a("/kept")]
    assert run.report(s.a("/through.xml")).status is Status.OK
    away = run.report(s.a("/away.xml"))
    assert away.status is Status.SKIPPED
    assert away.entries == 0
    assert f"redirected to {s.b('/away.xml')}, out of scope" in away.problems[0].message


async def test_child_redirecting_out_of_scope_stays_skipped_after_a_retry(
    aiohttp_server: AiohttpServer,
) -> None:
    """A redirect out of scope is refused also when the first try at the target failed (503)."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/child.xml"))), host="127.0.0.1")
    s.add("/child.xml", redirect(s.b("/child.xml")), host="127.0.0.1")
    s.add("/child.xml", sequence(status(503), xml(urlset(s.b("/b-page")))), host="localhost")

    run = await walk(s.a("/index.xml"))

    assert run.entries == []
    assert run.report(s.a("/child.xml")).status is Status.SKIPPED


async def test_scope_host_lets_children_on_other_ports_in(aiohttp_server: AiohttpServer) -> None:
    """Under ``ScopePolicy.HOST`` an index may name sitemaps on its host at another port, and
    still not on another host."""
    s = await serve(aiohttp_server)
    other = await serve(aiohttp_server)
    other_child = f"http://127.0.0.1:{other.port}/child.xml"
    s.add("/index.xml", xml(sitemapindex(other_child, s.b("/child.xml"))))
    other.add("/child.xml", xml(urlset(f"http://127.0.0.1:{other.port}/page")))

    run = await walk(s.a("/index.xml"), config=HOST)

    assert run.locs == [f"http://127.0.0.1:{other.port}/page"]
    assert other.site.paths() == ["/child.xml"]
    assert s.site.paths(host="localhost") == []


async def test_local_index_has_no_scope_but_its_children_do(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """A local file's own entries are all kept; the remote sitemaps it names get their own scope."""
    s = await serve(aiohttp_server)
    local = tmp_path / "index.xml"
    local.write_text(sitemapindex(s.a("/maps/child.xml")))
    s.add("/maps/child.xml", xml(urlset(s.a("/maps/in"), s.a("/out"), s.b("/maps/in"))))
    page_list = tmp_path / "pages.txt"
    page_list.write_text(f"{s.a('/x')}\nhttps://example.invalid/y\n")

    run = await walk(str(local), str(page_list))

    assert sorted(run.locs) == sorted([s.a("/maps/in"), s.a("/x"), "https://example.invalid/y"])
    assert run.report(s.a("/maps/child.xml")).dropped == (
        ("other-host", 1),
        ("outside-folder", 1),
    )
    assert {e.sitemap for e in run.entries if e.loc == s.a("/x")} == {str(page_list)}
