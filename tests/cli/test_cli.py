"""The command line end to end: ``sitemap_reader._cli.main`` in-process and ``python -m``.

Local files are written into tmp_path; their page URLs use the reserved ``.invalid`` domain
and any sitemap they name is on a server these tests start on 127.0.0.1.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader._cli import main
from tests.support.cli import cli, jsonl, run_cli, stderr_lines
from tests.support.http_site import (
    Served,
    ThreadedServer,
    html,
    redirect,
    serve,
    sitemapindex,
    status,
    text,
    urlset,
    xml,
)

SCALARS = ["loc", "lastmod", "changefreq", "priority", "sitemap"]
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"

RICH = f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="{IMAGE_NS}" xmlns:xhtml="{XHTML_NS}" xmlns:news="{NEWS_NS}">
  <url>
    <loc>https://shop.example.invalid/a?x=1&amp;y=2</loc>
    <lastmod>2024-05-01T10:00:00+02:00</lastmod>
    <changefreq>weekly</changefreq>
    <priority>0.8</priority>
    <image:image><image:loc>https://shop.example.invalid/a.jpg</image:loc></image:image>
    <xhtml:link rel="alternate" hreflang="de" href="https://shop.example.invalid/de/a"/>
  </url>
  <url><loc>https://shop.example.invalid/b</loc><lastmod>2023-01-02</lastmod></url>
  <url><loc>https://shop.example.invalid/caf\u00e9</loc></url>
  <url>
    <loc>https://shop.example.invalid/news/1</loc>
    <news:news>
      <news:publication><news:name>The Paper</news:name><news:language>en</news:language>
      </news:publication>
      <news:publication_date>2024-06-01</news:publication_date>
      <news:title>Hello</news:title>
    </news:news>
  </url>
</urlset>
"""
LOCS = [
    "https://shop.example.invalid/a?x=1&y=2",
    "https://shop.example.invalid/b",
    "https://shop.example.invalid/caf\u00e9",
    "https://shop.example.invalid/news/1",
]


@pytest.fixture
def rich(tmp_path: Path) -> Path:
    path = tmp_path / "sitemap.xml"
    path.write_text(RICH, encoding="utf-8")
    return path


# -- output formats -------------------------------------------------------------------------------


