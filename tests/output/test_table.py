"""Columnar output: the Arrow schema, the streaming Parquet sink, ``dump --format parquet`` and
the pandas frames, checked against the records they come from and the JSON lines output.

Sites are served on 127.0.0.1 by tests/support/http_site.py; pyarrow and pandas are optional extras,
so the module skips without them (the missing-extra message is tested in a subprocess).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import (
    Alternate,
    ChangeFreq,
    Entry,
    Image,
    News,
    ParquetSink,
    Video,
    entries_to_batches,
    entries_to_dataframe,
    entries_to_table,
    entry_schema,
    entry_to_dict,
    read_dataframe,
    read_dataframe_sync,
)
from sitemap_reader._cli import main
from sitemap_reader._output import _table
from tests.support.http_site import (
    FAST,
    Served,
    ThreadedServer,
    gz_file,
    serve,
    sitemapindex,
    text,
    urlset,
    walk,
    xml,
)

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

COLUMNS = [
    "loc", "lastmod", "changefreq", "priority", "sitemap", "source",
    "images", "videos", "news", "alternates",
]  # fmt: skip
NAMESPACES = (
    'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml"'
)


# -- a generated site ---------------------------------------------------------------------------


def rich_url(base: str, i: int) -> str:
    """One ``<url>`` whose fields and extensions vary with ``i``: every column, every kind of
    value (absent ones too), zone offsets, non-ASCII text and escaped characters."""
    loc = f"{base}/page/{i}?a=1&b=caf\u00e9"
    parts = [f"<loc>{escape(loc)}</loc>"]
    lastmods = ("2024-05-01T10:00:00+02:00", "2023-01-02", "2024-12-31T23:59:59.250-05:30", None)
    if lastmods[i % 4] is not None:
        parts.append(f"<lastmod>{lastmods[i % 4]}</lastmod>")
    freqs = list(ChangeFreq)
    if i % 8 < len(freqs):
        parts.append(f"<changefreq>{freqs[i % 8].value}</changefreq>")
    if i % 3:
        parts.append(f"<priority>{(i % 11) / 10}</priority>")
    for k in range(i % 3):
        extra = f"<image:caption>Caption {i} &amp; \u00fcml</image:caption>" if k else ""
        extra += "<image:title>T</image:title><image:license>https://l.example/</image:license>"
        parts.append(
            f"<image:image><image:loc>{base}/i/{i}-{k}.jpg</image:loc>{extra}</image:image>"
        )
    if i % 5 == 0:
        parts.append(
            "<video:video>"
            f"<video:thumbnail_loc>{base}/v/{i}.jpg</video:thumbnail_loc>"
            f"<video:title>Video {i}</video:title>"
            "<video:description>What it shows</video:description>"
            f"<video:content_loc>{base}/v/{i}.mp4</video:content_loc>"
            f"<video:player_loc>{base}/player?v={i}</video:player_loc>"
            f"<video:duration>{60 + i}</video:duration>"
            "<video:expiration_date>2030-01-01T00:00:00+01:00</video:expiration_date>"
            "<video:rating>4.2</video:rating>"
            f"<video:view_count>{1000 * i}</video:view_count>"
            "<video:publication_date>2024-03-04T05:06:07Z</video:publication_date>"
            f"<video:family_friendly>{'yes' if i % 2 else 'no'}</video:family_friendly>"
            "<video:requires_subscription>no</video:requires_subscription>"
            "<video:live>yes</video:live>"
            "<video:uploader>Someone</video:uploader>"
            "<video:category>Cooking</video:category>"
            "<video:tag>one</video:tag><video:tag>two</video:tag>"
            "</video:video>"
        )
    if i % 7 == 0:
        parts.append(
            "<news:news><news:publication><news:name>The Paper</news:name>"
            "<news:language>de</news:language></news:publication>"
            "<news:publication_date>2024-06-01T08:00:00+02:00</news:publication_date>"
            f"<news:title>Nachricht {i}</news:title><news:keywords>a, b</news:keywords>"
            "<news:genres>Blog</news:genres></news:news>"
        )
    if i % 3 == 0:
        parts.append(f'<xhtml:link rel="alternate" hreflang="de" href="{base}/de/page/{i}"/>')
        parts.append(
            f'<xhtml:link rel="alternate" hreflang="x-default" href="{base}/page/{i}" '
            'media="only screen and (max-width: 640px)"/>'
        )
    return "<url>" + "".join(parts) + "</url>"


RICH_URLS = 40
PLAIN_URLS = 300


def build_site(s: Served) -> None:
    """robots.txt -> an index -> a sitemap with every extension and a gzipped plain one."""
    base = s.a("").rstrip("/")
    s.add("/robots.txt", text(f"User-agent: *\nSitemap: {s.a('/maps/index.xml')}\n"))
    s.add("/maps/index.xml", xml(sitemapindex(s.a("/maps/rich.xml"), s.a("/maps/plain.xml.gz"))))
    rich = "".join(rich_url(f"{base}/maps", i) for i in range(RICH_URLS))
    s.add(
        "/maps/rich.xml",
        xml(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NAMESPACES}>{rich}</urlset>'),
    )
    plain = [
        {"loc": s.a(f"/maps/p/{i}"), "lastmod": f"2024-02-{1 + i % 28:02d}T12:00:00+01:00"}
        for i in range(PLAIN_URLS)
    ]
    s.add("/maps/plain.xml.gz", gz_file(urlset(*plain)))


# -- rows back into records -----------------------------------------------------------------------


def row_to_entry(row: dict[str, Any]) -> Entry:
    """The Entry a row of the schema was made from (the inverse of the conversion)."""
    changefreq = row["changefreq"]
    return Entry(
        row["loc"],
        row["lastmod"],
        None if changefreq is None else ChangeFreq(changefreq),
        row["priority"],
        row["sitemap"],
        tuple(Image(**image) for image in row["images"]),
        tuple(Video(**{**video, "tags": tuple(video["tags"])}) for video in row["videos"]),
        tuple(News(**news) for news in row["news"]),
        tuple(Alternate(**alternate) for alternate in row["alternates"]),
    )


def instants(value: Any, key: str = "") -> Any:
    """A JSON object with its dates parsed, so that equal instants compare equal whatever the
    offset they were written with (Parquet keeps UTC, JSON lines the offset as read)."""
    if isinstance(value, dict):
        return {k: instants(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [instants(v) for v in value]
    if key in ("lastmod", "expiration_date", "publication_date") and value is not None:
        return datetime.fromisoformat(value)
    return value


def by_loc(rows: list[Any]) -> list[Any]:
    return sorted(rows, key=lambda r: r["loc"] if isinstance(r, dict) else r.loc)


# -- the schema and the conversion ----------------------------------------------------------------


def test_schema_columns_and_types() -> None:
    """The schema has the documented columns in order, UTC timestamps and nested extensions."""
    schema = entry_schema()

    assert schema.names == COLUMNS
    assert schema.field("lastmod").type == pa.timestamp("us", tz="UTC")
    assert schema.field("priority").type == pa.float64()
    assert not schema.field("loc").nullable and schema.field("source").nullable
    records = {"images": Image, "videos": Video, "news": News, "alternates": Alternate}
    for column, record in records.items():  # a field added to a record needs a column type
        struct = schema.field(column).type.value_type
        assert [f.name for f in struct] == [f.name for f in dataclasses.fields(record)]
    videos = schema.field("videos").type.value_type
    assert videos.field("publication_date").type == pa.timestamp("us", tz="UTC")
    assert videos.field("tags").type == pa.list_(pa.string())
    assert [f.name for f in schema.field("alternates").type.value_type] == [
        "hreflang",
        "href",
        "media",
    ]


@dataclasses.dataclass(frozen=True)
class _Grown:
    """A record as it would be with a field added: what the schema derivation is given."""

    loc: str
    caption: str | None = None
    width: int | None = None  # the new field


@dataclasses.dataclass(frozen=True)
class _Unmapped:
    loc: str
    size: complex = 0j  # a type the schema has no column for


def test_a_field_added_to_a_record_gets_its_column_or_stops_the_schema() -> None:
    """The struct fields come from the record's dataclass fields: a new field is a new
    column (its type from the map), and one of a type the map lacks is an error naming it,
    never a column silently missing."""
    grown = _table._struct_fields(pa, _Grown)
    assert [(f.name, f.type, f.nullable) for f in grown] == [
        ("loc", pa.string(), False),
        ("caption", pa.string(), True),
        ("width", pa.int64(), True),
    ]
    with pytest.raises(TypeError, match=r"_Unmapped\.size: complex has no Arrow type"):
        _table._struct_fields(pa, _Unmapped)
    entry_columns = [f.name for f in dataclasses.fields(Entry)]
    assert [n for n in entry_schema().names if n != "source"] == entry_columns


_text = st.text(max_size=12)
_maybe = st.none() | _text
_dates = st.none() | st.datetimes(
    min_value=datetime(1971, 1, 1), max_value=datetime(2100, 1, 1)
).map(lambda d: d.replace(tzinfo=timezone(timedelta(minutes=(d.minute % 9 - 4) * 45))))
_entries = st.builds(
    Entry,
    _text,
    _dates,
    st.none() | st.sampled_from(list(ChangeFreq)),
    st.none() | st.floats(allow_nan=False, allow_infinity=False),
    _text,
    st.lists(st.builds(Image, _text, _maybe, _maybe, _maybe, _maybe), max_size=2).map(tuple),
    st.lists(
        st.builds(
            Video,
            title=_maybe,
            duration=st.none() | st.integers(0, 2**40),
            expiration_date=_dates,
            rating=st.none() | st.floats(0, 5),
            family_friendly=st.none() | st.booleans(),
            tags=st.lists(_text, max_size=3).map(tuple),
        ),
        max_size=2,
    ).map(tuple),
    st.lists(st.builds(News, publication_name=_maybe, publication_date=_dates), max_size=1).map(
        tuple
    ),
    st.lists(st.builds(Alternate, _maybe, _text, _maybe), max_size=2).map(tuple),
)


@settings(max_examples=60)
@given(entries=st.lists(_entries, max_size=8), source=_maybe)
def test_table_rows_give_back_the_entries(entries: list[Entry], source: str | None) -> None:
    """Every field of every entry survives the conversion: rows rebuild equal entries (dates as
    the same instants), the source fills its column, and lastmod is stored in UTC."""
    table = entries_to_table(entries, source=source)

    assert table.schema == entry_schema()
    rows = table.to_pylist()
    assert [row_to_entry(row) for row in rows] == entries
    assert [row["source"] for row in rows] == [source] * len(entries)
    for row in rows:
        if row["lastmod"] is not None:
            assert row["lastmod"].utcoffset() == timedelta(0)


def test_repeated_values_convert_like_distinct_ones() -> None:
    """Columns where values repeat (converted once each) hold the same values as distinct ones."""
    zone = timezone(timedelta(hours=-3))
    days = [datetime(2024, 1, 1 + i % 3, 12, tzinfo=zone) for i in range(30)]
    entries = [
        Entry(f"https://e.example/{i}", days[i] if i % 4 else None, ChangeFreq.DAILY, 0.5, "s")
        for i in range(30)
    ]

    table = entries_to_table(entries)

    assert table.column("lastmod").to_pylist() == [e.lastmod for e in entries]
    assert table.column("changefreq").to_pylist() == ["daily"] * 30
    assert table.column("sitemap").to_pylist() == ["s"] * 30


def test_batches_are_bounded_and_lazy() -> None:
    """entries_to_batches yields batches of at most batch_size rows, pulling entries as it goes."""
    pulled = 0

    def entries() -> Iterator[Entry]:
        nonlocal pulled
        for i in range(10):
            pulled += 1
            yield Entry(f"https://e.example/{i}")

    batches = entries_to_batches(entries(), batch_size=4)
    first = next(batches)
    assert (first.num_rows, pulled) == (4, 4)
    assert [b.num_rows for b in batches] == [4, 2]
    with pytest.raises(ValueError, match="batch_size"):
        next(entries_to_batches([], batch_size=0))


def test_empty_frame_has_the_dtypes_of_a_full_one() -> None:
    """No entries give the empty frame with every column's dtype (a Dask frame's meta)."""
    empty = entries_to_dataframe([])
    full = entries_to_dataframe(
        [
            Entry(
                "https://e.example/",
                datetime(2024, 1, 1, tzinfo=timezone.utc),
                images=(Image("i"),),
            )
        ],
        source="https://e.example/",
    )

    assert list(empty.columns) == COLUMNS and len(empty) == 0
    assert empty.dtypes.equals(full.dtypes)
    assert all(isinstance(dtype, pd.ArrowDtype) for dtype in full.dtypes)
    assert full["lastmod"].iloc[0] == pd.Timestamp("2024-01-01T00:00:00Z")
    assert full["priority"].isna().iloc[0]  # a missing priority is NA, not 0.5
    assert full["images"].iloc[0][0]["loc"] == "i"


# -- the Parquet sink -------------------------------------------------------------------------------


def test_sink_writes_row_groups_of_bounded_size_with_each_writes_source(tmp_path: Path) -> None:
    """Rows reach the file in row groups of row_group_size, each keeping its write()'s source."""
    entries = [Entry(f"https://e.example/{i}") for i in range(10)]
    path = tmp_path / "out.parquet"

    with ParquetSink(path, row_group_size=3) as sink:
        sink.write(entries[:2], source="a")
        sink.write(iter(entries[2:9]), source="b")
        sink.write([])
        sink.write(entries[9:])
        assert sink.rows == 9  # three full groups written; one row waits for close()

    meta = pq.ParquetFile(path).metadata
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [3, 3, 3, 1]
    table = pq.read_table(path)
    assert table.column("loc").to_pylist() == [e.loc for e in entries]
    assert table.column("source").to_pylist() == ["a"] * 2 + ["b"] * 7 + [None]


