"""SitemapParser: the sans-IO entry point. Sniffs the bytes and routes them to a handler.

    parser = SitemapParser("https://example.com/sitemap.xml")
    for chunk in chunks:
        for event in parser.feed(chunk):
            ...
    for event in parser.close():
        ...

Routing looks at the bytes, never at a name or a Content-Type: gzip by its magic bytes
(``1f 8b``), then the encoding (:mod:`._charset`: a document not in UTF-8 is decoded and
handed on as UTF-8), then XML by a first ``<`` (after a BOM and white space), then the XML
root (urlset, sitemapindex, rss/RDF, feed, html); anything else is a plain-text sitemap. The
decisions after the encoding are ``._sniff``'s.
"""

from __future__ import annotations

from typing import Protocol

from .._base._config import DEFAULT_LIMITS, Limits
from .._base._errors import CodingError
from .._base._models import Event, Format, ProblemKind
from ._charset import Decoding
from ._codings import GZIP_MAGIC, Decoder, gunzip
from ._doc import Document
from ._formats._textcore import text_handler
from ._sniff import Syntax, route
from ._xml._document import XmlHandler

# Whether SitemapParser.feed() and close() do enough of their work with the GIL released
# for threads to gain: the walk then parses documents in threads (ReaderConfig.parse_threads,
# auto). Off: the compiled core scans detached but builds its records holding the GIL, and
# two parse threads measured no gain on whole sites (benchmarks/bench_threads.py); the
# pure-Python core holds the GIL throughout.
RELEASES_GIL = False


class _Handler(Protocol):
    def feed(self, data: bytes) -> None: ...
    def close(self) -> None: ...
    def abort(self) -> None: ...
    def end(self) -> None: ...
    def release(self) -> None: ...


