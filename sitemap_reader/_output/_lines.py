"""Records as plain data: the JSON object of an Entry, and the Python writers of entries (a
``LinePlan``'s where the crate's does not run) and of changes (``dump --changes``) as jsonl,
csv and txt (the jsonl line written out by hand, equal to ``json.dumps(entry_to_dict(entry))``)."""

from __future__ import annotations

import csv
import enum
import json
import math
from collections.abc import Callable
from dataclasses import fields
from datetime import datetime, timezone, tzinfo
from typing import IO, Any

from .._base._models import Alternate, ChangeFreq, Entry, EntryChange, Image, News, Video


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


def python_entry_writer(fmt: str, out: IO[str]) -> Callable[[list[Entry]], None]:
    """Entries as ``fmt``: jsonl (entry_to_dict), csv (a header row, written at once, then the
    scalar columns) or txt (one loc a line). The reference of the compiled writer, which a
    ``LinePlan`` (``._plan``) takes instead where it runs."""
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


_QUOTED = {freq: f'"{freq.value}"' for freq in ChangeFreq}
# The JSON of values a run repeats on every line: its sitemap URLs, languages, priorities.
_STRINGS: dict[str, str] = {}
_NUMBERS: dict[float, str] = {}


def _few(cache: dict[Any, str], value: Any, write: Callable[[Any], str]) -> str:
    text = write(value)
    if len(cache) < 4_096:  # bounded: once full, every miss is written afresh
        cache[value] = text
    return text


_TWO = tuple(f"{i:02d}" for i in range(100))
# A fixed offset (datetime.timezone) -> how isoformat ends with it: "+00:00", "-05:00".
_OFFSETS: dict[tzinfo, str] = {}


def _iso(value: datetime) -> str:
    """``value.isoformat()``, spelled out from its fields: an aware isoformat costs about
    600 ns in CPython, twice as much, and a sitemap's dates are mostly distinct, so no cache
    of them pays. Only for whole seconds at a fixed offset; anything else is isoformat's."""
    offset = _OFFSETS.get(value.tzinfo)  # type: ignore[arg-type]
    if offset is None or value.microsecond:
        return _isoformat(value)
    year = value.year
    two = _TWO
    return (
        f"{year if year >= 1000 else f'{year:04d}'}-{two[value.month]}-{two[value.day]}"
        f"T{two[value.hour]}:{two[value.minute]}:{two[value.second]}{offset}"
    )


def _isoformat(value: datetime) -> str:
    text = value.isoformat()
    zone = value.tzinfo
    # A fixed offset ends every isoformat of whole seconds the same way: learn it once.
    if type(zone) is timezone and not value.microsecond and len(_OFFSETS) < 1_024:
        _OFFSETS[zone] = text[19:]
    return text


def json_line(e: Entry) -> str:
    """One JSON object, as json.dumps(entry_to_dict(e), ensure_ascii=False) writes it.

    Written out by hand for every shape (json.dumps of a dict costs several times as much
    per line, and multilingual and image-rich sites give most entries an extension); the
    equality is pinned by tests/test_output.py."""
    date = "null" if e.lastmod is None else f'"{_iso(e.lastmod)}"'
    changefreq = "null" if e.changefreq is None else _QUOTED[e.changefreq]
    priority = e.priority
    if priority is None:
        number = "null"
    elif type(priority) is float and priority > 0.0:  # not -0.0, NaN or an int: as written
        number = _NUMBERS.get(priority) or _few(_NUMBERS, priority, _number)
    else:
        number = _number(priority)
    sitemap = e.sitemap
    quoted = _STRINGS.get(sitemap) or _few(_STRINGS, sitemap, _encode)
    line = (
        f'{{"loc": {_encode(e.loc)}, "lastmod": {date}, "changefreq": {changefreq}, '
        f'"priority": {number}, "sitemap": {quoted}'
    )
    if e.images:
        line += f', "images": [{", ".join([_image(i) for i in e.images])}]'
    if e.videos:
        line += f', "videos": [{", ".join([_record(v) for v in e.videos])}]'
    if e.news:
        line += f', "news": [{", ".join([_record(n) for n in e.news])}]'
    if e.alternates:
        # Nearly every alternate is a language and a link: its head is the language's own.
        heads = _HEADS
        alternates = [
            f"{heads.get(a.hreflang) or _head(a.hreflang)}{_encode(a.href)}}}"
            if a.media is None
            else _alternate(a)
            for a in e.alternates
        ]
        line += f', "alternates": [{", ".join(alternates)}]'
    return line + "}\n"


def _image(i: Image) -> str:
    # The common record, spelled out: loc, then what _extension keeps, in field order.
    text = f'{{"loc": {_encode(i.loc)}'
    if i.caption is not None:
        text += f', "caption": {_encode(i.caption)}'
    if i.title is not None:
        text += f', "title": {_encode(i.title)}'
    if i.geo_location is not None:
        text += f', "geo_location": {_encode(i.geo_location)}'
    if i.license is not None:
        text += f', "license": {_encode(i.license)}'
    return text + "}"


# hreflang -> how its alternate's object starts, up to the href: '{"hreflang": "de", "href": '.
_HEADS: dict[str | None, str] = {}


def _head(hreflang: str | None) -> str:
    head = "{" if hreflang is None else f'{{"hreflang": {_encode(hreflang)}, '
    return _few(_HEADS, hreflang, lambda _: head + '"href": ')


def _alternate(a: Alternate) -> str:
    text = "{" if a.hreflang is None else f'{{"hreflang": {_encode(a.hreflang)}, '
    text += f'"href": {_encode(a.href)}'
    if a.media is not None:
        text += f', "media": {_encode(a.media)}'
    return text + "}"


def _record(record: Video | News) -> str:
    """Any extension record, as _extension keeps it: fields in order, None and () left out."""
    parts = []
    for name in _FIELDS[type(record)]:
        value = getattr(record, name)
        if value is not None and value != ():
            parts.append(f'"{name}": {_value(value)}')
    return "{" + ", ".join(parts) + "}"


def _value(value: Any) -> str:
    """``value`` as json.dumps writes _plain(value)."""
    if isinstance(value, str):
        return _encode(value.value if isinstance(value, enum.Enum) else value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _number(float(value))
    if isinstance(value, datetime):
        return '"' + _iso(value) + '"'
    if isinstance(value, tuple):
        return "[" + ", ".join([_value(v) for v in value]) + "]"
    return json.dumps(_plain(value), ensure_ascii=False)  # no such field today


def _number(value: float) -> str:
    # As json.dumps: float's repr, and its names for the values JSON has none for.
    if type(value) is not float:
        return _value(value)  # an int, say, in an Entry made by hand
    if math.isfinite(value):
        return float.__repr__(value)
    return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"


def change_line(c: EntryChange) -> str:
    """One JSON object of the change feed: loc, lastmod, sitemap and change."""
    lastmod = "null" if c.lastmod is None else '"' + _iso(c.lastmod) + '"'
    return (
        f'{{"loc": {_encode(c.loc)}, "lastmod": {lastmod}, "sitemap": {_encode(c.sitemap)}, '
        f'"change": "{c.change.value}"}}\n'
    )
