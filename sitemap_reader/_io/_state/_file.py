"""The state file on disk: what makes an SQLite file ours, its schema and its migrations.

:func:`connect` opens a state file (or ``":memory:"``) ready for :mod:`._state_sqlite`'s
queries. It checks the file before writing anything: a file that is not SQLite, another
application's database, a damaged one or one from a newer sitemap-reader raises
:class:`StateError` and is left as it was. An older schema is migrated in place.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from itertools import repeat

from ..._base._errors import StateError
from ..._core._keys import key
from ._runs import Run

# "srdr" in the SQLite header (offset 68): marks a file this package made, so another
# application's database is refused instead of being written into.
APPLICATION_ID = 0x73726472
SQLITE_MAGIC = (
    b"SQLite format 3\x00"  # -- https://www.sqlite.org/fileformat.html#magic_header_string
)


_KEYED_FEED = (
    """
    DROP INDEX listed_loc
    """,
    """
    ALTER TABLE listed RENAME TO listed_4
    """,
    """
    ALTER TABLE pending RENAME TO pending_4
    """,
    """
    CREATE TABLE runs (
        sitemap INTEGER PRIMARY KEY,     -- sitemaps.id
        count   INTEGER NOT NULL,        -- its URLs
        data    BLOB NOT NULL,           -- its entries, sorted and compressed (_runs.py)
        base    BLOB                     -- not indexed yet: its first kept run, if older
    )
    """,
    """
    CREATE TABLE listed (
        key     INTEGER NOT NULL,        -- the URL's 64-bit key (_runs.key)
        sitemap INTEGER NOT NULL,        -- sitemaps.id
        lastmod INTEGER,                 -- microseconds since 1970-01-01 UTC
        PRIMARY KEY (key, sitemap)
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE pending (
        key     INTEGER PRIMARY KEY,
        listed  INTEGER NOT NULL,        -- 1: some sitemap listed it before
        lastmod INTEGER,                 -- its lastmod before (the latest of its listings)
        sitemap INTEGER,                 -- a sitemap that listed it before
        loc     TEXT,                    -- the URL, when it was listed before
        held    TEXT
    )
    """,
    """
    CREATE TABLE feed (
        fresh INTEGER NOT NULL           -- 1: nothing was listed when the feed began
    )
    """,
    """
    CREATE TABLE unsorted (              -- listed by a first feed, not yet in listed:
        key     INTEGER NOT NULL,        -- appended as read, moved in key order at once
        sitemap INTEGER NOT NULL,
        lastmod INTEGER
    )
    """,
    """
    INSERT INTO feed (fresh) SELECT NOT EXISTS (SELECT 1 FROM listed_4)
        AND NOT EXISTS (SELECT 1 FROM pending_4)
    """,
)


def _keyed_feed(db: sqlite3.Connection) -> None:
    """5: the change feed keyed by 64-bit hashes of the URLs (:mod:`._runs`), each document's
    entries in one row (its run): from schema 4's tables, keyed by the URL's text."""
    # One statement at a time: executescript would commit the migration's transaction.
    for statement in _KEYED_FEED:
        db.execute(statement)
    sids = [sid for (sid,) in db.execute("SELECT DISTINCT sitemap FROM listed_4")]
    for sid in sids:  # one document's entries in memory at a time
        run = Run.of(
            dict(db.execute("SELECT loc, lastmod FROM listed_4 WHERE sitemap = ?", (sid,)))
        )
        db.execute(
            "INSERT INTO runs (sitemap, count, data) VALUES (?, ?, ?)",
            (sid, len(run.locs), run.encode(keys=True)),
        )
        db.executemany(
            "INSERT OR REPLACE INTO listed (key, sitemap, lastmod) VALUES (?, ?, ?)",
            sorted(zip(run.keys, repeat(sid), run.lastmods)),
        )
    cursor = db.execute("SELECT loc, listed, lastmod, sitemap, held FROM pending_4")
    while batch := cursor.fetchmany(1000):
        db.executemany(
            "INSERT OR IGNORE INTO pending (key, listed, lastmod, sitemap, loc, held) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(key(loc), *rest, loc, held) for loc, *rest, held in batch],
        )
    db.execute("DROP TABLE listed_4")
    db.execute("DROP TABLE pending_4")


# Each step takes the schema from version N to N + 1 (PRAGMA user_version). A new file runs
# them all; an older file runs the ones it lacks. Never edit a step that has shipped: add one.
MIGRATIONS: tuple[str | Callable[[sqlite3.Connection], None], ...] = (
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
    # 3: the shrink guard's holds and the verdicts on lastmods. A pending change held back by
    # a source's guard names that source until a later run confirms or undoes the shrink.
    """
    CREATE TABLE holds (
        scope  TEXT NOT NULL,                -- 'sitemap' or 'source'
        url    TEXT NOT NULL,                -- a sitemaps.url, or a source as the user named it
        before INTEGER NOT NULL,             -- URLs at the last complete read
        now    INTEGER NOT NULL,             -- URLs the shrunk read listed
        since  TEXT NOT NULL,                -- ISO 8601, UTC
        PRIMARY KEY (scope, url)
    ) WITHOUT ROWID;
    CREATE TABLE trust (
        scope   TEXT NOT NULL,               -- 'sitemap' or 'source'
        url     TEXT NOT NULL,
        verdict TEXT NOT NULL,               -- 'trusted', 'untrusted' or 'unknown'
        reasons TEXT NOT NULL,               -- JSON list of strings
        counts  TEXT NOT NULL,               -- JSON object: signal -> count
        at      TEXT NOT NULL,
        PRIMARY KEY (scope, url)
    ) WITHOUT ROWID;
    ALTER TABLE pending ADD COLUMN held TEXT;
    """,
    # 4: the recheck sample's byte budget: whether each document's server answered its last
    # conditional request with 304, and each source's credit carried from run to run.
    """
    ALTER TABLE sitemaps ADD COLUMN answers INTEGER;  -- 1: 304; 0: its whole body again; NULL
    CREATE TABLE recheck (
        source TEXT PRIMARY KEY,             -- a source's first document (a sitemaps.url)
        credit INTEGER NOT NULL,             -- bytes the next run may spend
        idle   INTEGER NOT NULL,             -- runs in a row that asked no costly child
        at     TEXT NOT NULL
    ) WITHOUT ROWID;
    """,
    _keyed_feed,
)
SCHEMA_VERSION = len(MIGRATIONS)
CACHE_KIB = 8_192  # SQLite page cache per database (main, temp), in KiB: time is the same with more


def connect(path: str) -> sqlite3.Connection:
    """The state file at ``path`` (or ``":memory:"``), checked, migrated and configured.

    The connection may be used from any one thread at a time (the sync wrappers run the
    walk on a thread of their own).
    """
    if path != ":memory:":
        _check_header(path)
    try:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
    except sqlite3.Error as exc:
        raise StateError(f"cannot open the state file {path}: {exc}", path=path) from exc
    try:
        _open(db, path)
    except BaseException:
        db.close()
        raise
    return db


@contextlib.contextmanager
def guard(path: str, *, opening: bool = False) -> Iterator[None]:
    """SQLite's errors about the file become StateError, naming it."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        untouched = "; it was left as it is: move it away or name another file"
        raise StateError(
            f"the state file {path} cannot be used: {exc}{untouched if opening else ''}",
            path=path,
        ) from exc


def _open(db: sqlite3.Connection, path: str) -> None:
    with guard(path, opening=True):
        app = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    if app != APPLICATION_ID and (app != 0 or tables):
        raise StateError(
            f"{path} is another application's SQLite database, not a sitemap-reader "
            "state file; it was left as it is",
            path=path,
        )
    if version > SCHEMA_VERSION:
        raise StateError(
            f"{path} was written by a newer sitemap-reader (schema {version}; this "
            f"one knows up to {SCHEMA_VERSION}); it was left as it is",
            path=path,
        )
    if tables:
        _check_pages(db, path)
    with guard(path):
        if not tables:
            # Pages freed when the change feed is delivered go back to the file system
            # (delivered()); only settable before the first table exists.
            db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        # A new file is made in rollback-journal mode, so a process killed while making it
        # leaves an empty database (taken as new), then switched to WAL for good.
        for number in range(version, SCHEMA_VERSION):
            _migrate(db, number)
        db.execute("PRAGMA journal_mode = WAL")
        # WAL with NORMAL: a killed process loses nothing committed; a power cut may lose
        # the last transactions, never consistency (https://www.sqlite.org/wal.html).
        db.execute("PRAGMA synchronous = NORMAL")
        # A fixed page cache for each of the file and the temporary tables: memory does not
        # grow with the number of URLs tracked.
        db.execute(f"PRAGMA main.cache_size = -{CACHE_KIB}")
        db.execute(f"PRAGMA temp.cache_size = -{CACHE_KIB}")
        # What one document's read moved, set aside to be applied in bulk (_sqlite._move).
        db.execute(
            "CREATE TEMP TABLE moved (key INTEGER NOT NULL, lastmod INTEGER, gone INTEGER NOT NULL)"
        )
        # URLs listed by several sitemaps, for a first feed (_sqlite._first_feed).
        db.execute(
            "CREATE TEMP TABLE multi (key INTEGER PRIMARY KEY, sitemap INTEGER, lastmod INTEGER)"
        )


def _check_pages(db: sqlite3.Connection, path: str) -> None:
    """Read the pages of what skipping needs, so a damaged file is refused before anything
    is written. The change feed's tables are left out: checking them would cost seconds
    per million URLs on every open; damage there raises StateError when they are used."""
    # -- https://www.sqlite.org/pragma.html#pragma_quick_check: a table name argument
    # (SQLite 3.33+) checks that table and its indexes only.
    tables = ["sitemaps", "children"] if sqlite3.sqlite_version_info >= (3, 33) else [""]
    with guard(path, opening=True):
        for table in tables:
            result = db.execute(f"PRAGMA quick_check({table or 1})").fetchone()[0]
            if result != "ok":
                break
    if result != "ok":
        raise StateError(
            f"the state file {path} is damaged ({result}); it was left as it is: "
            "move it away or name another file",
            path=path,
        )


def _migrate(db: sqlite3.Connection, number: int) -> None:
    step = MIGRATIONS[number]
    try:
        if callable(step):  # a step in Python, in one transaction of its own
            db.execute("BEGIN IMMEDIATE")
            step(db)  # its scripts carry no BEGIN or COMMIT of their own
            db.execute(f"PRAGMA user_version = {number + 1}")
            db.execute("COMMIT")
            return
        # executescript commits any open transaction first, so the script carries its own.
        script = f"BEGIN IMMEDIATE;\n{step}\nPRAGMA user_version = {number + 1};\n"
        db.executescript(script + "COMMIT;")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


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
