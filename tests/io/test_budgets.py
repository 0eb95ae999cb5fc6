"""Run-wide budgets: sitemaps (per run and per site), entries, body bytes, the deadline.

Reaching one stops new work, keeps what was read, says which budget once, and never lets
the frontier outgrow it.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from aiohttp import web
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import Event, Limits, ReaderConfig, SitemapReader, Status, Timeouts
from tests.support.cli import run_cli
from tests.support.http_site import (
    FAST,
    Run,
    Served,
    ThreadedServer,
    html,
    serve,
    sitemapindex,
    status,
    text,
    urlset,
    xml,
)


def _with(**limits: Any) -> ReaderConfig:
    return dataclasses.replace(
        FAST, limits=dataclasses.replace(Limits(max_concurrency=1), **limits)
    )


def _three_sitemaps(s: Served, per: int = 10) -> None:
    s.add("/index.xml", xml(sitemapindex(*(s.a(f"/m{i}.xml") for i in range(3)))))
    for i in range(3):
        s.add(f"/m{i}.xml", xml(urlset(*(s.a(f"/m{i}/p{j}") for j in range(per)))))


async def _run(config: ReaderConfig, *sources: str) -> tuple[Run, SitemapReader]:
    async with SitemapReader(config) as reader:
        return Run([e async for e in reader.walk(*sources)]), reader


def test_defaults_bound_a_run() -> None:
    """Every budget has a default, so a default run against a hostile site ends."""
    limits, timeouts = Limits(), Timeouts()
    assert timeouts.deadline == 3600.0
    assert limits.max_sitemaps == 100_000
    assert limits.max_sitemaps_per_site == 20_000
    assert limits.max_entries == 100_000_000
    assert limits.max_total_bytes == 16 * 1024**3


async def test_max_entries_cuts_mid_document_and_skips_the_rest(
    aiohttp_server: AiohttpServer,
) -> None:
    s = await serve(aiohttp_server)
    _three_sitemaps(s)

    run, reader = await _run(_with(max_entries=15), s.a("/index.xml"))

    assert run.locs == [s.a(f"/m0/p{j}") for j in range(10)] + [s.a(f"/m1/p{j}") for j in range(5)]
    assert run.report(s.a("/m0.xml")).status is Status.OK
    cut = run.report(s.a("/m1.xml"))
    assert (cut.status, cut.entries) == (Status.PARTIAL, 5)
    assert run.report(s.a("/m2.xml")).status is Status.SKIPPED
    assert s.count("/m2.xml") == 0
    problem = run.problem("max-entries")
    assert problem.url == s.a("/m1.xml")
    assert "budget of 15 URLs" in problem.message
    assert reader.progress.budget == "max-entries"
    assert reader.progress.entries == 15


async def test_max_total_bytes_stops_reading_and_keeps_what_came(
    aiohttp_server: AiohttpServer,
) -> None:
    s = await serve(aiohttp_server)
    _three_sitemaps(s, per=2000)
    first = len(urlset(*(s.a(f"/m0/p{j}") for j in range(2000))).encode())
    index = len(sitemapindex(*(s.a(f"/m{i}.xml") for i in range(3))).encode())

    run, reader = await _run(_with(max_total_bytes=index + first + 1000), s.a("/index.xml"))

    m0 = [loc for loc in run.locs if "/m0/" in loc]
    m1 = [loc for loc in run.locs if "/m1/" in loc]
    assert len(m0) == 2000
    assert 0 < len(m1) < 2000  # the second document was cut after its first piece
    assert run.report(s.a("/m1.xml")).status is Status.PARTIAL
    assert s.count("/m2.xml") == 0
    assert run.report(s.a("/m2.xml")).status is Status.SKIPPED
    assert run.kinds == ["max-total-bytes"]
    assert "budget of" in run.problems[0].message
    assert reader.progress.budget == "max-total-bytes"


async def test_max_sitemaps_per_site_applies_to_each_source(
    aiohttp_server: AiohttpServer,
) -> None:
    """Two sites in one run: each gets its own budget of documents; each says so once."""
    a = await serve(aiohttp_server)
    b = await serve(aiohttp_server)
    _three_sitemaps(a)
    _three_sitemaps(b)

    run, reader = await _run(_with(max_sitemaps_per_site=2), a.a("/index.xml"), b.a("/index.xml"))

    assert a.site.paths() == ["/index.xml", "/m0.xml"]
    assert b.site.paths() == ["/index.xml", "/m0.xml"]
    assert len(run.entries) == 20
    assert run.kinds == ["max-sitemaps-per-site", "max-sitemaps-per-site"]
    assert {p.url for p in run.problems} == {a.a("/m1.xml"), b.a("/m1.xml")}
    assert reader.progress.not_read == 4  # m1 and m2 of each site, never queued


async def test_sources_past_max_sitemaps_are_reported_not_read(
    aiohttp_server: AiohttpServer,
) -> None:
    s = await serve(aiohttp_server)
    _three_sitemaps(s)

    run, _ = await _run(_with(max_sitemaps=1), s.a("/m0.xml"), s.a("/m1.xml"), s.a("/m2.xml"))

    assert s.site.paths() == ["/m0.xml"]
    assert [r.status for r in run.reports] == [Status.OK, Status.SKIPPED, Status.SKIPPED]
    assert run.kinds == ["max-sitemaps"]


async def test_fan_out_keeps_the_frontier_within_the_budget(
    aiohttp_server: AiohttpServer,
) -> None:
    """Indexes of 2,000 indexes each, generated on request: with a budget of 200 documents
    the run asks for 200, never queues more, stops parsing each index once the budget is
    spent, and ends promptly."""
    s = await serve(aiohttp_server)
    fan = 2_000

    async def index(request: web.Request) -> web.Response:
        n = int(request.match_info.get("tail", "x/0").rsplit("/", 1)[-1].removesuffix(".xml"))
        kids = (s.a(f"/fan/{n * fan + k + 1}.xml") for k in range(fan))
        return web.Response(body=sitemapindex(*kids).encode(), content_type="application/xml")

    s.add("/fan/0.xml", index)
    for n in range(1, 400):
        s.add(f"/fan/{n}.xml", index)
    queued = 0
    budget = 200
    config = dataclasses.replace(
        FAST, limits=Limits(max_sitemaps_per_site=budget, max_concurrency=4)
    )

    loop = asyncio.get_running_loop()
    start = loop.time()
    async with SitemapReader(config) as reader:
        events: list[Event] = []
        async for batch in reader.walk_batches(s.a("/fan/0.xml")):
            events.extend(batch)
            queued = max(queued, reader.progress.queued)
    run = Run(events)
    took = loop.time() - start

    assert len(s.site.paths()) == budget
    assert queued <= budget
    assert run.kinds == ["max-sitemaps-per-site"]
    assert reader.progress.not_read > 1_500
    assert took < 15


def test_cli_budget_options_and_summary() -> None:
    with ThreadedServer() as s:
        _three_sitemaps(s)
        done = run_cli(
            "dump",
            "--format",
            "txt",
            "--max-entries",
            "12",
            "--concurrency",
            "1",
            "--deadline",
            "none",
            "--max-total-bytes",
            "1G",
            s.a("/index.xml"),
        )
        bad = run_cli("dump", "--max-total-bytes", "lots", s.a("/index.xml"))

    assert done.returncode == 0, done.stderr
    assert len(done.stdout.split()) == 12
    err = done.stderr.decode()
    assert "[max-entries]" in err
    assert "stopped early: the max-entries budget was reached" in err
    assert bad.returncode == 2
    assert "'lots' is not a size" in bad.stderr.decode()


async def test_robots_txt_is_no_sitemap_for_the_budgets(aiohttp_server: AiohttpServer) -> None:
    """A budget of one sitemap a site: robots.txt does not spend it, its sitemap does."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text(f"Sitemap: {s.a('/s.xml')}\nSitemap: {s.a('/t.xml')}\n"))
    s.add("/s.xml", xml(urlset(s.a("/1"), s.a("/2"))))
    s.add("/t.xml", xml(urlset(s.a("/3"))))

    run, _ = await _run(_with(max_sitemaps_per_site=1), s.a("/"))

    assert run.locs == [s.a("/1"), s.a("/2")]
    assert s.site.paths() == ["/robots.txt", "/s.xml"]
    assert run.kinds == ["max-sitemaps-per-site"]
    assert run.problem("max-sitemaps-per-site").url == s.a("/t.xml")
    assert "the budget of 1 sitemap for" in run.problems[0].message  # in number


