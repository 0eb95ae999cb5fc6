"""Scrapy spiders fed by this reader: :class:`SitemapReaderSpider`, swapped in for ``SitemapSpider``.

    from sitemap_reader.scrapy import SitemapReaderSpider

    class Shop(SitemapReaderSpider):
        name = "shop"
        sitemap_urls = ["https://www.example.com/"]          # a site root, robots.txt or sitemap
        sitemap_rules = [(r"/product/", "parse_product")]    # regex -> callback, first match wins
        sitemap_state = "state/shop.sqlite"                  # next runs: new or modified pages only

        def parse_product(self, response):
            entry = response.meta["sitemap_entry"]           # the sitemap_reader.Entry
            yield {"url": response.url, "lastmod": entry.lastmod, "images": len(entry.images)}

The spider's async ``start()`` reads the sitemaps with :class:`~sitemap_reader.SitemapReader`
(discovery, scope, limits, the SSRF guard and retries as configured by ``sitemap_config``)
on the asyncio loop Scrapy runs on, and yields one page request per entry as the entries
stream in. A sitemap ``sitemap_follow`` refuses is not fetched at all (``ReaderConfig.follow``).
Sitemaps are fetched through Scrapy's downloader (a :class:`~sitemap_reader.Transport`), so
its middlewares, proxies, delays, AutoThrottle and HTTP cache apply to them as to the pages,
with Scrapy's ``USER_AGENT`` unless ``sitemap_config`` says otherwise; redirects, retries and
the SSRF guard stay the reader's. This module needs Scrapy 2.13 or newer
(``pip install 'sitemap-reader[scrapy]'``); ``import sitemap_reader`` never imports it.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from . import (
    ChangeKind,
    Entry,
    EntryChange,
    Problem,
    ReaderConfig,
    SitemapReader,
    SitemapVisited,
    SqliteStateStore,
)
from ._base._follow import ChildSitemap, FollowPredicate, refusal_of
from ._io._http._scrapy import ScrapyTransport
from ._io._http._transport import Transport
from ._io._state._kept import KeptEntries

try:
    from scrapy import Request, Spider
except ImportError as exc:  # pragma: no cover - the extra is installed where tests run
    raise ImportError(
        f"sitemap_reader.scrapy needs Scrapy: pip install 'sitemap-reader[scrapy]' ({exc})"
    ) from exc

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

__all__ = [
    "ASYNCIO_REACTOR",
    "META_ALTERNATES",
    "META_CHANGE",
    "META_ENTRY",
    "META_IMAGES",
    "META_LASTMOD",
    "META_SITEMAP",
    "META_SOURCE",
    "SitemapReaderSpider",
]

# -- Request.meta keys, the same on every page request ------------------------------------------
META_ENTRY = "sitemap_entry"  # the sitemap_reader.Entry record
META_LASTMOD = "sitemap_lastmod"  # Entry.lastmod: an aware datetime, or None
META_ALTERNATES = "sitemap_alternates"  # {hreflang: href} of the entry's hreflang alternates
META_IMAGES = "sitemap_images"  # the image locs, a tuple of str
META_SITEMAP = "sitemap_url"  # the sitemap that lists the entry (its final URL)
META_SOURCE = "sitemap_source"  # the item of sitemap_urls it descends from
META_CHANGE = "sitemap_change"  # "new" or "modified" with sitemap_state, else None

ASYNCIO_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"

Rule = tuple["re.Pattern[str] | str", "str | Callable[..., Any]"]


class SitemapReaderSpider(Spider):
    """A spider whose start requests are the pages its sitemaps list, as ``SitemapSpider``'s.

    Attributes (set them on the subclass, or as spider arguments):
        sitemap_urls: what to read: site roots (robots.txt, else well-known paths),
            robots.txt URLs, sitemap or index URLs, in any sitemap format (XML, text, RSS,
            Atom, gzipped). Read one after another.
        sitemap_rules: ``(regex, callback)`` pairs; a page gets the callback (a method name
            or a callable) of the first regex found in its URL, and no request without one.
        sitemap_follow: regexes on sitemap URLs: a sitemap an index names whose URL matches
            none of them is not fetched (as ``SitemapSpider``); those a robots.txt or
            ``sitemap_urls`` name always are. It joins ``sitemap_config``'s own ``follow``.
        sitemap_alternate_links: also request each entry's hreflang alternates.
        sitemap_config: the :class:`~sitemap_reader.ReaderConfig` (scope, limits, timeouts,
            retries, the SSRF guard); by default the defaults, with Scrapy's ``USER_AGENT``.
        sitemap_state: a state file (SQLite): with one, each run requests only the pages
            whose entries are new or modified since the last run (the change feed).
        sitemap_requests_in_bulk: hand each batch's page requests to Scrapy's scheduler at
            once (``engine.crawl``), not one by one through ``start()``: the engine takes
            start requests one per loop turn. Such requests skip the spider middlewares'
            ``process_start``; set it False for a project whose middlewares need them there.
    """

    sitemap_urls: Sequence[str] = ()
    sitemap_rules: Sequence[Rule] = (("", "parse"),)
    sitemap_follow: Sequence[re.Pattern[str] | str] = ("",)
    sitemap_alternate_links: bool = False
    sitemap_config: ReaderConfig | None = None
    sitemap_state: str | os.PathLike[str] | None = None
    sitemap_requests_in_bulk: bool = True

    @classmethod
    def update_settings(cls, settings: BaseSettings) -> None:
        # The reader runs on asyncio (aiohttp): ask for the reactor that drives an asyncio
        # loop. Scrapy's default since 2.7, pinned here against a project that changed it;
        # the spider's own custom_settings still come after.
        settings.set("TWISTED_REACTOR", ASYNCIO_REACTOR, priority="spider")
        super().update_settings(settings)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._callbacks = [
            (re.compile(regex), getattr(self, cb) if isinstance(cb, str) else cb)
            for regex, cb in self.sitemap_rules
        ]
        self._follow = [re.compile(regex) for regex in self.sitemap_follow]

    # -- hooks ----------------------------------------------------------------------------------

    def sitemap_filter(self, entries: Iterable[Entry]) -> Iterable[Entry]:
        """Keep the entries to request: override it to filter on lastmod, images, ...

        It gets :class:`~sitemap_reader.Entry` records (``lastmod`` an aware ``datetime``),
        a batch at a time, after ``sitemap_follow`` and before ``sitemap_rules``.
        """
        return entries

    def sitemap_removed(self, change: EntryChange) -> Iterable[Any]:
        """With ``sitemap_state``: a page no sitemap lists any more. What this yields (items,
        requests) ``start()`` yields; by default nothing."""
        return ()

    def sitemap_reader_config(self) -> ReaderConfig:
        """The reader's configuration: ``sitemap_config``, with the change feed turned on
        when there is a ``sitemap_state``."""
        config = self.sitemap_config
        if config is None:
            settings = getattr(self, "settings", None)
            agent = settings.get("USER_AGENT") if settings is not None else None
            config = ReaderConfig(user_agent=agent) if agent else ReaderConfig()
        if self.sitemap_state is not None and not config.incremental.changes:
            config = replace(config, incremental=replace(config.incremental, changes=True))
        # An empty pattern follows everything (SitemapSpider's default): no test then.
        if not any(p.pattern == "" for p in self._follow):
            config = replace(config, follow=_IndexChildren(tuple(self._follow), config.follow))
        return config

    def sitemap_reader_transport(self) -> Transport | None:
        """What fetches the sitemaps: Scrapy's downloader (the user agent the
        ``sitemap_config`` names, if one is given). Return None for the reader's own aiohttp
        session, which none of Scrapy's downloader settings reach."""
        crawler = getattr(self, "crawler", None)
        if crawler is None:  # not run by a crawler: no downloader to go through
            return None
        agent = None if self.sitemap_config is None else self.sitemap_config.user_agent
        return ScrapyTransport(crawler, user_agent=agent)

    # -- the start requests ---------------------------------------------------------------------

    async def start(self) -> AsyncIterator[Any]:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(
                f"{type(self).__name__} reads sitemaps on asyncio: run it with "
                f"TWISTED_REACTOR = {ASYNCIO_REACTOR!r} (or TWISTED_REACTOR_ENABLED = False)"
            ) from None
        sources = (self.sitemap_urls,) if isinstance(self.sitemap_urls, str) else self.sitemap_urls
        config = self.sitemap_reader_config()
        kept = None if self.sitemap_state is None else KeptEntries(_open_state(self.sitemap_state))
        try:
            transport = self.sitemap_reader_transport()
            async with SitemapReader(config, transport=transport, state=kept) as reader:
                # One walk per source, so that each entry is known to descend from its own.
                for source in sources:
                    async for batch in reader.walk_batches(source):
                        for out in self._from_batch(batch, source, kept):
                            yield out
        finally:
            if kept is not None:
                kept.close()

    def _from_batch(
        self, batch: Sequence[object], source: str, kept: KeptEntries | None
    ) -> Iterator[Any]:
        entries: list[Entry] = []
        changes: dict[str, str] | None = None
        removed: list[EntryChange] = []
        for event in batch:
            kind = type(event)
            if kind is Entry:
                entries.append(event)  # type: ignore[arg-type]
            elif kind is EntryChange:
                assert isinstance(event, EntryChange) and kept is not None
                if event.change is ChangeKind.REMOVED:
                    removed.append(event)
                else:
                    changes = {} if changes is None else changes
                    changes[event.loc] = event.change.value
                    entries.append(kept.entry(event))
                self._count(f"changes/{event.change.value}")
            elif kind is SitemapVisited:
                assert isinstance(event, SitemapVisited)
                self._count(f"sitemaps/{event.status.value}")
            elif kind is Problem:
                assert isinstance(event, Problem)
                self._count(f"problems/{event.kind}")
                # INFO, fatal or not: a document a fatal problem ended is a WARNING of the
                # reader's own logger ("sitemap_reader"), which Scrapy's log shows as well.
                self.logger.info("%s", event)
        self._count("entries", len(entries))
        if entries:
            requests = self._requests(entries, source, changes)
            crawl = self._bulk_crawl()
            if crawl is None:
                yield from requests
            else:
                for request in requests:
                    crawl(request)
        for change in removed:
            yield from self.sitemap_removed(change)

    def _requests(
        self, entries: list[Entry], source: str, changes: dict[str, str] | None
    ) -> Iterator[Request]:
        callbacks, alternates = self._callbacks, self.sitemap_alternate_links
        made = 0
        for entry in self.sitemap_filter(entries):
            meta = {
                META_ENTRY: entry,
                META_LASTMOD: entry.lastmod,
                META_ALTERNATES: {a.hreflang: a.href for a in entry.alternates if a.hreflang},
                META_IMAGES: tuple(image.loc for image in entry.images),
                META_SITEMAP: entry.sitemap,
                META_SOURCE: source,
                META_CHANGE: None if changes is None else changes.get(entry.loc),
            }
            locs = [entry.loc]
            if alternates:
                locs += [a.href for a in entry.alternates if a.href != entry.loc]
            for loc in locs:
                for regex, callback in callbacks:
                    if regex.search(loc):
                        made += 1
                        yield Request(loc, callback=callback, meta=meta)
                        break
        self._count("requests", made)

    def _bulk_crawl(self) -> Callable[[Request], None] | None:
        """The engine's way in for requests, when page requests go in bulk."""
        crawler = getattr(self, "crawler", None)
        engine = None if crawler is None else crawler.engine
        if not self.sitemap_requests_in_bulk or engine is None:
            return None
        return engine.crawl  # type: ignore[no-any-return]

    def _count(self, key: str, count: int = 1) -> None:
        crawler = getattr(self, "crawler", None)
        if crawler is not None and crawler.stats is not None and count:
            crawler.stats.inc_value(f"sitemap_reader/{key}", count)


def _open_state(path: str | os.PathLike[str]) -> SqliteStateStore:
    """The state file at ``path``, its directory made if needed."""
    directory = os.path.dirname(os.path.abspath(os.fspath(path)))
    os.makedirs(directory, exist_ok=True)
    return SqliteStateStore(path)


@dataclass(frozen=True, slots=True)
class _IndexChildren:
    """``sitemap_follow`` as ``SitemapSpider`` applies it: to the sitemaps an index names, not
    to those a robots.txt names (depth 0); and ``then``, the config's own predicate, after it.
    Plain data, as ``ReaderConfig`` is (it pickles)."""

    patterns: tuple[re.Pattern[str], ...]
    then: FollowPredicate | None = None

    def __call__(self, child: ChildSitemap) -> bool:
        return self.refusal(child) is None

    def refusal(self, child: ChildSitemap) -> str | None:
        if child.depth > 0 and not any(p.search(child.url) for p in self.patterns):
            return (
                f"matches no sitemap_follow ({', '.join(repr(p.pattern) for p in self.patterns)})"
            )
        return None if self.then is None else refusal_of(self.then, child)
