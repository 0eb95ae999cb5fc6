"""The state stores: one contract for SQLite and memory, files that must be refused and left
untouched, migrations from the first schema, crash consistency, and the CLI's state options.

Servers run on 127.0.0.1 (tests.support.http_site); state files live in tmp_path.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from sitemap_reader import (
    ChangeKind,
    Entry,
    EntryChange,
    Format,
    MemoryStateStore,
    SitemapReader,
    SitemapRef,
    SitemapState,
    SqliteStateStore,
    StateError,
    StateStore,
    Status,
)
from sitemap_reader._cli import main
from sitemap_reader._io._state._file import APPLICATION_ID, SCHEMA_VERSION
from sitemap_reader._io._state._recheck import Credit, Server
from sitemap_reader._io._state._store import ChangeFeedStore
from tests.support.http_site import Served, ThreadedServer, sitemapindex, text, urlset, xml

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)


def state(url: str, **fields: object) -> SitemapState:
    values: dict[str, object] = {
        "url": url,
        "final_url": url,
        "status": Status.OK,
        "format": Format.URLSET,
        "fetched_at": T0,
        "checked_at": T0,
    }
    values.update(fields)
    return SitemapState(**values)  # type: ignore[arg-type]


def ref(loc: str, lastmod: datetime | None = None) -> SitemapRef:
    return SitemapRef(loc, lastmod, "https://s.example/index.xml")


def read(
    store: ChangeFeedStore, url: str, *entries: tuple[str, datetime | None], **fields: object
) -> None:
    """What the walk does for a complete read with the feed on: stage, then put tracked."""
    store.stage(url, [Entry(loc, lastmod) for loc, lastmod in entries])
    store.put(state(url, tracked=True, entries=len(entries), **fields))


def feed(store: ChangeFeedStore) -> list[tuple[str, str]]:
    out = [(c.change.value, c.loc) for c in store.changes()]
    store.delivered()
    return sorted(out)


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ChangeFeedStore]:
    """Each contract test runs on both stores."""
    made: ChangeFeedStore = (
        SqliteStateStore(tmp_path / "state.sqlite")
        if request.param == "sqlite"
        else MemoryStateStore()
    )
    yield made
    made.close()


# -- the contract ------------------------------------------------------------------------------


def test_put_then_get_gives_the_state_back(store: StateStore) -> None:
    """Every field of a recorded state comes back as it was put, children in order."""
    recorded = state(
        "https://s.example/index.xml",
        final_url="https://s.example/real-index.xml",
        status=Status.PARTIAL,
        format=Format.SITEMAPINDEX,
        lastmod=datetime(2024, 5, 1, 10, 0, tzinfo=timezone(timedelta(hours=2))),
        etag='W/"abc"',
        last_modified="Wed, 01 May 2024 10:00:00 GMT",
        checked_at=T0 + DAY,
        entries=0,
        bytes=1234,
        digest="00ff",
        children=(ref("https://s.example/b.xml", T0), ref("https://s.example/a.xml")),
    )
    store.put(recorded)

    assert store.get("https://s.example/index.xml") == dataclass_with_source(recorded)
    assert store.get("https://s.example/other.xml") is None
    assert [s.url for s in store.states()] == ["https://s.example/index.xml"]


def dataclass_with_source(recorded: SitemapState) -> SitemapState:
    """Children come back named by the index's final URL (their source when replayed)."""
    from dataclasses import replace

    return replace(
        recorded,
        children=tuple(replace(c, source=recorded.final_url) for c in recorded.children),
    )


def test_touch_moves_lastmod_and_check_time_and_keeps_validators(store: StateStore) -> None:
    """``touch`` records a confirmation: new lastmod and check time; validators kept unless
    new ones came."""
    url = "https://s.example/a.xml"
    store.put(state(url, etag='"1"', last_modified="x", lastmod=T0))

    store.touch(url, lastmod=T0 + DAY, checked_at=T0 + 2 * DAY)
    got = store.get(url)
    assert got is not None
    assert (got.lastmod, got.checked_at, got.fetched_at) == (T0 + DAY, T0 + 2 * DAY, T0)
    assert (got.etag, got.last_modified) == ('"1"', "x")
    store.touch(url, lastmod=None, checked_at=T0, etag='"2"')
    assert store.get(url).etag == '"2"'  # type: ignore[union-attr]


