"""A state store that keeps the whole entries it stages, so a change comes with its Entry.

The change feed (``Incremental(changes=True)``) hands out :class:`EntryChange` records at
the end of a run, and those carry ``loc``, ``lastmod`` and ``sitemap`` only: the store
keeps nothing more per URL. A crawler that requests the new and modified pages wants the
rest too (images, alternates, ...), so :class:`KeptEntries` wraps any change-feed store
and sets aside every entry it is asked to stage (the entries of the sitemaps read this
run, the only ones that can be new or modified) in a private temporary SQLite database:
on disk, not in memory, since a first run stages every URL of the site. It is built on
the ``ChangeFeedStore`` protocol only.
"""

from __future__ import annotations

import dataclasses
import operator
import pickle
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from ..._base._models import Entry, EntryChange, SitemapState
from ._store import ChangeFeedStore

# Every field of an Entry, in order: a record is kept as the tuple of its values and
# rebuilt positionally, which is four times cheaper than pickling the slotted dataclass.
_VALUES = operator.attrgetter(*(f.name for f in dataclasses.fields(Entry)))


class KeptEntries:
    """``store``, plus the full entries staged through it, looked up by loc with :meth:`entry`.

    It owns ``store``: :meth:`close` closes both.
    """

    def __init__(self, store: ChangeFeedStore) -> None:
        self.store = store
        # "" is a private temporary database on disk, deleted when it is closed.
        self._db = sqlite3.connect("", isolation_level=None, check_same_thread=False)
        self._db.execute(
            "CREATE TABLE kept (loc TEXT PRIMARY KEY, url TEXT NOT NULL, entry BLOB NOT NULL)"
        )
        self._db.execute("CREATE INDEX kept_url ON kept (url)")

    def entry(self, change: EntryChange) -> Entry:
        """The entry a new or modified URL was last staged with this run.

        Without one (its staging was discarded and another sitemap lists it), an Entry of
        what the change itself says.
        """
        row = self._db.execute("SELECT entry FROM kept WHERE loc = ?", (change.loc,)).fetchone()
        if row is None:
            return Entry(loc=change.loc, lastmod=change.lastmod, sitemap=change.sitemap)
        return Entry(*pickle.loads(row[0]))

    # -- the ChangeFeedStore protocol ----------------------------------------------------------

    def stage(self, url: str, entries: Sequence[Entry]) -> None:
        self.store.stage(url, entries)
        dumps, values, protocol = pickle.dumps, _VALUES, pickle.HIGHEST_PROTOCOL
        rows = [(e.loc, url, dumps(values(e), protocol)) for e in entries]
        self._db.execute("BEGIN")  # one transaction per batch, not one per row
        try:
            self._db.executemany("INSERT OR REPLACE INTO kept VALUES (?, ?, ?)", rows)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def discard(self, url: str) -> None:
        self.store.discard(url)
        self._db.execute("DELETE FROM kept WHERE url = ?", (url,))

    def get(self, url: str) -> SitemapState | None:
        return self.store.get(url)

    def put(self, state: SitemapState) -> None:
        self.store.put(state)

    def touch(self, url: str, **fields: Any) -> None:  # the store's own keywords, passed on
        self.store.touch(url, **fields)

    def changes(self) -> Iterator[EntryChange]:
        return self.store.changes()

    def delivered(self) -> None:
        self.store.delivered()

    def states(self) -> Iterator[SitemapState]:
        return self.store.states()

    def __getattr__(self, name: str) -> Any:
        # What else the wrapped store can do (a SQLite store's ledger: the shrink guard and
        # lastmod verdicts) passes through, so wrapping it does not turn those off.
        if name == "store":
            raise AttributeError(name)
        return getattr(self.store, name)

    def close(self) -> None:
        try:
            self.store.close()
        finally:
            self._db.close()
