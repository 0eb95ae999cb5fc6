"""The robots.txt rules of a run (``ReaderConfig.robots`` obey or report): what the walk
read, by origin; the check of one sitemap's URLs against them; and the problems that say
what they disallowed."""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field

from ..._base._models import Problem, ProblemKind
from ..._base._words import plural
from ..._core._formats._robots_rules import ALLOW_ALL, DISALLOW_ALL, RobotsRules
from ..._core._walk._scope import origin_of


@dataclass(frozen=True, slots=True)
class Rulings:
    """One origin's rules for the reader's user agent and for any crawler (``*``); the
    same object twice when no group names the agent."""

    agent: RobotsRules
    anyone: RobotsRules

    @property
    def allows_all(self) -> bool:
        return self.agent.allows_all and self.anyone.allows_all


NO_RULES = Rulings(ALLOW_ALL, ALLOW_ALL)
CLOSED = Rulings(DISALLOW_ALL, DISALLOW_ALL)


# The batch test (RobotsFilter.stops) quotes the paths of many URLs at once as Protego quotes
# one (``quote(path, safe="/%=")`` of a path with no "%"): each ASCII character it would
# escape, escaped ("\n" kept: it separates the paths).
_UNSAFE = re.compile(r"[^\nA-Za-z0-9_.~/%=-]")
_ESCAPES = {chr(c): f"%{c:02X}" for c in range(128)}
# What Protego normalises otherwise: an escape to decode ("%"), a fragment it cuts ("#"), a
# character urlsplit drops or that is not ASCII; and a path that starts "//" (read as an
# authority). Their URLs are judged one by one.
_ODD = re.compile(r"[%#\t\r\x80-\U0010ffff]")
_AUTHORITY = re.compile(r"(?m)^//")


@dataclass(frozen=True, slots=True)
class BatchTest:
    """One group's rules as two regexes over many quoted paths, each after a newline: they
    match at the newline before every path that some Disallow (``disallow``) or some Allow
    (``allow``) rule matches. Each is Protego's match (a prefix, "*" any run of characters,
    a final "$" the end) written as one pattern. A path only a Disallow matches is
    disallowed, one that both match is judged by Protego, one no Disallow matches allowed."""

    rules: RobotsRules
    disallow: re.Pattern[str]
    allow: re.Pattern[str]


def batch_tests(rulings: Rulings) -> tuple[BatchTest, ...] | None:
    """The batch tests of the agent's group and, when it is another, of ``*``'s; None when
    a rule is not written as a path (the URLs are judged one by one)."""
    tests = []
    for rules in (rulings.agent, rulings.anyone)[: 1 if rulings.anyone is rulings.agent else 2]:
        patterns: dict[str, list[str]] = {"allow": [], "disallow": []}
        for rule in [] if rules.group is None else rules.group._rules:
            pattern: str = rule.value._pattern
            if not pattern.startswith(("/", "*")):
                return None
            anchored = pattern.endswith("$")
            body = pattern[:-1] if anchored else pattern
            regex = ".*".join(map(re.escape, body.split("*")))
            patterns[rule.field].append(regex + ("$" if anchored else ""))
        # A newline first: a literal, which the regex engine looks for before it tries the
        # rest ("^" in multiline mode would try every position).
        disallow, allow = (
            re.compile(f"(?m)\n(?:{'|'.join(patterns[field]) or '(?!)'})")
            for field in ("disallow", "allow")
        )
        tests.append(BatchTest(rules, disallow, allow))
    return tuple(tests)


@dataclass
class RobotsBook:
    """The rules of every origin whose robots.txt the walk read, by origin
    (``scheme://host[:port]``, as ``origin_of`` gives it). An origin not in the book has
    had no robots.txt read: its URLs are kept."""

    rules: dict[str, Rulings] = field(default_factory=dict)
    batches: dict[str, tuple[BatchTest, ...] | None] = field(default_factory=dict)

    def read(self, origin: str, body: bytes, user_agent: str) -> None:
        agent, anyone = RobotsRules.parse_both(body, user_agent)
        self.add(origin, Rulings(agent, agent if anyone.group is agent.group else anyone))

    def add(self, origin: str, rulings: Rulings) -> None:
        if origin:
            self.rules[origin] = rulings
            closed = rulings.agent.closed or rulings.anyone.closed
            self.batches[origin] = None if closed else batch_tests(rulings)

    def for_origin(self, origin: str) -> Rulings:
        return self.rules.get(origin, NO_RULES)


