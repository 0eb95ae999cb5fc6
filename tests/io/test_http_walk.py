"""The walk over a real aiohttp server: formats, discovery, dedupe, depth, cycles, streaming."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from datetime import datetime, timezone

from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import (
    WELL_KNOWN_PATHS,
    Entry,
    Format,
    Limits,
    SitemapReader,
    SitemapVisited,
    Status,
)
from tests.support.http_site import (
    FAST,
    atom,
    gated,
    gz_file,
    gz_transport,
    html,
    redirect,
    rss,
    sequence,
    serve,
    sitemapindex,
    status,
    text,
    text_sitemap,
    urlset,
    walk,
    xml,
)

# -- formats -----------------------------------------------------------------------------------


async def test_index_children_in_every_format(aiohttp_server: AiohttpServer) -> None:
    """An index's children are read whatever they are: XML, .gz, transport gzip, text, RSS, Atom."""
    s = await serve(aiohttp_server)
    kids = {
        "/plain.xml": (xml, urlset, Format.URLSET),
        "/file.xml.gz": (gz_file, urlset, Format.URLSET),
        "/transport.xml": (gz_transport, urlset, Format.URLSET),
        "/list.txt": (text, text_sitemap, Format.TEXT),
        "/news.rss": (xml, rss, Format.RSS),
        "/news.atom": (xml, atom, Format.ATOM),
    }
    expected: dict[str, set[str]] = {}
    for path, (handler, document, _) in kids.items():
        name = path.strip("/").replace(".", "-")
        pages = [s.a(f"/{name}/{i}") for i in range(3)]
        expected[path] = set(pages)
        s.add(path, handler(document(*pages)))
    s.add("/index.xml", xml(sitemapindex(*(s.a(p) for p in kids))))

    run = await walk(s.a("/index.xml"))

    assert run.problems == []
    index = run.report(s.a("/index.xml"))
    assert (index.status, index.format, index.children) == (Status.OK, Format.SITEMAPINDEX, 6)
    for path, (_, _, fmt) in kids.items():
        got = {e.loc for e in run.entries if e.sitemap == s.a(path)}
        assert got == expected[path], path
        report = run.report(s.a(path))
        assert (report.status, report.format, report.entries, report.depth) == (
            Status.OK,
            fmt,
            3,
            1,
        )
        assert report.source == s.a("/index.xml")
        assert s.count(path) == 1
    assert len(run.entries) == 18
    # the .gz file is counted as sent (compressed), and it is smaller than what it holds
    assert 0 < run.report(s.a("/file.xml.gz")).bytes < len(urlset(*expected["/file.xml.gz"]))


async def test_fields_and_feed_dates_survive_http(aiohttp_server: AiohttpServer) -> None:
    """lastmod, changefreq and priority arrive parsed, and a feed's pubDate becomes lastmod."""
    s = await serve(aiohttp_server)
    s.add(
        "/sitemap.xml",
        xml(
            urlset(
                {
                    "loc": s.a("/a"),
                    "lastmod": "2024-05-01T10:00:00+02:00",
                    "changefreq": "daily",
                    "priority": "0.8",
                },
                s.a("/b"),
            )
        ),
    )
    s.add("/feed.rss", xml(rss(s.a("/c"))))

    run = await walk(s.a("/sitemap.xml"), s.a("/feed.rss"))

    by_loc = {e.loc: e for e in run.entries}
    a = by_loc[s.a("/a")]
    assert a.lastmod == datetime(2024, 5, 1, 8, 0, tzinfo=timezone.utc)
    assert (str(a.changefreq), a.priority, a.sitemap) == ("daily", 0.8, s.a("/sitemap.xml"))
    b = by_loc[s.a("/b")]
    assert (b.lastmod, b.changefreq, b.priority) == (None, None, None)
    assert by_loc[s.a("/c")].lastmod == datetime(2024, 5, 1, 10, 0, tzinfo=timezone.utc)


# -- discovery ------------------------------------------------------------------------------------


