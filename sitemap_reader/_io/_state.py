"""Incremental state: what each document held when it was last read completely (STYLE C13).

Owns the :class:`StateStore` protocol and its two stores: :class:`SqliteStateStore` (stdlib
sqlite3, one file, WAL) and :class:`MemoryStateStore` (plain dicts, for tests and one-process
use). It imports the leaf modules only; the walk decides what to ask and when to write.

Consistency: ``put`` writes one document's row, its children and (for the change feed) its
entries in one transaction, and the walk calls it only after the document was read to its
end. A run killed at any moment leaves each row as it was before or after one complete read;
the next run redoes the rest.

The change feed keeps no per-URL state in Python: ``stage`` sets a document's entries aside
(a temporary table) while it streams; ``put`` of a tracked state swaps them in and records,
for every URL whose listing moved, what it was before (``pending``, kept until delivered).
``changes`` compares before and after for the pending URLs only, so an unchanged site costs
nothing, and ``delivered`` forgets them once a run handed them all out. Changes survive a
killed run: they are reported by the next run that completes (at least once).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Protocol

from .._errors import StateError
from .._models import ChangeKind, Entry, EntryChange, Format, SitemapRef, SitemapState, Status

if TYPE_CHECKING:
    from typing_extensions import Self

STATE_FILE_NAME = "state.sqlite"
# "srdr" in the SQLite header (offset 68): marks a file this package made, so another
# application's database is refused instead of being written into.
APPLICATION_ID = 0x73726472
SQLITE_MAGIC = (
    b"SQLite format 3\x00"  # -- https://www.sqlite.org/fileformat.html#magic_header_string
)

# Each step takes the schema from version N to N + 1 (PRAGMA user_version). A new file runs
# them all; an older file runs the ones it lacks. Never edit a step that has shipped: add one.
MIGRATIONS: tuple[str, ...] = (
    # 1: what skipping needs: one row per document, and the children of indexes and robots.txt.
    f"""
    PRAGMA application_id = {APPLICATION_ID};
    CREATE TABLE sitemaps (
        id            INTEGER PRIMARY KEY,
        url           TEXT NOT NULL UNIQUE,  -- as named, normalised: the key
        final_url     TEXT,
        status        TEXT,                  -- 'ok' or 'partial'; NULL: forgotten
        format        TEXT,
        lastmod       TEXT,                  -- what the naming index said, ISO 8601
        etag          TEXT,
        last_modified TEXT,
        fetched_at    TEXT,                  -- ISO 8601, UTC
        checked_at    TEXT,
        entries       INTEGER NOT NULL DEFAULT 0,
        bytes         INTEGER NOT NULL DEFAULT 0,
        digest        TEXT
    );
    CREATE TABLE children (
        parent   INTEGER NOT NULL REFERENCES sitemaps (id),
        position INTEGER NOT NULL,
        loc      TEXT NOT NULL,              -- a sitemaps.url
        lastmod  TEXT,
        PRIMARY KEY (parent, position)
    ) WITHOUT ROWID;
    CREATE INDEX children_loc ON children (loc);
    """,
    # 2: the change feed: each tracked document's entries, and the URLs whose listing moved
    # since the feed was last delivered, with what they were before.
    """
    ALTER TABLE sitemaps ADD COLUMN tracked INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE listed (
        sitemap INTEGER NOT NULL,            -- sitemaps.id
        loc     TEXT NOT NULL,
        lastmod INTEGER,                     -- microseconds since 1970-01-01 UTC
        PRIMARY KEY (sitemap, loc)
    ) WITHOUT ROWID;
    CREATE INDEX listed_loc ON listed (loc);
    CREATE TABLE pending (
        loc     TEXT PRIMARY KEY,
        listed  INTEGER NOT NULL,            -- 1: some sitemap listed it before
        lastmod INTEGER,                     -- its lastmod before (the latest of its listings)
        sitemap INTEGER                      -- a sitemap that listed it before
    ) WITHOUT ROWID;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
CACHE_KIB = 8_192  # SQLite page cache per database (main, temp), in KiB: time is the same with more

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)


