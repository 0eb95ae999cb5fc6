"""parse_datetime: W3C Datetime, the variants real sitemaps write, and RFC 822 (feeds)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_reader import parse_datetime
from sitemap_reader._core._dates import parse_w3c

UTC = timezone.utc


def tz(hours: int, minutes: int = 0) -> timezone:
    sign = -1 if hours < 0 else 1
    return timezone(timedelta(hours=hours, minutes=sign * minutes))


VALID = [
    # -- https://www.w3.org/TR/NOTE-datetime: the six forms
    ("1997", datetime(1997, 1, 1, tzinfo=UTC)),
    ("1997-07", datetime(1997, 7, 1, tzinfo=UTC)),
    ("1997-07-16", datetime(1997, 7, 16, tzinfo=UTC)),
    ("1997-07-16T19:20+01:00", datetime(1997, 7, 16, 19, 20, tzinfo=tz(1))),
    ("1997-07-16T19:20:30+01:00", datetime(1997, 7, 16, 19, 20, 30, tzinfo=tz(1))),
    ("1997-07-16T19:20:30.45+01:00", datetime(1997, 7, 16, 19, 20, 30, 450000, tzinfo=tz(1))),
    ("1997-07-16T19:20:30Z", datetime(1997, 7, 16, 19, 20, 30, tzinfo=UTC)),
    ("1997-07-16T19:20:30-05:30", datetime(1997, 7, 16, 19, 20, 30, tzinfo=tz(-5, 30))),
    # -- what real files write
    ("1997-07-16 19:20:30", datetime(1997, 7, 16, 19, 20, 30, tzinfo=UTC)),  # space, no zone
    ("1997-07-16T19:20:30", datetime(1997, 7, 16, 19, 20, 30, tzinfo=UTC)),  # no zone = UTC
    ("1997-07-16T19:20", datetime(1997, 7, 16, 19, 20, tzinfo=UTC)),
    ("1997-07-16T19:20:30+0100", datetime(1997, 7, 16, 19, 20, 30, tzinfo=tz(1))),  # +hhmm
    ("1997-07-16T19:20:30+01", datetime(1997, 7, 16, 19, 20, 30, tzinfo=tz(1))),  # +hh
    ("1997-07-16T19:20:30 +01:00", datetime(1997, 7, 16, 19, 20, 30, tzinfo=tz(1))),
    ("1997-07-16T19:20:30.123456789Z", datetime(1997, 7, 16, 19, 20, 30, 123456, tzinfo=UTC)),
    ("1997-07-16T19:20:30,5Z", datetime(1997, 7, 16, 19, 20, 30, 500000, tzinfo=UTC)),
    ("1997-07-16t19:20:30z", datetime(1997, 7, 16, 19, 20, 30, tzinfo=UTC)),
    ("1997-07-16T19:20:30 UTC", datetime(1997, 7, 16, 19, 20, 30, tzinfo=UTC)),
    ("1997-07-16T19:20:30GMT", datetime(1997, 7, 16, 19, 20, 30, tzinfo=UTC)),
    ("1997-7-6", datetime(1997, 7, 6, tzinfo=UTC)),  # one-digit month and day
    ("  1997-07-16\n", datetime(1997, 7, 16, tzinfo=UTC)),
    # -- RFC 822 as RSS 2.0 uses it
    ("Sat, 07 Sep 2002 00:00:01 GMT", datetime(2002, 9, 7, 0, 0, 1, tzinfo=UTC)),
    ("Sat, 07 Sep 2002 00:00:01 +0200", datetime(2002, 9, 7, 0, 0, 1, tzinfo=tz(2))),
    ("7 Sep 2002 00:00:01 -0000", datetime(2002, 9, 7, 0, 0, 1, tzinfo=UTC)),  # "zone unknown"
    ("Sat, 07 Sep 2002 00:00:01 EST", datetime(2002, 9, 7, 0, 0, 1, tzinfo=tz(-5))),
]


@pytest.mark.parametrize(("text", "expected"), VALID, ids=[t for t, _ in VALID])
def test_valid_dates(text: str, expected: datetime) -> None:
    """Each form gives the right instant and the right UTC offset."""
    value = parse_datetime(text)
    assert value == expected
    assert value is not None and value.utcoffset() == expected.utcoffset()


INVALID = [
    "",
    "   ",
    "yesterday",
    "2024-13-01",  # month 13
    "2024-02-30",  # no such day
    "2024-03-05T25:00Z",  # hour 25
    "2024-03-05T10:20:61Z",  # second 61
    "2024-03-05T10:20:30+25:00",  # zone out of range
    "2024-03-05T10",  # hour without minutes
    "0000-01-01",  # year 0
    "20240305",  # no separators
    "2024/03/05",
    "12345",
    "1.5",
    "Mon, 32 Sep 2002 00:00:00 GMT",
    "Sat, 07 Sep 2002 99:00:01 GMT",
]


@pytest.mark.parametrize("text", INVALID)
def test_invalid_dates_are_none(text: str) -> None:
    """A value that is not a date gives None, never an exception or a guess."""
    assert parse_datetime(text) is None


@given(st.text(max_size=60))
def test_never_raises_and_is_always_aware(text: str) -> None:
    """Any text gives None or a timezone-aware datetime."""
    value = parse_datetime(text)
    assert value is None or value.tzinfo is not None


@given(st.datetimes(timezones=st.just(UTC)))
def test_round_trips_isoformat(value: datetime) -> None:
    """Python's own isoformat() output, a W3C datetime, reads back to the same instant."""
    assert parse_datetime(value.isoformat()) == value


_DIGIT = st.sampled_from("0123456789")


@st.composite
def _common_shapes(draw: st.DrawFn) -> str:
    """Strings of the three shapes parse_datetime hands to fromisoformat, valid or not."""
    digits = [draw(_DIGIT) for _ in range(14)]
    date = f"{''.join(digits[:4])}-{''.join(digits[4:6])}-{''.join(digits[6:8])}"
    shape = draw(st.sampled_from(("date", "zulu", "offset")))
    if shape == "date":
        return date
    time = f"T{''.join(digits[8:10])}:{''.join(digits[10:12])}:{''.join(digits[12:14])}"
    if shape == "zulu":
        return date + time + "Z"
    sign = draw(st.sampled_from("+-"))
    offset = "".join(draw(_DIGIT) for _ in range(4))
    return f"{date}{time}{sign}{offset[:2]}:{offset[2:]}"


@given(_common_shapes())
def test_the_fromisoformat_shortcut_agrees_with_the_expression(value: str) -> None:
    """For the common shapes, the C shortcut gives exactly what the W3C expression gives."""
    fast = parse_datetime.__wrapped__(value)
    reference = parse_w3c(value)
    assert fast == reference
    if fast is not None and reference is not None:
        assert fast.utcoffset() == reference.utcoffset()
