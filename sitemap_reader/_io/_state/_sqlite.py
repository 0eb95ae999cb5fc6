"""The state store: :class:`SqliteStateStore`'s queries over one SQLite database.

It keeps the contract of :mod:`._state` (both protocols); the file itself (what makes it
ours, schema, migrations) is :mod:`._state_file`'s. :class:`MemoryStateStore` is the same
store on ``":memory:"``: one implementation of the change feed, whichever store a run has.

Each document's entries are kept as one row, its run (:mod:`._runs`: sorted, compressed), and
the change feed indexes them by 64-bit keys, not text: ``listed`` holds every listing (key,
sitemap, lastmod), ``pending`` what each URL whose listing moved was before (kept until
delivered). ``stage`` sets a document's entries aside while it streams (in memory: one
document's worth); ``put`` compares them with its run and writes only what differs, so an
unchanged site costs nothing; ``changes`` compares before and after for the pending URLs
only, and ``delivered`` forgets them once a run handed them all out. A run without the feed
keeps each document's run too (cheap: no per-URL rows), so a later feed starts from it
(:meth:`SqliteStateStore.adopt`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from itertools import repeat
from typing import TYPE_CHECKING, Any

from ..._base._errors import StateError
from ..._base._models import (
    ChangeKind,
    Entry,
    EntryChange,
    Format,
    SitemapRef,
    SitemapState,
    Status,
)
from ..._core._walk._trust import lastmod_stamps
from ._file import connect, guard
from ._ledger import Ledger
from ._runs import EMPTY, Run

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
        # Per document being read: its entries so far, URLs and lastmods, as listed.
        self._staging: dict[str, tuple[list[str], list[int | None]]] = {}
        self._sort_listed()  # what a first feed killed before its end appended

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
        staged = self._staging.pop(state.url, None)
        with self._transaction() as db:
            row = db.execute(
                "SELECT id, tracked FROM sitemaps WHERE url = ?", (state.url,)
            ).fetchone()
            # Once the feed indexes a document, every run keeps its tables up to date (with or
            # without the feed): what a run without it saw change stays pending for the next.
            tracked = state.tracked or (row is not None and bool(row[1]))
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
                int(tracked),
            )
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
            if tracked or staged is not None:
                indexed = row is not None and bool(row[1])
                self._record_run(
                    db, sid, staged, complete=complete, tracked=tracked, indexed=indexed
                )
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
        self.stage_stamped(url, [e.loc for e in entries], lastmod_stamps(list(entries)))

    def stage_stamped(self, url: str, locs: list[str], stamps: list[int | None]) -> None:
        """``stage`` of entries given as their URLs and :func:`lastmod_stamps` (the walk
        computed those for the lastmod statistics already)."""
        staged = self._staging.get(url)
        if staged is None:
            self._staging[url] = (locs, stamps)
        else:
            staged[0].extend(locs)
            staged[1].extend(stamps)

    def discard(self, url: str) -> None:
        self._staging.pop(url, None)

    def adopt(self) -> int:
        """Index for the feed the runs that runs without it kept: the first of them is where
        the feed starts, and what changed since is pending. How many documents."""
        with self._guard():
            kept = self._db.execute(
                "SELECT s.id, s.status IS NULL FROM sitemaps AS s JOIN runs AS r "
                "ON r.sitemap = s.id WHERE s.tracked = 0"
            ).fetchall()
        for sid, forgotten in kept:
            with self._transaction() as db:
                base, run = self._base(db, sid).normal(), self._run(db, sid).normal()
                self._index(db, sid, base)
                self._move(db, sid, base, run)  # nothing when they are one
                if forgotten:  # it left its index: its URLs were removed (pending now)
                    db.execute("DELETE FROM runs WHERE sitemap = ?", (sid,))
                    continue
                db.execute(  # sorted, with its keys from now on
                    "UPDATE runs SET count = ?, data = ?, base = NULL WHERE sitemap = ?",
                    (len(run.locs), run.encode(keys=True), sid),
                )
                db.execute("UPDATE sitemaps SET tracked = 1 WHERE id = ?", (sid,))
        return len(kept)

    @staticmethod
    def _fresh(db: sqlite3.Connection) -> bool:
        """Whether nothing was listed when the feed began (a new file): until a feed is
        delivered, every URL listed is new, and no before-state needs writing."""
        return bool(db.execute("SELECT fresh FROM feed").fetchone()[0])

    def _sort_listed(self) -> None:
        """Move what a first feed appended to ``unsorted`` into ``listed``, in key order: one
        sorted pass. Inserted a sitemap at a time, random keys touch every page of the
        index each time, which grows with the square of the site once it outgrows the
        page cache (10,000,000 URLs: 6.6 times a plain read, against 2.4 at 1,000,000)."""
        with self._guard():
            if self._db.execute("SELECT 1 FROM unsorted LIMIT 1").fetchone() is None:
                return
        with self._transaction() as db:
            _into_listed(db)

    def _unfresh(self, db: sqlite3.Connection) -> None:
        """The feed is no longer a first one: what it listed so far and did not hand out
        yet becomes pending as new (not listed before), as a later feed keeps it."""
        if self._fresh(db):
            db.execute(
                "INSERT OR IGNORE INTO pending (key, listed) SELECT key, 0 FROM listed "
                "UNION SELECT key, 0 FROM unsorted"
            )
            _into_listed(db)
            db.execute("UPDATE feed SET fresh = 0")

    def _index(self, db: sqlite3.Connection, sid: int, run: Run) -> None:
        """``run`` is what the feed starts from for ``sid``: listed, and no change."""
        if run.locs:  # a starting point: what it lists is no longer new
            self._unfresh(db)
        db.executemany(
            "INSERT OR REPLACE INTO listed (key, sitemap, lastmod) VALUES (?, ?, ?)",
            sorted(zip(run.keys, repeat(sid), run.lastmods)),
        )

    def changes(self) -> Iterator[EntryChange]:
        self._sort_listed()
        with self._guard():
            if self._fresh(self._db):
                for batch in self._first_feed():
                    yield from batch
                return
            cursor = self._db.execute(_CHANGES)
            group: list[tuple[Any, ...]] = []
            while rows := cursor.fetchmany(1000):
                for row in rows:
                    if group and row[-1] != group[0][-1]:
                        yield from self._changed(group)
                        group = []
                    group.append(row)
            if group:
                yield from self._changed(group)

    def change_batches(self, size: int) -> Iterator[list[EntryChange]]:
        """:meth:`changes` in lists of up to ``size`` (a first feed's are built a list at a
        time, not one record at a time)."""
        self._sort_listed()
        with self._guard():
            if self._fresh(self._db):
                yield from self._first_feed(size)
                return
        batch: list[EntryChange] = []
        for change in self.changes():
            batch.append(change)
            if len(batch) >= size:
                yield batch
                batch = []
        if batch:
            yield batch

    def _first_feed(self, size: int = 1_000) -> Iterator[list[EntryChange]]:
        """Every URL listed, as new: nothing was listed when the feed began (nothing pending
        was written), so it is read from the runs, one sitemap at a time. A URL listed by
        several sitemaps is said once, by the first, with the latest lastmod."""
        db = self._db
        db.execute("DELETE FROM temp.multi")
        db.execute(
            "INSERT INTO temp.multi (key, sitemap, lastmod) SELECT key, min(sitemap), "
            "max(lastmod) FROM listed GROUP BY key HAVING count(*) > 1"
        )
        several = db.execute("SELECT 1 FROM temp.multi LIMIT 1").fetchone() is not None
        documents = db.execute(
            "SELECT s.id, coalesce(s.final_url, s.url) FROM sitemaps AS s JOIN runs AS r "
            "ON r.sitemap = s.id WHERE s.tracked = 1 AND s.status IS NOT NULL ORDER BY s.id"
        ).fetchall()
        new, epoch, unit = ChangeKind.NEW, _EPOCH, _MICROSECOND
        for sid, sitemap in documents:
            run = self._run(db, sid)
            locs, lastmods = run.locs, run.lastmods
            if several:
                db.executemany(
                    "INSERT INTO temp.moved (key, gone) VALUES (?, 0)", ((k,) for k in run.keys)
                )
                shared = {
                    k: (first, latest)
                    for k, first, latest in db.execute(
                        "SELECT u.key, u.sitemap, u.lastmod FROM temp.moved AS m "
                        "JOIN temp.multi AS u ON u.key = m.key"
                    )
                }
                db.execute("DELETE FROM temp.moved")
                if shared:  # each said by its first sitemap, with its latest lastmod
                    kept = [
                        (loc, shared.get(k, (sid, lastmod))[1])
                        for k, loc, lastmod in zip(run.keys, locs, lastmods, strict=True)
                        if shared.get(k, (sid,))[0] == sid
                    ]
                    locs, lastmods = [loc for loc, _ in kept], [at for _, at in kept]
            for start in range(0, len(locs), size):
                yield [  # _from_micros, inline: a call a URL costs more than the record
                    EntryChange(new, loc, None if at is None else epoch + at * unit, sitemap)
                    for loc, at in zip(
                        locs[start : start + size], lastmods[start : start + size], strict=True
                    )
                ]

    def _changed(self, rows: list[tuple[Any, ...]]) -> Iterator[EntryChange]:
        """The changes of one sitemap's rows (the one listing them, or that did), by URL. A
        URL listed now is named by that sitemap's run; one removed, by what it was."""
        sid = rows[0][-1]
        found = self._db.execute(
            "SELECT coalesce(final_url, url) FROM sitemaps WHERE id = ?", (sid,)
        ).fetchone()
        sitemap = "" if found is None else found[0]
        named: dict[int, str] = {}
        if any(row[5] is None for row in rows):
            run = self._run(self._db, sid)
            named = dict(zip(run.keys, run.locs, strict=True))
        made = []
        for key, was, listings, before, after, loc, _ in rows:
            loc = loc or named.get(key)
            if loc is None:  # pragma: no cover - only a key shared by two URLs gets here
                continue
            if not was:
                change, lastmod = ChangeKind.NEW, after
            elif not listings:
                change, lastmod = ChangeKind.REMOVED, before
            else:
                change, lastmod = ChangeKind.MODIFIED, after
            made.append((loc, change, lastmod))
        made.sort()
        for loc, change, lastmod in made:
            yield EntryChange(change, loc, _from_micros(lastmod), sitemap)

    def delivered(self) -> None:
        self._sort_listed()
        with self._guard():
            self._db.execute("UPDATE feed SET fresh = 0")  # what is listed now was handed out
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
        try:
            self._sort_listed()  # a first feed that was not handed out (tree --changes)
        finally:
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
                tracked_urls=one(
                    "SELECT count(*) FROM (SELECT DISTINCT key FROM listed)"
                ).fetchone()[0],
                pending=one(
                    "SELECT CASE WHEN (SELECT fresh FROM feed) THEN (SELECT count(*) FROM "
                    "(SELECT key FROM listed UNION SELECT key FROM unsorted)) "
                    "ELSE (SELECT count(*) FROM pending WHERE held IS NULL) END"
                ).fetchone()[0],
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

    def _run(self, db: sqlite3.Connection, sid: int) -> Run:
        row = db.execute("SELECT data FROM runs WHERE sitemap = ?", (sid,)).fetchone()
        return EMPTY if row is None else self._decoded(row[0])

    def _base(self, db: sqlite3.Connection, sid: int) -> Run:
        """The run a feed starts from for a document not indexed yet: the first one kept."""
        row = db.execute("SELECT base FROM runs WHERE sitemap = ?", (sid,)).fetchone()
        return self._run(db, sid) if row is None or row[0] is None else self._decoded(row[0])

    def _decoded(self, blob: bytes) -> Run:
        """A stored run; one that cannot be read is a damaged file, said as SQLite's damage is."""
        try:
            return Run.decode(blob)
        except (zlib.error, ValueError, TypeError) as exc:  # UnicodeDecodeError is a ValueError
            raise StateError(
                f"the state file {self.path} cannot be used: a sitemap's entries are damaged "
                f"({exc}); move it away or name another file",
                path=self.path,
            ) from exc

    def _record_run(
        self,
        db: sqlite3.Connection,
        sid: int,
        staged: tuple[list[str], list[int | None]] | None,
        *,
        complete: bool,
        tracked: bool,
        indexed: bool,
    ) -> None:
        """The document's run becomes what was ``staged`` (a ``complete`` read: nothing
        staged lists nothing), or gains it (a partial read: nothing it did not reach is
        removed). ``tracked``: the feed's tables follow, and each URL whose listing moved is
        pending with what it was before; ``indexed``: they hold the old run already. A run
        kept without the feed is stored as read (sorted when a feed adopts it)."""
        if staged is None and not complete:
            return  # a partial read that listed nothing: nothing changes
        locs, stamps = staged or ([], [])
        base = None  # a run kept without the feed: the first one, where a feed will start
        if not tracked:
            row = db.execute("SELECT coalesce(base, data) FROM runs WHERE sitemap = ?", (sid,))
            base = next(iter(row.fetchone() or ()), None)
        if complete and not tracked:
            run = Run(locs, stamps)
        else:
            old = self._run(db, sid)
            listing = old.listing() if not complete else {}
            listing.update(zip(locs, stamps, strict=True))  # the last listing of a URL wins
            run = Run.of(listing)
            if tracked:
                if not indexed:
                    # Kept by runs without the feed: the first of them is where it starts.
                    old = self._base(db, sid).normal()
                    self._index(db, sid, old)
                self._move(db, sid, old, run)
        data = run.encode(keys=tracked)
        db.execute(
            "INSERT OR REPLACE INTO runs (sitemap, count, data, base) VALUES (?, ?, ?, ?)",
            (sid, len(run.locs), data, None if base == data else base),
        )

    def _move(self, db: sqlite3.Connection, sid: int, old: Run, run: Run) -> None:
        """The feed's tables go from ``old`` to ``run`` for the sitemap ``sid``: what differs
        is set aside in ``temp.moved`` (one insert a URL), then moved in bulk."""
        if old.locs:
            if self._fresh(db):  # what a first feed appended is needed in listed now
                _into_listed(db)
            was = old.listing()
            missing = _MISSING
            changed = [
                (key, lastmod)
                for key, loc, lastmod in zip(run.keys, run.locs, run.lastmods, strict=True)
                if was.pop(loc, missing) != lastmod
            ]
            # What is left of ``was`` is no longer listed here (``pop`` took the rest).
            dropped = [(key,) for key, loc in zip(old.keys, old.locs, strict=True) if loc in was]
        else:
            if self._fresh(db):  # a first feed: appended, put in key order at its end
                db.executemany(
                    "INSERT INTO unsorted (key, sitemap, lastmod) VALUES (?, ?, ?)",
                    zip(run.keys, repeat(sid), run.lastmods),
                )
                return
            changed, dropped = list(zip(run.keys, run.lastmods, strict=True)), []
        if not changed and not dropped:
            return
        db.executemany("INSERT INTO temp.moved (key, lastmod, gone) VALUES (?, ?, 0)", changed)
        db.executemany("INSERT INTO temp.moved (key, gone) VALUES (?, 1)", dropped)
        if not self._fresh(db):  # fresh: nothing was listed before, all is new (_first_feed)
            self._remember(db, old, run)
        db.execute(
            "DELETE FROM listed WHERE sitemap = ? AND key IN "
            "(SELECT key FROM temp.moved WHERE gone)",
            (sid,),
        )
        db.execute(
            "INSERT OR REPLACE INTO listed (key, sitemap, lastmod) "
            "SELECT key, ?, lastmod FROM temp.moved WHERE NOT gone ORDER BY key",
            (sid,),
        )
        db.execute("DELETE FROM temp.moved")

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
                "SELECT id, tracked FROM sitemaps WHERE url = ? AND status IS NOT NULL", (url,)
            ).fetchone()
            if row is None:
                continue
            sid, tracked = row
            if tracked:
                self._move(db, sid, self._run(db, sid), EMPTY)
                db.execute("DELETE FROM runs WHERE sitemap = ?", (sid,))
            else:
                # Kept without the feed: it lists nothing now, and where a feed will start
                # stays, so the first feed reports its URLs removed (adopt).
                db.execute(
                    "UPDATE runs SET count = 0, data = ?, base = coalesce(base, data) "
                    "WHERE sitemap = ?",
                    (EMPTY.encode(keys=False), sid),
                )
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
    def _remember(db: sqlite3.Connection, old: Run, run: Run) -> None:
        """Record what the URLs in ``temp.moved`` were before, unless they are pending
        already (then what they were when the feed was last delivered stands). The URL's
        text is kept when it was listed: a removal names it after its run is gone."""
        db.execute(
            "INSERT OR IGNORE INTO pending (key, listed, lastmod, sitemap) "
            "SELECT m.key, count(l.key) > 0, max(l.lastmod), min(l.sitemap) "
            "FROM temp.moved AS m LEFT JOIN listed AS l ON l.key = m.key GROUP BY m.key"
        )
        unnamed = db.execute(
            "SELECT p.key FROM temp.moved AS m JOIN pending AS p ON p.key = m.key "
            "WHERE p.listed AND p.loc IS NULL"
        ).fetchall()
        if unnamed:
            names = dict(zip(run.keys, run.locs, strict=True))
            names.update(zip(old.keys, old.locs, strict=True))
            db.executemany(
                "UPDATE pending SET loc = ? WHERE key = ?",
                [(names[key], key) for (key,) in unnamed if key in names],
            )


