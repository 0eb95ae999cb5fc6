"""The XML reader: one XML document from its first byte to its last, handed to the right reader.

It holds the prolog until the root start tag is whole, lets expat (``._expat``) read it, and
asks ``._sniff`` what the root makes the document. A urlset or sitemapindex is read by
``._exact``, the exact path (its plain stretches by the compiled core's block scanner,
``_core_choice.new_scanner``, where the prolog allows it and that core runs); a feed is
buffered for feedparser (``._feed``), with expat running over it as the safety pass; an HTML
page or any other root ends the document. XML that breaks before any root is judged on its
first bytes (an HTML page, a feed behind junk, or a fault).

Every fault expat or a bound finds is turned into the document's problem here, with the
same words and the same verdict whatever the split of the input into chunks.
"""

from __future__ import annotations

import pyexpat

from defusedxml import EntitiesForbidden, ExternalReferenceForbidden

from ..._base._models import Format, ProblemKind
from .._doc import Document
from .._formats._feed import FeedBuffer
from .._halt import Stop, TooDeep
from .._sniff import SNIFF_BYTES, root_format, sniff_broken
from . import _core_choice
from ._exact import SitemapMachine
from ._expat import (
    NO_ELEMENTS,
    TRUNCATION_CODES,
    ExpatDriver,
    exc_text,
    position,
    refusal,
)
from ._prolog import PROLOG, declares_more, eligible, namespaces, place_after

_FEEDS = (Format.RSS, Format.ATOM)


