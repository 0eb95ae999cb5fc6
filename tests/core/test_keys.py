"""The change feed's keys on both cores (``_core/_keys.py``): the compiled core's
(``_native.run_keys``, src/keys.rs, the ``blake2`` crate) and ``hashlib``'s (the pure
core's) give the same key for every URL, so a run's stored row is the same bytes on both and
a state file written by one core is read by the other."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_reader import Entry, Format, SitemapState, SqliteStateStore, Status
from sitemap_reader._core import _keys
from sitemap_reader._core._keys import key, keys, pure_keys
from sitemap_reader._io._state._runs import Run

COMPILED = _keys._compiled()
pytestmark = pytest.mark.skipif(COMPILED is None, reason="the compiled core is not in use")

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)
URL = "https://s.example/sitemap.xml"

# URLs as sites write them, and any text (lone surrogates included: hashed as
# ``surrogatepass`` encodes them, on both cores).
urls = st.one_of(
    st.from_regex(r"https://[a-z]{1,8}\.example/[a-z0-9/_.-]{0,40}", fullmatch=True),
    st.text(max_size=30),
)


@given(st.lists(urls, max_size=60))
def test_both_cores_give_the_same_keys(locs: list[str]) -> None:
    compiled = keys(locs)
    assert compiled == pure_keys(locs)
    assert list(compiled) == [key(loc) for loc in locs]


@given(st.dictionaries(urls, st.one_of(st.none(), st.integers(-(2**62), 2**62)), max_size=40))
def test_a_run_packs_to_the_same_bytes_on_both_cores(listing: dict[str, int | None]) -> None:
    """The stored row (keys, lastmod integers, compressed URLs): byte for byte."""
    compiled = Run.of(listing).encode(keys=True)
    pure = Run.of(listing)
    pure._keys = pure_keys(pure.locs)
    assert compiled == pure.encode(keys=True)
    back = Run.decode(compiled)
    assert (back.locs, back.lastmods, back.keys) == (pure.locs, pure.lastmods, pure.keys)


def test_known_keys() -> None:
    """What ``hashlib.blake2b(digest_size=8)`` gives, as the Rust unit tests pin it."""
    assert list(keys(["", "https://example.com/"])) == [
        -5_426_141_060_434_712_860,
        6_581_209_984_513_522_196,
    ]


@pytest.fixture
def core(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[bool], None]]:
    """A switch between the cores' keys (``SITEMAP_READER_PURE``); the compiled one after."""

    def switch(pure: bool) -> None:
        if pure:
            monkeypatch.setenv("SITEMAP_READER_PURE", "1")
        else:
            monkeypatch.delenv("SITEMAP_READER_PURE", raising=False)
        _keys._compiled.cache_clear()
        assert (_keys._compiled() is None) is pure

    yield switch
    monkeypatch.undo()
    _keys._compiled.cache_clear()


def _read(store: SqliteStateStore, *entries: Entry) -> None:
    """A complete read of the sitemap with the feed on: staged, then put tracked."""
    store.stage(URL, list(entries))
    store.put(
        SitemapState(
            url=URL,
            final_url=URL,
            status=Status.OK,
            format=Format.URLSET,
            fetched_at=T0,
            checked_at=T0,
            entries=len(entries),
            tracked=True,
        )
    )


def _feed(store: SqliteStateStore) -> list[tuple[str, str]]:
    out = sorted((c.change.value, c.loc) for c in store.changes())
    store.delivered()
    return out


@pytest.mark.parametrize("writer_pure", [False, True], ids=["compiled-writes", "pure-writes"])
def test_a_file_written_by_one_core_is_read_by_the_other(
    tmp_path: Path, core: Callable[[bool], None], writer_pure: bool
) -> None:
    """Written on one core; on the other, a URL modified, one removed, one added: the feed
    finds exactly those (a key that differed would make the modified URL a removal and a
    new URL, and leave the removed one listed)."""
    locs = [f"https://s.example/é/{i}" for i in range(50)]
    later = T0 + timedelta(days=1)
    core(writer_pure)
    with SqliteStateStore(tmp_path / "state.sqlite") as store:
        _read(store, *(Entry(loc, T0) for loc in locs))
        assert len(_feed(store)) == 50
    core(not writer_pure)
    with SqliteStateStore(tmp_path / "state.sqlite") as store:
        _read(
            store,
            Entry(locs[0], later),
            *(Entry(loc, T0) for loc in locs[2:]),
            Entry("https://s.example/new", T0),
        )
        assert _feed(store) == [
            ("modified", locs[0]),
            ("new", "https://s.example/new"),
            ("removed", locs[1]),
        ]
