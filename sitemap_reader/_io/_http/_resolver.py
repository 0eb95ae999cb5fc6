"""The SSRF guard's resolver for the reader's own session (``._guard`` says why): aiohttp's
default resolver, less the addresses an untrusted host may not reach (a proxy's host is the
user's choice: let through). Apart from the guard,
so that only a run that fetches loads aiohttp."""

from __future__ import annotations

import socket

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

from ._guard import Guard, Refused, special


class GuardedResolver(AbstractResolver):
    """aiohttp's default resolver, less the addresses an untrusted host may not reach."""

    def __init__(self, guard: Guard) -> None:
        self._guard = guard
        self._inner = DefaultResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        if self._guard.trusts(host) or self._guard.is_proxy(host):
            return results
        allowed = [r for r in results if special(r["host"]) is None]
        if not allowed and results:
            first = results[0]
            refusal = self._guard.refusal(host, first["host"], f"{host}:{port}")
            assert refusal is not None
            raise Refused(refusal)
        return allowed

    async def close(self) -> None:
        await self._inner.close()
