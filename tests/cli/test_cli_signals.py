"""The command line stopped from outside, as a real process: its stdout pipe closed by the
reader (``| head -1``), Ctrl-C (SIGINT) and SIGTERM at several moments of a read of a
loopback site big enough to be mid-read. Each run ends within a few seconds: exit 0 for the
closed pipe, 130 or 143 with one line on stderr for a signal, no traceback, and the ``-o``
file left as it was with no temporary file beside it.

The site: an index of a few fast children of thousands of URLs each, and one last child
that trickles for minutes, so no run can end on its own while a test waits for it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.http_site import (
    Served,
    ThreadedServer,
    gz_file,
    hang,
    sitemapindex,
    trickle,
    xml,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import _generate  # found through the path set above

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals and pipes")

FAST_CHILDREN = 4
PER_CHILD = 8_000  # about 2 MB a child: the fast ones take a few seconds to write out
BIG = 150_000  # URLs of the child that keeps the reader busy parsing (a second or so)
# A guard against a hang, not a measure: the runs read a site that never ends or a long one,
# and the exit status and stderr show it was the signal that ended them.
WITHIN = 60.0
PREVIOUS = "the last good output\n"


@dataclass
class Site:
    served: Served
    txt_bytes: int  # what the fast children come to as --format txt

    def index(self) -> str:
        return self.served.a("/index.xml")

    def requested(self, path: str) -> Callable[[], bool]:
        """Whether ``path`` was requested since this call."""
        before = self.served.count(path)
        return lambda: self.served.count(path) > before


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with ThreadedServer() as served:
        base = served.a("")
        doc = _generate.plain_sitemap(PER_CHILD, base_url=base)
        children = [served.a(f"/c{i}.xml") for i in range(FAST_CHILDREN)]
        served.add("/index.xml", xml(sitemapindex(*children, served.a("/slow.xml"))))
        for i in range(FAST_CHILDREN):
            served.add(f"/c{i}.xml", xml(doc))
        served.add("/slow.xml", trickle(doc, 1_000, 0.05))  # about 3 minutes
        served.add("/stuck.xml", hang(120))  # not a byte of an answer
        # One child the reader takes a second or more of CPU to parse: a signal then lands
        # in the middle of a worker's parse rather than in a wait.
        served.add("/big.xml.gz", gz_file(_generate.plain_sitemap(BIG, base_url=base)))
        locs = _generate.url_specs(PER_CHILD, base_url=base)
        yield Site(served, FAST_CHILDREN * sum(len(s.loc) + 1 for s in locs))


@contextmanager
def dump(
    *argv: str,
    stdout: int = subprocess.DEVNULL,
    sigint_ignored: bool = False,
) -> Iterator[subprocess.Popen[bytes]]:
    """``python -m sitemap_reader dump ARGV``, killed if a test leaves it running; with
    ``sigint_ignored``, started as a shell starts a background job (SIGINT ignored)."""
    command = [sys.executable, "-m", "sitemap_reader", "dump", "--no-progress", *argv]
    if sigint_ignored:  # an ignored signal stays ignored across exec
        command = ["sh", "-c", 'trap "" INT; exec "$@"', "sh", *command]
    proc = subprocess.Popen(command, stdout=stdout, stderr=subprocess.PIPE)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def wait_for(what: str, ready: Callable[[], bool], proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while not ready():
        assert proc.poll() is None, f"the run ended before {what}: {proc.stderr.read()!r}"  # type: ignore[union-attr]
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.02)


def ends(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    """The exit status and the stderr, once the run ended."""
    try:
        proc.wait(timeout=WITHIN)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running {WITHIN} s later")
    assert proc.stderr is not None
    return proc.returncode, proc.stderr.read().decode()


def temp_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".sitemap-reader-"))


def written(folder: Path) -> int:
    """Bytes in the temporary file beside -o (0 before it has any)."""
    sizes = [(folder / name).stat().st_size for name in temp_files(folder)]
    return max(sizes, default=0)


# -- the closed pipe --------------------------------------------------------------------------


def test_a_closed_pipe_ends_the_run_at_once_with_exit_0(site: Site) -> None:
    """``dump SITE | head -1``: the reader of stdout takes a line and goes away."""
    with dump(site.index(), stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        proc.stdout.close()  # as head does after its line

        status, err = ends(proc)

    assert first.startswith(b'{"loc": "' + site.served.a("/").encode())
    assert status == 0, err
    assert "Traceback" not in err and "Exception ignored" not in err, err


# -- signals ------------------------------------------------------------------------------------

MOMENTS = ("before the first byte", "mid-read", "near the end")


def start_at(moment: str, site: Site, target: Path) -> Callable[[subprocess.Popen[bytes]], None]:
    """The source for ``moment``, and a wait until the run is there."""
    folder = target.parent
    if moment == "before the first byte":
        requested = site.requested("/stuck.xml")
        return lambda proc: wait_for("the request", requested, proc)
    if moment == "mid-read":
        return lambda proc: wait_for("records", lambda: written(folder) > 0, proc)
    return lambda proc: wait_for(
        "most records", lambda: written(folder) >= 0.9 * site.txt_bytes, proc
    )


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize(
    ("signum", "status", "line"),
    [
        (signal.SIGINT, 130, "sitemap-reader: interrupted"),
        (signal.SIGTERM, 143, "sitemap-reader: interrupted (SIGTERM)"),
    ],
    ids=["SIGINT", "SIGTERM"],
)
def test_a_signal_ends_the_run_leaving_the_output_as_it_was(
    site: Site, tmp_path: Path, moment: str, signum: int, status: int, line: str
) -> None:
    target = tmp_path / "urls.txt"
    target.write_text(PREVIOUS)
    source = site.served.a("/stuck.xml") if moment == "before the first byte" else site.index()
    reached = start_at(moment, site, target)

    with dump(source, "--format", "txt", "-o", str(target)) as proc:
        reached(proc)
        proc.send_signal(signum)
        got, err = ends(proc)

    assert got == status, err
    assert err.splitlines() == [line], err
    assert target.read_text() == PREVIOUS
    assert temp_files(tmp_path) == []


@pytest.mark.parametrize("after", [0.0, 0.1, 0.3])
def test_sigterm_with_sigint_ignored_ends_the_run_as_cleanly(
    site: Site, tmp_path: Path, after: float
) -> None:
    """``sitemap-reader dump ... &`` in a script, then ``kill``: the shell starts the job with
    SIGINT ignored, so asyncio installs no Ctrl-C handler to borrow; SIGTERM in the middle of
    a parse still cancels the run rather than raising in whatever task runs (tracebacks, an
    unclosed session, a closed loop)."""
    target = tmp_path / "urls.txt"
    target.write_text(PREVIOUS)

    with dump(
        site.served.a("/big.xml.gz"),
        "--format",
        "txt",
        "-o",
        str(target),
        sigint_ignored=True,
    ) as proc:
        wait_for("records", lambda: written(tmp_path) > 0, proc)
        time.sleep(after)
        proc.send_signal(signal.SIGTERM)
        got, err = ends(proc)

    assert got == 143, err
    assert err.splitlines() == ["sitemap-reader: interrupted (SIGTERM)"], err
    assert target.read_text() == PREVIOUS
    assert temp_files(tmp_path) == []


def test_sigterm_while_stdout_is_read_ends_the_same_way(site: Site) -> None:
    """Without -o too: records were flowing to a reader that keeps reading."""
    lines: list[bytes] = []
    with dump(site.index(), stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        out = proc.stdout
        drain = threading.Thread(target=lambda: lines.extend(out), daemon=True)
        drain.start()
        wait_for("records", lambda: len(lines) > 100, proc)
        proc.send_signal(signal.SIGTERM)
        status, err = ends(proc)
        drain.join(timeout=WITHIN)

    assert status == 143, err
    assert err.splitlines() == ["sitemap-reader: interrupted (SIGTERM)"], err


@pytest.mark.parametrize(
    ("signum", "status", "line"),
    [
        (signal.SIGINT, 130, "sitemap-reader: interrupted"),
        (signal.SIGTERM, 143, "sitemap-reader: interrupted (SIGTERM)"),
    ],
    ids=["SIGINT", "SIGTERM"],
)
@pytest.mark.parametrize("source", ["/big.xml.gz", "/index.xml"])
def test_a_signal_while_threads_parse_ends_the_run_as_inline(
    site: Site, tmp_path: Path, source: str, signum: int, status: int, line: str
) -> None:
    """``--parse-threads 2``: the signal lands while a parse thread is in a feed (the large
    child, or the index's children two at a time); the run ends as an inline one does,
    the call in the thread waited for, not left running with the parser."""
    target = tmp_path / "urls.txt"
    target.write_text(PREVIOUS)

    argv = ("--parse-threads", "2", "--format", "txt", "-o", str(target))
    with dump(site.served.a(source), *argv) as proc:
        wait_for("records", lambda: written(tmp_path) > 0, proc)
        proc.send_signal(signum)
        got, err = ends(proc)  # (within WITHIN seconds, or it fails)

    assert got == status, err
    assert err.splitlines() == [line], err
    assert target.read_text() == PREVIOUS
    assert temp_files(tmp_path) == []