async def test_site_root_follows_every_robots_sitemap_line(aiohttp_server: AiohttpServer) -> None:
    """A site root reads robots.txt and follows every Sitemap: line: any case, any place, BOM,
    CRLF, comments, and relative values resolved and reported."""
    s = await serve(aiohttp_server)
    robots = (
        "\ufeffSITEMAP: " + s.a("/first.xml") + "\r\n"
        "User-agent: *\r\n"
        "Disallow: /private\r\n"
        "  sitemap:" + s.a("/in-group.xml") + "   # a comment\r\n"
        "# Sitemap: " + s.a("/commented-out.xml") + "\r\n"
        "\r\n"
        "User-agent: other\r\n"
        "Allow: /\r\n"
        "Sitemap: /relative.xml\r\n"
        "SiteMap: " + s.a("/last.xml")  # no line end at all
    )
    s.add("/robots.txt", text(robots.encode("utf-8")))
    names = ["first", "in-group", "relative", "last", "commented-out"]
    for name in names:
        s.add(f"/{name}.xml", xml(urlset(s.a(f"/{name}/page"))))

    run = await walk(s.a("/"))

    assert sorted(run.locs) == sorted(s.a(f"/{n}/page") for n in names[:4])
    assert s.count("/commented-out.xml") == 0
    for name in names[:4]:
        assert s.count(f"/{name}.xml") == 1
        report = run.report(s.a(f"/{name}.xml"))
        assert (report.status, report.depth, report.source) == (
            Status.OK,
            0,
            s.a("/robots.txt"),
        )
    robots_report = run.report(s.a("/robots.txt"))
    assert (robots_report.status, robots_report.format, robots_report.children) == (
        Status.OK,
        Format.ROBOTS,
        4,
    )
    resolved = run.problem("relative-loc-resolved")
    assert resolved.url == s.a("/robots.txt")
    assert s.a("/relative.xml") in resolved.message
    # no well-known path is probed when robots.txt names sitemaps
    assert not set(WELL_KNOWN_PATHS) & set(s.site.paths())


async def test_robots_url_as_source(aiohttp_server: AiohttpServer) -> None:
    """A robots.txt URL given as the source is read as robots.txt, not as a sitemap."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text(f"Sitemap: {s.a('/s.xml')}\n"))
    s.add("/s.xml", xml(urlset(s.a("/p"))))

    run = await walk(s.a("/robots.txt"))

    assert run.locs == [s.a("/p")]
    assert run.report(s.a("/robots.txt")).format is Format.ROBOTS


async def test_robots_404_falls_back_to_well_known_paths(aiohttp_server: AiohttpServer) -> None:
    """With no robots.txt, the well-known paths are probed in order up to the first sitemap."""
    s = await serve(aiohttp_server)
    s.add("/sitemap_index.xml", xml(sitemapindex(s.a("/child.xml"))))
    s.add("/child.xml", xml(urlset(s.a("/page"))))

    run = await walk(s.a("/"))

    assert run.locs == [s.a("/page")]
    assert s.site.paths() == ["/robots.txt", "/sitemap.xml", "/sitemap_index.xml", "/child.xml"]
    assert run.report(s.a("/robots.txt")).status is Status.MISSING
    missing = run.report(s.a("/sitemap.xml"))
    assert (missing.status, missing.problems) == (Status.MISSING, ())
    assert run.report(s.a("/sitemap_index.xml")).status is Status.OK
    assert run.problems == []


async def test_robots_naming_nothing_falls_back_to_well_known_paths(
    aiohttp_server: AiohttpServer,
) -> None:
    """A robots.txt without Sitemap: lines also sends the walk to the well-known paths."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text("User-agent: *\nDisallow: /admin\n"))
    s.add("/sitemap.xml", xml(urlset(s.a("/page"))))

    run = await walk(s.a("/"))

    assert run.locs == [s.a("/page")]
    assert s.site.paths() == ["/robots.txt", "/sitemap.xml"]
    assert run.report(s.a("/robots.txt")).status is Status.OK


async def test_probing_turned_off(aiohttp_server: AiohttpServer) -> None:
    """``well_known_paths=()`` stops the walk at a robots.txt that names no sitemap."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", xml(urlset(s.a("/page"))))

    run = await walk(s.a("/"), config=dataclasses.replace(FAST, well_known_paths=()))

    assert run.entries == []
    assert s.site.paths() == ["/robots.txt"]


async def test_probing_turned_off_still_says_why_nothing_was_read(
    aiohttp_server: AiohttpServer,
) -> None:
    """With probing off, a robots.txt that names no sitemap is reported as a problem naming it."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text("User-agent: *\nDisallow:\n"))

    run = await walk(s.a("/"), config=dataclasses.replace(FAST, well_known_paths=()))

    problem = run.problem("no-sitemap")
    assert problem.url.startswith(f"http://127.0.0.1:{s.port}")
    assert "robots.txt names no sitemap" in problem.message