def test_sink_writes_a_path_whole_or_not_at_all(tmp_path: Path) -> None:
    """An error inside the with block leaves the old file as it was and no temporary file."""
    path = tmp_path / "out.parquet"
    path.write_bytes(b"the previous run")

    with pytest.raises(KeyError), ParquetSink(path, row_group_size=2) as sink:
        sink.write(Entry(f"https://e.example/{i}") for i in range(5))  # two groups written
        raise KeyError("stop")

    assert path.read_bytes() == b"the previous run"
    assert os.listdir(tmp_path) == ["out.parquet"]
    with pytest.raises(ValueError, match="closed"):
        sink.write([Entry("https://e.example/")])


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads RSS from /proc")
def test_a_million_rows_are_written_in_flat_memory(tmp_path: Path) -> None:
    """Writing 1,000,000 entries from a generator grows RSS by tens of MB at most, where holding
    them would take about 280 MB (and their Arrow table about 140 MB)."""
    rows = 1_000_000
    zone = timezone(timedelta(hours=2))
    days = [datetime(2024, 1, 1, tzinfo=zone) + timedelta(days=i) for i in range(365)]
    sitemap = "https://example.com/sitemap-1.xml"
    samples: list[int] = []

    def entries(n: int) -> Iterator[Entry]:
        for i in range(n):
            if i % 16_384 == 0:
                samples.append(_rss())
            images = (Image(f"https://example.com/i/{i}.jpg"),) if i % 10 == 0 else ()
            loc = f"https://example.com/products/{i}"
            yield Entry(loc, days[i % 365], ChangeFreq.WEEKLY, 0.5, sitemap, images)

    with ParquetSink(tmp_path / "warm.parquet") as sink:  # Arrow's pools and caches, once
        sink.write(entries(70_000))
    samples.clear()
    baseline = _rss()

    with ParquetSink(tmp_path / "big.parquet") as sink:
        sink.write(entries(rows), source="https://example.com/")
    samples.append(_rss())

    growth = max(samples) - baseline
    assert growth < 64e6, f"RSS grew by {growth / 1e6:.0f} MB while writing"
    meta = pq.ParquetFile(tmp_path / "big.parquet").metadata
    assert meta.num_rows == rows
    assert meta.num_row_groups == 16  # 65,536 rows each, the last one 16,960
    locs = pq.read_table(tmp_path / "big.parquet", columns=["loc"]).column("loc")
    assert locs[rows - 1].as_py() == f"https://example.com/products/{rows - 1}"


