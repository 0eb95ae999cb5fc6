"""XML sitemaps (urlset and sitemapindex) through SitemapParser: fields, encodings, extensions,
tolerated faults and the faults that end a document.

Most tests run on both XML paths (the ``fast`` fixture: scanner, then expat alone).
"""

from __future__ import annotations

import dataclasses
import gc
import re
from datetime import datetime, timedelta, timezone

import pytest

from sitemap_reader import (
    Alternate,
    ChangeFreq,
    Entry,
    Format,
    Image,
    Limits,
    News,
    Problem,
    SitemapParser,
    SitemapRef,
    Video,
)
from sitemap_reader._core._xml._extensions import CONTAINERS
from tests.support.helpers import (
    IMAGE_NS,
    NEWS_NS,
    SITEMAP_NS,
    URL,
    VIDEO_NS,
    XHTML_NS,
    entries,
    fatal,
    gz,
    index,
    kinds,
    locs,
    parse,
    problem,
    problems,
    refs,
    sitemap_block,
    url_block,
    urlset,
)

UTC = timezone.utc


def tz(hours: int, minutes: int = 0) -> timezone:
    sign = -1 if hours < 0 else 1
    return timezone(timedelta(hours=hours, minutes=sign * minutes))


# -- the two document types -------------------------------------------------------------


def test_urlset_reads_every_core_field(fast: bool) -> None:
    """A urlset in the sitemaps.org namespace yields one Entry per <url> with all four fields."""
    doc = urlset(
        url_block(
            "https://example.com/a",
            lastmod="2024-03-05T10:20:30+02:00",
            changefreq="weekly",
            priority="0.8",
        ),
        url_block("https://example.com/b"),
    )
    parser = SitemapParser(URL, fast=fast)
    assert parser.format is None
    events = parser.feed(doc.encode()) + parser.close()
    assert events == [
        Entry(
            "https://example.com/a",
            datetime(2024, 3, 5, 10, 20, 30, tzinfo=tz(2)),
            ChangeFreq.WEEKLY,
            0.8,
            URL,
        ),
        Entry("https://example.com/b", sitemap=URL),
    ]
    assert parser.format is Format.URLSET
    assert parser.entries == 2
    assert parser.ended
    assert parser.bytes_read == len(doc.encode())
    assert not parser.gzipped


def test_sitemapindex_yields_sitemap_refs(fast: bool) -> None:
    """A sitemapindex yields one SitemapRef per <sitemap>, with its lastmod and the index as source."""
    doc = index(
        sitemap_block("https://example.com/s1.xml.gz", "2024-02-01"),
        sitemap_block("https://example.com/s2.xml"),
    )
    parser = SitemapParser(URL, fast=fast)
    events = parser.feed(doc.encode()) + parser.close()
    assert events == [
        SitemapRef("https://example.com/s1.xml.gz", datetime(2024, 2, 1, tzinfo=UTC), URL),
        SitemapRef("https://example.com/s2.xml", None, URL),
    ]
    assert parser.format is Format.SITEMAPINDEX
    assert parser.entries == 2


def test_url_blocks_inside_an_index_are_not_refs(fast: bool) -> None:
    """An index reads only <sitemap> children; a stray <url> is not turned into a record."""
    doc = index(sitemap_block("https://example.com/s1.xml"), url_block("https://example.com/page"))
    assert locs(parse(doc.encode(), fast=fast)) == ["https://example.com/s1.xml"]


@pytest.mark.parametrize("root", ["urlset", "sitemapindex"])
@pytest.mark.parametrize(
    ("ns", "said"),
    [
        ("https://www.sitemaps.org/schemas/sitemap/0.9", "https://www.sitemaps.org"),
        ("http://www.google.com/schemas/sitemap/0.84", "0.84"),
        ("http://example.org/not-a-sitemap", "example.org"),
        (None, "no namespace"),
    ],
    ids=["https", "google-0.84", "other", "none"],
)
def test_wrong_or_missing_namespace_is_reported_and_read(
    fast: bool, root: str, ns: str | None, said: str
) -> None:
    """A wrong or missing namespace gives one non-fatal `namespace` Problem; records are still read."""
    if root == "urlset":
        doc = urlset(url_block("https://example.com/a"), url_block("https://example.com/b"), ns=ns)
    else:
        doc = index(
            sitemap_block("https://example.com/a"), sitemap_block("https://example.com/b"), ns=ns
        )
    events = parse(doc.encode(), fast=fast)
    assert locs(events) == ["https://example.com/a", "https://example.com/b"]
    found = problem(events, "namespace")
    assert not found.fatal
    assert said in found.message
    assert kinds(events) == ["namespace"]


def test_the_right_namespace_reports_nothing(fast: bool) -> None:
    """The sitemaps.org namespace, with or without an XML declaration, gives no Problem at all."""
    for decl in (True, False):
        events = parse(urlset(url_block("https://example.com/"), decl=decl).encode(), fast=fast)
        assert problems(events) == []


