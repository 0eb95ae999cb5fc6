"""The small helpers the package shares (issue 10, item 6): async code run from sync code
(``run_blocking``, ``iterate_blocking``) and the name a source is given (``source_name``)."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncGenerator
from pathlib import Path

import pytest

from sitemap_reader._api._sync import iterate_blocking, run_blocking
from sitemap_reader._base._sources import is_url, source_name


async def _where() -> tuple[str, bool]:
    await asyncio.sleep(0)
    return threading.current_thread().name, asyncio.get_running_loop().is_running()


def test_run_blocking_outside_a_loop_runs_here() -> None:
    """From sync code the work runs to its end on this thread, on a loop of its own."""
    assert run_blocking(_where) == (threading.current_thread().name, True)


async def test_run_blocking_inside_a_loop_uses_a_thread_or_refuses() -> None:
    """Inside a running loop (a notebook, Dask's synchronous scheduler) the work runs on a
    thread of its own; with ``refuse`` that message is raised instead, and nothing runs."""
    name, running = run_blocking(_where)
    assert running and name != threading.current_thread().name
    started: list[bool] = []

    async def work() -> None:
        started.append(True)

    with pytest.raises(RuntimeError, match=r"^use await$"):
        run_blocking(work, refuse="use await")
    assert started == []


async def test_iterate_blocking_streams_from_a_thread_of_its_own() -> None:
    """Inside a running loop too, an async generator's items come over from a thread and
    loop of its own, one at a time; its exception is raised here with its type, and the
    generator is closed (its ``finally`` ran) before the iteration ends."""
    here = threading.current_thread().name
    closed: list[str] = []

    async def items() -> AsyncGenerator[str, None]:
        try:
            for i in range(3):
                yield f"{i} {threading.current_thread().name != here}"
            raise KeyError("the producer's own error")
        finally:
            closed.append("closed")

    got: list[str] = []
    with pytest.raises(KeyError, match="the producer's own error"):
        got.extend(iterate_blocking(items))
    assert got == ["0 True", "1 True", "2 True"]
    assert closed == ["closed"]


def test_source_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A URL as given, ``-`` for stdin, a path (str or PathLike) made absolute."""
    monkeypatch.chdir(tmp_path)
    assert source_name("HTTPS://Example.com/a b") == "HTTPS://Example.com/a b"
    assert source_name("-") == "-"
    here = os.getcwd()  # tmp_path with any symbolic link resolved
    assert source_name("sitemap.xml") == os.path.join(here, "sitemap.xml")
    assert source_name(Path("sub") / "s.xml") == os.path.join(here, "sub", "s.xml")
    assert source_name(os.path.join(here, "a", "..", "s.xml")) == os.path.join(here, "s.xml")
    assert is_url("http://a/") and is_url("Https://a/") and not is_url("file:///a")
