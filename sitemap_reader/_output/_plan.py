"""``LinePlan``: how :meth:`SitemapReader.line_batches` writes a run's entries as lines.

The plan holds the writers, so that the walk, below this layer, needs none of its own: the
crate's (``_native.LineWriter``) where the compiled core runs, which also writes the
compiled core's runs of records with no ``Entry`` made (``_io/_walk/_lines.py``), and the
Python writer (``python_entry_writer``) for the rest and on the pure core. Both write the
same bytes (tests/output/test_compiled_lines.py, tests/api/test_line_batches.py).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._base._lines import Since
from .._base._models import Entry
from ._compiled import line_writer
from ._lines import python_entry_writer

if TYPE_CHECKING:
    from .. import _native

FORMATS = ("jsonl", "csv", "txt")


@dataclass(frozen=True, slots=True)
class LinePlan:
    """How :meth:`SitemapReader.line_batches` writes entries: as ``format`` lines (jsonl:
    one JSON object a line, ``entry_to_dict``'s; csv: the scalar columns; txt: one loc a
    line), keeping those ``since`` keeps (None: all).

    The lines are the bytes ``dump --format FORMAT`` writes, under either core. Raises
    ValueError for another format, TypeError for a ``since`` that is no :class:`Since`.
    """

    format: str = "jsonl"
    since: Since | None = None
    # The crate's writer where the compiled core runs (else None): the walk asks the
    # compiled core for runs of records it writes with no Entry made.
    compiled: _native.LineWriter | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"no line format {self.format!r}: jsonl, csv or txt")
        if self.since is not None and not isinstance(self.since, Since):
            raise TypeError(
                f"since must be a Since or None, not {type(self.since).__name__}: "
                "Since(when, keep_undated=True)"
            )
        object.__setattr__(self, "compiled", line_writer(self.format))

    @property
    def header(self) -> bytes:
        """What goes before the first line: csv's header row (b'' for jsonl and txt)."""
        return self._python_lines([], header=True)

    def encode(self, entries: list[Entry]) -> bytes:
        """The lines of ``entries``, all of them (``since`` is the walk's to apply)."""
        if self.compiled is not None:
            data = self.compiled.write(entries)
            if data is not None:
                return data  # (None: a value only the Python writer takes)
        return self._python_lines(entries, header=False)

    def _python_lines(self, entries: list[Entry], *, header: bool) -> bytes:
        # A writer a call: a plan may serve several runs at once, on several threads.
        text = io.StringIO()
        write = python_entry_writer(self.format, text)  # (csv: it writes its header now)
        start = 0 if header else len(text.getvalue())
        write(entries)
        return text.getvalue()[start:].encode("utf-8")
