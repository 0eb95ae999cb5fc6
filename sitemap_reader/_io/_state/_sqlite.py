"""The state store: :class:`SqliteStateStore`'s queries over one SQLite database.

It keeps the contract of :mod:`._state` (both protocols); the file itself (what makes it
ours, schema, migrations) is :mod:`._state_file`'s. :class:`MemoryStateStore` is the same
store on ``":memory:"``: one implementation of the change feed, whichever store a run has.

The change feed keeps no per-URL state in Python: ``stage`` sets a document's entries aside
(a temporary table) while it streams; ``put`` of a tracked state swaps them in and records,
for every URL whose listing moved, what it was before (``pending``, kept until delivered).
``changes`` compares before and after for the pending URLs only, so an unchanged site costs
nothing, and ``delivered`` forgets them once a run handed them all out.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from ..._base._models import (
    ChangeKind,
    Entry,
    EntryChange,
    Format,
    SitemapRef,
    SitemapState,
    Status,
)
from ._file import connect, guard
from ._ledger import Ledger

if TYPE_CHECKING:
    from typing_extensions import Self

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)


class SqliteStateStore(Ledger):
    """A state store in one SQLite file (WAL mode), or ``":memory:"``.

    Opening checks the file before writing anything: a file that is not SQLite, another
    application's database, a damaged one or one from a newer sitemap-reader raises
    :class:`StateError` and is left as it was. An older schema is migrated in place.
    The connection may be used from any one thread at a time (the sync wrappers run the
    walk on a thread of their own).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._db = connect(self.path)
        self._staging: dict[str, int] = {}  # URL -> its id in temp.staged, while it streams
        self._stages = 0

    def _guard(self) -> contextlib.AbstractContextManager[None]:
        return guard(self.path)

    @contextlib.contextmanager
    def _transaction(self, begin: str = "BEGIN IMMEDIATE") -> Iterator[sqlite3.Connection]:
        with self._guard():
            self._db.execute(begin)
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # -- the protocol ------------------------------------------------------------------------

    def get(self, url: str) -> SitemapState | None:
        with self._guard():
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM sitemaps WHERE url = ? AND status IS NOT NULL", (url,)
            ).fetchone()
            return None if row is None else self._state(row)

    def put(self, state: SitemapState) -> None:
        stage = self._staging.pop(state.url, None)
        with self._transaction() as db:
            values = (
                state.final_url,
                state.status.value,
                None if state.format is None else state.format.value,
                _iso(state.lastmod),
                state.etag,
                state.last_modified,
                _iso(state.fetched_at),
                _iso(state.checked_at),
                state.entries,
                state.bytes,
                state.digest,
                int(state.tracked),
            )
            row = db.execute("SELECT id FROM sitemaps WHERE url = ?", (state.url,)).fetchone()
            sid: int
            if row is None:
                sid = db.execute(  # type: ignore[assignment]  # an INSERT always sets it
                    f"INSERT INTO sitemaps (url, {_WRITABLE}) VALUES (?{', ?' * len(values)})",
                    (state.url, *values),
                ).lastrowid
            else:
                sid = row[0]
                db.execute(
                    f"UPDATE sitemaps SET ({_WRITABLE}) = ({', '.join('?' * len(values))}) "
                    "WHERE id = ?",
                    (*values, sid),
                )
            before = db.execute(
                "SELECT loc, lastmod FROM children WHERE parent = ? ORDER BY position", (sid,)
            ).fetchall()
            children = list(state.children)
            named = {ref.loc for ref in children}
            complete = state.status is Status.OK
            if not complete:
                # A partial read proves nothing about what it did not reach: the children it
                # did not name stay, after those it named.
                children.extend(
                    SitemapRef(loc=loc, lastmod=_from_iso(lastmod), source=state.final_url)
                    for loc, lastmod in before
                    if loc not in named
                )
            db.execute("DELETE FROM children WHERE parent = ?", (sid,))
            db.executemany(
                "INSERT INTO children (parent, position, loc, lastmod) VALUES (?, ?, ?, ?)",
                ((sid, i, ref.loc, _iso(ref.lastmod)) for i, ref in enumerate(children)),
            )
            if state.tracked:
                if complete:
                    self._swap_entries(db, sid, stage)
                else:
                    self._merge_entries(db, sid, stage)
            if stage is not None:
                db.execute("DELETE FROM temp.staged WHERE stage = ?", (stage,))
            gone = {loc for loc, _ in before} - named
            if gone and complete:
                self._forget(db, gone, keep=state.url)

    def touch(
        self,
        url: str,
        *,
        lastmod: datetime | None,
        checked_at: datetime,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> None:
        with self._guard():
            self._db.execute(
                "UPDATE sitemaps SET lastmod = ?, checked_at = ?, etag = coalesce(?, etag), "
                "last_modified = coalesce(?, last_modified) WHERE url = ? AND status IS NOT NULL",
                (_iso(lastmod), _iso(checked_at), etag, last_modified, url),
            )

    def stage(self, url: str, entries: Sequence[Entry]) -> None:
        stage = self._staging.get(url)
        if stage is None:
            self._stages += 1
            stage = self._staging[url] = self._stages
        rows = [(stage, e.loc, _micros(e.lastmod)) for e in entries]
        # One transaction per batch (autocommit would make each row one), on the temporary
        # database only: a deferred BEGIN, so the state file is not locked.
        with self._transaction("BEGIN") as db:
            db.executemany("INSERT INTO temp.staged (stage, loc, lastmod) VALUES (?, ?, ?)", rows)

    def discard(self, url: str) -> None:
        stage = self._staging.pop(url, None)
        if stage is not None:
            with self._guard():
                self._db.execute("DELETE FROM temp.staged WHERE stage = ?", (stage,))

    def changes(self) -> Iterator[EntryChange]:
        with self._guard():
            cursor = self._db.execute(_CHANGES)
            while True:
                rows = cursor.fetchmany(1000)
                if not rows:
                    return
                for loc, was, listings, before, after, sitemap in rows:
                    if not was:
                        yield EntryChange(
                            change=ChangeKind.NEW,
                            loc=loc,
                            lastmod=_from_micros(after),
                            sitemap=sitemap or "",
                        )
                    elif not listings:
                        yield EntryChange(
                            change=ChangeKind.REMOVED,
                            loc=loc,
                            lastmod=_from_micros(before),
                            sitemap=sitemap or "",
                        )
                    else:
                        yield EntryChange(
                            change=ChangeKind.MODIFIED,
                            loc=loc,
                            lastmod=_from_micros(after),
                            sitemap=sitemap or "",
                        )

    def delivered(self) -> None:
        with self._guard():
            self._db.execute("DELETE FROM pending WHERE held IS NULL")  # held: kept for later
            # Give the freed pages back (a first feed leaves one row per URL to free).
            # executescript steps the pragma to its end; execute would free one page.
            self._db.executescript("PRAGMA incremental_vacuum;")

    def states(self) -> Iterator[SitemapState]:
        with self._guard():
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM sitemaps WHERE status IS NOT NULL ORDER BY url"
            ).fetchall()
            for row in rows:
                yield self._state(row)

    def close(self) -> None:
        self._db.close()  # the last connection checkpoints the WAL into the file

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- beyond the protocol -------------------------------------------------------------------

    def summary(self) -> StoreSummary:
        """Counts for ``sitemap-reader state show``."""
        with self._guard():
            one = self._db.execute
            return StoreSummary(
                schema=one("PRAGMA user_version").fetchone()[0],
                documents=one("SELECT count(*) FROM sitemaps WHERE status IS NOT NULL").fetchone()[
                    0
                ],
                forgotten=one("SELECT count(*) FROM sitemaps WHERE status IS NULL").fetchone()[0],
                tracked_urls=one("SELECT count(DISTINCT loc) FROM listed").fetchone()[0],
                pending=one("SELECT count(*) FROM pending WHERE held IS NULL").fetchone()[0],
                held=one("SELECT count(*) FROM pending WHERE held IS NOT NULL").fetchone()[0],
            )

    # -- internals ---------------------------------------------------------------------------

    def _state(self, row: tuple[Any, ...]) -> SitemapState:
        sid, url, final_url, status, fmt, lastmod, etag, last_modified = row[:8]
        fetched_at, checked_at, entries, size, digest, tracked = row[8:]
        final_url = final_url or url
        children = tuple(
            SitemapRef(loc=loc, lastmod=_from_iso(child_lastmod), source=final_url)
            for loc, child_lastmod in self._db.execute(
                "SELECT loc, lastmod FROM children WHERE parent = ? ORDER BY position", (sid,)
            )
        )
        fetched = datetime.fromisoformat(fetched_at)
        return SitemapState(
            url=url,
            final_url=final_url,
            status=Status(status),
            format=None if fmt is None else Format(fmt),
            lastmod=_from_iso(lastmod),
            etag=etag,
            last_modified=last_modified,
            fetched_at=fetched,
            checked_at=_from_iso(checked_at) or fetched,
            entries=entries,
            bytes=size,
            digest=digest,
            children=children,
            tracked=bool(tracked),
        )

    def _swap_entries(self, db: sqlite3.Connection, sid: int, stage: int | None) -> None:
        """The staged entries become the document's; URLs whose listing moved are pending."""
        stage = -1 if stage is None else stage  # nothing staged: it lists nothing now
        self._remember(
            db,
            "SELECT loc FROM (SELECT loc, lastmod FROM listed WHERE sitemap = :sid "
            "EXCEPT SELECT loc, lastmod FROM temp.staged WHERE stage = :stage) "
            "UNION SELECT loc FROM (SELECT loc, lastmod FROM temp.staged WHERE stage = :stage "
            "EXCEPT SELECT loc, lastmod FROM listed WHERE sitemap = :sid)",
            {"sid": sid, "stage": stage},
        )
        db.execute("DELETE FROM listed WHERE sitemap = ?", (sid,))
        # In key order, for locality in the indexes; a URL listed twice keeps its last listing.
        db.execute(
            "INSERT OR REPLACE INTO listed (sitemap, loc, lastmod) "
            "SELECT ?, loc, lastmod FROM temp.staged WHERE stage = ? ORDER BY loc, rowid",
            (sid, stage),
        )

    def _merge_entries(self, db: sqlite3.Connection, sid: int, stage: int | None) -> None:
        """A partial read's entries add to the document's (new or modified); none is
        removed: what it did not reach stays as it was."""
        if stage is None:
            return
        self._remember(
            db,
            "SELECT loc FROM (SELECT loc, lastmod FROM temp.staged WHERE stage = :stage "
            "EXCEPT SELECT loc, lastmod FROM listed WHERE sitemap = :sid)",
            {"sid": sid, "stage": stage},
        )
        db.execute(
            "INSERT OR REPLACE INTO listed (sitemap, loc, lastmod) "
            "SELECT ?, loc, lastmod FROM temp.staged WHERE stage = ? ORDER BY loc, rowid",
            (sid, stage),
        )

    def _forget(self, db: sqlite3.Connection, gone: Iterable[str], *, keep: str) -> None:
        """Forget documents an index stopped naming (and their descendants, when nothing
        else names them): their entries count as removed."""
        todo = list(gone)
        seen = {keep}
        while todo:
            url = todo.pop()
            if url in seen:
                continue
            seen.add(url)
            if db.execute("SELECT 1 FROM children WHERE loc = ? LIMIT 1", (url,)).fetchone():
                continue  # another index or robots.txt still names it
            row = db.execute(
                "SELECT id FROM sitemaps WHERE url = ? AND status IS NOT NULL", (url,)
            ).fetchone()
            if row is None:
                continue
            sid = row[0]
            self._remember(db, "SELECT loc FROM listed WHERE sitemap = :sid", {"sid": sid})
            db.execute("DELETE FROM listed WHERE sitemap = ?", (sid,))
            todo.extend(
                loc for (loc,) in db.execute("SELECT loc FROM children WHERE parent = ?", (sid,))
            )
            db.execute("DELETE FROM children WHERE parent = ?", (sid,))
            # The row stays (its id names it in pending); its state is gone.
            db.execute(
                "UPDATE sitemaps SET status = NULL, etag = NULL, last_modified = NULL, "
                "digest = NULL, tracked = 0, answers = NULL WHERE id = ?",
                (sid,),
            )

    @staticmethod
    def _remember(db: sqlite3.Connection, locs: str, params: dict[str, int]) -> None:
        """Record what the URLs ``locs`` selects were before, unless they are pending already
        (then what they were when the feed was last delivered stands)."""
        db.execute(
            "INSERT OR IGNORE INTO pending (loc, listed, lastmod, sitemap) "
            "SELECT t.loc, count(l.loc) > 0, max(l.lastmod), min(l.sitemap) "
            f"FROM ({locs}) AS t LEFT JOIN listed AS l ON l.loc = t.loc GROUP BY t.loc",
            params,
        )


