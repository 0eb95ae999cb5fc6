"""The command line run from a test: in a subprocess, or in-process on a worker thread."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest

from sitemap_reader._cli import main


def run_cli(
    *argv: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``python -m sitemap_reader ARGV`` in a subprocess (with ``env`` added to the
    environment), bounded in time."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "sitemap_reader", *argv],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
        env=env,
    )


def jsonl(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines()]


def stderr_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line]


async def cli(*argv: str) -> int:
    """``main(argv)`` on a worker thread, so the test's loop keeps serving meanwhile."""
    return await asyncio.to_thread(main, list(argv))


def main_captured(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``main(argv)`` in this thread: its exit status, stdout and stderr."""
    capsys.readouterr()
    code = main(list(argv))
    got = capsys.readouterr()
    return code, got.out, got.err
