"""Each origin's robots.txt, read once a run, and what it says of a sitemap before it is
fetched (``ReaderConfig.robots`` obey or report).

A robots.txt job and the sitemaps given directly on its origin share one read: whichever
asks first fetches it, the others wait for that fetch. A sitemap given directly is judged
by its origin's rules as one that robots.txt names: under ``obey`` a sitemap whose own URL
the rules disallow for the agent is not fetched (reported skipped, with the rule).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from yarl import URL

from ..._base._config import ReaderConfig, RobotsPolicy
from ..._base._errors import HTTPStatusError
from ..._base._log import logger as package_logger
from ..._base._models import Problem, ProblemKind
from ..._base._sources import is_url
from ..._base._words import plural
from ..._core._formats._robots import RobotsSitemaps, crawl_delay, sitemap_urls
from ..._core._walk._jobs import Job, JobKind, normalise
from ..._core._walk._scope import origin_of
from .._http._network import LazyFetcher
from .._http._response import FetchResult
from ._body import BytesBody
from ._local import ROBOTS_MAX_BYTES
from ._robots import CLOSED, RobotsBook

logger = package_logger(__name__)


@dataclass(frozen=True, slots=True)
class RobotsRead:
    """One robots.txt fetched: the response, its bytes, and (read whole or in part, not
    failed) the sitemaps it names."""

    result: FetchResult
    body: BytesBody
    found: RobotsSitemaps | None

    @property
    def final(self) -> str:
        return self.result.final_url or self.url

    @property
    def url(self) -> str:
        return self.result.url


class RobotsGate:
    """The run's robots.txt reads, and the verdict on a sitemap before its fetch."""

    def __init__(self, fetcher: LazyFetcher, config: ReaderConfig, book: RobotsBook | None) -> None:
        self._fetcher = fetcher
        self._config = config
        self._book = book
        self._reads: dict[str, asyncio.Future[RobotsRead]] = {}  # by robots.txt URL

    async def fetch(self, url: str, headers: dict[str, str] | None = None) -> RobotsRead:
        """Fetch the robots.txt at ``url``: its Crawl-delay taken (``Pace.obey_crawl_delay``)
        and its rules added to the book; with the book, once a run (see :meth:`read`)."""
        if self._book is None:
            return await self._fetch(url, headers)
        return await self.read(url)

    async def read(self, url: str) -> RobotsRead:
        """The one read of the robots.txt at ``url`` this run (unconditional: its rules are
        needed), shared by every caller."""
        read = self._reads.get(url)
        if read is None:
            read = self._reads[url] = asyncio.ensure_future(self._fetch(url, None))
        # Shielded: a caller cancelled leaves the read to the others (aclose cancels it).
        return await asyncio.shield(read)

    def close(self) -> None:
        for read in self._reads.values():
            read.cancel()

    async def _fetch(self, url: str, headers: dict[str, str] | None) -> RobotsRead:
        body = BytesBody(ROBOTS_MAX_BYTES)
        result = await self._fetcher.get(url, body, headers=headers)
        error = result.error
        final = result.final_url or url
        data = bytes(body.data)
        if error is not None and not is_client_error(error):
            # -- RFC 9309 section 2.3.1.4: an unreachable robots.txt means complete disallow.
            if self._book is not None:  # its URLs, listed by another site's sitemaps
                self._book.add(origin_of(final), CLOSED)
            return RobotsRead(result, body, None)
        if error is not None or result.status == 304:  # a 4xx allows all; a 304 says nothing new
            return RobotsRead(result, body, RobotsSitemaps((), ()) if error else None)
        if self._config.pace.obey_crawl_delay:
            self._obey_crawl_delay(url, data)
        found = sitemap_urls(data, final)
        if self._book is not None:
            rulings = self._book.read(origin_of(final), data, self._config.user_agent)
            dropped = rulings.dropped(final)
            if dropped is not None:  # (reported with the robots.txt's own problems)
                found = RobotsSitemaps(found.refs, (*found.problems, dropped))
        return RobotsRead(result, body, found)

    def _obey_crawl_delay(self, robots_url: str, data: bytes) -> None:
        """Pace the robots.txt's host by its Crawl-delay for the reader's user agent."""
        found = crawl_delay(data, self._config.user_agent)
        if found is None:
            return
        if found.seconds is None:
            logger.warning(
                "%s line %d: the Crawl-delay value %r is not a number of seconds: ignored",
                robots_url,
                found.line,
                found.value,
            )
            return
        self._fetcher.slow(robots_url, found.seconds)
        cap = self._config.pace.max_delay
        if found.seconds > cap:
            logger.info(
                "%s: Crawl-delay %g s capped to %g s (--max-delay, Pace.max_delay)",
                robots_url,
                found.seconds,
                cap,
            )

    # -- a sitemap, before its fetch ---------------------------------------------------------

    async def before(self, job: Job) -> tuple[Problem | None, list[Problem]]:
        """What robots.txt says of ``job``'s sitemap before it is fetched: the problem that
        keeps it unfetched (``obey``, its URL disallowed for the agent), or None; and the
        problems its report carries (a sitemap given directly that robots.txt does not name
        while it names others). A sitemap given directly has its origin's robots.txt read
        first; without the book (``ignore``) nothing is read or judged."""
        book = self._book
        if book is None or not is_url(job.url):
            return None, []
        said: list[Problem] = []
        if job.kind is JobKind.SITEMAP and not job.source:  # given directly
            robots_url = str(URL(job.url).origin() / "robots.txt")
            read = await self.read(robots_url)
            named = () if read.found is None else read.found.refs
            if named and normalise(job.url) not in {normalise(ref.loc) for ref in named}:
                said.append(not_named(job.url, read.final, [ref.loc for ref in named]))
        if self._config.robots is RobotsPolicy.OBEY:
            rules = book.for_origin(origin_of(job.url)).agent
            rule = rules.check(job.url)
            if rule is not None:
                return not_fetched(job.url, rule), said
        return None, said


def not_named(sitemap: str, robots_url: str, named: list[str]) -> Problem:
    return Problem(
        kind=ProblemKind.SITEMAP_NOT_IN_ROBOTS,
        url=sitemap,
        message=f"{robots_url} names {plural(len(named), 'sitemap')} ({named[0]}"
        f"{', ...' if len(named) > 1 else ''}) but not this one: crawlers that start from "
        "robots.txt find it only if a sitemap index it names lists it",
    )


def not_fetched(sitemap: str, rule: str) -> Problem:
    return Problem(
        kind=ProblemKind.ROBOTS_DISALLOWED_SITEMAP,
        url=sitemap,
        message=f"robots.txt disallows this sitemap's own URL, by {rule}: not fetched "
        "(--robots obey), so the URLs and sitemaps it lists are unknown",
    )


def is_client_error(error: Exception) -> bool:
    return isinstance(error, HTTPStatusError) and 400 <= error.status < 500
