"""The bounded expat driver: one pyexpat parser, protected, bounded, with errors in place.

Expat is driven directly (pyexpat) rather than through xml.sax: the SAX layer costs more
per element than the rest of the work together. The protections are defusedxml's: any
entity declaration or external reference raises defusedxml's own exceptions from inside the
parse, so nothing is ever expanded or resolved, and parameter entities are never parsed. A
DOCTYPE with no declarations is harmless and tolerated (real sitemaps carry them).

The bounds: an unfinished token (a comment, a tag, a declaration) over ``max_token_bytes``
ends the document (checked at fixed document offsets, so the verdict depends on the bytes
alone, never on how they were split into chunks), and the element handlers raise
``TooDeep`` past ``MAX_ELEMENT_DEPTH`` (``.._halt``). The element handlers themselves are the readers'
(``._exact``, ``._feed``); this module only feeds expat and words its errors.
"""

from __future__ import annotations

import pyexpat
from pyexpat import errors as expat_errors
from typing import Any

from defusedxml import EntitiesForbidden, ExternalReferenceForbidden

from ..._base._models import ProblemKind
from .._doc import Document
from .._halt import Stop

# Expat's errors at the end of input that mean "the document stops early".
NO_ELEMENTS = expat_errors.codes[expat_errors.XML_ERROR_NO_ELEMENTS]
TRUNCATION_CODES = frozenset(
    expat_errors.codes[message]
    for message in (
        expat_errors.XML_ERROR_NO_ELEMENTS,
        expat_errors.XML_ERROR_UNCLOSED_TOKEN,
        expat_errors.XML_ERROR_UNCLOSED_CDATA_SECTION,
        expat_errors.XML_ERROR_PARTIAL_CHAR,
    )
)
# Expat holds an unfinished token (a comment, a tag, a declaration) whole in memory. Its size
# is checked each time the document offset crosses a multiple of this, so the verdict depends
# on the bytes alone, never on how they were split into chunks.
_TOKEN_CHECK = 65_536


class ExpatDriver:
    """One protected expat parser, fed within the token bound; see the module docstring.

    ``parse`` raises what the handlers raise (``Stop``), ``pyexpat.ExpatError``,
    defusedxml's refusals (``refusal`` words them), and ``LookupError`` or ``ValueError``
    for a declared encoding pyexpat cannot read.
    """

    __slots__ = (
        "_backlog",
        "_before",
        "_doc",
        "_fed",
        "_held",
        "_piece",
        "bound_tokens",
        "conflict",
        "parser",
        "shift",
    )

    def __init__(self, doc: Document) -> None:
        self._doc = doc
        self.parser = make_parser()
        # False once the document is a feed: it is buffered whole and capped by
        # max_feed_bytes instead.
        self.bound_tokens = True
        self.shift = 0  # document offset minus expat's offset (what the scanner took)
        self._fed = 0  # bytes given to expat
        self._held = 0  # bytes of an unfinished token expat held after the last Parse()
        self._backlog = bytearray()  # input held back from expat meanwhile (see parse)
        self._piece = b""  # the last input given to expat: where its fault is looked at
        self._before = b""  # the last byte of the input before it
        self.conflict = False  # expat's fault is a git merge-conflict marker

    def parse(self, data: bytes, final: bool) -> None:
        """``Parse(data, final)``, failing at the first check point where expat holds an
        unfinished token over ``max_token_bytes`` (see ``_TOKEN_CHECK``)."""
        if self._backlog or (self._held and not final):
            # Each Parse() re-scans an unfinished token from its start (expat < 2.6, or with
            # deferral off): hold the input back until as much has come as expat holds, so
            # that a token fed in small chunks costs time linear in its size, not quadratic.
            self._backlog += data
            if not final and len(self._backlog) < self._held:
                return
            data = bytes(self._backlog)
            self._backlog.clear()
        try:
            self._parse(data, final)
        except pyexpat.ExpatError:
            self.conflict = self._at_conflict_marker()
            raise

    def _parse(self, data: bytes, final: bool) -> None:
        parser = self.parser
        while True:
            room = _TOKEN_CHECK - (self._fed + self.shift) % _TOKEN_CHECK
            if len(data) < room:
                self._fed += len(data)
                self._before, self._piece = self._piece[-1:], data
                parser.Parse(data, final)
                self._held = self._fed - parser.CurrentByteIndex
                return
            piece, data = data[:room], data[room:]
            self._fed += room
            self._before, self._piece = self._piece[-1:], piece
            parser.Parse(piece, final and not data)
            held = self._held = self._fed - parser.CurrentByteIndex
            limit = self._doc.limits.max_token_bytes
            if held > limit and self.bound_tokens:
                self._doc.fail(
                    ProblemKind.TOKEN_TOO_LARGE,
                    f"an unfinished comment, tag or declaration over {limit:,} bytes "
                    f"at line {parser.CurrentLineNumber}",
                    line=parser.CurrentLineNumber,
                )
                raise Stop

    def _at_conflict_marker(self) -> bool:
        """Whether expat's fault is a line git wrote for a merge conflict ("<<<<<<< HEAD"):
        a line that starts with "<<", where expat stops at the second "<". Only those two
        bytes are looked at, so the verdict is the same however the input was split (the
        rest of the marker may not have come yet); "<<" opens no line of well-formed XML."""
        parser = self.parser
        piece = self._piece
        at = parser.ErrorByteIndex - (self._fed - len(piece))
        if parser.ErrorColumnNumber != 1 or not 0 <= at < len(piece):
            return False
        first = piece[at - 1 : at] if at else self._before
        return first + piece[at : at + 1] == b"<<"

    @property
    def taken(self) -> int:
        """Bytes given to ``parse`` so far (expat's offset, once it read what waits)."""
        return self._fed + len(self._backlog)

    def read_up_to(self, offset: int) -> bool:
        """True when expat has read exactly the first ``offset`` bytes it was given."""
        return not self._backlog and self._fed == offset

    def release(self) -> None:
        """The document is done: drop the handlers. Each is a bound method of an object that
        holds this parser, a cycle only the collector would free, and expat's buffers (as
        large as the chunks fed) with it; a long run could pile them up between collections."""
        parser = self.parser
        for name in _HANDLERS:
            setattr(parser, name, None)

    def take_backlog(self) -> bytes:
        """The input held back from expat (see ``parse``), to be read now: the document
        was cut, and what came before the cut is read before it."""
        if not self._backlog:
            return b""
        data, self._held = bytes(self._backlog), 0
        self._backlog.clear()
        return data


