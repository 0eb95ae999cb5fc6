"""Incremental state, the contract: what a store keeps and what the walk may ask of it
(docs/architecture.md, "The state store").

A :class:`StateStore` remembers what each document held when it was last read completely
(lastmod, validators, digest, children): enough to skip or ask conditionally. A
:class:`ChangeFeedStore` also keeps every tracked document's entries, to say which URLs
are new, modified or removed (``Incremental.changes``). The stores are
:mod:`._sqlite`'s; this module imports the records, and that store (the default one,
:func:`open_store`) only when a run names a state file, so a run without one loads no
sqlite3; nothing of the walk: the walk decides what to ask and when to write.

Consistency: ``put`` writes one document's row, its children and (for the change feed) its
entries in one transaction, and the walk calls it only after the document was read to its
end. A run killed at any moment leaves each row as it was before or after one complete read;
the next run redoes the rest.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Generator, Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..._base._models import Entry, EntryChange, LastmodTrust, SitemapState

if TYPE_CHECKING:
    from ._ledger import Hold
    from ._recheck import Candidate, Credit, Server

STATE_FILE_NAME = "state.sqlite"


class StateStore(Protocol):
    """Where a run keeps what it read, keyed by the document's URL as named (normalised).

    One run at a time uses a store. ``put`` is called once a document was read completely;
    ``touch`` when it was confirmed unchanged (HTTP 304, or the same bytes again). A store
    with a change feed is a :class:`ChangeFeedStore`.
    """

    def get(self, url: str) -> SitemapState | None:
        """The state recorded for ``url``, or None."""

    def put(self, state: SitemapState) -> None:
        """Record ``state`` after a read to its end, in one transaction.

        A ``state`` of status ``ok`` is a complete read of a valid document: sitemaps its
        previous children named that it no longer names (and that nothing else names) are
        forgotten (with a change feed, their entries count as removed). A ``partial`` one
        proves nothing about what it did not reach: the children it did not name are kept
        after those it named, and its entries add to the recorded ones (none is removed).
        """

    def touch(
        self,
        url: str,
        *,
        lastmod: datetime | None,
        checked_at: datetime,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> None:
        """``url`` is unchanged as of ``checked_at``; its index now says ``lastmod``.

        New validators replace the recorded ones; None keeps them.
        """

    def states(self) -> Iterator[SitemapState]:
        """Every recorded document, by URL."""

    def close(self) -> None:
        """Release the store (a SQLite file is checkpointed and closed)."""


@runtime_checkable
class ChangeFeedStore(StateStore, Protocol):
    """A store that also keeps the entries of tracked documents, for the change feed.

    ``put`` of a state with ``tracked`` replaces the document's recorded entries with the
    ones staged for its URL since (none if none were). Changes survive a killed run: they
    are reported by the next run that completes (at least once).
    """

    def stage(self, url: str, entries: Sequence[Entry]) -> None:
        """Set aside entries of ``url``, being re-read for the change feed."""

    def discard(self, url: str) -> None:
        """Drop what was staged for ``url`` (its read did not complete)."""

    def changes(self) -> Iterator[EntryChange]:
        """What changed since the feed was last delivered: new, modified, removed URLs."""

    def delivered(self) -> None:
        """The changes were handed out: start the next feed from here."""


@runtime_checkable
class LedgerStore(StateStore, Protocol):
    """A store that also keeps the walk's judgements: the shrink guard's holds, the
    verdicts on lastmods and the recheck credit (:mod:`._state_ledger`). Without one,
    removals are not guarded, verdicts last one run and no child is asked again."""

    def urls_under(self, url: str) -> int:
        """URLs the change feed lists for the document ``url`` and every document below it."""

    def begin_source(self, source: str, url: str) -> int:
        """Note the documents ``source`` (first document ``url``) holds; its URLs listed."""

    def oldest_under(self, url: str, limit: int) -> list[str]:
        """Up to ``limit`` skippable documents below ``url``, the longest unchecked first."""

    def recheck_pool(self, url: str) -> Generator[Candidate, None, None]:
        """The skippable documents below ``url``, the longest unchecked first, weighed."""

    def recheck_source(self, url: str) -> tuple[int, Server]:
        """The size of ``url`` and what is below it; what they said of conditional requests."""

    def answered(self, url: str, answers: bool) -> None:
        """Record how ``url``'s server answered its conditional request (True: 304)."""

    def credit(self, source: str) -> Credit:
        """The recheck credit the source (its first document ``source``) carried over."""

    def set_credit(self, source: str, credit: Credit, at: datetime) -> None:
        """Record the recheck credit the source carries to its next run."""

    def hold_removals(self, source: str) -> int:
        """Hold back the pending removals of what ``source`` held at :meth:`begin_source`."""

    def release_removals(self, source: str) -> None:
        """Let the removals ``source``'s guard held go out with the next changes."""

    def holds(self) -> list[Hold]:
        """Every shrink held back."""

    def hold(self, held: Hold) -> None:
        """Record a shrink held back (replacing one of the same scope and URL)."""

    def release(self, scope: str, url: str) -> None:
        """Forget a hold: the shrink was confirmed or undone."""

    def verdict(self, scope: str, url: str) -> LastmodTrust | None:
        """The verdict recorded on a sitemap's or a source's lastmods."""

    def set_verdict(self, scope: str, url: str, trust: LastmodTrust, at: datetime) -> None:
        """Record the verdict on a sitemap's or a source's lastmods."""

    def verdicts(self, scope: str) -> list[tuple[str, LastmodTrust]]:
        """Every verdict of ``scope``, by URL."""


def default_state_path() -> str:
    """The state file used when none is named: ``$XDG_STATE_HOME/sitemap-reader/state.sqlite``.

    ``$XDG_STATE_HOME`` defaults to ``~/.local/state`` (the XDG Base Directory spec's place
    for state that persists between runs); on Windows, ``%LOCALAPPDATA%`` is used instead.
    """
    if sys.platform == "win32":  # pragma: no cover - the suite runs on POSIX
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
    else:
        base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return os.path.join(base, "sitemap-reader", STATE_FILE_NAME)


def file_of(state: StateStore | str | os.PathLike[str]) -> str | None:
    """The file a run on ``state`` locks: a path, or a SQLite store's file (None: in memory,
    or a store of the caller's own kind, which keeps its own rules)."""
    from ._kept import KeptEntries  # here: it imports this module
    from ._sqlite import SqliteStateStore

    if isinstance(state, KeptEntries):  # the Scrapy spider's wrapper: its store's file
        state = state.store
    path = os.fspath(state) if isinstance(state, (str, os.PathLike)) else None
    if isinstance(state, SqliteStateStore):
        path = state.path
    return None if path in (None, ":memory:") else path


def open_store(state: StateStore | str | os.PathLike[str]) -> tuple[StateStore, bool]:
    """A store for ``state``: a path opens a :class:`SqliteStateStore` (owned: True)."""
    if isinstance(state, (str, os.PathLike)):
        from ._sqlite import SqliteStateStore

        return SqliteStateStore(state), True
    return state, False