async def test_no_sitemap_anywhere_is_reported(aiohttp_server: AiohttpServer) -> None:
    """When robots.txt is missing and every well-known path is too, each is probed once and a
    no-sitemap problem names the site."""
    s = await serve(aiohttp_server)

    run = await walk(s.a("/"))

    assert s.site.paths() == ["/robots.txt", *WELL_KNOWN_PATHS]
    problem = run.problem("no-sitemap")
    assert problem.url == f"http://127.0.0.1:{s.port}"
    assert all(p in problem.message for p in WELL_KNOWN_PATHS)
    assert [r.status for r in run.reports[1:]] == [Status.MISSING] * len(WELL_KNOWN_PATHS)


async def test_soft_404_on_a_well_known_path_is_passed_over(aiohttp_server: AiohttpServer) -> None:
    """An HTML page served with 200 at a well-known path is not a sitemap: probing goes on."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", html())
    s.add("/sitemap_index.xml", html())
    s.add("/sitemap-index.xml", xml(urlset(s.a("/page"))))

    run = await walk(s.a("/"))

    assert run.locs == [s.a("/page")]
    for path in ("/sitemap.xml", "/sitemap_index.xml"):
        report = run.report(s.a(path))
        assert (report.status, report.format, report.entries) == (Status.MISSING, Format.HTML, 0)
        # a soft 404 is no sitemap: no URLs, one `html` problem (docs/problems.md)
        assert [(p.kind, p.url) for p in report.problems] == [("html", s.a(path))]
    assert s.site.paths()[-1] == "/sitemap-index.xml"


async def test_robots_5xx_means_complete_disallow(aiohttp_server: AiohttpServer) -> None:
    """A robots.txt that answers 5xx after every retry: the site is reported and not probed."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", status(503))
    s.add("/sitemap.xml", xml(urlset(s.a("/page"))))

    run = await walk(s.a("/"))

    assert run.entries == []
    assert s.site.paths() == ["/robots.txt"] * FAST.retry.attempts
    problem = run.problem("robots-unavailable")
    assert problem.url == s.a("/robots.txt")
    assert problem.message == (
        "HTTP 503 Service Unavailable: the site is taken as disallowing everything (RFC 9309) "
        "and is not probed further"
    )
    report = run.report(s.a("/robots.txt"))
    assert (report.status, report.http_status) == (Status.FAILED, 503)


async def test_robots_4xx_other_than_404_means_no_directives(
    aiohttp_server: AiohttpServer,
) -> None:
    """A robots.txt answering 403 is a missing robots.txt (RFC 9309): probing goes on, no retry."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", status(403))
    s.add("/sitemap.xml", xml(urlset(s.a("/page"))))

    run = await walk(s.a("/"))

    assert run.locs == [s.a("/page")]
    assert s.count("/robots.txt") == 1


# -- each sitemap once ----------------------------------------------------------------------------


async def test_each_sitemap_fetched_once_after_normalisation(
    aiohttp_server: AiohttpServer,
) -> None:
    """Spellings of one URL (case, dot segments, escapes, fragment) and repeated mentions by
    robots.txt and indexes are one document, fetched once."""
    s = await serve(aiohttp_server)
    port = s.port
    s.add(
        "/robots.txt",
        text(
            f"Sitemap: {s.a('/sitemap.xml')}\n"
            f"Sitemap: HTTP://127.0.0.1:{port}/a/../sitemap.xml\n"
            f"Sitemap: http://127.0.0.1:{port}/%73itemap.xml#top\n"
            f"Sitemap: {s.a('/index-1.xml')}\n"
            f"Sitemap: {s.a('/index-2.xml')}\n"
        ),
    )
    s.add("/index-1.xml", xml(sitemapindex(s.a("/sitemap.xml"), s.a("/shared.xml"))))
    s.add("/index-2.xml", xml(sitemapindex(s.a("/shared.xml"), s.a("/./sitemap.xml"))))
    s.add("/sitemap.xml", xml(urlset(s.a("/one"))))
    s.add("/shared.xml", xml(urlset(s.a("/two"))))

    run = await walk(s.a("/"), s.a("/robots.txt"), s.a("/sitemap.xml"))

    assert sorted(run.locs) == [s.a("/one"), s.a("/two")]
    for path in ("/robots.txt", "/sitemap.xml", "/shared.xml", "/index-1.xml", "/index-2.xml"):
        assert s.count(path) == 1, (path, s.site.paths())
    # the three repeats named by the indexes are reported as duplicates, without a problem
    duplicates = [r for r in run.reports if r.status is Status.DUPLICATE]
    assert len(duplicates) == 3
    assert {r.depth for r in duplicates} == {1}
    assert run.problems == []


async def test_redirect_onto_a_listed_sitemap_fetches_it_once(
    aiohttp_server: AiohttpServer,
) -> None:
    """A sitemap reached both directly and through a redirect is requested from the server once."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/old.xml"), s.a("/sitemap.xml"))))
    s.add("/old.xml", redirect(s.a("/sitemap.xml")))
    s.add("/sitemap.xml", xml(urlset(s.a("/page"))))

    run = await walk(s.a("/index.xml"))

    assert run.locs == [s.a("/page")]
    assert s.count("/sitemap.xml") == 1, s.site.paths()