class StateStore(Protocol):
    """Where a run keeps what it read, keyed by the document's URL as named (normalised).

    One run at a time uses a store. ``put`` is called once a document was read completely;
    ``touch`` when it was confirmed unchanged (HTTP 304, or the same bytes again).
    """

    def get(self, url: str) -> SitemapState | None:
        """The state recorded for ``url``, or None."""

    def put(self, state: SitemapState) -> None:
        """Record ``state`` after a complete read, in one transaction.

        Sitemaps its previous children named that it no longer names (and that nothing else
        names) are forgotten, their entries counting as removed. With ``state.tracked``, the
        entries staged for ``state.url`` since (none if none were) replace its recorded ones.
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

    def stage(self, url: str, entries: Sequence[Entry]) -> None:
        """Set aside entries of ``url``, being re-read for the change feed."""

    def discard(self, url: str) -> None:
        """Drop what was staged for ``url`` (its read did not complete)."""

    def changes(self) -> Iterator[EntryChange]:
        """What changed since the feed was last delivered: new, modified, removed URLs."""

    def delivered(self) -> None:
        """The changes were handed out: start the next feed from here."""

    def states(self) -> Iterator[SitemapState]:
        """Every recorded document, by URL."""

    def close(self) -> None:
        """Release the store (a SQLite file is checkpointed and closed)."""


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


# -- SQLite ---------------------------------------------------------------------------------


class SqliteStateStore:
    """A state store in one SQLite file (WAL mode), or ``":memory:"``.

    Opening checks the file before writing anything: a file that is not SQLite, another
    application's database, a damaged one or one from a newer sitemap-reader raises
    :class:`StateError` and is left as it was. An older schema is migrated in place.
    The connection may be used from any one thread at a time (the sync wrappers run the
    walk on a thread of their own).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        if self.path != ":memory:":
            _check_header(self.path)
        try:
            self._db = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=10.0
            )
        except sqlite3.Error as exc:
            raise StateError(
                f"cannot open the state file {self.path}: {exc}", path=self.path
            ) from exc
        self._staging: dict[str, int] = {}  # URL -> its id in temp.staged, while it streams
        self._stages = 0
        try:
            self._open()
        except BaseException:
            self._db.close()
            raise

    def _open(self) -> None:
        db = self._db
        with self._guard(opening=True):
            app = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app != APPLICATION_ID and (app != 0 or tables):
            raise StateError(
                f"{self.path} is another application's SQLite database, not a sitemap-reader "
                "state file; it was left as it is",
                path=self.path,
            )
        if version > SCHEMA_VERSION:
            raise StateError(
                f"{self.path} was written by a newer sitemap-reader (schema {version}; this "
                f"one knows up to {SCHEMA_VERSION}); it was left as it is",
                path=self.path,
            )
        if tables:
            self._check_pages()
        with self._guard():
            if not tables:
                # Pages freed when the change feed is delivered go back to the file system
                # (delivered()); only settable before the first table exists.
                db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            # A new file is made in rollback-journal mode, so a process killed while making it
            # leaves an empty database (taken as new), then switched to WAL for good.
            for number in range(version, SCHEMA_VERSION):
                self._migrate(number)
            db.execute("PRAGMA journal_mode = WAL")
            # WAL with NORMAL: a killed process loses nothing committed; a power cut may lose
            # the last transactions, never consistency (https://www.sqlite.org/wal.html).
            db.execute("PRAGMA synchronous = NORMAL")
            # A fixed page cache for each of the file and the temporary tables: memory does not
            # grow with the number of URLs tracked.
            db.execute(f"PRAGMA main.cache_size = -{CACHE_KIB}")
            db.execute(f"PRAGMA temp.cache_size = -{CACHE_KIB}")
            # Appended to as entries stream (a keyed table costs ten times more per row);
            # duplicates are settled when the rows are swapped in.
            db.execute(
                "CREATE TEMP TABLE staged (stage INTEGER NOT NULL, loc TEXT NOT NULL, lastmod INTEGER)"
            )
            db.execute("CREATE INDEX temp.staged_stage ON staged (stage)")

    def _check_pages(self) -> None:
        """Read the pages of what skipping needs, so a damaged file is refused before anything
        is written. The change feed's tables are left out: checking them would cost seconds
        per million URLs on every open; damage there raises StateError when they are used."""
        # -- https://www.sqlite.org/pragma.html#pragma_quick_check: a table name argument
        # (SQLite 3.33+) checks that table and its indexes only.
        tables = ["sitemaps", "children"] if sqlite3.sqlite_version_info >= (3, 33) else [""]
        with self._guard(opening=True):
            for table in tables:
                result = self._db.execute(f"PRAGMA quick_check({table or 1})").fetchone()[0]
                if result != "ok":
                    break
        if result != "ok":
            raise StateError(
                f"the state file {self.path} is damaged ({result}); it was left as it is: "
                "move it away or name another file",
                path=self.path,
            )

    def _migrate(self, number: int) -> None:
        # executescript commits any open transaction first, so the script carries its own.
        script = f"BEGIN IMMEDIATE;\n{MIGRATIONS[number]}\nPRAGMA user_version = {number + 1};\n"
        try:
            self._db.executescript(script + "COMMIT;")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    @contextlib.contextmanager
    def _guard(self, *, opening: bool = False) -> Iterator[None]:
        """SQLite's errors about the file become StateError, naming it."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            untouched = "; it was left as it is: move it away or name another file"
            raise StateError(
                f"the state file {self.path} cannot be used: {exc}{untouched if opening else ''}",
                path=self.path,
            ) from exc

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._guard():
            self._db.execute("BEGIN IMMEDIATE")
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
            before = {
                loc for (loc,) in db.execute("SELECT loc FROM children WHERE parent = ?", (sid,))
            }
            db.execute("DELETE FROM children WHERE parent = ?", (sid,))
            db.executemany(
                "INSERT INTO children (parent, position, loc, lastmod) VALUES (?, ?, ?, ?)",
                ((sid, i, ref.loc, _iso(ref.lastmod)) for i, ref in enumerate(state.children)),
            )
            if state.tracked:
                self._swap_entries(db, sid, stage)
            if stage is not None:
                db.execute("DELETE FROM temp.staged WHERE stage = ?", (stage,))
            gone = before - {ref.loc for ref in state.children}
            if gone:
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
        # database only: the state file is not locked.
        with self._guard():
            self._db.execute("BEGIN")
            try:
                self._db.executemany(
                    "INSERT INTO temp.staged (stage, loc, lastmod) VALUES (?, ?, ?)", rows
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

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
                        yield EntryChange(ChangeKind.NEW, loc, _from_micros(after), sitemap or "")
                    elif not listings:
                        yield EntryChange(
                            ChangeKind.REMOVED, loc, _from_micros(before), sitemap or ""
                        )
                    else:
                        yield EntryChange(
                            ChangeKind.MODIFIED, loc, _from_micros(after), sitemap or ""
                        )

    def delivered(self) -> None:
        with self._guard():
            self._db.execute("DELETE FROM pending")
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
                pending=one("SELECT count(*) FROM pending").fetchone()[0],
            )

    # -- internals ---------------------------------------------------------------------------

    def _state(self, row: tuple[Any, ...]) -> SitemapState:
        sid, url, final_url, status, fmt, lastmod, etag, last_modified = row[:8]
        fetched_at, checked_at, entries, size, digest, tracked = row[8:]
        final_url = final_url or url
        children = tuple(
            SitemapRef(loc, _from_iso(child_lastmod), final_url)
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
                "digest = NULL, tracked = 0 WHERE id = ?",
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


def _check_header(path: str) -> None:
    """Refuse a file that is not SQLite, or is another application's, without opening it."""
    try:
        with open(path, "rb") as file:
            header = file.read(100)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StateError(
            f"cannot read the state file {path}: {exc.strerror or exc}", path=path
        ) from exc
    if not header:
        return  # an empty file is a new database
    if not header.startswith(SQLITE_MAGIC) or len(header) < 100:
        raise StateError(
            f"{path} is not a sitemap-reader state file (not an SQLite database); "
            "it was left as it is",
            path=path,
        )
    app = int.from_bytes(header[68:72], "big")
    # 0 may be ours too while a new file's first transaction is still in its WAL.
    if app not in (0, APPLICATION_ID):
        raise StateError(
            f"{path} is another application's SQLite database (application id {app:#x}), not "
            "a sitemap-reader state file; it was left as it is",
            path=path,
        )


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