def test_dump_jsonl(rich: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """jsonl: one object a line with the scalar keys in order, extensions only when present."""
    code = main(["dump", str(rich)])

    out, err = capsys.readouterr()
    assert code == 0
    records = jsonl(out)
    assert [r["loc"] for r in records] == LOCS
    assert all(list(r)[:5] == SCALARS for r in records)
    sitemap = str(rich.resolve())
    assert records[0] == {
        "loc": LOCS[0],
        "lastmod": "2024-05-01T10:00:00+02:00",
        "changefreq": "weekly",
        "priority": 0.8,
        "sitemap": sitemap,
        "images": [{"loc": "https://shop.example.invalid/a.jpg"}],
        "alternates": [{"hreflang": "de", "href": "https://shop.example.invalid/de/a"}],
    }
    assert records[1] == {
        "loc": LOCS[1],
        "lastmod": "2023-01-02T00:00:00+00:00",
        "changefreq": None,
        "priority": None,
        "sitemap": sitemap,
    }
    assert list(records[2]) == SCALARS
    assert records[2]["lastmod"] is None
    assert list(records[3]) == [*SCALARS, "news"]
    assert records[3]["news"] == [
        {
            "publication_name": "The Paper",
            "publication_language": "en",
            "publication_date": "2024-06-01T00:00:00+00:00",
            "title": "Hello",
        }
    ]
    assert "caf\u00e9" in out  # UTF-8 as it is, not \u-escaped
    assert err.endswith(" s\n") and "4 URLs from 1 sitemap," in err


def test_dump_txt(rich: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """txt: one loc a line, nothing else."""
    assert main(["dump", "--format", "txt", str(rich)]) == 0

    out, _ = capsys.readouterr()
    assert out == "".join(loc + "\n" for loc in LOCS)


def test_dump_csv(rich: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """csv: a header row of the scalar columns, then one row per entry (empty when absent)."""
    assert main(["dump", "--format", "csv", str(rich)]) == 0

    out, _ = capsys.readouterr()
    rows = list(csv.reader(io.StringIO(out)))
    sitemap = str(rich.resolve())
    assert rows == [
        SCALARS,
        [LOCS[0], "2024-05-01T10:00:00+02:00", "weekly", "0.8", sitemap],
        [LOCS[1], "2023-01-02T00:00:00+00:00", "", "", sitemap],
        [LOCS[2], "", "", "", sitemap],
        [LOCS[3], "", "", "", sitemap],
    ]


def test_dump_csv_with_no_entries_still_has_its_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty text sitemap gives a csv with the header row alone."""
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    main(["dump", "--format", "csv", str(empty)])

    out, _ = capsys.readouterr()
    assert out == ",".join(SCALARS) + "\n"


def test_output_file(rich: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``-o FILE`` writes the records there, leaves stdout empty and no temporary file behind."""
    target = tmp_path / "out" / "urls.txt"
    target.parent.mkdir()

    assert main(["dump", "--format", "txt", "-o", str(target), str(rich)]) == 0

    out, err = capsys.readouterr()
    assert out == ""
    assert target.read_text(encoding="utf-8") == "".join(loc + "\n" for loc in LOCS)
    assert os.listdir(target.parent) == ["urls.txt"]
    assert "4 URLs" in err


def test_output_to_a_fifo_writes_into_it(rich: Path, tmp_path: Path) -> None:
    """``-o`` naming a FIFO (as /dev/null names a device) writes through it and leaves it
    a FIFO: a temporary file renamed over it would replace it (and /dev/null with it)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []

    def drain() -> None:
        with open(fifo, encoding="utf-8") as reader:
            got.append(reader.read())

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    assert main(["dump", "--format", "txt", "-o", str(fifo), str(rich)]) == 0
    thread.join(timeout=30)
    assert got == ["".join(loc + "\n" for loc in LOCS)]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["pipe", "sitemap.xml"]  # no temporary file


def test_parquet_to_a_fifo_is_refused_and_leaves_it(
    rich: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Parquet cannot go through a FIFO (its writer seeks): a clear error naming it, exit 2,
    and the FIFO left a FIFO, never replaced by a file."""
    pytest.importorskip("pyarrow")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def drain() -> None:
        with open(fifo, "rb") as reader:
            got.append(reader.read())

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    assert main(["dump", "--format", "parquet", "-o", str(fifo), str(rich)]) == 2
    thread.join(timeout=30)
    assert f"cannot write -o {fifo}" in capsys.readouterr().err
    assert got == [b""]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["pipe", "sitemap.xml"]  # no temporary file


def test_since_keeps_newer_and_undated_entries(
    rich: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--since`` drops entries whose lastmod is earlier and keeps those without one."""
    assert main(["dump", "--format", "txt", "--since", "2024-01-01", str(rich)]) == 0

    out, _ = capsys.readouterr()
    assert out.splitlines() == [LOCS[0], LOCS[2], LOCS[3]]


def test_gzipped_local_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A local .gz sitemap is inflated by its magic bytes."""
    path = tmp_path / "sitemap.xml.gz"
    path.write_bytes(gzip.compress(RICH.encode("utf-8"), mtime=0))

    assert main(["dump", "--format", "txt", str(path)]) == 0

    assert capsys.readouterr().out.splitlines() == LOCS


# -- stdout and stderr -------------------------------------------------------------------------


def test_stdout_carries_records_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Problems and the summary go to stderr, naming the document; stdout stays pure jsonl."""
    path = tmp_path / "sitemap.xml"
    path.write_text(
        urlset(
            {"loc": "https://x.example.invalid/ok", "lastmod": "not a date"},
            "relative/page",
            "https://x.example.invalid/also-ok",
        )
    )

    assert main(["dump", str(path)]) == 0

    out, err = capsys.readouterr()
    assert [r["loc"] for r in jsonl(out)] == [
        "https://x.example.invalid/ok",
        "https://x.example.invalid/also-ok",
    ]
    lines = stderr_lines(err)
    problems = [line for line in lines if line.endswith("]")]
    assert {line.rsplit("[", 1)[1] for line in problems} == {"invalid-lastmod]", "relative-loc]"}
    assert all(line.startswith(f"sitemap-reader: {path.resolve()}: ") for line in problems)
    assert lines[-1].startswith("sitemap-reader: 2 URLs from 1 sitemap, 2 problems")


def test_quiet_silences_stderr(rich: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--quiet`` prints no problems and no summary."""
    assert main(["dump", "--quiet", str(tmp_missing(rich)), str(rich)]) == 0

    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 4
    assert err == ""


def tmp_missing(near: Path) -> Path:
    return near.parent / "does-not-exist.xml"


def test_missing_file_exits_1_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A source file that does not exist: exit 1, nothing on stdout, stderr names the path."""
    missing = tmp_path / "nope.xml"

    assert main(["dump", str(missing)]) == 1

    out, err = capsys.readouterr()
    assert out == ""
    assert f"sitemap-reader: {missing}: cannot read the file: No such file or directory" in err


def test_one_readable_source_is_enough_for_exit_0(
    rich: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With one source read and another missing, the exit status is 0 and both are accounted."""
    missing = tmp_missing(rich)

    assert main(["dump", "--format", "txt", str(missing), str(rich)]) == 0

    out, err = capsys.readouterr()
    assert out.splitlines() == LOCS
    assert str(missing) in err


# -- usage errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["dump"],
        ["dump", "--format", "xml", "x.xml"],
        ["dump", "--max-depth", "-1", "x.xml"],
        ["dump", "--concurrency", "0", "x.xml"],
        ["dump", "--since", "yesterday", "x.xml"],
        ["dump", "--scope", "everything", "x.xml"],
        ["dump", "--workers", "-1", "x.xml"],
        ["dump", "--workers", "many", "x.xml"],
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """A usage error exits with status 2 and a message on stderr, nothing on stdout."""
    with pytest.raises(SystemExit) as exc:
        main(argv)

    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "usage: sitemap-reader" in err


def test_no_command_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """No command at all prints the help on stderr and returns 2."""
    assert main([]) == 2

    out, err = capsys.readouterr()
    assert out == "" and "usage: sitemap-reader" in err


def test_usage_error_exit_status_from_a_subprocess() -> None:
    """``python -m sitemap_reader dump`` without a source exits with status 2."""
    done = run_cli("dump")

    assert done.returncode == 2
    assert done.stdout == b""
    assert b"required: SOURCE" in done.stderr


# -- stdin ---------------------------------------------------------------------------------------


def test_stdin_source() -> None:
    """``-`` reads a sitemap from stdin; its entries name ``-`` as their sitemap."""
    done = run_cli("dump", "-", stdin=RICH.encode("utf-8"))

    assert done.returncode == 0, done.stderr
    records = jsonl(done.stdout.decode("utf-8"))
    assert [r["loc"] for r in records] == LOCS
    assert {r["sitemap"] for r in records} == {"-"}
    assert b"4 URLs from 1 sitemap," in done.stderr


def test_stdin_text_sitemap_as_txt() -> None:
    """A plain-text sitemap on stdin comes out as txt, line for line."""
    lines = ["https://t.example.invalid/1", "https://t.example.invalid/2"]
    done = run_cli("dump", "--format", "txt", "-", stdin="\r\n".join(lines).encode())

    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().splitlines() == lines


# -- URL sources against a local server -----------------------------------------------------------


def shop(s: Served) -> None:
    """robots.txt -> index -> two urlsets and one missing child."""
    s.add("/robots.txt", text(f"User-agent: *\nSitemap: {s.a('/maps/index.xml')}\n"))
    s.add(
        "/maps/index.xml",
        xml(
            sitemapindex(
                (s.a("/maps/a.xml"), "2024-05-01"), s.a("/maps/gone.xml"), s.a("/maps/b.xml")
            )
        ),
    )
    s.add("/maps/a.xml", xml(urlset(s.a("/a/1"), s.a("/a/2"))))
    s.add("/maps/b.xml", xml(urlset(s.a("/b/1"))))


async def test_dump_site_root_with_a_failing_child(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A site root is read through robots.txt; a failing child is reported and the exit is 0."""
    s = await serve(aiohttp_server)
    shop(s)

    code = await cli("dump", "--format", "txt", s.a("/"))

    out, err = capsys.readouterr()
    assert code == 0
    assert sorted(out.splitlines()) == [s.a("/a/1"), s.a("/a/2"), s.a("/b/1")]
    assert f"sitemap-reader: {s.a('/maps/gone.xml')}: HTTP 404 Not Found [http-status]" in err
    summary = stderr_lines(err)[-1]
    assert summary.startswith("sitemap-reader: 3 URLs from 3 sitemaps, 1 failed, 1 problem,")


async def test_dump_url_that_cannot_be_read_exits_1(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A single URL source that fails: exit 1, stderr names the URL and the cause."""
    s = await serve(aiohttp_server)
    s.add("/soft.xml", html())

    assert await cli("dump", s.a("/missing.xml")) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert f"{s.a('/missing.xml')}: HTTP 404 Not Found" in err

    assert await cli("dump", s.a("/soft.xml")) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert f"{s.a('/soft.xml')}: an HTML page, not a sitemap" in err


async def test_site_without_sitemaps_exits_1(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A site whose robots.txt and well-known paths give nothing: exit 1 with a no-sitemap line."""
    s = await serve(aiohttp_server)

    assert await cli("dump", s.a("/")) == 1
    _, err = capsys.readouterr()
    assert f"sitemap-reader: http://127.0.0.1:{s.port}: robots.txt names no sitemap" in err


async def test_no_probe_flag(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--no-probe`` leaves the well-known paths alone."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", xml(urlset(s.a("/p"))))

    assert await cli("dump", "--no-probe", s.a("/")) == 1
    assert s.site.paths() == ["/robots.txt"]
    assert await cli("dump", "--format", "txt", s.a("/")) == 0
    assert capsys.readouterr().out == s.a("/p") + "\n"


@pytest.mark.parametrize(
    ("scope", "kept"),
    [
        ("strict", ["/catalog/in"]),
        ("host", ["/catalog/in", "/elsewhere"]),
        ("off", ["/catalog/in", "/elsewhere", "B/catalog/other-host"]),
    ],
)
async def test_scope_flag(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str], scope: str, kept: list[str]
) -> None:
    """``--scope strict|host|off`` widens what a sitemap given directly may list."""
    s = await serve(aiohttp_server)
    s.add(
        "/catalog/s.xml",
        xml(urlset(s.a("/catalog/in"), s.a("/elsewhere"), s.b("/catalog/other-host"))),
    )

    assert await cli("dump", "--format", "txt", "--scope", scope, s.a("/catalog/s.xml")) == 0

    out, err = capsys.readouterr()
    expected = [s.b(k[1:]) if k.startswith("B/") else s.a(k) for k in kept]
    assert out.splitlines() == expected
    dropped = 3 - len(kept)
    said = "1 URL dropped" if dropped == 1 else f"{dropped} URLs dropped"
    assert (f"{said} as out of scope" in err) == bool(dropped)


async def test_max_depth_flag(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--max-depth 0`` reads an index without its children, and says so."""
    s = await serve(aiohttp_server)
    shop(s)

    assert await cli("dump", "--max-depth", "0", s.a("/maps/index.xml")) == 0

    out, err = capsys.readouterr()
    assert out == ""
    assert s.count("/maps/a.xml") == 0
    assert f"{s.a('/maps/a.xml')}: not read: nested deeper than 0 indexes" in err


async def test_user_agent_flag(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--user-agent`` is the User-Agent header of every request."""
    s = await serve(aiohttp_server)
    agents: list[str] = []

    async def record(request: web.Request) -> web.StreamResponse:
        agents.append(request.headers.get("User-Agent", ""))
        return await xml(urlset(s.a("/p")))(request)

    s.add("/s.xml", record)

    assert await cli("dump", "--user-agent", "test-bot/1.0", s.a("/s.xml")) == 0
    assert agents == ["test-bot/1.0"]


async def test_tree(aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]) -> None:
    """``tree`` prints the hierarchy with formats, counts, lastmod, statuses and problems."""
    s = await serve(aiohttp_server)
    shop(s)
    s.add("/maps/b.xml", redirect("/maps/b2.xml"))
    s.add("/maps/b2.xml", xml(urlset(s.a("/b/1"), s.b("/b"))))

    assert await cli("tree", "--concurrency", "1", s.a("/")) == 0

    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"{s.a('/robots.txt')}  robots  1 sitemap  [ok]",
        f"└── {s.a('/maps/index.xml')}  sitemapindex  3 sitemaps  [ok]",
        f"    ├── {s.a('/maps/a.xml')}  urlset  2 URLs  lastmod 2024-05-01  [ok]",
        f"    ├── {s.a('/maps/gone.xml')}  [failed]",
        "    │     ! http-status: HTTP 404 Not Found",
        (
            f"    └── {s.a('/maps/b.xml')}  -> {s.a('/maps/b2.xml')}  urlset  1 URL"
            "  1 dropped (1 other-host)  [ok]"
        ),
    ]
    assert "1 failed" in err


async def test_tree_with_no_source_read_exits_1(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tree`` of a sitemap that fails exits 1 and still prints its line."""
    s = await serve(aiohttp_server)
    s.add("/s.xml", status(410))

    assert await cli("tree", s.a("/s.xml")) == 1

    out, _ = capsys.readouterr()
    assert out.splitlines() == [f"{s.a('/s.xml')}  [failed]", "  ! http-status: HTTP 410 Gone"]


@pytest.fixture
def threaded_shop() -> Iterator[Served]:
    with ThreadedServer() as served:
        shop(served)
        yield served


def test_dump_url_in_a_subprocess(threaded_shop: Served, tmp_path: Path) -> None:
    """``python -m sitemap_reader dump`` against a local server: records on stdout (or in
    ``-o``), problems and summary on stderr, exit 0."""
    s = threaded_shop
    target = tmp_path / "out.jsonl"

    done = run_cli("dump", "--no-progress", s.a("/"))
    to_file = run_cli("dump", "-o", str(target), s.a("/robots.txt"))

    assert done.returncode == 0, done.stderr
    records = jsonl(done.stdout.decode())
    assert sorted(r["loc"] for r in records) == [s.a("/a/1"), s.a("/a/2"), s.a("/b/1")]  # type: ignore[type-var]
    assert {r["sitemap"] for r in records} == {s.a("/maps/a.xml"), s.a("/maps/b.xml")}
    err = done.stderr.decode()
    assert f"{s.a('/maps/gone.xml')}: HTTP 404 Not Found [http-status]" in err
    assert to_file.returncode == 0 and to_file.stdout == b""
    assert sorted(target.read_text().splitlines()) == sorted(done.stdout.decode().splitlines())


def test_local_index_naming_local_server_children(threaded_shop: Served, tmp_path: Path) -> None:
    """A local index file's 127.0.0.1 children are fetched and scoped like any remote sitemap."""
    s = threaded_shop
    index = tmp_path / "index.xml"
    index.write_text(sitemapindex(s.a("/local/c.xml"), s.a("/local/d.xml")))
    s.add("/local/c.xml", xml(urlset(s.a("/local/1"), s.a("/outside/1"))))
    s.add("/local/d.xml", text(s.a("/local/2") + "\n"))

    # A local file names no host to trust: 127.0.0.1 is a private address to the guard.
    done = run_cli("dump", "--format", "txt", "--allow-private", str(index))

    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.decode().splitlines()) == [s.a("/local/1"), s.a("/local/2")]
    assert b"1 URL dropped as out of scope (1 outside-folder)" in done.stderr