async def test_redirect_onto_a_read_sitemap_is_a_duplicate(aiohttp_server: AiohttpServer) -> None:
    """A child redirecting to a sitemap this run already read is reported as a duplicate and its
    entries are not passed on twice."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", xml(urlset(s.a("/page"))))
    s.add("/moved.xml", redirect(s.a("/sitemap.xml")))
    config = dataclasses.replace(FAST, limits=Limits(max_concurrency=1))

    run = await walk(s.a("/sitemap.xml"), s.a("/moved.xml"), config=config)

    assert run.locs == [s.a("/page")]
    report = run.report(s.a("/moved.xml"))
    assert (report.status, report.final_url) == (Status.DUPLICATE, s.a("/sitemap.xml"))
    assert [p.kind for p in report.problems] == ["duplicate"]
    assert report.problems[0].url == s.a("/moved.xml")


async def test_redirect_onto_a_read_sitemap_stays_a_duplicate_after_a_retry(
    aiohttp_server: AiohttpServer,
) -> None:
    """A redirect onto a sitemap already read is a duplicate also when the first try at the
    target failed (503): its entries are not passed on twice."""
    s = await serve(aiohttp_server)
    body = urlset(s.a("/page"))
    s.add("/sitemap.xml", sequence(xml(body), status(503), xml(body)))
    s.add("/moved.xml", redirect(s.a("/sitemap.xml")))
    config = dataclasses.replace(FAST, limits=Limits(max_concurrency=1))

    run = await walk(s.a("/sitemap.xml"), s.a("/moved.xml"), config=config)

    assert run.locs == [s.a("/page")]
    assert run.report(s.a("/moved.xml")).status is Status.DUPLICATE


async def test_sitemap_urls_in_other_spellings_are_read(aiohttp_server: AiohttpServer) -> None:
    """A sitemap URL with non-ASCII characters, a space, a capitalised scheme or dot segments is
    read once, not taken for a duplicate of itself."""
    s = await serve(aiohttp_server)
    s.add("/caf%C3%A9.xml", xml(urlset(s.a("/p1"))))
    s.add("/a%20b.xml", xml(urlset(s.a("/p2"))))
    s.add("/sitemap.xml", xml(urlset(s.a("/p3"))))
    s.add("/robots.txt", text(f"Sitemap: {s.a('/café.xml')}\nSitemap: {s.a('/a b.xml')}\n"))
    dotted = f"HTTP://127.0.0.1:{s.port}/x/../sitemap.xml"

    run = await walk(s.a("/"), dotted)

    assert sorted(run.locs) == [s.a("/p1"), s.a("/p2"), s.a("/p3")]
    for name in (s.a("/café.xml"), s.a("/a b.xml"), dotted):
        report = run.report(name)
        assert (report.status, report.problems) == (Status.OK, ()), report
    assert [s.count(p) for p in ("/caf%C3%A9.xml", "/a%20b.xml", "/sitemap.xml")] == [1, 1, 1]


# -- depth and cycles ----------------------------------------------------------------------------


async def test_nested_indexes_followed_to_max_depth(aiohttp_server: AiohttpServer) -> None:
    """Indexes nest to ``max_depth`` (the first sitemap is depth 0); a deeper child is reported
    as too deep and never fetched."""
    s = await serve(aiohttp_server)
    for level in range(3):
        s.add(
            f"/level-{level}.xml",
            xml(sitemapindex(s.a(f"/level-{level + 1}.xml"), s.a(f"/leaf-{level}.xml"))),
        )
        s.add(f"/leaf-{level}.xml", xml(urlset(s.a(f"/page-{level}"))))
    s.add("/level-3.xml", xml(urlset(s.a("/deepest"))))
    config = dataclasses.replace(FAST, limits=Limits(max_depth=2))

    run = await walk(s.a("/level-0.xml"), config=config)

    assert sorted(run.locs) == [s.a("/page-0"), s.a("/page-1")]
    assert s.count("/level-3.xml") == 0
    assert s.count("/leaf-2.xml") == 0
    depths = {r.url: r.depth for r in run.reports}
    assert depths == {
        s.a("/level-0.xml"): 0,
        s.a("/level-1.xml"): 1,
        s.a("/leaf-0.xml"): 1,
        s.a("/level-2.xml"): 2,
        s.a("/leaf-1.xml"): 2,
    }
    too_deep = sorted(p.url for p in run.problems if p.kind == "too-deep")
    assert too_deep == [s.a("/leaf-2.xml"), s.a("/level-3.xml")]
    assert all("deeper than 2" in p.message for p in run.problems)


async def test_max_depth_zero_reads_the_index_only(aiohttp_server: AiohttpServer) -> None:
    """``max_depth=0`` reads the first index and reports its children as too deep."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/child.xml"))))
    s.add("/child.xml", xml(urlset(s.a("/page"))))
    config = dataclasses.replace(FAST, limits=Limits(max_depth=0))

    run = await walk(s.a("/index.xml"), config=config)

    assert run.entries == []
    assert s.count("/child.xml") == 0
    assert run.problem("too-deep").url == s.a("/child.xml")