# -- in memory ----------------------------------------------------------------------------------


class MemoryStateStore:
    """The same contract in dicts: for tests and for one process that keeps its reader's
    state between runs. Its memory grows with the URLs it tracks; use SQLite for big sites."""

    def __init__(self) -> None:
        self._rows: dict[str, SitemapState] = {}
        self._forgotten: dict[str, str] = {}  # URL -> its final URL, for removed entries
        self._listed: dict[str, dict[str, datetime | None]] = {}  # sitemap -> loc -> lastmod
        self._where: dict[str, set[str]] = {}  # loc -> sitemaps that list it
        self._staged: dict[str, dict[str, datetime | None]] = {}
        # loc -> (listed before, lastmod before, a sitemap that listed it)
        self._pending: dict[str, tuple[bool, datetime | None, str]] = {}

    def get(self, url: str) -> SitemapState | None:
        return self._rows.get(url)

    def put(self, state: SitemapState) -> None:
        if state.children:  # as SQLite gives them back: named by the document's final URL
            children = tuple(replace(c, source=state.final_url) for c in state.children)
            state = replace(state, children=children)
        staged = self._staged.pop(state.url, {})
        old = self._rows.get(state.url)
        self._rows[state.url] = state
        self._forgotten.pop(state.url, None)
        if state.tracked:
            self._swap(state.url, staged)
        if old is not None:
            gone = {ref.loc for ref in old.children} - {ref.loc for ref in state.children}
            self._forget(gone, keep=state.url)

    def touch(
        self,
        url: str,
        *,
        lastmod: datetime | None,
        checked_at: datetime,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> None:
        state = self._rows.get(url)
        if state is not None:
            self._rows[url] = replace(
                state,
                lastmod=lastmod,
                checked_at=checked_at,
                etag=etag or state.etag,
                last_modified=last_modified or state.last_modified,
            )

    def stage(self, url: str, entries: Sequence[Entry]) -> None:
        staged = self._staged.setdefault(url, {})
        for entry in entries:
            staged[entry.loc] = _utc(entry.lastmod)

    def discard(self, url: str) -> None:
        self._staged.pop(url, None)

    def changes(self) -> Iterator[EntryChange]:
        for loc in sorted(self._pending):
            was, before, old = self._pending[loc]
            now, after, new = self._now(loc)
            if was and not now:
                yield EntryChange(ChangeKind.REMOVED, loc, before, self._name(old))
            elif now and not was:
                yield EntryChange(ChangeKind.NEW, loc, after, self._name(new))
            elif now and before != after:
                yield EntryChange(ChangeKind.MODIFIED, loc, after, self._name(new))

    def delivered(self) -> None:
        self._pending.clear()

    def states(self) -> Iterator[SitemapState]:
        for url in sorted(self._rows):
            yield self._rows[url]

    def close(self) -> None:
        return None

    def _now(self, loc: str) -> tuple[bool, datetime | None, str]:
        sitemaps = sorted(self._where.get(loc, ()))
        if not sitemaps:
            return False, None, ""
        dates = [d for d in (self._listed[s][loc] for s in sitemaps) if d is not None]
        return True, max(dates, default=None), sitemaps[0]

    def _name(self, url: str) -> str:
        state = self._rows.get(url)
        return state.final_url if state is not None else self._forgotten.get(url, url)

    def _remember(self, locs: Iterable[str]) -> None:
        for loc in locs:
            if loc not in self._pending:
                self._pending[loc] = self._now(loc)

    def _swap(self, url: str, staged: dict[str, datetime | None]) -> None:
        old = self._listed.get(url, {})
        absent = object()
        self._remember(
            loc
            for loc in old.keys() | staged.keys()
            if old.get(loc, absent) != staged.get(loc, absent)
        )
        for loc in old:
            self._where[loc].discard(url)
        for loc in staged:
            self._where.setdefault(loc, set()).add(url)
        self._listed[url] = staged

    def _forget(self, gone: set[str], *, keep: str) -> None:
        todo = list(gone)
        seen = {keep}
        while todo:
            url = todo.pop()
            if url in seen or url not in self._rows:
                continue
            seen.add(url)
            if any(url in {r.loc for r in s.children} for s in self._rows.values()):
                continue  # another index or robots.txt still names it
            state = self._rows.pop(url)
            self._forgotten[url] = state.final_url
            self._swap(url, {})
            del self._listed[url]
            todo.extend(ref.loc for ref in state.children)


def _utc(value: datetime | None) -> datetime | None:
    """As the SQLite store gives lastmods back: in UTC, to the microsecond."""
    return _from_micros(_micros(value))


def open_store(state: StateStore | str | os.PathLike[str]) -> tuple[StateStore, bool]:
    """A store for ``state``: a path opens a :class:`SqliteStateStore` (owned: True)."""
    if isinstance(state, (str, os.PathLike)):
        return SqliteStateStore(state), True
    return state, False
