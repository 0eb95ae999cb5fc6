"""The records a run hands its consumer: batches of events, and live progress counters.

They are the walk's, but the fetcher and the incremental state count into ``Progress`` too,
so they sit below all three.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from ._models import Event, ProblemKind


@dataclass
class Progress:
    """Live counters of a run, for progress displays (read them at any time)."""

    queued: int = 0  # documents waiting in the frontier
    active: int = 0  # documents being read now
    done: int = 0  # documents finished (any status)
    failed: int = 0
    entries: int = 0  # page URLs passed on
    dropped: int = 0  # page URLs left out (scope)
    bytes: int = 0  # body bytes received (all attempts), growing as they stream in
    # Sitemaps (robots.txt not counted, nor a probed path that is not there) taken on, and
    # finished: a progress display's done/known, counted by the rule of the summary.
    sitemaps: int = 0
    sitemaps_done: int = 0
    unchanged: int = 0  # documents found unchanged since the last run (a state store)
    bytes_saved: int = 0  # their sizes at their last reads, less what was fetched again
    # The first run-wide budget reached ("deadline", "max-entries", ...), None while none is.
    budget: ProblemKind | None = None
    not_read: int = 0  # documents named but neither queued nor read: a budget was reached
    # Sources whose lastmods were distrusted (Incremental.trust_lastmod auto): source -> why.
    distrusted: dict[str, str] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)


class Batch(list[Event]):
    """One batch of a run's events: a plain list, plus the SOURCE they descend from.

    ``root`` is the source as the walk names it (:attr:`Leaf.root`): a URL as given, a
    local file's absolute path, or ``-``; None for the change feed's batches, which close a
    run and gather every source's changes. The events of one batch all descend from it.
    """

    __slots__ = ("root",)

    def __init__(self, events: Iterable[Event] = (), root: str | None = None) -> None:
        super().__init__(events)
        self.root = root
