"""Which page URLs a site's robots.txt disallows for the reader (``ReaderConfig.robots``, pure).

-- RFC 9309 section 2.2: the group naming the crawler's product token (else ``*``), the
longest matching rule wins, ``Allow`` wins a tie, ``*`` and ``$`` are wildcards, and
percent-encoding is normalised before matching. Protego (Scrapy's matcher) does the
matching; this module only picks its group once per robots.txt and says which rule
decided, for the problem that reports the URLs left out.
-- RFC 9309 section 2.3.1: a robots.txt that answered 4xx allows everything; one that
failed (5xx, no connection) disallows everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._robots import product_token

# What the problem names as the rule when the whole site is disallowed.
UNREACHABLE = "robots.txt unreachable (RFC 9309: disallow all)"


@dataclass(frozen=True, slots=True)
class RobotsRules:
    """One origin's robots.txt, as far as it concerns the reader's user agent.

    ``group`` is Protego's rule set for the agent (None: no group applies, or the rules are
    empty: everything is allowed); ``closed`` says the robots.txt failed (disallow all).
    """

    group: Any = None  # protego's _RuleSet: no public type names it
    closed: bool = False
    agent: str = "*"  # the group's user-agent line: the product token or "*"

    @classmethod
    def parse(cls, body: bytes | str, user_agent: str) -> RobotsRules:
        """The rules of the group that names ``user_agent``'s product token, else of ``*``."""
        return cls.parse_both(body, user_agent)[0]

    @classmethod
    def parse_both(cls, body: bytes | str, user_agent: str) -> tuple[RobotsRules, RobotsRules]:
        """The rules for ``user_agent`` (as :meth:`parse`) and those for any crawler (``*``),
        from one parse."""
        # Imported here, not at the top: every command loads this module (the walk's types),
        # and only a run that reads robots.txt rules needs Protego (about 16 ms at start-up).
        from protego import Protego

        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        parser = Protego.parse(text)
        # Protego matches a group's token at a token boundary of the name it is given: the
        # product token alone, so the rest of a User-Agent header names no group. "*"
        # contains no group's token: only a "*" group applies to it.
        agent = _rules_of(parser._get_matching_rule_set(product_token(user_agent) or "*"))
        return agent, _rules_of(parser._get_matching_rule_set("*"))

    @property
    def allows_all(self) -> bool:
        return self.group is None and not self.closed

    def check(self, url: str) -> str | None:
        """None when ``url`` may be fetched; else the rule that disallows it."""
        return self.rule_for(url) if self.disallows(url) else None

    def disallows(self, url: str) -> bool:
        group = self.group
        return self.closed or (group is not None and not group.can_fetch(url))

    def rule_for(self, url: str) -> str:
        """The rule that disallows ``url`` (which :meth:`disallows`): Protego's rules are
        sorted longest first, an Allow before a Disallow of the same length, and the first
        that matches decides."""
        from protego._utils import _quote_path

        if self.closed:
            return UNREACHABLE
        path = _quote_path(url)
        for rule in self.group._rules:
            if rule.value.match(path):
                return f"Disallow: {rule.value._pattern} (user-agent: {self.agent})"
        return f"Disallow (user-agent: {self.agent})"  # pragma: no cover - can_fetch said so


def _rules_of(group: Any) -> RobotsRules:
    if group is None or not any(r.field == "disallow" for r in group._rules):
        return ALLOW_ALL
    return RobotsRules(group=group, agent=group.user_agent or "*")


ALLOW_ALL = RobotsRules()
DISALLOW_ALL = RobotsRules(closed=True)
