"""The state store's ledger: the shrink guard's holds and the verdicts on lastmods.

What :class:`~._state_sqlite.SqliteStateStore` keeps beside its documents and entries for
the walk's judgements (:mod:`._shrink`, :mod:`.._core._trust`, :mod:`._recheck`): a shrink
held back, per sitemap or source, with the counts that made it; each verdict on a sitemap's
or source's lastmods; the documents a source held when a run began, to hold its removals
back; and each source's recheck credit.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Generator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from ..._base._models import LastmodTrust, Trust
from ._recheck import Candidate, Credit, Server

if TYPE_CHECKING:  # the connection is the store's: a run with no state file loads no sqlite3
    import sqlite3


@dataclass(frozen=True, slots=True)
class Hold:
    """A shrink the guard holds back: ``url`` (a sitemap, or a source as named) listed
    ``now`` URLs where its last complete read listed ``before``."""

    scope: str  # "sitemap" or "source"
    url: str
    before: int
    now: int
    since: datetime


class Ledger:
    """The ledger's queries, over the store's connection (a mixin of the SQLite store)."""

    _db: sqlite3.Connection

    def _guard(self) -> contextlib.AbstractContextManager[None]:
        raise NotImplementedError

    def urls_under(self, url: str) -> int:
        """URLs the change feed lists for the document ``url`` and every document below it."""
        with self._guard():
            row = self._db.execute(
                f"{_UNDER} SELECT coalesce(sum(runs.count), 0) FROM runs, under "
                "WHERE runs.sitemap = under.id",
                (url,),
            ).fetchone()
            return int(row[0])

    def begin_source(self, source: str, url: str) -> int:
        """Note which documents ``source`` (its first document: ``url``) holds now, for
        :meth:`hold_removals`; the URLs listed under them."""
        with self._guard():
            self._db.execute(
                "CREATE TEMP TABLE IF NOT EXISTS sourced (source TEXT NOT NULL, id INTEGER NOT NULL)"
            )
            self._db.execute("DELETE FROM temp.sourced WHERE source = ?", (source,))
            self._db.execute(
                f"{_UNDER} INSERT INTO temp.sourced (source, id) SELECT ?, id FROM under",
                (url, source),
            )
        return self.urls_under(url)

    def oldest_under(self, url: str, limit: int) -> list[str]:
        """Up to ``limit`` documents below ``url`` that a run may skip on their index lastmod
        (a complete read, a lastmod recorded), the longest unchecked first."""
        with self._guard():
            rows = self._db.execute(
                f"{_UNDER} SELECT s.url FROM under JOIN sitemaps AS s ON s.id = under.id "
                "WHERE s.url <> ? AND s.status = 'ok' AND s.lastmod IS NOT NULL "
                "ORDER BY s.checked_at, s.url LIMIT ?",
                (url, url, limit),
            ).fetchall()
        return [row[0] for row in rows]

    def recheck_pool(self, url: str) -> Generator[Candidate, None, None]:
        """The documents below ``url`` that a run may skip on their index lastmod, the
        longest unchecked first, as the recheck budget weighs them. Close the iterator
        (``contextlib.closing``) when leaving it early."""
        with self._guard():
            cursor = self._db.execute(
                f"{_UNDER} SELECT s.url, s.bytes, s.etag IS NOT NULL OR s.last_modified IS NOT "
                "NULL, s.answers FROM under JOIN sitemaps AS s ON s.id = under.id "
                "WHERE s.url <> ? AND s.status = 'ok' AND s.lastmod IS NOT NULL "
                "ORDER BY s.checked_at, s.url",
                (url, url),
            )
            try:
                while rows := cursor.fetchmany(_PAGE):
                    for child, size, validated, answers in rows:
                        yield Candidate(
                            url=child,
                            bytes=size,
                            validated=bool(validated),
                            answers=None if answers is None else bool(answers),
                        )
            finally:
                cursor.close()

    def recheck_source(self, url: str) -> tuple[int, Server]:
        """The size of the documents below ``url`` (``url`` included) at their last reads,
        and what they said of conditional requests."""
        with self._guard():
            size, answers, ignores = self._db.execute(
                f"{_UNDER} SELECT coalesce(sum(s.bytes), 0), coalesce(max(s.answers = 1), 0), "
                "coalesce(max(s.answers = 0), 0) FROM under JOIN sitemaps AS s ON s.id = under.id",
                (url,),
            ).fetchone()
        return int(size), Server(answers=bool(answers), ignores=bool(ignores))

    def answered(self, url: str, answers: bool) -> None:
        """``url``'s conditional request was answered with 304 (True) or with its whole,
        unchanged body (False)."""
        with self._guard():
            self._db.execute(
                "UPDATE sitemaps SET answers = ? WHERE url = ? AND status IS NOT NULL",
                (int(answers), url),
            )

    def credit(self, source: str) -> Credit:
        """The recheck credit carried to this run by the source whose first document is
        ``source``."""
        with self._guard():
            row = self._db.execute(
                "SELECT credit, idle FROM recheck WHERE source = ?", (source,)
            ).fetchone()
        return Credit() if row is None else Credit(bytes=row[0], idle=row[1])

    def set_credit(self, source: str, credit: Credit, at: datetime) -> None:
        with self._guard():
            self._db.execute(
                "INSERT OR REPLACE INTO recheck (source, credit, idle, at) VALUES (?, ?, ?, ?)",
                (source, credit.bytes, credit.idle, at.isoformat()),
            )

    def hold_removals(self, source: str) -> int:
        """Hold back the pending removals of URLs last listed by what ``source`` held at
        :meth:`begin_source`: :meth:`changes` leaves them out, :meth:`delivered` keeps them,
        until :meth:`release_removals`. Returns how many."""
        with self._guard():
            cursor = self._db.execute(
                "UPDATE pending SET held = ? WHERE held IS NULL AND listed != 0 "
                "AND sitemap IN (SELECT id FROM temp.sourced WHERE source = ?) "
                "AND NOT EXISTS (SELECT 1 FROM listed WHERE listed.key = pending.key)",
                (source, source),
            )
            return cursor.rowcount

    def release_removals(self, source: str) -> None:
        """The removals ``source``'s guard held go out with the next changes (those of URLs
        listed again are no change any more)."""
        with self._guard():
            self._db.execute("UPDATE pending SET held = NULL WHERE held = ?", (source,))

    def holds(self) -> list[Hold]:
        """Every shrink the guard holds back, sitemaps first."""
        with self._guard():
            return [
                Hold(
                    scope=scope,
                    url=url,
                    before=before,
                    now=now,
                    since=datetime.fromisoformat(since),
                )
                for scope, url, before, now, since in self._db.execute(
                    "SELECT scope, url, before, now, since FROM holds ORDER BY scope DESC, url"
                )
            ]

    def hold(self, held: Hold) -> None:
        with self._guard():
            self._db.execute(
                "INSERT OR REPLACE INTO holds (scope, url, before, now, since) VALUES (?, ?, ?, ?, ?)",
                (held.scope, held.url, held.before, held.now, held.since.isoformat()),
            )

    def release(self, scope: str, url: str) -> None:
        with self._guard():
            self._db.execute("DELETE FROM holds WHERE scope = ? AND url = ?", (scope, url))

    def verdict(self, scope: str, url: str) -> LastmodTrust | None:
        """The verdict recorded on the lastmods of a sitemap or a source, or None."""
        with self._guard():
            row = self._db.execute(
                "SELECT verdict, reasons, counts FROM trust WHERE scope = ? AND url = ?",
                (scope, url),
            ).fetchone()
        return None if row is None else _trust(*row)

    def set_verdict(self, scope: str, url: str, trust: LastmodTrust, at: datetime) -> None:
        with self._guard():
            self._db.execute(
                "INSERT OR REPLACE INTO trust (scope, url, verdict, reasons, counts, at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    scope,
                    url,
                    trust.verdict.value,
                    json.dumps(list(trust.reasons)),
                    json.dumps(dict(trust.counts)),
                    at.isoformat(),
                ),
            )

    def verdicts(self, scope: str) -> list[tuple[str, LastmodTrust]]:
        """Every verdict of ``scope`` ('sitemap' or 'source'), by URL."""
        with self._guard():
            return [
                (url, _trust(*rest))
                for url, *rest in self._db.execute(
                    "SELECT url, verdict, reasons, counts FROM trust WHERE scope = ? ORDER BY url",
                    (scope,),
                )
            ]


_PAGE = 256  # recheck candidates fetched at a time

# The documents under one (by sitemaps.id), itself included: a recursive walk of children.
_UNDER = """
WITH RECURSIVE under(id) AS (
    SELECT id FROM sitemaps WHERE url = ? AND status IS NOT NULL
    UNION
    SELECT s.id FROM under JOIN children AS c ON c.parent = under.id
    JOIN sitemaps AS s ON s.url = c.loc AND s.status IS NOT NULL
)"""


def _trust(verdict: str, reasons: str, counts: str) -> LastmodTrust:
    return LastmodTrust(
        Trust(verdict), tuple(json.loads(reasons)), tuple(json.loads(counts).items())
    )
