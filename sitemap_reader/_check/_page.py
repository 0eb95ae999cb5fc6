"""What a sampled page says of itself (``check --sample``): noindex and canonical, from its
headers (``X-Robots-Tag``, ``Link``) and from its HTML head (``<meta name="robots">``,
``<link rel="canonical">``). Pure: headers and bytes in, verdicts out."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from yarl import URL

HEAD_BYTES = 65_536  # at most this much of a page is read for its head
_NOINDEX = frozenset({"noindex", "none"})  # "none" is noindex, nofollow (Google, Bing)
# Directives that take a value after a colon, which must not be read as a crawler's name.
_VALUED = frozenset({"unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"})
# One link-value of a Link header (RFC 8288): <target>; params, values comma-separated.
_LINK = re.compile(r"<([^>]*)>((?:\s*;\s*[^;,]*)*)")
_REL = re.compile(r"""\brel\s*=\s*(?:"([^"]*)"|([^\s;,]+))""", re.IGNORECASE)


def noindex_in(directives: str, robot: str = "") -> bool:
    """An X-Robots-Tag value (or a robots meta's content) says noindex for every crawler,
    or for ``robot`` (a product token, lowercase). As Google reads the header, a crawler's
    name (``googlebot: noindex, nofollow``) makes the directives after it that crawler's
    alone, up to the next name; directives with a value (``max-snippet: 20``) are no names."""
    scope = ""  # "": every crawler's
    for part in directives.split(","):
        word = part.strip().lower()
        named, colon, rest = word.partition(":")
        if colon and named.strip() not in _VALUED:
            scope, word = named.strip(), rest.strip()
        if word in _NOINDEX and scope in ("", robot):
            return True
    return False


def canonical_in_link(value: str) -> str | None:
    """The target of the first ``rel="canonical"`` of a Link header's value, as written."""
    for match in _LINK.finditer(value):
        for rel in _REL.finditer(match.group(2)):
            words = (rel.group(1) or rel.group(2) or "").lower().split()
            if "canonical" in words:
                return match.group(1).strip()
    return None


def elsewhere(page: str, canonical: str) -> str | None:
    """``canonical`` resolved against ``page``, when it names another URL (else None).
    URLs are compared as :func:`_key` has them; the fragment does not count."""
    try:
        base = URL(page)
        target = base.join(URL(canonical)).with_fragment(None)
    except ValueError:
        return canonical  # a canonical that is no URL is not this page either
    if _key(target) == _key(base):
        return None
    return str(target)


def _key(url: URL) -> tuple[str, str, int | None, str, str]:
    """What makes two URLs one page: case-blind scheme and host, the port (default or not),
    the path and query as yarl decodes them."""
    return (url.scheme.lower(), (url.host or "").lower(), url.port, url.path, url.query_string)


class HeadReader(HTMLParser):
    """Reads a page's head as its bytes come, until ``<body>`` (or the head's end, or what
    only a body holds) says the head is over: then ``done`` is True."""

    def __init__(self, robot: str = "") -> None:
        super().__init__(convert_charrefs=True)
        self._robot = robot
        self.noindex = False
        self.canonical: str | None = None
        self.done = False

    def feed_bytes(self, data: bytes) -> None:
        # The head's markup is ASCII; a wrong guess of the charset spoils no tag read here.
        if not self.done:
            self.feed(data.decode("utf-8", "replace"))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.done:
            return
        if tag == "body":
            self.done = True
            return
        values = {name: value or "" for name, value in attrs}
        if tag == "meta":
            name = values.get("name", "").strip().lower()
            if name in ("robots", self._robot) and noindex_in(values.get("content", "")):
                self.noindex = True
        elif (
            tag == "link"
            and self.canonical is None
            and "canonical" in values.get("rel", "").lower().split()
        ):
            self.canonical = values.get("href", "").strip() or None

    def handle_endtag(self, tag: str) -> None:
        if tag == "head":
            self.done = True
