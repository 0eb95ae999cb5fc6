"""Sitemap: lines of robots.txt files, on the real files of the corpus, and the Crawl-delay
of the reader's group."""

from __future__ import annotations

import pytest

from sitemap_reader._core._formats._robots import (
    CrawlDelay,
    crawl_delay,
    product_token,
    sitemap_urls,
)
from tests.support.helpers import CORPUS, needs_corpus

ROBOTS = "https://site.example/robots.txt"

# file -> the sitemaps a crawler must follow, in file order
EXPECTED = {
    "akrustal.ru__robots.txt": ["https://akrustal.ru/sitemap.xml"],
    "ask.9939.com__robots.txt": [
        "http://ask.9939.com/sitemap.xml",
        "http://ask.9939.com/sitemap.html",
        "http://ask.9939.com/sitemap_ask.xml",
        "http://ask.9939.com/newlist.txt",
        "http://ask.9939.com/7_16.txt",
    ],
    "cve.moabi.com__robots.txt": ["https://cve.moabi.com/sitemap.xml"],
    "ezpoisk__robots.txt": ["https://s3.amazonaws.com/ezpoisk/sitemaps/sitemap.xml.gz"],
    "filmi21.ru__robots.txt": [],  # "httр://" with a Cyrillic р: not a URL
    "newsweek.com__robots-with-utf8-bom.txt": ["http://www.newsweek.com/sitemap_index.xml"],
    "rubycloud.com__robots.txt": ["http://rubycloud.com/sitemap1.xml.gz"],
    "saint-gilles-vieux-marche.net__robots.txt": [
        "https://site.example/sitemap.xml",  # relative lines, resolved against robots.txt
        "https://site.example/sitemap.html",
    ],
    "santechtula.ru__robots.txt": [  # repeated in three groups: once each
        "https://santechtula.ru/sitemap.xml",
        "http://santechtula.ru/sitemap.xml",
    ],
    "search.iisg.amsterdam__robots.txt": ["https://search.iisg.amsterdam/sitemapIndex.xml"],
}
PROBLEMS = {
    "filmi21.ru__robots.txt": ["invalid-loc"],
    "saint-gilles-vieux-marche.net__robots.txt": ["relative-loc-resolved"] * 2,
}


@needs_corpus
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_robots_files_name_their_sitemaps(name: str) -> None:
    """BOM, CRLF, comments, groups, repeats, relative and broken lines: the right list."""
    found = sitemap_urls((CORPUS / "robots" / name).read_bytes(), ROBOTS)
    assert [ref.loc for ref in found.refs] == EXPECTED[name]
    assert all(ref.source == ROBOTS for ref in found.refs)
    assert [p.kind for p in found.problems] == PROBLEMS.get(name, [])
    assert all(p.url == ROBOTS and "line " in p.message for p in found.problems)


def test_directive_spellings_case_and_comments() -> None:
    """Any case, misspellings crawlers accept, trailing comments and spaces, CR line ends."""
    body = (
        "\ufeffUser-agent: *\r\nSITEMAP: https://a.example/one.xml # main\r"
        "  site-map :https://a.example/two.xml   \n"
        "Sitemaps: https://a.example/three.xml\n"
        "#Sitemap: https://a.example/commented.xml\n"
        "Disallow: /sitemap: no\n"
    )
    found = sitemap_urls(body, ROBOTS)
    assert [ref.loc for ref in found.refs] == [
        "https://a.example/one.xml",
        "https://a.example/two.xml",
        "https://a.example/three.xml",
    ]
    assert found.problems == ()


def test_a_faulty_sitemap_line_is_placed_by_its_line_field() -> None:
    """The line of a relative or invalid Sitemap: value is a field, not only words."""
    body = b"User-agent: *\nDisallow:\nSitemap: /sitemap.xml\n\nSitemap: ftp://example.com/s.xml\n"
    found = sitemap_urls(body, "https://example.com/robots.txt")
    assert [(p.kind, p.line) for p in found.problems] == [
        ("relative-loc-resolved", 3),
        ("invalid-loc", 5),
    ]
    assert found.problems[0].message.startswith("line 3: ")  # the words keep it for people


