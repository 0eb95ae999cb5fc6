"""Which SOURCE each record descends from, and the problems beside a DataFrame.

A run over several sources tags each batch with its ``root`` (the source as the walk names
it), which is what fills the ``source`` column of ``dump --format parquet`` for any number
of SOURCEs or ``--sites`` lines; ``read_dataframe(..., problems=True)`` returns the problems
frame of ``read_sites``' schema. Sites are real aiohttp servers on 127.0.0.1.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from pytest_aiohttp.plugin import AiohttpServer

import sitemap_reader as sr
from sitemap_reader._cli import main
from tests.support import http_site as hs
from tests.support.http_site import FAST, Served, ThreadedServer, serve

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

PROBLEM_COLUMNS = ["site", "url", "kind", "message", "fatal"]


def _site(s: Served, tag: str, *, missing: bool = False) -> None:
    """robots.txt -> an index -> two urlsets of pages under ``/tag/`` (and a child that is
    missing: 404)."""
    children = [s.a("/a.xml"), s.a("/b.xml")] + ([s.a("/missing.xml")] if missing else [])
    s.add("/robots.txt", hs.text(f"Sitemap: {s.a('/index.xml')}\n"))
    s.add("/index.xml", hs.xml(hs.sitemapindex(*children)))
    s.add("/a.xml", hs.xml(hs.urlset(*(s.a(f"/{tag}/a/{i}") for i in range(4)))))
    s.add("/b.xml", hs.xml(hs.urlset(*(s.a(f"/{tag}/b/{i}") for i in range(2)))))
    # /missing.xml is no route: the server answers 404


def _local(tmp_path: Path) -> Path:
    path = tmp_path / "local.xml"
    path.write_text(
        hs.urlset(*(f"https://e.invalid/local/{i}" for i in range(3))), encoding="utf-8"
    )
    return path


# -- batches know their source ------------------------------------------------------------------


async def test_each_batch_names_the_source_it_descends_from(
    aiohttp_server: AiohttpServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One run over a site root, another site's index and a relative file path: every batch
    says which source its events descend from (the file by its absolute path), and every
    entry, report and problem in it belongs to that source."""
    one, two = await serve(aiohttp_server), await serve(aiohttp_server)
    _site(one, "one")
    _site(two, "two", missing=True)
    local = _local(tmp_path)
    monkeypatch.chdir(tmp_path)
    # each root, and the prefix of everything it reaches
    prefixes = {one.a("/"): one.a("/"), two.a("/index.xml"): two.a("/"), str(local): str(local)}
    entries: Counter[str | None] = Counter()
    reports: Counter[str | None] = Counter()
    problems: list[tuple[str | None, sr.Problem]] = []

    async with sr.SitemapReader(FAST) as reader:
        async for batch in reader.walk_batches(one.a("/"), two.a("/index.xml"), "local.xml"):
            assert isinstance(batch, list) and batch.root in prefixes
            prefix = prefixes[batch.root]
            for event in batch:
                if type(event) is sr.Entry:
                    entries[batch.root] += 1
                    assert event.sitemap.startswith(prefix)
                elif type(event) is sr.SitemapVisited:
                    reports[batch.root] += 1
                    assert event.url.startswith(prefix)
                else:
                    assert type(event) is sr.Problem and event.url.startswith(prefix)
                    problems.append((batch.root, event))

    assert entries == {one.a("/"): 6, two.a("/index.xml"): 6, str(local): 3}
    # robots.txt, the index and two urlsets; the index and three children; the file
    assert reports == {one.a("/"): 4, two.a("/index.xml"): 4, str(local): 1}
    assert [(root, p.kind, p.url) for root, p in problems] == [
        (two.a("/index.xml"), "http-status", two.a("/missing.xml"))
    ]


async def test_leaves_are_read_under_the_root_they_were_found_for(
    aiohttp_server: AiohttpServer,
) -> None:
    """Discovery hands out leaves tagged with their root, and reading them (all at once, in
    one run) tags each batch with its leaf's root."""
    one, two = await serve(aiohttp_server), await serve(aiohttp_server)
    _site(one, "one")
    _site(two, "two")
    async with sr.SitemapReader(FAST) as reader:
        leaves = [
            item
            async for batch in reader.discover_batches(one.a("/"), two.a("/"))
            for item in batch
            if type(item) is sr.Leaf
        ]
    assert Counter(leaf.root for leaf in leaves) == {one.a("/"): 2, two.a("/"): 2}
    tags = {one.a("/"): "/one/", two.a("/"): "/two/"}

    async with sr.SitemapReader(FAST) as reader:
        locs: Counter[str | None] = Counter()
        async for batch in reader.leaf_batches(*leaves):
            assert batch.root in tags
            for event in batch:
                if type(event) is sr.Entry:
                    assert tags[batch.root] in event.loc
                    locs[batch.root] += 1
    assert locs == {one.a("/"): 6, two.a("/"): 6}


# -- the source column of dump --format parquet -------------------------------------------------


def _sources_by_loc(path: Path) -> dict[str, str | None]:
    rows = pq.read_table(path).to_pylist()
    assert len({row["loc"] for row in rows}) == len(rows)  # no loc read twice
    return {row["loc"]: row["source"] for row in rows}


