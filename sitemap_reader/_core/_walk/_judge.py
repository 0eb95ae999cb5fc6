"""Whether the walk may read a sitemap an index names, and follow where it leads (pure).

A child is judged by its depth, by its index's scope (which sitemaps an index may name,
docs/configuration.md, "Which URLs are kept") and by its lineage: an index naming one of its own
ancestors is a cycle. A redirect is judged the same way once it is known where it leads.
Then the caller has its say (``ReaderConfig.follow``), for a child of an index: the sitemaps a
robots.txt names are sources of the run, never judged by it.
Duplicates and budgets are the frontier's to judge: they depend on the whole run.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field

from ..._base._follow import ChildSitemap, FollowPredicate, refusal_of
from ..._base._models import Problem, ProblemKind, SitemapRef, Status
from ..._base._words import plural
from ._jobs import Job, normalise
from ._scope import Scope


@dataclass(frozen=True, slots=True)
class Refusal:
    """A document not read after all: the status of its report, and the Problem saying why."""

    status: Status
    problem: Problem


def judge_child(
    ref: SitemapRef, *, depth: int, max_depth: int, scope: Scope, lineage: tuple[str, ...]
) -> Problem | None:
    """None when an index (of ``scope``, ``lineage``) may have ``ref`` read at ``depth``;
    else the Problem saying why not."""
    if depth > max_depth:
        return Problem(
            kind=ProblemKind.TOO_DEEP,
            url=ref.loc,
            message=f"not read: nested deeper than {plural(max_depth, 'index', 'indexes')} "
            f"(named by {ref.source})",
        )
    why = scope.check_child(ref.loc)
    if why is not None:
        return Problem(
            kind=ProblemKind.OUT_OF_SCOPE,
            url=ref.loc,
            message=f"not read: an index at {ref.source} may not name a sitemap there ({why})",
        )
    if normalise(ref.loc) in lineage:
        return Problem(
            kind=ProblemKind.CYCLE,
            url=ref.loc,
            message=f"not read again: {ref.source} names its own ancestor (a cycle)",
        )
    return None


def judge_follow(follow: FollowPredicate | None, ref: SitemapRef, depth: int) -> str | None:
    """None when the caller lets ``ref`` (named at ``depth`` by ``ref.source``) be fetched;
    else why not, in words."""
    if follow is None:
        return None
    return refusal_of(
        follow, ChildSitemap(url=ref.loc, parent=ref.source, depth=depth, lastmod=ref.lastmod)
    )


# The distinct reasons a problem quotes; a predicate with a refusal() method may give one per
# child, and an index may name 50,000 of them.
_REASONS = 3


@dataclass(slots=True)
class Refusals:
    """What the caller's follow rules made of the children one index names: how many passed
    and how many were refused, and why (the first few reasons), for the one problem that says
    when they refused every one (a pattern that matches nothing prunes the whole branch)."""

    followed: int = 0
    count: int = 0
    reasons: list[str] = field(default_factory=list)
    more: bool = False  # reasons beyond those kept

    def refused(self, why: str) -> None:
        self.count += 1
        if why not in self.reasons:
            if len(self.reasons) < _REASONS:
                self.reasons.append(why)
            else:
                self.more = True

    def problem(self, url: str) -> Problem | None:
        """The problem of the index at ``url`` when every child judged was refused."""
        if self.followed or not self.count:
            return None
        why = "; ".join(self.reasons) + ("; ..." if self.more else "")
        return Problem(
            kind=ProblemKind.NOTHING_FOLLOWED,
            url=url,
            message=f"{plural(self.count, 'sitemap')} it names refused by the follow rules, "
            f"none followed ({why})",
            count=self.count,
        )


def judge_hop(job: Job, target: str, key: str, seen: Container[str]) -> Refusal | None:
    """None when ``job`` may follow a redirect to ``target`` (dedupe ``key``); ``seen``
    holds the keys of the documents the run has taken on."""
    if key in job.ancestors:
        return _refusal(
            job, Status.CYCLE, ProblemKind.CYCLE, f"redirects to {target}, one of its own indexes"
        )
    if key in seen:
        return _refusal(
            job,
            Status.DUPLICATE,
            ProblemKind.DUPLICATE,
            f"redirects to {target}, which this run reads already",
        )
    return None


def judge_landing(job: Job, final_url: str) -> Refusal | None:
    """None when ``job``, redirected to ``final_url``, is still in its index's scope.

    Scope is judged once, where the redirects end: a hop may pass anywhere the fetcher lets
    it (http(s), the address guard).
    """
    if job.parent_scope is None or final_url == job.url:
        return None
    why = job.parent_scope.check_child(final_url)
    if why is None:
        return None
    return _refusal(
        job,
        Status.SKIPPED,
        ProblemKind.OUT_OF_SCOPE,
        f"redirected to {final_url}, out of scope ({why})",
    )


def _refusal(job: Job, status: Status, kind: ProblemKind, message: str) -> Refusal:
    return Refusal(status, Problem(kind=kind, url=job.url, message=f"not read: {message}"))