def test_children_that_leave_their_index_are_forgotten_with_their_descendants(
    store: StateStore,
) -> None:
    """A child no longer named by its re-read index is forgotten, and so are the sitemaps
    only it named; a child still named by another index stays."""
    root, sub, leaf, kept = (f"https://s.example/{n}.xml" for n in ("root", "sub", "leaf", "kept"))
    other = "https://s.example/other.xml"
    store.put(state(root, format=Format.SITEMAPINDEX, children=(ref(sub), ref(kept))))
    store.put(state(other, format=Format.SITEMAPINDEX, children=(ref(kept),)))
    store.put(state(sub, format=Format.SITEMAPINDEX, children=(ref(leaf),)))
    store.put(state(leaf))
    store.put(state(kept))

    store.put(state(root, format=Format.SITEMAPINDEX, children=()))

    assert [s.url for s in store.states()] == [kept, other, root]


def test_change_feed_contract(store: ChangeFeedStore) -> None:
    """new, modified and removed come from what was staged and put; a URL listed by two
    sitemaps is removed only when neither lists it; delivered starts a new feed; a read
    that did not complete (discard) changes nothing."""
    a, b = "https://s.example/a.xml", "https://s.example/b.xml"
    read(store, a, ("https://s.example/1", T0), ("https://s.example/2", None))
    read(store, b, ("https://s.example/2", T0))
    assert feed(store) == [("new", "https://s.example/1"), ("new", "https://s.example/2")]

    read(store, a, ("https://s.example/1", T0 + DAY), ("https://s.example/3", None))
    assert feed(store) == [("modified", "https://s.example/1"), ("new", "https://s.example/3")]

    store.stage(b, [Entry("https://s.example/4")])
    store.discard(b)  # b's read failed: nothing changes
    read(store, b)  # b now lists nothing: 2 is listed by no one
    assert feed(store) == [("removed", "https://s.example/2")]
    assert feed(store) == []


def test_change_records_carry_lastmod_and_sitemap(store: ChangeFeedStore) -> None:
    """A change names the sitemap listing the URL (the last one for a removal) and the
    lastmod in UTC (the last known one for a removal)."""
    a = "https://s.example/a.xml"
    paris = datetime(2024, 5, 1, 12, 0, 0, 500, tzinfo=timezone(timedelta(hours=2)))
    read(store, a, ("https://s.example/1", paris), final_url="https://s.example/final-a.xml")
    new = list(store.changes())
    store.delivered()
    read(store, a)
    removed = list(store.changes())

    expected = EntryChange(
        ChangeKind.NEW, "https://s.example/1", paris, "https://s.example/final-a.xml"
    )
    assert new == [expected]
    assert new[0].lastmod.tzinfo == timezone.utc  # type: ignore[union-attr]
    assert removed == [
        EntryChange(ChangeKind.REMOVED, "https://s.example/1", paris, "https://s.example/a.xml")
    ]


@pytest.mark.parametrize("first", [True, False], ids=["first-feed", "later-feed"])
def test_a_url_listed_twice_is_one_change_with_its_latest_lastmod(
    store: ChangeFeedStore, first: bool
) -> None:
    """A URL two sitemaps list is one change, named by the first sitemap recorded, with the
    latest of its lastmods; the same on a store's first feed (read from the runs) as on a
    later one (from what was pending)."""
    a, b, c = (f"https://s.example/{name}.xml" for name in "abc")
    if not first:
        read(store, c, ("https://s.example/0", None))
        assert feed(store) == [("new", "https://s.example/0")]
    read(store, a, ("https://s.example/1", T0), ("https://s.example/2", None))
    read(store, b, ("https://s.example/1", T0 + DAY), ("https://s.example/3", T0))

    got = sorted(store.changes(), key=lambda change: change.loc)

    assert [(g.change.value, g.loc, g.lastmod, g.sitemap) for g in got] == [
        ("new", "https://s.example/1", T0 + DAY, a),
        ("new", "https://s.example/2", None, a),
        ("new", "https://s.example/3", T0, b),
    ]