# The handlers the readers set on the parser (._document, ._exact): ``release`` drops them.
_HANDLERS = (
    "StartElementHandler",
    "EndElementHandler",
    "CharacterDataHandler",
    "SkippedEntityHandler",
)


def make_parser() -> Any:
    p = pyexpat.ParserCreate(namespace_separator=" ")
    p.buffer_text = True
    p.buffer_size = 65_536
    p.SetParamEntityParsing(pyexpat.XML_PARAM_ENTITY_PARSING_NEVER)
    if hasattr(p, "SetReparseDeferralEnabled"):  # expat >= 2.6
        # Deferral makes expat's position after a Parse() depend on the earlier calls;
        # the token bound keeps re-scanning an unfinished token cheap instead.
        p.SetReparseDeferralEnabled(False)
    # Set only while a value is captured (see ._exact): most character data in a
    # sitemap is white space between tags, and each call would cost a Python frame.
    p.CharacterDataHandler = None
    p.EntityDeclHandler = _forbid_entity
    p.UnparsedEntityDeclHandler = _forbid_unparsed
    p.ExternalEntityRefHandler = _forbid_external
    return p


def exc_text(exc: pyexpat.ExpatError) -> str:
    """Expat's words for an error, without its position (nor its "not well-formed", which
    the problem's kind says)."""
    text = expat_errors.messages[exc.code] if exc.code else str(exc)
    if text.startswith("not well-formed (") and text.endswith(")"):
        return text[len("not well-formed (") : -1]
    return text


def position(exc: pyexpat.ExpatError) -> str:
    """Where an expat error is, as a problem message says it."""
    return f"line {exc.lineno}, column {exc.offset}"


def refusal(exc: EntitiesForbidden | ExternalReferenceForbidden) -> str:
    """The message for a declaration or reference the protections refused."""
    if isinstance(exc, EntitiesForbidden):
        return (
            f"the document declares the entity {exc.name!r}; entities are never "
            "expanded, so it was not read further"
        )
    return (
        f"the document references an external entity ({exc.sysid!r}); "
        "it was not resolved and the document was not read further"
    )


def _forbid_entity(
    name: str,
    is_parameter_entity: bool,
    value: str | None,
    base: str | None,
    sysid: str | None,
    pubid: str | None,
    notation_name: str | None,
) -> None:
    raise EntitiesForbidden(name, value, base, sysid, pubid, notation_name)


def _forbid_unparsed(
    name: str, base: str | None, sysid: str | None, pubid: str | None, notation_name: str | None
) -> None:
    raise EntitiesForbidden(name, None, base, sysid, pubid, notation_name)


def _forbid_external(context: str, base: str | None, sysid: str | None, pubid: str | None) -> int:
    raise ExternalReferenceForbidden(context, base, sysid, pubid)
