"""``sitemap-reader dump --sites FILE``: many sites, one a line, read in one run.

Each site has a server (a port) of its own on 127.0.0.1, so each has its own robots.txt.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from aiohttp import web

from sitemap_reader._cli import main
from tests.support.http_site import (
    Handler,
    Served,
    ThreadedServer,
    closed_port,
    sitemapindex,
    text,
    urlset,
    xml,
)

SITES = 3


def _site(s: Served, n: int) -> None:
    s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
    s.add("/index.xml", xml(sitemapindex(s.a("/a.xml"), s.a("/b.xml"))))
    s.add("/a.xml", xml(urlset(*(s.a(f"/{n}/a/{i}") for i in range(5)))))
    s.add("/b.xml", xml(urlset(*(s.a(f"/{n}/b/{i}") for i in range(3)))))


@pytest.fixture(scope="module")
def sites() -> Iterator[list[Served]]:
    with ExitStack() as stack:
        served = [stack.enter_context(ThreadedServer()) for _ in range(SITES)]
        for n, s in enumerate(served):
            _site(s, n)
        yield served


def _locs(served: list[Served]) -> list[str]:
    return sorted(
        s.a(f"/{n}/{d}/{i}")
        for n, s in enumerate(served)
        for d, k in (("a", 5), ("b", 3))
        for i in range(k)
    )


def _sites_file(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "sites.txt"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


def test_sites_file_reads_every_site_in_one_run(
    sites: list[Served], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every site of the file is read (comments and blank lines skipped) together with a
    SOURCE given on the command line; a failing site is reported and the exit is 0."""
    dead = f"http://127.0.0.1:{closed_port()}/"
    listed = _sites_file(
        tmp_path, "# sites to read", sites[1].a("/"), "", f"  {sites[2].a('/')}  ", dead
    )

    code = main(["dump", "--format", "txt", sites[0].a("/"), "--sites", listed])

    out, err = capsys.readouterr()
    assert code == 0
    assert sorted(out.splitlines()) == _locs(sites)
    assert f"{dead}robots.txt" in err and "[robots-unavailable]" in err
    assert "# sites" not in err  # the comment was no source
    assert err.splitlines()[-1].startswith(
        f"sitemap-reader: {SITES * 8} URLs from {SITES * 3} sitemaps"
    )


def test_sites_file_with_every_format(
    sites: list[Served], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """jsonl, csv, txt and parquet all carry the same URLs of the listed sites."""
    listed = _sites_file(tmp_path, *(s.a("/") for s in sites))
    got: dict[str, list[str]] = {}
    for fmt in ("jsonl", "csv", "txt", "parquet"):
        target = tmp_path / f"out.{fmt}"
        code = main(["dump", "--sites", listed, "--format", fmt, "-o", str(target), "-q"])
        assert code == 0, capsys.readouterr().err
        if fmt == "jsonl":
            got[fmt] = [json.loads(line)["loc"] for line in target.read_text().splitlines()]
        elif fmt == "csv":
            got[fmt] = [row["loc"] for row in csv.DictReader(io.StringIO(target.read_text()))]
        elif fmt == "txt":
            got[fmt] = target.read_text().splitlines()
        else:
            pq = pytest.importorskip("pyarrow.parquet")
            got[fmt] = pq.read_table(target).column("loc").to_pylist()
    assert {fmt: sorted(locs) for fmt, locs in got.items()} == dict.fromkeys(got, _locs(sites))


def _counting(handler: Handler, flight: dict[str, int]) -> Handler:
    """``handler`` after a short wait, counting requests in flight and their peak."""

    async def handle(request: web.Request) -> web.StreamResponse:
        flight["now"] += 1
        flight["peak"] = max(flight["peak"], flight["now"])
        try:
            await asyncio.sleep(0.15)
            return await handler(request)
        finally:
            flight["now"] -= 1

    return handle


def test_sites_on_one_host_share_its_per_host_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Sites listed on one host are read with the per-host limit of one run: never more
    requests in flight to it than --per-host, though there is work for more."""
    flight = {"now": 0, "peak": 0}
    with ThreadedServer() as s:
        for i in range(6):
            s.add(f"/s{i}.xml", _counting(xml(urlset(s.a(f"/page/{i}"))), flight))
        listed = _sites_file(tmp_path, *(s.a(f"/s{i}.xml") for i in range(6)))

        code = main(["dump", "--format", "txt", "--per-host", "2", "--sites", listed])

    out, _ = capsys.readouterr()
    assert code == 0
    assert sorted(out.splitlines()) == sorted(s.a(f"/page/{i}") for i in range(6))
    assert flight["peak"] == 2


def test_sites_from_stdin_in_a_subprocess(sites: list[Served]) -> None:
    """``--sites -`` reads the list from stdin."""
    listed = "".join(f"{s.a('/')}\n" for s in sites)
    done = subprocess.run(
        [sys.executable, "-m", "sitemap_reader", "dump", "--format", "txt", "--sites", "-"],
        input=listed.encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.decode().splitlines()) == _locs(sites)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["dump"], "required: SOURCE (or --sites FILE)"),
        (["dump", "--sites", "{empty}"], "required: SOURCE (or --sites FILE)"),
        (["dump", "--sites", "{missing}"], "cannot read the --sites file"),
        (["dump", "-", "--sites", "-"], "stdin is read once"),
    ],
)
def test_sites_usage_errors_exit_2(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No source at all, a list with none, or a file that cannot be read: exit 2, said why."""
    empty = _sites_file(tmp_path, "# nothing yet", "")
    paths = {"empty": empty, "missing": str(tmp_path / "missing.txt")}
    with pytest.raises(SystemExit) as exit:
        main([arg.format(**paths) for arg in argv])
    assert exit.value.code == 2
    assert message in capsys.readouterr().err


def test_a_missing_sites_file_is_said_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cause as a person reads it, not an OSError's repr ("[Errno 2] ...: 'x'")."""
    missing = str(tmp_path / "missing.txt")
    with pytest.raises(SystemExit):
        main(["tree", "--sites", missing])
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.endswith(f"cannot read the --sites file {missing}: No such file or directory")
