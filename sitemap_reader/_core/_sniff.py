"""Format sniffing: what a document is, decided from its bytes and its root, in one place.

Three questions, each asked at one point of the read and answered here only:

- ``route``: XML or plain text? By the first significant byte (after a BOM and white
  space), never by a name or a Content-Type. The parser asks it (``._parser``), once
  ``._charset`` has made the document UTF-8 (which encoding it is, is that module's job).
- ``root_format``: which XML format? By the local name of the root element (urlset,
  sitemapindex, rss/RDF, feed, html). The XML reader asks it at the root (``._xml``).
- ``sniff_broken``: XML that broke before any sitemap root is an HTML page, a feed behind
  junk (an injected ``<script>``), or nothing known. Decided on the first 64 KiB (or at the
  end), so the answer never depends on how the input was split into chunks.
"""

from __future__ import annotations

import enum

from .._base._models import Format

_UTF8_BOM = b"\xef\xbb\xbf"  # (other marks never get here: ._charset decodes first)
_WS = b" \t\r\n"

_FEED_ROOTS = {"rss": Format.RSS, "RDF": Format.RSS, "feed": Format.ATOM}
SNIFF_BYTES = 65_536  # how far junk before a feed's root is looked through
_FEED_MARKERS = ((b"<rss", Format.RSS), (b"<rdf:rdf", Format.RSS), (b"<feed", Format.ATOM))
_HTML_WINDOW = 4_096  # how far "<html" is looked for (it wins over a feed's marker)


class Syntax(enum.Enum):
    """Which reader a document goes to."""

    XML = "xml"
    TEXT = "text"


def route(data: bytes, max_space: int) -> tuple[Syntax, bytes] | None:
    """The reader for a document that starts with ``data``, and the bytes to give it.

    None while the verdict needs more bytes. ``max_space`` is the longest run of white space
    an XML prolog may start with (``Limits.max_token_bytes``).
    """
    body = data
    if len(data) < 3 and _UTF8_BOM.startswith(data):
        return None  # a byte-order mark may be split across chunks
    if body.startswith(_UTF8_BOM):
        body = body[3:]
    body = body.lstrip(_WS)
    if len(data) - len(body) > max_space:
        # White space this long is no XML prolog: a text line, whatever follows it (the
        # verdict must not wait for a "<" that may come in a later chunk, or never).
        return Syntax.TEXT, data
    if not body:
        return None
    if body[:1] != b"<":
        return Syntax.TEXT, data
    if len(body) < 5 and b"<?xml".startswith(body) and len(data) < 4096:
        return None  # wait: white space before a declaration must be stripped
    # Expat rejects white space before "<?xml"; real files have it
    # (docs/architecture.md, "Lenient input").
    return Syntax.XML, body if body.startswith(b"<?xml") else data


def root_format(local: str) -> Format:
    """The format a root element of this local name makes; UNKNOWN for any other."""
    if local == "urlset":
        return Format.URLSET
    if local == "sitemapindex":
        return Format.SITEMAPINDEX
    feed = _FEED_ROOTS.get(local)
    if feed is not None:
        return feed
    return Format.HTML if local.lower() == "html" else Format.UNKNOWN


def sniff_broken(raw: bytes | bytearray, *, final: bool) -> Format | None:
    """What a document whose XML broke before any sitemap root is: HTML, a feed whose root
    comes later (RSS, ATOM), or UNKNOWN; None while more bytes may change the answer.

    ``raw`` is the document from its start; ``final`` when no more bytes will come.
    """
    head = bytes(raw[:SNIFF_BYTES]).lower()
    if _looks_like_html(head):
        return Format.HTML
    for marker, fmt in _FEED_MARKERS:
        if marker in head:
            if not final and len(head) < _HTML_WINDOW:
                return None  # "<html" may still come, and would win: wait, whatever the split
            return fmt
    if final or len(head) >= SNIFF_BYTES:
        return Format.UNKNOWN
    return None


def _looks_like_html(head: bytes) -> bool:
    """True for the lower-cased start of an HTML page."""
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return stripped.startswith((b"<!doctype html", b"<html")) or b"<html" in head[:_HTML_WINDOW]


def declares(prolog: bytearray) -> bool:
    """True when the prolog holds a "<!" that is no comment's "<!--" (DOCTYPE, CDATA, ...).

    A "<!" or "<!-" at the very end may still become "<!--": it is judged when the next
    bytes come, so the verdict does not depend on where the input was split.
    """
    end = len(prolog)
    if prolog.endswith(b"<!"):
        end -= 2
    elif prolog.endswith(b"<!-"):
        end -= 3
    return b"<!" in prolog[:end].replace(b"<!--", b"")
