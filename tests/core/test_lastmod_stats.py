"""``LastmodStats`` read from its sorted lastmods (the median decides ``stamped``) gives the
signals that counting every instant and day gave: held here to that counting, written out
as it was, on generated documents whose lastmods cluster on a few instants and days (so
that most-on-one-instant and nearly-all-on-one-day both occur, and fail by one)."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from sitemap_reader._core._walk._trust import (
    SKEW,
    STAMP_MIN,
    STAMP_RECENT,
    LastmodStats,
    _stamp,
)

NOW = datetime(2026, 5, 1, 12, tzinfo=timezone.utc)
_DAY = 86_400_000_000
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def counted(stamps: list[int | None], news: bool, index_lastmod: datetime | None) -> dict[str, int]:
    """The signals as a Counter of instants gave them (before the sorted form)."""
    dated = [at for at in stamps if at is not None]
    instants = Counter(dated)
    counts = {"dated": len(dated), "undated": len(stamps) - len(dated)}
    limit = _stamp(NOW + SKEW)
    counts["future"] = sum(n for at, n in instants.items() if at > limit)
    stamped = False
    if not news and len(dated) >= STAMP_MIN:
        instant, at_instant = instants.most_common(1)[0]
        days: Counter[int] = Counter()
        for at, n in instants.items():
            days[at // _DAY] += n
        day, on_day = days.most_common(1)[0]
        recent = NOW.date() - STAMP_RECENT
        when = _EPOCH + timedelta(microseconds=instant)
        stamped = (at_instant * 2 > len(dated) and when.date() >= recent) or (
            on_day * 10 > len(dated) * 9
            and (_EPOCH + timedelta(microseconds=day * _DAY)).date() >= recent
        )
    counts["stamped"] = int(stamped)
    if index_lastmod is not None and instants:
        stale = max(instants) > _stamp(index_lastmod + SKEW)
        counts["stale" if stale else "consistent"] = 1
    return counts


# A few instants around now: on one day, the day before, a recent and an old day; some in
# the future, some undated.
_INSTANTS = [
    _stamp(NOW) + offset
    for offset in (0, 1, 3_600_000_000, -_DAY, -3 * _DAY, -400 * _DAY, 2 * _DAY, 3 * _DAY)
]
stamp = st.one_of(st.none(), st.sampled_from(_INSTANTS), st.integers(0, 2**60))
batches = st.lists(st.lists(stamp, max_size=30), max_size=5)


@given(
    batches,
    st.booleans(),
    st.one_of(st.none(), st.sampled_from([NOW, NOW - timedelta(days=5)])),
)
def test_the_sorted_form_gives_the_counted_signals(
    parts: list[list[int | None]], news: bool, index_lastmod: datetime | None
) -> None:
    stats = LastmodStats()
    for part in parts:
        stats.add_stamps(part, [])
    stats.news = news
    every = [at for part in parts for at in part]
    assert stats.signals(index_lastmod, NOW) == counted(every, news, index_lastmod)


def test_a_majority_by_one_and_short_of_it() -> None:
    """Six of eleven on one recent instant is a build stamp; five of eleven spread over
    distinct days is not (the median falls on the five-block either way)."""
    one = _stamp(NOW - timedelta(hours=1))
    stats = LastmodStats()
    six: list[int | None] = [one] * 6
    stats.add_stamps(six + [one - k * 3 * _DAY for k in range(1, 6)], [])
    assert stats.signals(None, NOW)["stamped"] == 1
    short = LastmodStats()
    five: list[int | None] = [one] * 5
    short.add_stamps(five + [one - k * 3 * _DAY for k in range(1, 7)], [])
    assert short.signals(None, NOW)["stamped"] == 0
