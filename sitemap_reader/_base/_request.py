"""Request settings a caller adds to every request of a run: extra headers and a proxy URL.

What is checked here: a header's name and value (a CR or LF would split the request), a
proxy URL's form, and which headers carry credentials. What is masked here: those
credentials, wherever a header or a proxy URL is printed (a problem, a log line, a repr).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from yarl import URL

# -- RFC 9110 section 5.6.2: token = 1*tchar.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
# -- RFC 9110 section 5.5: a field value holds no CR, LF or NUL (other controls are obsolete).
_BAD_VALUE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
# Framing headers the HTTP client writes itself: a caller's copy would contradict it.
_FRAMING = frozenset({"host", "content-length", "transfer-encoding", "connection"})
# Headers the reader writes itself: the codings it can undo, an incremental run's validators.
_READERS = frozenset({"accept-encoding", "if-none-match", "if-modified-since"})
# Sent to the host a run asked, never to another one a redirect names (curl, requests and
# httpx drop the same), and never printed in full.
CREDENTIAL_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})

Headers = tuple[tuple[str, str], ...]


def check_header(name: str, value: str) -> None:
    """Raise ValueError, saying why, for a header no request may carry."""
    if not _TOKEN.fullmatch(name):
        raise ValueError(f"{name!r} is not a header name (letters, digits and !#$%&'*+.^_`|~-)")
    if name.lower() in _FRAMING:
        raise ValueError(f"the {name} header is the HTTP client's to write, not a setting")
    if name.lower() in _READERS:
        raise ValueError(f"the {name} header is the reader's to write, not a setting")
    if _BAD_VALUE.search(value):
        raise ValueError(f"the value of the {name} header holds a line break or control character")


def parse_header(text: str) -> tuple[str, str]:
    """``'Name: value'`` as ``(name, value)``, checked; ValueError says what is wrong."""
    name, colon, value = text.partition(":")
    name = name.strip()
    if not colon or not name:
        # The text is not shown: a header without its colon may still be a secret.
        raise ValueError("a header is written 'Name: value', and this one has no name or no ':'")
    value = value.strip()
    check_header(name, value)
    return name, value


def header_pairs(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> Headers:
    """``headers`` (a mapping or pairs) as a tuple of checked pairs, in order."""
    pairs = tuple(headers.items() if isinstance(headers, Mapping) else headers)
    for pair in pairs:
        if not (
            isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(p, str) for p in pair)
        ):
            raise ValueError(f"a header is a (name, value) pair of strings, not {pair!r}")
        check_header(*pair)
    return pairs


def check_proxy(proxy: str) -> None:
    """Raise ValueError unless ``proxy`` is an http:// URL with a host (credentials allowed)."""
    try:
        url = URL(proxy)
    except ValueError as exc:
        raise ValueError(f"the proxy {mask_url(proxy)!r} is not a URL: {exc}") from None
    if url.scheme != "http" or not url.host:
        raise ValueError(
            f"the proxy {mask_url(proxy)!r} is not an http:// URL with a host "
            "(an http proxy carries http and https requests: http://[user:password@]host:port)"
        )


def mask_value(name: str, value: str) -> str:
    """``value``, or for a credential header its scheme word only (``Bearer ***``)."""
    if name.lower() not in CREDENTIAL_HEADERS:
        return value
    scheme, space, _ = value.partition(" ")
    return f"{scheme} ***" if space and name.lower() != "cookie" else "***"


def mask_headers(headers: Iterable[tuple[str, str]]) -> str:
    """Headers as a log line shows them, credentials masked."""
    return ", ".join(f"{name}: {mask_value(name, value)}" for name, value in headers)


def mask_url(url: str) -> str:
    """``url`` with the password of its user info masked (``http://user:***@host/``)."""
    try:
        parsed = URL(url)
    except ValueError:
        return re.sub(r"(//[^/@:]*:)[^/@]*@", r"\1***@", url)
    if parsed.password is None:
        return url
    return str(parsed.with_password("***"))


def secrets_of(headers: Iterable[tuple[str, str]], proxy: str | None) -> tuple[str, ...]:
    """The strings no message may show: credential header values and the proxy's password."""
    found: list[str] = []
    for name, value in headers:
        if name.lower() in CREDENTIAL_HEADERS:
            found += [value, value.partition(" ")[2]]  # whole, and past "Basic " or "Bearer "
    if proxy is not None:
        password = URL(proxy).password
        found += [password, URL(proxy).raw_password or ""] if password else []
    # The longest first, so that a secret holding another is masked whole.
    return tuple(sorted({s for s in found if len(s) > 2}, key=len, reverse=True))


def mask_in(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each of ``secrets`` replaced by ``***`` (an error's words, a URL)."""
    for secret in secrets:
        text = text.replace(secret, "***")
    return text
