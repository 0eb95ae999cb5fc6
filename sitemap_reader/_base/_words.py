"""How values and counts are worded in messages: quoted and cut, counted in number."""

from __future__ import annotations


def shorten(value: str, limit: int = 80) -> str:
    """A value as quoted in a message: repr, cut to ``limit`` characters."""
    return repr(value if len(value) <= limit else value[:limit] + "...")


def plural(n: int, word: str) -> str:
    """``1 sitemap``, ``2 sitemaps``, ``1,024 URLs``."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"