# -- field values -----------------------------------------------------------------------

LASTMODS = [
    # The six W3C Datetime forms (https://www.w3.org/TR/NOTE-datetime).
    ("2024", datetime(2024, 1, 1, tzinfo=UTC)),
    ("2024-03", datetime(2024, 3, 1, tzinfo=UTC)),
    ("2024-03-05", datetime(2024, 3, 5, tzinfo=UTC)),
    ("2024-03-05T10:20Z", datetime(2024, 3, 5, 10, 20, tzinfo=UTC)),
    ("2024-03-05T10:20:30+02:00", datetime(2024, 3, 5, 10, 20, 30, tzinfo=tz(2))),
    ("2024-03-05T10:20:30.45-05:30", datetime(2024, 3, 5, 10, 20, 30, 450000, tzinfo=tz(-5, 30))),
    # Forms real files carry.
    ("2024-03-05 10:20:30", datetime(2024, 3, 5, 10, 20, 30, tzinfo=UTC)),
    ("2024-03-05T10:20:30", datetime(2024, 3, 5, 10, 20, 30, tzinfo=UTC)),
    ("2024-03-05T10:20:30+0100", datetime(2024, 3, 5, 10, 20, 30, tzinfo=tz(1))),
    ("2024-03-05T10:20:30.123456789Z", datetime(2024, 3, 5, 10, 20, 30, 123456, tzinfo=UTC)),
    ("2024-03-05t10:20:30z", datetime(2024, 3, 5, 10, 20, 30, tzinfo=UTC)),
    ("\n   2024-03-05\n", datetime(2024, 3, 5, tzinfo=UTC)),
]


@pytest.mark.parametrize(("raw", "expected"), LASTMODS, ids=[r for r, _ in LASTMODS])
def test_lastmod_forms(fast: bool, raw: str, expected: datetime) -> None:
    """Every W3C Datetime form and the common real-world variants become aware datetimes."""
    events = parse(urlset(url_block("https://example.com/", lastmod=raw)).encode(), fast=fast)
    [entry] = events
    assert isinstance(entry, Entry)
    assert entry.lastmod == expected
    assert entry.lastmod is not None and entry.lastmod.utcoffset() == expected.utcoffset()


def test_unparsable_lastmods_keep_the_entry_and_are_tallied_once(fast: bool) -> None:
    """Bad lastmods leave their entries in place without one, reported as one Problem with a count."""
    doc = urlset(
        url_block("https://example.com/1", lastmod="yesterday"),
        url_block("https://example.com/2", lastmod="2024-13-45"),
        url_block("https://example.com/3", lastmod="2024-01-01"),
    )
    events = parse(doc.encode(), fast=fast)
    assert [e.lastmod for e in entries(events)] == [None, None, datetime(2024, 1, 1, tzinfo=UTC)]
    found = problem(events, "invalid-lastmod")
    assert found.message.startswith("2 ")
    assert "'yesterday'" in found.message
    assert events[-1] is found  # tallies come after the records, at the end of the document


@pytest.mark.parametrize("raw", ["daily", "Daily", "DAILY", " daily\n"])
def test_changefreq_in_any_case(fast: bool, raw: str) -> None:
    """<changefreq> is matched case-insensitively and stripped."""
    events = parse(urlset(url_block("https://example.com/", changefreq=raw)).encode(), fast=fast)
    assert entries(events)[0].changefreq is ChangeFreq.DAILY
    assert problems(events) == []


def test_every_changefreq_value(fast: bool) -> None:
    """All seven protocol values map to their ChangeFreq member."""
    doc = urlset(
        *(
            url_block(f"https://example.com/{c.value}", changefreq=c.value.upper())
            for c in ChangeFreq
        )
    )
    assert [e.changefreq for e in entries(parse(doc.encode(), fast=fast))] == list(ChangeFreq)


def test_invalid_changefreq_is_none_and_tallied(fast: bool) -> None:
    """A changefreq outside the protocol's seven is left out and reported once."""
    doc = urlset(url_block("https://example.com/", changefreq="sometimes"))
    events = parse(doc.encode(), fast=fast)
    assert entries(events)[0].changefreq is None
    assert "'sometimes'" in problem(events, "invalid-changefreq").message


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("0.0", 0.0),
        ("0", 0.0),
        ("0.5", 0.5),
        ("1.0", 1.0),
        ("1", 1.0),
        (" 0.8 ", 0.8),
        ("0.5000", 0.5),
    ],
)
def test_priority_in_range(fast: bool, raw: str, expected: float) -> None:
    """Priorities from 0.0 to 1.0 are read as floats."""
    events = parse(urlset(url_block("https://example.com/", priority=raw)).encode(), fast=fast)
    assert entries(events)[0].priority == expected
    assert problems(events) == []


