"""The command line at its edges: what a source may be, how arguments are refused (the
command's one-line usage and one error line, exit 2, never a traceback), durations, --since
back from now, --state followed by a URL, --sites for tree, and --base-url.

The console script runs in a subprocess where the exact stderr and exit status are the
contract; the rest runs ``main`` in the test's process. Servers are on 127.0.0.1 only.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import sitemap_reader as sr
from sitemap_reader._cli import _build_parser, _options, main
from sitemap_reader._cli._values import PACE_DURATIONS
from tests.support.cli import run_cli
from tests.support.http_site import Served, ThreadedServer, closed_port, text, urlset, xml

DUMP_USAGE = "usage: sitemap-reader dump [OPTIONS] [SOURCE ...]"
TREE_USAGE = "usage: sitemap-reader tree [OPTIONS] [SOURCE ...]"


def cli(*argv: str) -> tuple[int, str, str]:
    """The console script's way in (``python -m sitemap_reader``), in a subprocess: its exit
    status, stdout and stderr."""
    done = run_cli(*argv)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``main(argv)``, which must exit 2 with nothing on stdout; its stderr."""
    with pytest.raises(SystemExit) as exit:
        main(argv)
    out, err = capsys.readouterr()
    assert (exit.value.code, out) == (2, "")
    return err


@pytest.fixture(scope="module")
def site() -> Iterator[Served]:
    with ThreadedServer() as s:
        s.add("/robots.txt", text(f"Sitemap: {s.a('/s.xml')}\n"))
        s.add("/s.xml", xml(urlset(s.a("/1"), s.a("/2"))))
        yield s


# -- sources that no run can read: refused before any fetch -------------------------------------


@pytest.mark.parametrize(
    ("source", "cause"),
    [
        ("http://[::1", "not a valid URL (Invalid IPv6 URL)"),
        ("http://", "not a valid URL (it has no host)"),
        ("http://127.0.0.1:99999/", "not a valid URL (Port out of range 0-65535)"),
        (
            "ftp://host/sitemap.xml",
            (
                "ftp: URLs are not read; a source is an http(s) URL, a file: URL, a local path "
                "or - (stdin)"
            ),
        ),
        ("www.example.com", "no such file, and not a URL: did you mean https://www.example.com/?"),
        (
            "127.0.0.1:8080/sitemap.xml",
            "no such file, and not a URL: did you mean http://127.0.0.1:8080/sitemap.xml?",
        ),
        ("localhost:8080", "no such file, and not a URL: did you mean http://localhost:8080/?"),
    ],
)
def test_a_source_no_run_can_read_is_a_usage_error(source: str, cause: str, tmp_path: Path) -> None:
    """The usage line and one error line naming the source and the cause; exit 2."""
    assert cli("dump", source) == (
        2,
        "",
        f"{DUMP_USAGE}\nsitemap-reader dump: error: {source}: {cause}\n",
    )


