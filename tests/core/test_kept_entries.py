"""Malformed entries lose nothing without a word (docs/problems.md, "Entries kept from
malformed XML"): several ``<loc>`` in one entry, an entry another one starts in, an entry
the end of the document cuts, a field given twice. Each shape gives the same records and problems (kind, line,
column, count, example) on every path (expat alone, the compiled core's scanner)
and at every split of its bytes."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from sitemap_reader import Entry, Event, Limits, Problem, SitemapRef
from sitemap_reader._core._formats._robots import sitemap_urls
from sitemap_reader._core._xml import _core_choice
from tests.support.helpers import (
    SITEMAP_NS,
    fatal,
    kinds,
    locs,
    parse,
    parse_chunks,
    problem,
    two_way_splits,
)

A, B, C, D = (f"https://example.com/{name}" for name in "abcd")
JAN = datetime(2024, 1, 1, tzinfo=timezone.utc)


@pytest.fixture(params=["exact", "compiled"])
def path(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The parser's arguments for one XML path (the compiled one where that core runs)."""
    if request.param == "compiled" and not _core_choice.COMPILED:
        pytest.skip(_core_choice.describe())
    return {"fast": request.param == "compiled"}


_DEFAULT = Limits()


def _read(data: str, path: dict[str, Any], limits: Limits = _DEFAULT) -> list[Event]:
    """The events of ``data`` on ``path``, the same at every two-way split (and whole)."""
    raw = data.encode()
    events = parse(raw, limits=limits, **path)
    for pieces in two_way_splits(raw):
        assert parse_chunks(pieces, limits=limits, **path) == events, len(pieces[0])
    return events


def _urlset(body: str) -> str:
    return f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}">\n{body}</urlset>\n'


def _index(body: str) -> str:
    return f'<?xml version="1.0"?>\n<sitemapindex xmlns="{SITEMAP_NS}">\n{body}</sitemapindex>\n'


def _where(p: Problem) -> tuple[Any, ...]:
    return (p.line, p.column, p.count, p.example)


# -- several <loc> in one entry ----------------------------------------------------------


def test_a_url_with_several_locs_keeps_each(path: dict[str, Any]) -> None:
    """The first <loc> is the entry's, with its fields; each further one is an entry of its
    own without fields, counted as several-locs at the first one's line and column."""
    events = _read(
        _urlset(
            f"<url><loc>{A}</loc><lastmod>2024-01-01</lastmod>\n"
            f"  <loc>{B}</loc><priority>0.5</priority><loc>{C}</loc></url>\n"
            f"<url><loc>{D}</loc></url>\n"
        ),
        path,
    )
    assert [e for e in events if isinstance(e, Entry)] == [
        Entry(A, JAN, None, 0.5, "https://example.com/dir/sitemap.xml"),
        Entry(B, None, None, None, "https://example.com/dir/sitemap.xml"),
        Entry(C, None, None, None, "https://example.com/dir/sitemap.xml"),
        Entry(D, None, None, None, "https://example.com/dir/sitemap.xml"),
    ]
    said = problem(events, "several-locs")
    assert _where(said) == (4, 2, 2, f"'{B}'")
    assert kinds(events) == ["several-locs"]
    assert "at line 4, column 2" in said.message


def test_a_sitemap_with_several_locs_keeps_each_child(path: dict[str, Any]) -> None:
    """A child sitemap's URL is worth keeping: each further <loc> of an index's <sitemap>
    is a child of its own, without the lastmod (which loc it was meant for is not known)."""
    events = _read(
        _index(f"<sitemap><loc>{A}</loc><loc>{B}</loc><lastmod>2024-01-01</lastmod></sitemap>\n"),
        path,
    )
    assert [e for e in events if isinstance(e, SitemapRef)] == [
        SitemapRef(A, JAN, "https://example.com/dir/sitemap.xml"),
        SitemapRef(B, None, "https://example.com/dir/sitemap.xml"),
    ]
    assert _where(problem(events, "several-locs")) == (3, 41, 1, f"'{B}'")