async def test_self_listing_index_read_once(aiohttp_server: AiohttpServer) -> None:
    """An index that lists itself is read once, its self-reference reported as a cycle."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/index.xml"), s.a("/child.xml"))))
    s.add("/child.xml", xml(urlset(s.a("/page"))))

    run = await walk(s.a("/index.xml"))

    assert run.locs == [s.a("/page")]
    assert s.count("/index.xml") == 1
    cycle = run.problem("cycle")
    assert cycle.url == s.a("/index.xml")
    assert cycle in run.report(s.a("/index.xml")).problems


async def test_cyclic_indexes_read_once_each(aiohttp_server: AiohttpServer) -> None:
    """Indexes that name each other in a ring are each read once; the ring is reported."""
    s = await serve(aiohttp_server)
    s.add("/a.xml", xml(sitemapindex(s.a("/b.xml"), s.a("/a-leaf.xml"))))
    s.add("/b.xml", xml(sitemapindex(s.a("/c.xml"))))
    s.add("/c.xml", xml(sitemapindex(s.a("/a.xml"), s.a("/b.xml"))))
    s.add("/a-leaf.xml", xml(urlset(s.a("/page"))))

    run = await walk(s.a("/a.xml"))

    assert run.locs == [s.a("/page")]
    for path in ("/a.xml", "/b.xml", "/c.xml", "/a-leaf.xml"):
        assert s.count(path) == 1
    assert sorted(p.url for p in run.problems if p.kind == "cycle") == [
        s.a("/a.xml"),
        s.a("/b.xml"),
    ]
    assert run.report(s.a("/c.xml")).status is Status.OK


async def test_child_redirecting_to_its_parent_is_a_cycle(aiohttp_server: AiohttpServer) -> None:
    """A child whose redirect lands on its own parent index is reported as a cycle, not read."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/child.xml"), s.a("/leaf.xml"))))
    s.add("/child.xml", redirect(s.a("/index.xml")))
    s.add("/leaf.xml", xml(urlset(s.a("/page"))))

    run = await walk(s.a("/index.xml"))

    assert run.locs == [s.a("/page")]
    report = run.report(s.a("/child.xml"))
    assert (report.status, report.final_url) == (Status.CYCLE, s.a("/index.xml"))
    assert report.problems[0].url == s.a("/child.xml")
    assert s.a("/index.xml") in report.problems[0].message


# -- redirects --------------------------------------------------------------------------------


