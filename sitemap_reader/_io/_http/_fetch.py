"""Fetching: through one transport, redirects followed hop by hop, bodies streamed, retries,
each request (hops and retries included) started when its host's pace allows (``_pace``).

Every hop carries the run's request settings (``ReaderConfig.headers``, ``proxy``,
``trust_env``), less the credential headers once a redirect has left the first origin.

Retries (tenacity) cover transport errors, timeouts, 408, 429 and 5xx, with exponential
backoff and full jitter, honouring ``Retry-After`` (capped); other 4xx are final. A body
cut midway is fetched again from the start: the :class:`Body` handler is told so, and the
sitemap handler skips the events it already passed on (parsing is deterministic).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable
from email.utils import parsedate_to_datetime
from typing import TypeVar, cast

from multidict import CIMultiDict
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    before_sleep_log,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)
from tenacity.wait import wait_base
from yarl import URL

from ..._base._config import ReaderConfig, RetryPolicy, Timeouts
from ..._base._errors import (
    AddressRefused,
    CodingError,
    ContentEncodingError,
    FetchError,
    HTTPStatusError,
    LimitExceeded,
    RedirectError,
    TransportError,
)
from ..._base._log import logger as package_logger
from ..._base._models import ProblemKind
from ..._base._request import CREDENTIAL_HEADERS, mask_headers, mask_in, mask_url, secrets_of
from ..._base._run import Progress
from ..._base._words import plural
from ..._core._codings import Decoder, accept_encoding, decoder_for
from ._environment import Environment
from ._gate import HostGate, passage
from ._guard import Guard
from ._pace import Pacer, host_of
from ._pace_store import PaceStore
from ._response import Body, FetchResult, Response
from ._transport import HeadTransport, Transport, TransportResponse, content_length

logger = package_logger(__name__)

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_SLOW_DOWN = frozenset({429, 503})  # with Retry-After: the host's pace slows for the run
_T = TypeVar("_T")


class Fetcher:
    """All requests of one reader go through here (one transport, shared limits)."""

    def __init__(
        self,
        transport: Transport,
        config: ReaderConfig,
        deadline: float | None,
        guard: Guard | None = None,
        progress: Progress | None = None,
        gate: HostGate | None = None,
        pace: PaceStore | None = None,
    ) -> None:
        self._transport = transport
        self._gate = gate  # a bound per host shared beyond this reader (a cluster's); None: none
        # Its bytes grow with every piece received, not once a document ends (the
        # progress line's MB).
        self._progress = progress or Progress()
        self._config = config
        self._deadline = deadline  # time.monotonic() after which no request starts
        self._guard = guard  # None: private addresses allowed
        self._slots: dict[str, asyncio.Semaphore] = {}
        # The environment's proxies when asked for, or when a caller's session reads them
        # (the guard must know); .netrc here unless that session adds it itself.
        trusted = bool(getattr(transport, "trust_env", False))  # an aiohttp session's
        self._env = Environment(
            config.proxy,
            trust_env=config.trust_env or trusted,
            netrc=config.trust_env and not trusted,
        )
        if guard is not None and config.proxy is not None:
            guard.allow_proxy(URL(config.proxy))
        self._secrets = secrets_of(config.headers, config.proxy)
        self.bytes = 0  # body bytes of the run, all documents: the max_total_bytes budget
        self._max_total = config.limits.max_total_bytes
        self._pacer = Pacer(config.pace, deadline, store=pace)  # pace: shared starts, if any

    def slow(self, url: str, seconds: float) -> None:
        """Space the requests to ``url``'s host at least ``seconds`` apart (capped by
        ``Pace.max_delay``) for the rest of the run."""
        self._pacer.slow(host_of(url), seconds)

    @property
    def can_head(self) -> bool:
        """Whether the transport sends HEAD requests (``get(head=True)``)."""
        return callable(getattr(self._transport, "head", None))

    async def get(
        self,
        url: str,
        body: Body,
        *,
        headers: dict[str, str] | None = None,
        head: bool = False,
    ) -> FetchResult:
        """GET ``url`` into ``body`` with retries; never raises for network or HTTP faults.
        ``head``: a HEAD request instead (the transport must offer one: ``can_head``); its
        response has no body, and ``body.start`` should say not to read one."""
        result = FetchResult(url)
        policy = self._config.retry
        retrying = AsyncRetrying(
            stop=stop_after_attempt(policy.attempts),
            wait=_RetryAfterOrBackoff(policy),
            retry=retry_if_exception(_retryable),
            reraise=True,
            before_sleep=before_sleep_log(logger, logging.DEBUG),
        )
        try:
            async with self._slot(url):
                async for attempt in retrying:
                    with attempt:
                        result.attempts = attempt.retry_state.attempt_number
                        async with passage(self._gate, url, self._deadline):
                            await self._once(url, body, result, headers, head)
        except (FetchError, LimitExceeded) as exc:
            result.error = exc
        return result

    def _slot(self, url: str) -> asyncio.Semaphore:
        """The per-host limit, taken before a request rather than inside aiohttp's pool:
        time spent queueing for our own connections must not count as a connect timeout
        (it did: with many children per host, the later ones timed out in the queue)."""
        try:
            key = str(URL(url).origin())
        except ValueError:
            key = url
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = asyncio.Semaphore(self._config.limits.per_host)
        return slot

    async def _once(
        self,
        url: str,
        body: Body,
        result: FetchResult,
        headers: dict[str, str] | None,
        head: bool = False,
    ) -> None:
        clock = _NetworkClock(self._config.timeouts, self._deadline)
        hops: list[tuple[int, str]] = []
        try:
            response, final = await self._open(url, clock, headers, body, hops, head)
        except asyncio.TimeoutError as exc:
            raise self._transport_error(url, exc) from exc
        finally:
            result.redirects = tuple(hops)
        if response is None:  # the body refused a redirect target: it was not requested
            result.final_url = str(final)
            return
        reuse = True
        try:
            result.final_url = str(final)
            result.status = response.status
            result.bytes = 0
            result.content_type = response.headers.get("Content-Type")
            result.content_encoding = response.headers.get("Content-Encoding")
            if response.status >= 400:
                error = _status_error(str(final), response)
                if error.retry_after is not None and response.status in _SLOW_DOWN:
                    # No slower than the retry itself waits: a caller who caps Retry-After
                    # there (RetryPolicy.max_retry_after) is not kept waiting longer here.
                    after = min(error.retry_after, self._config.retry.max_retry_after)
                    self.slow(str(final), after)
                raise error
            info = Response(
                url=url,
                final_url=str(final),
                status=response.status,
                etag=response.headers.get("ETag"),
                last_modified=response.headers.get("Last-Modified"),
                content_type=response.headers.get("Content-Type"),
                content_length=content_length(response.headers),
                headers=response.headers,
            )
            result.etag, result.last_modified = info.etag, info.last_modified
            if response.status == 304 or not body.start(info, result.attempts):
                return
            chunks = response.chunks()
            decoder = _decoder(response, str(final))
            while True:
                data = await self._next_chunk(chunks, clock, str(final), result.bytes)
                if not data:
                    if decoder is not None and not decoder.complete:
                        raise TransportError(
                            f"the {decoder.name} Content-Encoding stream ends before its "
                            f"end after {result.bytes:,} bytes of the body",
                            url=str(final),
                        )
                    break
                room = self._max_total - self.bytes
                if len(data) > room:
                    data = data[: max(room, 0)]  # the budget ends inside this piece
                self._received(result, len(data))
                if data and not await _pass_on(body, decoder, data, str(final)):
                    break
                if self.bytes >= self._max_total:
                    raise LimitExceeded(
                        f"the run's budget of {self._max_total:,} body bytes is spent; "
                        f"stopped after {result.bytes:,} bytes of this body",
                        url=str(final),
                        kind=ProblemKind.MAX_TOTAL_BYTES,
                    )
            result.read = True
            result.elapsed = clock.waited
            reuse = await body.finish()
        finally:
            response.close(reuse=reuse)

    async def _next_chunk(
        self, chunks: AsyncIterator[bytes], clock: _NetworkClock, url: str, midway: int
    ) -> bytes:
        """The body's next piece, b"" at its end; a fault or a timeout says how far it came."""
        try:
            return await clock.wait(anext(chunks, b""))
        except (asyncio.TimeoutError, TransportError) as exc:
            raise self._transport_error(url, exc, midway=midway) from exc

    def _transport_error(self, url: str, exc: BaseException, *, midway: int = 0) -> TransportError:
        """:func:`_transport_error`, with no credential in its words (a proxy's password)."""
        return self._masked(_transport_error(url, exc, midway=midway))

    def _masked(self, error: TransportError) -> TransportError:
        secrets = (*self._secrets, *self._env.secrets)
        masked = mask_in(str(error), secrets)
        if masked == str(error):
            return error
        plain = TransportError(masked, url=error.url)
        plain.__cause__ = error.__cause__  # could_not_connect reads it
        return plain

    def _received(self, result: FetchResult, size: int) -> None:
        result.bytes += size
        self.bytes += size
        self._progress.bytes += size

    async def _open(
        self,
        url: str,
        clock: _NetworkClock,
        headers: dict[str, str] | None,
        body: Body,
        hops: list[tuple[int, str]],
        head: bool = False,
    ) -> tuple[TransportResponse | None, URL]:
        """Follow redirects one hop at a time: each must stay http(s), within the limit."""
        send = cast("HeadTransport", self._transport).head if head else self._transport.get
        method = "HEAD" if head else "GET"
        current = URL(url)
        seen = {current}
        guard = self._guard
        sent = self._request_headers(headers)
        for _hop in range(self._config.limits.max_redirects + 1):
            proxy = await self._env.proxy_for(current)
            login = await self._env.login_for(current)  # .netrc's, for this hop's host
            hop = sent if login is None else _with_login(sent, login)
            if guard is not None:
                if proxy is not None:
                    guard.allow_proxy(proxy)
                await guard.vet(current, proxied=proxy is not None)  # every hop, before it goes
            await self._pacer.start(str(current))  # a hop or a retry is a request too
            if logger.isEnabledFor(logging.DEBUG):
                via = "" if proxy is None else f" via {mask_url(str(proxy))}"
                logger.debug("%s %s%s (%s)", method, current, via, mask_headers(hop.items()))
            try:
                response = await clock.wait(
                    send(str(current), hop, proxy=None if proxy is None else str(proxy)),
                    connect=True,
                )
            except TransportError as exc:
                exc.url = url  # a hop's fault is the fetch's: named by the URL asked for
                raise self._masked(exc) from exc.__cause__
            except FetchError as exc:
                exc.url = url
                raise
            # Through a proxy the socket's peer is the proxy: vet() judged the target.
            if guard is not None and proxy is None:
                try:
                    address = response.peer
                    guard.check_peer(current, None if address is None else (address,))
                except AddressRefused:
                    response.close()
                    raise
            if response.status not in _REDIRECTS:
                return response, current
            location = response.headers.get("Location")
            response.close()
            if not location:
                raise RedirectError(
                    f"HTTP {response.status} redirect without a Location header", url=str(current)
                )
            target = current.join(URL(location))
            if target.scheme not in ("http", "https") or not target.host:
                raise RedirectError(
                    f"redirect to {location!r}, which is not an http(s) URL: not followed",
                    url=str(current),
                )
            if target in seen:
                raise RedirectError(f"redirect loop back to {target}", url=url)
            seen.add(target)
            hops.append((response.status, str(target)))
            if not _same_origin(URL(url), target):
                # As curl, requests and httpx do: credentials stay with the host they were
                # meant for, for the rest of the chain (a hop back does not restore them).
                for name in CREDENTIAL_HEADERS:
                    sent.popall(name, None)
            current = target
            if not body.redirect(str(target)):
                return None, target
        raise RedirectError(
            f"more than {plural(self._config.limits.max_redirects, 'redirect')} (last to "
            f"{current})",
            url=url,
        )

    def _request_headers(self, headers: dict[str, str] | None) -> CIMultiDict[str]:
        """A request's headers: the run's (repeats kept), the codings this machine undoes,
        then the request's own (a conditional request's validators). The run may set neither
        of the last two (ReaderConfig refuses them), so nothing is overwritten."""
        sent: CIMultiDict[str] = CIMultiDict(self._config.headers)
        sent["Accept-Encoding"] = accept_encoding()
        sent.update(headers or {})
        return sent


