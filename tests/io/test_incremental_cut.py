"""A read that was cut or failed is never a reason to skip: incremental runs against a real
aiohttp server on 127.0.0.1 whose index names a child that ends mid-document."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import ProblemKind, SqliteStateStore, Status
from tests.support.cli import cli
from tests.support.http_site import serve, sitemapindex, urlset, xml
from tests.support.incremental import Validated, run


def cut(body: str) -> str:
    """``body`` ended mid-document: its last element never closes."""
    return body[: body.rindex("</url>")]


async def test_a_truncated_child_is_asked_again_unconditionally_and_its_problem_said(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """The child's index lastmod does not move and its server would answer 304 to its ETag:
    each run still fetches it whole (no validators), reports it partial with its truncation,
    and never counts it unchanged."""
    s = await serve(aiohttp_server)
    whole = urlset(*[s.a(f"/p/{i}") for i in range(5)])
    child = Validated(cut(whole), etag='"c1"')
    s.add("/index.xml", xml(sitemapindex((s.a("/cut.xml"), "2024-01-01"))))
    s.add("/cut.xml", child)
    store = SqliteStateStore(tmp_path / "state.sqlite")
    try:
        for _ in range(3):
            done, progress = await run(store, s.a("/index.xml"))
            report = done.report(s.a("/cut.xml"))
            assert report.status is Status.PARTIAL
            assert ProblemKind.TRUNCATED in done.kinds
            assert progress.unchanged == 0
            assert child.seen[-1] == (None, None)  # asked whole: the kept copy was incomplete
        assert len(child.seen) == 3

        child.body = whole  # fixed: the next run reads it whole and records it complete
        fixed, _ = await run(store, s.a("/index.xml"))
        assert fixed.report(s.a("/cut.xml")).status is Status.OK
        assert ProblemKind.TRUNCATED not in fixed.kinds
        again, progress = await run(store, s.a("/index.xml"))
        assert again.report(s.a("/cut.xml")).status is Status.UNCHANGED
        # Complete now: skipped, or asked with its validators and answered 304.
        assert child.seen[4:] in ([], [('"c1"', None)])
    finally:
        store.close()


async def test_the_cli_says_the_truncation_again_and_never_unchanged(
    aiohttp_server: AiohttpServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tree --state`` twice over an index whose child is cut: the second run asks the
    child again, shows it partial with its truncation, and calls nothing unchanged."""
    s = await serve(aiohttp_server)
    whole = urlset(*[s.a(f"/p/{i}") for i in range(5)])
    s.add("/index.xml", xml(sitemapindex((s.a("/cut.xml"), "2024-01-01"))))
    s.add("/cut.xml", xml(cut(whole)))
    argv = ("tree", s.a("/index.xml"), "--state", str(tmp_path / "state.sqlite"))
    await cli(*argv)
    capsys.readouterr()

    await cli(*argv)

    said = capsys.readouterr()
    out = said.out + said.err
    assert s.count("/cut.xml") == 2
    assert "[partial]" in out and "truncated" in out
    assert "[unchanged]" not in out.split("cut.xml", 1)[1].splitlines()[0]
    assert "2 sitemaps unchanged" not in out
