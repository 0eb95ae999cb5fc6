"""Whether a site's lastmods can be believed: signals measured, and a verdict on them (pure).

Search engines use lastmod only where it proves consistently accurate; so does the
incremental skip (docs/incremental.md, "Lastmod trust"). The signals, per document:

* in one read: the lastmods it carries (``dated``, ``undated``), those in the ``future``
  (beyond a day of clock skew and time zones), most of them on one instant or day
  (``stamped``: the build time, not for news sitemaps), and whether the lastmod its index
  gave it is older than its newest entry (``stale``) or not (``consistent``);
* across runs (a state file): a sitemap whose bytes changed while its index lastmod did
  not (``hidden``), one whose index lastmod moved while its bytes did not (``moved``), and
  one whose lastmod moved with its bytes (``confirmed``).

:func:`judge` turns counts of these into a :class:`LastmodTrust`.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone

from ..._base._models import Entry, LastmodTrust, Trust

# Past "now" by more than this is the future: a date-only lastmod written east of UTC is up
# to 14 hours ahead, and clocks drift.
SKEW = timedelta(days=1)
STAMP_MIN = 5  # dated lastmods a document needs before "most on one instant" means anything
# A build stamp is recent: most lastmods on one old instant is a site that has not changed.
STAMP_RECENT = timedelta(days=2)
# Signals a state file accumulates over runs; the others are the latest read's.
ACROSS_RUNS = ("hidden", "moved", "confirmed")
SIGNALS = ("dated", "undated", "future", "stamped", "stale", "consistent", *ACROSS_RUNS)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)
_DAY = 86_400_000_000  # microseconds


def _stamp(at: datetime) -> int:
    """``at`` in microseconds since 1970 (UTC; a naive datetime is taken as UTC)."""
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    return (at - _EPOCH) // _MICROSECOND


def lastmod_stamps(entries: list[Entry]) -> list[int | None]:
    """Each entry's lastmod as :func:`_stamp` gives it (None for none), in one pass: what
    the statistics count and a state store keeps, computed once for both."""
    epoch, unit = _EPOCH, _MICROSECOND
    try:  # inline: a call per entry costs more than the arithmetic
        return [None if (at := e.lastmod) is None else (at - epoch) // unit for e in entries]
    except TypeError:  # a naive datetime among them
        return [None if e.lastmod is None else _stamp(e.lastmod) for e in entries]


def _at(stamp: int) -> datetime:
    return _EPOCH + stamp * _MICROSECOND


class LastmodStats:
    """The lastmods of one document's entries (or an index's children), as they stream.

    Kept as integers (microseconds since 1970, UTC), read once at the end, sorted: the
    newest is the last, the future a bisection, and an instant (or day) that holds more
    than half (or nine tenths) of them holds the median, so one count of the median's
    decides ``stamped``. A Counter of instants cost three times the sort (hashing each of
    a cold run's distinct lastmods, then every instant again by day). So a day is a UTC day."""

    __slots__ = ("_sorted", "dated", "news", "stamps", "undated")

    def __init__(self) -> None:
        self.dated = 0
        self.undated = 0
        self.news = False  # a news sitemap: many lastmods on one day is its nature
        self.stamps: list[int] = []  # the dated lastmods, in the order read
        self._sorted = True

    def add(self, lastmod: datetime | None, news: bool = False) -> None:
        if news:
            self.news = True
        if lastmod is None:
            self.undated += 1
            return
        self.dated += 1
        self.stamps.append(_stamp(lastmod))
        self._sorted = False

    def add_entries(self, entries: list[Entry]) -> None:
        """``add`` for a batch of entries, counted in bulk: no call per entry."""
        self.add_stamps(lastmod_stamps(entries), entries)

    def add_stamps(self, stamps: list[int | None], entries: list[Entry]) -> None:
        """``add_entries`` with their lastmods as :func:`lastmod_stamps` gave them."""
        dated = [at for at in stamps if at is not None]
        self.undated += len(stamps) - len(dated)
        if not self.news and any(e.news for e in entries):
            self.news = True
        if dated:
            self.dated += len(dated)
            self.stamps.extend(dated)
            self._sorted = False

    def _in_order(self) -> list[int]:
        if not self._sorted:
            self.stamps.sort()
            self._sorted = True
        return self.stamps

    def signals(self, index_lastmod: datetime | None, now: datetime) -> dict[str, int]:
        """This document's in-run signals; ``index_lastmod`` is what its index said."""
        counts = {"dated": self.dated, "undated": self.undated}
        stamps = self._in_order()
        counts["future"] = len(stamps) - bisect_right(stamps, _stamp(now + SKEW))
        counts["stamped"] = int(self.stamped(now))
        if index_lastmod is not None and stamps:
            stale = stamps[-1] > _stamp(index_lastmod + SKEW)
            counts["stale" if stale else "consistent"] = 1
        return counts

    def stamped(self, now: datetime) -> bool:
        """Most lastmods on one recent instant, or nearly all on one recent day: a build
        stamp. Such an instant or day holds the median lastmod, so only its is counted."""
        if self.news or self.dated < STAMP_MIN:
            return False
        stamps = self._in_order()
        instant = stamps[len(stamps) // 2]
        at_instant = bisect_right(stamps, instant) - bisect_left(stamps, instant)
        day = instant // _DAY
        on_day = bisect_left(stamps, (day + 1) * _DAY) - bisect_left(stamps, day * _DAY)
        recent = now.date() - STAMP_RECENT
        return (at_instant * 2 > self.dated and _at(instant).date() >= recent) or (
            on_day * 10 > self.dated * 9 and _at(day * _DAY).date() >= recent
        )


def add(*counts: Mapping[str, int]) -> dict[str, int]:
    """Counts summed, signal by signal."""
    total: dict[str, int] = {}
    for one in counts:
        for key, value in one.items():
            total[key] = total.get(key, 0) + value
    return total


# Signals that say lastmods lie, and how each is said.
_AGAINST = (
    ("hidden", "{} sitemaps changed while their index lastmod did not"),
    ("stale", "{} index lastmods older than the newest entry of their sitemap"),
    ("future", "{} lastmods in the future"),
    ("stamped", "{} documents with most lastmods on one instant or day"),
)


def judge(counts: Mapping[str, int]) -> LastmodTrust:
    """The verdict on lastmods that showed ``counts``: untrusted on any sign they lie,
    trusted once some check held and none failed, unknown before that."""
    get = counts.get
    reasons = [why.format(get(key)) for key, why in _AGAINST if get(key)]
    moved, confirmed = get("moved", 0), get("confirmed", 0)
    if moved > confirmed:  # mostly false alarms: lastmods that move on every build
        reasons.append(f"{moved} index lastmods moved while their sitemap's bytes did not")
    if reasons:
        verdict = Trust.UNTRUSTED
    elif get("consistent", 0) or confirmed:
        verdict = Trust.TRUSTED
    else:
        verdict = Trust.UNKNOWN
    ordered = tuple((key, counts[key]) for key in SIGNALS if counts.get(key))
    return LastmodTrust(verdict, tuple(reasons), ordered)
