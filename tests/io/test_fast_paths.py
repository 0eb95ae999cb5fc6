"""The whole-site fast paths give what their slow paths give: a batch's scope judged at once,
the substring test for dot segments, dates written from their fields, a leaf's batch passed
whole by the walk, and the command line's collector tuned only while it reads."""

from __future__ import annotations

import gc
import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import Entry, ScopePolicy, SitemapParser, entry_to_dict
from sitemap_reader._base._gc import SETTLE, YOUNG, few_collections
from sitemap_reader._core._walk._scope import _MAY_LEAVE, Scope, _may_leave
from sitemap_reader._output._lines import _iso, json_line
from tests.support.http_site import gz_file, serve, walk

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _generate

BASE = "https://example.com"


def _mixed(n: int, base_url: str) -> bytes:
    return _generate.mixed_sitemap(n, seed=3, base_url=base_url)


def _entries(document: bytes, url: str) -> list[Entry]:
    parser = SitemapParser(url)
    events = parser.feed(document) + parser.close()
    return [e for e in events if type(e) is Entry]


# -- dates ----------------------------------------------------------------------------------

_offsets = st.timedeltas(min_value=timedelta(hours=-23, minutes=-59), max_value=timedelta(hours=23))
_zones = (
    st.none()
    | st.just(timezone.utc)
    | _offsets.map(timezone)
    | st.sampled_from([ZoneInfo("Europe/Paris"), ZoneInfo("America/New_York")])
)


@given(st.datetimes(timezones=_zones), st.booleans())
def test_iso_is_isoformat(value: datetime, whole: bool) -> None:
    """Any datetime (years under 1000, microseconds, offsets in seconds, a named zone,
    naive) is written as isoformat writes it, the first time and once its offset is known."""
    if whole:
        value = value.replace(microsecond=0)
    assert _iso(value) == value.isoformat()
    assert _iso(value) == value.isoformat()
    assert _iso(value.replace(year=2024)) == value.replace(year=2024).isoformat()


def test_json_lines_of_the_mixed_shape_are_json_dumps() -> None:
    """Alternates (with the head each language gets), images, dates at several offsets:
    the shape multilingual sites serve, written byte for byte as json.dumps writes it."""
    entries = _entries(_mixed(2_000, BASE + "/c"), BASE + "/s.xml")
    assert sum(bool(e.alternates) for e in entries) > 200
    assert sum(bool(e.images) for e in entries) > 200
    for entry in entries:
        assert json_line(entry) == json.dumps(entry_to_dict(entry), ensure_ascii=False) + "\n"


# -- scope ----------------------------------------------------------------------------------


@given(st.text(alphabet="/.%2eEa \t\n\r", max_size=12))
def test_may_leave_is_the_regex(text: str) -> None:
    assert _may_leave(text) == (_MAY_LEAVE(text) is not None)


_pieces = st.sampled_from(
    [
        "a",
        "a",
        "a",
        "/",
        "/",
        "dir/",
        ".",
        "..",
        "%2e",
        "%2E",
        "%2f",
        " ",
        "\t",
        "\n",
        " https://example.com/",
        "https://example.com/dir/",
        "?q=/..",
        "#x",
        "é",
    ]
)
_urls = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "https://example.com/dir/",
                "https://example.com/dir/",
                "https://example.com/dir/",
                "https://example.com/",
                "https://example.com:443/dir/",
                "http://example.com/dir/",
                "https://EXAMPLE.com/dir/",
                "https://other.example/dir/",
                "https://example.com/dir",
                "",
            ]
        ),
        st.lists(_pieces, max_size=5).map("".join),
    ).map("".join),
    max_size=8,
)
_scopes = st.builds(
    Scope,
    st.sampled_from(["https://example.com/dir/s.xml", "https://example.com/s.xml", ""]),
    st.sampled_from(list(ScopePolicy)),
    st.sampled_from(["", "https://example.com", "https://other.example"]),
)


