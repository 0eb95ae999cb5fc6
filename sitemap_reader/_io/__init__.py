"""Network and disk: HTTP, incremental state, and the walk over a site's sitemaps."""

from __future__ import annotations
