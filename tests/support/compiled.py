"""The compiled core's scanner held to the exact path: its events, and how many records it
took (the others are expat's, from odd blocks and the rest of a document it handed over).

The pure-Python core has no scanner (``_core_choice.new_scanner`` is None): there the fast
path is the exact path, and the tests that compare the two are skipped (``needs_compiled``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from unittest import mock

import pytest

from sitemap_reader import Entry, Limits, SitemapRef
from sitemap_reader._core._xml import _core_choice, _exact, _records
from sitemap_reader._core._xml._interface import INTERFACE
from tests.support.helpers import parse_chunks

needs_compiled = pytest.mark.skipif(not _core_choice.COMPILED, reason=_core_choice.describe())
if _core_choice.COMPILED:
    from sitemap_reader import _native

_DEFAULT = Limits()


def compiled_events(
    pieces: Iterable[bytes], limits: Limits = _DEFAULT, **kw: Any
) -> tuple[list[Any], int, int]:
    """The compiled core's events for ``pieces``, how many records its scanner took (the
    others are expat's, from odd blocks), and how many of those it built itself (the
    others are Python's judgement of the fields it read)."""
    counts = {"expat": 0, "python": 0}

    def counting(original: Callable[..., bool], who: str) -> Callable[..., bool]:
        def wrapper(doc: Any, *args: Any) -> bool:
            before = len(doc.out)  # (a dropped loc makes no record)
            try:
                return original(doc, *args)
            finally:
                counts[who] += len(doc.out) - before

        return wrapper

    interface = INTERFACE._replace(
        emit_entry=counting(_records.emit_entry, "python"),
        emit_ref=counting(_records.emit_ref, "python"),
    )
    new_scanner = _core_choice._compiled_block_scanner(_native, _native.Interface(interface))
    with (
        mock.patch.object(_core_choice, "new_scanner", new_scanner),
        mock.patch.object(_exact, "emit_entry", counting(_records.emit_entry, "expat")),
        mock.patch.object(_exact, "emit_ref", counting(_records.emit_ref, "expat")),
    ):
        events = parse_chunks(pieces, fast=True, limits=limits, **kw)
    taken = sum(isinstance(e, (Entry, SitemapRef)) for e in events) - counts["expat"]
    return events, taken, taken - counts["python"]
