"""The robots.txt rules of a run (``ReaderConfig.robots`` obey or report): what the walk
read, by origin; the check of one sitemap's URLs against them; and the problems that say
what they disallowed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..._base._models import Problem, ProblemKind
from ..._base._words import plural
from ..._core._formats._robots import product_token
from ..._core._formats._robots_rules import (
    ALLOW_ALL,
    DISALLOW_ALL,
    WILDCARD_RULES_MAX,
    RobotsRules,
)
from ..._core._walk._scope import origin_of

if TYPE_CHECKING:
    from ... import _native


@dataclass(frozen=True, slots=True)
class Rulings:
    """One origin's rules for the reader's user agent and for any crawler (``*``); the
    same object twice when no group names the agent."""

    agent: RobotsRules
    anyone: RobotsRules

    @property
    def allows_all(self) -> bool:
        return self.agent.allows_all and self.anyone.allows_all

    def dropped(self, robots_url: str) -> Problem | None:
        """The problem saying that the bound on rules with ``*`` left some out, or None."""
        groups = [r.group for r in {id(r): r for r in (self.agent, self.anyone)}.values()]
        left = [(g.agent, g.dropped) for g in groups if g is not None and g.dropped]
        if not left:
            return None
        said = ", ".join(f"{plural(n, 'rule')} of user-agent {agent}" for agent, n in left)
        return Problem(
            kind=ProblemKind.ROBOTS_RULES_DROPPED,
            url=robots_url,
            message=f"robots.txt has more than {WILDCARD_RULES_MAX:,} rules with '*' in one "
            f"group: {said} past them left out (each is tried on every URL), so the URLs "
            "only they would disallow are kept",
            count=sum(n for _, n in left),
        )


NO_RULES = Rulings(ALLOW_ALL, ALLOW_ALL)
CLOSED = Rulings(DISALLOW_ALL, DISALLOW_ALL)


@dataclass
class RobotsBook:
    """The rules of every origin whose robots.txt the walk read, by origin
    (``scheme://host[:port]``, as ``origin_of`` gives it). An origin not in the book has
    had no robots.txt read: its URLs are kept."""

    rules: dict[str, Rulings] = field(default_factory=dict)
    # The robots.txt read for each origin and the reader's product token, for the compiled
    # core's rules (``compiled``), made on the first compiled run that needs them.
    bodies: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    _compiled: dict[str, _native.RobotsRules] = field(default_factory=dict)
    # Every origin's compiled rules, for a compiled run whose locs are on several origins:
    # made again once the book has changed.
    _by_origin: _native.RobotsRulesByOrigin | None = None

    def read(self, origin: str, body: bytes, user_agent: str) -> Rulings:
        agent, anyone = RobotsRules.parse_both(body, user_agent)
        rulings = Rulings(agent, anyone)
        self.add(origin, rulings)
        if origin:
            self.bodies[origin] = (body, product_token(user_agent))
        return rulings

    def add(self, origin: str, rulings: Rulings) -> None:
        if origin:
            self.rules[origin] = rulings
            self.bodies.pop(origin, None)
            self._compiled.pop(origin, None)
            self._by_origin = None

    def for_origin(self, origin: str) -> Rulings:
        return self.rules.get(origin, NO_RULES)

    def compiled(self, origin: str) -> _native.RobotsRules:
        """The compiled core's rules for ``origin``, parsed once: the robots.txt read, or
        one that disallows all (a robots.txt that failed) or allows all (none read)."""
        rules = self._compiled.get(origin)
        if rules is None:
            from ... import _native

            rulings = self.for_origin(origin)
            body, product = self.bodies.get(origin) or (
                (_CLOSED, "") if rulings.agent.closed else (b"", "")
            )
            rules = self._compiled[origin] = _native.RobotsRules(body, product)
        return rules

    def by_origin(self) -> _native.RobotsRulesByOrigin:
        """The compiled core's rules of every origin in the book, by origin."""
        if self._by_origin is None:
            from ... import _native

            rules = {origin: self.compiled(origin) for origin in self.rules}
            self._by_origin = _native.RobotsRulesByOrigin(rules)
        return self._by_origin


# What the compiled rules of an origin whose robots.txt failed are: CLOSED's verdicts
# (everything disallowed for the agent; "*" judged as the agent).
_CLOSED = b"User-agent: *\nDisallow: /\n"


@dataclass(frozen=True, slots=True)
class RobotsGate:
    """What the compiled core's line writer reads (``LineWriter.write_run``'s ``robots``, by
    attribute) to judge a run's locs by robots.txt: the ``rules`` of the origin whose URLs
    start with ``prefix``, the rules of ``others`` (every origin the book has: a loc on
    another origin is judged by its own, or allowed when the book has none for it, as
    ``RobotsFilter.judge`` does), and whether they are obeyed (``obey``: the URLs they
    disallow for the agent are left out) or only counted."""

    rules: _native.RobotsRules
    prefix: str
    others: _native.RobotsRulesByOrigin | None
    obey: bool


class RobotsFilter:
    """The rules for the many URLs of one sitemap: the book's for the URL's origin, found by
    a prefix test on the last origin seen (a sitemap lists one site's URLs) and by
    ``origin_of`` when it fails."""

    __slots__ = ("_book", "_gate", "_prefix", "_rulings")

    def __init__(self, book: RobotsBook) -> None:
        self._book = book
        self._prefix = "\0"  # starts no URL
        self._rulings = NO_RULES
        self._gate: RobotsGate | None = None

    def judge(self, url: str) -> tuple[bool, bool]:
        """Whether robots.txt disallows ``url`` for the agent, and for ``*`` when another
        group decides for the agent (else False)."""
        if not url.startswith(self._prefix):
            self._find(url)
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

    def gate(self, url: str, obey: bool) -> RobotsGate:
        """The compiled core's gate for a run of URLs, most on ``url``'s origin (a sitemap
        mostly lists one site's URLs), the others by theirs: the rules it judges them by in
        the crate, with no object made."""
        if not url.startswith(self._prefix):
            self._find(url)
        prefix = self._prefix
        rules = self._book.compiled(prefix[:-1])
        others = self._book.by_origin()
        gate = self._gate  # (a sitemap's runs mostly are on one origin: one gate for them)
        if gate is None or (gate.rules, gate.others, gate.prefix, gate.obey) != (
            rules,
            others,
            prefix,
            obey,
        ):
            gate = self._gate = RobotsGate(rules, prefix, others, obey)
        return gate

    def _find(self, url: str) -> None:
        """Take the rules of ``url``'s origin."""
        origin = origin_of(url)
        self._prefix = origin + "/" if origin else "\0"
        self._rulings = self._book.for_origin(origin)

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

    def add(self, url: str, count: int = 1) -> bool:
        """Count ``url`` (and ``count - 1`` URLs after it); True when it is the first (give
        its :attr:`rule`)."""
        self.count += count
        if self.count == count:
            self.first = url
        return self.count == count

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