def test_undelivered_changes_keep_their_first_before_state(store: ChangeFeedStore) -> None:
    """Changes not yet delivered (a run killed before the end) are measured from the last
    delivery: a URL added and then removed again before delivery is no change at all."""
    a = "https://s.example/a.xml"
    read(store, a, ("https://s.example/1", None))
    assert feed(store) == [("new", "https://s.example/1")]
    read(store, a, ("https://s.example/1", None), ("https://s.example/2", None))
    read(store, a, ("https://s.example/1", T0))

    assert feed(store) == [("modified", "https://s.example/1")]


def _vm_steps(store: ChangeFeedStore, work: Callable[[], object]) -> int:
    """The SQLite virtual machine's steps ``work`` costs the store (counted by thousands):
    work measured without a clock, so a busy machine changes nothing."""
    assert isinstance(store, SqliteStateStore)
    calls = 0

    def count() -> int:
        nonlocal calls
        calls += 1
        return 0  # go on

    db = store._db
    db.set_progress_handler(count, 1_000)
    try:
        work()
    finally:
        db.set_progress_handler(None, 0)
    return calls * 1_000


def test_forgetting_many_children_stays_fast(store: ChangeFeedStore) -> None:
    """An index that stops naming 20,000 children forgets them all, each entry removed, in
    one pass: its work grows with the children, where a scan of every document per
    forgotten child (the dict store's old way) took over 20 s."""
    index = "https://s.example/index.xml"
    children = [f"https://s.example/c{i}.xml" for i in range(20_000)]
    store.put(state(index, format=Format.SITEMAPINDEX, children=tuple(map(ref, children))))
    for i, child in enumerate(children):
        read(store, child, (f"https://s.example/p{i}", None))
    assert len(feed(store)) == len(children)

    steps = _vm_steps(
        store, lambda: store.put(state(index, format=Format.SITEMAPINDEX, children=()))
    )

    assert [s.url for s in store.states()] == [index]
    removed = feed(store)
    assert len(removed) == len(children)
    assert {kind for kind, _ in removed} == {"removed"}
    # One pass: about 200 steps a child. A scan of every entry per forgotten child (the
    # index on listed.loc dropped) takes 800 million, 40,000 a child.
    assert steps < 1_000 * len(children), f"{steps:,} SQLite steps for {len(children):,} children"


def test_both_stores_have_the_change_feed(tmp_path: Path) -> None:
    """The memory store is the SQLite store on ":memory:": both keep the whole contract."""
    with SqliteStateStore(tmp_path / "state.sqlite") as on_disk, MemoryStateStore() as memory:
        assert isinstance(on_disk, ChangeFeedStore)
        assert isinstance(memory, ChangeFeedStore)
        assert memory.path == ":memory:"


# -- SQLite specifics ---------------------------------------------------------------------------


def test_sqlite_file_is_wal_with_versioned_schema(tmp_path: Path) -> None:
    """A new file is SQLite in WAL mode with incremental vacuum, marked with our application id
    and the schema version."""
    path = tmp_path / "state.sqlite"
    SqliteStateStore(path).close()

    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5


# The first schema exactly as it shipped: frozen here, so editing the migration breaks this.
SCHEMA_1 = f"""
PRAGMA application_id = {APPLICATION_ID};
CREATE TABLE sitemaps (
    id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, final_url TEXT, status TEXT, format TEXT,
    lastmod TEXT, etag TEXT, last_modified TEXT, fetched_at TEXT, checked_at TEXT,
    entries INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0, digest TEXT
);
CREATE TABLE children (
    parent INTEGER NOT NULL REFERENCES sitemaps (id), position INTEGER NOT NULL,
    loc TEXT NOT NULL, lastmod TEXT, PRIMARY KEY (parent, position)
) WITHOUT ROWID;
CREATE INDEX children_loc ON children (loc);
INSERT INTO sitemaps VALUES (1, 'https://s.example/index.xml', 'https://s.example/index.xml',
    'ok', 'sitemapindex', NULL, '"e"', NULL, '2026-01-01T12:00:00+00:00',
    '2026-01-01T12:00:00+00:00', 0, 300, 'ab');
INSERT INTO children VALUES (1, 0, 'https://s.example/a.xml', '2024-01-01T00:00:00+00:00');
PRAGMA user_version = 1;
"""


