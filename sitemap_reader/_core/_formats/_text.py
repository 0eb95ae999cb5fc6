"""Plain-text sitemaps: one absolute URL a line (sitemaps.org#otherformats).

Lines are split on bytes, so a multi-byte character is never cut: no UTF-8 (or GBK)
continuation byte is ever 0x0A. A line that is not UTF-8 keeps its ASCII and has its other
bytes percent-encoded, which is how a browser would send them (reported as ``encoding``).

Anything that is not XML is read here, so a document none of whose lines looks like a URL
(random bytes, a robots.txt, prose) is no sitemap: it ends with ``unknown-format`` alone,
not with a tally of every line it dropped.

``TextHandler`` is the reference (and the fallback) of the compiled handler in
``._textnative``; the functions below are what both do with a line once it is read.
"""

from __future__ import annotations

from urllib.parse import quote

from ..._base._models import Entry, ProblemKind
from ..._base._urls import is_reference
from .._doc import Document

# The bytes a line that is not UTF-8 keeps as they are (the others are percent-encoded).
ASCII_SAFE = "".join(chr(c) for c in range(0x21, 0x7F))
_BOM = b"\xef\xbb\xbf"
_WS = b" \t\r\n\x0b\x0c"


class TextHandler:
    """Reads one plain-text sitemap into ``doc``."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self._rest = bytearray()  # the line so far (grown in place: no copy per chunk)
        self._first = True
        self._skipping = False  # inside a line too long to keep
        self._lines = 0  # lines that hold something
        self._urlish = False  # one of them looks like a URL: absolute http(s), or a path

    def feed(self, data: bytes) -> None:
        if self._first:
            self._first = False
            if data.startswith(_BOM):
                data = data[3:]
        limit = self.doc.limits.max_token_bytes
        if b"\n" not in data:  # the line goes on
            if not self._skipping:
                self._rest += data
                if len(self._rest) > limit:
                    self._too_long(limit)
                    self._skipping = True
                    self._rest.clear()
            return
        lines = data.split(b"\n")
        if self._rest:
            lines[0] = bytes(self._rest) + lines[0]
        rest = lines.pop()
        for line in lines:
            if self._skipping:
                self._skipping = False  # the end of a line already counted as too long
                continue
            if len(line) > limit:  # the same verdict as when it arrives in pieces
                self._too_long(limit)
                continue
            self._line(line)
            if self.doc.ended:
                return
        if len(rest) > limit:
            if not self._skipping:  # one line, one count, however it was split
                self._too_long(limit)
                self._skipping = True
            rest = b""
        self._rest = bytearray(rest)

    def _too_long(self, limit: int) -> None:
        self._urlish = True  # (a URL too long, for all the reader can tell: not judged)
        note_too_long(self.doc, limit)

    def close(self) -> None:
        if self._rest and not self._skipping:
            self._line(bytes(self._rest))
        self._rest.clear()
        end_text(self.doc, self._lines, self._urlish)

    def abort(self) -> None:
        self._rest.clear()

    def end(self) -> None:
        """(Nothing is held: every line was judged as it came.)"""

    def release(self) -> None:
        """(Nothing to release: a text handler holds no cycle.)"""

    def _line(self, line: bytes) -> None:
        line = line.strip(_WS)
        if not line:
            return
        self._lines += 1
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            text = quote(line, safe=ASCII_SAFE)
            note_not_utf8(self.doc, text)
        else:
            self._urlish = self._urlish or (line[:1] == b"/" and is_reference(text))
        self._urlish = self._urlish or line[:8].lower().startswith((b"http://", b"https://"))
        emit_line(self.doc, text)


def note_too_long(doc: Document, limit: int) -> None:
    doc.note(ProblemKind.LOC_TOO_LONG, f"a line of more than {limit:,} bytes")


def note_not_utf8(doc: Document, text: str) -> None:
    """``text``: the line with its bytes that are not printable ASCII percent-encoded."""
    doc.note(ProblemKind.ENCODING, repr(text[:80]))


def emit_line(doc: Document, text: str) -> None:
    """The entry of one stripped, non-blank line, if its URL passes."""
    loc = doc.check_loc(text)
    if loc is None or not doc.count_entry():
        return
    doc.out.append(Entry(loc=loc, lastmod=None, changefreq=None, priority=None, sitemap=doc.url))


def end_text(doc: Document, lines: int, urlish: bool) -> None:
    """At the end: ``lines`` lines held something, and one looked like a URL if ``urlish``."""
    if lines and not (urlish or doc.entries or doc.ended):
        doc.tally.clear()  # what each line was is noise once the whole is no sitemap
        doc.fail(
            ProblemKind.UNKNOWN_FORMAT,
            f"the document is not XML, and none of its {lines:,} lines is a URL",
        )
