"""The formats other than sitemap XML: RSS/Atom feeds, plain-text lists, robots.txt."""

from __future__ import annotations
