"""SIGTERM taken as Ctrl-C: a run stopped by ``kill`` ends as an interrupted one does (its
temporary files removed, one line on stderr), with exit status 143 instead of 130."""

from __future__ import annotations

import signal
from types import FrameType

_received: list[int] = []  # the signals that stopped the run, in order


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
    else:  # SIGINT ignored (a background job of a shell): stop all the same
        raise KeyboardInterrupt


def interrupted() -> tuple[int, str]:
    """The exit status and the stderr line of a run stopped by a signal."""
    if signal.SIGTERM in _received:
        return 128 + signal.SIGTERM, "sitemap-reader: interrupted (SIGTERM)"
    return 128 + signal.SIGINT, "sitemap-reader: interrupted"
