"""Records as plain data: the JSON object of an Entry, and the command line's writers of
entries and changes as jsonl, csv and txt (the jsonl line written out by hand, equal to
``json.dumps(entry_to_dict(entry))``)."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from dataclasses import fields
from datetime import datetime, timedelta
from typing import IO, Any

from ._models import Alternate, Entry, EntryChange, Image, News, Video


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


# -- writers: a batch of records at a time, to a text stream -------------------------------------

_encode = json.encoder.encode_basestring  # C-accelerated: quotes and escapes a str


def entry_writer(fmt: str, out: IO[str]) -> Callable[[list[Entry]], None]:
    """Entries as ``fmt``: jsonl (entry_to_dict), csv (a header row, the scalar columns) or
    txt (one loc a line). A csv header is written at once."""
    if fmt == "txt":

        def write_txt(entries: list[Entry]) -> None:
            out.write("".join([e.loc + "\n" for e in entries]))

        return write_txt
    if fmt == "csv":
        rows = csv.writer(out, lineterminator="\n")
        rows.writerow(("loc", "lastmod", "changefreq", "priority", "sitemap"))

        def write_csv(entries: list[Entry]) -> None:
            rows.writerows(
                (
                    e.loc,
                    _iso(e.lastmod) if e.lastmod is not None else "",
                    e.changefreq.value if e.changefreq is not None else "",
                    repr(e.priority) if e.priority is not None else "",
                    e.sitemap,
                )
                for e in entries
            )

        return write_csv

    def write_jsonl(entries: list[Entry]) -> None:
        out.write("".join([json_line(e) for e in entries]))

    return write_jsonl


def change_writer(fmt: str, out: IO[str]) -> Callable[[list[EntryChange]], None]:
    """The change feed: loc, lastmod, sitemap and change (the store keeps no other field)."""
    if fmt == "txt":

        def write_txt(changes: list[EntryChange]) -> None:
            out.write("".join([f"{c.change.value}\t{c.loc}\n" for c in changes]))

        return write_txt
    if fmt == "csv":
        rows = csv.writer(out, lineterminator="\n")
        rows.writerow(("loc", "lastmod", "sitemap", "change"))

        def write_csv(changes: list[EntryChange]) -> None:
            rows.writerows(
                (c.loc, "" if c.lastmod is None else _iso(c.lastmod), c.sitemap, c.change.value)
                for c in changes
            )

        return write_csv

    def write_jsonl(changes: list[EntryChange]) -> None:
        out.write("".join([change_line(c) for c in changes]))

    return write_jsonl


_ISO: dict[tuple[datetime, timedelta | None], str] = {}


def _iso(value: datetime) -> str:
    # Sitemaps repeat a few dates many times, and parse_datetime hands back one object each.
    # Keyed with the offset too: aware datetimes compare by instant, so 10:00+01:00 and
    # 09:00+00:00 are one key, and the first one's text would be written for both.
    key = (value, value.utcoffset())
    text = _ISO.get(key)
    if text is None:
        if len(_ISO) > 4_096:  # bounded: with distinct dates it only costs memory
            _ISO.clear()
        text = _ISO[key] = value.isoformat()
    return text


def json_line(e: Entry) -> str:
    """One JSON object, as json.dumps(entry_to_dict(e), ensure_ascii=False) writes it.

    Written out by hand for the shapes nearly every entry has (no extension, or images
    with a loc alone): json.dumps of a dict costs several times as much per line."""
    images = e.images
    if e.videos or e.news or e.alternates or (images and not all(map(_bare, images))):
        return json.dumps(entry_to_dict(e), ensure_ascii=False) + "\n"
    lastmod = "null" if e.lastmod is None else '"' + _iso(e.lastmod) + '"'
    changefreq = "null" if e.changefreq is None else '"' + e.changefreq.value + '"'
    priority = "null" if e.priority is None else repr(e.priority)
    tail = ""
    if images:
        tail = (
            ', "images": [' + ", ".join(['{"loc": ' + _encode(i.loc) + "}" for i in images]) + "]"
        )
    return (
        f'{{"loc": {_encode(e.loc)}, "lastmod": {lastmod}, "changefreq": {changefreq}, '
        f'"priority": {priority}, "sitemap": {_encode(e.sitemap)}{tail}}}\n'
    )


def _bare(image: Image) -> bool:
    return (
        image.caption is None
        and image.title is None
        and image.geo_location is None
        and image.license is None
    )


def change_line(c: EntryChange) -> str:
    """One JSON object of the change feed: loc, lastmod, sitemap and change."""
    lastmod = "null" if c.lastmod is None else '"' + _iso(c.lastmod) + '"'
    return (
        f'{{"loc": {_encode(c.loc)}, "lastmod": {lastmod}, "sitemap": {_encode(c.sitemap)}, '
        f'"change": "{c.change.value}"}}\n'
    )
