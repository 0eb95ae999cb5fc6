"""One run at a time per state file: real processes on one file, a real flock.

A holder is ``python -m sitemap_reader dump --state FILE`` whose index the loopback server
keeps back (a gate the test opens), so it holds the file for as long as the test needs.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from sitemap_reader import (
    Incremental,
    ReaderConfig,
    SitemapReader,
    SqliteStateStore,
    StateError,
    StateLocked,
)
from sitemap_reader._io._state._kept import KeptEntries
from tests.support.cli import run_cli
from tests.support.http_site import (
    FAST,
    Served,
    ThreadedServer,
    gated,
    urlset,
    xml,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")


def dump(s: Served, path: str, state: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "sitemap_reader", "dump", s.a(path), "--state", str(state), *more]


def until(done: object, what: str) -> None:
    """Poll ``done()`` (bounded, so a broken test fails instead of hanging)."""
    for _ in range(2000):
        if done():  # type: ignore[operator]
            return
        time.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


@contextmanager
def holder(s: Served, state: Path, gate: threading.Event) -> Iterator[subprocess.Popen[bytes]]:
    """A run holding ``state``: its index is answered once ``gate`` opens."""
    s.add("/held.xml", gated(xml(urlset(s.a("/p/held"))), gate, timeout=60))
    proc = subprocess.Popen(dump(s, "/held.xml", state, "-q"), stdout=subprocess.DEVNULL)
    try:
        until(lambda: s.count("/held.xml") or proc.poll() is not None, "the holder's request")
        assert proc.poll() is None, "the holder ended before holding the state file"
        yield proc
    finally:
        gate.set()
        try:
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()


@pytest.fixture
def site() -> Iterator[Served]:
    with ThreadedServer() as s:
        s.add("/other.xml", xml(urlset(s.a("/p/other"))))
        yield s


def test_a_second_run_exits_2_naming_the_holder_while_state_show_reads(
    site: Served, tmp_path: Path
) -> None:
    state = tmp_path / "state.sqlite"
    gate = threading.Event()
    with holder(site, state, gate) as first:
        refused = run_cli("dump", site.a("/other.xml"), "--state", str(state))
        shown = run_cli("state", "show", str(state))

        assert refused.returncode == 2
        err = refused.stderr.decode()
        assert f"process {first.pid}" in err and str(state) in err
        assert site.count("/other.xml") == 0  # refused before any request
        assert shown.returncode == 0, shown.stderr.decode()
        gate.set()
        assert first.wait(timeout=60) == 0

    again = run_cli("dump", site.a("/other.xml"), "--state", str(state))
    assert again.returncode == 0, again.stderr.decode()
    assert site.count("/other.xml") == 1


def test_with_wait_the_second_run_starts_once_the_first_ends(site: Served, tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    gate = threading.Event()
    with holder(site, state, gate) as first:
        second = subprocess.Popen(
            dump(site, "/other.xml", state, "--wait", "60", "--no-progress"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            assert second.stderr is not None
            said = second.stderr.readline().decode()  # it says it waits, then waits
            assert f"in use by process {first.pid}: waiting up to 60s" in said
            assert site.count("/other.xml") == 0
            gate.set()
            assert first.wait(timeout=60) == 0
            rest = second.communicate(timeout=60)[1].decode()
            assert second.returncode == 0, rest
        finally:
            if second.poll() is None:
                second.kill()
            if second.stderr is not None:
                second.stderr.close()
    assert site.count("/other.xml") == 1
    # Its one request came after the holder's answer: it ran after the first, not beside it.
    assert site.site.times("/other.xml")[0] >= site.site.served_at["/held.xml"]


def test_a_killed_holder_frees_the_file(site: Served, tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    gate = threading.Event()
    with holder(site, state, gate) as first:
        os.kill(first.pid, signal.SIGKILL)
        assert first.wait(timeout=60) == -signal.SIGKILL
        after = run_cli("dump", site.a("/other.xml"), "--state", str(state))
    assert after.returncode == 0, after.stderr.decode()
    assert site.count("/other.xml") == 1


# -- the library ------------------------------------------------------------------------------


async def test_the_library_raises_state_locked_and_waits_when_told(tmp_path: Path) -> None:
    """A second reader on the file (a path or a SqliteStateStore of it) is refused with
    StateLocked naming the file and this process; with ``Incremental.wait`` it opens once
    the first closes. A store in memory is never locked."""
    path = tmp_path / "state.sqlite"
    async with SitemapReader(FAST, state=path):
        with pytest.raises(StateLocked) as refused:
            async with SitemapReader(FAST, state=str(path)):
                pass
        assert isinstance(refused.value, StateError)
        assert refused.value.path == str(path) and refused.value.pid == os.getpid()
        assert str(path) in str(refused.value) and str(os.getpid()) in str(refused.value)
        store = SqliteStateStore(path)  # reading needs no lock
        try:
            with pytest.raises(StateLocked):
                async with SitemapReader(FAST, state=store):
                    pass
            with pytest.raises(StateLocked):  # as the Scrapy spider wraps it
                async with SitemapReader(FAST, state=KeptEntries(store)):
                    pass
        finally:
            store.close()

        waiting = ReaderConfig(allow_private=True, incremental=Incremental(wait=60))
        second = asyncio.ensure_future(SitemapReader(waiting, state=path).__aenter__())
        for _ in range(5):
            await asyncio.sleep(0)
        assert not second.done()
    reader = await asyncio.wait_for(second, timeout=60)
    try:
        brief = ReaderConfig(allow_private=True, incremental=Incremental(wait=0.2))
        with pytest.raises(StateLocked):  # waited its while, then refused
            async with SitemapReader(brief, state=path):
                pass
    finally:
        await reader.aclose()

    async with SitemapReader(FAST, state=":memory:"), SitemapReader(FAST, state=":memory:"):
        pass


def test_wait_is_not_negative() -> None:
    with pytest.raises(ValueError, match="wait"):
        Incremental(wait=-1)
