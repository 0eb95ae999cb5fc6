"""Sitemap: lines of robots.txt files, on the real files of the corpus."""

from __future__ import annotations

import pytest

from sitemap_reader._core._formats._robots import sitemap_urls
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