def test_a_sitemap_value_that_is_not_utf8_names_its_bytes() -> None:
    """Bytes that are not UTF-8 are percent-encoded as the bytes they are (0xE9: %E9), never
    read as U+FFFD (a URL of another file); the line's other non-ASCII characters too, as a
    text sitemap's line has them. One `encoding` problem, at the first such line, counts them;
    a comment that is not UTF-8 changes nothing."""
    body = (
        b"User-agent: *\n"
        b"Sitemap: https://a.example/caf\xe9.xml\n"
        b"Sitemap: https://a.example/ok.xml # caf\xe9\n"
        b"Sitemap: https://a.example/\xc3\xa9t\xe9.xml\n"
        b"Sitemap: /rel\xff.xml\n"
        b"Sitemap: https://a.example/\xc3\xa9t\xc3\xa9.xml\n"
    )
    found = sitemap_urls(body, "https://a.example/robots.txt")
    assert [ref.loc for ref in found.refs] == [
        "https://a.example/caf%E9.xml",
        "https://a.example/ok.xml",
        "https://a.example/%C3%A9t%E9.xml",
        "https://a.example/rel%FF.xml",
        "https://a.example/\u00e9t\u00e9.xml",  # UTF-8: as it was
    ]
    assert not any("\ufffd" in ref.loc for ref in found.refs)
    assert [(p.kind, p.line) for p in found.problems] == [
        ("relative-loc-resolved", 5),
        ("encoding", 2),
    ]
    said = found.problems[1]
    assert (said.count, said.example) == (3, "'https://a.example/caf%E9.xml'")
    assert said.message == (
        "line 2: 3 Sitemap values are not UTF-8 (first: 'https://a.example/caf%E9.xml'); the "
        "bytes that are not printable ASCII were percent-encoded"
    )


# -- Crawl-delay: the group of the reader's product token, else * (RFC 9309 section 2.2.1) -------

UA = "sitemap-reader/2.0 (+https://pypi.org/project/sitemap-reader/)"


@pytest.mark.parametrize(
    ("body", "seconds"),
    [
        ("User-agent: *\nCrawl-delay: 2\n", 2.0),
        # The product's own group wins, wherever it stands, in any case, with a version.
        ("User-agent: *\nCrawl-delay: 2\n\nUser-agent: Sitemap-Reader/1\nCrawl-delay: 0.5\n", 0.5),
        # ... and replaces * wholly: it sets no Crawl-delay, so none applies.
        ("User-agent: *\nCrawl-delay: 2\n\nuser-agent: sitemap-reader\nDisallow: /x\n", None),
        # Several user-agent lines open one group; a Sitemap line between them does not end it.
        (
            (
                "User-agent: otherbot\nSitemap: https://a.example/s.xml\n"
                "User-agent: sitemap-reader\ncrawl_delay : 3 # slow down\n"
            ),
            3.0,
        ),
        # Another crawler's group, and a Crawl-delay before any group, do not apply.
        ("Crawl-delay: 9\nUser-agent: otherbot\nCrawl-delay: 7\n", None),
        ("\ufeffUser-agent: sitemap-readerx\nCrawl-delay: 7\nUser-agent: *\nCrawl-delay: 1\n", 1.0),
        ("Sitemap: https://a.example/s.xml\n", None),
    ],
)
def test_the_crawl_delay_of_the_readers_group(body: str, seconds: float | None) -> None:
    found = crawl_delay(body.encode(), UA)
    assert (None if found is None else found.seconds) == seconds


@pytest.mark.parametrize("value", ["soon", "-1", "inf", "nan", ""])
def test_a_crawl_delay_that_is_no_number_of_seconds_says_its_line(value: str) -> None:
    found = crawl_delay(f"User-agent: *\nDisallow:\nCrawl-delay: {value}\n", UA)
    assert found == CrawlDelay(None, 3, value)


def test_the_product_token_of_a_user_agent() -> None:
    assert product_token(UA) == "sitemap-reader"
    assert product_token("  MyBot_2/1.0") == "mybot_2"
