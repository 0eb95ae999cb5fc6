"""How many cores this process may run on: ``--workers auto`` and the parse threads' auto."""

from __future__ import annotations

import os


def available_cores() -> int:
    """The cores this process may run on (its affinity mask, where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
