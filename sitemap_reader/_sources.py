"""How a source is named: an http(s) URL as given, ``-`` for stdin, a local file by its
absolute path (so a ``sitemap`` field, a Leaf's root and a source column agree)."""

from __future__ import annotations

import os


def is_url(source: str) -> bool:
    return source.lower().startswith(("http://", "https://"))


def source_name(source: str | os.PathLike[str]) -> str:
    """The name the walk gives ``source``: a URL string as it is, anything else a path."""
    if isinstance(source, str) and is_url(source):
        return source
    name = os.fspath(source)
    return name if name == "-" else os.path.abspath(name)
