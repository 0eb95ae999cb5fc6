"""The walk's side of a state store: what to skip, what to ask, what to record.

-- docs/incremental.md: an index's ``sitemap/lastmod`` says when each child
changed, and HTTP validators (``ETag`` / ``If-None-Match``, ``Last-Modified`` /
``If-Modified-Since``, RFC 9110 section 13.1) let the server answer ``304 Not Modified``.

The rules, per document named by URL (``url`` keys are normalised by the walk):

* a document whose last read was not complete (recorded ``partial``: cut, truncated, or
  not the format it was) is read again whole, without validators: the kept copy is
  incomplete, so neither a 304 nor the same bytes could say it is unchanged;
* a child whose index lastmod equals the one recorded at its last complete read is not
  fetched, unless its last check is older than ``max_age``: then it is asked conditionally;
* except that each run under ``trust_lastmod`` auto asks conditionally, per source, a
  sample of the children it would skip, the longest unchecked first (the store's
  ``checked_at``): ``recheck`` of them, or by default as many as its byte budget allows
  (:mod:`._recheck`); the sample rotates, so an index that does not bump the lastmod of a
  child that changed is caught (the ``hidden`` signal: the source's lastmods are distrusted);
* every other fetch is conditional when a state is recorded; 304 means unchanged;
* a sitemap with entries whose recorded digest is known is held back (spooled) until its
  body is in: the same bytes again mean unchanged, and nothing is parsed or emitted;
* an unchanged index or robots.txt names what it named last time: its children are queued
  with their recorded lastmods and judged by the same rules;
* ``read_all`` ignores what is recorded (reads and emits everything) and records afresh;
  with ``changes``, a sitemap whose entries the store does not track yet is read whole.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, cast

from ..._base._config import Incremental, TrustLastmod
from ..._base._models import (
    Entry,
    EntryChange,
    Format,
    LastmodTrust,
    Problem,
    ProblemKind,
    SitemapRef,
    SitemapState,
    Status,
    Trust,
)
from ..._base._run import Progress
from ..._core._walk._trust import ACROSS_RUNS, LastmodStats, add, judge
from .._http._response import FetchResult
from ._recheck import Sample, choose
from ._shrink import ShrinkGuard
from ._store import ChangeFeedStore, LedgerStore, StateStore

# Documents that carry entries: the ones worth holding back to compare their bytes.
ENTRY_FORMATS = frozenset({Format.URLSET, Format.TEXT, Format.RSS, Format.ATOM})
CHANGE_BATCH = 1_000  # change records per batch at the end of a run


@dataclass(frozen=True, slots=True)
class Plan:
    """How to fetch one document, from what its last complete read recorded."""

    state: SitemapState | None = None  # None: read it as if for the first time
    skip: bool = False  # unchanged by its index's lastmod: not fetched at all
    headers: dict[str, str] | None = None  # the conditional request's validators
    spool: bool = False  # hold the body back until its digest is known


FIRST_READ = Plan()


@dataclass(frozen=True, slots=True)
class Settled:
    """What recording one read said: the shrink guard's word, the verdict on its lastmods."""

    problem: Problem | None = None
    lastmods: LastmodTrust | None = None


def now() -> datetime:
    return datetime.now(timezone.utc)


