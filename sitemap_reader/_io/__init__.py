"""Network and disk: the aiohttp fetcher, the walk over a site's sitemaps."""

from __future__ import annotations
