"""The compiled writer of entry lines (``_native.LineWriter``): the bytes of the Python
writer, written by the crate with the GIL released.

It runs when the compiled core does (``SITEMAP_READER_PURE`` unset, the extension importable):
:func:`line_writer` makes it for a ``LinePlan`` (``._plan``: ``line_batches``, ``dump``), and
:func:`compiled_entry_writer` for ``entry_writer`` when the lines go to a UTF-8 text stream
over a byte buffer (its bytes go to that buffer). A batch it does not take (a hand-made record
holding a value of another type) is written by the Python writer, so the lines keep their
order. csv needs the running Python's ``csv`` module to quote as the crate knows how.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from .._base._models import Alternate, ChangeFreq, Entry, Image, News, Video
from .._core._xml._core_choice import COMPILED

if TYPE_CHECKING:
    from .. import _native

Write = Callable[[list[Entry]], None]


def _csv_row(field: str) -> str | None:
    out = io.StringIO()
    try:
        csv.writer(out, lineterminator="\n").writerow((field, ""))
    except csv.Error:  # Python 3.10: a NUL "needs to escape"
        return None
    return out.getvalue()


# What this Python's csv does with the characters its versions disagree on: 3.13 and later
# quote a carriage return, 3.10 refuses a NUL (the crate writes it bare: no csv from it there).
CSV_QUOTES_CR = _csv_row("\r") == '"\r",\n'
CSV_COMPILED = _csv_row("\0") == "\0,\n"


class CompiledWriter:
    """Writes lists of entries through the crate's ``lines`` writer onto ``buffer``; the
    lists it does not take through ``python_write`` (into ``text``, then onto ``buffer``)."""

    def __init__(
        self,
        lines: _native.LineWriter,
        buffer: IO[bytes],
        python_write: Write,
        text: io.StringIO,
        encoding: str,
        errors: str,
    ) -> None:
        self.lines = lines
        self.put = buffer.write
        self._python_write = python_write
        self._text = text
        self._encoding = encoding
        self._errors = errors
        self.spill()

    def spill(self) -> None:
        """What the Python writer wrote, onto the buffer."""
        text = self._text
        written = text.getvalue()
        if written:
            text.seek(0)
            text.truncate()
            self.put(written.encode(self._encoding, self._errors))

    def __call__(self, entries: list[Entry]) -> None:
        data = self.lines.write(entries)
        if data is None:
            self._python_write(entries)
            self.spill()
        else:
            self.put(data)


def compiled_entry_writer(
    fmt: str, out: IO[str], python: Callable[[str, IO[str]], Write]
) -> CompiledWriter | None:
    """The writer of entries as ``fmt`` onto ``out`` by the crate, or None where it does not
    run. ``python`` makes the Python writer, for the batches it does not take."""
    buffer: IO[bytes] | None = getattr(out, "buffer", None)
    encoding: str | None = getattr(out, "encoding", None)
    if buffer is None or encoding is None or codecs.lookup(encoding).name != "utf-8":
        return None
    lines = line_writer(fmt)
    if lines is None:
        return None
    errors: str = getattr(out, "errors", None) or "strict"
    out.flush()  # what was written as text comes first: from here on, only bytes
    text = io.StringIO()
    python_write = python(fmt, text)  # (the csv header is written into it at once)
    return CompiledWriter(lines, buffer, python_write, text, encoding, errors)


def line_writer(fmt: str) -> _native.LineWriter | None:
    """The crate's writer of entries as ``fmt`` (jsonl, csv or txt), or None where it does
    not run: the pure core, or csv where this Python's csv quotes otherwise."""
    if not COMPILED or (fmt == "csv" and not CSV_COMPILED):
        return None
    from .. import _native

    return _native.LineWriter(
        fmt, (Entry, Image, Video, News, Alternate), ChangeFreq, csv_quote_cr=CSV_QUOTES_CR
    )
