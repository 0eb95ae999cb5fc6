"""``python -m sitemap_reader._cli``, as ``python -m sitemap_reader``."""

from __future__ import annotations

from . import entrypoint

entrypoint()