async def test_missing_well_known_paths_are_no_sitemaps_for_the_budgets(
    aiohttp_server: AiohttpServer,
) -> None:
    """Probes that find nothing give their place back: with a run budget of one sitemap
    the third well-known path, the first that holds one, is read."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", status(404))
    s.add("/sitemap.xml", status(404))
    s.add("/sitemap_index.xml", html())  # a soft 404: no sitemap either
    s.add("/sitemap-index.xml", xml(urlset(s.a("/1"))))

    run, reader = await _run(_with(max_sitemaps=1), s.a("/"))

    assert run.locs == [s.a("/1")]
    assert run.kinds == []
    assert s.count("/sitemap-index.xml") == 1
    assert reader.progress.budget is None


def test_cli_site_root_with_a_budget_of_one_sitemap() -> None:
    """The reported case: ``--max-sitemaps-per-site 1`` on a site root reads its sitemap
    (exit 0), and the summary counts in number."""
    with ThreadedServer() as s:
        s.add("/robots.txt", text(f"Sitemap: {s.a('/s.xml')}\n"))
        s.add("/s.xml", xml(urlset(s.a("/1"))))
        done = run_cli("dump", "--format", "txt", "--max-sitemaps-per-site", "1", s.a("/"))

    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().split() == [s.a("/1")]