def _with_login(headers: CIMultiDict[str], login: str) -> CIMultiDict[str]:
    """``headers`` with .netrc's Authorization, unless the run gives its own (as curl)."""
    if "Authorization" in headers:
        return headers
    with_login: CIMultiDict[str] = CIMultiDict(headers)
    with_login["Authorization"] = login
    return with_login


def _same_origin(first: URL, then: URL) -> bool:
    """``then`` is ``first``'s origin, or its upgrade to https on the default ports (curl,
    requests and httpx keep credentials across that one too)."""
    if (then.scheme, then.host, then.port) == (first.scheme, first.host, first.port):
        return True
    return (
        first.scheme == "http"
        and then.scheme == "https"
        and first.host == then.host
        and first.port == 80
        and then.port == 443
    )


class _NetworkClock:
    """Timeouts that count time spent waiting on the network, never time spent waiting on
    the consumer: while a slow consumer holds a body back, no timer runs (aiohttp's own
    sock_read would fire then). ``read`` bounds each wait for data; ``request`` bounds the
    sum of the waits of one request (a server trickling bytes is cut there); the run's
    deadline bounds every wait."""

    __slots__ = ("_deadline", "_timeouts", "_waited", "cause")

    def __init__(self, timeouts: Timeouts, deadline: float | None) -> None:
        self._timeouts = timeouts
        self._deadline = deadline
        self._waited = 0.0
        self.cause = ""  # which bound the last wait ran against, for a timeout's message

    def _limit(self, connect: bool) -> float | None:
        limits: list[tuple[float, str]] = []
        t = self._timeouts
        if t.read is not None:
            if connect:
                limits.append((t.read + (t.connect or 0.0), f"no answer within {t.read:g} s"))
            else:
                limits.append((t.read, f"no data for {t.read:g} s"))
        if t.request is not None:
            limits.append(
                (t.request - self._waited, f"the request's {t.request:g} s budget ran out")
            )
        if self._deadline is not None:
            limits.append((self._deadline - time.monotonic(), "the run's deadline came"))
        if not limits:
            return None
        limit, self.cause = min(limits)
        if limit <= 0:
            if self._deadline is not None and self._deadline <= time.monotonic():
                raise LimitExceeded("the run's deadline has passed", kind=ProblemKind.DEADLINE)
            raise asyncio.TimeoutError
        return limit

    async def wait(self, awaitable: Awaitable[_T], *, connect: bool = False) -> _T:
        try:
            limit = self._limit(connect)
        except BaseException:
            close = getattr(awaitable, "close", None)
            if close is not None:
                close()  # never awaited: close it, or Python warns when it is collected
            raise
        start = time.monotonic()
        try:
            return await asyncio.wait_for(awaitable, limit)
        except asyncio.TimeoutError:
            raise asyncio.TimeoutError(self.cause) from None
        finally:
            self._waited += time.monotonic() - start

    @property
    def waited(self) -> float:
        """Seconds spent waiting on the network so far (the consumer's time not counted)."""
        return self._waited


