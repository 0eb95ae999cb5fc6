"""What the command line shows: one counting rule for the summary, ``tree`` and the exit
status; plurals and human sizes; ``tree`` in document order with its problems; a warning
said once a run; the live progress line, checked under a real pseudo-terminal."""

from __future__ import annotations

import asyncio
import fcntl
import gzip
import io
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import Progress, SitemapParser, SitemapReader, SitemapVisited, Status
from sitemap_reader._cli._console import Console, human_size
from tests.support.cli import cli, run_cli, stderr_lines
from tests.support.http_site import (
    FAST,
    SITEMAP_NS,
    Served,
    ThreadedServer,
    serve,
    sitemapindex,
    slow,
    text,
    trickle,
    urlset,
    xml,
)

DOC = urlset("https://x.example.invalid/a", "https://x.example.invalid/b")
ONE = urlset({"loc": "https://x.example.invalid/a", "lastmod": "not a date"})
HTTPS_NS = "https://www.sitemaps.org/schemas/sitemap/0.9"


def summary(err: str) -> str:
    return stderr_lines(err)[-1]


# -- one rule: read, partial, failed ---------------------------------------------------------


def corrupt_gzip_header() -> bytes:
    """A gzip file whose FEXTRA flag is set without an extra field: zlib takes every byte
    after the header for the field it announces, and never inflates anything."""
    data = bytearray(gzip.compress(DOC.encode(), mtime=0))
    data[3] = 0x04
    return bytes(data)


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (b'<?xml version="1.0"?><urlse', "not-well-formed"),  # the root tag cut
        (corrupt_gzip_header(), "gzip-error"),
        (b"\x1f\x8b\x08\x00", "gzip-error"),  # a gzip header cut
    ],
    ids=["cut-root-tag", "corrupt-gzip-header", "cut-gzip-header"],
)
def test_a_document_nothing_could_be_read_from_failed_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: bytes, kind: str
) -> None:
    """Cut before it was recognised as a sitemap: failed in ``tree``, failed in the
    summary, exit 1, with the problem of the right kind."""
    from sitemap_reader._cli import main

    path = tmp_path / "broken.xml"
    path.write_bytes(body)

    assert main(["tree", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[0].endswith("[failed]")
    assert f"  ! {kind}: " in out
    assert summary(err).startswith("sitemap-reader: 0 URLs from 0 sitemaps, 1 failed, 1 problem,")

    assert main(["dump", str(path)]) == 1
    _, err = capsys.readouterr()
    assert f"[{kind}]" in err
    assert summary(err).startswith("sitemap-reader: 0 URLs from 0 sitemaps, 1 failed, 1 problem,")


def test_a_sitemap_cut_midway_is_partial_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Recognised as a urlset, then cut: read in part in ``tree`` and in the summary, exit 0."""
    from sitemap_reader._cli import main

    path = tmp_path / "cut.xml"
    path.write_text(DOC[: DOC.index("</url>") + 6], encoding="utf-8")

    assert main(["tree", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == f"{path.resolve()}  urlset  1 URL  [partial]"
    assert summary(err).startswith("sitemap-reader: 1 URL from 1 sitemap (1 partial), 1 problem,")


def test_a_corrupt_gzip_header_is_a_gzip_error_for_the_library_too() -> None:
    """The parser says gzip-error (not truncated) when not one byte could be inflated; a
    stream cut after some did is still truncated."""
    for data, kind in [
        (corrupt_gzip_header(), "gzip-error"),
        (gzip.compress(DOC.encode())[:-30], "truncated"),
    ]:
        parser = SitemapParser("https://x.example.invalid/s.xml.gz")
        events = parser.feed(data) + parser.close()
        assert parser.fatal is not None and parser.fatal.kind == kind  # type: ignore[attr-defined]
        assert events


# -- plurals and sizes -----------------------------------------------------------------------


def test_counts_of_one_are_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ "1 URL from 1 sitemap, 1 problem", not "1 URLs from 1 sitemaps, 1 problems"."""
    from sitemap_reader._cli import main

    path = tmp_path / "one.xml"
    path.write_text(ONE, encoding="utf-8")

    assert main(["dump", str(path)]) == 0
    _, err = capsys.readouterr()
    assert summary(err).startswith("sitemap-reader: 1 URL from 1 sitemap, 1 problem, ")


async def test_limits_set_to_one_are_singular_in_their_messages(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A limit of 1 reads "1 index", "1 sitemap", not "1 indexes", "1 sitemaps"."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/deep.xml"), s.a("/m.xml"))))
    s.add("/deep.xml", xml(sitemapindex(s.a("/z.xml"))))
    s.add("/m.xml", xml(urlset(s.a("/1"))))

    assert await cli("tree", "--max-depth", "1", s.a("/index.xml")) == 0
    assert "nested deeper than 1 index (named by" in capsys.readouterr().out
    assert await cli("tree", "--max-sitemaps", "1", s.a("/index.xml")) == 0
    assert "the run's budget of 1 sitemap is spent" in capsys.readouterr().out


