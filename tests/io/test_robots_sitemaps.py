"""robots.txt and the sitemaps themselves (``ReaderConfig.robots``): a sitemap given directly
has its origin's robots.txt read (once a run, shared with a robots.txt job, nothing with
``ignore``), and under ``obey`` a sitemap whose own URL robots.txt disallows is not fetched."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import ProblemKind, ReaderConfig, RobotsPolicy, Status
from sitemap_reader._core._formats._robots_rules import WILDCARD_RULES_MAX
from tests.support.http_site import (
    FAST,
    Served,
    redirect,
    serve,
    sitemapindex,
    status,
    text,
    urlset,
    walk,
    xml,
)

OBEY = dataclasses.replace(FAST, robots=RobotsPolicy.OBEY)
REPORT = dataclasses.replace(FAST, robots=RobotsPolicy.REPORT)
RULES = "User-agent: *\nDisallow: /private/\nDisallow: /maps/\n"


def shop(s: Served) -> None:
    s.add("/robots.txt", text(RULES + f"Sitemap: {s.a('/index.xml')}\n"))
    s.add("/index.xml", xml(sitemapindex(s.a("/s.xml"), s.a("/maps/hidden.xml"))))
    s.add("/s.xml", xml(urlset(s.a("/a"), s.a("/private/1"), s.a("/private/2"))))
    s.add("/maps/hidden.xml", xml(urlset(s.a("/maps/h"))))
    s.add("/maps/given.xml", xml(urlset(s.a("/maps/g"))))


async def test_a_sitemap_given_directly_is_judged_by_its_sites_robots_txt(
    aiohttp_server: AiohttpServer,
) -> None:
    s = await serve(aiohttp_server)
    shop(s)
    run = await walk(s.a("/s.xml"), config=OBEY)
    assert sorted(run.locs) == [s.a("/a")]
    assert dict(run.report(s.a("/s.xml")).dropped) == {"robots": 2}
    assert "Disallow: /private/ (user-agent: *)" in run.problem("robots-disallowed").message
    # robots.txt names the index, not this sitemap (which the index lists): a notice.
    named = run.problem("sitemap-not-in-robots")
    assert named.url == s.a("/s.xml")
    assert s.a("/index.xml") in named.message and s.a("/robots.txt") in named.message
    assert named in run.report(s.a("/s.xml")).problems
    assert s.count("/robots.txt") == 1 and s.count("/index.xml") == 0  # rules, not a walk

    run = await walk(s.a("/s.xml"), config=REPORT)
    assert len(run.locs) == 3
    assert run.problem("robots-disallowed").count == 2


async def test_the_site_and_its_sitemap_given_together_read_robots_txt_once(
    aiohttp_server: AiohttpServer,
) -> None:
    s = await serve(aiohttp_server)
    shop(s)
    run = await walk(s.a("/maps/given.xml"), s.a("/"), s.a("/s.xml"), config=REPORT)
    assert s.count("/robots.txt") == 1
    # /s.xml, named by the index as well, is read once (its other naming a duplicate).
    unnamed = [p.url for p in run.problems if p.kind == "sitemap-not-in-robots"]
    assert sorted(unnamed) == [s.a("/maps/given.xml"), s.a("/s.xml")]


async def test_ignore_reads_no_robots_txt_for_a_sitemap_given_directly(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """The default (ReaderConfig.robots None, a walk's: ignore) and ignore fetch nothing
    new; a local file has no origin whose robots.txt could be read."""
    s = await serve(aiohttp_server)
    shop(s)
    local = tmp_path / "s.xml"
    local.write_text(urlset(s.a("/private/1"), s.a("/maps/x")), encoding="utf-8")
    for config in (FAST, dataclasses.replace(FAST, robots=RobotsPolicy.IGNORE)):
        run = await walk(s.a("/s.xml"), config=config)
        assert len(run.locs) == 3 and not run.problems
    run = await walk(str(local), config=OBEY)
    assert len(run.locs) == 2 and not run.problems
    assert s.count("/robots.txt") == 0
    assert ReaderConfig().robots is None


async def test_obey_does_not_fetch_a_sitemap_robots_txt_disallows(
    aiohttp_server: AiohttpServer,
) -> None:
    """One an index names and one given directly: each reported skipped, with the rule and
    what is lost; ``report`` fetches them and says the same rule."""
    s = await serve(aiohttp_server)
    shop(s)
    run = await walk(s.a("/"), s.a("/maps/given.xml"), config=OBEY)
    assert s.count("/maps/hidden.xml") == 0 and s.count("/maps/given.xml") == 0
    assert sorted(run.locs) == [s.a("/a")]
    for path in ("/maps/hidden.xml", "/maps/given.xml"):
        report = run.report(s.a(path))
        assert report.status is Status.SKIPPED and report.http_status is None
        (problem,) = [p for p in report.problems if p.kind == "robots-disallowed-sitemap"]
        assert problem.url == s.a(path)
        assert "by Disallow: /maps/ (user-agent: *): not fetched" in problem.message
        assert "the URLs and sitemaps it lists are unknown" in problem.message
        assert problem in run.problems  # in the stream too

    run = await walk(s.a("/"), s.a("/maps/given.xml"), config=REPORT)
    assert s.count("/maps/hidden.xml") == 1 and s.count("/maps/given.xml") == 1
    assert {s.a("/maps/h"), s.a("/maps/g")} <= set(run.locs)
    for path in ("/maps/hidden.xml", "/maps/given.xml"):
        report = run.report(s.a(path))
        assert report.status is Status.OK
        (problem,) = [p for p in report.problems if p.kind == "robots-disallowed-sitemap"]
        assert "by Disallow: /maps/ (user-agent: *): crawlers that obey" in problem.message


async def test_obey_with_an_unreachable_robots_txt_fetches_no_sitemap_given_directly(
    aiohttp_server: AiohttpServer,
) -> None:
    s = await serve(aiohttp_server)
    s.add("/robots.txt", status(503))
    s.add("/s.xml", xml(urlset(s.a("/a"))))
    once = dataclasses.replace(FAST.retry, attempts=1)
    run = await walk(s.a("/s.xml"), config=dataclasses.replace(OBEY, retry=once))
    assert s.count("/s.xml") == 0 and not run.locs
    problem = run.problem("robots-disallowed-sitemap")
    assert "robots.txt unreachable (RFC 9309: disallow all)" in problem.message
    assert run.report(s.a("/s.xml")).status is Status.SKIPPED


async def test_obey_does_not_probe_a_well_known_path_robots_txt_disallows(
    aiohttp_server: AiohttpServer,
) -> None:
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text("User-agent: *\nDisallow: /sitemap.xml\n"))
    s.add("/sitemap.xml", xml(urlset(s.a("/a"))))
    s.add("/sitemap_index.xml", xml(urlset(s.a("/b"))))
    run = await walk(s.a("/"), config=OBEY)
    assert s.count("/sitemap.xml") == 0
    assert run.locs == [s.a("/b")]
    assert ProblemKind.ROBOTS_DISALLOWED_SITEMAP not in run.kinds  # a guess, nobody named it


async def test_obey_does_not_follow_a_redirect_to_a_sitemap_robots_txt_disallows(
    aiohttp_server: AiohttpServer,
) -> None:
    s = await serve(aiohttp_server)
    shop(s)
    s.add("/old.xml", redirect(s.a("/maps/given.xml")))
    run = await walk(s.a("/old.xml"), config=OBEY)
    assert s.count("/old.xml") == 1 and s.count("/maps/given.xml") == 0
    report = run.report(s.a("/old.xml"))
    assert report.status is Status.SKIPPED and not run.locs
    (problem,) = [p for p in report.problems if p.kind == "robots-disallowed-sitemap"]
    assert problem.url == s.a("/old.xml")
    assert f"redirects to {s.a('/maps/given.xml')}, which robots.txt disallows" in problem.message
    assert "by Disallow: /maps/ (user-agent: *): not followed (--robots obey)" in problem.message

    run = await walk(s.a("/old.xml"), config=REPORT)
    assert s.count("/maps/given.xml") == 1 and run.locs == [s.a("/maps/g")]


async def test_a_robots_txt_past_the_bound_on_rules_with_star_is_read_up_to_it(
    aiohttp_server: AiohttpServer,
) -> None:
    """A group of more rules with "*" than the matcher keeps (each is tried on every URL):
    the first ``WILDCARD_RULES_MAX`` are obeyed, the rest left out, and a problem on the
    robots.txt says how many; the URLs only those would disallow are kept."""
    s = await serve(aiohttp_server)
    wild = "".join(f"Disallow: /*?id={i}$\n" for i in range(WILDCARD_RULES_MAX + 2))
    s.add("/robots.txt", text(f"User-agent: *\nDisallow: /private/\n{wild}"
                              f"Sitemap: {s.a('/s.xml')}\n"))  # fmt: skip
    listed = ["/a", "/private/1", "/p?id=0", f"/p?id={WILDCARD_RULES_MAX - 1}",
              f"/p?id={WILDCARD_RULES_MAX}", f"/p?id={WILDCARD_RULES_MAX + 1}"]  # fmt: skip
    s.add("/s.xml", xml(urlset(*map(s.a, listed))))
    run = await walk(s.a("/"), config=OBEY)
    assert sorted(run.locs) == sorted(s.a(p) for p in (listed[0], *listed[4:]))
    assert dict(run.report(s.a("/s.xml")).dropped) == {"robots": 3}
    dropped = run.problem("robots-rules-dropped")
    assert (dropped.url, dropped.count) == (s.a("/robots.txt"), 2)
    assert "2 rules of user-agent *" in dropped.message
    assert dropped in run.report(s.a("/robots.txt")).problems