def test_tree_refuses_a_bad_source_with_its_own_usage(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(["tree", "www.example.com"], capsys)
    assert err == (
        f"{TREE_USAGE}\nsitemap-reader tree: error: www.example.com: no such file, and not a "
        "URL: did you mean https://www.example.com/?\n"
    )


def test_an_existing_file_named_like_a_host_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The hint is for what is no file: a file called www.example.com is read."""
    (tmp_path / "www.example.com").write_text("https://www.example.com/a\n")
    monkeypatch.chdir(tmp_path)

    assert main(["dump", "www.example.com", "--format", "txt", "-q"]) == 0
    assert capsys.readouterr().out == "https://www.example.com/a\n"


def test_a_file_url_is_read_as_that_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """file:///... is the local file; its records name it by its path."""
    path = tmp_path / "my sitemap.txt"
    path.write_text("https://www.example.com/a\n")

    assert main(["dump", path.as_uri(), "-q"]) == 0
    out = capsys.readouterr().out
    assert f'"sitemap": "{path}"' in out and '"loc": "https://www.example.com/a"' in out


# -- argument errors: the command's usage line and one error line ------------------------------


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["dump"], "the following arguments are required: SOURCE (or --sites FILE)"),
        (["dump", "--bogus", "x.xml"], "unrecognized arguments: --bogus"),
        (
            ["dump", "--deadline", "soon", "x.xml"],
            (
                "argument --deadline: 'soon' is not a positive duration (try 30m, 2h, 1d or "
                "plain seconds, or none for no deadline)"
            ),
        ),
        (
            ["dump", "--max-age", "1y", "x.xml"],
            ("argument --max-age: '1y' is not a duration (try 12h, 7d, 2w or plain seconds)"),
        ),
        (["dump", "--timeout", "0s", "x.xml"], "argument --timeout: 0s is not a positive duration"),
        (
            ["dump", "--timeout", "soon", "x.xml"],
            "argument --timeout: 'soon' is not a duration (try 30s, 2m or plain seconds)",
        ),
        (
            ["dump", "--max-depth", "deep", "x.xml"],
            "argument --max-depth: 'deep' is not a whole number",
        ),
        (["dump", "--concurrency", "0", "x.xml"], "argument --concurrency: 0 is less than 1"),
        (
            ["dump", "--since", "lately", "x.xml"],
            (
                "argument --since: 'lately' is neither a date (2024-05-01) nor a duration back "
                "from now (7d, 12h)"
            ),
        ),
        (
            ["dump", "--format", "parquet", "x.xml"],
            "--format parquet writes a file: give it with -o FILE",
        ),
        (
            ["dump", "--base-url", "ftp://x/", "x.xml"],
            "argument --base-url: 'ftp://x/' is no http(s) URL",
        ),
        (
            ["dump", "--delay", "soon", "x.xml"],
            "argument --delay: 'soon' is not a duration (try " + PACE_DURATIONS + ")",
        ),
        (["tree"], "the following arguments are required: SOURCE (or --sites FILE)"),
        (["tree", "x.xml", "--since-strict"], "unrecognized arguments: --since-strict"),
    ],
)
def test_argument_errors_print_the_usage_line_and_one_error_line(
    argv: list[str], error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = usage_error(argv, capsys)
    command = argv[0]
    usage = DUMP_USAGE if command == "dump" else TREE_USAGE
    assert err == f"{usage}\nsitemap-reader {command}: error: {error}\n"


def test_state_alone_prints_the_state_help_in_a_subprocess() -> None:
    """``sitemap-reader state`` names its actions (not the top-level commands): exit 2."""
    code, out, err = cli("state")
    assert (code, out) == (2, "")
    assert err.startswith("usage: sitemap-reader state [-h] ACTION ...\n")
    assert "show      list what a state file holds" in err
    assert "Traceback" not in err


# -- durations -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("90s", 90.0),
        ("30m", 1800.0),
        ("1h", 3600.0),
        ("7d", 604_800.0),
        ("2w", 1_209_600.0),
        ("45", 45.0),
        ("1.5h", 5400.0),
        ("none", None),
    ],
)
def test_one_duration_syntax_for_deadline_max_age_and_timeout(
    value: str, seconds: float | None
) -> None:
    args = _build_parser().parse_args(["dump", "x.xml", "--deadline", value])
    assert _options.config(args).timeouts.deadline == seconds
    if seconds is not None:
        args = _build_parser().parse_args(
            ["dump", "x.xml", "--state", "s.db", "--max-age", value, "--timeout", value]
        )
        config = _options.config(args)
        assert config.incremental.max_age == config.timeouts.request == seconds