# -- the command line -------------------------------------------------------------------------------


async def cli(*argv: str) -> int:
    """``main(argv)`` on a worker thread, so the test's loop keeps serving meanwhile."""
    return await asyncio.to_thread(main, list(argv))


async def test_parquet_equals_jsonl_for_the_same_site(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """dump --format parquet and dump --format jsonl of one site hold the same rows with the
    same values (dates as the same instants), and the source column names the site."""
    s = await serve(aiohttp_server)
    build_site(s)
    jsonl, parquet = tmp_path / "out.jsonl", tmp_path / "out.parquet"

    assert await cli("dump", s.a("/"), "-q", "-o", str(jsonl)) == 0
    assert await cli("dump", s.a("/"), "-q", "--format", "parquet", "-o", str(parquet)) == 0

    lines = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    rows = pq.read_table(parquet).to_pylist()
    assert len(rows) == len(lines) == RICH_URLS + PLAIN_URLS
    from_parquet = [instants(entry_to_dict(row_to_entry(row))) for row in rows]
    assert by_loc(from_parquet) == by_loc([instants(line) for line in lines])
    assert {row["source"] for row in rows} == {s.a("/")}
    # the extensions came through, not only empty lists
    assert sum(len(row["videos"]) for row in rows) == RICH_URLS // 5
    assert any(row["alternates"] and row["alternates"][1]["media"] for row in rows)


def test_parquet_source_column_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each row's source is the SOURCE it descends from (a local file by its absolute path,
    as the walk names it), for one SOURCE or several."""
    one, two = tmp_path / "one.xml", tmp_path / "two.xml"
    one.write_text(urlset("https://e.invalid/1", "https://e.invalid/2"), encoding="utf-8")
    two.write_text(urlset("https://e.invalid/3"), encoding="utf-8")
    out = tmp_path / "out.parquet"
    monkeypatch.chdir(tmp_path)

    assert main(["dump", "--format", "parquet", "-o", "out.parquet", "one.xml"]) == 0
    assert pq.read_table(out).column("source").to_pylist() == [str(one)] * 2
    assert main(["dump", "--format", "parquet", "-o", str(out), str(one), str(two)]) == 0
    table = pq.read_table(out)
    assert sorted(table.column("loc").to_pylist()) == [f"https://e.invalid/{i}" for i in (1, 2, 3)]
    sources = {row["loc"]: row["source"] for row in table.to_pylist()}
    assert sources == {
        "https://e.invalid/1": str(one),
        "https://e.invalid/2": str(one),
        "https://e.invalid/3": str(two),
    }
    assert "3 URLs from 2 sitemaps" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--format", "parquet"], "--format parquet writes a file: give it with -o FILE"),
        (
            ["--format", "parquet", "-o", "x.parquet", "--state=x.sqlite", "--changes"],
            "--changes writes jsonl, csv or txt, not parquet",
        ),
    ],
)
def test_parquet_usage_errors(
    argv: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Parquet without -o FILE, or with the change feed, is a usage error (exit 2), no file."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["dump", "x.xml", *argv])

    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert os.listdir(tmp_path) == []


# -- without the extras -----------------------------------------------------------------------------


@pytest.mark.parametrize("module", ["pyarrow", "pandas"])
def test_a_missing_extra_is_named(module: str, tmp_path: Path) -> None:
    """Without pyarrow (or pandas) the package still imports, and using the output that needs
    it raises ImportError naming the extra to install; the CLI says so with exit status 2."""
    script = textwrap.dedent(f"""
        import importlib.abc, sys

        class NotInstalled(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name.partition(".")[0] == {module!r}:
                    raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)

        sys.meta_path.insert(0, NotInstalled())
        import sitemap_reader
        from sitemap_reader._cli import main
        sitemap_reader.ParquetSink, sitemap_reader.read_dataframe_sync  # lazy names resolve
        entries = [sitemap_reader.Entry("https://e.invalid/")]
        for name in ("entries_to_table", "entries_to_dataframe"):
            try:
                getattr(sitemap_reader, name)(entries)
                print(name, "worked")
            except ImportError as exc:
                print(name, "failed:", exc)
        try:
            main(["dump", "--format", "parquet", "-o", "out.parquet", "x.xml"])
        except SystemExit as exc:
            print("cli:", exc.code)
    """)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    missing = f"{module} is needed for Parquet, Arrow and pandas output and is not installed"
    frames = "pip install 'sitemap-reader[pandas]'"
    assert f"entries_to_dataframe failed: {missing}: {frames}\n" in done.stdout
    if module == "pyarrow":
        parquet = "pip install 'sitemap-reader[parquet]'"
        assert f"entries_to_table failed: {missing}: {parquet}\n" in done.stdout
        assert "cli: 2" in done.stdout
        assert f"sitemap-reader dump: error: {missing}: {parquet}" in done.stderr
        assert not (tmp_path / "out.parquet").exists()
    else:  # Arrow and Parquet need pyarrow only
        assert "entries_to_table worked" in done.stdout
        assert "cli: 2" not in done.stdout


# -- DataFrames of a site ---------------------------------------------------------------------------


async def test_read_dataframe_of_two_sources(aiohttp_server: AiohttpServer) -> None:
    """read_dataframe returns every entry of each source as typed columns, source by source:
    the rows rebuild the entries a walk yields, and a sitemap both sources reach counts twice."""
    s = await serve(aiohttp_server)
    build_site(s)
    root, rich = s.a("/"), s.a("/maps/rich.xml")

    frame = await read_dataframe(root, rich, config=FAST)

    assert list(frame.columns) == COLUMNS
    assert frame.dtypes.equals(entries_to_dataframe([]).dtypes)
    assert frame["source"].value_counts().to_dict() == {
        root: RICH_URLS + PLAIN_URLS,
        rich: RICH_URLS,
    }
    rows = pa.Table.from_pandas(frame, preserve_index=False).to_pylist()
    for source in (root, rich):
        expected = (await walk(source)).entries
        got = [row_to_entry(row) for row in rows if row["source"] == source]
        assert by_loc(got) == by_loc(expected)
    assert str(frame["lastmod"].dtype) == "timestamp[us, tz=UTC][pyarrow]"


def test_read_dataframe_sync(tmp_path: Path) -> None:
    """The blocking twin reads a served sitemap, inside a running loop (a notebook) too:
    there the read runs on a thread and loop of its own, and gives the same frame."""

    async def cell() -> Any:  # a pandas DataFrame
        return read_dataframe_sync(s.a("/s.xml"), config=FAST)

    with ThreadedServer() as s:
        s.add("/s.xml", xml(urlset(s.a("/a"), {"loc": s.a("/b"), "priority": "0.3"})))
        frame = read_dataframe_sync(s.a("/s.xml"), config=FAST)
        from_a_loop = asyncio.run(cell())

    assert frame["loc"].tolist() == [s.a("/a"), s.a("/b")]
    assert frame["priority"].isna().tolist() == [True, False]
    assert frame["priority"].iloc[1] == 0.3
    assert set(frame["sitemap"]) == {s.a("/s.xml")}
    pd.testing.assert_frame_equal(from_a_loop, frame)
