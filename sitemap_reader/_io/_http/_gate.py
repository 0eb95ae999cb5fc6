"""A host gate: a bound on the requests to one host shared beyond one reader.

A reader bounds its own requests per host (``Limits.per_host``); many readers at once (the
tasks of a Dask cluster) need a bound they share. The fetcher passes every request attempt
(its redirect hops included) through :func:`passage`, which asks the gate for a turn at the
requested URL's host before and gives it back after the body is read. Without a gate,
nothing is asked.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Protocol

from ..._base._errors import LimitExceeded
from ..._base._models import ProblemKind
from ._pace import host_of


class HostGate(Protocol):
    """Turns at hosts, shared by whoever holds the same gate (or its twin in another
    process): at most some number of holders per host at once."""

    async def enter(self, host: str, timeout: float | None) -> bool:
        """Wait for a turn at ``host`` (``host:port``), at most ``timeout`` seconds (None:
        as long as it takes); False when none came in time."""
        ...

    def leave(self, host: str) -> None:
        """Give back a turn :meth:`enter` gave. It must not block: it runs in ``finally``
        blocks, a cancelled request's included."""
        ...


@asynccontextmanager
async def passage(gate: HostGate | None, url: str, deadline: float | None) -> AsyncIterator[None]:
    """Hold a turn at ``url``'s host for the block; the wait ends at the run's deadline
    (``time.monotonic()``), as every other wait of a run does."""
    if gate is None:
        yield
        return
    host = host_of(url)  # the pace's key too
    timeout = None if deadline is None else max(deadline - time.monotonic(), 0.0)
    if not await gate.enter(host, timeout):
        raise LimitExceeded(
            f"the run's deadline came while waiting for a turn at {host}",
            url=url,
            kind=ProblemKind.DEADLINE,
        )
    try:
        yield
    finally:
        gate.leave(host)