# Content-Encoding is undone here, not by aiohttp: aiohttp does not check that a stream ends
# where the body does, so a cut one passed as whole (a text sitemap's last line, cut, came
# out as a wrong URL). What is asked for (accept_encoding) is what this machine can undo;
# a server may send another coding unasked.
def _decoder(response: TransportResponse, url: str) -> Decoder | None:
    """The decoder of the response's Content-Encoding: None for none.

    A coding that cannot be undone here is final: asking again brings the same one.
    """
    try:
        return decoder_for(response.headers.get("Content-Encoding", ""))
    except ContentEncodingError as exc:  # the coding's words; the URL is known here
        raise ContentEncodingError(f"{exc}: not read", url=url) from None


async def _pass_on(body: Body, decoder: Decoder | None, data: bytes, url: str) -> bool:
    """Hand ``data`` to ``body``, decoded a bounded piece at a time; False: stop reading."""
    if decoder is None:
        return await body.chunk(data)
    try:
        for piece in decoder.feed(data):
            if not await body.chunk(piece):
                return False
    except CodingError as exc:
        raise TransportError(
            f"the {exc.coding} Content-Encoding stream is corrupt ({exc})", url=url
        ) from exc
    return True


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, HTTPStatusError):
        return exc.retryable
    return isinstance(exc, TransportError)


