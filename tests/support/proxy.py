"""A forward HTTP proxy on 127.0.0.1 for the request-settings tests: it takes absolute-form
GETs for http targets (``GET http://host:port/path``), logs each with its headers, checks
Proxy-Authorization when it has credentials (407 otherwise), and forwards the request to the
target with its own client, as a real proxy does: hop-by-hop and proxy headers dropped, the
body passed on as sent (Content-Encoding included)."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web
from multidict import CIMultiDict
from pytest_aiohttp.plugin import AiohttpServer
from yarl import URL

# -- RFC 9110 section 7.6.1: not forwarded; and what the proxy's own client writes anew.
_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
        "host",
    }
)


@dataclass
class ProxyHit:
    """One request the proxy received."""

    target: str  # the absolute-form target, as sent
    headers: CIMultiDict[str]


@dataclass
class Proxy:
    """The proxy's log; ``credentials`` ("user:password"): 407 for a request without them."""

    credentials: str | None = None
    hits: list[ProxyHit] = field(default_factory=list)

    def targets(self) -> list[str]:
        return [hit.target for hit in self.hits]

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        target = URL(request.raw_path, encoded=True)  # the request target, as sent
        self.hits.append(ProxyHit(str(target), request.headers.copy()))
        if not target.is_absolute():
            return web.Response(status=400, text="a proxy takes absolute-form targets")
        if self.credentials is not None:
            expected = "Basic " + base64.b64encode(self.credentials.encode()).decode()
            if request.headers.get("Proxy-Authorization") != expected:
                return web.Response(status=407, headers={"Proxy-Authenticate": 'Basic realm="t"'})
        sent = [(k, v) for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP]
        async with (
            aiohttp.ClientSession(trust_env=False, auto_decompress=False) as session,
            session.get(target, headers=sent, allow_redirects=False) as upstream,
        ):
            body = await upstream.read()
            headers = [(k, v) for k, v in upstream.headers.items() if k.lower() not in _HOP_BY_HOP]
            return web.Response(status=upstream.status, body=body, headers=CIMultiDict(headers))

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_route("GET", "/{tail:.*}", self._forward)
        return app


@dataclass
class ServedProxy:
    proxy: Proxy
    port: int

    def url(self, *, host: str = "127.0.0.1", userinfo: str = "") -> str:
        """The proxy's URL, on ``host``, with ``userinfo`` ("user:password") if given."""
        at = f"{userinfo}@" if userinfo else ""
        return f"http://{at}{host}:{self.port}"


async def serve_proxy(aiohttp_server: AiohttpServer, proxy: Proxy | None = None) -> ServedProxy:
    """Start ``proxy`` on 127.0.0.1 with pytest-aiohttp's fixture (which stops it)."""
    proxy = proxy or Proxy()
    server = await aiohttp_server(proxy.app())
    assert server.port is not None
    return ServedProxy(proxy, server.port)
