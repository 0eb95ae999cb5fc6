"""``check --sample N``: the draw of the listed pages to fetch, and what their answers say of
all the listed URLs (pure: the fetching is ``_api._sample``'s).

The draw is a reservoir (Vitter's algorithm R): a uniform sample of at most N of the entries
as they stream by, so memory holds N URLs however many the sitemaps list. Each finding's
share of all listed URLs is estimated with Wilson's score interval (95%), which stays inside
0 to 100% and is sound for the small counts a sample gives, unlike the normal approximation.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .._base._words import plural
from ._codes import Finding, finding

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile: a two-sided 95% interval
EXAMPLES = 3  # pages named in a finding's message


class Reservoir:
    """A uniform random sample of at most ``size`` of the items offered, seeded."""

    __slots__ = ("_random", "items", "seen", "size")

    def __init__(self, size: int, seed: int | None = 0) -> None:
        if size < 0:
            raise ValueError(f"a sample of {size} pages: give 0 or more")
        self.size = size
        self.seen = 0  # items offered: the listed URLs the sample stands for
        self.items: list[str] = []
        self._random = random.Random(seed)

    def offer(self, item: str) -> None:
        self.seen += 1
        if len(self.items) < self.size:
            self.items.append(item)
            return
        # Item k (1-based) replaces a kept one with probability size / k.
        slot = self._random.randrange(self.seen)
        if slot < self.size:
            self.items[slot] = item


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a share of ``hits`` in ``n`` draws, as (low, high)."""
    if n <= 0 or not 0 <= hits <= n:
        raise ValueError(f"{hits} of {n}: no share")
    p = hits / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At 0 or n the bound is exactly 0 or 1; rounding must not put it a hair outside.
    return (
        0.0 if hits == 0 else max(0.0, centre - half),
        1.0 if hits == n else min(1.0, centre + half),
    )


@dataclass(frozen=True, slots=True)
class PageAnswer:
    """What one sampled page answered (``_api._sample`` fetches it).

    ``status`` is the first answer's (a redirect's own status: it is not followed), None when
    nothing came (``error`` says why) or the page was not asked (``disallowed``).
    """

    url: str
    status: int | None = None
    redirect: str | None = None  # the Location a redirect points to, resolved
    noindex: str | None = None  # where it was said: "X-Robots-Tag" or "<meta name=robots>"
    canonical: str | None = None  # another URL named canonical (Link header or <link>)
    error: str | None = None  # the fetch's fault (network, timeout), in words
    disallowed: bool = False  # robots.txt disallows it for the user agent: not fetched


# What each code's finding counts, by name: (code name, does this answer count, the verb).
def _redirects(a: PageAnswer) -> bool:
    return a.redirect is not None


def _client(a: PageAnswer) -> bool:
    return a.status is not None and 400 <= a.status < 500


def _server(a: PageAnswer) -> bool:
    return a.status is not None and a.status >= 500


def _unreachable(a: PageAnswer) -> bool:
    return a.status is None and a.error is not None


def _noindex(a: PageAnswer) -> bool:
    return a.noindex is not None


def _canonical(a: PageAnswer) -> bool:
    return a.canonical is not None


def _example(name: str, a: PageAnswer) -> str:
    if name == "page-redirects":
        return f"{a.url} -> {a.redirect} ({a.status})"
    if name in ("page-client-error", "page-server-error"):
        return f"{a.url} ({a.status})"
    if name == "page-unreachable":
        return f"{a.url} ({a.error})"
    if name == "page-noindex":
        return f"{a.url} (by {a.noindex})"
    return f"{a.url} -> {a.canonical}"


_KINDS = (
    ("page-redirects", _redirects, "redirect"),
    ("page-client-error", _client, "answer 4xx"),
    ("page-server-error", _server, "answer 5xx"),
    ("page-unreachable", _unreachable, "cannot be fetched"),
    ("page-noindex", _noindex, "are marked noindex"),
    ("page-canonical-elsewhere", _canonical, "name another URL as canonical"),
)


@dataclass(frozen=True, slots=True)
class SampleLine:
    """One finding of the sample, as the report page's table shows it."""

    code: str
    name: str
    hits: int  # sampled pages
    share: float  # hits / asked
    low: float
    high: float
    exact: bool  # the sample is every listed URL: the share is no estimate


@dataclass(frozen=True, slots=True)
class SampleSummary:
    """The sample as a whole: how many pages were drawn from how many listed, how many of
    them were asked (robots.txt may forbid some), and each finding's line."""

    listed: int
    drawn: int
    asked: int
    disallowed: int
    lines: tuple[SampleLine, ...] = ()


def percent(share: float) -> str:
    """A share in words: ``3.1%``; below 0.1% but above 0, ``0.05%`` (two digits)."""
    value = share * 100
    if 0 < value < 0.1:
        return f"{value:.2g}%"
    return f"{value:.1f}%"


def sample_findings(answers: list[PageAnswer], listed: int) -> tuple[list[Finding], SampleSummary]:
    """The findings of the sampled pages' answers, each with its count in the sample and the
    share of the ``listed`` URLs it stands for; and the summary for the report page."""
    asked = [a for a in answers if not a.disallowed]
    n = len(asked)
    exact = n == listed  # every listed URL asked: nothing to estimate
    out: list[Finding] = []
    lines: list[SampleLine] = []
    for name, counts, verb in _KINDS:
        hits = [a for a in asked if counts(a)]
        if not hits:
            continue
        low, high = wilson(len(hits), n)
        share = len(hits) / n
        estimate = (
            f"{percent(share)} of the listed URLs {verb}"
            if exact
            else f"about {percent(share)} ({percent(low)} to {percent(high)}) of the listed "
            f"URLs {verb}"
        )
        such = ", ".join(_example(name, a) for a in hits[:EXAMPLES])
        message = (
            f"{estimate}: {len(hits):,} of {plural(n, 'sampled page')} (of "
            f"{plural(listed, 'listed URL')}), such as {such}"
        )
        made = finding(name, hits[0].url, message, count=len(hits))
        out.append(made)
        lines.append(SampleLine(made.code, name, len(hits), share, low, high, exact))
    summary = SampleSummary(
        listed=listed,
        drawn=len(answers),
        asked=n,
        disallowed=len(answers) - n,
        lines=tuple(lines),
    )
    return out, summary