async def test_redirected_sitemap_entries_carry_final_url(aiohttp_server: AiohttpServer) -> None:
    """A sitemap reached through a chain of redirects is reported under its name, with its final
    URL, and its entries name the final URL in ``sitemap``."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", redirect("/moved/sitemap.xml", 301))
    s.add("/moved/sitemap.xml", redirect(s.a("/final/sitemap.xml"), 307))
    s.add("/final/sitemap.xml", xml(urlset(s.a("/final/a"), s.a("/final/b"))))

    run = await walk(s.a("/sitemap.xml"))

    assert run.locs == [s.a("/final/a"), s.a("/final/b")]
    assert {e.sitemap for e in run.entries} == {s.a("/final/sitemap.xml")}
    report = run.report(s.a("/sitemap.xml"))
    assert (report.status, report.final_url, report.http_status) == (
        Status.OK,
        s.a("/final/sitemap.xml"),
        200,
    )
    assert s.site.paths() == ["/sitemap.xml", "/moved/sitemap.xml", "/final/sitemap.xml"]


async def test_robots_txt_redirect_is_followed(aiohttp_server: AiohttpServer) -> None:
    """A redirected robots.txt is read at its final URL, whose origin then vouches."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", redirect("/real-robots.txt"))
    s.add("/real-robots.txt", text(f"Sitemap: {s.a('/sitemaps/s.xml')}\n"))
    s.add("/sitemaps/s.xml", xml(urlset(s.a("/at-root"))))

    run = await walk(s.a("/"))

    assert run.locs == [s.a("/at-root")]
    assert run.report(s.a("/robots.txt")).final_url == s.a("/real-robots.txt")


# -- streaming and reports ----------------------------------------------------------------------


async def test_entries_stream_before_a_slow_child_is_served(aiohttp_server: AiohttpServer) -> None:
    """The consumer gets the first child's entries while a later child is still being served."""
    s = await serve(aiohttp_server)
    gate = threading.Event()
    s.add("/index.xml", xml(sitemapindex(s.a("/fast.xml"), s.a("/slow.xml"))))
    s.add("/fast.xml", xml(urlset(s.a("/fast/1"), s.a("/fast/2"))))
    s.add("/slow.xml", gated(xml(urlset(s.a("/slow/1"))), gate, timeout=5.0))

    seen: list[str] = []
    first_at = 0.0
    async with SitemapReader(FAST) as reader:
        async for entry in reader.entries(s.a("/index.xml")):
            if not seen:
                first_at = time.monotonic()
                assert "/slow.xml" not in s.site.served_at, "the slow child was served first"
                gate.set()
            seen.append(entry.loc)

    assert seen == [s.a("/fast/1"), s.a("/fast/2"), s.a("/slow/1")]
    assert first_at < s.site.served_at["/slow.xml"]


async def test_walk_batches_and_progress(aiohttp_server: AiohttpServer) -> None:
    """``walk_batches`` yields every event in non-empty batches, and ``progress`` adds them up."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/a.xml"), s.a("/gone.xml"))))
    s.add("/a.xml", xml(urlset(*(s.a(f"/p{i}") for i in range(5)))))

    async with SitemapReader(FAST) as reader:
        batches = [batch async for batch in reader.walk_batches(s.a("/index.xml"))]
        progress = reader.progress

    assert batches and all(batch for batch in batches)
    events = [e for batch in batches for e in batch]
    assert sum(type(e) is Entry for e in events) == 5
    assert sum(type(e) is SitemapVisited for e in events) == 3
    assert (progress.done, progress.failed, progress.entries, progress.queued, progress.active) == (
        3,
        1,
        5,
        0,
        0,
    )
    assert progress.bytes > 0


async def test_reader_runs_sources_in_parallel(aiohttp_server: AiohttpServer) -> None:
    """Slow sitemaps are fetched concurrently, so the run takes about as long as the slowest."""
    s = await serve(aiohttp_server)
    gate = threading.Event()
    paths = [f"/s{i}.xml" for i in range(4)]
    for path in paths:
        s.add(path, gated(xml(urlset(s.a(path + "/page"))), gate, timeout=5.0))

    async def open_gate_when_all_arrived() -> None:
        for _ in range(300):
            if all(s.count(p) for p in paths):
                gate.set()
                return
            await asyncio.sleep(0.01)

    opener = asyncio.ensure_future(open_gate_when_all_arrived())
    run = await walk(*(s.a(p) for p in paths))
    await opener

    assert gate.is_set(), "the four requests were not in flight together"
    assert len(run.entries) == 4
