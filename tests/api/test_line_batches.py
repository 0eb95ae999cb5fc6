"""``SitemapReader.line_batches`` and ``lines`` as a library user calls them, on a site
served on 127.0.0.1: every entry comes as ``Lines`` (never as an ``Entry``), past the scope,
the run's entry budget and the plan's ``Since``, and the pure core (in a subprocess, with
``SITEMAP_READER_PURE=1``) writes the same bytes, counts and reports as this process's core.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import sitemap_reader as sr
from sitemap_reader._core._pure import PURE_ENV
from sitemap_reader._core._xml._core_choice import COMPILED
from tests.support.http_site import (
    Served,
    ThreadedServer,
    sitemapindex,
    text,
    text_sitemap,
    urlset,
    xml,
)
from tests.support.line_batches import Transcript, from_json, plan_of, transcript
from tests.support.lines import spy_on_line_writer

FORMATS = ("jsonl", "csv", "txt")
SINCE = "2024-05-10T00:00:00+00:00"


def scoped(s: Served, n: int = 60) -> tuple[str, list[tuple[str, int | None]]]:
    """A urlset whose entries the scope's fast test passes, between others on another host
    (dropped) and with a dot segment (kept by the full check alone); and the (loc, day of
    May 2024) of those in scope, in order (None: no lastmod)."""
    items: list[str | dict[str, str]] = []
    kept: list[tuple[str, int | None]] = []
    for i in range(n):
        other = i % 7 == 3
        loc = s.b(f"/other/{i}") if other else s.a(f"/a/../p/{i}" if i % 11 == 5 else f"/p/{i}")
        day = None if i % 4 == 0 else 1 + i % 28
        fields = {"loc": loc, "priority": ("0.5", "1.0", "0.8")[i % 3]}
        if day is not None:
            fields["lastmod"] = f"2024-05-{day:02d}T10:{i:02d}:00+02:00"
        items.append(fields)
        if not other:
            kept.append((loc, day))
    return urlset(*items), kept


def serve(s: Served) -> list[tuple[str, int | None]]:
    """An index naming a urlset and a text sitemap; the entries in scope, in order."""
    body, kept = scoped(s)
    s.add("/index.xml", xml(sitemapindex(s.a("/a.xml"), s.a("/b.txt"))))
    s.add("/a.xml", xml(body))
    texts = [s.a(f"/t/{i}") for i in range(5)]
    s.add("/b.txt", text(text_sitemap(*texts[:3], s.b("/t/away"), *texts[3:])))
    return kept + [(loc, None) for loc in texts]


def pure(source: str, fmt: str, since: str | None, strict: bool, most: int | None) -> Transcript:
    """The transcript of the same run by the pure core, in a subprocess."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.support.line_batches",
            source,
            fmt,
            since or "-",
            "1" if strict else "0",
            "-" if most is None else str(most),
        ],
        capture_output=True,
        timeout=60,
        check=False,
        env={**os.environ, PURE_ENV: "1"},
    )
    assert done.returncode == 0, done.stderr.decode()
    got = from_json(done.stdout.decode())
    assert not got.compiled
    return got


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("since", "strict", "most"),
    [(None, False, None), (SINCE, False, None), (SINCE, True, None), (SINCE, False, 25)],
    ids=["all", "since", "since-strict", "budget-since"],
)
def test_both_cores_give_the_same_lines(
    fmt: str,
    since: str | None,
    strict: bool,
    most: int | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Lines, counts, reports and problems: this process's core (the compiled one, writing
    its own records' lines, where it is built) and the pure core agree to the byte; and the
    txt lines are the entries in scope, within the budget, that ``since`` keeps."""
    counted = spy_on_line_writer(monkeypatch) if COMPILED else None
    with ThreadedServer() as s:
        in_scope = serve(s)
        plan = plan_of(fmt, since, strict)
        got = asyncio.run(transcript(s.a("/index.xml"), plan, most))
        other = pure(s.a("/index.xml"), fmt, since, strict, most)
    assert got == dataclasses.replace(other, compiled=got.compiled)
    budget = in_scope[: most or len(in_scope)]
    rule = None if since is None else sr.Since(datetime.fromisoformat(since), not strict)
    kept = [
        loc
        for loc, day in budget
        if rule is None
        or rule.keeps(None if day is None else datetime(2024, 5, day, 10, tzinfo=timezone.utc))
    ]
    assert (got.written, got.in_scope, got.progress_entries) == (
        len(kept),
        len(budget),
        len(budget),
    )
    assert len(got.data.splitlines()) == len(kept) + (fmt == "csv")
    if fmt == "txt":
        assert got.data.decode().splitlines() == kept
    assert "other-host" not in got.problems  # (dropped entries are counted, not problems)
    if counted is not None:
        assert counted.runs  # the compiled core's records written with no Entry made


def test_with_a_state_store_every_entry_still_comes_as_lines(tmp_path: Path) -> None:
    """A state store reads every entry's lastmod, so the compiled core's runs are not asked
    for; the entries it passes on are written as lines all the same, ``since`` applied."""
    with ThreadedServer() as s:
        in_scope = serve(s)
        plan = plan_of("txt", SINCE, True)
        state = str(tmp_path / "state.sqlite")
        got = asyncio.run(transcript(s.a("/index.xml"), plan, state=state))
    kept = [loc for loc, day in in_scope if day is not None and day >= 10]
    assert got.data.decode().splitlines() == kept
    assert (got.written, got.in_scope) == (len(kept), len(in_scope))


def test_lines_gives_the_lines_alone() -> None:
    """``lines``: only ``Lines``, the header left to the caller (written once, first)."""

    async def run(source: str, plan: sr.LinePlan) -> list[sr.Lines]:
        config = sr.ReaderConfig(limits=sr.Limits(max_concurrency=1), allow_private=True)
        async with sr.SitemapReader(config) as reader:
            return [lines async for lines in reader.lines(source, plan=plan)]

    plan = sr.LinePlan("csv")
    assert plan.header == b"loc,lastmod,changefreq,priority,sitemap\n"
    with ThreadedServer() as s:
        in_scope = serve(s)
        got = asyncio.run(run(s.a("/index.xml"), plan))
        whole = asyncio.run(transcript(s.a("/index.xml"), plan))
    assert got and all(type(lines) is sr.Lines for lines in got)
    assert plan.header + b"".join(lines.data for lines in got) == whole.data
    assert sum(lines.written for lines in got) == len(in_scope)


def test_the_change_feed_is_refused(tmp_path: Path) -> None:
    """The change feed gives EntryChange records, which are no lines: said, before any
    request."""

    async def run() -> None:
        config = sr.ReaderConfig(incremental=sr.Incremental(changes=True), allow_private=True)
        async with sr.SitemapReader(config, state=str(tmp_path / "s.sqlite")) as reader:
            async for _ in reader.line_batches("http://127.0.0.1:9/s.xml", plan=sr.LinePlan()):
                pass

    with pytest.raises(ValueError, match=r"change feed .* use walk_batches"):
        asyncio.run(run())


def test_a_plan_says_what_it_cannot_be() -> None:
    with pytest.raises(ValueError, match="no line format 'xml': jsonl, csv or txt"):
        sr.LinePlan("xml")
    with pytest.raises(ValueError, match="aware"):
        sr.Since(datetime(2024, 5, 1))
    when = datetime(2024, 5, 1, tzinfo=timezone.utc)
    with pytest.raises(TypeError, match=r"since must be a Since or None, not datetime"):
        sr.LinePlan("txt", when)  # type: ignore[arg-type]
    assert sr.LinePlan("txt", sr.Since(when)).since == sr.Since(when)


def test_since_keeps_what_is_at_or_after_it() -> None:
    """The one Python statement of ``--since`` (the crate's is checked against it in
    tests/output/test_compiled_gate.py): instants compared across offsets."""
    when = datetime(2024, 5, 10, tzinfo=timezone.utc)
    rule, strict = sr.Since(when), sr.Since(when, keep_undated=False)
    plus_two = timezone(timedelta(hours=2))
    assert rule.keeps(when) and strict.keeps(when)
    assert not rule.keeps(datetime(2024, 5, 10, 1, 59, tzinfo=plus_two))
    assert rule.keeps(datetime(2024, 5, 10, 2, tzinfo=plus_two))
    assert rule.keeps(None) and not strict.keeps(None)


def test_lines_sync_gives_the_same_lines() -> None:
    """The blocking wrapper, from plain code: the lines ``lines`` gives, in order."""
    config = sr.ReaderConfig(limits=sr.Limits(max_concurrency=1), allow_private=True)
    plan = plan_of("jsonl", SINCE, False)
    with ThreadedServer() as s:
        serve(s)
        got = list(sr.lines_sync(s.a("/index.xml"), plan=plan, config=config))
        whole = asyncio.run(transcript(s.a("/index.xml"), plan))
    assert all(type(lines) is sr.Lines for lines in got)
    assert b"".join(lines.data for lines in got) == whole.data
    assert sum(lines.written for lines in got) == whole.written > 0
