"""The other formats a sitemap can be: plain text, RSS 2.0, RSS 1.0, Atom 1.0 and 0.3, and any
of them gzipped (recognised by the magic bytes, whatever the name)."""

from __future__ import annotations

import gzip
import random
import zlib
from datetime import datetime, timedelta, timezone

import pytest

from sitemap_reader import Entry, Format, Limits, SitemapParser
from tests.support.helpers import (
    URL,
    cut_at,
    entries,
    fatal,
    gz,
    index,
    kinds,
    locs,
    parse,
    problem,
    problems,
    sitemap_block,
    url_block,
    urlset,
)

UTC = timezone.utc

# -- plain text ---------------------------------------------------------------------------


def test_text_one_url_a_line() -> None:
    """Each non-empty line of a text sitemap is one Entry with no other field."""
    parser = SitemapParser(URL)
    events = parser.feed(b"https://example.com/a\nhttps://example.com/b\n") + parser.close()
    assert events == [
        Entry("https://example.com/a", sitemap=URL),
        Entry("https://example.com/b", sitemap=URL),
    ]
    assert parser.format is Format.TEXT
    assert parser.entries == 2


def test_text_blank_lines_crlf_bom_and_padding() -> None:
    """A BOM, CRLF line ends, blank lines and padding around URLs are all tolerated silently."""
    data = (
        b"\xef\xbb\xbf\r\nhttps://example.com/a\r\n\r\n   \r\n\t https://example.com/b \t\r\n"
        b"\nhttps://example.com/c"  # no final newline: read at close()
    )
    events = parse(data)
    assert locs(events) == [
        "https://example.com/a",
        "https://example.com/b",
        "https://example.com/c",
    ]
    assert problems(events) == []


def test_text_non_url_lines_are_invalid_and_not_emitted() -> None:
    """Lines that are not absolute http(s) URLs are dropped and tallied as `invalid-loc`."""
    data = (
        b"https://example.com/a\n"
        b"# a comment\n"
        b"not a url\n"
        b"<html><body>oops</body></html>\n"
        b"ftp://example.com/file\n"
        b"https://example.com/b\n"
    )
    events = parse(data, resolve_relative=True)  # garbage is never "resolved" into a URL
    assert locs(events) == ["https://example.com/a", "https://example.com/b"]
    found = problem(events, "invalid-loc")
    assert found.message.startswith("4 ")
    assert "'# a comment'" in found.message
    assert not found.fatal


def test_text_relative_lines() -> None:
    """A relative path line is `relative-loc`, and resolved when resolve_relative is set."""
    data = b"/page\nhttps://example.com/a\n"
    assert locs(parse(data)) == ["https://example.com/a"]
    assert kinds(parse(data)) == ["relative-loc"]
    resolved = parse(data, resolve_relative=True)
    assert locs(resolved) == ["https://example.com/page", "https://example.com/a"]


def test_text_non_utf8_lines_are_percent_encoded() -> None:
    """A line that is not UTF-8 keeps its ASCII and has its other bytes percent-encoded."""
    data = (
        "https://example.com/caf\u00e9\n".encode()  # UTF-8: kept as is
        + b"https://example.com/caf\xe9?q=\xc4\xe3\n"  # Latin-1 / GBK bytes
        + b"https://example.com/z\n"
    )
    events = parse(data)
    assert locs(events) == [
        "https://example.com/café",
        "https://example.com/caf%E9?q=%C4%E3",
        "https://example.com/z",
    ]
    found = problem(events, "encoding")
    assert found.message.startswith("1 ")
    assert not found.fatal


def test_text_line_over_the_token_limit_counts_once_whatever_the_split() -> None:
    """A line longer than max_token_bytes is dropped and counted once, fed whole or in pieces."""
    data = (
        b"https://example.com/a\n"
        + b"https://example.com/"
        + b"x" * 500
        + b"\nhttps://example.com/b"
    )
    limits = Limits(max_token_bytes=100)
    results = [parse(data, chunks, limits=limits) for chunks in (None, 1, 7, 64, 99, 100, 101)]
    assert all(r == results[0] for r in results)
    assert locs(results[0]) == ["https://example.com/a", "https://example.com/b"]
    found = problem(results[0], "loc-too-long")
    assert found.message.startswith("1 ")


