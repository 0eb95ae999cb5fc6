"""SIGTERM taken as Ctrl-C: a run stopped by ``kill`` ends as an interrupted one does (its
temporary files removed, one line on stderr), with exit status 143 instead of 130."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

_received: list[int] = []  # the signals that stopped the run, in order
_running: list[asyncio.Task[object]] = []  # the task of the run under way, if any


def stop_on_sigterm() -> None:
    """From now on SIGTERM does what SIGINT does (call from the main thread)."""
    signal.signal(signal.SIGTERM, _on_sigterm)


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    # The handler SIGINT has now: inside asyncio.run, the runner's (it cancels the main
    # task, so every ``finally`` runs, and it raises KeyboardInterrupt on a second signal);
    # elsewhere Python's default one (it raises KeyboardInterrupt).
    on_sigint = signal.getsignal(signal.SIGINT)
    if callable(on_sigint):
        on_sigint(signal.SIGINT, frame)
    elif _running and len(_received) == 1:
        # SIGINT ignored (``cmd &`` in a script), so asyncio.run installed no handler to
        # borrow: do what it does, cancel the run's task (every ``finally`` runs). Raising
        # here instead would kill whichever task runs and leave the loop in pieces.
        task = _running[-1]
        task.cancel()
        task.get_loop().call_soon_threadsafe(lambda: None)  # wake a loop blocked in select()
    else:  # no run under way, or a second signal
        raise KeyboardInterrupt


@contextlib.contextmanager
def cancelled_by_sigterm() -> Iterator[None]:
    """Around a run's task (inside the event loop): a SIGTERM cancels it when SIGINT is
    ignored, and the cancellation comes out as KeyboardInterrupt, as Ctrl-C's does."""
    task = asyncio.current_task()
    assert task is not None
    _running.append(task)
    try:
        yield
    except asyncio.CancelledError:
        if signal.SIGTERM not in _received:
            raise
        raise KeyboardInterrupt from None
    finally:
        _running.remove(task)


def interrupted() -> tuple[int, str]:
    """The exit status and the stderr line of a run stopped by a signal."""
    if signal.SIGTERM in _received:
        return 128 + signal.SIGTERM, "sitemap-reader: interrupted (SIGTERM)"
    return 128 + signal.SIGINT, "sitemap-reader: interrupted"
