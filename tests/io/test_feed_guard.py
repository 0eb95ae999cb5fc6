"""The shrink guard: a sitemap, an index or a whole source that suddenly lists far fewer URLs
holds its removals back until a later run sees the same (a loopback site whose served files
change between runs, a SQLite state file)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from sitemap_reader import (
    EntryChange,
    Incremental,
    Problem,
    SqliteStateStore,
    walk_sync,
)
from tests.support.http_site import FAST, Served, ThreadedServer, serve_index


def run(s: Served, path: Path, guard: float = 0.5) -> tuple[set[tuple[str, str]], list[Problem]]:
    """One run with the change feed: its changes, and its shrink Problems."""
    config = dataclasses.replace(FAST, incremental=Incremental(changes=True, shrink_guard=guard))
    events = list(walk_sync(s.a("/index.xml"), config=config, state=path))
    changes = {(e.change.value, e.loc) for e in events if type(e) is EntryChange}
    said = [e for e in events if type(e) is Problem and e.kind.startswith("shrink")]
    return changes, said


def removed(s: Served, name: str, start: int, stop: int) -> set[tuple[str, str]]:
    return {("removed", s.a(f"/p/{name}{i}")) for i in range(start, stop)}


def shrink_b(s: Served, path: Path) -> tuple[set[tuple[str, str]], list[Problem]]:
    """Read the site with b.xml of 10 URLs, then again with b.xml cut down to 2."""
    serve_index(s, {"a": 2, "b": 10})
    run(s, path)
    serve_index(s, {"a": 2, "b": 2})
    return run(s, path)


def test_a_shrunk_sitemap_holds_its_removals_until_a_later_run_confirms(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite"
    with ThreadedServer() as s:
        held, said = shrink_b(s, path)
        with SqliteStateStore(path) as store:
            holds = store.holds()
        confirmed, said_then = run(s, path)
        again, _ = run(s, path)
    assert held == set()
    assert [(p.kind, p.url) for p in said] == [("shrink-held", s.a("/b.xml"))]
    assert "lists 2 URLs where its last complete read listed 10" in said[0].message
    assert [(h.scope, h.url, h.before, h.now) for h in holds] == [("sitemap", s.a("/b.xml"), 10, 2)]
    assert confirmed == removed(s, "b", 2, 10)
    assert [p.kind for p in said_then] == ["shrink-confirmed"]
    assert again == set()


def test_a_shrink_undone_by_the_next_run_reports_nothing(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite"
    with ThreadedServer() as s:
        held, _ = shrink_b(s, path)
        serve_index(s, {"a": 2, "b": 10})
        recovered, said = run(s, path)
        with SqliteStateStore(path) as store:
            assert store.holds() == []
    assert held == set() and recovered == set() and said == []


def test_the_guard_off_hands_the_removals_out_at_once(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite"
    with ThreadedServer() as s:
        serve_index(s, {"a": 2, "b": 10})
        run(s, path, guard=0)
        serve_index(s, {"a": 2, "b": 2})
        changes, said = run(s, path, guard=0)
    assert changes == removed(s, "b", 2, 10) and said == []


def test_an_index_that_drops_most_of_its_urls_holds_the_removals(tmp_path: Path) -> None:
    """An index that stops naming the sitemaps that held 9 of its 10 URLs keeps them until a
    later run sees the same index."""
    path = tmp_path / "state.sqlite"
    with ThreadedServer() as s:
        serve_index(s, {"a": 1, "b": 9})
        run(s, path)
        serve_index(s, {"a": 1})
        held, said = run(s, path)
        confirmed, _ = run(s, path)
    assert held == set()
    assert [(p.kind, p.url) for p in said] == [("shrink-held", s.a("/index.xml"))]
    assert confirmed == removed(s, "b", 0, 9)


def test_a_source_that_shrinks_by_parts_within_the_rule_is_held_as_a_whole(
    tmp_path: Path,
) -> None:
    """Each part keeps half (an index drops a sitemap of half its URLs, the other sitemap
    halves): no document passes the rule, but the source lists a quarter of its URLs. Its
    removals stay pending in the store until a later run confirms."""
    path = tmp_path / "state.sqlite"
    with ThreadedServer() as s:
        serve_index(s, {"a": 4, "b": 4})
        run(s, path)
        serve_index(s, {"a": 2})
        held, said = run(s, path)
        with SqliteStateStore(path) as store:
            summary, holds = store.summary(), store.holds()
        confirmed, said_then = run(s, path)
    assert held == set()
    assert [(p.kind, p.url) for p in said] == [("shrink-held", s.a("/index.xml"))]
    assert "the source lists 2 URLs where its last complete read listed 8" in said[0].message
    assert summary.held == 6
    assert [(h.scope, h.before, h.now) for h in holds] == [("source", 8, 2)]
    assert confirmed == removed(s, "a", 2, 4) | removed(s, "b", 0, 4)
    assert [p.kind for p in said_then] == ["shrink-confirmed"]
