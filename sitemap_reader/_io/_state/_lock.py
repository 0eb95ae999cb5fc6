"""One run at a time per state file: an OS lock on a sibling lock file, held for the run.

``flock(2)`` on ``<state file>.lock``: the kernel drops it when its process ends, however it
ends, so a killed run never leaves the file locked; SQLite's own (POSIX) locks on the
database are a separate kind and undisturbed. The holder writes its PID into the lock file
so that a refused run can say which process holds it. Readers (``state show``) take no
lock: SQLite's WAL lets them read while a run writes. The lock file stays after the run
(removing it would race with the next run locking it).
"""

from __future__ import annotations

import asyncio
import os
import time

from ..._base._errors import StateError, StateLocked

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock, runs are not serialised
    fcntl = None  # type: ignore[assignment]

LOCK_SUFFIX = ".lock"
POLL = 0.05  # seconds between tries while waiting for the holder to end


class RunLock:
    """The lock a run holds on a state file; :meth:`release` (or the process's end) frees it."""

    def __init__(self, path: str, fd: int) -> None:
        self.path = path  # the lock file
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None


def lock_path(state_path: str) -> str:
    return state_path + LOCK_SUFFIX


async def hold(state_path: str, wait: float = 0.0) -> RunLock:
    """The run lock on ``state_path``, waiting up to ``wait`` seconds for its holder to end."""
    ends = time.monotonic() + wait
    while isinstance(got := _attempt(state_path), StateLocked):
        left = ends - time.monotonic()
        if left <= 0:
            raise got
        await asyncio.sleep(min(POLL, left))
    return got


def _attempt(state_path: str) -> RunLock | StateLocked:
    """The lock, or what refusing it says (returned: waiting tries again)."""
    path = lock_path(state_path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StateError(
            f"cannot open the lock file {path} of the state file: {exc.strerror or exc}",
            path=state_path,
        ) from exc
    if fcntl is None:  # pragma: no cover
        return RunLock(path, fd)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = _holder(fd)
        os.close(fd)
        who = "another process" if pid is None else f"process {pid}"
        return StateLocked(
            f"the state file {state_path} is in use by {who} (its lock file {path}): one run "
            "at a time per state file; wait for it to end (--wait) or use another file",
            path=state_path,
            pid=pid,
        )
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return RunLock(path, fd)


def _holder(fd: int) -> int | None:
    """The PID the holder wrote (None: not written yet, or not a PID)."""
    try:
        return int(os.pread(fd, 32, 0).decode("ascii").strip())
    except (OSError, UnicodeDecodeError, ValueError):
        return None