class Tracker:
    """One run's use of a store: plans fetches, records complete reads, hands out changes."""

    def __init__(self, store: StateStore, policy: Incremental, progress: Progress) -> None:
        self.store = store
        self.policy = policy
        self.changes = policy.changes
        self.progress = progress
        # The store's change feed, when the run asks for it (only then are entries kept).
        self.feed: ChangeFeedStore | None = None
        if policy.changes:
            self.feed = feed_store(store)
        # Where the entries of what is read go: the feed's store, or, in a run without the
        # feed, a store that keeps them for a later feed (it has ``adopt``: the SQLite ones).
        adopt = getattr(store, "adopt", None)
        self.keeper = self.feed
        if self.keeper is None and adopt is not None:
            # Without the feed no change comes out: a wrapper that keeps whole entries for the
            # feed's records (the Scrapy spider's) is passed by. Imported here: it loads
            # sqlite3, which a run without a state file never needs.
            from ._kept import KeptEntries

            inner = store.store if isinstance(store, KeptEntries) else store
            self.keeper = inner if isinstance(inner, ChangeFeedStore) else None
        if self.feed is not None and adopt is not None:
            adopt()  # what runs without the feed kept is where this feed starts
        self.ledger = store if isinstance(store, LedgerStore) else None
        self.guard: ShrinkGuard | None = None
        if self.feed is not None and self.ledger is not None:
            # Off (0) holds nothing, and still hands out what an earlier run held.
            self.guard = ShrinkGuard(self.ledger, policy.shrink_guard)
        self._signals: dict[str, dict[str, int]] = {}  # per document seen: its trust counts
        self._root_of: dict[str, str] = {}  # per document seen: its source
        self._sources: set[str] = set()  # the run's sources, each judged at its end
        # Per source: its documents' counts summed as they come, for the running verdict
        # (summing them all again for every document would grow with the square of a run).
        self._totals: dict[str, dict[str, int]] = {}
        # Children to ask again although their index lastmod did not move (Incremental.recheck),
        # each with its source's first document; those asked so far; per source, the sample
        # chosen by the byte budget and the bytes its children received.
        self._recheck: dict[str, str] = {}
        self._asked: dict[str, str] = {}
        self._sampled: set[str] = set()
        self._samples: dict[str, Sample] = {}
        self._spent: dict[str, int] = {}

    # -- sources ---------------------------------------------------------------------------

    def source(self, root: str, key: str) -> None:
        """A source of the run (``root`` as the user named it, ``key`` its first document)."""
        if root in self._sources:
            return
        self._sources.add(root)
        if self.guard is not None:
            self.guard.begin(root, key)
        policy = self.policy
        if policy.recheck != 0 and policy.trust_lastmod is TrustLastmod.AUTO:
            # Only auto judges lastmods: always takes them on faith, never asks everything.
            self._sample(key)
        if self.ledger is not None:
            known = self.ledger.verdict("source", root)
            if known is not None and known.verdict is Trust.UNTRUSTED:
                self._distrust(root, known)

    def _sample(self, key: str) -> None:
        """Choose the children below ``key`` (a source's first document) to ask again."""
        ledger = self.ledger
        if ledger is None or key in self._sampled:
            return
        self._sampled.add(key)
        count = self.policy.recheck
        if count is not None:
            urls = ledger.oldest_under(key, count)
        else:
            size, server = ledger.recheck_source(key)
            with contextlib.closing(ledger.recheck_pool(key)) as pool:
                sample = choose(pool, size=size, credit=ledger.credit(key), server=server)
            self._samples[key] = sample
            urls = list(sample.urls)
        for url in urls:
            self._recheck.setdefault(url, key)

    def _spend(self, url: str, result: FetchResult) -> None:
        """``url``'s fetch ended: what it received counts against its sample's budget."""
        key = self._asked.pop(url, None)
        if key is not None:
            self._spent[key] = self._spent.get(key, 0) + result.bytes

    def _distrust(self, root: str, trust: LastmodTrust) -> None:
        if self.policy.trust_lastmod is TrustLastmod.AUTO:
            self.progress.distrusted.setdefault(root, "; ".join(trust.reasons))

    def finish(self) -> list[Problem]:
        """The run's documents are settled: judge each source's lastmods, apply the source
        shrink guard; the Problems that say what it held or handed out."""
        at = now()
        if self.ledger is not None:
            for key, sample in self._samples.items():
                self.ledger.set_credit(key, sample.after(self._spent.get(key, 0)), at)
            for root in self._sources:
                counts = add(*(c for u, c in self._signals.items() if self._root_of[u] == root))
                if counts:
                    self.ledger.set_verdict("source", root, judge(counts), at)
        return [] if self.guard is None else self.guard.finish(at)

    # -- planning --------------------------------------------------------------------------

    def plan(self, url: str, lastmod: datetime | None, root: str = "") -> Plan:
        """How to fetch ``url``, which its naming index says changed at ``lastmod``."""
        policy = self.policy
        state = self.store.get(url)
        if state is None or policy.read_all:
            return FIRST_READ
        has_entries = state.format in ENTRY_FORMATS
        if policy.changes and has_entries and not state.tracked:
            return FIRST_READ  # the change feed needs its entries: read them
        if self.guard is not None and self.guard.held(url):
            return FIRST_READ  # a shrink held back: only a whole read can confirm it
        if state.status is not Status.OK:
            # Its last read was cut (or proved nothing): what is kept is incomplete, so a 304
            # or the same bytes would say nothing. Read whole, and its problem is said again.
            return FIRST_READ
        fresh = (now() - state.checked_at).total_seconds() <= policy.max_age
        if fresh and lastmod is not None and lastmod == state.lastmod and self._trusts(root):
            if url in self._recheck:
                # Sampled: its index may lie; asked conditionally, a change is found.
                self._asked[url] = self._recheck.pop(url)
            else:
                self._seen(url, root, None)
                return Plan(state, skip=True)
        headers = {}
        if state.etag:
            headers["If-None-Match"] = state.etag
        if state.last_modified:
            headers["If-Modified-Since"] = state.last_modified
        return Plan(state, headers=headers or None, spool=has_entries and bool(state.digest))

    def settle(
        self,
        url: str,
        *,
        lastmod: datetime | None,
        result: FetchResult,
        status: Status,
        fmt: Format | None,
        entries: int,
        digest: str | None,
        children: Sequence[SitemapRef],
        valid: bool = True,
        root: str = "",
        stats: LastmodStats | None = None,
    ) -> Settled:
        """Record a document read to its end; forget what was staged for one that was not.

        Only a complete read of a valid document (``valid``, and in the format of its last
        complete read) is recorded ``ok``: the store then takes what it no longer lists as
        removed. Any other read to its end is recorded ``partial``: what it read adds, and
        nothing is removed.
        """
        self._spend(url, result)
        if result.error is not None or not result.read or status not in (Status.OK, Status.PARTIAL):
            self.discard(url)
            return Settled()
        prior = self.store.get(url)
        moved = (
            prior is not None
            and prior.status is Status.OK
            and prior.format is not None
            and fmt is not prior.format
        )  # another format than last time: believed once a second read says so too
        complete = status is Status.OK and valid and not moved
        problem = None
        if complete and self.guard is not None and prior is not None:
            problem = self.guard.check(
                url,
                root,
                leaf=fmt in ENTRY_FORMATS,
                entries=entries,
                prior=prior,
                children=children,
            )
            complete = problem is None or problem.kind is not ProblemKind.SHRINK_HELD
        at = now()
        self.store.put(
            SitemapState(
                url=url,
                final_url=result.final_url or url,
                status=Status.OK if complete else Status.PARTIAL,
                format=fmt,
                lastmod=lastmod,
                etag=result.etag,
                last_modified=result.last_modified,
                fetched_at=at,
                checked_at=at,
                entries=entries,
                bytes=result.bytes,
                digest=digest,
                children=tuple(children),
                tracked=self.changes,
            )
        )
        signals = {} if stats is None else stats.signals(lastmod, at)
        # Across runs: did the bytes change with the index lastmod, or without it?
        changed = prior is not None and prior.digest not in (None, digest)
        if changed and prior is not None and None not in (prior.lastmod, lastmod):
            signals["hidden" if lastmod == prior.lastmod else "confirmed"] = 1
        return Settled(problem, self._judged(url, root, signals, at, read=True))

    def known(self, url: str, root: str) -> LastmodTrust | None:
        """The verdict recorded on ``url``'s lastmods (a document not read this run)."""
        return self._judged(url, root, None, None)

    def _judged(
        self,
        url: str,
        root: str,
        signals: dict[str, int] | None,
        at: datetime | None,
        *,
        read: bool = False,
    ) -> LastmodTrust | None:
        """``url``'s verdict, from this run's ``signals`` (None: none measured) and what the
        ledger kept: a ``read``'s signals replace the last read's, and the signals across
        runs add up. Recorded when something was measured."""
        if self.ledger is None and signals is None:
            return None
        known = None if self.ledger is None else self.ledger.verdict("sitemap", url)
        counts = {} if known is None else dict(known.counts)
        if signals is not None:
            kept = {k: v for k, v in counts.items() if k in ACROSS_RUNS or not read}
            counts = add(kept, signals)
        trust = judge(counts)
        if signals is not None and self.ledger is not None and at is not None:
            self.ledger.set_verdict("sitemap", url, trust, at)
        self._seen(url, root, counts)
        return trust

    def _seen(self, url: str, root: str, counts: dict[str, int] | None) -> None:
        """Count ``url`` in its source's verdict (None: as the ledger has it)."""
        if not root:
            return
        if counts is None:
            known = None if self.ledger is None else self.ledger.verdict("sitemap", url)
            counts = {} if known is None else dict(known.counts)
        before = self._signals.get(url)
        if before is not None:  # seen again (skipped, then reported): its counts replaced
            was = self._root_of[url]
            self._totals[was] = add(self._totals[was], {k: -n for k, n in before.items()})
        self._signals[url] = counts
        self._root_of[url] = root
        self._totals[root] = total = add(self._totals.get(root, {}), counts)
        if root in self.progress.distrusted or self.policy.trust_lastmod is not TrustLastmod.AUTO:
            return
        running = judge(total)  # zero counts judge as absent ones
        if running.verdict is Trust.UNTRUSTED:
            self._distrust(root, running)

    def _trusts(self, root: str) -> bool:
        """Whether a child of ``root`` may be skipped on its index's lastmod alone."""
        policy = self.policy.trust_lastmod
        if policy is TrustLastmod.NEVER:
            return False
        return policy is TrustLastmod.ALWAYS or root not in self.progress.distrusted

    def confirm(
        self, url: str, lastmod: datetime | None, result: FetchResult, root: str = ""
    ) -> LastmodTrust | None:
        """``url`` answered 304, or the same bytes: unchanged as of now. Its verdict."""
        self._spend(url, result)
        prior = self.store.get(url)
        if self.ledger is not None and prior is not None:
            # Whether its server answers conditional requests: what a recheck would cost.
            if result.status == 304:
                self.ledger.answered(url, True)
            elif prior.etag or prior.last_modified:  # they were sent, and the body came whole
                self.ledger.answered(url, False)
        moved = prior is not None and None not in (lastmod, prior.lastmod)
        moved = moved and prior is not None and lastmod != prior.lastmod
        at = now()
        self.store.touch(
            url,
            lastmod=lastmod,
            checked_at=at,
            etag=result.etag,
            last_modified=result.last_modified,
        )
        return self._judged(url, root, {"moved": 1} if moved else None, at)

    def stage(self, url: str, entries: list[Entry], stamps: list[int | None] | None = None) -> None:
        """Entries of ``url`` kept for the change feed, aside until it is settled; ``stamps``:
        their lastmods as ``lastmod_stamps`` gave them, if the walk has them."""
        keeper = self.keeper
        assert keeper is not None, "entries are staged only for a store that keeps them"
        # Only a store whose own class takes them (a wrapper keeps what it is given).
        if stamps is not None and getattr(type(keeper), "stage_stamped", None) is not None:
            cast(Any, keeper).stage_stamped(url, [e.loc for e in entries], stamps)
        else:
            keeper.stage(url, entries)

    def discard(self, url: str) -> None:
        """Drop what was staged for ``url``: its read is not recorded."""
        if self.keeper is not None:
            self.keeper.discard(url)

    def change_batches(self) -> Iterator[list[EntryChange]]:
        """The change feed, in batches (nothing without ``changes``)."""
        if self.feed is None:
            return
        batches = getattr(self.feed, "change_batches", None)  # a store's own, if it has one
        if batches is not None:
            yield from batches(CHANGE_BATCH)
            return
        batch: list[EntryChange] = []
        for change in self.feed.changes():
            batch.append(change)
            if len(batch) >= CHANGE_BATCH:
                yield batch
                batch = []
        if batch:
            yield batch

    def delivered(self) -> None:
        """The run handed every change out: the next feed starts from here (unless the run
        only peeked at them)."""
        if self.feed is not None and not self.policy.peek:
            self.feed.delivered()


def feed_store(store: StateStore) -> ChangeFeedStore:
    """``store`` as a change feed, or a TypeError saying it has none."""
    if not isinstance(store, ChangeFeedStore):
        raise TypeError(
            f"the change feed (incremental.changes) needs a store with one: {type(store).__name__} "
            "has no stage, discard, changes and delivered (SqliteStateStore has)"
        )
    return store
