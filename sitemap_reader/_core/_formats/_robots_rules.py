"""Which page URLs a site's robots.txt disallows for the reader (``ReaderConfig.robots``): the
project's RFC 9309 matcher, pure Python. It is the reference: the compiled core's
(``src/robots.rs``) parses and matches as this module does, and a differential test holds
the two together.

-- RFC 9309 section 2.1: a group is one or more user-agent lines and the rules after them;
a user-agent line after a rule starts the next group; ``Sitemap`` lines belong to no group
and end none; rules before any user-agent line apply to nobody.
-- Section 2.2.1: the groups naming the crawler's product token (case-insensitively) are
merged, and replace the ``*`` groups wholly; else the merged ``*`` groups apply.
-- Section 2.2.2: the rule with the most octets that matches decides, ``Allow`` wins a tie,
an empty ``Disallow`` is no rule; both the rule's path and the URL's path (with its query)
are percent-encoded alike: octets outside printable ASCII (and those no URI may hold
literally) encoded, escapes of unreserved characters decoded, other escapes kept in
upper case.
-- Section 2.2.3: ``*`` matches any run of characters, a final ``$`` the end of the path.
-- Section 2.3.1: a robots.txt that answered 4xx allows everything; one that failed (5xx,
no connection) disallows everything (``DISALLOW_ALL``).

A hostile robots.txt's cost is bounded (both cores alike, the same answers): a rule given
again (the same pattern, the same verdict) is kept once, since the first always decides
before it; a group's rules without ``*`` are found by a lookup of the path's prefixes, not
tried one by one; and of the rules with ``*``, which must be tried, only the first
``WILDCARD_RULES_MAX`` of a group (in the file's order) are kept, the rest dropped and
counted (``Group.dropped``: the walk reports them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ._robots import PRODUCT_TOKEN, RECORD_LINE, product_token

# What the problem names as the rule when the whole site is disallowed.
UNREACHABLE = "robots.txt unreachable (RFC 9309: disallow all)"

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# What a path holds that normalising changes: an escape or a "%", an octet outside printable
# ASCII, a character no URI holds literally (RFC 3986 section 2: neither reserved nor
# unreserved).
_TO_NORMALISE = re.compile(rb'%|[^\x21-\x7e]|["<>\\^`{|}]')
_ESCAPE = re.compile(rb'%([0-9A-Fa-f]{2})|[%"<>\\^`{|}]|[^\x21-\x7e]')
_LINE_END = re.compile(r"\r\n|\r|\n")
_AUTHORITY = re.compile(r"[^/?#]*")
_SITEMAP_KEYS = frozenset({"sitemap", "sitemaps", "site-map", "site map"})
# The rules with "*" a group keeps: each is tried on every URL the index leaves (its cost is
# the path's length), so a robots.txt of 500 KiB of them would cost ~50,000 tries a URL.
WILDCARD_RULES_MAX = 500
# A group of at most so many rules is tried rule by rule (a lookup costs more than it saves).
_LINEAR_MAX = 32


def normalise(path: bytes) -> str:
    """``path`` as RFC 9309 section 2.2.2 compares it (see the module's docstring)."""
    if _TO_NORMALISE.search(path) is None:
        return path.decode("ascii")
    return _ESCAPE.sub(_escaped, path).decode("ascii")


def _escaped(match: re.Match[bytes]) -> bytes:
    hexdigits = match[1]
    if hexdigits is None:
        return b"%%%02X" % match[0][0]
    octet = int(hexdigits, 16)
    return bytes((octet,)) if octet in _UNRESERVED else b"%" + hexdigits.upper()


def path_of(url: str) -> str:
    """The path and query of ``url``, normalised: what the rules are matched against (the
    fragment is never sent; an empty path is "/")."""
    start = url.find("://")
    authority = _AUTHORITY.match(url, 0 if start < 0 else start + 3)
    path = url[authority.end() if authority else len(url) :].partition("#")[0]
    if not path.startswith("/"):
        path = "/" + path
    return normalise(_octets(path))


def _octets(text: str) -> bytes:
    # (surrogateescape: the octets of a robots.txt that are not UTF-8 are kept as they are)
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate of another kind: no octets to keep
        return text.encode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class Rule:
    """One ``Allow`` or ``Disallow`` line: ``written`` as the robots.txt has it (for the
    problem), ``pattern`` normalised (with its final ``$``); ``pieces``, the pattern's text
    between its ``*``, and ``anchored``, its final ``$``, are what is matched."""

    allow: bool
    written: str
    pattern: str
    pieces: tuple[str, ...]
    anchored: bool

    @classmethod
    def of(cls, allow: bool, written: str) -> Rule:
        anchored = written.endswith("$")
        body = normalise(_octets(written[:-1] if anchored else written))
        pieces = body.split("*")
        if len(pieces) > 2:  # ("**" matches as "*": the empty pieces between are dropped)
            pieces = [pieces[0], *filter(None, pieces[1:-1]), pieces[-1]]
        return cls(allow, written, body + "$" * anchored, tuple(pieces), anchored)

    @property
    def literal(self) -> bool:
        """No ``*``: it matches the paths it starts (or, anchored, the one it is)."""
        return len(self.pieces) == 1

    def matches(self, path: str) -> bool:
        """Whether ``path`` (normalised) matches: each piece between the ``*`` found at the
        leftmost place after the last (which finds a match when there is one), the first at
        the start, the last at the end when anchored."""
        pieces = self.pieces
        first = pieces[0]
        if not path.startswith(first):
            return False
        if len(pieces) == 1:
            return not self.anchored or len(path) == len(first)
        at = len(first)
        for piece in pieces[1:-1]:
            at = path.find(piece, at)
            if at < 0:
                return False
            at += len(piece)
        last = pieces[-1]
        if self.anchored:
            return len(path) - len(last) >= at and path.endswith(last)
        return path.find(last, at) >= 0


@dataclass(frozen=True, slots=True)
class Group:
    """The merged groups that apply to one agent: their rules, longest first and an
    ``Allow`` before a ``Disallow`` as long, so that the first that matches decides;
    ``dropped``, the rules with ``*`` past ``WILDCARD_RULES_MAX``, left out."""

    agent: str  # the product token the groups name, or "*"
    rules: tuple[Rule, ...]
    prefixes: tuple[str, ...]  # each rule's text before its first "*": a quick test
    dropped: int = 0
    index: _Index | None = field(default=None, compare=False)  # (a large group's)

    @classmethod
    def of(cls, agent: str, rules: list[Rule]) -> Group:
        kept: list[Rule] = []
        seen: set[tuple[bool, str]] = set()
        wildcards = dropped = 0
        for rule in rules:
            key = (rule.allow, rule.pattern)
            if key in seen:  # (the first as long decides before it: never decides)
                continue
            seen.add(key)
            if not rule.literal:
                wildcards += 1
                if wildcards > WILDCARD_RULES_MAX:
                    dropped += 1
                    continue
            kept.append(rule)
        ordered = tuple(sorted(kept, key=lambda r: (-len(r.pattern), not r.allow)))
        index = _Index.of(ordered) if len(ordered) > _LINEAR_MAX else None
        return cls(agent, ordered, tuple(r.pieces[0] for r in ordered), dropped, index)

    def decide(self, path: str) -> Rule | None:
        """The rule that decides for ``path`` (normalised); None when none matches."""
        if self.index is not None:
            return self.index.decide(self.rules, path)
        if not path.startswith(self.prefixes):
            return None
        for rule in self.rules:
            if rule.matches(path):
                return rule
        return None


@dataclass(frozen=True, slots=True)
class _Index:
    """A large group's rules found without trying each: the rules without ``*`` by their
    text (a path's prefix, or the path itself when anchored), the others tried in order;
    each rule named by its rank in the group's order (the first that matches decides)."""

    starts: dict[str, int]  # a literal rule's text -> the first rank of that text
    whole: dict[str, int]  # the same of the anchored ones (text without its "$")
    lengths: tuple[int, ...]  # the lengths of ``starts``'s texts, longest first
    wildcards: tuple[tuple[int, Rule], ...]  # the rules with "*", with their rank, in order

    @classmethod
    def of(cls, rules: tuple[Rule, ...]) -> _Index:
        starts: dict[str, int] = {}
        whole: dict[str, int] = {}
        wildcards = []
        for rank, rule in enumerate(rules):
            if not rule.literal:
                wildcards.append((rank, rule))
            else:
                (whole if rule.anchored else starts).setdefault(rule.pieces[0], rank)
        lengths = tuple(sorted({len(text) for text in starts}, reverse=True))
        return cls(starts, whole, lengths, tuple(wildcards))

    def decide(self, rules: tuple[Rule, ...], path: str) -> Rule | None:
        # The literal rule that matches first: the anchored one the path is (it is longer
        # than any prefix), else the longest prefix.
        best = self.whole.get(path)
        if best is None:
            size = len(path)
            for length in self.lengths:
                if length <= size:
                    best = self.starts.get(path[:length])
                    if best is not None:
                        break
        end = len(rules) if best is None else best
        for rank, rule in self.wildcards:  # ... unless a rule with "*" before it matches
            if rank >= end:
                break
            if rule.matches(path):
                return rule
        return None if best is None else rules[best]


def parse_groups(body: bytes | str, product: str) -> tuple[Group | None, Group | None]:
    """The merged groups naming ``product`` (a product token, lower case; "" names none) and
    the merged ``*`` groups of robots.txt ``body``; None where there is none."""
    text = body.decode("utf-8", "surrogateescape") if isinstance(body, bytes) else body
    named: list[Rule] = []
    anyone: list[Rule] = []
    has_named = has_anyone = False
    agents: set[str] = set()
    in_agents = False  # the last group line was a user-agent line
    for raw in _LINE_END.split(text.lstrip("\ufeff")):
        match = RECORD_LINE.match(raw.split("#", 1)[0])  # '#' starts a comment
        if match is None:
            continue
        key, value = match[1].lower().replace("_", "-"), match[2].strip(" \t")
        if key == "user-agent":
            if not in_agents:
                agents = set()
            token = PRODUCT_TOKEN.match(value)
            agent = "*" if value == "*" else "" if token is None else token[0].lower()
            agents.add(agent)
            has_named = has_named or (bool(product) and agent == product)
            has_anyone = has_anyone or agent == "*"
            in_agents = True
        elif key not in _SITEMAP_KEYS:  # any line but Sitemap ends the user-agent lines
            in_agents = False
            if key in ("allow", "disallow") and value:
                rule = Rule.of(key == "allow", value)
                if product and product in agents:
                    named.append(rule)
                if "*" in agents:
                    anyone.append(rule)
    return (
        Group.of(product, named) if has_named else None,
        Group.of("*", anyone) if has_anyone else None,
    )


@dataclass(frozen=True, slots=True)
class RobotsRules:
    """One origin's robots.txt, as far as it concerns one agent.

    ``group`` is the merged group that applies (None: no group applies, or it disallows
    nothing: everything is allowed); ``closed`` says the robots.txt failed (disallow all).
    """

    group: Group | None = None
    closed: bool = False

    @property
    def agent(self) -> str:
        """The group's user-agent line: the product token or "*"."""
        return "*" if self.group is None else self.group.agent

    @classmethod
    def parse(cls, body: bytes | str, user_agent: str) -> RobotsRules:
        """The rules of the groups that name ``user_agent``'s product token, else of ``*``."""
        return cls.parse_both(body, user_agent)[0]

    @classmethod
    def parse_both(cls, body: bytes | str, user_agent: str) -> tuple[RobotsRules, RobotsRules]:
        """The rules for ``user_agent`` (as :meth:`parse`) and those for any crawler (``*``),
        from one parse: the same object twice when no group names the agent."""
        named, anyone = parse_groups(body, product_token(user_agent))
        for_anyone = _rules_of(anyone)
        return (for_anyone if named is None else _rules_of(named)), for_anyone

    @property
    def allows_all(self) -> bool:
        return self.group is None and not self.closed

    def check(self, url: str) -> str | None:
        """None when ``url`` may be fetched; else the rule that disallows it."""
        return self.rule_for(url) if self.disallows(url) else None

    def disallows(self, url: str) -> bool:
        if self.closed:
            return True
        group = self.group
        if group is None:
            return False
        rule = group.decide(path_of(url))
        return rule is not None and not rule.allow

    def rule_for(self, url: str) -> str:
        """The rule that disallows ``url`` (which :meth:`disallows`)."""
        if self.closed:
            return UNREACHABLE
        rule = None if self.group is None else self.group.decide(path_of(url))
        written = "" if rule is None else f" {rule.written}"
        return f"Disallow:{written} (user-agent: {self.agent})"


def _rules_of(group: Group | None) -> RobotsRules:
    if group is None or all(r.allow for r in group.rules):
        return ALLOW_ALL
    return RobotsRules(group=group)


ALLOW_ALL = RobotsRules()
DISALLOW_ALL = RobotsRules(closed=True)
