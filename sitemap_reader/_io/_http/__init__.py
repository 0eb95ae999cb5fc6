"""HTTP: the guarded aiohttp session, hops, streaming, codings, retries."""

from __future__ import annotations
