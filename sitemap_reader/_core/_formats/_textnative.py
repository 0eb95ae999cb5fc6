"""Plain-text sitemaps on the compiled core: ``_native.TextScanner`` splits, bounds, strips
and decodes the lines (the byte work of ``._text.TextHandler``, the reference); each line
is then judged and counted here as the reference does, by the same functions."""

from __future__ import annotations

from typing import Protocol

from ..._base._models import ProblemKind
from .._doc import Document
from ._text import emit_line, end_text, note_not_utf8, note_too_long

# The kinds of the scanner's lines (sitemap_reader/_native.pyi).
_URL, _NOT_UTF8 = 0, 1

Line = tuple[int, str]


class TextScanner(Protocol):
    def feed(self, data: bytes, /) -> list[Line]: ...
    def close(self) -> list[Line]: ...
    @property
    def lines(self) -> int: ...
    @property
    def urlish(self) -> bool: ...
    @property
    def error(self) -> tuple[str, int, str] | None: ...


class TextScannerType(Protocol):
    def __call__(self, *, max_line_bytes: int) -> TextScanner: ...


class NativeTextHandler:
    """Reads one plain-text sitemap into ``doc`` with a compiled scanner."""

    def __init__(self, doc: Document, scanner: TextScannerType) -> None:
        self.doc = doc
        self._limit = doc.limits.max_token_bytes
        self._scanner = scanner(max_line_bytes=self._limit)

    def feed(self, data: bytes) -> None:
        self._take(self._scanner.feed(data))

    def close(self) -> None:
        self._take(self._scanner.close())
        end_text(self.doc, self._scanner.lines, self._scanner.urlish)

    def abort(self) -> None:
        """(Nothing held matters once the document is cut: the scanner is not fed again.)"""

    def end(self) -> None:
        """(Nothing is held: every line was judged as it came.)"""

    def release(self) -> None:
        """(Nothing to release: the scanner holds no cycle.)"""

    def _take(self, lines: list[Line]) -> None:
        doc = self.doc
        for kind, text in lines:
            if kind == _URL:
                emit_line(doc, text)
                if doc.ended:  # max_urls reached: the lines after it are not read
                    return
            elif kind == _NOT_UTF8:
                note_not_utf8(doc, text)
                emit_line(doc, text)
                if doc.ended:
                    return
            else:
                note_too_long(doc, self._limit)
        error = self._scanner.error
        if error is not None:  # a caught panic: a bug, reported as one
            doc.fail(ProblemKind.ERROR, f"{error[2]}; the entries before it were kept")