def test_since_takes_a_duration_back_from_now(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--since 7d keeps what changed in the last week (and undated entries, as with a date)."""
    now = datetime.now(timezone.utc)
    path = tmp_path / "s.xml"
    path.write_text(
        urlset(
            {"loc": "https://example.com/new", "lastmod": (now - timedelta(days=1)).isoformat()},
            {"loc": "https://example.com/old", "lastmod": (now - timedelta(days=30)).isoformat()},
            "https://example.com/undated",
        )
    )

    assert main(["dump", str(path), "--since", "7d", "--format", "txt", "-q"]) == 0
    assert capsys.readouterr().out.split() == [
        "https://example.com/new",
        "https://example.com/undated",
    ]
    assert main(["dump", str(path), "--since", "7d", "--since-strict", "--format", "txt"]) == 0
    assert capsys.readouterr().out.split() == ["https://example.com/new"]


# -- --state followed by a URL ---------------------------------------------------------------------


def test_state_followed_by_a_url_takes_the_url_as_the_source(
    site: Served,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``dump --state URL``: --state takes an optional FILE, and a URL is never one: the URL
    is read, the state kept in the default file."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))

    assert main(["dump", "--state", site.a("/"), "--format", "txt", "-q"]) == 0

    assert sorted(capsys.readouterr().out.split()) == [site.a("/1"), site.a("/2")]
    assert (tmp_path / "sitemap-reader" / "state.sqlite").is_file()
    assert not (tmp_path / "http:").exists()


# -- a refused connection ------------------------------------------------------------------------


def test_a_refused_site_is_said_plainly() -> None:
    """A site root nothing listens on: one plain line (no aiohttp words, no robots.txt rule),
    then the summary; exit 1."""
    port = closed_port()
    code, out, err = cli("dump", f"http://127.0.0.1:{port}/", "--no-progress")

    assert (code, out) == (1, "")
    first, summary = err.splitlines()
    assert first == (
        f"sitemap-reader: http://127.0.0.1:{port}/robots.txt: could not connect to "
        f"127.0.0.1:{port} (connection refused): is the address right? [robots-unavailable]"
    )
    assert summary.startswith("sitemap-reader: 0 URLs from 0 sitemaps")


# -- what a local file turns out to be -------------------------------------------------------------


def test_random_bytes_are_no_sitemap_read(tmp_path: Path) -> None:
    """2 KB of random bytes: no sitemap, so not read (exit 1), in one problem line."""
    noise = tmp_path / "noise.bin"
    noise.write_bytes(random.Random(0).randbytes(2048))
    good = tmp_path / "good.txt"
    good.write_text("https://www.example.com/a\n")

    code, out, err = cli("dump", str(noise), "--no-progress")

    assert (code, out) == (1, "")
    problem, summary = err.splitlines()
    assert problem == (
        f"sitemap-reader: {noise}: the document is not XML, and none of its 12 lines is a URL "
        "[unknown-format]"
    )
    assert summary.startswith("sitemap-reader: 0 URLs from 0 sitemaps, 1 failed,")

    code, out, _ = cli("dump", str(noise), str(good), "--no-progress", "--format", "txt")
    assert (code, out) == (0, "https://www.example.com/a\n")


@pytest.mark.parametrize("name", ["robots.txt", "rules"])
def test_a_local_robots_txt_has_its_sitemaps_followed(
    site: Served, tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A local robots.txt, known by its name or by its lines, is no sitemap: the sitemaps its
    Sitemap: lines name are read."""
    path = tmp_path / name
    path.write_text(f"# rules\nUser-agent: *\nDisallow: /private\n\nSitemap: {site.a('/s.xml')}\n")

    assert main(["dump", str(path), "--allow-private", "--format", "txt", "-q"]) == 0
    assert capsys.readouterr().out.split() == [site.a("/1"), site.a("/2")]

    assert main(["tree", str(path), "--allow-private", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"{path}  robots  1 sitemap  [ok]",
        f"└── {site.a('/s.xml')}  urlset  2 URLs  [ok]",
    ]
    assert err.startswith("sitemap-reader: 2 URLs from 1 sitemap")


def test_a_local_robots_txt_naming_no_sitemap_reads_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "robots.txt"
    path.write_text("User-agent: *\nDisallow: /\n")

    assert main(["dump", str(path), "--no-progress"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert f"sitemap-reader: {path}: the robots.txt names no sitemap [no-sitemap]\n" in err


# -- --sites for tree, --base-url ------------------------------------------------------------------


def test_tree_takes_sites_from_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text("https://www.example.com/1\n")
    two.write_text("https://www.example.com/2\nhttps://www.example.com/3\n")
    listed = tmp_path / "sites.txt"
    listed.write_text(f"# two files\n{one}\n\n{two}\n")

    assert main(["tree", "--sites", str(listed), "--no-progress", "-q"]) == 0
    assert sorted(capsys.readouterr().out.splitlines()) == [  # (in the order they ended)
        f"{one}  text  1 URL  [ok]",
        f"{two}  text  2 URLs  [ok]",
    ]


def test_base_url_gives_a_local_file_a_location(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--base-url: relative locs resolve against it (--resolve-relative) and the scope is
    judged by it, as if the file had been fetched from there; records name it."""
    path = tmp_path / "s.xml"
    path.write_text(
        urlset("page", "/dir/other", "https://site.example/dir/abs", "https://elsewhere.example/x")
    )
    base = "https://site.example/dir/sitemap.xml"

    assert main(["dump", str(path), "--format", "txt", "-q"]) == 0
    without = capsys.readouterr().out.split()
    assert without == ["https://site.example/dir/abs", "https://elsewhere.example/x"]

    argv = ["dump", str(path), "--base-url", base, "--resolve-relative", "--no-progress"]
    assert main([*argv, "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert [row.split(",")[0] for row in out.splitlines()[1:]] == [
        "https://site.example/dir/page",
        "https://site.example/dir/other",
        "https://site.example/dir/abs",
    ]
    assert all(row.endswith(f",{base}") for row in out.splitlines()[1:])
    assert "1 URL dropped as out of scope" in err

    assert main([*argv, "--scope", "off", "--format", "txt"]) == 0
    assert len(capsys.readouterr().out.split()) == 4


def test_the_pace_options_give_the_configs_pace() -> None:
    args = _build_parser().parse_args(["check", "x.xml"])
    assert _options.config(args).pace == sr.Pace()
    args = _build_parser().parse_args(
        ["tree", "x.xml", "--delay", "0.5", "--obey-crawl-delay", "--max-delay", "1m"]
    )
    assert _options.config(args).pace == sr.Pace(delay=0.5, obey_crawl_delay=True, max_delay=60)


def test_dump_obeys_crawl_delay_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    """robots.txt asks sitemap-reader for 0.4 s between requests: the server's log shows it."""
    with ThreadedServer() as s:
        s.add(
            "/robots.txt",
            text(f"User-agent: sitemap-reader\nCrawl-delay: 0.4\nSitemap: {s.a('/s.xml')}\n"),
        )
        s.add("/s.xml", xml(urlset(s.a("/1"))))
        code = main(["dump", "--format", "txt", "--obey-crawl-delay", "--no-progress", s.a("/")])
    assert (code, capsys.readouterr().out) == (0, f"{s.a('/1')}\n")
    first, second = (hit.at for hit in s.site.hits)
    assert second - first >= 0.25  # arrivals lag starts by a varying latency: a lower bound
