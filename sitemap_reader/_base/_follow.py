"""Which child sitemaps a run fetches: the record a caller's predicate sees
(``ReaderConfig.follow``), and the rules of ``--follow`` and ``--skip`` as one predicate.

The predicate judges the children an index names, at any depth. The sources of a run (the
sitemaps given directly, those a robots.txt names, the well-known paths tried) are never
judged: as with Scrapy's ``sitemap_follow``, a pattern meant for an index's children must not
refuse the index that names them.

A leaf module: it imports nothing from the package. The predicate travels with the config,
to Dask workers too: :class:`FollowRules` is plain data and pickles with plain pickle (a
lambda needs cloudpickle, which a distributed cluster falls back to).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True, slots=True)
class ChildSitemap:
    """A sitemap an index named, judged before it is fetched.

    ``url`` is the URL as named; ``parent`` the index that names it (its final URL);
    ``depth`` the index's depth plus one (1 for a child of a source); ``lastmod`` what the
    index says of it (None when it says nothing).
    """

    url: str
    parent: str
    depth: int
    lastmod: datetime | None = None


# True: fetch the child. Called in the walk's event loop, once per child named.
FollowPredicate = Callable[[ChildSitemap], bool]


@dataclass(frozen=True, slots=True)
class FollowRules:
    """The rules of ``--follow`` and ``--skip`` as a predicate for ``ReaderConfig.follow``.

    A child an index names is fetched when its URL matches some ``follow`` pattern (when any
    is given) and no ``skip`` pattern, each tried with :func:`re.search`; the sources of a
    run are never judged. A pattern that does not compile
    is a ValueError naming it. :meth:`refusal` says which rule refused a child.
    """

    follow: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    _follow: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)
    _skip: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("follow", "skip"):
            patterns = tuple(getattr(self, name))
            object.__setattr__(self, name, patterns)
            object.__setattr__(self, f"_{name}", _compiled(name, patterns))

    def __call__(self, child: ChildSitemap) -> bool:
        return self.refusal(child) is None

    def refusal(self, child: ChildSitemap) -> str | None:
        """None when ``child`` is to be fetched; else the rule that refuses it, in words."""
        url = child.url
        for pattern in self._skip:
            if pattern.search(url):
                return f"matches --skip {pattern.pattern!r}"
        if self._follow and not any(pattern.search(url) for pattern in self._follow):
            return f"matches no --follow ({', '.join(repr(p) for p in self.follow)})"
        return None


def refusal_of(follow: FollowPredicate, child: ChildSitemap) -> str | None:
    """None when ``follow`` lets ``child`` be fetched; else why not, in words: a predicate
    with a ``refusal`` method (:class:`FollowRules`) says which of its rules refused it."""
    refusal = getattr(follow, "refusal", None)
    if callable(refusal):
        why: str | None = refusal(child)
        return why
    return None if follow(child) else "refused by ReaderConfig.follow"


def _compiled(option: str, patterns: Iterable[str]) -> tuple[re.Pattern[str], ...]:
    return tuple(_pattern(option, pattern) for pattern in patterns)


def _pattern(option: str, pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"--{option} {pattern!r} is not a regular expression: {exc}") from None