def test_parquet_of_several_sources_names_each_rows_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``dump A B FILE --format parquet``: each row's source is the SOURCE it descends from,
    as given for a URL, by its absolute path for a file."""
    local = _local(tmp_path)
    monkeypatch.chdir(tmp_path)
    with ThreadedServer() as one, ThreadedServer() as two:
        _site(one, "one")
        _site(two, "two", missing=True)
        out = tmp_path / "out.parquet"
        argv = ["dump", one.a("/"), two.a("/index.xml"), "local.xml"]
        assert main([*argv, "--format", "parquet", "-o", str(out), "-q"]) == 0

    rows = _sources_by_loc(out)
    assert len(rows) == 15
    for loc, source in rows.items():
        if "/one/" in loc:
            assert source == one.a("/"), loc
        elif "/two/" in loc:
            assert source == two.a("/index.xml"), loc
        else:
            assert loc.startswith("https://e.invalid/local/") and source == str(local)


def test_parquet_of_a_sites_file_names_each_rows_line(tmp_path: Path) -> None:
    """``dump --sites FILE --format parquet``: each row's source is its site's line (as
    read: spaces around it stripped), SOURCEs given beside the file too."""
    with ThreadedServer() as one, ThreadedServer() as two, ThreadedServer() as three:
        for tag, s in (("one", one), ("two", two), ("three", three)):
            _site(s, tag)
        listed = tmp_path / "sites.txt"
        listed.write_text(f"# sites\n  {two.a('/')}  \n\n{three.a('/robots.txt')}\n")
        out = tmp_path / "out.parquet"
        argv = ["dump", one.a("/"), "--sites", str(listed), "--format", "parquet"]
        assert main([*argv, "-o", str(out), "-q"]) == 0

    rows = _sources_by_loc(out)
    expected = {"/one/": one.a("/"), "/two/": two.a("/"), "/three/": three.a("/robots.txt")}
    assert Counter(rows.values()) == dict.fromkeys(expected.values(), 6)
    for loc, source in rows.items():
        assert [source] == [v for tag, v in expected.items() if tag in loc]


# -- problems beside the DataFrame ----------------------------------------------------------------


def _empty_problems_dtypes() -> list[str]:
    return ["string[pyarrow]"] * 4 + ["bool[pyarrow]"]


async def test_read_dataframe_returns_the_problems_of_a_failed_and_a_cut_child(
    aiohttp_server: AiohttpServer,
) -> None:
    """A child that answers 404 and one cut short are rows of the problems frame, with the
    site, the child's URL, the kind and fatal set; the entries before the cut are kept."""
    s = await serve(aiohttp_server)
    _site(s, "x", missing=True)
    whole = hs.urlset(*(s.a(f"/x/cut/{i}") for i in range(3)))
    s.add("/cut.xml", hs.xml(whole[: whole.index(s.a("/x/cut/2"))]))  # ends inside a <loc>
    s.add(
        "/index.xml", hs.xml(hs.sitemapindex(s.a("/a.xml"), s.a("/missing.xml"), s.a("/cut.xml")))
    )
    root = s.a("/")

    entries, problems = await sr.read_dataframe(root, config=FAST, problems=True)

    assert list(problems.columns) == PROBLEM_COLUMNS
    assert [str(d) for d in problems.dtypes] == _empty_problems_dtypes()
    got = sorted(problems[["site", "url", "kind", "fatal"]].itertuples(index=False, name=None))
    assert got == [
        (root, s.a("/cut.xml"), "truncated", True),
        (root, s.a("/missing.xml"), "http-status", True),
    ]
    assert "404" in problems.set_index("kind").loc["http-status", "message"]
    assert sorted(entries["loc"]) == sorted(
        [s.a(f"/x/a/{i}") for i in range(4)] + [s.a("/x/cut/0"), s.a("/x/cut/1")]
    )
    assert set(entries["source"]) == {root}
    # Without the keyword, the one frame it always returned. The children are read side by
    # side, so rows come in the order their reads ended: compared by URL.
    alone = await sr.read_dataframe(root, config=FAST)
    assert isinstance(alone, pd.DataFrame)
    assert alone.sort_values("loc", ignore_index=True).equals(
        entries.sort_values("loc", ignore_index=True)
    )


def test_a_clean_read_has_an_empty_problems_frame_of_the_schema() -> None:
    """A clean site gives no problem rows, with the columns and dtypes of a full frame, which
    are problem_schema's (the schema of dask.read_sites' problems frame too)."""
    with ThreadedServer() as s:
        _site(s, "clean")
        entries, problems = sr.read_dataframe_sync(s.a("/"), config=FAST, problems=True)

    assert len(entries) == 6
    assert problems.empty and list(problems.columns) == PROBLEM_COLUMNS
    assert [str(d) for d in problems.dtypes] == _empty_problems_dtypes()
    schema = pa.Schema.from_pandas(problems, preserve_index=False)
    assert [(f.name, f.type) for f in schema] == [(f.name, f.type) for f in sr.problem_schema()]
    dask = pytest.importorskip("sitemap_reader.dask")
    assert dask.problem_schema() == sr.problem_schema()