class XmlHandler:
    """Reads one XML document into ``doc``; see the module docstring."""

    def __init__(self, doc: Document, *, fast: bool = True) -> None:
        self.doc = doc
        # allow the compiled scanner; the exact path alone when False or on the pure core
        self.fast = fast
        self.format: Format | None = None
        self._prolog: bytearray | None = bytearray()
        self._scanner: _core_choice.BlockScanner | None = None
        self._scanned = 0  # bytes given to the scanner
        self._origin = 0  # where the scanner's input starts in the document
        self._root_local = ""
        self._sitemap: SitemapMachine | None = None  # once the root is urlset or sitemapindex
        self._feed: FeedBuffer | None = FeedBuffer()  # kept until the root says "no feed"
        # (kind, message) of a fault before any root, undecided until more bytes came
        # A fault held until the root is known: (kind, message, line, column).
        self._pending: tuple[ProblemKind, str, int | None, int | None] | None = None
        self._expat_failed = False
        self._driver = ExpatDriver(doc)
        parser = self._driver.parser
        parser.StartElementHandler = self._root
        parser.SkippedEntityHandler = self._skipped

    # -- input -------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        feed = self._feed
        if feed is not None:
            # The cap holds while the root is undecided (_pending) too, so the buffer never
            # passes it and the verdict at the cap is the same whatever the split.
            room = self.doc.limits.max_feed_bytes - len(feed.raw)
            if len(data) > room:
                self.feed(data[:room])  # read up to the cap as any chunk, whatever the split
                if self._pending is not None:
                    self._decide_pending(final=True)  # no more bytes will be looked at
                if self.doc.ended:
                    return
                if self._feed is None:  # the root is not a feed's: the cap does not apply
                    self.feed(data[room:])
                    return
                # Input held back from expat is read first: a fault in it comes before the cut,
                # as it does when the same bytes came in one chunk.
                self.abort()
                self.doc.fail(
                    ProblemKind.TOO_LARGE,
                    f"a feed over {self.doc.limits.max_feed_bytes:,} bytes: read up to there",
                )
                return
            feed.raw.extend(data)
            if self._pending is not None:
                self._decide_pending(final=False)
                return
        if self._prolog is not None:
            self._feed_prolog(data)
        elif self._scanner is not None:
            self._scanned += len(data)
            handover = self._scanner.feed(data)
            if handover is not None:
                self._handover(handover)
        elif not self._expat_failed:
            self._parse(data, False)

    def _feed_prolog(self, data: bytes) -> None:
        """Hold bytes until the root start tag is complete; then expat reads up to its end,
        and the scanner (the fast path) takes over where the document allows it."""
        prolog = self._prolog
        assert prolog is not None
        prolog.extend(data)
        match = PROLOG.match(prolog) if b">" in data else None
        if match is None:
            if len(prolog) >= SNIFF_BYTES or declares_more(prolog):
                # a DOCTYPE with an internal subset, CDATA or a long prolog: expat alone
                self._prolog = None
                self._parse(bytes(prolog), False)
            return
        self._prolog = None
        split = match.end()
        self._parse(bytes(prolog[:split]), False)
        rest = bytes(prolog[split:])
        if self._pending is not None:
            self._decide_pending(final=False)
            return
        kinds = eligible(match)
        new_scanner = _core_choice.new_scanner
        if (
            self.fast
            and new_scanner is not None
            and kinds is not None
            and not self._expat_failed
            and self.format in (Format.URLSET, Format.SITEMAPINDEX)
        ):
            self._origin = split
            self._scanner = new_scanner(
                self.doc,
                index=self.format is Format.SITEMAPINDEX,
                kinds=kinds,
                read=self._read_block,
                settled=self._settled,
                start=place_after(bytes(prolog[:split])),
                namespaces=namespaces(match["attrs"]),
            )
            self._scanned += len(rest)
            handover = self._scanner.feed(rest)
            if handover is not None:
                self._handover(handover)
            return
        if not self._expat_failed:
            self._parse(rest, False)

    def _handover(self, rest: bytes) -> None:
        """The scanner stopped: expat reads ``rest`` (filler, then what was not consumed)."""
        self._scanner = None
        driver = self._driver
        driver.shift = self._origin + self._scanned - len(rest) - driver.taken
        if not self._expat_failed and not self.doc.ended:
            self._parse(rest, False)

    def _read_block(self, data: bytes, at: int | None) -> bool:
        """Expat reads part of a block the scanner did not take (``at``: where ``data``
        stands in the scanner's input, when a filler starts it); False once it ended."""
        if at is not None:
            driver = self._driver
            driver.shift = self._origin + at - driver.taken
        if not self._expat_failed and not self.doc.ended:
            self._parse(data, False)
        return not self._expat_failed and not self.doc.ended

    def _settled(self, tag_len: int) -> bool:
        """True when the last bytes expat read were the end tag (of ``tag_len`` bytes) of a
        record, so the scanner may go on after it."""
        machine = self._sitemap
        return (
            machine is not None
            and not self._expat_failed
            and not self.doc.ended
            and machine.depth == 1
            and self._driver.read_up_to(machine.closed + tag_len)
        )

    def close(self) -> None:
        if self._prolog is not None:
            prolog, self._prolog = self._prolog, None
            if not self._expat_failed:
                self._parse(bytes(prolog), False)
        if self._scanner is not None:
            self._handover(self._scanner.finish())
        if self._pending is not None:
            self._decide_pending(final=True)
        if not self._expat_failed and not self.doc.ended:
            self._parse(b"", True)
            if self._pending is not None:  # the root came in input expat held until the end
                self._decide_pending(final=True)
        if self._feed is not None and self.format in _FEEDS:
            self._finish_feed(trim=False)
        elif self.format is None and not self.doc.ended:
            self.doc.fail(ProblemKind.EMPTY, "the document has no root element")

    def end(self) -> None:
        """The document ended, however: a record it cut is kept if its ``<loc>`` closed."""
        if self._sitemap is not None:
            self._sitemap.keep_cut()

    def release(self) -> None:
        """Nothing more is read: break the cycles through expat's handlers and the scanner's
        callbacks, so that the document's buffers are freed with the parser, not at the
        next collection."""
        self._driver.release()
        self._scanner = None

    def abort(self) -> None:
        """The document was cut (a limit): keep what was read, parse a buffered feed."""
        # What came before the cut but waits (see BlockScanner.feed and ExpatDriver.parse) is
        # read first.
        if self._scanner is not None:
            # All of it: bytes the scanner still waits on may hold a fault expat would have
            # seen before the cut on the exact path.
            self._handover(self._scanner.finish())
        if not self._expat_failed:
            backlog = self._driver.take_backlog()
            if backlog:
                self._parse(backlog, False)
        if self._pending is not None:
            self._decide_pending(final=True)  # on the bytes before the cut, however they came
        if self._feed is not None and self.format in _FEEDS:
            # (after an expat fault, the item ends are not known past it: no trim)
            self._finish_feed(trim=not self._expat_failed)

    def _finish_feed(self, *, trim: bool) -> None:
        feed, self._feed = self._feed, None
        if feed is not None and self.format is not None:
            if trim:
                feed.trim()
            feed.parse(self.format, self.doc)

    # -- expat and its faults ----------------------------------------------------------

    def _parse(self, data: bytes, final: bool) -> None:
        try:
            self._driver.parse(data, final)
        except TooDeep as exc:
            self._expat_failed = True
            self.doc.fail(ProblemKind.TOO_NESTED, exc.message, line=exc.line)
            if self._feed is not None and self.format in _FEEDS:
                self._finish_feed(trim=True)  # a feed: its items before the fault are parsed
            self._feed = None
        except Stop:
            self._expat_failed = True
        except pyexpat.ExpatError as exc:
            self._expat_failed = True
            self._on_expat_error(exc, final)
        except (EntitiesForbidden, ExternalReferenceForbidden) as exc:
            self._expat_failed = True
            self._feed = None
            self.doc.fail(ProblemKind.UNSAFE_XML, refusal(exc))
        except (LookupError, ValueError) as exc:  # after defusedxml's: they are ValueErrors
            # pyexpat's handler for a declared encoding expat lacks raises these: a name
            # Python does not know (LookupError), or a multi-byte one such as GBK (ValueError).
            # ._charset blanks every declaration it reads, so only one it leaves to expat
            # gets here: one not closed within its first 1,024 characters.
            self._expat_failed = True
            fault = f"the declared encoding cannot be read ({exc})"
            if self.format is None and self._feed is not None and not final:
                # a feed behind it is read
                self._pending = (ProblemKind.NOT_WELL_FORMED, fault, None, None)
                self._decide_pending(final=False)
            else:
                self._feed = None
                self.doc.fail(ProblemKind.NOT_WELL_FORMED, fault)

    def _past_root(self) -> bool:
        """True once the root element has closed."""
        if self.format is None:
            return False
        body = self._sitemap if self._sitemap is not None else self._feed
        return body is not None and body.depth == 0

    def _on_expat_error(self, exc: pyexpat.ExpatError, final: bool) -> None:
        parser = self._driver.parser
        try:
            # pyexpat still holds text read before the fault (it hands text on at events and
            # at the end of each Parse call); turning buffering off hands it on now, so a
            # value already over max_token_bytes is reported whatever the chunking was.
            parser.buffer_text = False
        except Stop:
            return
        if self._sitemap is not None and self._sitemap.overran(parser.ErrorByteIndex):
            return
        where = position(exc)
        at: dict[str, int | None] = {"line": exc.lineno, "column": exc.offset}
        after_root = self._past_root()
        if after_root:
            # Past the root, expat's verdict depends on where the bytes were split
            # ("<a/>m/": "junk after document element" at "m" when "m" ends a chunk, else
            # "invalid token" at "/"), so no position or words of expat's are quoted.
            where = f"after the </{self._root_local}> that ends the document"
            at = {}
        feed = self._feed
        if self.format in _FEEDS:
            # feedparser reads what it can of a broken feed at close(); a cut one keeps only
            # the items that closed before the cut, and the cut is reported.
            if final and exc.code in TRUNCATION_CODES and not after_root:
                if feed is not None:
                    feed.trim()
                self.doc.fail(
                    ProblemKind.TRUNCATED,
                    f"the {self.format} feed ends before its root element closes ({where}); "
                    "the items before the cut were kept",
                    **at,
                )
            else:
                fault = "content" if after_root else exc_text(exc)
                self.doc.report(
                    ProblemKind.NOT_WELL_FORMED,
                    f"broken XML: {fault} at {where}; read leniently as a feed",
                    **at,
                )
            return
        if self.format is None and feed is not None and not (final and exc.code == NO_ELEMENTS):
            # (at the end too: whether expat sees a fault in the prolog before the end of the
            # input depends on the split, "<?a?>>" + "<rss" against "<?a?>><rss")
            self._pending = (
                ProblemKind.NOT_WELL_FORMED,
                f"broken XML: {exc_text(exc)} at {where}",
                exc.lineno,
                exc.offset,
            )
            self._decide_pending(final=final)
            return
        self._feed = None
        code = exc.code
        if after_root:
            self.doc.fail(ProblemKind.NOT_WELL_FORMED, f"broken XML: content {where}")
        elif final and self.format is not None and code in TRUNCATION_CODES:
            self.doc.fail(
                ProblemKind.TRUNCATED,
                f"the document ends before its <{self.format}> closes ({where}); "
                "the entries before the cut were kept",
                **at,
            )
        elif self.format is None and final and code == NO_ELEMENTS:
            self.doc.fail(ProblemKind.EMPTY, "the document has no root element")
        elif self._driver.conflict:
            self.doc.fail(
                ProblemKind.MERGE_CONFLICT,
                f"a git merge-conflict marker (<<<<<<<) at {where}: the file was saved "
                "in the middle of a merge",
                **at,
            )
        else:
            self.doc.fail(
                ProblemKind.NOT_WELL_FORMED,
                f"broken XML: {exc_text(exc)} at {where}",
                **at,
            )

    # -- the root ----------------------------------------------------------------------

    def _root(self, name: str, attrs: dict[str, str]) -> None:
        """Expat's first start tag: what the root is decides who reads the rest."""
        self._root_local = local = name.rpartition(" ")[2]
        fmt = root_format(local)
        parser = self._driver.parser
        if fmt is Format.URLSET or fmt is Format.SITEMAPINDEX:
            self.format = fmt
            self._feed = None
            self._sitemap = SitemapMachine(self.doc, parser, name, index=fmt is Format.SITEMAPINDEX)
        elif fmt in _FEEDS:
            assert self._feed is not None  # (kept from the first byte until a root or a fault)
            self.format = fmt
            self._driver.bound_tokens = False
            self._feed.follow(parser, name)
        elif fmt is Format.HTML:
            self._html()
            raise Stop
        else:
            # Maybe junk before a feed (an injected <script>): decided once more bytes came.
            self._pending = (
                ProblemKind.UNKNOWN_FORMAT,
                f"the root element <{local}> is not urlset, sitemapindex, rss or feed",
                parser.CurrentLineNumber,
                parser.CurrentColumnNumber,
            )
            raise Stop

    def _decide_pending(self, *, final: bool) -> None:
        """Broken XML before any sitemap root: an HTML page, a feed behind junk, or a fault
        (see ``._sniff.sniff_broken``)."""
        assert self._pending is not None and self._feed is not None
        fmt = sniff_broken(self._feed.raw, final=final)
        if fmt is None:
            return
        kind, fault, line, column = self._pending
        self._pending = None
        if fmt is Format.HTML:
            self._html()
        elif fmt is Format.UNKNOWN:
            self.format = fmt
            self._feed = None
            self.doc.fail(kind, fault, line=line, column=column)
        else:
            self.format = fmt
            self._driver.bound_tokens = False
            self.doc.report(
                ProblemKind.NOT_WELL_FORMED,
                f"{fault}; the {fmt} root comes later: read leniently as a feed",
                line=line,
                column=column,
            )

    def _html(self) -> None:
        self.format = Format.HTML
        self._feed = None
        self.doc.fail(
            ProblemKind.HTML,
            "an HTML page, not a sitemap (a missing sitemap answered with a page?)",
        )

    def _skipped(self, name: str, is_parameter_entity: bool) -> None:
        """A reference to an entity an external DTD may declare: expat skips it silently,
        which would change the value (``https://a/&x;`` -> ``https://a/``), so refuse it."""
        if self.format in _FEEDS:
            return  # feedparser reads the bytes itself (RSS 0.91's DTD names HTML entities)
        self._feed = None
        self.doc.fail(
            ProblemKind.UNSAFE_XML,
            f"the document uses the entity {name!r} of an external DTD, which is never read; "
            "it was not read further",
        )
        raise Stop
