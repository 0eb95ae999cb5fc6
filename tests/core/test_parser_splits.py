"""Chunking never changes the result (docs/architecture.md, "Chunks"): every small fixture gives identical events
parsed whole, byte by byte, and split in two at every position, plain and gzipped; larger
generated inputs give identical events at random split points."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_reader import Event, Limits
from tests.support.helpers import (
    IMAGE_NS,
    SITEMAP_NS,
    XHTML_NS,
    bytewise,
    cut_at,
    entries,
    fatal,
    gz,
    kinds,
    locs,
    parse,
    parse_chunks,
    problems,
    random_splits,
    two_way_splits,
    url_block,
    urlset,
    whole,
)

NS = SITEMAP_NS

# Each under 2 KB, each exercising something a chunk boundary could break.
FIXTURES: dict[str, bytes] = {
    "urlset": (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="{NS}">\n'
        "  <url>\n    <loc>https://example.com/caf\u00e9/\u65e5\u672c?q=1&amp;r=2</loc>\n"
        "    <lastmod>2024-03-05T10:20:30+02:00</lastmod>\n    <changefreq>Weekly</changefreq>\n"
        "    <priority>0.8</priority>\n  </url>\n"
        "  <url><loc><![CDATA[https://example.com/cdata?a=1&b=2]]></loc></url>\n"
        "  <!-- a comment -->\n"
        "  <url><loc>\n     https://example.com/spaced\n  </loc><lastmod>2024-01-01 08:00</lastmod></url>\n"
        "  <url><loc>/relative</loc></url>\n"
        "  <url><loc>https://example.com/&#233;t&#xE9;</loc><lastmod>junk</lastmod>"
        "<priority>2</priority></url>\n"
        "  <url><loc>https://example.com/\U0001f600/\u0436</loc></url>\n"
        "</urlset>\n"
    ).encode(),
    "bom-and-leading-whitespace": (
        "\ufeff \r\n\t<?xml version='1.0'?>\r\n"
        f"<urlset xmlns='{NS}'><url><loc>https://example.com/\u00fcber</loc></url>"
        "<url><loc>https://example.com/b</loc></url></urlset>"
    ).encode(),
    "no-namespace": (
        "<urlset><url><loc>https://example.com/a</loc></url>"
        "<url><loc>https://example.com/\u00e9</loc></url></urlset>"
    ).encode(),
    "index": (
        f'<?xml version="1.0"?>\n<sitemapindex xmlns="{NS}">\n'
        "<sitemap><loc>https://example.com/s1.xml.gz</loc><lastmod>2024-02-01\n</lastmod></sitemap>\n"
        "<sitemap>\n<loc>https://example.com/s2.xml?x=1&amp;y=\u00e9</loc>\n</sitemap>\n"
        "<sitemap><loc>s3.xml</loc></sitemap>\n"
        "</sitemapindex>"
    ).encode(),
    "extensions": (
        f'<?xml version="1.0"?>\n<urlset xmlns="{NS}" xmlns:image="{IMAGE_NS}" xmlns:xhtml="{XHTML_NS}">\n'
        "<url><loc>https://example.com/p</loc>"
        "<image:image><image:loc>https://example.com/\u00e9.jpg</image:loc></image:image>\n"
        "<image:image><image:loc>https://example.com/2.jpg</image:loc>"
        "<image:caption>Two &amp; more</image:caption></image:image>\n"
        '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/p"/>'
        '<xhtml:link rel="alternate" hreflang="fr" href="https://example.com/fr/p"/></url>\n'
        "<url><loc>https://example.com/q</loc>"
        "<image:image><image:loc>https://example.com/q.jpg</image:loc></image:image></url>\n"
        "</urlset>\n"
    ).encode(),
    "extension-variants": (
        f'<?xml version="1.0"?>\n<urlset xmlns="{NS}" '
        'xmlns:image="https://www.google.com/schemas/sitemap-image/1.1/" '
        'xmlns:xhtml="http://www.w3.org/TR/xhtml11/xhtml11_schema.html" xmlns:foo="urn:foo">\n'
        "<url><loc>https://example.com/p</loc>"
        "<image:image><image:loc>https://example.com/\u00e9.jpg</image:loc></image:image>\n"
        '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/p"/>'
        "<foo:image><foo:loc>https://example.com/f.jpg</foo:loc></foo:image></url>\n"
        "</urlset>\n"
    ).encode(),
    "iso-8859-1": (
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n'
        f'<urlset xmlns="{NS}"><url><loc>https://example.com/caf\u00e9/\u00fcber</loc></url></urlset>'
    ).encode("latin-1"),
    "utf-16": (
        '<?xml version="1.0" encoding="UTF-16"?>\n'
        f'<urlset xmlns="{NS}"><url><loc>https://example.com/\u65e5\u672c</loc></url>'
        "<url><loc>https://example.com/b</loc></url></urlset>"
    ).encode("utf-16"),
    "text": (
        b"\xef\xbb\xbfhttps://example.com/a\r\n\r\n  https://example.com/b  \r\nnot a url\r\n"
        b"https://example.com/caf\xe9\r\nhttps://example.com/\xe6\x97\xa5\xe6\x9c\xac\n"
        b"https://example.com/end"
    ),
    "rss": (
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>T</title>'
        "<link>https://example.com/</link>"
        "<item><title>One</title><link>https://example.com/1</link>"
        "<pubDate>Sat, 07 Sep 2002 00:00:01 GMT</pubDate></item>"
        '<item><title>Two \u00e9</title><guid isPermaLink="true">https://example.com/\u00e9</guid></item>'
        "</channel></rss>"
    ).encode(),
    "atom": (
        b'<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
        b"<title>T</title><id>urn:x</id><updated>2024-01-01T00:00:00Z</updated>"
        b'<entry><title>A</title><id>urn:a</id><link href="https://example.com/a"/>'
        b"<updated>2024-01-02T03:04:05Z</updated></entry>"
        b'<entry><title>B</title><id>urn:b</id><link href="https://example.com/b"/>'
        b"<updated>2024-01-03T00:00:00+01:00</updated></entry></feed>"
    ),
    "truncated": (
        f'<?xml version="1.0"?><urlset xmlns="{NS}"><url><loc>https://example.com/1</loc></url>'
        "<url><loc>https://example.com/2</loc><lastmod>2024-01-01</lastmod></url>"
        "<url><loc>https://exam"
    ).encode(),
    "truncated-feed": (
        b'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>'
        b"<item><link>https://example.com/1</link></item><item><link>https://example.com/2</lin"
    ),
    "not-well-formed": (
        f'<?xml version="1.0"?>\n<urlset xmlns="{NS}">\n<url><loc>https://example.com/1</loc></url>\n'
        "<url><loc>https://example.com/2?a=1&b=2</loc></url>\n"
        "<url><loc>https://example.com/3</loc></url>\n</urlset>"
    ).encode(),
    "several-locs": (
        f'<?xml version="1.0"?>\n<urlset xmlns="{NS}">\n'
        "<url><loc>https://example.com/1</loc><lastmod>2024-01-01</lastmod>\n"
        "  <loc>https://example.com/\u00e9</loc></url>\n"
        "<url><loc>https://example.com/3</loc><url><loc>https://example.com/4</loc></url></url>\n"
        "</urlset>\n"
    ).encode(),
    "unclosed-index": (
        f'<?xml version="1.0"?>\n<sitemapindex xmlns="{NS}">\n'
        "<sitemap><loc>https://example.com/s1.xml</loc><loc>https://example.com/s2.xml</loc>\n"
        "<sitemap><loc>https://example.com/s3.xml</loc></sitemap>\n"
        "</sitemapindex>\n"
    ).encode(),
    "cut-index": (
        f'<?xml version="1.0"?>\n<sitemapindex xmlns="{NS}">\n'
        "<sitemap><loc>https://example.com/s1.xml</loc></sitemap>\n"
        "<sitemap><loc>https://example.com/s2.xml</loc><lastmod>2024-01-01</lastmod><lastmod>20"
    ).encode(),
    "html": b"<!DOCTYPE html>\n<html><head><title>404</title></head><body>Not found</body></html>",
    "unsafe": (
        b'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY a "https://example.com/x">]>\n'
        b"<urlset><url><loc>&a;</loc></url></urlset>"
    ),
}


def _variants(data: bytes) -> list[tuple[str, bytes]]:
    return [("plain", data), ("gzip", gz(data))]


@pytest.mark.parametrize("name", list(FIXTURES))
def test_fixtures_are_small(name: str) -> None:
    """The fixtures stay under 2 KB, so testing every split stays cheap."""
    assert len(FIXTURES[name]) < 2048


@pytest.mark.parametrize("packing", ["plain", "gzip"])
@pytest.mark.parametrize("name", list(FIXTURES))
def test_every_split_gives_identical_events(name: str, packing: str) -> None:
    """Whole, byte by byte, and every two-way split give the same events, on both XML paths."""
    data = FIXTURES[name] if packing == "plain" else gz(FIXTURES[name])
    reference = parse_chunks(whole(data))
    assert reference, "every fixture yields at least one event"
    assert parse_chunks(whole(data), fast=False) == reference
    assert parse_chunks(bytewise(data)) == reference
    assert parse_chunks(bytewise(data), fast=False) == reference
    for pieces in two_way_splits(data):
        assert parse_chunks(pieces) == reference, len(pieces[0])


def test_gzip_does_not_change_the_events() -> None:
    """Each fixture gives the same events gzipped as plain."""
    for name, data in FIXTURES.items():
        assert parse(gz(data)) == parse(data), name


EXPECTED: dict[str, tuple[list[str], list[str]]] = {
    # fixture: (locs, problem kinds), what the split tests above hold steady
    "urlset": (
        [
            "https://example.com/café/日本?q=1&r=2",
            "https://example.com/cdata?a=1&b=2",
            "https://example.com/spaced",
            "https://example.com/été",
            "https://example.com/\U0001f600/ж",
        ],
        ["relative-loc", "invalid-lastmod", "invalid-priority"],
    ),
    "bom-and-leading-whitespace": (["https://example.com/über", "https://example.com/b"], []),
    "no-namespace": (["https://example.com/a", "https://example.com/é"], ["namespace"]),
    "index": (
        ["https://example.com/s1.xml.gz", "https://example.com/s2.xml?x=1&y=é"],
        ["relative-loc"],
    ),
    "extensions": (["https://example.com/p", "https://example.com/q"], []),
    "extension-variants": (["https://example.com/p"], ["namespace", "invalid-extension"]),
    "iso-8859-1": (["https://example.com/café/über"], []),
    "utf-16": (["https://example.com/日本", "https://example.com/b"], []),
    "text": (
        [
            "https://example.com/a",
            "https://example.com/b",
            "https://example.com/caf%E9",
            "https://example.com/日本",
            "https://example.com/end",
        ],
        ["invalid-loc", "encoding"],
    ),
    "rss": (["https://example.com/1", "https://example.com/é"], []),
    "atom": (["https://example.com/a", "https://example.com/b"], []),
    "truncated": (["https://example.com/1", "https://example.com/2"], ["truncated"]),
    "truncated-feed": (["https://example.com/1"], ["truncated"]),
    "not-well-formed": (["https://example.com/1"], ["not-well-formed"]),
    "several-locs": (
        [
            "https://example.com/1",
            "https://example.com/\u00e9",
            "https://example.com/3",
            "https://example.com/4",
        ],
        ["several-locs", "unclosed-entry"],
    ),
    "unclosed-index": (
        ["https://example.com/s1.xml", "https://example.com/s2.xml", "https://example.com/s3.xml"],
        ["several-locs", "unclosed-entry", "not-well-formed"],
    ),
    "cut-index": (
        ["https://example.com/s1.xml", "https://example.com/s2.xml"],
        ["cut-entry", "truncated"],
    ),
    "html": ([], ["html"]),
    "unsafe": ([], ["unsafe-xml"]),
}


@pytest.mark.parametrize("name", list(FIXTURES))
def test_fixture_events(name: str) -> None:
    """Each fixture reads as intended, so the split tests compare meaningful results."""
    events = parse(FIXTURES[name])
    expected_locs, expected_kinds = EXPECTED[name]
    assert locs(events) == expected_locs
    assert kinds(events) == expected_kinds
    last = fatal(events)
    assert (last.kind if last else None) in {
        "truncated",
        "not-well-formed",
        "html",
        "unsafe-xml",
        None,
    }


# -- larger inputs, random splits ----------------------------------------------------------


@st.composite
def _large_documents(draw: st.DrawFn) -> bytes:
    """A urlset of a few hundred entries (some plain, some not), or a long text sitemap."""
    count = draw(st.integers(50, 400))
    if draw(st.booleans()):
        lines = [f"https://example.com/{i}/\u00e9" for i in range(count)]
        return "\r\n".join(lines).encode()
    shapes = [
        lambda i: url_block(f"https://example.com/{i}", lastmod="2024-01-01", priority="0.5"),
        lambda i: f"<url><loc><![CDATA[https://example.com/{i}?a&b]]></loc></url>",
        lambda i: f"<url>\n  <loc>https://example.com/{i}/\u65e5</loc>\n</url>",
        lambda i: f"<!-- {i} --><url><loc>https://example.com/&#105;{i}</loc></url>",
    ]
    picks = draw(st.lists(st.integers(0, len(shapes) - 1), min_size=count, max_size=count))
    data = urlset(*(shapes[k](i) for i, k in enumerate(picks))).encode()
    if draw(st.booleans()):
        data = data[: draw(st.integers(len(data) // 2, len(data)))]
    return data


@settings(max_examples=40)
@given(_large_documents(), st.lists(st.integers(0, 10**7), min_size=1, max_size=40), st.booleans())
def test_random_splits_of_large_inputs(data: bytes, cuts: list[int], packed: bool) -> None:
    """A few hundred entries, plain or gzipped, give the same events split at random points."""
    if packed:
        data = gz(data)
    reference = parse(data)
    assert parse_chunks(cut_at(data, cuts)) == reference


def test_seeded_three_way_splits() -> None:
    """Seeded random three-way splits of every fixture give the whole-document events."""
    for name, data in FIXTURES.items():
        reference = parse(data)
        for seed in range(20):
            assert parse_chunks(random_splits(data, seed)) == reference, (name, seed)


def test_limits_cut_at_the_same_place_whatever_the_split() -> None:
    """max_bytes and cut_at_max_urls cut at the same record for any chunking."""
    data = urlset(*(url_block(f"https://example.com/{i}") for i in range(40))).encode()
    for limits in (Limits(max_bytes=1000), Limits(max_urls=7, cut_at_max_urls=True)):
        runs: list[list[Event]] = [
            parse_chunks(pieces, limits=limits)
            for pieces in (whole(data), bytewise(data), *(random_splits(data, s) for s in range(5)))
        ]
        assert all(run == runs[0] for run in runs)
        assert entries(runs[0]) and problems(runs[0])[-1].fatal
