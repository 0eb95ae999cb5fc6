"""Entries kept from malformed input, as a user of ``dump`` meets them: an index whose
``<sitemap>`` holds two ``<loc>``, one left unclosed, one cut by the end of the file, and a
robots.txt whose ``Sitemap:`` line is not UTF-8. Every sitemap they name is read (on a
server on 127.0.0.1), and each repair is said in one line on stderr, on both cores."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_aiohttp.plugin import AiohttpServer

from tests.support.cli import cli, run_cli, stderr_lines
from tests.support.http_site import SITEMAP_NS, ThreadedServer, serve, text, urlset, xml

CORES = {"compiled": {"SITEMAP_READER_PURE": "0"}, "pure": {"SITEMAP_READER_PURE": "1"}}


def _index(children: list[str]) -> str:
    """An index of five children: one <sitemap> with two <loc>, one left open, and the file
    cut inside the last one."""
    s1, s2, s3, s4, s5 = children
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<sitemapindex xmlns="{SITEMAP_NS}">\n'
        f"  <sitemap><loc>{s1}</loc><loc>{s2}</loc></sitemap>\n"
        f"  <sitemap><loc>{s3}</loc>\n"
        f"  <sitemap><loc>{s4}</loc></sitemap>\n"
        f"  <sitemap><loc>{s5}</loc><lastmod>2024-0"
    )


@pytest.mark.parametrize("core", sorted(CORES))
def test_dump_reads_every_child_a_malformed_index_names(tmp_path: Path, core: str) -> None:
    """Each child of the malformed index is read (its URL printed), and each repair is a
    problem line with its kind, count and place; the cut is the index's last word."""
    with ThreadedServer() as s:
        children = [s.a(f"/s{i}.xml") for i in range(1, 6)]
        for i in range(1, 6):
            s.add(f"/s{i}.xml", xml(urlset(s.a(f"/page{i}"))))
        index = tmp_path / "index.xml"
        body = _index(children)
        index.write_text(body)
        done = run_cli("dump", "--format", "txt", "--allow-private", str(index), env=CORES[core])
        fetched = sorted(path for path in s.site.paths() if path.startswith("/s"))

    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.decode().splitlines()) == [s.a(f"/page{i}") for i in range(1, 6)]
    assert fetched == [f"/s{i}.xml" for i in range(1, 6)]
    lines = body.splitlines()
    second_loc = lines[2].rindex("<loc>")  # (0-based columns, as expat counts them)
    prefix = f"sitemap-reader: {index}: "
    said = [line.removeprefix(prefix) for line in stderr_lines(done.stderr.decode())]
    assert said[:4] == [
        (
            "1 further <loc> in an entry was kept as an entry of its own, without the entry's "
            f"fields (first: '{children[1]}' at line 3, column {second_loc}) [several-locs]"
        ),
        (
            "1 entry was still open when the next one started (its end tag missing, or entries "
            f"nested); it was kept as it stood (first: '{children[2]}', the next one starting "
            "at line 5, column 2) [unclosed-entry]"
        ),
        (
            "1 entry cut by the end of the document was kept with the fields read before the "
            f"cut (first: '{children[4]}', its <loc> at line 6) [cut-entry]"
        ),
        (
            "the document ends before its <sitemapindex> closes (line 6, column "
            f"{len(lines[5])}); the entries before the cut were kept [truncated]"
        ),
    ]
    assert said[4].startswith("sitemap-reader: 5 URLs from 6 sitemaps (1 partial), 4 problems")


async def test_a_sitemap_line_that_is_not_utf8_names_the_bytes_it_holds(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """``Sitemap: .../caf\\xe9.xml`` (Latin-1) is fetched as /caf%E9.xml, the file the line
    names, never as /caf%EF%BF%BD.xml (U+FFFD); the line is said, with its number."""
    s = await serve(aiohttp_server)
    line = f"Sitemap: {s.a('/caf')}".encode() + b"\xe9.xml\n"
    s.add("/robots.txt", text(b"User-agent: *\nDisallow: /private/\n" + line))
    s.add("/caf%E9.xml", xml(urlset(s.a("/page"))))

    code = await cli("dump", "--format", "txt", s.a("/"))

    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.splitlines() == [s.a("/page")]
    assert "/caf%E9.xml" in s.site.paths()
    assert not [path for path in s.site.paths() if "\ufffd" in path or "%EF%BF%BD" in path]
    assert (
        f"sitemap-reader: {s.a('/robots.txt')}: line 3: the Sitemap value "
        f"'{s.a('/caf%E9.xml')}' is not UTF-8; the bytes that are not printable ASCII were "
        "percent-encoded [encoding]"
    ) in stderr_lines(err)
