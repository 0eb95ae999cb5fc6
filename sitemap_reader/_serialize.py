"""Records as plain data: the JSON object of an Entry, as the command line writes it."""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime
from typing import Any

from ._models import Alternate, Entry, Image, News, Video


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value.value if hasattr(value, "value") else value


_FIELDS = {cls: tuple(f.name for f in fields(cls)) for cls in (Image, Video, News, Alternate)}


def _extension(record: Image | Video | News | Alternate) -> dict[str, Any]:
    out = {}
    for name in _FIELDS[type(record)]:
        value = getattr(record, name)
        if value is not None and value != ():
            out[name] = _plain(value)
    return out


def entry_to_dict(entry: Entry) -> dict[str, Any]:
    """The JSON object of ``entry``: the scalar fields always (null when absent), then
    ``images``, ``videos``, ``news`` and ``alternates`` when the entry has any."""
    out: dict[str, Any] = {
        "loc": entry.loc,
        "lastmod": entry.lastmod.isoformat() if entry.lastmod is not None else None,
        "changefreq": entry.changefreq.value if entry.changefreq is not None else None,
        "priority": entry.priority,
        "sitemap": entry.sitemap,
    }
    for name in ("images", "videos", "news", "alternates"):
        records = getattr(entry, name)
        if records:
            out[name] = [_extension(r) for r in records]
    return out
