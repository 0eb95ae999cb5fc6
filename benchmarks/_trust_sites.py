"""Three loopback sites whose served files change between runs, for lastmod trust figures.

Each site is robots.txt -> index -> ``children`` urlsets written to a directory and served
by aiohttp's static handler on 127.0.0.1 (which sends ETag and Last-Modified and answers
conditional requests with 304, as common servers do). A :class:`TrustSite` rebuilds its
files for a run; only the files whose bytes change are rewritten:

* ``honest``: each child's index lastmod is the newest lastmod of its entries, and moves
  when the child changes;
* ``lying``: the index lastmods are frozen at the site's launch while the entries move
  (children change, the index never says so);
* ``stamped``: every lastmod, index and entries, is the build time, rewritten every build;
* ``silent`` (not in ``KINDS``: the recheck figures' site): the index lastmods are frozen
  and the entries carry none, so no read shows the lie; only asking a skipped child again
  (``Incremental.recheck``) finds a change.
"""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

from aiohttp import web

if TYPE_CHECKING:
    from typing_extensions import Self

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
LAUNCH = datetime(2023, 1, 1, tzinfo=timezone.utc)
KINDS = ("honest", "lying", "stamped")


class TrustSite:
    """One site's files in ``root``; :meth:`build` writes a version of it."""

    def __init__(self, kind: str, root: Path, base: str, children: int, urls: int) -> None:
        self.kind, self.root, self.base = kind, root, base
        self.children, self.urls = children, urls
        self.versions = [0] * children  # how often each child changed
        root.mkdir(parents=True, exist_ok=True)

    def change(self, child: int) -> str:
        """Child ``child`` gains a URL (its entries' lastmods move): the URL it gained."""
        self.versions[child] += 1
        return self._url(child, self.urls + self.versions[child] - 1)

    def build(self, now: datetime) -> None:
        """Write the site as of ``now`` (the build time); unchanged bytes are not rewritten."""
        dates = []
        for child in range(self.children):
            # An honest or lying child's entries date from its last change.
            changed = LAUNCH + timedelta(days=30 * (1 + self.versions[child]) + child)
            stamp = now if self.kind == "stamped" else changed
            dates.append(LAUNCH if self.kind in ("lying", "silent") else stamp)
            count = self.urls + self.versions[child]
            dated = "" if self.kind == "silent" else f"<lastmod>{stamp.isoformat()}</lastmod>"
            body = "".join(
                f"<url><loc>{escape(self._url(child, i))}</loc>{dated}</url>\n"
                for i in range(count)
            )
            self._write(f"c{child}.xml", f'<urlset xmlns="{NS}">\n{body}</urlset>\n')
        index = "".join(
            f"<sitemap><loc>{self.base}/c{i}.xml</loc><lastmod>{d.isoformat()}</lastmod>"
            "</sitemap>\n"
            for i, d in enumerate(dates)
        )
        self._write("index.xml", f'<sitemapindex xmlns="{NS}">\n{index}</sitemapindex>\n')
        self._write("robots.txt", f"Sitemap: {self.base}/index.xml\n")

    def _url(self, child: int, i: int) -> str:
        return f"{self.base}/p/{child}/{i}"

    def _write(self, name: str, text: str) -> None:
        path, data = self.root / name, text.encode()
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)


class StaticServer:
    """``root``'s subdirectories served on 127.0.0.1 from a thread: ``/<kind>/...``. With
    ``validators`` False, the files go out with no ETag or Last-Modified (and a conditional
    request gets the whole file), as from a server that generates its sitemaps."""

    def __init__(self, root: Path, *, validators: bool = True) -> None:
        self.root = root
        self.validators = validators
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None

    def __enter__(self) -> Self:
        self._thread.start()
        self.port = asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    async def _start(self) -> int:
        app = web.Application()
        if self.validators:
            app.router.add_static("/", self.root)
        else:
            app.router.add_get("/{path:.+}", self._plain)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        return int(self._runner.addresses[0][1])

    async def _plain(self, request: web.Request) -> web.Response:
        path = (self.root / request.match_info["path"]).resolve()
        if not path.is_relative_to(self.root.resolve()) or not path.is_file():
            raise web.HTTPNotFound()
        kind = "text/plain" if path.suffix == ".txt" else "application/xml"
        return web.Response(body=path.read_bytes(), content_type=kind)
