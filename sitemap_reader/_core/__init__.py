"""The sans-IO core: bytes in, records out.

Nothing here imports asyncio, aiohttp, sqlite3 or logging, reads a clock, or touches the
network or a file (h11's rule: "contains no IO code whatsoever").
"""

from __future__ import annotations
