"""The value types of the options: counts, sizes, durations, dates, patterns, base URLs,
headers and proxies, each refused
with a message that says what to write (argparse prints it as ``argument --x: message``)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import sitemap_reader as sr

from .._base._request import check_proxy, parse_header
from .._base._sources import check_base_url

KEEP: Any = object()  # an option left out: the config's default stands


def natural(text: str) -> int:
    """A count from 0."""
    return _count(text, 0)


def positive(text: str) -> int:
    """A count from 1."""
    return _count(text, 1)


def _count(text: str, least: int) -> int:
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{text} is less than {least}")
    return value


def share(text: str) -> float:
    """A share of URLs for --shrink-guard: 0 to 1, or "off" (0)."""
    try:
        value = 0.0 if text.strip().lower() == "off" else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a share (try 0.5, or off)") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1 (or off)")
    return value


_SIZES = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def size(text: str) -> int:
    """Bytes, from '1000000', '500k', '500M' or '20G' (powers of 1024)."""
    number, unit = (text[:-1], text[-1].lower()) if text[-1:].isalpha() else (text, "")
    try:
        value = int(float(number) * _SIZES[unit])
    except (KeyError, ValueError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (try 500M or 20G)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive size")
    return value


# One duration syntax for every option that takes one: plain seconds or a number and a unit.
_DURATION = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([smhdw]?)\s*", re.IGNORECASE)
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
# The examples each option's help and errors give, at the scale the option is set at.
REQUEST_DURATIONS = "30s, 2m or plain seconds"
RUN_DURATIONS = "30m, 2h, 1d or plain seconds"
AGE_DURATIONS = "12h, 7d, 2w or plain seconds"
PACE_DURATIONS = "0.5s, 2s, 1m or plain seconds"


def _seconds(text: str) -> float | None:
    match = _DURATION.fullmatch(text)
    return None if match is None else float(match[1]) * _UNITS[match[2].lower()]


def _duration(text: str, examples: str) -> float:
    """Seconds from 0: '3600', '90s', '30m', '12h', '7d' or '2w'."""
    value = _seconds(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration (try {examples})")
    return value


def age(text: str) -> float:
    """An age from 0 (--max-age): hours to weeks."""
    return _duration(text, AGE_DURATIONS)


def wait(text: str) -> float:
    """How long to wait for another run's state file (--wait): minutes to hours."""
    return _duration(text, RUN_DURATIONS)


def pause(text: str) -> float:
    """A pause from 0 between two requests to one host (--delay, --max-delay): seconds."""
    return _duration(text, PACE_DURATIONS)


def positive_duration(text: str) -> float:
    """A positive bound of one request (--timeout, --slow): seconds to minutes."""
    value = _duration(text, REQUEST_DURATIONS)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive duration")
    return value


def deadline(text: str) -> float | None:
    """A positive duration, or 'none' for no bound."""
    if text.strip().lower() == "none":
        return None
    value = _seconds(text)
    if value is None or value <= 0:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a positive duration (try {RUN_DURATIONS}, or none for no deadline)"
        )
    return value


def since(text: str) -> datetime:
    """A date ('2024-05-01', any lastmod form), or a duration with a unit ('7d'): now minus it."""
    match = _DURATION.fullmatch(text)
    if match is not None and match[2]:
        return datetime.now(timezone.utc) - timedelta(seconds=_seconds(text) or 0.0)
    value = sr.parse_datetime(text)
    if value is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a date (2024-05-01) nor a duration back from now (7d, 12h)"
        )
    return value


def pattern(text: str) -> str:
    """A regular expression (Python's ``re``), checked here so a bad one is a usage error."""
    try:
        re.compile(text)
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a regular expression: {exc}") from None
    return text


def header(text: str) -> tuple[str, str]:
    """A request header, ``'Name: value'``."""
    try:
        return parse_header(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def proxy(text: str) -> str:
    """An http:// proxy URL, credentials allowed in it (never printed unmasked)."""
    return _checked(check_proxy, text)


def base_url(text: str) -> str:
    """An absolute http(s) URL, as a local file's stand-in location."""
    return _checked(check_base_url, text)


def _checked(check: Callable[[str], object], text: str) -> str:
    """``text``, once ``check`` took it; its ValueError as argparse's usage error."""
    try:
        check(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text
