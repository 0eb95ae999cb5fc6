"""The walk's side of a state store: what to skip, what to ask, what to record.

-- PROTOCOL.md, "Incremental fetching": an index's ``sitemap/lastmod`` says when each child
changed, and HTTP validators (``ETag`` / ``If-None-Match``, ``Last-Modified`` /
``If-Modified-Since``, RFC 9110 section 13.1) let the server answer ``304 Not Modified``.

The rules, per document named by URL (``url`` keys are normalised by the walk):

* a child whose index lastmod equals the one recorded at its last complete read is not
  fetched, unless its last check is older than ``max_age``: then it is asked conditionally;
* every other fetch is conditional when a state is recorded; 304 means unchanged;
* a sitemap with entries whose recorded digest is known is held back (spooled) until its
  body is in: the same bytes again mean unchanged, and nothing is parsed or emitted;
* an unchanged index or robots.txt names what it named last time: its children are queued
  with their recorded lastmods and judged by the same rules;
* ``read_all`` ignores what is recorded (reads and emits everything) and records afresh;
  with ``changes``, a sitemap whose entries the store does not track yet is read whole.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from .._config import Incremental
from .._models import Entry, EntryChange, Format, SitemapRef, SitemapState, Status
from ._fetch import FetchResult
from ._state import ChangeFeedStore, StateStore

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


def now() -> datetime:
    return datetime.now(timezone.utc)


class Tracker:
    """One run's use of a store: plans fetches, records complete reads, hands out changes."""

    def __init__(self, store: StateStore, policy: Incremental) -> None:
        self.store = store
        self.policy = policy
        self.changes = policy.changes
        # The store's change feed, when the run asks for it (only then are entries kept).
        self.feed: ChangeFeedStore | None = None
        if policy.changes:
            self.feed = feed_store(store)

    def plan(self, url: str, lastmod: datetime | None) -> Plan:
        """How to fetch ``url``, which its naming index says changed at ``lastmod``."""
        policy = self.policy
        state = self.store.get(url)
        if state is None or policy.read_all:
            return FIRST_READ
        has_entries = state.format in ENTRY_FORMATS
        if policy.changes and has_entries and not state.tracked:
            return FIRST_READ  # the change feed needs its entries: read them
        fresh = (now() - state.checked_at).total_seconds() <= policy.max_age
        if fresh and lastmod is not None and lastmod == state.lastmod:
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
    ) -> None:
        """Record a document read to its end; forget what was staged for one that was not.

        Only a complete read of a valid document (``valid``, and in the format of its last
        complete read) is recorded ``ok``: the store then takes what it no longer lists as
        removed. Any other read to its end is recorded ``partial``: what it read adds, and
        nothing is removed.
        """
        if result.error is not None or not result.read or status not in (Status.OK, Status.PARTIAL):
            if self.feed is not None:
                self.feed.discard(url)
            return
        prior = self.store.get(url)
        moved = (
            prior is not None
            and prior.status is Status.OK
            and prior.format is not None
            and fmt is not prior.format
        )  # another format than last time: believed once a second read says so too
        complete = status is Status.OK and valid and not moved
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

    def confirm(self, url: str, lastmod: datetime | None, result: FetchResult) -> None:
        """``url`` answered 304, or the same bytes: unchanged as of now."""
        self.store.touch(
            url,
            lastmod=lastmod,
            checked_at=now(),
            etag=result.etag,
            last_modified=result.last_modified,
        )

    def stage(self, url: str, entries: Sequence[Entry]) -> None:
        """Entries of ``url`` read for the change feed, kept aside until it is settled."""
        assert self.feed is not None, "entries are staged only with the change feed on"
        self.feed.stage(url, entries)

    def change_batches(self) -> Iterator[list[EntryChange]]:
        """The change feed, in batches (nothing without ``changes``)."""
        if self.feed is None:
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
        """The run handed every change out: the next feed starts from here."""
        if self.feed is not None:
            self.feed.delivered()


def feed_store(store: StateStore) -> ChangeFeedStore:
    """``store`` as a change feed, or a TypeError saying it has none."""
    if not isinstance(store, ChangeFeedStore):
        raise TypeError(
            f"the change feed (incremental.changes) needs a store with one: {type(store).__name__} "
            "has no stage, discard, changes and delivered (SqliteStateStore has)"
        )
    return store