@pytest.mark.parametrize("raw", ["1.5", "-0.1", "high", "nan", "inf", "0,5"])
def test_priority_out_of_range_or_not_a_number(fast: bool, raw: str) -> None:
    """An out-of-range or non-numeric priority becomes None and is tallied as `invalid-priority`."""
    doc = urlset(
        url_block("https://example.com/1", priority=raw),
        url_block("https://example.com/2", priority=raw),
    )
    events = parse(doc.encode(), fast=fast)
    assert [e.priority for e in entries(events)] == [None, None]
    found = problem(events, "invalid-priority")
    assert found.message.startswith("2 ")
    assert not found.fatal


def test_absent_priority_is_none_not_the_default(fast: bool) -> None:
    """No <priority> (or an empty one) means None: the 0.5 default is the consumer's business."""
    doc = urlset(
        url_block("https://example.com/1"), url_block("https://example.com/2", priority="")
    )
    events = parse(doc.encode(), fast=fast)
    assert [e.priority for e in entries(events)] == [None, None]
    assert problems(events) == []


def test_values_are_stripped_of_surrounding_whitespace(fast: bool) -> None:
    """Spaces, tabs and newlines (CRLF too) around every value are stripped."""
    block = (
        "<url>\r\n  <loc>\r\n\t https://example.com/a \r\n</loc>\n"
        "  <lastmod>\n 2024-01-02 \n</lastmod>\n  <changefreq> monthly </changefreq>\n"
        "  <priority>\t0.3\t</priority>\n</url>"
    )
    [entry] = parse(urlset(block).encode(), fast=fast)
    assert entry == Entry(
        "https://example.com/a", datetime(2024, 1, 2, tzinfo=UTC), ChangeFreq.MONTHLY, 0.3, URL
    )


def test_cdata_values(fast: bool) -> None:
    """CDATA sections are read as text, with their `&` kept literally."""
    doc = urlset(
        "<url><loc><![CDATA[https://example.com/?a=1&b=2]]></loc>"
        "<lastmod><![CDATA[2024-01-02]]></lastmod></url>",
        "<url><loc> <![CDATA[https://example.com/x]]> </loc></url>",
    )
    events = parse(doc.encode(), fast=fast)
    assert locs(events) == ["https://example.com/?a=1&b=2", "https://example.com/x"]
    assert entries(events)[0].lastmod == datetime(2024, 1, 2, tzinfo=UTC)


def test_entities_are_decoded_exactly_once(fast: bool) -> None:
    """`&amp;amp;` gives `&amp;`, and the predefined and numeric references decode once."""
    doc = urlset(
        url_block("https://example.com/?a=1&amp;amp;b=2"),
        url_block("https://example.com/?q=&lt;x&gt;&amp;r=&quot;&apos;"),
        url_block("https://example.com/caf&#233;/&#x65E5;&#26412;"),
    )
    assert locs(parse(doc.encode(), fast=fast)) == [
        "https://example.com/?a=1&amp;b=2",
        "https://example.com/?q=<x>&r=\"'",
        "https://example.com/café/日本",
    ]


def test_utf8_bom_is_accepted(fast: bool) -> None:
    """A UTF-8 byte-order mark before the declaration is skipped."""
    doc = b"\xef\xbb\xbf" + urlset(url_block("https://example.com/\u00fc")).encode()
    events = parse(doc, fast=fast)
    assert locs(events) == ["https://example.com/ü"]
    assert problems(events) == []


@pytest.mark.parametrize("lead", [b" ", b"\n\n", b"\r\n\t  ", b"\xef\xbb\xbf \n"])
def test_whitespace_before_the_declaration_is_accepted(fast: bool, lead: bytes) -> None:
    """White space (after an optional BOM) before `<?xml` does not make the document fail."""
    doc = lead + urlset(url_block("https://example.com/a")).encode()
    events = parse(doc, fast=fast)
    assert locs(events) == ["https://example.com/a"]
    assert problems(events) == []


def test_document_declared_iso_8859_1(fast: bool) -> None:
    """An ISO-8859-1 document is decoded as declared, so its non-ASCII locs come out right."""
    doc = urlset(url_block("https://example.com/caf\u00e9/\u00fcber?\u00df=\u00e0")).replace(
        "UTF-8", "ISO-8859-1"
    )
    data = doc.encode("latin-1")
    assert b"\xe9" in data
    events = parse(data, fast=fast)
    assert locs(events) == ["https://example.com/café/über?ß=à"]
    assert problems(events) == []


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_document_in_utf16(fast: bool, codec: str) -> None:
    """A UTF-16 document with a byte-order mark (either byte order) is read with its non-ASCII locs."""
    text = urlset(
        url_block("https://example.com/caf\u00e9/\u65e5\u672c", lastmod="2024-01-02"),
        url_block("https://example.com/\u0436"),
    ).replace("UTF-8", "UTF-16")
    data = text.encode(codec)
    if codec != "utf-16":
        data = ("\ufeff".encode(codec)) + data  # explicit byte order: add the mark by hand
    for chunks in (None, 1, 7):
        events = parse(data, chunks, fast=fast)
        assert locs(events) == ["https://example.com/café/日本", "https://example.com/ж"]
        assert entries(events)[0].lastmod == datetime(2024, 1, 2, tzinfo=UTC)


