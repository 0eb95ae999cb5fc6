"""Documents for check's tests: a urlset declaring every extension, a fixed clock."""

from __future__ import annotations

from datetime import datetime, timezone

from tests.support.http_site import SITEMAP_NS, Served

NOW = datetime(2024, 6, 1, tzinfo=timezone.utc)
EXT_NS = (
    ' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
    ' xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"'
    ' xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"'
    ' xmlns:xhtml="http://www.w3.org/1999/xhtml"'
)


def urls(*blocks: str, ns: str | None = SITEMAP_NS, decl: str = "UTF-8") -> str:
    """A urlset of ``<url>`` blocks (each the inside of one <url>)."""
    xmlns = f' xmlns="{ns}"' if ns else ""
    inner = "".join(f"<url>{b}</url>\n" for b in blocks)
    return f'<?xml version="1.0" encoding="{decl}"?>\n<urlset{xmlns}{EXT_NS}>\n{inner}</urlset>\n'


def loc(s: Served, path: str, extra: str = "") -> str:
    return f"<loc>{s.a(path)}</loc>{extra}"


def images(n: int, prefix: str) -> str:
    """``n`` ``<image:image>`` of one ``<url>``, at ``{prefix}{i}.jpg``."""
    return "".join(
        f"<image:image><image:loc>{prefix}{i}.jpg</image:loc></image:image>" for i in range(n)
    )


def video(content: str, title: str = "t", description: str = "d") -> str:
    """A ``<video:video>`` with every required field; its file is ``content``."""
    return (
        f"<video:video><video:thumbnail_loc>{content}.jpg</video:thumbnail_loc>"
        f"<video:title>{title}</video:title><video:description>{description}"
        f"</video:description><video:content_loc>{content}</video:content_loc></video:video>"
    )
