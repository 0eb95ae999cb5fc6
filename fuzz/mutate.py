"""Structure-aware mutations of sitemap documents, deterministic for a given ``random.Random``.

The campaign mixes these with libFuzzer's byte-level mutations (``atheris.Mutate``); the
test suite uses them alone. They keep the input a sitemap most of the time (a loc rewritten
to a tricky URL, a block repeated, a token of XML syntax inserted where markup is) so the
parser's deep paths are reached, not only its "this is not XML" exit.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from .harness import HEADER

# Syntax the parser branches on; also written as the libFuzzer dictionary.
# fmt: off
TOKENS: tuple[bytes, ...] = (
    b"<url>", b"</url>", b"<loc>", b"</loc>", b"<lastmod>", b"</lastmod>", b"<changefreq>",
    b"<priority>", b"</priority>", b"<sitemap>", b"</sitemap>", b"<urlset>", b"</urlset>",
    b"<sitemapindex>", b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    b'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"',
    b"<image:image><image:loc>", b"</image:loc></image:image>",
    b'<xhtml:link rel="alternate" hreflang="de" href="', b'"/>',
    b"<video:video>", b"<video:duration>", b"<news:news>", b"<news:publication_date>",
    b"<![CDATA[", b"]]>", b"<!--", b"-->", b"<?xml version='1.0'?>", b"<?xml-stylesheet?>",
    b'<?xml version="1.0" encoding="UTF-16"?>', b'encoding="GBK"', b'encoding="bogus"',
    b"<!DOCTYPE urlset>", b'<!DOCTYPE x [<!ENTITY a "b">]>', b"&a;", b"&amp;", b"&#x41;",
    b"&#0;", b"&", b"<", b">", b"\r", b"\r\n", b"\n", b"\t", b"\x00", b"\xef\xbb\xbf",
    b"\xff\xfe", b"\xfe\xff", b"\x1f\x8b", b"\xc3", b"\xe6\x97\xa5", b"\xff",
    b"<rss version='2.0'><channel><item><link>", b"</link></item>", b"<guid>",
    b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="', b"<html>",
    b"https://example.com/dir/", b"http://example.com:8080/a/b/", b"/../", b"/./", b"%2e%2E",
    b"..", b"\\", b"@", b":443", b":80", b"//", b"?q=1", b"#f", b"%", b"%00", b"[::1]",
)
# fmt: on

# Pieces of the URLs a <loc> is rewritten to: in and out of every scope, valid and not.
# fmt: off
_BASES = (
    "https://example.com/dir/", "https://example.com/dir/", "https://example.com/",
    "http://example.com:8080/a/b/", "http://example.com/dir/", "https://example.com:443/dir/",
    "https://EXAMPLE.COM./dir/", "https://user:pw@example.com/dir/", "https://other.example/dir/",
    "https://example.com.evil/dir/", "https://example.com@evil.example/dir/", "https://:443/dir/",
    "https://@/dir/", "https://[::1]/dir/", "https://[::1/dir/", "https://%65xample.com/dir/",
    "https://ex%41mple.com/dir/", "https://\u0435xample.com/dir/", "https://\uff45xample.com/dir/",
    "https://example.com:99999/dir/", "https://example.com:/dir/", "HTTPS://example.com/dir/",
    "//example.com/dir/", "/dir/", "", "ftp://example.com/dir/", "javascript:", "https:/",
)
_PIECES = (
    "a", "page.html", "..", ".", "%2e", "%2E%2e", ".%2e", "/", "//", "\\", "\t", "\n", " ",
    "?q=/../x", "#/../x", "&amp;", "\u00e9", "\u65e5", "%", "%zz", "%2F", ";", "@", ":",
    "\x00", "\x7f", "~", "%7E",
)
# fmt: on


def _rand_url(rng: random.Random) -> str:
    url = rng.choice(_BASES) + "".join(
        rng.choice(_PIECES) + rng.choice(("", "/")) for _ in range(rng.randint(0, 5))
    )
    if rng.random() < 0.05:
        url += "x" * rng.choice((40, 2_048, 2_100))
    return url


def _escape(url: str) -> bytes:
    return url.replace("&", "&amp;").replace("<", "&lt;").encode("utf-8")


_LOC = re.compile(rb"(<(?:\w+:)?(?:loc|link|guid)[^>]*>)([^<]*)")
_URL = re.compile(rb"https?://[^\s<\"']*")
_BLOCK = re.compile(rb"<(url|sitemap|item|entry)[\s>].*?</\1\s*>", re.DOTALL)
_DECL = re.compile(rb"encoding=[\"'][^\"']*[\"']")
_ENCODINGS = (b"utf-16", b"UTF-16BE", b"iso-8859-1", b"gbk", b"ascii", b"bogus", b"utf-32", b"us")


def _span(doc: bytes, rng: random.Random, most: int = 64) -> tuple[int, int]:
    start = rng.randint(0, len(doc))
    return start, min(len(doc), start + rng.randint(0, most))


def _flip(doc: bytes, rng: random.Random, seeds: Sequence[bytes]) -> bytes:
    if not doc:
        return bytes([rng.randrange(256)])
    i = rng.randrange(len(doc))
    return doc[:i] + bytes([rng.randrange(256)]) + doc[i + 1 :]


def _delete(doc: bytes, rng: random.Random, seeds: Sequence[bytes]) -> bytes:
    a, b = _span(doc, rng)
    return doc[:a] + doc[b:]


def _token(doc: bytes, rng: random.Random, seeds: Sequence[bytes]) -> bytes:
    marks = [m.start() for m in re.finditer(rb"[<>\n]", doc[:MAX_SCAN])]
    i = (
        rng.choice(marks) + rng.randint(0, 1)
        if marks and rng.random() < 0.7
        else rng.randint(0, len(doc))
    )
    return doc[:i] + rng.choice(TOKENS) + doc[i:]


def _relocate(doc: bytes, rng: random.Random, seeds: Sequence[bytes]) -> bytes:
    """Rewrite the value of one <loc> (or link, guid, or a URL in a text line)."""
    found = list(_LOC.finditer(doc)) or list(_URL.finditer(doc))
    url = _rand_url(rng)
    if not found:
        return doc + b"\n" + url.encode("utf-8", "surrogatepass")
    m = rng.choice(found)
    if m.re is _LOC:
        return doc[: m.start(2)] + _escape(url) + doc[m.end(2) :]
    return doc[: m.start()] + url.encode("utf-8") + doc[m.end() :]


def _repeat(doc: bytes, rng: random.Random, seeds: Sequence[bytes]) -> bytes:
    blocks = list(_BLOCK.finditer(doc[:MAX_SCAN]))
    if blocks:
        m = rng.choice(blocks)
        a, b = m.span()
    else:
        a, b = _span(doc, rng)
    return doc[:b] + doc[a:b] * rng.randint(1, 6) + doc[b:]


def _splice(doc: bytes, rng: random.Random, seeds: Sequence[bytes]) -> bytes:
    other = rng.choice(seeds)[HEADER:] if seeds else doc
    a, b = _span(other, rng, 512)
    i = rng.randint(0, len(doc))
    return doc[:i] + other[a:b] + doc[i:]


def _truncate(doc: bytes, rng: random.Random, seeds: Sequence[bytes]) -> bytes:
    return doc[: rng.randint(0, len(doc))]


def _encoding(doc: bytes, rng: random.Random, seeds: Sequence[bytes]) -> bytes:
    """Declare another encoding, and sometimes re-encode the text in it."""
    name = rng.choice(_ENCODINGS)
    doc = _DECL.sub(b'encoding="' + name + b'"', doc, count=1)
    if rng.random() < 0.5:
        try:
            doc = doc.decode("utf-8").encode(name.decode())
        except (UnicodeError, LookupError):
            pass
    return doc


MAX_SCAN = 8_192  # regex scans look at most this far into a document

# fmt: off
MUTATIONS: tuple[Callable[[bytes, random.Random, Sequence[bytes]], bytes], ...] = (
    _flip, _flip, _delete, _token, _token, _token, _relocate, _relocate, _relocate, _relocate,
    _repeat, _splice, _truncate, _encoding,
)
# fmt: on


def mutate_doc(doc: bytes, rng: random.Random, seeds: Sequence[bytes]) -> bytes:
    """One to four structure-aware mutations of a document."""
    for _ in range(rng.randint(1, 4)):
        doc = rng.choice(MUTATIONS)(doc, rng, seeds)
    return doc


def mutate(data: bytes, rng: random.Random, seeds: Sequence[bytes], max_size: int) -> bytes:
    """A mutated input: the control header (sometimes redrawn), then the mutated document."""
    head = data[:HEADER].ljust(HEADER, b"\0")
    if rng.random() < 0.2:
        head = rng.randbytes(HEADER)
    return (head + mutate_doc(data[HEADER:], rng, seeds))[:max_size]


def dictionary() -> str:
    """TOKENS in libFuzzer's -dict format."""
    lines = []
    for token in TOKENS:
        text = "".join(
            chr(c) if 0x20 <= c < 0x7F and c not in b'"\\' else f"\\x{c:02x}" for c in token
        )
        lines.append(f'"{text}"')
    return "\n".join(lines) + "\n"