_WRITABLE = (
    "final_url, status, format, lastmod, etag, last_modified, fetched_at, checked_at, "
    "entries, bytes, digest, tracked"
)
_COLUMNS = f"id, url, {_WRITABLE}"

# Pending URLs whose state differs now: listed before or not, listed now or not, and the
# latest lastmod of their listings before and now. The sitemap named is one that lists the
# URL now, or listed it before when it is gone; by sitemap, so each run is read once.
_CHANGES = """
SELECT n.key, n.was, n.listings, n.before, n.after, n.loc,
       CASE WHEN n.listings > 0 THEN n.new ELSE n.old END AS sid
FROM (
    SELECT p.key AS key, p.listed AS was, p.lastmod AS before, p.sitemap AS old, p.loc AS loc,
           count(l.key) AS listings, max(l.lastmod) AS after, min(l.sitemap) AS new
    FROM pending AS p LEFT JOIN listed AS l ON l.key = p.key
    WHERE p.held IS NULL
    GROUP BY p.key
) AS n
WHERE (n.was != 0) != (n.listings > 0)
   OR (n.was != 0 AND n.listings > 0 AND n.before IS NOT n.after)
ORDER BY sid, n.key
"""


def _into_listed(db: sqlite3.Connection) -> None:
    """What a first feed appended to ``unsorted`` goes into ``listed``, in key order."""
    db.execute(
        "INSERT OR REPLACE INTO listed (key, sitemap, lastmod) "
        "SELECT key, sitemap, lastmod FROM unsorted ORDER BY key, sitemap"
    )
    db.execute("DELETE FROM unsorted")


_MISSING = object()  # not listed (None is a URL listed without a lastmod)


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


def _from_micros(value: int | None) -> datetime | None:
    return None if value is None else _EPOCH + value * _MICROSECOND


class MemoryStateStore(SqliteStateStore):
    """The SQLite store on ``":memory:"``: for tests and for one process that keeps its
    reader's state between runs. Its memory grows with the URLs it tracks (SQLite's pages,
    not Python objects); use a file for big sites. ``close`` frees it, and what it held."""

    def __init__(self) -> None:
        super().__init__(":memory:")
