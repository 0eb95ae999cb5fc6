"""Request headers a caller adds to every request of a run (``ReaderConfig.headers``): which
are accepted, and which are credentials that stay with the host they were meant for.

A leaf module: it imports nothing from the package. A header's value may be a secret
(a token, a cookie): no message here ever shows one, only the header's name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from yarl import URL

# -- RFC 9110 section 5.1: a field name is a token.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
# -- RFC 9110 section 5.5: no CR, LF or NUL in a field value (they would split the request).
_BAD_VALUE = re.compile(r"[\r\n\x00]")

# What the reader itself must say: the codings it can undo (its decoder relies on them),
# the validators of an incremental run, and the framing and routing of the request.
READER_OWNED = frozenset(
    {
        "accept-encoding",
        "if-none-match",
        "if-modified-since",
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
    }
)

# -- As curl, requests and httpx do: not sent on to another host after a redirect.
CREDENTIALS = frozenset({"authorization", "cookie", "proxy-authorization"})

Headers = tuple[tuple[str, str], ...]


def checked_headers(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> Headers:
    """``headers`` as ``(name, value)`` pairs, each checked; ValueError (TypeError for a value
    that is no str) naming the header, never showing its value, otherwise."""
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    out = []
    for pair in pairs:
        name, value = pair
        if not isinstance(name, str) or not _TOKEN.fullmatch(name):
            # Not shown: what stands where a name should may be a secret put in its place.
            raise ValueError(
                "a header name is letters, digits and !#$%&'*+-.^_`|~ only (RFC 9110); "
                "this one is not (it is not shown: it may hold a secret)"
            )
        if name.lower() in READER_OWNED:
            raise ValueError(f"the {name} header is the reader's own: it cannot be set")
        if not isinstance(value, str):
            raise TypeError(f"the value of the {name} header must be a str")
        if _BAD_VALUE.search(value):
            raise ValueError(f"the value of the {name} header holds a line break or NUL")
        out.append((name, value))
    return tuple(out)


def without_credentials(headers: Headers) -> Headers:
    """``headers`` less those that carry credentials."""
    return tuple((name, value) for name, value in headers if name.lower() not in CREDENTIALS)


def keeps_credentials(first: URL, target: URL) -> bool:
    """Whether a redirect from ``first`` (the URL the credentials were sent to) to ``target``
    may carry them on: the same scheme, host and port, or the same host moved from http to
    https on the default ports (as requests and httpx allow)."""
    if target.host != first.host:
        return False
    if (target.scheme, target.port) == (first.scheme, first.port):
        return True
    return (first.scheme, first.port, target.scheme, target.port) == ("http", 80, "https", 443)