_WRITABLE = (
    "final_url, status, format, lastmod, etag, last_modified, fetched_at, checked_at, "
    "entries, bytes, digest, tracked"
)
_COLUMNS = f"id, url, {_WRITABLE}"

# Pending URLs whose state differs now: listed before or not, listed now or not, and the
# latest lastmod of their listings before and now. The sitemap named is one that lists the
# URL now, or listed it before when it is gone.
_CHANGES = """
SELECT n.loc, n.was, n.listings, n.before, n.after, coalesce(s.final_url, s.url)
FROM (
    SELECT p.loc AS loc, p.listed AS was, p.lastmod AS before, p.sitemap AS old,
           count(l.loc) AS listings, max(l.lastmod) AS after, min(l.sitemap) AS new
    FROM pending AS p LEFT JOIN listed AS l ON l.loc = p.loc
    WHERE p.held IS NULL
    GROUP BY p.loc
) AS n
LEFT JOIN sitemaps AS s ON s.id = CASE WHEN n.listings > 0 THEN n.new ELSE n.old END
WHERE (n.was != 0) != (n.listings > 0)
   OR (n.was != 0 AND n.listings > 0 AND n.before IS NOT n.after)
ORDER BY n.loc
"""


@dataclass(frozen=True, slots=True)
class StoreSummary:
    """What a SQLite state file holds, in counts."""

    schema: int
    documents: int  # recorded documents (robots.txt, indexes, sitemaps)
    forgotten: int  # documents that left their index
    tracked_urls: int  # distinct page URLs kept for the change feed
    pending: int  # URLs whose change was not delivered yet
    held: int = 0  # removals a source's shrink guard holds back


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _from_iso(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _micros(value: datetime | None) -> int | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return (value - _EPOCH) // _MICROSECOND


def _from_micros(value: int | None) -> datetime | None:
    return None if value is None else _EPOCH + value * _MICROSECOND


class MemoryStateStore(SqliteStateStore):
    """The SQLite store on ``":memory:"``: for tests and for one process that keeps its
    reader's state between runs. Its memory grows with the URLs it tracks (SQLite's pages,
    not Python objects); use a file for big sites. ``close`` frees it, and what it held."""

    def __init__(self) -> None:
        super().__init__(":memory:")
