"""The robots.txt rules of a run (``ReaderConfig.robots`` obey or report): what the walk
read, by origin; the check of one sitemap's URLs against them; and the problems that say
what they disallowed."""

from __future__ import annotations

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


@dataclass
class RobotsBook:
    """The rules of every origin whose robots.txt the walk read, by origin
    (``scheme://host[:port]``, as ``origin_of`` gives it). An origin not in the book has
    had no robots.txt read: its URLs are kept."""

    rules: dict[str, Rulings] = field(default_factory=dict)

    def read(self, origin: str, body: bytes, user_agent: str) -> None:
        agent, anyone = RobotsRules.parse_both(body, user_agent)
        self.add(origin, Rulings(agent, agent if anyone.group is agent.group else anyone))

    def add(self, origin: str, rulings: Rulings) -> None:
        if origin:
            self.rules[origin] = rulings

    def for_origin(self, origin: str) -> Rulings:
        return self.rules.get(origin, NO_RULES)


class RobotsFilter:
    """The rules for the many URLs of one sitemap: the book's for the URL's origin, found by
    a prefix test on the last origin seen (a sitemap lists one site's URLs) and by
    ``origin_of`` when it fails."""

    __slots__ = ("_book", "_prefix", "_rulings")

    def __init__(self, book: RobotsBook) -> None:
        self._book = book
        self._prefix = "\0"  # starts no URL
        self._rulings = NO_RULES

    def judge(self, url: str) -> tuple[str | None, str | None]:
        """The rule that disallows ``url`` for the agent, and the one for ``*`` when another
        group decides for the agent (else None): None where it is allowed."""
        if not url.startswith(self._prefix):
            origin = origin_of(url)
            self._prefix = origin + "/" if origin else "\0"
            self._rulings = self._book.for_origin(origin)
        rulings = self._rulings
        if rulings is NO_RULES:
            return None, None
        agent = rulings.agent.check(url)
        if rulings.anyone is rulings.agent:
            return agent, None
        return agent, rulings.anyone.check(url)

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

    def add(self, url: str, rule: str) -> None:
        if not self.count:
            self.first, self.rule = url, rule
        self.count += 1

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
