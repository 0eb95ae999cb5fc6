"""The library's log: one WARNING on the ``sitemap_reader`` logger per document that failed or
was read in part, whichever API runs the walk; silent (a NullHandler) unless the application
configures logging; and the command line, which says each problem itself, prints it once.

A real loopback site: an index whose children are a good sitemap, a 404 and one cut short."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator

import pytest
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import (
    SitemapReader,
    SitemapVisited,
    Status,
    collect_urls_sync,
    entries_sync,
)
from tests.support.http_site import (
    FAST,
    Served,
    ThreadedServer,
    serve,
    sitemapindex,
    status,
    text,
    urlset,
    xml,
)


def broken_index(s: Served, robots: str = "") -> None:
    """robots.txt -> /index.xml -> /good.xml (2 URLs), /gone.xml (404), /cut.xml (cut
    inside its second <url>: 1 URL kept)."""
    s.add("/robots.txt", text(f"{robots}Sitemap: {s.a('/index.xml')}\n"))
    s.add("/index.xml", xml(sitemapindex(s.a("/good.xml"), s.a("/gone.xml"), s.a("/cut.xml"))))
    s.add("/good.xml", xml(urlset(s.a("/1"), s.a("/2"))))
    s.add("/gone.xml", status(404))
    whole = urlset(s.a("/3"), s.a("/4"))
    s.add("/cut.xml", xml(whole[: whole.index("/4")]))


def expected(s: Served) -> list[str]:
    """The two WARNINGs, sorted."""
    return sorted(
        [
            f"sitemap {s.a('/gone.xml')} failed: HTTP 404 Not Found [http-status]",
            (
                f"sitemap {s.a('/cut.xml')} read in part (1 URL kept): the document ends before its "
                "<urlset> closes (line 4, column 34); the entries before the cut were kept "
                "[truncated]"
            ),
        ]
    )


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The WARNING records of the sitemap_reader logger, sorted (children finish in any order)."""
    return sorted(
        r.getMessage()
        for r in caplog.records
        if r.name == "sitemap_reader" and r.levelno == logging.WARNING
    )


@pytest.fixture
def served() -> Iterator[Served]:
    with ThreadedServer() as s:
        broken_index(s)
        yield s


async def test_entries_logs_each_failed_or_partial_child_once(
    aiohttp_server: AiohttpServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 29: entries() yielded the good entries and said nothing of the others."""
    s = await serve(aiohttp_server)
    broken_index(s)

    with caplog.at_level(logging.WARNING, logger="sitemap_reader"):
        async with SitemapReader(FAST) as reader:
            locs = [entry.loc async for entry in reader.entries(s.a("/"))]

    assert sorted(locs) == [s.a("/1"), s.a("/2"), s.a("/3")]
    assert warnings_of(caplog) == expected(s)
    # Each record carries the document's report, for a handler that wants more than words.
    reports = {r.report.url: r.report for r in caplog.records if hasattr(r, "report")}
    assert isinstance(reports[s.a("/gone.xml")], SitemapVisited)
    assert reports[s.a("/gone.xml")].status is Status.FAILED
    assert (reports[s.a("/cut.xml")].status, reports[s.a("/cut.xml")].entries) == (
        Status.PARTIAL,
        1,
    )


def test_the_sync_wrappers_log_the_same(served: Served, caplog: pytest.LogCaptureFixture) -> None:
    """The blocking wrappers run the walk on a thread of their own: its records come all the
    same."""
    with caplog.at_level(logging.WARNING, logger="sitemap_reader"):
        assert len(list(entries_sync(served.a("/"), config=FAST))) == 3
    assert warnings_of(caplog) == expected(served)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="sitemap_reader"):
        assert len(collect_urls_sync(served.a("/"), config=FAST)) == 3
    assert warnings_of(caplog) == expected(served)


def python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


READ = (
    "import sys\n"
    "from sitemap_reader import ReaderConfig, entries_sync\n"
    "print(len(list(entries_sync(sys.argv[1], config=ReaderConfig(allow_private=True)))))\n"
)


def test_nothing_is_printed_unless_the_application_configures_logging(served: Served) -> None:
    """A NullHandler on the package logger: Python's last-resort handler, which prints a
    WARNING to stderr when no handler is found, stays out of a program that set none."""
    quiet = python(READ, served.a("/"))
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "3\n", "")

    told = python("import logging; logging.basicConfig()\n" + READ, served.a("/"))
    assert told.stdout == "3\n"
    assert sorted(told.stderr.splitlines()) == [
        f"WARNING:sitemap_reader:{line}" for line in expected(served)
    ]


def test_the_command_line_says_each_problem_once_and_keeps_its_other_warnings() -> None:
    """The CLI prints each document's problem itself: the log record of the same document is
    not printed again. The library's other warnings (a Crawl-delay that is no number) still
    reach stderr, as they did before the package had a NullHandler."""
    with ThreadedServer() as s:
        broken_index(s, robots="User-agent: *\nCrawl-delay: soon\n")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "sitemap_reader",
                "dump",
                "--format",
                "txt",
                "--obey-crawl-delay",
                "--allow-private",
                "--no-progress",
                s.a("/"),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 0
    lines = done.stderr.splitlines()
    assert lines[0] == (
        f"{s.a('/robots.txt')} line 2: the Crawl-delay value 'soon' is not a number of "
        "seconds: ignored"
    )
    assert sorted(lines[1:3]) == [
        (
            f"sitemap-reader: {s.a('/cut.xml')}: the document ends before its <urlset> closes "
            "(line 4, column 34); the entries before the cut were kept [truncated]"
        ),
        f"sitemap-reader: {s.a('/gone.xml')}: HTTP 404 Not Found [http-status]",
    ]
    assert lines[3].startswith("sitemap-reader: 3 URLs from 3 sitemaps (1 partial), 1 failed, ")
    assert len(lines) == 4