class RobotsFilter:
    """The rules for the many URLs of one sitemap: the book's for the URL's origin, found by
    a prefix test on the last origin seen (a sitemap lists one site's URLs) and by
    ``origin_of`` when it fails."""

    __slots__ = ("_book", "_known", "_prefix", "_rulings")

    def __init__(self, book: RobotsBook) -> None:
        self._book = book
        self._prefix = "\0"  # starts no URL
        self._rulings = NO_RULES
        # What ``stops`` judged of the URLs it found disallowed, for ``judge`` to take when
        # their entries are checked one by one next (each is matched once).
        self._known: dict[str, tuple[bool, bool]] = {}

    def judge(self, url: str) -> tuple[bool, bool]:
        """Whether robots.txt disallows ``url`` for the agent, and for ``*`` when another
        group decides for the agent (else False)."""
        known = self._known.pop(url, None) if self._known else None
        if known is not None:
            return known
        if not url.startswith(self._prefix):
            origin = origin_of(url)
            self._prefix = origin + "/" if origin else "\0"
            self._rulings = self._book.for_origin(origin)
        rulings = self._rulings
        if rulings is NO_RULES:
            return False, False
        agent = rulings.agent.disallows(url)
        if rulings.anyone is rulings.agent:
            return agent, False
        return agent, rulings.anyone.disallows(url)

    def rules(self, url: str) -> tuple[str | None, str | None]:
        """The rules ``judge`` found ``url`` disallowed by (None where it is allowed)."""
        agent, anyone = self.judge(url)
        rulings = self._rulings
        return (
            rulings.agent.rule_for(url) if agent else None,
            rulings.anyone.rule_for(url) if anyone else None,
        )

    def stops(self, locs: list[str]) -> list[tuple[int, tuple[bool, bool]]]:
        """The indexes of ``locs`` that robots.txt disallows, with what ``judge`` says, found
        for a sitemap's run of URLs on one origin by one regex over their joined text, and
        one by one otherwise (or for the lines it cannot pass)."""
        self._known.clear()  # (those of the last run were taken, or their entries dropped)
        if not locs:
            return []
        judge = self.judge
        judge(locs[0])  # the first's origin is the one tried for all
        prefix = self._prefix
        origin = prefix[:-1]
        tests = self._book.batches.get(origin)
        joined = "\n".join(locs)
        gaps = len(locs) - 1
        same = (  # every line is one of locs, and on the first one's origin
            joined.count("\n") == gaps
            and joined.count("\n" + prefix) == gaps
            and joined.startswith(prefix)
        )
        if same and self._rulings is NO_RULES:
            return []
        if not same or tests is None:
            return [(i, judged) for i, loc in enumerate(locs) if any(judged := judge(loc))]
        # The paths, quoted as Protego quotes them: the regexes judge them, but those it
        # would quote otherwise (odd), judged one by one.
        cut = len(origin)
        paths = "\n".join([loc[cut:] for loc in locs])
        starts = list(itertools.accumulate((len(loc) - cut + 1 for loc in locs), initial=0))
        # (a match's line: the last line start at or before it)
        odd = {bisect.bisect_right(starts, m.start()) - 1 for m in _ODD.finditer(paths)}
        if "//" in paths:
            odd.update(bisect.bisect_left(starts, m.start()) for m in _AUTHORITY.finditer(paths))
        quoted = "\n" + _UNSAFE.sub(lambda m: _ESCAPES.get(m[0], m[0]), paths)
        if len(quoted) != len(paths) + 1:  # some were quoted: the lines start elsewhere now
            starts = list(
                itertools.accumulate((len(line) + 1 for line in quoted[1:].split("\n")), initial=0)
            )
        # (in quoted, the newline before a line is where the line starts in the paths)
        verdicts: dict[int, list[bool]] = {}
        for g, test in enumerate(tests):
            allowed = {bisect.bisect_left(starts, m.start()) for m in test.allow.finditer(quoted)}
            for m in test.disallow.finditer(quoted):
                i = bisect.bisect_left(starts, m.start())
                if i in odd:
                    continue
                said = verdicts.setdefault(i, [False, False])
                said[g] = i not in allowed or test.rules.disallows(locs[i])
        found = []
        known = self._known
        for i in sorted(odd.union(verdicts)):
            loc = locs[i]
            judged = judge(loc) if i in odd else (verdicts[i][0], verdicts[i][1])
            if any(judged):
                found.append((i, judged))
                known[loc] = judged
        return found

    def forget(self, url: str) -> None:
        """``url``'s entry was counted from what ``stops`` said: no check takes it."""
        self._known.pop(url, None)

    def all_allowed(self) -> bool:
        """True when no rule in the book disallows any URL (the usual case: a robots.txt
        that disallows nothing); False says nothing."""
        return all(r.allows_all for r in self._book.rules.values())


@dataclass
class Disallowed:
    """URLs one group's rules disallow in one sitemap: how many, the first, its rule."""

    count: int = 0
    first: str = ""
    rule: str = ""

    def add(self, url: str) -> bool:
        """Count ``url``; True when it is the first (give its :attr:`rule`)."""
        self.count += 1
        if self.count == 1:
            self.first = url
        return self.count == 1

    def problem(self, sitemap: str, what: str) -> Problem | None:
        if not self.count:
            return None
        return Problem(
            kind=ProblemKind.ROBOTS_DISALLOWED,
            url=sitemap,
            message=f"robots.txt disallows {plural(self.count, 'URL')} the sitemap lists{what}: "
            f"the first, {self.first}, by {self.rule}",
            count=self.count,
        )


def sitemap_problems(sitemap: str, judged: tuple[str | None, str | None]) -> list[Problem]:
    """The problems saying that robots.txt disallows the sitemap ``sitemap`` itself."""
    return [
        Problem(
            kind=ProblemKind.ROBOTS_DISALLOWED_SITEMAP,
            url=sitemap,
            message=f"robots.txt disallows this sitemap's own URL, by {rule}: crawlers that "
            "obey it do not fetch the sitemap",
        )
        for rule in judged
        if rule is not None
    ]
