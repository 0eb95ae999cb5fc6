"""The seed inputs: real sitemaps from the corpus directory, the test fixtures, and a few made here.

Seeds are cut to ``SEED_LEN`` (the head of a file: its prolog and first records, and its
tail behind the same head), gunzipped (the header can gzip them again), and half of them
have their URLs moved onto the sitemap's own site (``https://example.com/dir/``), so
entries reach the scope filter in scope as well as out of it. Nothing here is written to
the repository: the campaign writes the seeds to a temporary directory.
"""

from __future__ import annotations

import gzip
import os
import random
import re
import zlib
from collections.abc import Iterator
from pathlib import Path

from .harness import HEADER

SEED_LEN = 2_048  # seeds are cut to this (inputs may grow to MAX_LEN): small inputs run fast

# Next to the checkout, or where SITEMAP_READER_CORPUS says (as for the tests).
CORPUS = Path(
    os.environ.get("SITEMAP_READER_CORPUS")
    or Path(__file__).resolve().parents[2] / "shared" / "corpus"
)

_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
_EXT = (
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml"'
)
HOME = "https://example.com/dir/"

# Small documents for what the corpus has little of: every extension, index, feed kinds.
_MADE_TEXT = (
    (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{_NS}" {_EXT}>\n'
        f"<url><loc>{HOME}a</loc><lastmod>2024-03-05T10:20:30+02:00</lastmod>"
        "<changefreq>daily</changefreq><priority>0.8</priority>"
        f"<image:image><image:loc>{HOME}a.jpg</image:loc><image:caption>c</image:caption>"
        "</image:image>"
        f'<xhtml:link rel="alternate" hreflang="de" href="{HOME}de/a"/>'
        f"<video:video><video:thumbnail_loc>{HOME}t.jpg</video:thumbnail_loc>"
        "<video:title>T</video:title><video:duration>60</video:duration>"
        "<video:rating>4.5</video:rating><video:family_friendly>yes</video:family_friendly>"
        "<video:tag>x</video:tag><video:publication_date>2024-01-01</video:publication_date>"
        "</video:video>"
        "<news:news><news:publication><news:name>N</news:name><news:language>en</news:language>"
        "</news:publication><news:publication_date>2024-01-01T00:00:00Z</news:publication_date>"
        "<news:title>T</news:title></news:news></url>\n"
        f"<url><loc>{HOME}b?x=1&amp;y=2</loc></url>\n</urlset>\n"
    ),
    (
        f'<?xml version="1.0"?>\n<sitemapindex xmlns="{_NS}">\n'
        f"<sitemap><loc>{HOME}s1.xml.gz</loc><lastmod>2024-02-01</lastmod></sitemap>\n"
        "<sitemap><loc>https://other.example/s2.xml</loc></sitemap>\n"
        "<sitemap><loc>s3.xml</loc></sitemap>\n</sitemapindex>\n"
    ),
    f"{HOME}a\n{HOME}b\r\n/relative\n  {HOME}c  \nnot a url\n",
    (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>'
        f"<item><link>{HOME}1</link><pubDate>Sat, 07 Sep 2002 00:00:01 GMT</pubDate></item>"
        f'<item><guid isPermaLink="true">{HOME}2</guid></item></channel></rss>'
    ),
    (
        '<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
        'xmlns="http://purl.org/rss/1.0/"><channel rdf:about="x"><title>T</title></channel>'
        f'<item rdf:about="{HOME}1"><link>{HOME}1</link></item></rdf:RDF>'
    ),
    (
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title>'
        f'<entry><id>urn:a</id><link href="{HOME}a"/><updated>2024-01-02T03:04:05Z</updated>'
        "</entry></feed>"
    ),
    (
        f"<urlset><url><loc>{HOME}a</loc></url><url><loc><![CDATA[{HOME}b&c]]></loc></url>"
        f"<!-- c --><url><loc>{HOME}&#233;</loc></url></urlset>"
    ),
    (  # what the compiled reader skips, and a variant's prefix (imgv, fuzz/src/lib.rs)
        f'<urlset xmlns="{_NS}" xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0" '
        'xmlns:imgv="https://www.google.com/schemas/sitemap-image/1.1" '
        'xmlns:look="http://example.com/sitemap-image">'
        f"<url><!-- c --><loc>{HOME}a<?pi x?></loc><mobile:mobile/><foo a='1'><b/>t</foo>"
        f"<imgv:image><imgv:loc>{HOME}i</imgv:loc></imgv:image></url>\n<!-- between --><?pi?>"
        f"<url><loc>{HOME}b</loc><imgv:image><imgv:loc>{HOME}j</imgv:loc></imgv:image>"
        "<look:image/></url></urlset>"
    ),
    (  # records inside records (unclosed-entry): nested on purpose, then an end tag missing
        f'<urlset xmlns="{_NS}"><url><loc>{HOME}a</loc> <url><loc>{HOME}b</loc></url>\n'
        f"<!-- c --><url><loc>{HOME}c</loc><url><loc>{HOME}d</loc></url></url></url>"
        f"<url><loc>{HOME}e</loc><url><loc>{HOME}f</loc></url>\n</urlset>"
    ),
    "<!DOCTYPE html><html><body>404</body></html>",
    (
        f'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY a "{HOME}x">]>\n'
        "<urlset><url><loc>&a;</loc></url></urlset>"
    ),
)
_UTF16 = (
    '<?xml version="1.0" encoding="UTF-16"?>\n'
    f'<urlset xmlns="{_NS}"><url><loc>{HOME}\u65e5</loc></url></urlset>'
).encode("utf-16")
MADE: tuple[bytes, ...] = (*(doc.encode("utf-8") for doc in _MADE_TEXT), _UTF16)