def test_a_store_of_the_first_schema_opens_and_is_migrated(tmp_path: Path) -> None:
    """A file written with schema 1 opens under the current code: its rows are read, the
    schema is brought to the current version, and the change feed works on it."""
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA_1)

    with SqliteStateStore(path) as store:
        got = store.get("https://s.example/index.xml")
        assert got is not None
        assert (got.etag, got.bytes, got.tracked) == ('"e"', 300, False)
        assert got.children == (
            SitemapRef(
                "https://s.example/a.xml",
                datetime(2024, 1, 1, tzinfo=timezone.utc),
                "https://s.example/index.xml",
            ),
        )
        # Schema 4: the recheck budget's sizes come from the rows as they were; no credit yet.
        assert store.recheck_source("https://s.example/index.xml") == (300, Server())
        assert store.credit("https://s.example/index.xml") == Credit()
        read(store, "https://s.example/a.xml", ("https://s.example/1", None))
        assert feed(store) == [("new", "https://s.example/1")]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_store_of_schema_4_keeps_its_feed_when_migrated(tmp_path: Path) -> None:
    """A file of schema 4 (the feed keyed by the URLs' text) is migrated to the keyed runs:
    the entries it listed and the changes it had not handed out yet are kept, so the next
    feed reports the undelivered removal and, after a read, exactly what moved."""
    from sitemap_reader._io._state._file import MIGRATIONS

    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path, isolation_level=None) as db:
        for step in MIGRATIONS[:4]:  # the steps as they shipped, never edited
            assert isinstance(step, str)
            db.executescript(step)
        db.executescript(
            """
            INSERT INTO sitemaps (id, url, status, format, fetched_at, checked_at, tracked)
                VALUES (1, 'https://s.example/a.xml', 'ok', 'urlset',
                        '2026-01-01T12:00:00+00:00', '2026-01-01T12:00:00+00:00', 1);
            INSERT INTO listed VALUES (1, 'https://s.example/1', 1000), (1, 'https://s.example/2', NULL);
            INSERT INTO pending (loc, listed, lastmod, sitemap) VALUES ('https://s.example/3', 1, 7, 1);
            PRAGMA user_version = 4;
            """
        )

    with SqliteStateStore(path) as store:
        assert store.summary().tracked_urls == 2
        assert feed(store) == [("removed", "https://s.example/3")]
        read(
            store,
            "https://s.example/a.xml",
            ("https://s.example/1", T0),
            ("https://s.example/2", None),
        )
        assert feed(store) == [("modified", "https://s.example/1")]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        assert {"runs", "listed", "pending"} <= tables
        assert not {"listed_4", "pending_4", "listed_loc"} & tables


def _foreign_sqlite(path: Path, application_id: int = 0) -> None:
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA application_id = {application_id}")
        db.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
        db.execute("INSERT INTO moz_places (url) VALUES ('https://example.com/')")
    sqlite3.connect(path).close()


def _real_store(path: Path) -> None:
    with SqliteStateStore(path) as store:
        for i in range(400):  # enough pages that damage lands in data, not just the header
            store.put(state(f"https://s.example/{i}.xml", digest="x" * 64))


def _damaged_pages(path: Path) -> None:
    _real_store(path)
    data = bytearray(path.read_bytes())
    data[4096:12288] = bytes(range(256)) * 32  # page 2 and 3 become garbage
    path.write_bytes(bytes(data))


def _truncated(path: Path) -> None:
    _real_store(path)
    path.write_bytes(path.read_bytes()[:5000])


def _newer(path: Path) -> None:
    SqliteStateStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    sqlite3.connect(path).close()


BAD_FILES = {
    "text": lambda p: p.write_text("url,lastmod\nhttps://example.com/,2024-01-01\n"),
    "random-bytes": lambda p: p.write_bytes(bytes(range(256)) * 40),
    "garbled-header": lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\xff" * 50),
    "foreign-sqlite": _foreign_sqlite,
    "foreign-app-id": lambda p: _foreign_sqlite(p, 0x4D504246),
    "damaged-pages": _damaged_pages,
    "truncated": _truncated,
    "newer-schema": _newer,
}


