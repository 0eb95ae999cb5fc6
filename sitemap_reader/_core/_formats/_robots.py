"""``Sitemap:`` lines of a robots.txt (RFC 9309 section 2.2.4; sitemaps.org#submit_robots).

Lenient as crawlers are: any case, any place in the file and outside user-agent groups, a
BOM, CRLF or CR line ends, comments, trailing spaces, and the misspellings real files carry
(``sitemaps:``, ``site-map:``, protego's list). A relative value is resolved against the
robots.txt URL and reported; a value that still is no http(s) URL is reported and skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..._base._models import Problem, ProblemKind, SitemapRef
from ..._base._urls import has_scheme, is_http_url, resolve
from ..._base._words import shorten

_DIRECTIVE = re.compile(
    r"[ \t]*(?:sitemap|sitemaps|site-map|site_map|site map)[ \t]*:(.*)", re.IGNORECASE
)
_COMMENT = re.compile(r"[ \t]#")
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
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    text = text.lstrip("\ufeff")
    refs: list[SitemapRef] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), 1):
        match = _DIRECTIVE.match(line)
        if match is None:
            continue
        value = _COMMENT.split(match[1], 1)[0].strip()
        if not value:
            continue
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
    return RobotsSitemaps(tuple(refs), tuple(problems))
