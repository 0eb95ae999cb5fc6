"""``check --sample N``: the drawn pages fetched through the walk's own fetcher (its pace,
per-host bound, user agent, guard and retries), each as far as its verdict needs: a HEAD
first; a redirect is not followed; then, where the page's head is needed (an HTML page whose
headers did not already say both noindex and canonical) or the HEAD failed (servers that
answer HEAD worse than GET), a GET whose body is read only while the head lasts (``<body>``,
``</head>``, at most 64 KiB). A transport without HEAD is asked the GET alone. What the pages
say is judged by ``_check._page``; the statistics are ``_check._sample``'s."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from .._base._errors import HTTPStatusError, LimitExceeded
from .._check._page import HEAD_BYTES, HeadReader, canonical_in_link, elsewhere, noindex_in
from .._check._sample import PageAnswer
from .._core._formats._robots import product_token
from .._io._http._network import LazyFetcher
from .._io._http._response import FetchResult, Response

# Bodies worth reading for a head; anything else (a PDF, an image) is judged by its headers.
_HTML_TYPES = ("text/html", "application/xhtml+xml")

# Whether robots.txt lets the user agent fetch a URL. Issue 32's first item brings the
# matcher (--robots obey); until then every drawn page is asked.
Allowed = Callable[[str], bool]


class _PageBody:
    """Receives one page: notes a redirect's target without following it, reads the
    headers that speak of indexing, and the head of an HTML body."""

    def __init__(self, robot: str, *, head: bool = False) -> None:
        self._robot = robot
        self._head_only = head  # a HEAD's response: headers, no body
        self.html = False  # an HTML page that answered 200: its head may say more
        self.redirect_to: str | None = None
        self.noindex: str | None = None
        self.canonical: str | None = None
        self.final = ""
        self._head: HeadReader | None = None
        self._read = 0

    @property
    def needs_head(self) -> bool:
        """An HTML page whose headers left noindex or its canonical unsaid."""
        return self.html and (self.noindex is None or self.canonical is None)

    def start(self, response: Response, attempt: int) -> bool:
        self.final = response.final_url
        self.noindex = self.canonical = None  # a retry starts over
        headers = response.headers
        tag = headers.get("X-Robots-Tag")
        if tag is not None and noindex_in(tag, self._robot):
            self.noindex = "X-Robots-Tag"
        link = headers.get("Link")
        if link is not None:
            self.canonical = canonical_in_link(link)
        kind = (response.content_type or "text/html").split(";")[0].strip().lower()
        self.html = response.status == 200 and kind in _HTML_TYPES
        if self._head_only or not self.html:
            return False
        self._head = HeadReader(self._robot)
        self._read = 0
        return True

    async def chunk(self, data: bytes) -> bool:
        head = self._head
        if head is None:
            return False
        room = HEAD_BYTES - self._read
        self._read += len(data[:room])
        head.feed_bytes(data[:room])
        return not head.done and self._read < HEAD_BYTES

    async def finish(self) -> bool:
        head = self._head
        if head is not None:
            head.close()
            if head.noindex and self.noindex is None:
                self.noindex = '<meta name="robots">'
            if head.canonical is not None and self.canonical is None:
                self.canonical = head.canonical
        return True

    def redirect(self, target: str) -> bool:
        self.redirect_to = target
        return False  # the target is the finding: it is not requested


async def fetch_page(fetcher: LazyFetcher, url: str, robot: str) -> PageAnswer | None:
    """One drawn page's answer; None when the run's budget or deadline stopped it (it then
    stands for nothing)."""
    if fetcher.can_head:
        body = _PageBody(robot, head=True)
        result = await fetcher.get(url, body, head=True)
        error = result.error
        if isinstance(error, LimitExceeded):
            return None
        if body.redirect_to is not None or (
            error is not None and not isinstance(error, HTTPStatusError)
        ):
            return _answer(url, body, result)  # a redirect, or the network's fault
        if error is None and not body.needs_head:
            return _answer(url, body, result)
        # An error status is asked again by GET (some servers answer HEAD worse than GET,
        # 405 or 404), and an HTML page's head may say what its headers did not.
    body = _PageBody(robot)
    result = await fetcher.get(url, body)
    if isinstance(result.error, LimitExceeded):
        return None
    return _answer(url, body, result)


def _answer(url: str, body: _PageBody, result: FetchResult) -> PageAnswer:
    error = result.error
    if body.redirect_to is not None:
        status = result.redirects[0][0] if result.redirects else None
        return PageAnswer(url, status=status, redirect=body.redirect_to)
    if isinstance(error, HTTPStatusError):
        return PageAnswer(url, status=error.status)
    if error is not None:
        return PageAnswer(url, error=str(error))
    canonical = None
    if body.canonical is not None:
        canonical = elsewhere(body.final or url, body.canonical)
    return PageAnswer(url, status=result.status, noindex=body.noindex, canonical=canonical)


async def fetch_answers(
    fetcher: LazyFetcher,
    urls: Sequence[str],
    *,
    user_agent: str,
    concurrency: int,
    allowed: Allowed | None = None,
) -> list[PageAnswer]:
    """The drawn pages' answers, in the draw's order. At most ``concurrency`` at once here;
    the fetcher adds the per-host bound and the pace. A page ``allowed`` refuses is not
    fetched (its answer says so)."""
    robot = product_token(user_agent)
    turns = asyncio.Semaphore(max(1, concurrency))

    async def one(url: str) -> PageAnswer | None:
        if allowed is not None and not allowed(url):
            return PageAnswer(url, disallowed=True)
        async with turns:
            return await fetch_page(fetcher, url, robot)

    answers = await asyncio.gather(*(one(url) for url in urls))
    return [a for a in answers if a is not None]
