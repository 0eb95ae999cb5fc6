"""The shrink guard: a sitemap or a source that suddenly lists far fewer URLs holds its
removals back until a later run sees the same.

A site mid-deploy, a CDN answering a stub or a generator that crashed halfway can serve a
valid, complete sitemap that lists a fraction of the site; a change feed that believed it
would have pipelines delete live pages. The rule (``Incremental.shrink_guard``, default
0.5): a complete read that lists fewer than that share of the URLs its document listed at
its last complete read (a sitemap: its own URLs; an index or robots.txt: the URLs of the
sitemaps it stopped naming, against all those below it) is recorded as a partial read
(what it lists adds, nothing is removed) and the shrink is held in the ledger. The next
complete read decides: shrunk again, the removals go out; recovered, there were none. The
same holds for a whole source, measured at the end of a run: its held removals stay
pending in the store until a later run confirms or undoes the shrink.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timezone

from ..._base._models import Problem, ProblemKind, SitemapRef, SitemapState
from ._ledger import Hold
from ._store import LedgerStore


class ShrinkGuard:
    """One run's guard over the ledger's holds."""

    def __init__(self, ledger: LedgerStore, share: float) -> None:
        self.ledger = ledger
        self.share = share
        self._held = {(h.scope, h.url): h for h in ledger.holds()}
        self._sources: dict[str, tuple[str, int]] = {}  # source -> (first document, URLs)
        # URLs whose removal a sitemap's confirmed shrink handed out, per source: not the
        # source's to hold again.
        self._confirmed: dict[str, int] = {}

    def held(self, url: str) -> bool:
        """Whether a shrink of the document ``url`` is held back."""
        return ("sitemap", url) in self._held

    def begin(self, source: str, key: str) -> None:
        """``source`` (first document ``key``) is read this run: count its URLs now."""
        self._sources[source] = (key, self.ledger.begin_source(source, key))

    def check(
        self,
        url: str,
        root: str,
        *,
        leaf: bool,
        entries: int,
        prior: SitemapState,
        children: Sequence[SitemapRef],
    ) -> Problem | None:
        """A complete read of ``url`` (a ``leaf`` of ``entries`` URLs, or an index naming
        ``children``), recorded before as ``prior``. A ``shrink-held`` Problem: record it
        partial; ``shrink-confirmed``: a held shrink was seen again; None: nothing to say."""
        held = self._held.get(("sitemap", url))
        if leaf:
            before, now = self.ledger.urls_under(url), entries
        else:
            gone = {ref.loc for ref in prior.children} - {ref.loc for ref in children}
            if not gone and held is None:
                return None
            before = self.ledger.urls_under(url)
            now = before - sum(self.ledger.urls_under(loc) for loc in gone)
        said = self._judge("sitemap", url, before, now, held)
        if said is not None and said.kind is ProblemKind.SHRINK_CONFIRMED:
            self._confirmed[root] = self._confirmed.get(root, 0) + before - now
        return said

    def finish(self, at: datetime) -> list[Problem]:
        """Each source's URLs now against its last complete run: hold its removals back,
        or hand out those held before."""
        problems = []
        for source, (key, before) in self._sources.items():
            held = self._held.get(("source", source))
            if held is None:
                before -= self._confirmed.get(source, 0)
            said = self._judge("source", source, before, self.ledger.urls_under(key), held, at)
            if held is not None:
                self.ledger.release_removals(source)
            elif said is not None:
                count = self.ledger.hold_removals(source)
                said = replace(said, message=f"{said.message} ({count:,} removals)", count=count)
            if said is not None:
                problems.append(said)
        return problems

    def _judge(
        self,
        scope: str,
        url: str,
        before: int,
        now: int,
        held: Hold | None,
        at: datetime | None = None,
    ) -> Problem | None:
        base = before if held is None else held.before
        shrunk = base > 0 and now < self.share * base
        what = "the source " if scope == "source" else ""
        if held is not None:
            self.ledger.release(scope, url)
            del self._held[(scope, url)]
            if not shrunk:
                return None
            return Problem(
                kind=ProblemKind.SHRINK_CONFIRMED,
                url=url,
                message=f"{what}lists {now:,} URLs again, {base:,} at its last complete read: "
                "the removals held back are handed out",
            )
        if not shrunk:
            return None
        hold = Hold(
            scope=scope, url=url, before=base, now=now, since=at or datetime.now(timezone.utc)
        )
        self.ledger.hold(hold)
        self._held[(scope, url)] = hold
        return Problem(
            kind=ProblemKind.SHRINK_HELD,
            url=url,
            message=f"{what}lists {now:,} URLs where its last complete read listed {base:,} "
            f"(fewer than {self.share:.0%}): its removals are held back until a later "
            "run sees the same",
        )