@pytest.mark.parametrize("make", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_a_bad_file_is_refused_and_left_untouched(
    tmp_path: Path, make: Callable[[Path], object]
) -> None:
    """A file that is not a usable state file raises StateError naming it, and its bytes
    (and the files beside it) are exactly as they were."""
    path = tmp_path / "state.sqlite"
    make(path)
    before = path.read_bytes()
    beside = sorted(os.listdir(tmp_path))

    with pytest.raises(StateError) as caught:
        SqliteStateStore(path)

    assert caught.value.path == str(path)
    assert str(path) in str(caught.value) and "left as it is" in str(caught.value)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == beside


def test_damage_in_the_feed_tables_raises_state_error_when_they_are_used(tmp_path: Path) -> None:
    """The change feed's tables are not read on opening (that would cost seconds per million
    URLs): damage there raises StateError, naming the file, when the feed touches it."""
    path = tmp_path / "state.sqlite"
    with SqliteStateStore(path) as store:
        read(
            store, "https://s.example/a.xml", *((f"https://s.example/{i}", T0) for i in range(3000))
        )
        assert feed(store)
    with sqlite3.connect(path) as db:
        try:
            pages = db.execute(
                "SELECT pageno FROM dbstat WHERE name = 'listed' AND pagetype = 'leaf'"
            ).fetchall()
        except sqlite3.OperationalError:
            pytest.skip("this SQLite has no dbstat table to find the feed's pages")
        size = db.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(path.read_bytes())
    for (page,) in pages:
        data[(page - 1) * size : page * size] = b"\xff" * size
    path.write_bytes(bytes(data))

    with SqliteStateStore(path) as store, pytest.raises(StateError, match=str(path)):
        read(store, "https://s.example/a.xml", ("https://s.example/new", T0))


def test_a_damaged_run_raises_state_error_naming_the_file(tmp_path: Path) -> None:
    """A sitemap's stored entries (its run) that cannot be read stop the feed with the same
    StateError as damage SQLite finds, naming the file and what to do."""
    path = tmp_path / "state.sqlite"
    with SqliteStateStore(path) as store:
        read(store, "https://s.example/a.xml", ("https://s.example/1", T0))
        assert feed(store)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE runs SET data = x'00000000000000000000000000000000001234'")

    with SqliteStateStore(path) as store, pytest.raises(StateError, match=str(path)) as caught:
        read(store, "https://s.example/a.xml", ("https://s.example/2", T0))
    assert "move it away or name another file" in str(caught.value)


async def test_the_reader_raises_state_error_on_entry(tmp_path: Path) -> None:
    """``SitemapReader(state=path)`` with a bad file raises StateError when it is entered."""
    path = tmp_path / "state.sqlite"
    path.write_text("not a database")
    with pytest.raises(StateError, match="not a sitemap-reader state file"):
        async with SitemapReader(state=path):
            pass


def test_an_empty_file_is_a_new_store(tmp_path: Path) -> None:
    """A zero-byte file (touched by hand or by a killed first run) is made a new store."""
    path = tmp_path / "state.sqlite"
    path.write_bytes(b"")
    with SqliteStateStore(path) as store:
        store.put(state("https://s.example/a.xml"))
    with SqliteStateStore(path) as store:
        assert store.get("https://s.example/a.xml") is not None


_WRITER = """
import sys
from datetime import datetime, timezone
from sitemap_reader import Entry, SitemapState, SqliteStateStore, Status
now = datetime.now(timezone.utc)
store = SqliteStateStore(sys.argv[1])
print("ready", flush=True)
for i in range(100_000):
    url = f"https://s.example/{i}.xml"
    store.stage(url, [Entry(f"https://s.example/{i}/{j}") for j in range(200)])
    store.put(SitemapState(url=url, final_url=url, status=Status.OK, fetched_at=now,
                           checked_at=now, entries=200, tracked=True))
"""


def test_a_writer_killed_mid_transaction_leaves_a_consistent_file(tmp_path: Path) -> None:
    """A process killed with SIGKILL while it writes leaves a file that opens and passes
    SQLite's integrity check, where each recorded sitemap has all its entries and no entry
    belongs to a sitemap that was not recorded."""
    path = tmp_path / "state.sqlite"
    with subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE, text=True
    ) as writer:
        try:
            assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
            time.sleep(0.6)  # a few hundred transactions in
        finally:
            writer.send_signal(signal.SIGKILL)
            writer.wait(timeout=10)
    assert writer.returncode == -signal.SIGKILL

    with SqliteStateStore(path) as store:
        recorded = sum(1 for _ in store.states())
        assert recorded > 0
        assert store.summary().tracked_urls == recorded * 200
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        per_sitemap = db.execute("SELECT count(*) FROM listed GROUP BY sitemap").fetchall()
        assert {n for (n,) in per_sitemap} == {200}


