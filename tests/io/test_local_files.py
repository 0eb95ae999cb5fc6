"""Local sources read by the walk's LocalFiles collaborator: each report made from its job
(order, source, depth), the walk's budgets and queue lent to it, nothing inherited."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import Limits, Status
from sitemap_reader._io._walk._local import LocalFiles
from sitemap_reader._io._walk._walker import Walk
from tests.support.http_site import FAST, serve, urlset, walk, xml


def test_the_walk_holds_local_files_and_does_not_inherit_them() -> None:
    assert not issubclass(Walk, LocalFiles)
    assert Walk.__mro__ == (Walk, object)


async def test_local_sources_are_reported_in_the_order_given(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """A local sitemap, then a local robots.txt naming a served sitemap: each report says
    when its source was named (the sources are 1 and 2), the robots.txt's child is queued
    through the walk and read."""
    s = await serve(aiohttp_server)
    s.add("/s.xml", xml(urlset(s.a("/served"))))
    sitemap = tmp_path / "local.xml"
    sitemap.write_text(urlset("https://example.com/local"))
    robots = tmp_path / "robots.txt"
    robots.write_text(f"User-agent: *\nSitemap: {s.a('/s.xml')}\n")

    run = await walk(str(sitemap), str(robots))

    assert set(run.locs) == {"https://example.com/local", s.a("/served")}
    first, second = run.report(str(sitemap)), run.report(str(robots))
    assert (first.order, first.status, first.depth, first.source) == (1, Status.OK, 0, "")
    assert (second.order, second.status, second.children) == (2, Status.OK, 1)
    child = run.report(s.a("/s.xml"))
    assert child.source == str(robots) and child.order > second.order


async def test_a_local_source_beyond_a_budget_is_skipped_by_the_walk(tmp_path: Path) -> None:
    """The walk's sitemap budget stands for local files too: the second is not read."""
    paths = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.xml"
        path.write_text(urlset(f"https://example.com/{name}"))
        paths.append(str(path))
    config = dataclasses.replace(FAST, limits=Limits(max_sitemaps=1))

    run = await walk(*paths, config=config)

    assert run.locs == ["https://example.com/a"]
    skipped = run.report(paths[1])
    assert skipped.status is Status.SKIPPED and skipped.order == 2
    assert [p.kind for p in skipped.problems] == ["max-sitemaps"]


async def test_an_unreadable_local_source_is_reported_failed_from_its_job(tmp_path: Path) -> None:
    sitemap = tmp_path / "a.xml"
    sitemap.write_text(urlset("https://example.com/a"))
    run = await walk(str(sitemap), str(tmp_path))  # a directory: there, and no file to read
    report = run.report(str(tmp_path))
    assert (report.status, report.final_url, report.order) == (Status.FAILED, str(tmp_path), 2)
    assert [p.kind for p in report.problems] == ["unreadable"]