def test_further_locs_are_judged_and_counted_as_any_loc(path: dict[str, Any]) -> None:
    """A further <loc> goes through the checks every loc does, and the entry limit."""
    events = _read(_urlset(f"<url><loc>{A}</loc><loc>/relative</loc><loc>{B}</loc></url>\n"), path)
    assert locs(events) == [A, B]
    assert kinds(events) == ["several-locs", "relative-loc"]
    cut = _read(
        _urlset(f"<url><loc>{A}</loc><loc>{B}</loc></url>\n"),
        path,
        Limits(max_urls=1, cut_at_max_urls=True),
    )
    assert locs(cut) == [A]
    last = fatal(cut)
    assert last is not None and last.kind == "too-many-urls"


# -- an entry another one starts in --------------------------------------------------------


def test_an_unclosed_sitemap_is_kept_when_the_next_one_starts(path: dict[str, Any]) -> None:
    """A <sitemap> whose end tag is missing is kept as it stood; the ones after it are read;
    expat's verdict on the broken nesting stays where it comes (the end of the index)."""
    events = _read(
        _index(
            f"<sitemap><loc>{A}</loc><lastmod>2024-01-01</lastmod>\n"
            f"<sitemap><loc>{B}</loc></sitemap>\n"
            f"<sitemap><loc>{C}</loc></sitemap>\n"
        ),
        path,
    )
    assert [e for e in events if isinstance(e, SitemapRef)] == [
        SitemapRef(A, JAN, "https://example.com/dir/sitemap.xml"),
        SitemapRef(B, None, "https://example.com/dir/sitemap.xml"),
        SitemapRef(C, None, "https://example.com/dir/sitemap.xml"),
    ]
    said = problem(events, "unclosed-entry")
    assert _where(said) == (4, 0, 1, f"'{A}'")
    assert "the next one starting at line 4, column 0" in said.message
    last = fatal(events)
    assert last is not None and last.kind == "not-well-formed"
    assert (last.line, last.column) == (6, 2)


def test_nested_urls_are_each_kept(path: dict[str, Any]) -> None:
    """A <url> inside a <url> (well-formed XML): both are entries, and the ones after the
    outer one's end tag are read as usual."""
    events = _read(
        _urlset(
            f"<url><loc>{A}</loc><url><loc>{B}</loc><changefreq>daily</changefreq></url></url>\n"
            f"<url><loc>{C}</loc></url>\n"
        ),
        path,
    )
    assert locs(events) == [A, B, C]
    assert kinds(events) == ["unclosed-entry"]
    assert _where(problem(events, "unclosed-entry")) == (3, 37, 1, f"'{A}'")


# -- an entry the end of the document cuts -------------------------------------------------


def test_an_index_cut_inside_a_sitemap_keeps_the_child(path: dict[str, Any]) -> None:
    """Cut after its <loc> closed, a child sitemap is kept (cut-entry, at its loc's line)
    with the fields that closed before the cut; then the truncation."""
    data = _index(
        f"<sitemap><loc>{A}</loc></sitemap>\n"
        f"<sitemap>\n  <loc>{B}</loc><lastmod>2024-01-01</lastmod><lastmod>2024-0"
    )
    events = _read(data[: data.rindex("</sitemapindex>")], path)
    assert [e for e in events if isinstance(e, SitemapRef)] == [
        SitemapRef(A, None, "https://example.com/dir/sitemap.xml"),
        SitemapRef(B, JAN, "https://example.com/dir/sitemap.xml"),
    ]
    assert _where(problem(events, "cut-entry")) == (5, None, 1, f"'{B}'")
    assert kinds(events) == ["cut-entry", "truncated"]


def test_an_entry_cut_before_its_loc_closed_is_not_kept(path: dict[str, Any]) -> None:
    """Nothing is kept of an entry whose <loc> had not closed: its URL may be cut too."""
    events = _read(_urlset(f"<url><loc>{A}</loc></url>\n<url><loc>{B}")[:-10], path)
    assert locs(events) == [A]
    assert kinds(events) == ["truncated"]