class SitemapParser:
    """Parse one document incrementally; see the module docstring.

    Args:
        url: what the document is called in records and problems: its URL (after
            redirects), a file's absolute path, or ``-``. Relative locs resolve against it
            when ``resolve_relative`` is set.
        limits: the byte, entry and size bounds (``Limits``).
        resolve_relative: resolve relative ``<loc>`` values instead of dropping them.
        fast: let the compiled core's scanner read the plain parts of XML sitemaps (same
            records, faster); False keeps to the exact expat path (the differential tests'
            reference), which the pure-Python core always takes.
        content_type: the ``Content-Type`` the document was served with: its charset says
            how to read a text sitemap (XML says its own encoding).
        lines: let the compiled core return the urlset entries it reads itself as runs of
            its own records (``_native.Entries``) in place of ``Entry`` records, for a
            writer of lines that needs no objects (``dump``'s); without the compiled core,
            and for every other format, the records are ``Entry`` as always.

    ``feed()`` and ``close()`` never raise for the content: they return the records
    completed so far, and a fault ends the document with a fatal ``Problem`` (always the
    last event). Feeding after ``close()`` raises ``RuntimeError``.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        limits: Limits = DEFAULT_LIMITS,
        resolve_relative: bool = False,
        fast: bool = True,
        content_type: str | None = None,
        lines: bool = False,
    ) -> None:
        self._fast = fast
        self._doc = Document(url or "", limits, resolve_relative)
        self._doc.lines = lines
        self._decoding: Decoding | None = Decoding(self._doc, content_type)  # None: UTF-8
        self._head = b""  # bytes held until the routing is decided
        self._gunzip: Decoder | None = None
        self._gzip_decided = False
        self._handler: _Handler | None = None
        self._closed = False
        self._finished = False
        self.bytes_in = 0  # bytes fed, as they came
        self.bytes_read = 0  # bytes of the document itself (decompressed)
        self.encoding: str | None = None  # the codec it was decoded with; None: UTF-8

    # -- public ------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return self._doc.url

    @property
    def format(self) -> Format | None:
        """What the document is, once known (None before enough bytes arrived)."""
        handler = self._handler
        if handler is None:
            return None
        if isinstance(handler, XmlHandler):
            return handler.format
        return Format.TEXT  # (the text handler, compiled or not)

    @property
    def gzipped(self) -> bool:
        return self._gunzip is not None

    @property
    def entries(self) -> int:
        """Entries and index children emitted so far."""
        return self._doc.entries

    @property
    def fatal(self) -> Event | None:
        """The problem that ended the document, if one did."""
        return self._doc.fatal

    @property
    def ended(self) -> bool:
        """True once no more input will be read (a fault, a limit, or close)."""
        return self._doc.ended

    def feed(self, data: bytes) -> list[Event]:
        """Take the next chunk of the document; return the records it completed."""
        if self._closed:
            raise RuntimeError("SitemapParser.feed() called after close()")
        if not data or self._doc.ended:
            self.bytes_in += len(data)
            return self._take()
        self.bytes_in += len(data)
        if not self._gzip_decided:
            data = self._head + data
            if len(data) < 2:
                self._head = data
                return []
            self._head = b""
            self._gzip_decided = True
            if data[:2] == GZIP_MAGIC:
                self._gunzip = gunzip()
        if self._gunzip is None:
            self._plain(data)
        else:
            self._inflate(data)
        return self._take()

    def close(self) -> list[Event]:
        """End of input: return the last records, then any problems."""
        if self._closed:
            return []
        self._closed = True
        doc = self._doc
        if not doc.ended:
            if not self._gzip_decided and self._head:
                self._gzip_decided = True
                head, self._head = self._head, b""  # (_plain prepends _head: clear it first)
                self._plain(head)
            if self._gunzip is not None and not self._gunzip.complete and not doc.ended:
                self._end_handler(cut=False)
                if self.bytes_read:
                    doc.fail(
                        ProblemKind.TRUNCATED,
                        "the gzip stream ends before its end; the entries before the cut were kept",
                    )
                else:  # zlib still waits for the end of a header that a flag made endless
                    doc.fail(
                        ProblemKind.GZIP_ERROR,
                        f"the gzip header is corrupt or cut: nothing could be inflated from "
                        f"its {self.bytes_in:,} bytes",
                    )
            elif not doc.ended:
                decoding, self._decoding = self._decoding, None
                if decoding is not None:
                    tail = decoding.close()  # what it held (an unknown encoding ends here)
                    self.encoding = decoding.codec
                    if not doc.ended:
                        self._deliver(tail)
            if not doc.ended:
                if self._handler is None and self._head:
                    self._route(self._head)  # only white space arrived: route it to text
                if self._handler is None:
                    doc.fail(ProblemKind.EMPTY, "the document is empty")
                else:
                    self._end_handler(cut=False)
        return self._take()

    # -- internals ---------------------------------------------------------------------

    def _inflate(self, data: bytes) -> None:
        assert self._gunzip is not None
        try:
            for piece in self._gunzip.feed(data):
                self._plain(piece)
                if self._doc.ended:
                    return
        except CodingError as exc:
            self._end_handler(cut=True)
            self._doc.fail(
                ProblemKind.GZIP_ERROR,
                f"the gzip stream is corrupt ({exc}) after {self.bytes_read:,} bytes; "
                "the entries before it were kept",
            )

    def _plain(self, data: bytes) -> None:
        limit = self._doc.limits.max_bytes
        room = limit - self.bytes_read
        cut = len(data) > room
        if cut:
            data = data[:room]
        self.bytes_read += len(data)
        decoding = self._decoding
        if decoding is not None:
            data = decoding.feed(data)
            self.encoding = decoding.codec
            if decoding.settled:
                self._decoding = None  # UTF-8 from here on: nothing to do per chunk
        if not self._doc.ended:
            self._deliver(data)
        if cut and not self._doc.ended:
            self._end_handler(cut=True)
            self._doc.fail(
                ProblemKind.TOO_LARGE,
                f"the document is over {limit:,} bytes (decompressed); read up to there and cut",
            )

    def _deliver(self, data: bytes) -> None:
        """UTF-8 to the handler, or held to route it once its first byte that counts came."""
        if self._handler is None:
            data = self._head + data
            self._head = b""
            if not self._route(data):  # routed data is fed by _route
                self._head = data
        elif data:
            self._handler.feed(data)

    def _route(self, data: bytes) -> bool:
        """Choose the handler (see ``._sniff.route``); False when none came yet."""
        routed = route(data, self._doc.limits.max_token_bytes)
        if routed is None:
            return False
        syntax, body = routed
        if syntax is Syntax.XML:
            self._handler = XmlHandler(self._doc, fast=self._fast)
        else:
            self._handler = text_handler(self._doc)
        self._handler.feed(body)  # the caller keeps no copy: feed it here
        return True

    def _end_handler(self, *, cut: bool) -> None:
        handler = self._handler
        if handler is None:
            return
        if cut:
            handler.abort()
        else:
            handler.close()

    def _take(self) -> list[Event]:
        doc = self._doc
        if (doc.ended or self._closed) and not self._finished:
            self._finished = True
            if self._handler is not None:
                self._handler.end()  # what it holds that can be kept, before the tally
            doc.finish()
            if self._handler is not None:
                self._handler.release()  # (it is never fed again)
        return doc.take()
