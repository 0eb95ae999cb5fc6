"""What a request takes from the run's settings and, when asked, from the environment: the
proxy it goes through, and the .netrc login of its host.

The fetcher asks here for every hop and hands the answers to aiohttp itself, so that the
SSRF guard knows which requests are proxied (their target is judged before they go, since
the connector then resolves only the proxy), and so that a caller's Authorization header
wins over .netrc (aiohttp's own .netrc lookup refuses the request when both are there).
The readers are aiohttp's (``aiohttp.helpers``, what its ``trust_env`` session calls), so
both agree on every variable's meaning; a release that drops them fails this import.
"""

from __future__ import annotations

import asyncio

from aiohttp.helpers import basicauth_from_netrc, get_env_proxy_for_url, netrc_from_env
from yarl import URL


class Environment:
    """``proxy`` for every request; without one, with ``trust_env``, HTTP_PROXY, HTTPS_PROXY
    and NO_PROXY (and .netrc for a proxy's credentials) as aiohttp's ``trust_env`` reads them.
    ``netrc``: add .netrc's login for each request's host (its Authorization header)."""

    def __init__(self, proxy: str | None, *, trust_env: bool, netrc: bool) -> None:
        self._fixed = None if proxy is None else URL(proxy)
        self._env = trust_env and proxy is None
        self._netrc = netrc
        # Read once a host: the environment does not change within a run, and .netrc is a
        # file (read off the loop, as aiohttp does).
        self._proxies: dict[tuple[str, str], URL | None] = {}
        self._logins: dict[str, str | None] = {}
        self.secrets: tuple[str, ...] = ()  # passwords read from the environment, to mask

    async def proxy_for(self, url: URL) -> URL | None:
        if not self._env:
            return self._fixed
        key = (url.scheme, url.host or "")
        if key not in self._proxies:
            self._proxies[key] = found = await asyncio.to_thread(_proxy_from_env, url)
            if found is not None and found.password:
                self.secrets = (*self.secrets, found.password)
        return self._proxies[key]

    async def login_for(self, url: URL) -> str | None:
        """The Authorization value .netrc gives ``url``'s host; None: none, or not asked."""
        host = url.host
        if not self._netrc or not host:
            return None
        if host not in self._logins:
            self._logins[host] = login = await asyncio.to_thread(_login_from_netrc, host)
            if login is not None:
                self.secrets = (*self.secrets, login, login.partition(" ")[2])
        return self._logins[host]


def _proxy_from_env(url: URL) -> URL | None:
    try:
        proxy, auth = get_env_proxy_for_url(url)
    except LookupError:  # none for this scheme, or NO_PROXY names the host
        return None
    if auth is not None and proxy.user is None:
        proxy = proxy.with_user(auth.login).with_password(auth.password)
    return proxy


def _login_from_netrc(host: str) -> str | None:
    try:
        return str(basicauth_from_netrc(netrc_from_env(), host).encode())
    except LookupError:  # no .netrc, or no entry for the host
        return None
