"""The facade: SitemapReader (async) and the blocking wrappers over it."""

from __future__ import annotations