class _RetryAfterOrBackoff(wait_base):
    """Wait what ``Retry-After`` says (capped), else exponential backoff with full jitter."""

    def __init__(self, policy: RetryPolicy) -> None:
        self._policy = policy
        self._backoff = wait_random_exponential(multiplier=policy.backoff, max=policy.max_backoff)

    def __call__(self, retry_state: RetryCallState) -> float:
        outcome = retry_state.outcome
        exc = outcome.exception() if outcome is not None else None
        after = getattr(exc, "retry_after", None)
        if after is not None:
            return float(min(after, self._policy.max_retry_after))
        return float(self._backoff(retry_state))


def _retry_after(value: str | None) -> float | None:
    """-- RFC 9110 section 10.2.3: delay-seconds or an HTTP-date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _status_error(url: str, response: TransportResponse) -> HTTPStatusError:
    reason = f" {response.reason}" if response.reason else ""
    return HTTPStatusError(
        f"HTTP {response.status}{reason}",
        url=url,
        status=response.status,
        retry_after=_retry_after(response.headers.get("Retry-After")),
    )


def _transport_error(url: str, exc: BaseException, *, midway: int = 0) -> TransportError:
    """A timeout (the reader's clocks) or a transport's fault midway, said with the URL."""
    if isinstance(exc, asyncio.TimeoutError):
        what = f"timed out: {exc}" if str(exc) else "timed out"
    else:
        what = str(exc) or type(exc).__name__
    if midway:
        what = f"{what} after {midway:,} bytes of the body"
    return TransportError(what, url=url)
