"""The sans-IO core: bytes in, records out.

Nothing here imports asyncio, aiohttp, sqlite3 or logging, reads a clock, or touches the
network or a file (h11's rule: "contains no IO code whatsoever"). The XML reader, the other
formats and the walk's judgements each have a folder; the parser that routes between them,
the content codings, charsets and dates sit here.
"""

from __future__ import annotations
