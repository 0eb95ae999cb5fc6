"""The walk's side of :meth:`SitemapReader.line_batches`: a run's entries written as lines.

Each document's body writes the entries it passes on as :class:`Lines` events, in their
place among the other events, through the run's plan (``sitemap_reader.LinePlan``, made
above this layer: the walk reads it through :class:`LineMaker`). Its ``since`` is applied
here, after the scope and the run's entry budget, as ``dump`` applies it.

Where the compiled core runs and nothing else reads an entry (no state store, no worker
process), the body asks the compiled scanner for its records as runs
(``_native.Entries``) and :func:`write_run` has the crate judge and write them with no
``Entry`` made: the scope's fast test (the body's ``ScopeFilter``, read by attribute),
robots.txt (a ``RobotsGate``, read by attribute), the room left in the budget and ``since``
(the plan's ``Since``, read by attribute), in that order, then the lines. What the fast test cannot pass becomes an ``Entry`` and takes the
usual path; every other ``Entry`` is written by :func:`write_entries`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..._base._lines import Lines, Since
from ..._base._models import Entry
from ..._core._walk._scope import ScopeFilter

if TYPE_CHECKING:
    from ... import _native
    from ._robots import RobotsGate

# What robots.txt disallowed among a run's entries judged: for the agent and for "*", how
# many and the first (see ``LineWriter.write_run``).
RobotsSaid = tuple[tuple[int, str | None], tuple[int, str | None]]


class LineMaker(Protocol):
    """What the walk reads of a ``LinePlan`` (``_output/_plan.py``)."""

    @property
    def since(self) -> Since | None: ...

    @property
    def compiled(self) -> _native.LineWriter | None: ...

    def encode(self, entries: list[Entry]) -> bytes: ...


def write_entries(plan: LineMaker, entries: list[Entry]) -> Lines:
    """The lines of ``entries`` (in scope, within the budget) that the plan's ``since``
    keeps."""
    since = plan.since
    kept = entries if since is None else [e for e in entries if since.keeps(e.lastmod)]
    return Lines(plan.encode(kept) if kept else b"", len(kept), len(entries))


def write_run(
    plan: LineMaker,
    run: _native.Entries,
    start: int,
    scope: ScopeFilter,
    room: int,
    robots: RobotsGate | None = None,
) -> tuple[Lines, int, RobotsSaid | None]:
    """The lines of the compiled ``run`` from ``start`` on that pass, at most ``room`` in
    scope, where the records judged end, and what ``robots`` disallowed among them (see
    ``LineWriter.write_run``)."""
    writer = plan.compiled
    assert writer is not None  # (the body asks for runs only then)
    data, end, in_scope, written, said = writer.write_run(
        run, start=start, scope=scope, since=plan.since, room=max(room, 0), robots=robots
    )
    return Lines(data, written, in_scope), end, said
