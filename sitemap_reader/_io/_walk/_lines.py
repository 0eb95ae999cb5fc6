"""``dump``'s lines written from the compiled core's records, with no ``Entry`` made.

When the command line writes jsonl, csv or txt through the crate's writer and nothing else
reads an entry (no state store, no change feed, no worker process), the walk asks the
compiled scanner for its records as runs (``_native.Entries``) and each document's body
writes their lines itself (:meth:`LinePlan.write`): the scope's fast test, the run's entry
budget and ``--since``, in the walk's order, then the lines. What the fast test cannot pass
becomes an ``Entry`` and takes the usual path. The lines go out as :class:`Lines` events in
the run's batches, in their place among the other events; only the command line that asked
for them sees one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ... import _native


@dataclass(frozen=True, slots=True)
class Lines:
    """Lines of one document's entries, as the writer wrote them (UTF-8)."""

    data: bytes
    written: int  # the entries they are (those --since kept)
    in_scope: int  # the entries judged in scope (the budget and the report count these)


@dataclass(frozen=True, slots=True)
class LinePlan:
    """How the bodies of a run write their entries' lines: ``writer`` the crate's writer of
    the command line's format, ``since`` and ``keep_undated`` its ``--since`` (None: off)
    and whether an entry without a lastmod passes it (not ``--since-strict``)."""

    writer: _native.LineWriter
    since: datetime | None = None
    keep_undated: bool = True

    def write(
        self, run: _native.Entries, start: int, scope: tuple[str, ...] | None, room: int
    ) -> tuple[Lines, int]:
        """The lines of ``run`` from ``start`` on that pass, at most ``room`` in scope, and
        where the records judged end (see ``LineWriter.write_run``)."""
        data, end, in_scope, written = self.writer.write_run(
            run,
            start=start,
            scope=scope,  # (the crate takes a tuple as a list)
            since=self.since,
            keep_undated=self.keep_undated,
            room=max(room, 0),
        )
        return Lines(data, written, in_scope), end
