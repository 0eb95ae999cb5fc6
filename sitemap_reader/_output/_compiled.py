"""The compiled writer of entry lines (``_native.LineWriter``): the bytes of the Python
writer, written by the crate with the GIL released.

:func:`line_writer` is the one place that decides whether it runs: when the compiled core does
(``SITEMAP_READER_PURE`` unset, the extension importable), for the ``LinePlan`` (``._plan``)
that ``line_batches`` and ``dump`` write with. A batch it does not take (a hand-made record
holding a value of another type) the plan writes with the Python writer, so the lines keep
their order. csv needs the running Python's ``csv`` module to quote as the crate knows how.
"""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

from .._base._models import Alternate, ChangeFreq, Entry, Image, News, Video
from .._core._xml._core_choice import COMPILED

if TYPE_CHECKING:
    from .. import _native


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


def line_writer(fmt: str) -> _native.LineWriter | None:
    """The crate's writer of entries as ``fmt`` (jsonl, csv or txt), or None where it does
    not run: the pure core, or csv where this Python's csv quotes otherwise."""
    if not COMPILED or (fmt == "csv" and not CSV_COMPILED):
        return None
    from .. import _native

    return _native.LineWriter(
        fmt, (Entry, Image, Video, News, Alternate), ChangeFreq, csv_quote_cr=CSV_QUOTES_CR
    )