def _slices(data: bytes, room: int) -> Iterator[bytes]:
    """The head of ``data``, and its tail behind the head's first 256 bytes."""
    yield data[:room]
    if len(data) > room:
        yield data[:256] + data[-(room - 256) :]


def _plain(data: bytes) -> bytes:
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error):
            return data
    return data


# (not in attribute values: namespace names must stay as they are)
_HOSTS = re.compile(rb"(?<![\"'])https?://[^/\s<\"']+/?")


def corpus_docs() -> list[bytes]:
    """Documents from the corpus directory (empty when it is not checked out)."""
    if not (CORPUS / "MANIFEST.tsv").is_file():
        return []
    room = SEED_LEN - HEADER
    docs: list[bytes] = []
    for path in sorted(CORPUS.rglob("*")):
        if path.is_file() and path.name not in ("MANIFEST.tsv", "README.md"):
            docs.extend(_slices(_plain(path.read_bytes()), room))
    return docs


def fixture_docs() -> list[bytes]:
    """The documents of the parser's own tests (tests/core/test_parser_splits.py), when importable."""
    try:
        from tests.core.test_parser_splits import FIXTURES
    except ImportError:  # pytest or hypothesis absent: the made seeds still cover the formats
        return []
    return list(FIXTURES.values())


def seeds(*, corpus: bool = True, seed: int = 0) -> list[bytes]:
    """Seed inputs (control header + document): each document once as it is, once moved onto
    the sitemap's own site, each with a header drawn from ``seed``."""
    rng = random.Random(seed)
    docs = [*MADE, *fixture_docs(), *(corpus_docs() if corpus else [])]
    out = []
    for doc in docs:
        for variant in (doc, _HOSTS.sub(HOME.encode(), doc)):
            head = bytearray(rng.randbytes(HEADER))
            head[0] &= ~3 & 0xFF  # the first URL: https://example.com/dir/sitemap.xml
            out.append(bytes(head) + variant[: SEED_LEN - HEADER])
    return list(dict.fromkeys(out))