@pytest.mark.parametrize(("encoding", "codec"), [("GBK", "gbk"), ("Shift_JIS", "shift_jis")])
def test_declared_multibyte_encoding_expat_lacks(fast: bool, encoding: str, codec: str) -> None:
    """A urlset declared in a multi-byte encoding expat cannot read is decoded all the same
    (more in test_parser_charset.py)."""
    doc = urlset(url_block("https://example.com/\u4e2d")).replace("UTF-8", encoding)
    for chunks in (None, 1, 16):
        events = parse(doc.encode(codec), chunks, fast=fast)
        assert locs(events) == ["https://example.com/\u4e2d"]
        assert problems(events) == []


def test_declared_encoding_nothing_reads(fast: bool) -> None:
    """An encoding name no codec knows ends the document with `unknown-encoding`; it never raises."""
    doc = urlset(url_block("https://example.com/a")).replace("UTF-8", "x-no-such-encoding")
    for chunks in (None, 1, 16):
        events = parse(doc.encode(), chunks, fast=fast)
        assert len(events) == 1
        last = fatal(events)
        assert last is not None and last.kind == "unknown-encoding"
        assert "'x-no-such-encoding'" in last.message


def test_feed_declared_in_gbk_is_read_by_feedparser() -> None:
    """A GBK feed (expat cannot decode it) reaches feedparser decoded, without a fault."""
    rss = (
        '<?xml version="1.0" encoding="gbk"?><rss version="2.0"><channel><title>\u4e2d\u6587</title>'
        "<item><title>\u4e00</title><link>https://example.com/\u4e2d</link></item></channel></rss>"
    ).encode("gbk")
    for chunks in (None, 7):
        events = parse(rss, chunks)
        assert locs(events) == ["https://example.com/\u4e2d"]
        assert problems(events) == []


# -- locations --------------------------------------------------------------------------


def test_relative_locs_are_dropped_and_reported(fast: bool) -> None:
    """Relative <loc> values are not valid: dropped, and tallied as one `relative-loc` Problem."""
    doc = urlset(
        url_block("/a"),
        url_block("https://example.com/b"),
        url_block("c/d.html"),
        url_block("//cdn.example.com/e"),
    )
    events = parse(doc.encode(), fast=fast)
    assert locs(events) == ["https://example.com/b"]
    found = problem(events, "relative-loc")
    assert found.message.startswith("3 ")
    assert "'/a'" in found.message


def test_a_tally_of_one_is_said_in_the_singular(fast: bool) -> None:
    """'1 relative URL was dropped', not '1 relative URLs were dropped'; two stay plural."""
    one = parse(urlset(url_block("/a"), url_block("https://example.com/b")).encode(), fast=fast)
    two = parse(urlset(url_block("/a"), url_block("/c")).encode(), fast=fast)
    assert problem(one, "relative-loc").message.startswith("1 relative URL was dropped ")
    assert problem(two, "relative-loc").message.startswith("2 relative URLs were dropped ")


def test_relative_locs_resolved_on_request(fast: bool) -> None:
    """With resolve_relative=True, relative locs resolve against the sitemap's URL and are reported."""
    doc = urlset(url_block("/a"), url_block("c/d.html"), url_block("//cdn.example.com/e"))
    events = parse(doc.encode(), fast=fast, resolve_relative=True)
    assert locs(events) == [
        "https://example.com/a",
        "https://example.com/dir/c/d.html",
        "https://cdn.example.com/e",
    ]
    assert problem(events, "relative-loc-resolved").message.startswith("3 ")
    assert "relative-loc" not in kinds(events)


def test_relative_index_children_resolved_on_request(fast: bool) -> None:
    """Index children resolve the same way (Hugo and Yoast exports write relative ones)."""
    doc = index(sitemap_block("en/sitemap.xml"), sitemap_block("/fr/sitemap.xml"))
    assert locs(parse(doc.encode(), fast=fast)) == []
    assert locs(parse(doc.encode(), fast=fast, resolve_relative=True)) == [
        "https://example.com/dir/en/sitemap.xml",
        "https://example.com/fr/sitemap.xml",
    ]


def test_relative_locs_without_a_base_stay_dropped(fast: bool) -> None:
    """A document with no URL (stdin) cannot resolve relative locs, even when asked to."""
    events = parse(urlset(url_block("/a")).encode(), fast=fast, url="-", resolve_relative=True)
    assert locs(events) == []
    assert kinds(events) == ["relative-loc"]