# -- the command line -------------------------------------------------------------------------------


@pytest.fixture
def site() -> Iterator[Served]:
    with ThreadedServer() as s:
        s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
        s.add(
            "/index.xml",
            xml(sitemapindex((s.a("/a.xml"), "2024-03-01"), (s.a("/b.xml"), "2024-01-01"))),
        )
        s.add(
            "/a.xml",
            xml(urlset({"loc": s.a("/1"), "lastmod": "2024-03-01"}, {"loc": s.a("/2")})),
        )
        s.add("/b.xml", xml(urlset({"loc": s.a("/3"), "lastmod": "2023-01-01"})))
        yield s


def test_cli_second_run_prints_nothing_and_says_what_it_skipped(
    site: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --state, the second run prints no records, exits 0, and its summary says how many
    sitemaps were unchanged and how many bytes were not fetched again; the state file's
    directory is created."""
    path = tmp_path / "deep" / "er" / "state.sqlite"
    assert main(["dump", site.a("/"), "--state", str(path), "--format", "txt"]) == 0
    first = capsys.readouterr()
    assert sorted(first.out.split()) == [site.a("/1"), site.a("/2"), site.a("/3")]

    # No recheck sample, so that both children are skipped unasked.
    assert (
        main(["dump", site.a("/"), "--state", str(path), "--format", "txt", "--recheck", "0"]) == 0
    )

    second = capsys.readouterr()
    assert second.out == ""
    with SqliteStateStore(path) as store:
        sizes = sum(s.bytes for s in store.states() if s.format is Format.URLSET)
    assert f"2 sitemaps unchanged since the last run ({sizes:,} bytes not fetched again)" in (
        second.err
    )
    assert second.err.startswith("sitemap-reader: 0 URLs from 1 sitemap,")  # the index


def test_cli_bare_state_uses_the_default_file(
    site: Served,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--state`` alone (after the sources) writes $XDG_STATE_HOME/sitemap-reader/state.sqlite,
    making the directory, and ``state show`` without FILE reads it."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert main(["dump", site.a("/"), "-q", "--state"]) == 0
    assert (tmp_path / "xdg" / "sitemap-reader" / "state.sqlite").is_file()
    capsys.readouterr()

    assert main(["state", "show"]) == 0

    out = capsys.readouterr().out
    assert out.startswith(str(tmp_path / "xdg" / "sitemap-reader" / "state.sqlite") + ": schema 5")


def test_cli_state_show_lists_documents(
    site: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``state show FILE`` lists every recorded document with its format, counts and lastmod;
    ``--format jsonl`` gives one object per document."""
    path = tmp_path / "state.sqlite"
    assert main(["dump", site.a("/"), "-q", "--state", str(path), "--changes"]) == 0
    capsys.readouterr()

    assert main(["state", "show", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "4 documents (3 URLs at their last reads" in lines[0]
    assert "change feed: 3 URLs tracked, 0 changes not yet delivered" in lines[0]
    a = next(line for line in lines if line.startswith(site.a("/a.xml")))
    assert "urlset  2 URLs" in a and "lastmod 2024-03-01T00:00:00+00:00" in a and "[ok]" in a
    index = next(line for line in lines if line.startswith(site.a("/index.xml")))
    assert "sitemapindex  2 sitemaps" in index

    assert main(["state", "show", str(path), "--format", "jsonl"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(r["url"] for r in records) == sorted(
        site.a(p) for p in ("/robots.txt", "/index.xml", "/a.xml", "/b.xml")
    )
    assert all(r["tracked"] for r in records)


def test_cli_change_feed_formats(
    site: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--changes prints each change with "change"; jsonl has loc, lastmod, sitemap, change;
    csv has that header; txt prints 'kind<TAB>loc'; a quiet re-run prints nothing."""
    path = tmp_path / "state.sqlite"
    assert main(["dump", site.a("/"), "--state", str(path), "--changes"]) == 0
    out, err = capsys.readouterr()
    records = sorted((json.loads(line) for line in out.splitlines()), key=lambda r: r["loc"])
    assert records[0] == {
        "loc": site.a("/1"),
        "lastmod": "2024-03-01T00:00:00+00:00",
        "sitemap": site.a("/a.xml"),
        "change": "new",
    }
    assert [r["change"] for r in records] == ["new"] * 3
    assert err.startswith("sitemap-reader: 3 changes from 3 sitemaps")  # the index too

    site.add("/b.xml", xml(urlset({"loc": site.a("/4")})))
    site.add(
        "/index.xml",
        xml(sitemapindex((site.a("/a.xml"), "2024-03-01"), (site.a("/b.xml"), "2024-01-02"))),
    )
    assert main(["dump", site.a("/"), "--state", str(path), "--changes", "--format", "csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "loc,lastmod,sitemap,change"
    assert sorted(rows[1:]) == [
        f"{site.a('/3')},2023-01-01T00:00:00+00:00,{site.a('/b.xml')},removed",
        f"{site.a('/4')},,{site.a('/b.xml')},new",
    ]

    assert main(["dump", site.a("/"), "--state", str(path), "--changes", "--format", "txt"]) == 0
    assert capsys.readouterr().out == ""


def test_cli_since_and_since_strict(
    site: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--since keeps entries dated at or after DATE and undated ones; --since-strict drops
    the undated ones too; with --all a store run emits everything again."""
    path = tmp_path / "state.sqlite"
    args = ["dump", site.a("/"), "-q", "--format", "txt", "--state", str(path)]
    assert main([*args, "--since", "2024-01-01"]) == 0
    assert sorted(capsys.readouterr().out.split()) == [site.a("/1"), site.a("/2")]

    assert main([*args, "--all", "--since", "2024-01-01", "--since-strict"]) == 0

    assert capsys.readouterr().out.split() == [site.a("/1")]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--changes"], "need --state"),
        (["--all"], "need --state"),
        (["--max-age", "3d"], "need --state"),
        (["--state", "s.db", "--max-age", "soon"], "not a duration"),
        (["--state", "s.db", "--since-strict"], "--since-strict needs --since"),
    ],
)
def test_cli_state_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Incremental options used wrongly are usage errors: exit 2 and a message, no output."""
    with pytest.raises(SystemExit) as exc:
        main(["dump", "x.xml", *argv])

    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err


def test_cli_bad_state_file_exits_2_and_leaves_it(
    site: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A state file that is not one: exit 2 with a message naming it, nothing fetched, the
    file as it was."""
    path = tmp_path / "notes.txt"
    path.write_text("my notes\n")
    hits = len(site.site.hits)

    assert main(["dump", site.a("/"), "--state", str(path)]) == 2

    out, err = capsys.readouterr()
    assert out == "" and f"{path} is not a sitemap-reader state file" in err
    assert path.read_text() == "my notes\n"
    assert len(site.site.hits) == hits


def test_cli_state_directory_that_cannot_be_made_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A state file under a path that cannot be a directory: exit 2, a message naming it."""
    (tmp_path / "file").write_text("")
    path = tmp_path / "file" / "state.sqlite"

    assert main(["dump", str(tmp_path / "x.xml"), "--state", str(path)]) == 2

    assert f"cannot make the directory of the state file {path}" in capsys.readouterr().err


def test_cli_tree_with_state_shows_unchanged_documents(
    site: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tree --state`` on an unchanged site shows the index's children as unchanged, and
    ``--max-age 0`` asks for them again."""
    path = tmp_path / "state.sqlite"
    assert main(["tree", site.a("/"), "-q", "--state", str(path)]) == 0
    capsys.readouterr()
    assert main(["tree", site.a("/"), "-q", "--state", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{site.a('/a.xml')}  urlset  lastmod 2024-03-01  [unchanged]" in out
    hits = len(site.site.hits)

    assert main(["tree", site.a("/"), "-q", "--state", str(path), "--max-age", "0"]) == 0

    assert sorted(site.site.paths()[hits:]) == ["/a.xml", "/b.xml", "/index.xml", "/robots.txt"]