def test_sizes_are_human() -> None:
    assert [human_size(n) for n in (1, 512, 5_120, 2_100_000, 3_400_000_000)] == [
        "1 byte",
        "512 bytes",
        "5.1 kB",
        "2.1 MB",
        "3.4 GB",
    ]


def test_state_show_gives_a_small_store_in_kb(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A few kB of documents read: ``state show`` says kB, not "0.0 MB"."""
    from sitemap_reader._cli import main

    path = tmp_path / "big.xml"
    path.write_text(urlset(*(f"https://x.example.invalid/{i}" for i in range(100))))
    store = tmp_path / "state.db"
    assert main(["dump", "-q", "--state", str(store), "--changes", str(path)]) == 0
    capsys.readouterr()

    assert main(["state", "show", str(store)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    size = human_size(path.stat().st_size)
    assert size.endswith(" kB")
    assert f": schema 5, 1 document (100 URLs at their last reads, {size});" in first


# -- tree ------------------------------------------------------------------------------------


async def test_tree_keeps_document_order_and_counts_its_problems(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Children in the order their index names them, roots in the order given, however they
    finish (the first of each is the slowest); the summary counts the tree's problems."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(*(s.a(f"/{n}.xml") for n in "abc"))))
    s.add("/a.xml", slow(xml(urlset(s.a("/a"))), 0.4))
    s.add("/b.xml", slow(xml(urlset(s.a("/b"))), 0.2))
    s.add("/c.xml", xml(ONE.replace("https://x.example.invalid/a", s.a("/c"))))
    s.add("/first.xml", slow(xml(urlset(s.a("/f"))), 0.3))

    assert await cli("tree", "--allow-private", s.a("/first.xml"), s.a("/index.xml")) == 0

    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"{s.a('/first.xml')}  urlset  1 URL  [ok]",
        f"{s.a('/index.xml')}  sitemapindex  3 sitemaps  [ok]",
        f"├── {s.a('/a.xml')}  urlset  1 URL  [ok]",
        f"├── {s.a('/b.xml')}  urlset  1 URL  [ok]",
        f"└── {s.a('/c.xml')}  urlset  1 URL  [ok]",
        (
            "      ! invalid-lastmod: 1 lastmod value was not a date and was left out"
            " (first: 'not a date')"
        ),
    ]
    assert summary(err).startswith("sitemap-reader: 4 URLs from 5 sitemaps, 1 problem, ")


async def test_tree_names_each_child_it_did_not_read(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Children too deep to read: one line each, naming the child."""
    s = await serve(aiohttp_server)
    kids = [s.a(f"/{n}.xml") for n in "abc"]
    s.add("/index.xml", xml(sitemapindex(*kids)))

    assert await cli("tree", "--allow-private", "--max-depth", "0", s.a("/index.xml")) == 0

    out, _ = capsys.readouterr()
    problems = [line for line in out.splitlines() if "! too-deep" in line]
    assert problems == [
        f"  ! too-deep: {kid}: not read: nested deeper than 0 indexes "
        f"(named by {s.a('/index.xml')})"
        for kid in kids
    ]


async def test_tree_lists_the_children_a_budget_left_unread(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """An index cut by the site's sitemap budget: its children read and unread, each on its
    line in the index's order (robots.txt is no sitemap: the budget of 2 reads the index
    and its first child)."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
    s.add("/index.xml", xml(sitemapindex(*(s.a(f"/m{i}.xml") for i in range(3)))))
    for i in range(3):
        s.add(f"/m{i}.xml", xml(urlset(s.a(f"/p{i}"))))

    argv = ("tree", "--concurrency", "1", "--max-sitemaps-per-site", "2", s.a("/"))
    assert await cli(*argv) == 0

    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        f"{s.a('/robots.txt')}  robots  1 sitemap  [ok]",
        f"└── {s.a('/index.xml')}  sitemapindex  3 sitemaps  [partial]",
        (
            f"      ! max-sitemaps-per-site: {s.a('/m1.xml')}: the budget of 2 sitemaps for "
            f"{s.a('/')} is spent: this and further documents are not read"
        ),
        f"    ├── {s.a('/m0.xml')}  urlset  1 URL  [ok]",
        f"    ├── {s.a('/m1.xml')}  [skipped]",
        f"    └── {s.a('/m2.xml')}  [skipped]",
    ]
    assert s.site.paths() == ["/robots.txt", "/index.xml", "/m0.xml"]


async def test_tree_gives_why_urls_were_dropped(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    s = await serve(aiohttp_server)
    s.add(
        "/maps/s.xml",
        xml(urlset(s.a("/maps/in"), s.a("/out/1"), s.a("/out/2"), s.b("/maps/other"))),
    )

    assert await cli("tree", "--allow-private", s.a("/maps/s.xml")) == 0

    out, err = capsys.readouterr()
    assert out.splitlines()[0] == (
        f"{s.a('/maps/s.xml')}  urlset  1 URL  3 dropped (2 outside-folder, 1 other-host)  [ok]"
    )
    assert "3 URLs dropped as out of scope (2 outside-folder, 1 other-host)" in err
    assert "every URL read was out of scope" not in err  # one was kept: no hint


async def test_a_run_that_drops_every_url_says_what_would_keep_them(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 29: a sitemap whose URLs all sit above its folder gave 0 URLs and no hint. The
    hint fits the reasons counted: --scope host (or the site's robots.txt) for a folder,
    --scope off (or the other host's robots.txt) for another host."""
    s = await serve(aiohttp_server)
    s.add("/sitemaps/pages.xml", xml(urlset(s.a("/a"), s.a("/b"))))
    s.add("/sitemaps/elsewhere.xml", xml(urlset(s.b("/a"))))

    assert await cli("dump", "--allow-private", s.a("/sitemaps/pages.xml")) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[-1] == (
        "sitemap-reader: every URL read was out of scope: --scope host keeps every URL on the "
        f"sitemap's host (such as {s.a('/a')}), or give the site's root ({s.a('/')}) as the "
        "source: its robots.txt vouches for the whole site when it names the sitemap"
    )

    assert await cli("tree", "--allow-private", s.a("/sitemaps/elsewhere.xml")) == 0
    _, err = capsys.readouterr()
    assert err.splitlines()[-1] == (
        "sitemap-reader: every URL read was out of scope: --scope off keeps the URLs on other "
        f"hosts (such as {s.b('/a')}), and so does reading the sitemap through their host's "
        f"robots.txt ({s.b('/')}) when it names the sitemap"
    )

    # Read through a robots.txt, which vouched for its origin already: --scope alone is said.
    s.add("/robots.txt", text(f"Sitemap: {s.a('/sitemaps/https.xml')}\n"))
    https = s.a("/x").replace("http:", "https:")
    s.add("/sitemaps/https.xml", xml(urlset(https)))
    assert await cli("dump", "--allow-private", s.a("/")) == 0
    _, err = capsys.readouterr()
    assert err.splitlines()[-1] == (
        "sitemap-reader: every URL read was out of scope: --scope host keeps every URL on the "
        f"sitemap's host (such as {https})"
    )


async def test_tree_shows_problems_no_document_holds(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A site with no sitemap: the tree says so (the problem is no document's)."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text("User-agent: *\n"))

    assert await cli("tree", "--allow-private", "--no-probe", s.a("/")) == 1

    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"{s.a('/robots.txt')}  robots  0 sitemaps  [ok]",
        (
            f"! no-sitemap: {s.a('/robots.txt')}: robots.txt names no sitemap, and probing "
            "well-known paths is off"
        ),
    ]
    assert ", 1 problem, " in summary(err)


async def test_tree_draws_each_document_read_once_whatever_its_cycles(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three indexes that name each other: a duplicate's or a cycle's report has no children
    of its own (they hang under the report that read the document), so the tree ends.
    Once, each duplicate drew the children of the document it named, which named a
    duplicate again: a drawing without end, cut by Python's recursion limit."""
    s = await serve(aiohttp_server)
    a, b, c = (s.a(f"/{n}.xml") for n in "abc")
    s.add("/a.xml", xml(sitemapindex(b, c)))
    s.add("/b.xml", xml(sitemapindex(a, c)))
    s.add("/c.xml", xml(sitemapindex(a, b)))

    assert await cli("tree", "--allow-private", "--concurrency", "1", a) == 0

    out, _ = capsys.readouterr()
    drawn = [line for line in out.splitlines() if "  ! " not in line]
    assert drawn == [
        f"{a}  sitemapindex  2 sitemaps  [ok]",
        f"├── {b}  sitemapindex  2 sitemaps  [ok]",
        f"│   └── {c}  [duplicate]",
        f"└── {c}  sitemapindex  2 sitemaps  [ok]",
        f"    └── {b}  [duplicate]",
    ]


def test_tree_draws_a_chain_deeper_than_pythons_recursion_limit() -> None:
    """A chain of nested indexes as deep as ``--max-depth`` allows is drawn whole: the
    drawing keeps its own stack."""
    from sitemap_reader._cli._tree import print_tree

    depth = sys.getrecursionlimit() + 100
    urls = [f"https://x.example.invalid/{i}.xml" for i in range(depth)]
    reports = [
        SitemapVisited(url, Status.OK, source=urls[i - 1] if i else "", depth=i, order=i)
        for i, url in enumerate(urls)
    ]
    out = io.StringIO()
    print_tree(reports, out)

    lines = out.getvalue().splitlines()
    assert len(lines) == depth
    assert lines[-1].endswith(f"└── {urls[-1]}  0 URLs  [ok]")
    assert lines[-1].index("└──") == 4 * (depth - 2)


# -- said once a run -------------------------------------------------------------------------


async def test_a_site_wide_namespace_warning_is_said_once_with_its_count(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """An index and six children, all in the https namespace: one line for the index, one
    for the six children (naming the first and counting the others), not seven."""
    s = await serve(aiohttp_server)
    kids = [s.a(f"/{n}.xml") for n in range(6)]
    s.add("/index.xml", xml(sitemapindex(*kids).replace(SITEMAP_NS, HTTPS_NS)))
    for n in range(len(kids)):
        s.add(f"/{n}.xml", xml(urlset(s.a(f"/p{n}")).replace(SITEMAP_NS, HTTPS_NS)))

    assert await cli("dump", "--allow-private", "--concurrency", "1", s.a("/index.xml")) == 0

    _, err = capsys.readouterr()
    said = [line for line in stderr_lines(err) if line.endswith("[namespace]")]
    assert len(said) == 2
    assert said[0].startswith(f"sitemap-reader: {s.a('/index.xml')}: <sitemapindex> has ")
    assert said[1].startswith(f"sitemap-reader: {kids[0]} and 5 other documents: <urlset> has ")
    assert summary(err).startswith("sitemap-reader: 6 URLs from 7 sitemaps, 7 problems, ")


async def test_images_under_an_https_namespace_are_dumped_and_said_once(
    aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three sitemaps whose image namespace is https: their images are in the output, and
    stderr says so in one line for the three, naming the variant."""
    https_image = "https://www.google.com/schemas/sitemap-image/1.1"
    image = "<image:image><image:loc>{}</image:loc></image:image>"
    s = await serve(aiohttp_server)
    kids = [s.a(f"/{n}.xml") for n in range(3)]
    s.add("/index.xml", xml(sitemapindex(*kids)))
    for n in range(len(kids)):
        block = f"<url><loc>{s.a(f'/p{n}')}</loc>{image.format(s.a(f'/i{n}.jpg'))}</url>"
        body = f'<urlset xmlns="{SITEMAP_NS}" xmlns:image="{https_image}">{block}</urlset>'
        s.add(f"/{n}.xml", xml(body))

    args = ("dump", "--allow-private", "--concurrency", "1", "--format", "jsonl")
    assert await cli(*args, s.a("/index.xml")) == 0

    out, err = capsys.readouterr()
    for n in range(len(kids)):
        assert s.a(f"/i{n}.jpg") in out
    said = [line for line in stderr_lines(err) if line.endswith("[namespace]")]
    assert len(said) == 1
    assert said[0].startswith(f"sitemap-reader: {kids[0]} and 2 other documents: extension ")
    assert repr(https_image) in said[0]


# -- progress ----------------------------------------------------------------------------------


def big_urlset(s: Served, n: int) -> str:
    return urlset(*(s.a(f"/page/{i:06}") for i in range(n)))


async def test_progress_counts_sitemaps_as_the_summary_does_and_bytes_as_they_stream(
    aiohttp_server: AiohttpServer,
) -> None:
    """robots.txt is no sitemap to the progress counters either; bytes grow while the one
    big sitemap is still streaming, before any document ends."""
    s = await serve(aiohttp_server)
    body = big_urlset(s, 2_000)
    s.add("/robots.txt", text(f"Sitemap: {s.a('/s.xml')}\n"))
    s.add("/s.xml", trickle(body, 8_192, 0.03))
    seen: list[tuple[int, int]] = []  # (sitemaps done, bytes), sampled while reading

    async with SitemapReader(FAST) as reader:

        async def sample() -> None:
            while True:
                p = reader.progress
                seen.append((p.sitemaps_done, p.bytes))
                await asyncio.sleep(0.01)

        sampler = asyncio.ensure_future(sample())
        try:
            reports = [
                event
                async for batch in reader.walk_batches(s.a("/"))
                for event in batch
                if isinstance(event, SitemapVisited)
            ]
        finally:
            sampler.cancel()
        progress = reader.progress

    assert [r.status for r in reports] == [Status.OK, Status.OK]  # robots.txt, s.xml
    assert (progress.sitemaps, progress.sitemaps_done) == (1, 1)
    streaming = [b for done, b in seen if done == 0]
    assert max(streaming) > len(body) // 2  # most of s.xml, before its read ended
    assert progress.bytes == sum(r.bytes for r in reports)


def test_progress_line_shape() -> None:
    p = Progress(entries=51_081, bytes=2_100_000, sitemaps=8, sitemaps_done=3)
    assert Console.progress_line(p, 4.4) == ("[3/8 sitemaps] 51,081 URLs · 11.6k/s · 2.1 MB · 0:04")
    p = Progress(entries=12, bytes=0, sitemaps=1)
    assert Console.progress_line(p, 3_725.0) == "[0/1 sitemaps] 12 URLs · 0/s · 0 bytes · 1:02:05"


PROGRESS = re.compile(
    r"\[(\d+)/(\d+) sitemaps\] [\d,]+ URLs · [\d.]+[kM]?/s · ([\d.,]+) (bytes?|kB|MB|GB) · \d+:\d\d"
)


def run_on_a_terminal(*argv: str, timeout: float = 30.0) -> tuple[int, str]:
    """``python -m sitemap_reader ARGV`` with stderr on a pseudo-terminal 100 columns wide;
    stdout to /dev/null. Returns the exit status and every byte written to the terminal."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    with subprocess.Popen(
        [sys.executable, "-m", "sitemap_reader", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env=env,
    ) as process:
        os.close(slave)
        chunks: list[bytes] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 65_536)
                except OSError:  # the slave side closed: the process is gone
                    break
                if not data:
                    break
                chunks.append(data)
            elif process.poll() is not None:
                break
        else:
            process.kill()
        code = process.wait(timeout=10)
    os.close(master)
    return code, b"".join(chunks).decode("utf-8")


def test_progress_line_on_a_terminal() -> None:
    """On a terminal: one line redrawn in place (``\\r``), bytes growing while the only
    sitemap still streams, cleared before a problem line and before the summary."""
    with ThreadedServer() as s:
        late = f"{s.a('/page/001500')}</loc>"  # a problem well into the document
        body = big_urlset(s, 4_000).replace(late, f"{late}<lastmod>soon</lastmod>")
        s.add("/s.xml", trickle(body, 16_384, 0.08))

        code, raw = run_on_a_terminal("dump", "--allow-private", s.a("/s.xml"))

    assert code == 0, raw
    raw = raw.replace("\r\n", "\n")  # the terminal's own line ends
    frames = [m for m in PROGRESS.finditer(raw)]
    assert len(frames) >= 3, raw
    assert len(frames) < 100  # redraws are throttled (about 10 a second)
    during = [f for f in frames if f.group(1) == "0" and f.group(2) == "1"]
    assert any(f.group(3) not in ("0",) for f in during), raw  # bytes before the end
    # Every line of text starts on a cleared line: no progress left in front of it.
    for segment in raw.split("\n"):
        if "sitemap-reader:" in segment:
            tail = segment.rsplit("\r", 1)[-1].removeprefix("\x1b[K")
            assert tail.startswith("sitemap-reader:"), segment
    assert "[invalid-lastmod]" in raw
    last = raw.rstrip("\n").rsplit("\n", 1)[-1].rsplit("\r", 1)[-1].removeprefix("\x1b[K")
    assert last.startswith("sitemap-reader: 4,000 URLs from 1 sitemap, 1 problem, ")
    assert raw.endswith("s\n")  # nothing drawn after the summary


def test_no_progress_when_stderr_is_no_terminal() -> None:
    with ThreadedServer() as s:
        s.add("/s.xml", trickle(big_urlset(s, 2_000), 16_384, 0.05))

        done = run_cli("dump", "--allow-private", s.a("/s.xml"))

    assert done.returncode == 0
    err = done.stderr.decode()
    assert "\r" not in err and "sitemaps]" not in err
    assert stderr_lines(err) == [stderr_lines(err)[-1]]  # the summary alone
