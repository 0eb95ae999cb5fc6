"""``Sitemap:`` lines of a robots.txt (RFC 9309 section 2.2.4; sitemaps.org#submit_robots),
and the ``Crawl-delay`` of the reader's group.

Lenient as crawlers are: any case, any place in the file and outside user-agent groups, a
BOM, CRLF or CR line ends, comments, trailing spaces, and the misspellings real files carry
(``sitemaps:``, ``site-map:``, protego's list). A relative value is resolved against the
robots.txt URL and reported; a value that still is no http(s) URL is reported and skipped.
A value that is not UTF-8 keeps its ASCII and has its other bytes percent-encoded, as a
text sitemap's line does (``encoding``): the URL names the bytes the line holds, where a
decoder's U+FFFD would name a file the line never did.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from urllib.parse import quote

from ..._base._models import Problem, ProblemKind, SitemapRef
from ..._base._urls import has_scheme, is_http_url, resolve
from ..._base._words import plural, shorten
from ._text import ASCII_SAFE

_DIRECTIVE = re.compile(
    r"[ \t]*(?:sitemap|sitemaps|site-map|site_map|site map)[ \t]*:(.*)", re.IGNORECASE
)
_COMMENT = re.compile(r"[ \t]#")
# What decoding with "surrogateescape" makes of bytes that are not UTF-8.
_NOT_UTF8 = re.compile("[\udc80-\udcff]")
# The first line that says something, in a file that is a robots.txt (RFC 9309 section 2.2).
_ROBOTS_LINE = re.compile(
    rb"[ \t]*(?:user-agent|disallow|allow|crawl-delay|host|sitemaps?|site-map)[ \t]*:",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class RobotsSitemaps:
    """What a robots.txt names: the sitemaps, and the problems met reading the lines."""

    refs: tuple[SitemapRef, ...]
    problems: tuple[Problem, ...]


def looks_like_robots(head: bytes) -> bool:
    """True when the first line of ``head`` that is neither blank nor a comment is a robots.txt
    directive (``User-agent:``, ``Sitemap:``, ...): a local file shaped so is a robots.txt."""
    for line in head.removeprefix(b"\xef\xbb\xbf").splitlines():
        line = line.strip()
        if line and not line.startswith(b"#"):
            return _ROBOTS_LINE.match(line) is not None
    return False


def sitemap_urls(body: bytes | str, robots_url: str) -> RobotsSitemaps:
    """The sitemaps ``body`` (a robots.txt fetched from ``robots_url``) names, in order, once each."""
    # (surrogateescape: the bytes that are not UTF-8 are kept, to be percent-encoded)
    text = body.decode("utf-8", "surrogateescape") if isinstance(body, bytes) else body
    text = text.lstrip("\ufeff")
    refs: list[SitemapRef] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    not_utf8: list[tuple[int, str]] = []  # (line, value) of the values that are not UTF-8
    for number, line in enumerate(text.splitlines(), 1):
        match = _DIRECTIVE.match(line)
        if match is None:
            continue
        value = _COMMENT.split(match[1], 1)[0].strip()
        if not value:
            continue
        if _NOT_UTF8.search(value):
            value = quote(value.encode("utf-8", "surrogateescape"), safe=ASCII_SAFE)
            not_utf8.append((number, value))
        url: str | None = value
        if url is not None and not is_http_url(value):
            if "://" in value or (has_scheme(value) and not value.startswith("//")):
                url = None
            else:
                url = resolve(robots_url, value)
                if url is not None:
                    problems.append(
                        Problem(
                            kind=ProblemKind.RELATIVE_LOC_RESOLVED,
                            url=robots_url,
                            message=f"line {number}: the relative Sitemap value {shorten(value)} "
                            f"was resolved to {url}",
                            line=number,
                        )
                    )
            if url is None:
                problems.append(
                    Problem(
                        kind=ProblemKind.INVALID_LOC,
                        url=robots_url,
                        message=f"line {number}: the Sitemap value {shorten(value)} is not an "
                        "http(s) URL and was skipped",
                        line=number,
                    )
                )
                continue
        if url is None or url in seen:
            continue
        seen.add(url)
        refs.append(SitemapRef(loc=url, lastmod=None, source=robots_url))
    if not_utf8:
        problems.append(_not_utf8(not_utf8, robots_url))
    return RobotsSitemaps(tuple(refs), tuple(problems))


def _not_utf8(found: list[tuple[int, str]], robots_url: str) -> Problem:
    """One problem for the Sitemap values that were not UTF-8, placed at the first."""
    line, value = found[0]
    example = shorten(value)
    if len(found) == 1:
        said = f"the Sitemap value {example} is not UTF-8"
    else:
        said = f"{plural(len(found), 'Sitemap value')} are not UTF-8 (first: {example})"
    return Problem(
        kind=ProblemKind.ENCODING,
        url=robots_url,
        message=f"line {line}: {said}; the bytes that are not printable ASCII were percent-encoded",
        line=line,
        count=len(found),
        example=example,
    )


# -- Groups (RFC 9309 section 2.1): one or more user-agent lines, then their rules. Sitemap
# lines belong to no group and do not end one.
RECORD_LINE = re.compile(r"[ \t]*([A-Za-z][A-Za-z_ -]*?)[ \t]*:(.*)")
PRODUCT_TOKEN = re.compile(
    r"[A-Za-z0-9_-]+"
)  # RFC 9309 has letters, _ and -; real names add digits


@dataclass(frozen=True, slots=True)
class CrawlDelay:
    """The ``Crawl-delay`` line that applies to the reader: ``seconds`` is None when its
    value is no number of seconds (the caller says so, naming ``line`` and ``value``)."""

    seconds: float | None
    line: int
    value: str


def product_token(user_agent: str) -> str:
    """The product token a robots.txt group names a crawler by (RFC 9309 section 2.2.1):
    ``sitemap-reader`` of ``sitemap-reader/1.0 (+https://...)``, lower-cased."""
    match = PRODUCT_TOKEN.match(user_agent.strip())
    return "" if match is None else match[0].lower()


def crawl_delay(body: bytes | str, user_agent: str) -> CrawlDelay | None:
    """The first ``Crawl-delay`` of the groups that name ``user_agent``'s product token
    (case-insensitively), else of the ``*`` groups; None when that group sets none. As
    RFC 9309 section 2.2.1 has it, a group for the product token replaces ``*`` wholly."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    product = product_token(user_agent)
    named: list[tuple[int, str]] = []  # the Crawl-delay lines of the product's groups
    anyone: list[tuple[int, str]] = []  # ... of the * groups
    has_group = False  # some group names the product: the * groups do not apply
    agents: set[str] = set()
    in_agents = False  # the last group line was a user-agent line
    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        match = RECORD_LINE.match(raw.split("#", 1)[0])  # '#' starts a comment on group lines
        if match is None:
            continue
        key, value = match[1].lower().replace("_", "-"), match[2].strip()
        if key == "user-agent":
            if not in_agents:
                agents = set()
            token = "*" if value == "*" else product_token(value)
            agents.add(token)
            has_group = has_group or (bool(product) and token == product)
            in_agents = True
        elif _DIRECTIVE.match(raw) is None:  # any rule but Sitemap ends the user-agent lines
            in_agents = False
            if key == "crawl-delay" and product and product in agents:
                named.append((number, value))
            elif key == "crawl-delay" and "*" in agents:
                anyone.append((number, value))
    found = named if has_group else anyone
    if not found:
        return None
    number, value = found[0]
    return CrawlDelay(_seconds(value), number, value)


def _seconds(value: str) -> float | None:
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None
