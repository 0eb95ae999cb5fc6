"""The Python reference of the compiled urlset tokenizer (``sitemap_reader._native``).

The same contract as the compiled ``UrlsetScanner``: ``feed(bytes)`` in any split, then
``close()``; each returns the ``<url>`` records it completed as (loc, lastmod, changefreq,
priority) texts, exactly what the Python core's urlset machine hands its record builder
(``._sitemap``: the fields at depth 3 of a ``<url>`` of the sitemap namespace, their text
joined and stripped). It runs on the protected expat parser of ``._expat``, so what the
compiled one is compared with is the Python core's own reading of the bytes; it is also
what ``._tokenizer`` falls back to when the extension is missing.
"""

from __future__ import annotations

import pyexpat
from pyexpat import errors as expat_errors

from defusedxml import EntitiesForbidden, ExternalReferenceForbidden

from .._halt import MAX_ELEMENT_DEPTH
from ._expat import TRUNCATION_CODES, exc_text, make_parser, refusal
from ._sitemap import SITEMAP_LIKE

Fields = tuple[str, str | None, str | None, str | None]
Fault = tuple[str, int, str]  # (kind, byte offset, message), as the compiled one words it

_FIELDS = {"loc": 0, "lastmod": 1, "changefreq": 2, "priority": 3}
_KINDS = {
    expat_errors.codes[expat_errors.XML_ERROR_UNDEFINED_ENTITY]: "reference",
    expat_errors.codes[expat_errors.XML_ERROR_BAD_CHAR_REF]: "reference",
    expat_errors.codes[expat_errors.XML_ERROR_UNBOUND_PREFIX]: "namespace",
}


class _Stop(Exception):
    """Raised by a handler to end the parse (the fault is already recorded)."""


class PyUrlsetScanner:
    """See the module docstring."""

    def __init__(self, *, max_token_bytes: int = 1_048_576) -> None:
        self._max = max_token_bytes
        p = self._parser = make_parser()
        p.StartElementHandler = self._start
        p.EndElementHandler = self._end
        p.CharacterDataHandler = self._chars
        self._depth = 0
        self._root_ns: str | None = None
        self._item: list[str | None] | None = None
        self._field = -1  # the index in the record of the field being read, or -1
        self._field_at = 0
        self._text: list[str] = []
        self._text_len = 0
        self._out: list[Fields] = []
        self._error: Fault | None = None
        self._closed = False

    @property
    def error(self) -> Fault | None:
        return self._error

    def feed(self, data: bytes) -> list[Fields]:
        if self._closed:
            raise RuntimeError("UrlsetScanner.feed() called after close()")
        if data and self._error is None:
            self._parse(data, False)
        return self._take()

    def close(self) -> list[Fields]:
        if self._closed:
            return []
        self._closed = True
        if self._error is None:
            self._parse(b"", True)
        return self._take()

    def _take(self) -> list[Fields]:
        out, self._out = self._out, []
        return out

    def _parse(self, data: bytes, final: bool) -> None:
        p = self._parser
        try:
            p.Parse(data, final)
        except pyexpat.ExpatError as exc:
            kind = _KINDS.get(exc.code, "syntax")
            if final and exc.code in TRUNCATION_CODES and self._root_ns is not None:
                kind = "truncated"  # (no root at all: "syntax", as the compiled one says)
            self._fail(kind, p.ErrorByteIndex, exc_text(exc))
        except (EntitiesForbidden, ExternalReferenceForbidden) as exc:
            self._fail("entity", p.CurrentByteIndex, refusal(exc))
        except _Stop:
            pass

    def _fail(self, kind: str, offset: int, message: str) -> None:
        if self._error is None:
            self._error = (kind, offset, message)
            self._item = None

    # -- expat's handlers ----------------------------------------------------------------

    def _core(self, ns: str) -> bool:
        return ns == self._root_ns or ns in SITEMAP_LIKE

    def _start(self, name: str, attrs: object) -> None:
        depth = self._depth = self._depth + 1
        ns, _, local = name.rpartition(" ")
        if depth > MAX_ELEMENT_DEPTH:
            self._fail("too-deep", self._parser.CurrentByteIndex, "elements nested too deep")
            raise _Stop
        if depth == 1:
            if local != "urlset":
                message = f"the root element is <{local}>, not a urlset"
                self._fail("not-urlset", self._parser.CurrentByteIndex, message)
                raise _Stop
            self._root_ns = ns
        elif self._field < 0 and self._core(ns):
            if depth == 2:
                if local == "url" and self._item is None:
                    self._item = ["", None, None, None]
            elif depth == 3 and self._item is not None:
                self._field = _FIELDS.get(local, -1)
                self._field_at = self._parser.CurrentByteIndex
                self._text = []
                self._text_len = 0

    def _chars(self, data: str) -> None:
        if self._field >= 0:
            self._text.append(data)
            self._text_len += len(data)
            if self._text_len > self._max:
                message = f"a value over {self._max} characters"
                self._fail("token-too-large", self._field_at, message)
                raise _Stop

    def _end(self, name: str) -> None:
        depth = self._depth
        self._depth = depth - 1
        item = self._item
        if self._field >= 0:
            if depth == 3:
                if item is not None:
                    item[self._field] = "".join(self._text).strip()
                self._field = -1
        elif depth == 2 and item is not None:
            self._item = None
            loc, lastmod, changefreq, priority = item
            self._out.append((loc or "", lastmod, changefreq, priority))
