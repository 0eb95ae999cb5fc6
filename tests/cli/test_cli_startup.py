"""What the command line loads before it reads: each command only what it uses, when it runs.

A dump of a local file fetches nothing and checks nothing, so it loads none of the HTTP
machinery (aiohttp, tenacity, urllib.request), no feed reader (feedparser: the document is
no feed) and none of ``check``'s findings, outputs and report page. Those were two thirds of
the start of every command (``python -X importtime -c "import sitemap_reader._cli"``); the
assertions are on the modules loaded, in a fresh interpreter, not on a timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.helpers import urlset

# Runs the command in this interpreter, then writes the names of the loaded modules to a file
# (stdout carries the records).
_RUN = """
import json, sys
from sitemap_reader._cli import main
out, *argv = sys.argv[1:]
status = main(argv)
with open(out, "w") as file:
    json.dump({"status": status, "modules": sorted(sys.modules)}, file)
"""

# Loaded only by a run that fetches, reads a feed, or checks.
_NETWORK = (
    "aiohttp",
    "tenacity",
    "urllib.request",
    "http.client",
    "sitemap_reader._io._http._fetch",
)
_FEEDS = ("feedparser",)
# Loaded by no run: robots.txt rules are matched by the project's own matcher; Protego is
# the tests' reference only (tests/core/test_robots_match.py).
_ROBOTS = ("protego",)
# Loaded only by a run with a state file (sqlite3, the spool of held-back bodies), by
# ``--version`` and the report page (the metadata), by feeds' RFC 822 dates (email) or by
# check (its codes).
_ON_DEMAND = (
    "sqlite3",
    "tempfile",
    "importlib.metadata",
    "email",
    "secrets",
    "sitemap_reader._io._state._sqlite",
    "sitemap_reader._check._codes",
)
_CHECKS = (
    "sitemap_reader._check._checker",
    "sitemap_reader._check._lint",
    "sitemap_reader._check._text",
    "sitemap_reader._check._report",
    "sitemap_reader._check._charts",
)


def _run(tmp_path: Path, *argv: str) -> tuple[str, set[str]]:
    """The command's stdout and the modules loaded once it ended (status 0)."""
    report = tmp_path / "modules.json"
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, str(report), *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(report.read_text())
    assert result["status"] == 0, proc.stderr
    return proc.stdout, set(result["modules"])


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [n for n in names if any(m == n or m.startswith(n + ".") for m in modules)]


@pytest.fixture
def sitemap(tmp_path: Path) -> Path:
    path = tmp_path / "sitemap.xml"
    blocks = (f"<url><loc>https://example.com/{name}</loc></url>" for name in "ab")
    path.write_text(urlset(*blocks))
    return path


def test_a_local_dump_loads_no_network_no_feed_reader_and_no_checks(
    tmp_path: Path, sitemap: Path
) -> None:
    out, modules = _run(tmp_path, "dump", str(sitemap), "--format", "txt")
    assert out.split() == ["https://example.com/a", "https://example.com/b"]
    assert "sitemap_reader._io._walk._walker" in modules  # the walk ran, in this process
    assert _loaded(modules, _NETWORK) == []
    assert _loaded(modules, _FEEDS) == []
    assert _loaded(modules, _ROBOTS) == []
    assert _loaded(modules, _CHECKS) == []
    assert _loaded(modules, _ON_DEMAND) == []


def test_a_dump_with_a_state_file_loads_the_store(tmp_path: Path, sitemap: Path) -> None:
    """The other side of the on-demand list: a state file brings the SQLite store, and the
    names the package exports lazily are the same objects as their modules'."""
    state = tmp_path / "state.sqlite"
    _, modules = _run(tmp_path, "dump", str(sitemap), "--format", "txt", "--state", str(state))
    assert _loaded(modules, ("sqlite3", "sitemap_reader._io._state._sqlite")) == [
        "sqlite3",
        "sitemap_reader._io._state._sqlite",
    ]
    assert state.stat().st_size > 0
    code = (
        "import sitemap_reader as sr; from sitemap_reader._io._state import _sqlite; "
        "from sitemap_reader._check import _codes; "
        "assert sr.SqliteStateStore is _sqlite.SqliteStateStore; "
        "assert sr.Severity is _codes.Severity; print(sr.__version__)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip() and proc.stdout.strip()[0].isdigit()


def test_importing_the_library_loads_no_compiled_writer() -> None:
    """``import sitemap_reader`` takes the JSON object of an Entry from the writers' module:
    the compiled writer and the switch that chooses it load only when a writer is made
    (the extension itself is loaded: the compiled core reads the documents)."""
    code = "import sys, sitemap_reader; print('\\n'.join(sys.modules))"
    modules = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
        ).stdout.split()
    )
    assert "sitemap_reader._output._lines" in modules
    assert _loaded(modules, ("sitemap_reader._output._compiled",)) == []


def test_check_loads_its_findings_and_outputs_when_it_runs(tmp_path: Path, sitemap: Path) -> None:
    """The other side: what a local dump leaves out is what ``check`` loads (so the first
    test names modules that exist and are imported where they are used)."""
    out, modules = _run(tmp_path, "check", str(sitemap), "--format", "json")
    assert json.loads(out.splitlines()[-1])["summary"]["by_severity"]["error"] == 0
    assert _loaded(modules, _CHECKS) == list(_CHECKS)
    assert _loaded(modules, _NETWORK) == []


def test_a_local_feed_loads_feedparser_and_still_no_network(tmp_path: Path) -> None:
    feed = tmp_path / "feed.xml"
    feed.write_text(
        '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
        "<item><link>https://example.com/post</link></item></channel></rss>"
    )
    out, modules = _run(tmp_path, "dump", str(feed), "--format", "txt")
    assert out.split() == ["https://example.com/post"]
    assert "feedparser" in modules
    assert _loaded(modules, ("aiohttp", "tenacity", "sitemap_reader._io._http._fetch")) == []


def test_the_help_of_every_command_loads_no_walk(tmp_path: Path) -> None:
    """argparse's registration stays light: the walk's machinery loads when a command runs."""
    code = (
        "import sys; from sitemap_reader._cli import _build_parser; _build_parser(); "
        "print('\\n'.join(sys.modules))"
    )
    modules = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
        ).stdout.split()
    )
    assert "sitemap_reader._cli._dump" in modules
    walk = (
        "sitemap_reader._api._reader",
        "sitemap_reader._io._walk._walker",
        "sitemap_reader._io._walk._pool",
    )
    assert _loaded(modules, walk + _NETWORK + _CHECKS) == []
