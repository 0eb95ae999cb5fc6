"""The recheck sample's default, a byte budget: children whose server answers conditional
requests are asked again up to 4 a run (a 304 has no body); the others within 2% of the
source's bytes a run, carried over, and at least one every 5 runs. A real aiohttp server on
127.0.0.1, a real SQLite state file; bytes as the run reports them (``Progress.bytes``)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import Incremental, Progress, SitemapReader, SqliteStateStore, StateStore
from sitemap_reader._base._config import RECHECK_ANSWERING, RECHECK_EVERY, RECHECK_SHARE
from sitemap_reader._cli import main
from tests.support.http_site import (
    FAST,
    Run,
    Served,
    ThreadedServer,
    serve,
    sitemapindex,
    urlset,
    xml,
)
from tests.support.incremental import Validated

DEFAULT = dataclasses.replace(FAST, incremental=Incremental())  # the recheck as shipped
URLS = 300  # a child of about 20 kB


def site(s: Served, children: int, *, etag: bool = False, honour: bool = True) -> list[Validated]:
    """An index whose children's lastmods never move, children whose entries carry none:
    only asking a child again shows that it changed. ``etag``: the children send one (and
    answer 304 to it unless ``honour`` is False); the index never sends a validator."""
    kids = [
        Validated(
            urlset(*(s.a(f"/p/{i:03}/{j:03}") for j in range(URLS))),  # all of one size
            etag=f'"{i}"' if etag else None,
            honour=honour,
        )
        for i in range(children)
    ]
    index = sitemapindex(*[(s.a(f"/c{i}.xml"), "2024-01-01") for i in range(children)])
    s.add("/index.xml", xml(index))
    for i, kid in enumerate(kids):
        s.add(f"/c{i}.xml", kid)
    return kids


async def run(store: StateStore, s: Served) -> tuple[Run, Progress]:
    async with SitemapReader(DEFAULT, state=store) as reader:
        events = [event async for event in reader.walk(s.a("/index.xml"))]
    return Run(events), reader.progress


def asked(kids: list[Validated]) -> list[int]:
    return [len(kid.seen) for kid in kids]


def since(before: list[int], kids: list[Validated]) -> list[int]:
    """The children asked since ``before`` (an :func:`asked`), by number."""
    return [i for i, kid in enumerate(kids) if len(kid.seen) > before[i]]


def size(kid: Validated) -> int:
    return len(kid.body.encode())


async def test_an_unchanged_site_without_validators_costs_its_share_not_a_fifth(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """20 children of about 5% of the site each, no validators: the first unchanged re-run
    fetches the index alone (4 children a run moved 20% of the site); over 10 runs the
    children fetched again add up to no more than 10 shares of 2%, one child whenever the
    carried credit covers one, each a different child."""
    s = await serve(aiohttp_server)
    kids = site(s, 20)
    index = len(sitemapindex(*[(s.a(f"/c{i}.xml"), "2024-01-01") for i in range(20)]).encode())
    with SqliteStateStore(tmp_path / "state.sqlite") as store:
        _, cold = await run(store, s)
        assert cold.bytes == index + sum(map(size, kids))
        share = int(cold.bytes * RECHECK_SHARE)

        moved, rounds = [], []
        for _ in range(10):
            before = asked(kids)
            done, progress = await run(store, s)
            assert done.entries == []
            moved.append(progress.bytes)
            rounds.append(since(before, kids))

    assert rounds[0] == [] and moved[0] == index  # the first re-run: the index alone
    assert moved[0] <= RECHECK_SHARE * cold.bytes
    children = [i for r in rounds for i in r]
    assert len(children) == len(set(children))  # the sample rotates
    assert all(len(r) <= 1 for r in rounds)
    # A child is taken when the credit (a share a run, carried over) covers its size.
    assert len(children) == 10 * share // size(kids[0]) == 4
    assert sum(moved) - 10 * index == sum(size(kids[i]) for i in children) <= 10 * share


async def test_children_that_answer_304_are_rechecked_conditionally_at_no_cost(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """Children sending an ETag: the first re-run asks one of them to learn whether the
    server answers conditional requests; it answers 304, so later runs ask 4 a run, with
    their ETags, each answered 304 (no body), and every child is asked within a few runs."""
    s = await serve(aiohttp_server)
    kids = site(s, 20, etag=True)
    with SqliteStateStore(tmp_path / "state.sqlite") as store:
        _, cold = await run(store, s)
        index = cold.bytes - sum(map(size, kids))
        rounds = []
        for _ in range(6):
            before = asked(kids)
            _, progress = await run(store, s)
            rounds.append(since(before, kids))
            assert progress.bytes == index  # the children's 304s have no body

    assert [len(r) for r in rounds] == [1] + [RECHECK_ANSWERING] * 5
    first = [i for r in rounds[:5] for i in r]
    assert len(set(first)) == len(first) == 17  # the sample rotates
    # Run 7 asks the last 3, and the child asked longest ago again: every child within 6.
    assert set(rounds[5]) == set(range(20)) - set(first) | set(rounds[0])
    assert all(kid.seen[1] == (kid.etag, None) for kid in kids)  # with its ETag: 304


async def test_a_server_that_ignores_validators_is_found_out_by_one_child(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """Children send an ETag but answer every request in full: the one child asked to learn
    it costs its size once; from then on the children are weighed by their size, within
    the budget (4 a run would have moved a fifth of the site every run)."""
    s = await serve(aiohttp_server)
    kids = site(s, 20, etag=True, honour=False)
    with SqliteStateStore(tmp_path / "state.sqlite") as store:
        _, cold = await run(store, s)
        index = cold.bytes - sum(map(size, kids))
        share = int(cold.bytes * RECHECK_SHARE)
        rounds, moved = [], []
        for _ in range(10):
            before = asked(kids)
            _, progress = await run(store, s)
            rounds.append(since(before, kids))
            moved.append(progress.bytes - index)

    assert len(rounds[0]) == 1 and moved[0] == size(kids[0])  # the probe: a whole body
    assert all(len(r) <= 1 for r in rounds[1:])
    assert sum(moved[1:]) <= 9 * share


async def test_a_hidden_change_is_found_within_every_runs_per_child(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """3 children of a third of the site each, no validators: the budget never covers one,
    so one is asked every 5th run (the progress guarantee). The child the rotation reaches
    last changes behind its unmoved index lastmod: it is found on run 1 + 3 x 5, no sooner,
    and no run before moved more than one child."""
    s = await serve(aiohttp_server)
    kids = site(s, 3)
    path = tmp_path / "state.sqlite"
    with SqliteStateStore(path) as store:
        await run(store, s)
        states = [st for st in store.states() if st.url != s.a("/index.xml")]
        last = max(states, key=lambda st: (st.checked_at, st.url)).url
        changed = kids[int(last.rsplit("/c", 1)[1].removesuffix(".xml"))]
        changed.body = urlset(s.a("/p/new"))

        rounds: list[list[int]] = []
        found: list[str] = []
        while not found and len(rounds) < 3 * RECHECK_EVERY + 1:
            before = asked(kids)
            done, progress = await run(store, s)
            rounds.append(since(before, kids))
            found = done.locs

    assert found == [s.a("/p/new")]
    assert len(rounds) == 3 * RECHECK_EVERY  # run 16: the third child asked, on run 6, 11, 16
    assert [n for n, r in enumerate(rounds, 2) if r] == [6, 11, 16]
    assert all(len(r) <= 1 for r in rounds)
    assert s.a("/index.xml") in progress.distrusted  # a hidden change: lastmods distrusted


def test_the_command_line_rechecks_by_the_budget_unless_given_a_count(tmp_path: Path) -> None:
    """``dump --state``: a re-run of a 20-child site without validators fetches no child
    again (4 a run did); ``--recheck 4`` still asks 4 (whole), ``--recheck 0`` none."""
    state = str(tmp_path / "state.sqlite")
    with ThreadedServer() as s:
        kids = site(s, 20)

        def dump(*options: str) -> list[int]:
            before = asked(kids)
            argv = ["dump", s.a("/index.xml"), "--state", state, "-o", os.devnull, *options]
            assert main(argv) == 0
            return since(before, kids)

        assert len(dump()) == 20  # cold
        assert dump() == []  # the budget: 2% of the site covers no child yet
        assert len(dump("--recheck", "4")) == 4
        assert dump("--recheck", "0") == []