@settings(max_examples=500)
@given(_scopes, _urls)
@example(  # a space and the prefix inside a URL, standing for a gap: counted as one
    Scope(BASE + "/dir/s.xml", ScopePolicy.STRICT),
    [f"{BASE}/dir/a {BASE}/dir/b", "https://other.example/dir/c"],
)
@example(Scope(BASE + "/dir/s.xml", ScopePolicy.STRICT), [BASE + "/dir/a", BASE + "/dir/../b"])
@example(Scope(BASE + "/dir/s.xml", ScopePolicy.STRICT), [BASE + "/dir/.%2E/b"])
def test_a_batch_passes_only_what_each_check_passes(scope: Scope, urls: list[str]) -> None:
    """The batch test never passes a URL the one-by-one check would drop: not one outside
    the folder, on another host, with a dot segment, a tab or a space that hides a prefix."""
    check = scope.filter()
    if check.all_pass(urls):
        assert [check.check(url) for url in urls] == [None] * len(urls)


def test_a_realistic_batch_passes_whole() -> None:
    """A leaf of the mixed shape inside its sitemap's folder passes as one batch (so the
    fast path is the one the walk takes), and one URL outside the folder or with a dot
    segment anywhere in it sends the batch to the one-by-one check."""
    locs = [e.loc for e in _entries(_mixed(2_000, BASE + "/dir"), BASE + "/dir/s.xml")]
    for scope in (
        Scope(BASE + "/dir/s.xml", ScopePolicy.STRICT),
        Scope(BASE + "/dir/s.xml", ScopePolicy.STRICT, BASE),  # vouched by robots.txt
        Scope(BASE + "/s.xml", ScopePolicy.STRICT, BASE),
        Scope(BASE + "/other/s.xml", ScopePolicy.HOST),
    ):
        check = scope.filter()
        assert check.all_pass(locs)
        assert {check.check(loc) for loc in locs} == {None}
    check = Scope(BASE + "/dir/s.xml", ScopePolicy.STRICT).filter()
    for odd in (BASE + "/elsewhere", BASE + "/dir/../admin", BASE + "/dir/a b"):
        assert not check.all_pass([*locs[:500], odd, *locs[500:]])


async def test_the_walk_passes_a_leaf_as_the_parser_reads_it(
    aiohttp_server: AiohttpServer,
) -> None:
    """A gzipped leaf of the mixed shape, read over HTTP: the walk's entries are the
    parser's own, in order; the same leaf with URLs outside its folder loses those only."""
    s = await serve(aiohttp_server)
    document = _mixed(3_000, s.a("/c"))
    s.add("/c/sitemap.xml.gz", gz_file(document))
    outside = document.replace(
        b"<loc>" + s.a("/c/shop/").encode(), b"<loc>" + s.a("/shop/").encode()
    )
    s.add("/c/outside.xml.gz", gz_file(outside))

    run = await walk(s.a("/c/sitemap.xml.gz"), s.a("/c/outside.xml.gz"))

    whole = _entries(document, s.a("/c/sitemap.xml.gz"))
    assert [e for e in run.entries if e.sitemap.endswith("/sitemap.xml.gz")] == whole
    kept = [e for e in _entries(outside, s.a("/c/outside.xml.gz")) if "/c/" in e.loc]
    assert [e for e in run.entries if e.sitemap.endswith("/outside.xml.gz")] == kept
    report = run.report(s.a("/c/outside.xml.gz"))
    assert 0 < len(kept) < 3_000
    assert report.dropped == (("outside-folder", 3_000 - len(kept)),)


# -- the collector --------------------------------------------------------------------------


def test_few_collections_is_undone_after_the_block() -> None:
    before = gc.get_threshold()
    with few_collections():
        assert gc.get_threshold()[0] >= YOUNG
        assert gc.get_freeze_count() > 0  # what the run starts with is walked no more
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_few_collections_is_undone_after_an_error() -> None:
    before = gc.get_threshold()
    with pytest.raises(KeyError), few_collections():
        raise KeyError
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_document_done_frees_the_cycles_kept_since_the_last_collection() -> None:
    """The young generation is large, so cycles a document leaves would wait; the call made
    when a document is done collects once enough were kept, and not before."""

    def cycles(n: int) -> None:
        for _ in range(n):
            loop: list[object] = []
            loop.append(loop)

    with few_collections() as document_done:
        gc.collect()
        cycles(10)
        document_done()  # few: left for later
        assert gc.get_count()[0] >= 10
        cycles(SETTLE)
        assert gc.get_count()[0] > SETTLE  # (YOUNG is far above: no automatic collection)
        document_done()
        assert gc.get_count()[0] < 10
