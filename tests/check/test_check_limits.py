"""``check``'s limits of the protocol and the search engines (issue 32, item 3): over 1,000
images in one ``<url>``, a lastmod given as a date alone, hreflang alternates without the
page itself, a video whose content_loc is its page, a video title or description too long.

Each is judged from the records alone, so both cores must give the same findings: each
document is read by the compiled core's scanner and by the exact expat path, and the
findings of the two compared (the pure core runs the exact path twice).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

import sitemap_reader as sr
from sitemap_reader._check._lint import date_only
from sitemap_reader._core._pure import PURE_ENV
from sitemap_reader._core._xml import _core_choice
from tests.support.check import NOW, images, urls, video
from tests.support.cli import main_captured, run_cli
from tests.support.compiled import compiled_events
from tests.support.helpers import URL, parse_chunks
from tests.support.http_site import ThreadedServer, xml
from tests.support.http_site import urlset as site_urlset

PAGE = "https://example.com/page"


def findings(document: str) -> list[sr.Finding]:
    """The findings of ``document`` read by both paths; they must be the same."""
    data = document.encode()
    fast = compiled_events([data])[0] if _core_choice.COMPILED else parse_chunks([data])
    exact = parse_chunks([data], fast=False)
    both = []
    for events in (fast, exact):
        checker = sr.Checker(sr.CheckOptions(now=NOW))
        both.append(checker.feed(events) + checker.close())
    assert both[0] == both[1]
    return both[0]


def only(document: str, code: str) -> list[sr.Finding]:
    return [f for f in findings(document) if f.code == code]


@pytest.mark.parametrize(("n", "found"), [(1_000, False), (1_001, True)])
def test_over_1000_images_in_one_url(n: int, found: bool) -> None:
    """1,000 images are allowed; the 1,001st makes a warning naming the page and the count."""
    page = f"<loc>{PAGE}</loc>" + images(n, "https://example.com/i")
    got = only(urls(page, "<loc>https://example.com/b</loc>"), "X520")
    if not found:
        assert got == []
        return
    (item,) = got
    assert item.count == 1 and item.url == URL
    assert item.message.startswith(f"1 URL has over 1,000 images (first: 1,001 on {PAGE})")


def lastmods(*values: str) -> str:
    return urls(
        *(
            f"<loc>https://example.com/p{i}</loc><lastmod>{v}</lastmod>"
            for i, v in enumerate(values)
        )
    )


def test_lastmod_date_alone_is_a_notice_counted_per_sitemap() -> None:
    """Two of four lastmods are a date alone: one notice, counting two, with the first."""
    doc = lastmods("2024-05-01T10:00:00Z", "2024-05-02", "2024-05-03T00:00:00+02:00", "2024-05-04")
    (item,) = only(doc, "V420")
    assert item.severity is sr.Severity.NOTICE and item.count == 2
    assert item.message.startswith(
        "2 lastmod values give a date but no time of day (first: 2024-05-02 on "
        "https://example.com/p1)"
    )


@pytest.mark.parametrize(
    ("value", "alone"),
    [
        ("2024-05-01", True),  # the compiled scanner's shape
        ("2024-5-1", True),  # Python's, on both cores
        ("2024-05", True),
        ("2024-05-01T00:00:00Z", False),  # midnight UTC, written with its time of day
        ("2024-05-01T00:00:00+00:00", False),
        ("2024-05-01T00:00Z", False),
        ("2024-05-01 00:00:00", False),
        ("2024-05-01T00:00:00+02:00", False),  # midnight where the site is: a time was given
        ("2024-05-01T00:00:01Z", False),
        ("2024-05-01T00:00:00.5Z", False),
        ("2024-05-01T10:30:00Z", False),
    ],
)
def test_what_counts_as_a_date_alone(value: str, alone: bool) -> None:
    """As each core reads it: the same instant (midnight UTC for a date alone) and the same
    zone (``DATE_ALONE`` or ``timezone.utc`` itself), which alone tells how the value was
    written; V420 says the date alone."""
    data = lastmods(value).encode()
    cores = [parse_chunks([data], fast=False)]
    if _core_choice.COMPILED:
        cores.append(compiled_events([data])[0])
    reprs = set()
    for events in cores:
        (entry,) = [e for e in events if isinstance(e, sr.Entry)]
        assert entry.lastmod is not None and entry.lastmod.utcoffset() is not None
        assert date_only(entry.lastmod) is alone
        reprs.add(repr(entry.lastmod))  # (a zone's repr names DATE_ALONE's "UTC")
        if alone:
            assert entry.lastmod == datetime(2024, 5, 1, tzinfo=timezone.utc)
    assert len(reprs) == 1
    assert len(only(data.decode(), "V420")) == alone


def alt(lang: str, href: str) -> str:
    return f'<xhtml:link rel="alternate" hreflang="{lang}" href="{href}"/>'


def test_hreflang_alternates_without_the_page_itself() -> None:
    """/en names /de and x-default but not itself; /de names itself: only /en is said."""
    en, de = "https://example.com/en", "https://example.com/de"
    doc = urls(
        f"<loc>{en}</loc>{alt('de', de)}{alt('x-default', de)}",
        f"<loc>{de}</loc>{alt('de', de)}{alt('en', en)}{alt('x-default', de)}",
    )
    (item,) = only(doc, "X521")
    assert item.count == 1 and item.severity is sr.Severity.WARNING
    assert f"(first: {en})" in item.message


def test_video_content_loc_is_the_page() -> None:
    """A video whose file is the page itself is an error; one of its own file is not."""
    doc = urls(
        f"<loc>{PAGE}</loc>{video(PAGE)}",
        f"<loc>https://example.com/b</loc>{video('https://example.com/b.mp4')}",
    )
    (item,) = only(doc, "X522")
    assert item.count == 1 and item.severity is sr.Severity.ERROR
    assert f"(first: {PAGE})" in item.message


@pytest.mark.parametrize(
    ("title", "description", "said"),
    [
        (100, 2_048, None),
        (101, 2_048, "a title of 101 characters (at most 100)"),
        (100, 2_049, "a description of 2,049 characters (at most 2,048)"),
        (
            101,
            2_049,
            (
                "a title of 101 characters (at most 100) and a description of 2,049 "
                "characters (at most 2,048)"
            ),
        ),
    ],
)
def test_video_title_and_description_lengths(
    title: int, description: int, said: str | None
) -> None:
    """Google's bounds are met exactly at 100 and 2,048 characters (not bytes: é is one)."""
    doc = urls(
        f"<loc>{PAGE}</loc>{video('https://example.com/v.mp4', 'é' * title, 'd' * description)}"
    )
    got = only(doc, "X523")
    if said is None:
        assert got == []
        return
    (item,) = got
    assert item.count == 1
    assert f"(first: {said} on {PAGE})" in item.message


def test_check_of_a_site_says_v420_of_the_dates_alone_on_both_cores(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Midnight UTC written with its time is no date alone: one V420 of two lastmods at the
    same instant, the same from the compiled core (here) and the pure one (a subprocess)."""
    with ThreadedServer() as s:
        lastmods = ["2024-05-01T00:00:00Z", "2024-05-02", "2024-05-03T00:00:00+00:00"]
        s.add(
            "/s.xml",
            xml(
                site_urlset(*({"loc": s.a(f"/{i}"), "lastmod": v} for i, v in enumerate(lastmods)))
            ),
        )
        argv = ("check", s.a("/s.xml"), "--format", "json")
        _, out, _ = main_captured(capsys, *argv)
        pure = run_cli(*argv, env={PURE_ENV: "1"}).stdout.decode("utf-8")
        for said in (out, pure):
            (v420,) = [
                row for row in map(json.loads, said.splitlines()) if row.get("code") == "V420"
            ]
            assert v420["count"] == 1
            assert str(v420["message"]).startswith(
                f"1 lastmod value gives a date but no time of day (first: 2024-05-02 on {s.a('/1')})"
            )