def test_text_max_urls() -> None:
    """Text sitemaps honour max_urls like XML: counted by default, cut when configured."""
    data = b"".join(b"https://example.com/%d\n" % i for i in range(6))
    counted = parse(data, limits=Limits(max_urls=4))
    assert len(entries(counted)) == 6
    assert "too-many-urls" in kinds(counted)
    cut = parse(data, limits=Limits(max_urls=4, cut_at_max_urls=True))
    assert len(entries(cut)) == 4
    last = fatal(cut)
    assert last is not None and last.kind == "too-many-urls"


# -- feeds ----------------------------------------------------------------------------------

RSS2 = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>T</title><link>https://example.com/</link>
<item><title>One</title><link>https://example.com/1</link><guid>https://example.com/g1</guid>
  <pubDate>Tue, 02 Jan 2024 03:04:05 +0100</pubDate></item>
<item><title>Two</title><guid>https://example.com/2</guid><pubDate>Sat, 07 Sep 2002 00:00:01 GMT</pubDate></item>
<item><title>Three</title><guid isPermaLink="false">https://example.com/3</guid></item>
<item><title>Four</title><link> https://example.com/4 </link><pubDate>not a date</pubDate></item>
<item><title>Five</title><link><![CDATA[https://example.com/5?a=1&b=2]]></link></item>
</channel></rss>
"""


def test_rss2_link_and_pubdate() -> None:
    """RSS 2.0 items give link (else a permalink guid) as loc and pubDate as lastmod."""
    parser = SitemapParser(URL)
    events = parser.feed(RSS2) + parser.close()
    assert parser.format is Format.RSS
    assert [(e.loc, e.lastmod) for e in entries(events)] == [
        (
            "https://example.com/1",
            datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=1))),
        ),
        ("https://example.com/2", datetime(2002, 9, 7, 0, 0, 1, tzinfo=UTC)),
        ("https://example.com/4", None),
        ("https://example.com/5?a=1&b=2", None),
    ]
    # guid isPermaLink="false" is not a URL to use; a bad pubDate keeps the item.
    assert problem(events, "missing-loc").message.startswith("1 ")
    assert "'not a date'" in problem(events, "invalid-lastmod").message
    assert all(
        e.sitemap == URL and e.changefreq is None and e.priority is None for e in entries(events)
    )


RSS1 = b"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
         xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="https://example.com/"><title>T</title><link>https://example.com/</link>
  <items><rdf:Seq><rdf:li resource="https://example.com/1"/><rdf:li resource="https://example.com/2"/></rdf:Seq></items>
</channel>
<item rdf:about="https://example.com/1"><title>One</title><link>https://example.com/1</link>
  <dc:date>2024-01-02T03:04:05Z</dc:date></item>
<item rdf:about="https://example.com/2"><title>Two</title><link>https://example.com/2</link></item>
</rdf:RDF>
"""


def test_rss1_rdf() -> None:
    """RSS 1.0 (RDF) items give their link, and dc:date as lastmod."""
    parser = SitemapParser(URL)
    events = parser.feed(RSS1) + parser.close()
    assert parser.format is Format.RSS
    assert [(e.loc, e.lastmod) for e in entries(events)] == [
        ("https://example.com/1", datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("https://example.com/2", None),
    ]
    assert problems(events) == []


ATOM1 = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><id>urn:x</id>
<updated>2024-01-01T00:00:00Z</updated>
<entry><title>A</title><id>urn:a</id>
  <link rel="edit" href="https://example.com/edit/a"/><link href="https://example.com/a"/>
  <published>2023-01-01T00:00:00Z</published><updated>2024-01-02T03:04:05Z</updated></entry>
<entry><title>B</title><id>urn:b</id><link rel="alternate" type="text/html" href="https://example.com/b"/>
  <updated>2024-01-03T00:00:00+02:00</updated></entry>
</feed>
"""


def test_atom1_alternate_link_and_updated() -> None:
    """Atom 1.0 entries give the alternate (or rel-less) link and `updated` over `published`."""
    parser = SitemapParser(URL)
    events = parser.feed(ATOM1) + parser.close()
    assert parser.format is Format.ATOM
    assert [(e.loc, e.lastmod) for e in entries(events)] == [
        ("https://example.com/a", datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("https://example.com/b", datetime(2024, 1, 3, tzinfo=timezone(timedelta(hours=2)))),
    ]
    assert problems(events) == []


ATOM03 = b"""<?xml version="1.0" encoding="utf-8"?>
<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>T</title>
<modified>2024-01-01T00:00:00Z</modified>
<entry><title>A</title><link rel="alternate" type="text/html" href="https://example.com/a"/>
  <id>tag:example.com,2024:a</id><issued>2023-12-01T00:00:00Z</issued>
  <modified>2024-01-05T06:07:08Z</modified></entry>
<entry><title>B</title><link rel="alternate" type="text/html" href="https://example.com/b"/>
  <id>tag:example.com,2024:b</id><modified>2024-01-06T00:00:00Z</modified></entry>
</feed>
"""


def test_atom03_alternate_link_and_modified() -> None:
    """Atom 0.3 entries give the alternate link and `modified` as lastmod."""
    parser = SitemapParser(URL)
    events = parser.feed(ATOM03) + parser.close()
    assert parser.format is Format.ATOM
    assert [(e.loc, e.lastmod) for e in entries(events)] == [
        ("https://example.com/a", datetime(2024, 1, 5, 6, 7, 8, tzinfo=UTC)),
        ("https://example.com/b", datetime(2024, 1, 6, tzinfo=UTC)),
    ]


def test_feed_relative_links_follow_the_loc_rules() -> None:
    """Relative item links are dropped as `relative-loc`, or resolved on request, as in XML."""
    feed = RSS2.replace(b"https://example.com/1</link>", b"/one</link>")
    assert "relative-loc" in kinds(parse(feed))
    assert locs(parse(feed, resolve_relative=True))[0] == "https://example.com/one"


@pytest.mark.parametrize(
    "feed", [RSS2, RSS1, ATOM1, ATOM03], ids=["rss2", "rss1", "atom1", "atom03"]
)
def test_truncated_feed_keeps_only_closed_items(feed: bytes) -> None:
    """A feed cut anywhere after its root keeps the items that closed before the cut, then `truncated`."""
    full = locs(parse(feed))
    root_end = feed.index(b">", feed.index(b"<", feed.index(b"?>") + 2)) + 1
    close_tag = feed.rindex(b"</")
    for cut in range(root_end, close_tag, 7):
        events = parse(feed[:cut])
        got = locs(events)
        assert got == full[: len(got)], cut  # a prefix: never a partial or invented item
        last = fatal(events)
        assert last is not None and last.kind == "truncated", (cut, events)
        closed = feed[:cut].count(b"</item>") + feed[:cut].count(b"</entry>")
        assert len(entries(events)) <= closed


def test_feed_over_max_feed_bytes_is_cut_the_same_whatever_the_split() -> None:
    """A feed over Limits.max_feed_bytes keeps the items before the cap and ends with `too-large`."""
    limits = Limits(max_feed_bytes=RSS2.index(b"</item>") + 10)
    results = [parse(RSS2, chunks, limits=limits) for chunks in (None, 1, 50)]
    assert all(r == results[0] for r in results)
    assert locs(results[0]) == ["https://example.com/1"]
    last = fatal(results[0])
    assert last is not None and last.kind == "too-large"


def test_max_feed_bytes_does_not_cap_sitemaps() -> None:
    """max_feed_bytes caps feeds only: a bigger urlset is read to its end, in one piece or in chunks."""
    doc = urlset(*(url_block(f"https://example.com/{i}") for i in range(500))).encode()
    limits = Limits(max_feed_bytes=len(doc) // 3)
    for chunks in (None, len(doc) // 2, 4096):
        events = parse(doc, chunks, limits=limits)
        assert len(entries(events)) == 500
        assert problems(events) == []


def test_truncated_utf16_feed() -> None:
    """A cut UTF-16 feed keeps its closed items too (the cut falls after a whole character)."""
    rss = RSS2.decode().replace("UTF-8", "UTF-16")
    for codec in ("utf-16", "utf-16-be"):
        data = rss.encode(codec) if codec == "utf-16" else b"\xfe\xff" + rss.encode(codec)
        cut = data[: len(data) * 2 // 3]
        events = parse(cut)
        assert locs(events) == ["https://example.com/1", "https://example.com/2"]
        last = fatal(events)
        assert last is not None and last.kind == "truncated"


def test_broken_feed_is_read_leniently_and_reported() -> None:
    """A feed with a fault midway (a stray `&`) is still read by feedparser, and the fault is reported."""
    feed = RSS2.replace(b"<title>Two</title>", b"<title>Two & more</title>")
    events = parse(feed)
    assert locs(events) == locs(parse(RSS2))
    found = problem(events, "not-well-formed")
    assert not found.fatal
    assert "line 5, column 18" in found.message and "leniently" in found.message


def test_junk_before_a_feed_is_read_leniently() -> None:
    """Markup injected before the declaration (a <script>) does not hide the feed behind it."""
    events = parse(b"<script>track()</script>\n" + RSS2)
    assert locs(events)[:2] == ["https://example.com/1", "https://example.com/2"]
    assert not problem(events, "not-well-formed").fatal


# -- gzip (on both inflaters: the compiled core's and Python's zlib) ------------------------

DOC = urlset(*(url_block(f"https://example.com/{i}", lastmod="2024-01-01") for i in range(300)))


@pytest.mark.usefixtures("zlib_core")
@pytest.mark.parametrize("url", [URL, "https://example.com/sitemap.xml.gz", "https://e.com/s.txt"])
def test_gzip_recognised_by_magic_bytes_whatever_the_name(url: str) -> None:
    """Gzipped input is inflated because of its bytes, not its name; bytes_read is decompressed."""
    data = DOC.encode()
    parser = SitemapParser(url)
    events = []
    for i in range(0, len(gz(data)), 1000):
        events += parser.feed(gz(data)[i : i + 1000])
    events += parser.close()
    assert len(entries(events)) == 300
    assert problems(events) == []
    assert parser.gzipped
    assert parser.format is Format.URLSET
    assert parser.bytes_read == len(data)
    assert parser.bytes_in == len(gz(data))


@pytest.mark.usefixtures("zlib_core")
@pytest.mark.parametrize(
    ("plain", "fmt"),
    [
        (b"https://example.com/a\nhttps://example.com/b\n", Format.TEXT),
        (RSS2, Format.RSS),
        (ATOM1, Format.ATOM),
        (index(sitemap_block("https://example.com/s.xml")).encode(), Format.SITEMAPINDEX),
    ],
    ids=["text", "rss", "atom", "index"],
)
def test_every_format_can_be_gzipped(plain: bytes, fmt: Format) -> None:
    """Text, feeds and indexes are read the same gzipped as plain."""
    parser = SitemapParser(URL)
    events = parser.feed(gz(plain)) + parser.close()
    assert events == parse(plain)
    assert parser.format is fmt


@pytest.mark.usefixtures("zlib_core")
def test_multi_member_gzip() -> None:
    """A gzip file of several members (cat a.gz b.gz) is read member after member."""
    data = DOC.encode()
    multi = b"".join(gz(piece) for piece in cut_at(data, [100, 5000, 9000]))
    for chunks in (None, 1, 333):
        events = parse(multi, chunks)
        assert len(entries(events)) == 300, chunks
        assert problems(events) == []


@pytest.mark.usefixtures("zlib_core")
def test_zero_padding_after_the_last_member_is_ignored() -> None:
    """Trailing zero bytes after the last gzip member (tape padding) are ignored, as gzip(1) does."""
    events = parse(gz(DOC.encode()) + b"\0" * 512)
    assert len(entries(events)) == 300
    assert problems(events) == []


@pytest.mark.usefixtures("zlib_core")
def test_truncated_gzip_keeps_entries_then_truncated() -> None:
    """A gzip stream cut midway keeps every entry inflated before the cut, then a fatal `truncated`."""
    data = DOC.encode()
    packed = gz(data)
    for cut in (len(packed) // 3, len(packed) // 2, len(packed) - 20, len(packed) - 4):
        for chunks in (None, 1000):
            events = parse(packed[:cut], chunks)
            inflated = zlib.decompressobj(wbits=31).decompress(packed[:cut])
            complete = inflated.count(b"</url>")
            assert len(entries(events)) == complete, cut
            last = fatal(events)
            assert last is not None and last.kind == "truncated"


@pytest.mark.usefixtures("zlib_core")
def test_gzip_cut_in_its_trailer_still_reports_the_cut() -> None:
    """All XML inflated but the gzip trailer missing: every entry, then `truncated`."""
    events = parse(gz(DOC.encode())[:-3])
    assert len(entries(events)) == 300
    last = fatal(events)
    assert last is not None and last.kind == "truncated" and "gzip" in last.message


@pytest.mark.usefixtures("zlib_core")
def test_corrupt_gzip_header() -> None:
    """Bytes that start like gzip but are not give a fatal `gzip-error` and nothing else."""
    events = parse(b"\x1f\x8b" + b"this is not deflate data at all" * 10)
    assert len(events) == 1
    last = fatal(events)
    assert last is not None and last.kind == "gzip-error"


@pytest.mark.usefixtures("zlib_core")
def test_corrupt_gzip_keeps_entries_before_the_fault_whatever_the_split() -> None:
    """A corrupt gzip stream yields the entries inflated before the fault, the same for any chunking."""
    packed = bytearray(gz(DOC.encode()))
    packed[-6] ^= 0xFF  # the CRC: every byte inflates, the check fails at the very end
    crc_bad = bytes(packed)
    results = [parse(crc_bad, chunks) for chunks in (None, 1, 4096)]
    assert all(r == results[0] for r in results)
    assert len(entries(results[0])) == 300
    last = fatal(results[0])
    assert last is not None and last.kind == "gzip-error" and "incorrect data check" in last.message
    rng = random.Random(7)
    for _ in range(10):  # a flipped bit somewhere in the deflate data
        damaged = bytearray(gz(DOC.encode()))
        damaged[rng.randrange(20, len(damaged) - 8)] ^= 1 << rng.randrange(8)
        runs = [parse(bytes(damaged), chunks) for chunks in (None, 1, 77, 4096)]
        assert all(r == runs[0] for r in runs)


@pytest.mark.usefixtures("zlib_core")
def test_gzip_bytes_split_in_the_magic() -> None:
    """The two magic bytes may arrive in separate chunks."""
    packed = gz(DOC.encode())
    events = parse(packed, 1)
    assert len(entries(events)) == 300
    assert events == parse(packed)


@pytest.mark.usefixtures("zlib_core")
def test_stdlib_gzip_with_a_file_name_header() -> None:
    """Gzip headers with optional fields (FNAME, mtime) from other tools are read too."""
    import io

    buf = io.BytesIO()
    with gzip.GzipFile(filename="sitemap.xml", mode="wb", fileobj=buf, mtime=1_700_000_000) as f:
        f.write(DOC.encode())
    events = parse(buf.getvalue())
    assert len(entries(events)) == 300
