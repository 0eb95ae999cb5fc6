"""Lastmod trust, measured: the signals a run and a state file show, the verdict they make,
and the incremental skip obeying it (``Incremental.trust_lastmod``). Loopback sites whose
served files change between runs: a lying index, a build-stamped site, an honest one."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from sitemap_reader import (
    Incremental,
    LastmodTrust,
    SitemapReader,
    SqliteStateStore,
    Status,
    Trust,
    TrustLastmod,
)
from sitemap_reader._core._walk._trust import LastmodStats, judge
from tests.support.http_site import (
    FAST,
    Run,
    Served,
    ThreadedServer,
    sitemapindex,
    text,
    urlset,
    xml,
)

CHILDREN = 6


def dated(s: Served, name: str, n: int, lastmod: str) -> str:
    return urlset(*[{"loc": s.a(f"/p/{name}{i}"), "lastmod": lastmod} for i in range(n)])


def site(s: Served, index_lastmod: list[str], entry_lastmod: list[str], sizes: list[int]) -> None:
    """robots.txt -> index -> CHILDREN sitemaps, child i dated ``index_lastmod[i]`` by the
    index, its entries ``entry_lastmod[i]``."""
    s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
    s.add(
        "/index.xml",
        xml(sitemapindex(*[(s.a(f"/c{i}.xml"), index_lastmod[i]) for i in range(CHILDREN)])),
    )
    for i in range(CHILDREN):
        s.add(f"/c{i}.xml", xml(dated(s, f"c{i}-", sizes[i], entry_lastmod[i])))


def run(s: Served, path: Path, **incremental: Any) -> tuple[Run, dict[str, str], list[str]]:
    """One walk: its events, the sources distrusted (and why), the paths it fetched."""
    mark = len(s.site.hits)
    # No recheck sample: these tests pin what the verdicts alone skip.
    config = dataclasses.replace(FAST, incremental=Incremental(**{"recheck": 0, **incremental}))

    async def go() -> tuple[Run, dict[str, str]]:
        async with SitemapReader(config, state=path) as reader:
            events = [e async for e in reader.walk(s.a("/"))]
        return Run(events), dict(reader.progress.distrusted)

    events, distrusted = asyncio.run(go())
    return events, distrusted, sorted(s.site.paths()[mark:])


def days(*values: str) -> list[str]:
    return list(values) * (CHILDREN // len(values))


def test_a_lying_index_is_found_out_on_the_first_run_and_its_changes_on_the_next(
    tmp_path: Path,
) -> None:
    """Index lastmods frozen in 2023 while the entries say 2024: untrusted at once (stale),
    so with ``auto`` the next run asks every child again and finds the one that changed,
    where ``always`` skips them all and misses it."""
    frozen, entries, sizes = days("2023-01-01"), days("2024-03-01"), [3] * CHILDREN
    path = {mode: tmp_path / f"{mode}.sqlite" for mode in TrustLastmod}
    with ThreadedServer() as s:
        site(s, frozen, entries, sizes)
        first = {mode: run(s, path[mode], trust_lastmod=mode) for mode in TrustLastmod}
        site(s, frozen, ["2024-04-01", *entries[1:]], [4, *sizes[1:]])  # c0 changed
        second = {mode: run(s, path[mode], trust_lastmod=mode) for mode in TrustLastmod}

    report = first[TrustLastmod.AUTO][0].report(s.a("/c0.xml"))
    assert report.lastmods is not None and report.lastmods.verdict is Trust.UNTRUSTED
    assert "index lastmods older than the newest entry" in report.lastmods.reasons[0]
    with SqliteStateStore(path[TrustLastmod.AUTO]) as store:
        [(source, verdict)] = store.verdicts("source")
    assert source == s.a("/") and verdict.verdict is Trust.UNTRUSTED
    assert dict(verdict.counts)["stale"] == CHILDREN

    auto, why, fetched = second[TrustLastmod.AUTO]
    assert s.a("/p/c0-3") in auto.locs  # the change, found on the next run
    assert "6 index lastmods older than the newest entry of their sitemap" in why[s.a("/")]
    assert len([p for p in fetched if p.startswith("/c")]) == CHILDREN
    always, why_always, fetched_always = second[TrustLastmod.ALWAYS]
    assert always.locs == [] and why_always == {}  # skipped on the lastmod: missed
    assert [p for p in fetched_always if p.startswith("/c")] == []
    never, _, _ = second[TrustLastmod.NEVER]
    assert s.a("/p/c0-3") in never.locs


def test_an_honest_site_is_trusted_and_skipped(tmp_path: Path) -> None:
    """Index lastmods that date their children's newest entries: trusted, and the next run of
    the unchanged site fetches robots.txt and the index only."""
    stamps = [f"2024-0{i + 1}-01" for i in range(CHILDREN)]
    path = tmp_path / "state.sqlite"
    with ThreadedServer() as s:
        site(s, stamps, stamps, [3] * CHILDREN)
        first, _, _ = run(s, path)
        second, distrusted, fetched = run(s, path)
    assert first.report(s.a("/c1.xml")).lastmods == LastmodTrust(
        Trust.TRUSTED, (), (("dated", 3), ("consistent", 1))
    )
    assert distrusted == {} and fetched == ["/index.xml", "/robots.txt"]
    assert second.report(s.a("/c1.xml")).status is Status.UNCHANGED
    assert second.report(s.a("/c1.xml")).lastmods.verdict is Trust.TRUSTED  # type: ignore[union-attr]


def test_a_change_the_index_lastmod_hid_makes_the_source_untrusted(tmp_path: Path) -> None:
    """A child whose bytes changed while its index lastmod did not (found by the max-age
    re-check) is counted across runs: the source is untrusted from then on."""
    stamps = [f"2024-0{i + 1}-01" for i in range(CHILDREN)]
    path = tmp_path / "state.sqlite"
    with ThreadedServer() as s:
        site(s, stamps, stamps, [3] * CHILDREN)
        run(s, path)
        site(s, stamps, stamps, [4, 3, 3, 3, 3, 3])  # c0 grew; no lastmod moved
        found, distrusted, _ = run(s, path, max_age=0)
        s.add("/c1.xml", xml(dated(s, "c1-", 5, stamps[1])))  # another hidden change
        later, distrusted_later, fetched = run(s, path)
    assert s.a("/p/c0-3") in found.locs
    assert found.report(s.a("/c0.xml")).lastmods.verdict is Trust.UNTRUSTED  # type: ignore[union-attr]
    assert "1 sitemaps changed while their index lastmod did not" in distrusted[s.a("/")]
    assert "sitemaps changed while their index lastmod did not" in distrusted_later[s.a("/")]
    assert s.a("/p/c1-4") in later.locs  # found without max-age
    assert len([p for p in fetched if p.startswith("/c")]) == CHILDREN


def test_a_build_stamped_index_is_untrusted() -> None:
    """Every lastmod on the build's instant: most on one recent instant, a build stamp; the
    same on an old instant is a site that has not changed."""
    now = datetime(2026, 5, 1, 12, tzinfo=timezone.utc)
    stamped, old = LastmodStats(), LastmodStats()
    for _ in range(10):
        stamped.add(now - timedelta(minutes=5))
        old.add(datetime(2024, 1, 1, tzinfo=timezone.utc))
    verdict = judge(stamped.signals(None, now))
    assert verdict.verdict is Trust.UNTRUSTED
    assert verdict.reasons == ("1 documents with most lastmods on one instant or day",)
    assert judge(old.signals(None, now)).verdict is Trust.UNKNOWN
    news = LastmodStats()
    for _ in range(10):
        news.add(now, news=True)
    assert judge(news.signals(None, now)).verdict is Trust.UNKNOWN  # news: one day is normal


def test_future_lastmods_and_index_lastmods_that_move_alone() -> None:
    now = datetime(2026, 5, 1, tzinfo=timezone.utc)
    stats = LastmodStats()
    stats.add(now + timedelta(days=3))
    stats.add(now - timedelta(days=3))
    stats.add(None)
    assert stats.signals(now, now) == {
        "dated": 2,
        "undated": 1,
        "future": 1,
        "stamped": 0,
        "stale": 1,
    }
    assert judge({"moved": 3, "confirmed": 1}).reasons == (
        "3 index lastmods moved while their sitemap's bytes did not",
    )
    assert judge({"moved": 1, "confirmed": 2}).verdict is Trust.TRUSTED


def test_trust_lastmod_is_checked() -> None:
    assert Incremental(trust_lastmod="never").trust_lastmod is TrustLastmod.NEVER  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Incremental(trust_lastmod="sometimes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="shrink_guard"):
        Incremental(shrink_guard=1.5)
