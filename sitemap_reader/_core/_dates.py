"""Dates as sitemaps and feeds write them: W3C Datetime, the variants real sites use, RFC 822.

Returns timezone-aware datetimes or None; never raises for input text. A value with a time
but no zone is taken as UTC (what search engines do); a date alone is midnight UTC, in the
zone ``DATE_ALONE``.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from functools import lru_cache

# -- https://www.w3.org/TR/NOTE-datetime, loosened the way real files need: a space for the
# "T", one-digit months and days, any number of fraction digits, "+hhmm" or "+hh" zones.
_W3C = re.compile(
    r"(\d{4})(?:-(\d\d?)(?:-(\d\d?)"
    r"(?:[Tt ]+(\d\d?):(\d\d)(?::(\d\d)(?:[.,](\d+))?)?"
    r" ?([Zz]|UTC|GMT|[+-]\d\d(?::?\d\d)?)?)?)?)?",
    re.ASCII,
)

_ZONES: dict[str, timezone] = {}

# A date written alone ("2024-05-01", "2024-05") is midnight in this zone: UTC by every
# measure (offset, name, comparisons, isoformat), but not ``timezone.utc`` itself, the zone
# of every other value at offset zero. That difference is the one trace records keep of how
# a lastmod was written, for ``check`` (V420) to tell "2024-05-01" from
# "2024-05-01T00:00:00Z" with no field on every record; both cores make it (the compiled
# one is given it: ``_xml._interface.INTERFACE.date_alone``). Not kept through pickle or
# ISO text, which make the instant again, in ``timezone.utc``.
DATE_ALONE = timezone(timedelta(0), "UTC")


def written_as_date(value: datetime) -> bool:
    """Whether ``value`` was parsed from a date written alone (its zone is ``DATE_ALONE``)."""
    return value.tzinfo is DATE_ALONE


def _zone(text: str | None) -> timezone:
    if text is None or text in ("Z", "z", "UTC", "GMT"):
        return timezone.utc
    tz = _ZONES.get(text)
    if tz is None:
        sign = -1 if text[0] == "-" else 1
        digits = text[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
        if hours > 23 or minutes > 59:
            raise ValueError(text)
        tz = timezone(sign * timedelta(hours=hours, minutes=minutes))
        _ZONES[text] = tz
    return tz


def _common_shape(value: str) -> bool:
    """The three shapes nearly every generator writes, where ``fromisoformat`` and the
    regex below agree: ``YYYY-MM-DD``, ``YYYY-MM-DDThh:mm:ssZ`` and
    ``YYYY-MM-DDThh:mm:ss+hh:mm`` (a zone offset of at most 23:59, as ``_zone`` allows)."""
    n = len(value)
    if n == 10:
        return value[4] == "-" and value[7] == "-" and value.isascii()
    if n == 20:
        return value[10] == "T" and value[19] == "Z" and value.isascii()
    if n == 25:
        return (
            value[10] == "T"
            and value[19] in "+-"
            and value[22] == ":"
            and value[20:22] < "24"
            and value[23] < "6"
            and value.isascii()
        )
    return False


@lru_cache(maxsize=4_096)  # sitemaps repeat a few values thousands of times, often in a row
def parse_datetime(text: str) -> datetime | None:
    """Parse a lastmod/pubDate/updated value; None when it is not a date."""
    value = text.strip()
    if not value:
        return None
    n = len(value)
    if (n == 25 or n == 20 or n == 10) and _common_shape(value):
        try:
            parsed = datetime.fromisoformat(value)  # C code: a third of the regex's cost
        except ValueError:
            pass  # e.g. "Z" before Python 3.11, or a day that does not exist: the regex says
        else:
            if n == 10:
                return parsed.replace(tzinfo=DATE_ALONE)
            return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)
    w3c = parse_w3c(value)
    return w3c if w3c is not None else _parse_rfc822(value)


def parse_w3c(value: str) -> datetime | None:
    """The W3C Datetime forms (loosened as above) by expression alone: the reference the
    ``fromisoformat`` shortcut is tested against."""
    match = _W3C.fullmatch(value)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        micro = int((fraction or "0")[:6].ljust(6, "0"))
        return datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            micro,
            tzinfo=DATE_ALONE if hour is None else _zone(zone),
        )
    except ValueError:
        return None


def _parse_rfc822(value: str) -> datetime | None:
    # -- RFC 822 section 5 as RSS 2.0 uses it ("Sat, 07 Sep 2002 00:00:01 GMT").
    if not any(c.isalpha() for c in value):
        return None
    # Imported here: the email package costs every start several milliseconds, and only
    # feeds carry such dates.
    from email.utils import parsedate_to_datetime

    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if parsed.tzinfo is None:  # "-0000" means "zone unknown"; we take it as UTC
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed
