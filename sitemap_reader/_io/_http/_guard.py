"""The SSRF guard: documents may not send the reader to addresses the user did not mean.

A host the user named as a source is trusted, whatever it resolves to (a crawler pointed at
``http://10.0.0.5/`` means it). Any other host comes from a document (an index child, a
robots.txt line, a redirect) and may only be reached on a public address: one that is
loopback, private, link-local (cloud metadata endpoints), shared, multicast, reserved or
otherwise special is refused.

The refusal is judged on the address actually connected to, so a name that resolves to a
public address when checked and to a private one when used (DNS rebinding) gains nothing:

- with the reader's own session, ``._resolver.GuardedResolver`` is aiohttp's resolver, so the
  connector only ever sees, and connects to, the addresses that passed;
- IP literals skip resolvers in aiohttp, so :meth:`Guard.vet` checks them before a request;
- :meth:`Guard.check_peer` checks the connected socket's peer before a body is read. With a
  caller's session (whose resolver is not ours) that is the check that counts, after
  :meth:`Guard.vet` resolved the name once; the request has been sent by then, but nothing
  from that address is read.

Through a proxy neither check sees the target: the connector resolves and connects to the
proxy (the user's choice, let through the resolver, which is asked for nothing else), and
the proxy resolves the target. So :meth:`Guard.vet` judges a proxied target's host itself,
strictly: every address it resolves to here must be public (the proxy may pick any), and a
name that does not resolve here is refused, since where the proxy takes it is unknown.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from typing import Any

from yarl import URL

from ..._base._errors import AddressRefused

_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # -- RFC 6052: IPv4 embedded in IPv6
_Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def special(address: str) -> str | None:
    """Why ``address`` is not a public unicast address ("loopback", ...); None if it is."""
    try:
        ip: _Address = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone
    except ValueError:
        return "not an IP address"
    if isinstance(ip, ipaddress.IPv6Address):
        # An IPv4 address wrapped in IPv6 reaches that IPv4 address: judge it instead.
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return special(str(embedded))
    for name in ("loopback", "link_local", "unspecified", "multicast", "reserved", "private"):
        if getattr(ip, f"is_{name}"):
            return name.replace("_", "-")
    if not ip.is_global:  # shared address space (100.64/10), documentation ranges, ...
        return "special-purpose"
    return None


def _host_key(host: str) -> str:
    return host.rstrip(".").lower()


class Guard:
    """Which hosts are trusted, and the checks; one per reader."""

    def __init__(self, *, owns_resolver: bool) -> None:
        # True when GuardedResolver is the session's resolver: names are vetted at connect.
        self.owns_resolver = owns_resolver
        self._trusted: set[str] = set()
        self._proxies: set[str] = set()  # proxy hosts: the resolver lets them through

    def allow_proxy(self, url: URL) -> None:
        """Let the connector reach the proxy at ``url`` (the user's choice, not a document's)."""
        if url.raw_host:
            self._proxies.add(_host_key(url.raw_host))

    def is_proxy(self, host: str) -> bool:
        return _host_key(host) in self._proxies

    def trust(self, url: str) -> None:
        """Trust the host of a source the user named."""
        parsed = URL(url)
        for host in (parsed.host, parsed.raw_host):
            if host:
                self._trusted.add(_host_key(host))

    def trusts(self, host: str) -> bool:
        return _host_key(host) in self._trusted

    def refusal(self, host: str, address: str, url: str) -> AddressRefused | None:
        why = None if self.trusts(host) else special(address)
        if why is None:
            return None
        return AddressRefused(
            f"not fetched: {host} is at {address}, a {why} address; a document may not send "
            "the reader there (the SSRF guard; --allow-private opens it)",
            url=url,
            host=host,
            address=address,
        )

    async def vet(self, url: URL, *, proxied: bool = False) -> None:
        """Before a request: refuse an IP literal, or (with a caller's session) a name that
        resolves to no public address; a ``proxied`` target unless all its addresses are."""
        host = url.raw_host
        if not host or self.trusts(host):
            return
        try:
            ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
        except ValueError:
            if self.owns_resolver and not proxied:
                return  # GuardedResolver vets it at connect time
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(
                    host, url.port or 0, type=socket.SOCK_STREAM
                )
            except OSError as exc:
                if not proxied:
                    return  # the request fails on the same lookup and says so
                raise AddressRefused(
                    f"not fetched through the proxy: {host} does not resolve here "
                    f"({exc.strerror or exc}), so the SSRF guard cannot judge where it "
                    "leads (--allow-private opens it)",
                    url=str(url),
                    host=host,
                    address="",
                ) from None
            addresses = [str(info[4][0]) for info in infos]
        else:
            addresses = [host.strip("[]")]
        refusals = [self.refusal(host, a, str(url)) for a in addresses]
        refused = [r for r in refusals if r is not None]
        if refused and (proxied or len(refused) == len(refusals)):
            raise refused[0]

    def check_peer(self, url: URL, peer: Any) -> None:
        """After connecting, before reading: the address the socket is connected to."""
        host = url.raw_host
        if not host or not peer or self.trusts(host):
            return
        refused = self.refusal(host, str(peer[0]), str(url))
        if refused is not None:
            raise refused


class Refused(OSError):
    """Raised inside aiohttp's connector (which wraps OSErrors); carries the refusal."""

    def __init__(self, refusal: AddressRefused) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal
