"""URL tests and resolution every layer shares: what a <loc> must be, a reference resolved."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from yarl import URL

# An absolute http(s) URL with a host: what a <loc> must be.
_HTTP_URL = re.compile(r"[Hh][Tt][Tt][Pp][Ss]?://[^/?#\s]").match
# -- RFC 3986 section 3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:").match
# -- RFC 3986 appendix C: white space, controls and <>" never occur in a URI reference, so a
# value holding them is prose or markup, not a relative URL to resolve.
_NOT_URI = re.compile(r'[\x00-\x20\x7f<>"]').search


def is_http_url(value: str) -> bool:
    """True for an absolute http:// or https:// URL with a host."""
    if _HTTP_URL(value) is None:
        return False
    # The expression sees a character after "//"; the authority may still hold no host
    # ("http://@/", "http://:80/") or be no authority at all ("http://[", "http://a]b/").
    try:
        return bool(urlsplit(value).hostname)
    except ValueError:
        return False


def has_scheme(value: str) -> bool:
    """True when ``value`` starts with a URL scheme (so it is not a relative reference)."""
    return _SCHEME(value) is not None


def is_reference(value: str) -> bool:
    """False when ``value`` holds characters no URI reference can (see ``_NOT_URI``)."""
    return _NOT_URI(value) is None


def resolve(base: str, ref: str) -> str | None:
    """Resolve a relative reference against ``base``; None when that gives no http(s) URL."""
    try:
        joined = str(URL(base).join(URL(ref)))
    except (ValueError, TypeError):
        return None
    return joined if is_http_url(joined) else None