@pytest.mark.parametrize(
    ("tail", "limits", "ending"),
    [
        ("<lastmod>2024 & 5</lastmod></url></urlset>", Limits(), "not-well-formed"),
        ("<lastmod>" + "9" * 300 + "</lastmod></url></urlset>", Limits(max_bytes=300), "too-large"),
        (
            "<lastmod>" + "9" * 300 + "</lastmod></url></urlset>",
            Limits(max_token_bytes=200),
            "token-too-large",
        ),
        ("<a>" * 260 + "</url></urlset>", Limits(), "too-nested"),
    ],
    ids=["xml-error", "max-bytes", "max-token-bytes", "too-nested"],
)
def test_an_entry_cut_by_a_fault_or_a_limit_is_kept(
    path: dict[str, Any], tail: str, limits: Limits, ending: str
) -> None:
    """An XML fault or a limit that ends the document inside an entry whose <loc> closed:
    the entry is kept, with its other loc, and said so, before the problem that ended it."""
    head = f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}">\n<url><loc>{A}</loc>'
    events = parse((head + f"<loc>{B}</loc>" + tail).encode(), limits=limits, **path)
    assert locs(events) == [A, B]
    assert kinds(events) == ["several-locs", "cut-entry", ending]


# -- a field given twice ----------------------------------------------------------------


def test_a_field_given_twice_keeps_the_last_and_is_counted(path: dict[str, Any]) -> None:
    """Two <lastmod> (and two <priority>) in one <url>: the last of each is the entry's, as
    before; each repeat is counted as repeated-element, at the first repeat's line and
    column, with its element as the example. The compiled scanner hands such a block to
    expat, so both paths say the same."""
    events = _read(
        _urlset(
            f"<url><loc>{A}</loc><lastmod>2023-05-01</lastmod>\n"
            "  <lastmod>2024-01-01</lastmod><priority>0.1</priority><priority>0.5</priority></url>\n"
            f"<url><loc>{B}</loc><lastmod>2024-01-01</lastmod></url>\n"
        ),
        path,
    )
    assert [e for e in events if isinstance(e, Entry)] == [
        Entry(A, JAN, None, 0.5, "https://example.com/dir/sitemap.xml"),
        Entry(B, JAN, None, None, "https://example.com/dir/sitemap.xml"),
    ]
    said = problem(events, "repeated-element")
    assert _where(said) == (4, 2, 2, "<lastmod> '2024-01-01'")
    assert kinds(events) == ["repeated-element"]
    assert "at line 4, column 2" in said.message and "the last one" in said.message


def test_a_sitemap_with_two_lastmods_is_counted(path: dict[str, Any]) -> None:
    """In an index too; a lone <lastmod> per entry is no repeat."""
    events = _read(
        _index(
            f"<sitemap><loc>{A}</loc><lastmod>2023-05-01</lastmod><lastmod>2024-01-01</lastmod>"
            f"</sitemap>\n<sitemap><loc>{B}</loc><lastmod>2024-01-01</lastmod></sitemap>\n"
        ),
        path,
    )
    assert [e for e in events if isinstance(e, SitemapRef)] == [
        SitemapRef(A, JAN, "https://example.com/dir/sitemap.xml"),
        SitemapRef(B, JAN, "https://example.com/dir/sitemap.xml"),
    ]
    assert _where(problem(events, "repeated-element")) == (
        3,
        70,
        1,
        "<lastmod> '2024-01-01'",
    )


# -- the docs' example -------------------------------------------------------------------

PROBLEMS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "problems.md"


def test_the_docs_example_prints_what_the_page_says(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/problems.md, "Entries kept from malformed XML": its code prints its output block,
    and its robots.txt line is the problem such a line gives."""
    page = PROBLEMS_PAGE.read_text(encoding="utf-8")
    section = page.split("\n## Entries kept from malformed XML\n", 1)[1].split("\n## ", 1)[0]
    code, printed, robots_line = re.findall(r"```(?:python|text)\n(.*?)```", section, re.DOTALL)
    exec(compile(code, str(PROBLEMS_PAGE), "exec"), {})  # noqa: S102 (the page's own code)
    assert capsys.readouterr().out == printed
    body = b"User-agent: *\nDisallow:\nSitemap: http://www.example.com/caf\xe9.xml\n"
    (said,) = sitemap_urls(body, "http://www.example.com/robots.txt").problems
    assert f"{said}\n" == robots_line
