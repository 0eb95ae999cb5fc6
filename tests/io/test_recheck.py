"""The recheck sample: each incremental run asks again, conditionally, a few of the children
their index lastmod would skip, the longest unchecked first, so that an index that does not
bump a changed child's lastmod is caught. A real aiohttp server on 127.0.0.1 and a real
SQLite state file; every child answers 304 to its ETag until its bytes change.

The children of a run are read side by side, so the order in which they were last checked
(what the sample goes by) is the order their reads ended in: the tests take it from the
store, never from the order the index names them in."""

from __future__ import annotations

from pathlib import Path

from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import SqliteStateStore, Status, Trust
from tests.support.http_site import Served, serve, sitemapindex, urlset, xml
from tests.support.incremental import Validated, run

CHILDREN = 6


def lying_site(s: Served) -> list[Validated]:
    """An index whose children's lastmods never move; entries carry no lastmod, so nothing
    in one read says the index lies."""
    kids = [Validated(urlset(s.a(f"/p/{i}")), etag=f'"{i}"') for i in range(CHILDREN)]
    s.add(
        "/index.xml",
        xml(sitemapindex(*[(s.a(f"/c{i}.xml"), "2024-01-01") for i in range(CHILDREN)])),
    )
    for i, kid in enumerate(kids):
        s.add(f"/c{i}.xml", kid)
    return kids


def asked(kids: list[Validated]) -> list[int]:
    return [len(kid.seen) for kid in kids]


def rotation(store: SqliteStateStore, s: Served) -> list[int]:
    """The children by number, the longest unchecked first: the order the sample takes."""
    kids = [st for st in store.states() if st.url != s.a("/index.xml")]
    kids.sort(key=lambda st: (st.checked_at, st.url))
    return [int(st.url.rsplit("/c", 1)[1].removesuffix(".xml")) for st in kids]


def since(before: list[int], kids: list[Validated]) -> list[int]:
    """The children asked since ``before`` (an :func:`asked`), by number."""
    return [i for i, kid in enumerate(kids) if len(kid.seen) > before[i]]


async def test_every_child_is_asked_within_children_over_recheck_runs(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """With ``recheck=2`` and 6 children, runs 2, 3 and 4 each ask exactly 2 children (with
    their ETag: 304, unchanged, nothing emitted), a different pair each run, oldest first."""
    s = await serve(aiohttp_server)
    kids = lying_site(s)
    with SqliteStateStore(tmp_path / "state.sqlite") as store:
        await run(store, s.a("/index.xml"), recheck=2)
        assert asked(kids) == [1] * CHILDREN
        order = rotation(store, s)  # the order the cold run's reads ended in
        rounds = []
        for _ in range(3):
            before = asked(kids)
            done, _ = await run(store, s.a("/index.xml"), recheck=2)
            rounds.append(since(before, kids))
            assert done.entries == []
            children = [r for r in done.reports if r.url != s.a("/index.xml")]
            assert {r.status for r in children} == {Status.UNCHANGED}
        # The longest unchecked first: the pairs in the order the cold run checked them.
        assert rounds == [sorted(order[0:2]), sorted(order[2:4]), sorted(order[4:6])]
        assert all(kid.seen[1] == (kid.etag, None) for kid in kids)  # conditional, 304

        done, _ = await run(store, s.a("/index.xml"), recheck=0)  # off: all skipped, unasked
        assert asked(kids) == [2] * CHILDREN


async def test_a_child_changed_behind_an_unmoved_lastmod_is_found_and_distrusted(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """The child the sample reaches last gains a URL while the index lastmod stays: the
    sample reaches it on run children / recheck, its new URL is emitted, the source's
    lastmods are judged untrusted (a hidden change), and the next run asks every child."""
    s = await serve(aiohttp_server)
    kids = lying_site(s)
    with SqliteStateStore(tmp_path / "state.sqlite") as store:
        await run(store, s.a("/index.xml"), recheck=2)
        last = rotation(store, s)[-1]  # checked last by the cold run
        kids[last].body = urlset(s.a(f"/p/{last}"), s.a("/p/new"))
        kids[last].etag = '"changed"'
        runs = 0
        found: list[str] = []
        while not found and runs < CHILDREN // 2:
            done, progress = await run(store, s.a("/index.xml"), recheck=2)
            runs += 1
            found = [e.loc for e in done.entries]
        assert runs == 3 and found == [s.a(f"/p/{last}"), s.a("/p/new")]
        assert s.a("/index.xml") in progress.distrusted
        assert "changed while their index lastmod did not" in progress.distrusted[s.a("/index.xml")]
        assert done.report(s.a(f"/c{last}.xml")).lastmods.verdict is Trust.UNTRUSTED  # type: ignore[union-attr]

        before = asked(kids)
        await run(store, s.a("/index.xml"), recheck=2)
        assert since(before, kids) == list(range(CHILDREN))  # distrusted: every child asked
