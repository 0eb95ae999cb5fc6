"""Which proxy a request goes through: the configured one, the environment's, or none.

The fetcher asks here for every hop and hands the answer to aiohttp itself, so that the
SSRF guard knows which requests are proxied (their target is judged before they go, since
the connector then resolves only the proxy).
"""

from __future__ import annotations

import asyncio

from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL


class Proxies:
    """``proxy`` for every request; without one, with ``trust_env``, HTTP_PROXY, HTTPS_PROXY
    and NO_PROXY (and .netrc for a proxy's credentials) as aiohttp's ``trust_env`` reads them."""

    def __init__(self, proxy: str | None, *, trust_env: bool) -> None:
        self._fixed = None if proxy is None else URL(proxy)
        self._env = trust_env and proxy is None
        self._found: dict[tuple[str, str], URL | None] = {}  # (scheme, host): the env's answer
        self.secrets: tuple[str, ...] = ()  # the environment's proxy passwords, to mask

    async def for_url(self, url: URL) -> URL | None:
        if not self._env:
            return self._fixed
        key = (url.scheme, url.host or "")
        if key not in self._found:
            # Read once a host: the environment does not change within a run, and .netrc is
            # a file (read off the loop, as aiohttp does).
            self._found[key] = found = await asyncio.to_thread(_from_env, url)
            if found is not None and found.password:
                self.secrets = (*self.secrets, found.password)
        return self._found[key]


def _from_env(url: URL) -> URL | None:
    try:
        proxy, auth = get_env_proxy_for_url(url)
    except LookupError:  # none for this scheme, or NO_PROXY names the host
        return None
    if auth is not None and proxy.user is None:
        proxy = proxy.with_user(auth.login).with_password(auth.password)
    return proxy
