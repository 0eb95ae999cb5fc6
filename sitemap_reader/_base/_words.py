"""How values and counts are worded in messages: quoted and cut, counted in number."""

from __future__ import annotations


def shorten(value: str, limit: int = 80) -> str:
    """A value as quoted in a message: repr, cut to ``limit`` characters."""
    return repr(value if len(value) <= limit else value[:limit] + "...")


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 sitemap``, ``2 sitemaps``, ``1,024 URLs``; ``many`` for a word not made plural
    with an s (``index``, ``indexes``)."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {many or word + 's'}"


def byte_size(n: int) -> str:
    """``50 MB`` for 52,428,800 (powers of 1024, as the size options read them), else bytes."""
    for unit, scale in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if n >= scale and n % scale == 0:
            return f"{n // scale:,} {unit}"
    return plural(n, "byte")
