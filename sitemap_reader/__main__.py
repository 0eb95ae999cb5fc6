"""``python -m sitemap_reader``."""

from __future__ import annotations

from ._cli import entrypoint

entrypoint()