def test_non_http_and_garbage_locs_are_invalid(fast: bool) -> None:
    """Other schemes and values that cannot be URLs are dropped as `invalid-loc`, never resolved."""
    doc = urlset(
        url_block("ftp://example.com/f"),
        url_block("mailto:someone@example.com"),
        url_block("Page not found"),
        url_block("https://example.com/ok"),
    )
    events = parse(doc.encode(), fast=fast, resolve_relative=True)
    assert locs(events) == ["https://example.com/ok"]
    assert problem(events, "invalid-loc").message.startswith("3 ")


def test_missing_and_empty_locs(fast: bool) -> None:
    """A <url> without a <loc>, or with an empty one, is dropped as `missing-loc`."""
    doc = urlset(
        "<url><lastmod>2024-01-01</lastmod></url>", url_block("  "), url_block("https://a.org/")
    )
    events = parse(doc.encode(), fast=fast)
    assert locs(events) == ["https://a.org/"]
    assert problem(events, "missing-loc").message.startswith("2 ")


def test_loc_over_the_length_limit_is_dropped(fast: bool) -> None:
    """A <loc> longer than Limits.max_loc_length is dropped and reported as `loc-too-long`."""
    long = "https://example.com/" + "a" * 100
    doc = urlset(url_block(long), url_block("https://example.com/short"))
    events = parse(doc.encode(), fast=fast, limits=Limits(max_loc_length=50))
    assert locs(events) == ["https://example.com/short"]
    assert "120 characters" in problem(events, "loc-too-long").message


# -- extensions -------------------------------------------------------------------------

EXTENSIONS = f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}" xmlns:video="{VIDEO_NS}"
        xmlns:news="{NEWS_NS}" xmlns:xhtml="{XHTML_NS}">
<url>
  <loc>https://example.com/page</loc>
  <xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/page"/>
  <xhtml:link rel="alternate" hreflang="fr-ca" href="https://example.com/fr/page" media="only screen"/>
  <xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/page"/>
  <xhtml:link rel="canonical" href="https://example.com/canonical"/>
  <image:image>
    <image:loc>https://example.com/1.jpg</image:loc>
    <image:caption>One &amp; only</image:caption>
    <image:title>First</image:title>
    <image:geo_location>Paris</image:geo_location>
    <image:license>https://example.com/license</image:license>
  </image:image>
  <image:image><image:loc>https://example.com/2.jpg</image:loc></image:image>
  <image:image><image:loc><![CDATA[https://example.com/3.jpg?a=1&b=2]]></image:loc></image:image>
  <video:video>
    <video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc>
    <video:title>Grilling steaks</video:title>
    <video:description>Alkis shows you how &lt;b&gt;not&lt;/b&gt; to burn them.</video:description>
    <video:content_loc>https://example.com/v.mp4</video:content_loc>
    <video:player_loc>https://example.com/player?v=1</video:player_loc>
    <video:duration>600</video:duration>
    <video:expiration_date>2030-11-05T19:20:30+08:00</video:expiration_date>
    <video:rating>4.2</video:rating>
    <video:view_count>12345</video:view_count>
    <video:publication_date>2024-11-05T19:20:30+08:00</video:publication_date>
    <video:family_friendly>yes</video:family_friendly>
    <video:requires_subscription>no</video:requires_subscription>
    <video:live>No</video:live>
    <video:uploader info="https://example.com/u">GrillyMcGrillerson</video:uploader>
    <video:tag>steak</video:tag>
    <video:tag>meat</video:tag>
    <video:category>Grilling</video:category>
  </video:video>
  <video:video><video:title>Second</video:title></video:video>
  <news:news>
    <news:publication>
      <news:name>The Example Times</news:name>
      <news:language>en</news:language>
    </news:publication>
    <news:publication_date>2008-12-23</news:publication_date>
    <news:title>Companies A, B in Merger Talks</news:title>
    <news:keywords>business, merger</news:keywords>
  </news:news>
</url>
<url><loc>https://example.com/plain</loc></url>
</urlset>
"""


def test_extensions_several_per_url(fast: bool) -> None:
    """Images, videos, news and xhtml:link alternates are read, several per URL, in order."""
    events = parse(EXTENSIONS.encode(), fast=fast)
    page, plain = entries(events)
    assert page.images == (
        Image(
            "https://example.com/1.jpg",
            "One & only",
            "First",
            "Paris",
            "https://example.com/license",
        ),
        Image("https://example.com/2.jpg"),
        Image("https://example.com/3.jpg?a=1&b=2"),
    )
    assert page.alternates == (
        Alternate("de", "https://example.com/de/page"),
        Alternate("fr-ca", "https://example.com/fr/page", "only screen"),
        Alternate("x-default", "https://example.com/page"),
    )  # rel="canonical" is not an alternate
    first, second = page.videos
    assert first.title == "Grilling steaks"
    assert first.description == "Alkis shows you how <b>not</b> to burn them."
    assert (first.thumbnail_loc, first.content_loc, first.player_loc) == (
        "https://example.com/t.jpg",
        "https://example.com/v.mp4",
        "https://example.com/player?v=1",
    )
    assert (first.duration, first.rating, first.view_count) == (600, 4.2, 12345)
    assert first.expiration_date == datetime(2030, 11, 5, 19, 20, 30, tzinfo=tz(8))
    assert first.publication_date == datetime(2024, 11, 5, 19, 20, 30, tzinfo=tz(8))
    assert (first.family_friendly, first.requires_subscription, first.live) == (True, False, False)
    assert (first.uploader, first.category, first.tags) == (
        "GrillyMcGrillerson",
        "Grilling",
        ("steak", "meat"),
    )
    assert second.title == "Second" and second.duration is None and second.tags == ()
    assert page.news == (
        News(
            "The Example Times",
            "en",
            datetime(2008, 12, 23, tzinfo=UTC),
            "Companies A, B in Merger Talks",
            "business, merger",
        ),
    )
    assert plain == Entry("https://example.com/plain", sitemap=URL)
    assert problems(events) == []


def test_malformed_extension_values_are_left_out_and_tallied(fast: bool) -> None:
    """An image without a loc and non-numeric or non-date video values are dropped and tallied."""
    doc = urlset(
        "<url><loc>https://example.com/p</loc>"
        "<image:image><image:caption>no loc</image:caption></image:image>"
        "<image:image><image:loc>https://example.com/ok.jpg</image:loc></image:image>"
        "<video:video><video:duration>ten minutes</video:duration>"
        "<video:publication_date>someday</video:publication_date>"
        "<video:family_friendly>maybe</video:family_friendly></video:video></url>",
        extra=f' xmlns:image="{IMAGE_NS}" xmlns:video="{VIDEO_NS}"',
    )
    events = parse(doc.encode(), fast=fast)
    [entry] = entries(events)
    assert entry.images == (Image("https://example.com/ok.jpg"),)
    [video] = entry.videos
    assert (video.duration, video.publication_date, video.family_friendly) == (None, None, None)
    # The image without its loc is a kind of its own; the three malformed values another.
    bad = problem(events, "invalid-extension")
    assert (bad.count, bad.example) == (3, "number 'ten minutes'")
    assert bad.message.startswith("3 ")
    image = problem(events, "image-missing-loc")
    assert (image.count, image.example) == (1, "caption 'no loc'")


def test_extension_elements_in_another_namespace_are_not_read(fast: bool) -> None:
    """An `image:` prefix bound to some other namespace is not the image extension: its
    image is not read, and that is said (see test_parser_ext_namespaces)."""
    doc = urlset(
        "<url><loc>https://example.com/p</loc>"
        "<image:image><image:loc>https://example.com/1.jpg</image:loc></image:image></url>",
        extra=' xmlns:image="http://example.org/not-images"',
    )
    entry, said = parse(doc.encode(), fast=fast)
    assert isinstance(entry, Entry) and entry.images == ()
    assert isinstance(said, Problem) and said.kind == "invalid-extension"


@pytest.mark.parametrize("model", [Image, Video, News])
def test_every_extension_field_is_read_from_an_element(model: type) -> None:
    """The extension tables give every field of the record an element: a field added to the
    model without one would be None in every record, and no other test would notice."""
    [container] = [spec for key, spec in CONTAINERS.items() if key[1] == model.__name__.lower()]
    assert set(container.fields.values()) == {field.name for field in dataclasses.fields(model)}


# -- documents that are not sitemaps --------------------------------------------------------


@pytest.mark.parametrize(
    "page",
    [
        b"<html><head><title>Not found</title></head><body>Oops</body></html>",
        b"<!DOCTYPE html>\n<html lang=en><body><p>Page not found<br></body></html>",
        b"\xef\xbb\xbf\r\n<!doctype HTML><HTML><BODY>soft 404</BODY></HTML>",
        b'<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>',
    ],
    ids=["html", "doctype", "bom-upper", "xhtml"],
)
def test_html_page_gives_no_records_and_one_html_problem(fast: bool, page: bytes) -> None:
    """A web page served where a sitemap was expected (soft 404) yields one `html` Problem only."""
    for chunks in (None, 1):
        parser = SitemapParser(URL, fast=fast)
        events = []
        for piece in [page] if chunks is None else [page[i : i + 1] for i in range(len(page))]:
            events += parser.feed(piece)
        events += parser.close()
        assert len(events) == 1
        assert isinstance(events[0], Problem) and events[0].kind == "html" and events[0].fatal
        assert parser.format is Format.HTML


def test_unknown_root_element(fast: bool) -> None:
    """Well-formed XML with another root is `unknown-format`, fatal, with no records."""
    parser = SitemapParser(URL, fast=fast)
    events = parser.feed(
        b'<?xml version="1.0"?><catalog><url><loc>https://a.org/</loc></url></catalog>'
    )
    events += parser.close()
    assert len(events) == 1
    last = fatal(events)
    assert last is not None and last.kind == "unknown-format"
    assert "<catalog>" in last.message
    assert parser.format is Format.UNKNOWN


@pytest.mark.parametrize("data", [b"", b"   \r\n\t ", b"\xef\xbb\xbf", b"\xef\xbb\xbf\n\n"])
def test_empty_document(data: bytes) -> None:
    """No bytes, or only white space and a BOM, is an `empty` document."""
    events = parse(data)
    assert [(e.kind, e.fatal) for e in problems(events)] == [("empty", True)]
    assert len(events) == 1


def test_declaration_without_a_root_is_empty(fast: bool) -> None:
    """An XML declaration and a comment with no root element is `empty` too."""
    events = parse(b'<?xml version="1.0"?>\n<!-- nothing here -->\n', fast=fast)
    assert kinds(events) == ["empty"]


# -- documents that end badly ---------------------------------------------------------------


def _blocks_and_ends() -> tuple[bytes, list[tuple[str, int, int]]]:
    """A urlset, and for each of its entries the offsets where its </loc> and </url> end."""
    blocks = [
        url_block("https://example.com/1", lastmod="2024-01-01", priority="0.5"),
        "<url><loc><![CDATA[https://example.com/2?a&b]]></loc></url>",
        url_block("https://example.com/3?x=1&amp;y=\u00e9"),
        "<url>\n  <loc>https://example.com/4</loc>\n</url>",
    ]
    data = urlset(*blocks).encode()
    ends, at = [], 0
    for n, block in enumerate(blocks, 1):
        at = data.index(block.encode(), at)
        loc_end = data.index(b"</loc>", at) + len(b"</loc>")
        at += len(block.encode())
        ends.append((f"https://example.com/{n}", loc_end, at))
    return data, ends


def test_truncated_document_keeps_every_entry_whose_loc_closed(fast: bool) -> None:
    """Cut anywhere inside the root, a urlset keeps each entry whose </url> came, and the one
    the cut falls in once its </loc> came (`cut-entry`), then `truncated`."""
    data, ends = _blocks_and_ends()
    root_end = data.index(b">", data.index(b"<urlset")) + 1
    close = data.rindex(b"</urlset>")
    for cut in range(root_end, close):
        events = parse(data[:cut], fast=fast)
        expected = [loc for loc, loc_end, _ in ends if loc_end <= cut]
        assert [loc.split("?")[0] for loc in locs(events)] == expected, cut
        in_cut = [loc for loc, loc_end, end in ends if loc_end <= cut < end]
        assert ("cut-entry" in kinds(events)) == bool(in_cut), cut
        last = fatal(events)
        assert last is not None and last.kind == "truncated", (cut, events)
        assert re.search(r"line \d+, column \d+", last.message)


def test_not_well_formed_keeps_entries_before_the_fault(fast: bool) -> None:
    """A stray `&` ends the document with `not-well-formed` naming line and column; earlier entries stand."""
    data = (
        f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}">\n'
        "<url><loc>https://example.com/1</loc></url>\n"
        "<url><loc>https://example.com/2?a=1&b=2</loc></url>\n"
        "<url><loc>https://example.com/3</loc></url>\n</urlset>\n"
    ).encode()
    for chunks in (None, 1, 10):
        events = parse(data, chunks, fast=fast)
        assert locs(events) == ["https://example.com/1"]
        last = fatal(events)
        assert last is not None and last.kind == "not-well-formed"
        # Expat stops at the "=" that ends the entity name "b" (0-based column 37).
        assert last.message.endswith("at line 4, column 37")
        assert (last.line, last.column) == (4, 37)  # the same place, as fields


def test_merge_conflict_markers_are_their_own_kind(fast: bool) -> None:
    """git's "<<<<<<< HEAD" in a sitemap is a merge-conflict, at its line; the entries
    before it stand."""
    data = urlset(
        url_block("https://example.com/1"),
        "<<<<<<< HEAD",
        url_block("https://example.com/2"),
        "=======",
        url_block("https://example.com/3"),
        ">>>>>>> feature",
    ).encode()
    assert b"\n<<<<<<< HEAD\n" in data
    for chunks in (None, 1, 2, 7):  # the verdict is the same however the bytes come
        events = parse(data, chunks, fast=fast)
        assert locs(events) == ["https://example.com/1"]
        last = fatal(events)
        assert last is not None and last.kind == "merge-conflict", (chunks, last)
        assert last.line is not None and data.split(b"\n")[last.line - 1] == b"<<<<<<< HEAD"


@pytest.mark.parametrize("line", ["&<a>", " <<a>", "<1>"])
def test_other_faults_at_a_line_start_are_not_merge_conflicts(fast: bool, line: str) -> None:
    data = urlset(url_block("https://example.com/1"), line).encode()
    for chunks in (None, 1):
        last = fatal(parse(data, chunks, fast=fast))
        assert last is not None and last.kind == "not-well-formed", (line, chunks, last)


def test_mismatched_tag_is_not_well_formed(fast: bool) -> None:
    """A mismatched end tag is reported with its position, after the entries before it."""
    data = urlset(
        url_block("https://example.com/1"), "<url><loc>https://example.com/2</lastmod></url>"
    )
    events = parse(data.encode(), fast=fast)
    assert locs(events) == ["https://example.com/1"]
    last = fatal(events)
    assert last is not None and last.kind == "not-well-formed"
    assert "mismatched tag" in last.message and "line 4" in last.message


def test_max_urls_counts_but_reads_everything_by_default(fast: bool) -> None:
    """Past Limits.max_urls every entry is still read, and one `too-many-urls` Problem says by how many."""
    doc = urlset(*(url_block(f"https://example.com/{i}") for i in range(7)))
    parser = SitemapParser(URL, fast=fast, limits=Limits(max_urls=5))
    events = parser.feed(doc.encode()) + parser.close()
    assert len(entries(events)) == 7
    found = problem(events, "too-many-urls")
    assert not found.fatal
    assert "7 entries, 2 more than the limit of 5" in found.message
    assert (found.count, found.example) == (7, None)
    assert parser.entries == 7


@pytest.mark.parametrize("kind", ["urlset", "index"])
def test_max_urls_cuts_when_configured(fast: bool, kind: str) -> None:
    """With cut_at_max_urls, exactly max_urls records come out, then a fatal `too-many-urls`."""
    if kind == "urlset":
        doc = urlset(*(url_block(f"https://example.com/{i}") for i in range(7)))
    else:
        doc = index(*(sitemap_block(f"https://example.com/{i}.xml") for i in range(7)))
    for chunks in (None, 1, 33):
        limits = Limits(max_urls=5, cut_at_max_urls=True)
        events = parse(doc.encode(), chunks, fast=fast, limits=limits)
        assert len(entries(events) + refs(events)) == 5
        last = fatal(events)
        assert last is not None and last.kind == "too-many-urls"


def test_dropped_locs_do_not_count_toward_max_urls(fast: bool) -> None:
    """Only emitted records count against max_urls: relative locs dropped before do not."""
    doc = urlset(
        url_block("/a"), url_block("/b"), *(url_block(f"https://a.org/{i}") for i in range(3))
    )
    events = parse(doc.encode(), fast=fast, limits=Limits(max_urls=3, cut_at_max_urls=True))
    assert len(entries(events)) == 3
    assert fatal(events) is None


def test_feeding_nothing_changes_nothing(fast: bool) -> None:
    """feed(b"") returns no events and does not end the document (close() does)."""
    parser = SitemapParser(URL, fast=fast)
    assert parser.feed(b"") == []
    assert parser.format is None
    assert locs(parser.feed(urlset(url_block("https://a.org/")).encode())) == ["https://a.org/"]
    assert parser.feed(b"") == []
    assert not parser.ended
    assert parser.close() == []
    assert parser.ended
    assert parser.close() == []  # a second close is harmless


@pytest.mark.parametrize(
    "document",
    [
        urlset(*(f"<url><loc>{URL}p{i}</loc></url>" for i in range(50))).encode(),
        gz(urlset(*(f"<url><loc>{URL}p{i}</loc></url>" for i in range(50))).encode()),
        urlset(f"<url><loc>{URL}a</loc></url>", "<url><loc>").encode(),  # cut
        urlset(f"<url><loc>{URL}a</loc></url>", "<url><loc>&bad;</loc></url>").encode(),
        index(f"{URL}a.xml", f"{URL}b.xml").encode(),
        f"{URL}a\n{URL}b\n".encode(),  # text
    ],
    ids=["urlset", "gzip", "truncated", "not-well-formed", "index", "text"],
)
def test_a_finished_document_leaves_no_cycle(fast: bool, document: bytes) -> None:
    """Once a document is done its parser holds no reference cycle (expat's handlers are bound
    methods of the objects that hold expat): it is freed at once, buffers and all, not at a
    collection that a long run may put off."""
    gc.collect()
    gc.disable()
    try:
        parser = SitemapParser(URL, fast=fast)
        parser.feed(document)
        parser.close()
        assert parser.format is not None  # (the handler itself is kept: it is asked things)
        del parser
        assert gc.collect() == 0
    finally:
        gc.enable()
