"""Deterministic sitemap documents for the benchmarks: the same seed gives the same bytes.

Three shapes of one content (the pages of a site with a blog, a shop and docs):

* ``plain_sitemap``: a urlset as Yoast, XML-Sitemaps.com and most generators write it,
  one ``<url>`` per page with loc, lastmod, changefreq and priority, ``<image:image>`` on a
  share of them; the shape the fast scanner takes.
* ``mixed_sitemap``: the same pages as a multilingual, image-rich site writes them:
  hreflang alternates on some, image titles and captions, changefreq and priority on half
  of them; the mix real sites serve.
* ``exact_sitemap``: the same pages as All in One SEO writes them (values wrapped in CDATA)
  plus hreflang alternates, image titles and captions, video and news extensions: a shape
  the scanner once handed to expat whole (it now reads it all, video and news included).

All list the same locs in the same order, so every reader must find the same URLs.
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"

DEFAULT_URLS = 50_000
DEFAULT_BASE = "https://www.example.com"

# A word list reads better as text than as 109 quoted items.
_WORDS = (  # noqa: SIM905
    "guide best review how choose running shoes winter summer garden kitchen tools home "
    "office chair desk light lamp coffee tea recipe easy quick healthy breakfast dinner "
    "travel city beach mountain hiking trail camping tent backpack budget cheap premium "
    "update release notes install configure server cloud backup security privacy data "
    "report market trends analysis small business tips marketing email social media "
    "video photo camera lens portrait landscape wedding family kids school learning "
    "online course python javascript api guide tutorial beginner advanced performance "
    "test design modern classic vintage wooden metal leather cotton wool organic natural "
    "local fresh seasonal sale new top ten things know before buying mistakes avoid "
    "checklist complete ultimate"
).split()
# Non-ASCII slugs as sites serve them: WordPress percent-encodes, a few generators do not.
_INTL_WORDS = ("café", "größe", "señor", "naïve", "crème", "übersicht", "façade", "jalapeño")
_CATEGORIES = ("shoes", "garden", "kitchen", "office", "outdoor", "lighting", "books", "toys")
_DOC_AREAS = ("getting-started", "reference", "howto", "admin", "api", "faq")
_QUERY_KEYS = (("variant", "color"), ("page", "sort"), ("utm_source", "utm_medium"))
_QUERY_VALUES = ("blue", "red", "price", "newest", "2", "3", "newsletter", "feed", "xl")
# Changefreq and priority as generators spread them: mostly weekly/monthly, few extremes.
_CHANGEFREQ = ("daily", "weekly", "weekly", "monthly", "monthly", "monthly", "yearly")
_PRIORITY = ("1.0", "0.8", "0.8", "0.6", "0.6", "0.5", "0.5", "0.64", "0.3")
_ZONES = ("+00:00", "+00:00", "+00:00", "+01:00", "+02:00", "-05:00", "Z")
_LANGS = ("de", "fr", "es", "it")
_EPOCH = datetime(2019, 1, 1, tzinfo=timezone.utc)
_SPAN_SECONDS = 6 * 365 * 86_400


@dataclass(frozen=True, slots=True)
class ImageSpec:
    loc: str
    title: str | None = None
    caption: str | None = None


@dataclass(frozen=True, slots=True)
class VideoSpec:
    thumbnail_loc: str
    title: str
    description: str
    content_loc: str
    duration: int
    publication_date: str
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NewsSpec:
    name: str
    language: str
    publication_date: str
    title: str


@dataclass(frozen=True, slots=True)
class UrlSpec:
    """One page of the generated site; the plain document writes its first five fields."""

    loc: str
    lastmod: str
    changefreq: str
    priority: str
    images: tuple[ImageSpec, ...]
    alternates: tuple[tuple[str, str], ...]  # (hreflang, href), the exact document only
    video: VideoSpec | None
    news: NewsSpec | None


def url_specs(
    n: int = DEFAULT_URLS, *, seed: int = 0, base_url: str = DEFAULT_BASE
) -> list[UrlSpec]:
    """The pages every document lists: ``n`` unique locs under ``base_url``."""
    rng = random.Random(seed)
    base = base_url.rstrip("/")
    seen: set[str] = set()
    specs: list[UrlSpec] = []
    for i in range(n):
        when = _EPOCH + timedelta(seconds=rng.randrange(_SPAN_SECONDS))
        path = _path(rng, i, when)
        loc = base + path
        suffix = 2
        while loc in seen:  # what WordPress does with a taken slug: "-2", "-3", ...
            loc = f"{base}{path.rstrip('/')}-{suffix}/"
            suffix += 1
        seen.add(loc)
        # Mostly distinct timestamps, as CMSs write them: a cache of parsed dates can't help.
        lastmod = when.strftime("%Y-%m-%dT%H:%M:%S") + rng.choice(_ZONES)
        images = tuple(_image(rng, base, when) for _ in range(_image_count(rng)))
        alternates: tuple[tuple[str, str], ...] = ()
        if rng.random() < 0.3:
            rel = loc[len(base) :]
            alternates = (
                ("en", loc),
                *((lang, f"{base}/{lang}{rel}") for lang in _LANGS),
                ("x-default", loc),
            )
        video = _video(rng, base, when) if rng.random() < 0.02 else None
        news = _news(rng, when) if rng.random() < 0.05 else None
        specs.append(
            UrlSpec(
                loc,
                lastmod,
                rng.choice(_CHANGEFREQ),
                rng.choice(_PRIORITY),
                images,
                alternates,
                video,
                news,
            )
        )
    return specs


def plain_sitemap(
    n: int = DEFAULT_URLS,
    *,
    seed: int = 0,
    base_url: str = DEFAULT_BASE,
    stylesheet: str | None = None,
) -> bytes:
    """A urlset the scanner reads whole (see the module docstring).

    ``stylesheet`` adds the ``<?xml-stylesheet?>`` line Yoast, Rank Math and WordPress core
    put after the declaration (e.g. ``"/main-sitemap.xsl"``)."""
    out = [_declaration(stylesheet)]
    out.append(
        f'<urlset xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        f'xmlns:image="{IMAGE_NS}" '
        f'xsi:schemaLocation="{SITEMAP_NS} {SITEMAP_NS}/sitemap.xsd" '
        f'xmlns="{SITEMAP_NS}">\n'
    )
    for spec in url_specs(n, seed=seed, base_url=base_url):
        out.append(
            f"\t<url>\n\t\t<loc>{_esc(spec.loc)}</loc>\n"
            f"\t\t<lastmod>{spec.lastmod}</lastmod>\n"
            f"\t\t<changefreq>{spec.changefreq}</changefreq>\n"
            f"\t\t<priority>{spec.priority}</priority>\n"
        )
        out.extend(
            f"\t\t<image:image>\n\t\t\t<image:loc>{_esc(image.loc)}</image:loc>\n"
            "\t\t</image:image>\n"
            for image in spec.images
        )
        out.append("\t</url>\n")
    out.append("</urlset>\n<!-- XML Sitemap generated by a benchmark -->\n")
    return "".join(out).encode("utf-8")


def exact_sitemap(
    n: int = DEFAULT_URLS,
    *,
    seed: int = 0,
    base_url: str = DEFAULT_BASE,
    stylesheet: str | None = None,
) -> bytes:
    """The same pages in a shape only the exact path reads (see the module docstring)."""
    out = [_declaration(stylesheet)]
    out.append(
        f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}" xmlns:image="{IMAGE_NS}" '
        f'xmlns:video="{VIDEO_NS}" xmlns:news="{NEWS_NS}">\n'
    )
    for spec in url_specs(n, seed=seed, base_url=base_url):
        out.append(
            f"\t<url>\n\t\t<loc><![CDATA[{spec.loc}]]></loc>\n"
            f"\t\t<lastmod>{spec.lastmod}</lastmod>\n"
            f"\t\t<changefreq><![CDATA[{spec.changefreq}]]></changefreq>\n"
            f"\t\t<priority><![CDATA[{spec.priority}]]></priority>\n"
        )
        out.extend(
            f'\t\t<xhtml:link rel="alternate" hreflang="{lang}" href="{_esc(href)}"/>\n'
            for lang, href in spec.alternates
        )
        out.extend(_image_xml(image, _cdata) for image in spec.images)
        if spec.video is not None:
            out.append(_video_xml(spec.video))
        if spec.news is not None:
            out.append(_news_xml(spec.news))
        out.append("\t</url>\n")
    out.append("</urlset>\n<!-- Generated by a benchmark in the All in One SEO shape -->\n")
    return "".join(out).encode("utf-8")


def mixed_sitemap(
    n: int = DEFAULT_URLS,
    *,
    seed: int = 0,
    base_url: str = DEFAULT_BASE,
    stylesheet: str | None = None,
) -> bytes:
    """The same pages as a multilingual, image-rich site writes them (Yoast or Rank Math
    with WPML or Polylang): hreflang alternates on the translated pages, image titles and
    captions, changefreq and priority on about half of the pages (see the module docstring)."""
    rng = random.Random(seed + 1)  # (the pages' own draws stay those of the other shapes)
    out = [_declaration(stylesheet)]
    out.append(f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}" xmlns:image="{IMAGE_NS}">\n')
    for spec in url_specs(n, seed=seed, base_url=base_url):
        out.append(
            f"\t<url>\n\t\t<loc>{_esc(spec.loc)}</loc>\n\t\t<lastmod>{spec.lastmod}</lastmod>\n"
        )
        if rng.random() < 0.5:
            out.append(
                f"\t\t<changefreq>{spec.changefreq}</changefreq>\n"
                f"\t\t<priority>{spec.priority}</priority>\n"
            )
        out.extend(
            f'\t\t<xhtml:link rel="alternate" hreflang="{lang}" href="{_esc(href)}" />\n'
            for lang, href in spec.alternates
        )
        out.extend(_image_xml(image, _esc) for image in spec.images)
        out.append("\t</url>\n")
    out.append("</urlset>\n")
    return "".join(out).encode("utf-8")


SHAPES = {"plain": plain_sitemap, "mixed": mixed_sitemap, "cdata": exact_sitemap}


def gzipped(document: bytes) -> bytes:
    """``document`` as a ``.xml.gz`` file; mtime 0 keeps the bytes deterministic."""
    return gzip.compress(document, compresslevel=6, mtime=0)


# -- pieces ------------------------------------------------------------------------------


def _declaration(stylesheet: str | None) -> str:
    decl = '<?xml version="1.0" encoding="UTF-8"?>\n'
    if stylesheet is not None:
        decl += f'<?xml-stylesheet type="text/xsl" href="{_esc(stylesheet)}"?>\n'
    return decl


def _esc(text: str) -> str:
    # Character data and attribute values here never hold "<" or quotes: "&" is the one.
    return text.replace("&", "&amp;")


def _cdata(text: str) -> str:
    return f"<![CDATA[{text}]]>"


def _image_xml(image: ImageSpec, value: Callable[[str], str]) -> str:
    """One ``<image:image>``, each value written by ``value`` (escaped, or in CDATA)."""
    xml = f"\t\t<image:image>\n\t\t\t<image:loc>{value(image.loc)}</image:loc>\n"
    if image.title is not None:
        xml += f"\t\t\t<image:title>{value(image.title)}</image:title>\n"
    if image.caption is not None:
        xml += f"\t\t\t<image:caption>{value(image.caption)}</image:caption>\n"
    return xml + "\t\t</image:image>\n"


def _slug(rng: random.Random, words: int) -> str:
    parts = rng.sample(_WORDS, words)
    roll = rng.random()
    if roll < 0.03:
        # WordPress stores and writes non-ASCII slugs percent-encoded.
        parts[0] = "".join(
            f"%{b:02X}" if b > 0x7F else chr(b) for b in rng.choice(_INTL_WORDS).encode()
        )
    elif roll < 0.04:
        parts[0] = rng.choice(_INTL_WORDS)  # an IRI, raw UTF-8, as some generators write
    return "-".join(parts)


def _path(rng: random.Random, i: int, when: datetime) -> str:
    roll = rng.random()
    if roll < 0.45:
        return f"/blog/{when:%Y/%m}/{_slug(rng, rng.randint(3, 7))}/"
    if roll < 0.80:
        path = f"/shop/{rng.choice(_CATEGORIES)}/{_slug(rng, rng.randint(2, 4))}-{10_000 + i}/"
        if rng.random() < 0.25:  # product variants and tracked links carry query strings
            first, second = rng.choice(_QUERY_KEYS)
            path += f"?{first}={rng.choice(_QUERY_VALUES)}&{second}={rng.choice(_QUERY_VALUES)}"
        return path
    if roll < 0.90:
        return f"/docs/v{rng.randint(1, 4)}/{rng.choice(_DOC_AREAS)}/{_slug(rng, 3)}.html"
    if roll < 0.95:
        return f"/category/{rng.choice(_CATEGORIES)}/page/{i}/"
    return f"/tag/{_slug(rng, 2)}/"


def _image_count(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.65:
        return 0
    if roll < 0.90:
        return 1
    return 2 if roll < 0.97 else 3


def _image(rng: random.Random, base: str, when: datetime) -> ImageSpec:
    size = rng.choice(("", "-1024x768", "-768x512", "-scaled"))
    loc = (
        f"{base}/wp-content/uploads/{when:%Y/%m}/"
        f"{_slug(rng, 2)}-{rng.randrange(1, 9999)}{size}.{rng.choice(('jpg', 'jpg', 'png', 'webp'))}"
    )
    title = caption = None
    if rng.random() < 0.5:
        title = " ".join(rng.sample(_WORDS, 3)).capitalize()
        if rng.random() < 0.4:
            caption = " ".join(rng.sample(_WORDS, 8)).capitalize() + "."
    return ImageSpec(loc, title, caption)


def _video(rng: random.Random, base: str, when: datetime) -> VideoSpec:
    key = rng.randrange(10**9)
    return VideoSpec(
        thumbnail_loc=f"{base}/thumbs/{key}.jpg",
        title=" ".join(rng.sample(_WORDS, 5)).capitalize(),
        description=" ".join(rng.sample(_WORDS, 20)).capitalize() + ".",
        content_loc=f"https://cdn.example.net/video/{key}.mp4",
        duration=rng.randint(30, 3600),
        publication_date=when.strftime("%Y-%m-%dT%H:%M:%S+00:00"),
        tags=tuple(rng.sample(_WORDS, 3)),
    )


def _news(rng: random.Random, when: datetime) -> NewsSpec:
    return NewsSpec(
        name="Example Times",
        language="en",
        publication_date=when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        title=" ".join(rng.sample(_WORDS, 7)).capitalize(),
    )


def _video_xml(video: VideoSpec) -> str:
    tags = "".join(f"\t\t\t<video:tag>{tag}</video:tag>\n" for tag in video.tags)
    return (
        "\t\t<video:video>\n"
        f"\t\t\t<video:thumbnail_loc>{video.thumbnail_loc}</video:thumbnail_loc>\n"
        f"\t\t\t<video:title><![CDATA[{video.title}]]></video:title>\n"
        f"\t\t\t<video:description><![CDATA[{video.description}]]></video:description>\n"
        f"\t\t\t<video:content_loc>{video.content_loc}</video:content_loc>\n"
        f"\t\t\t<video:duration>{video.duration}</video:duration>\n"
        f"\t\t\t<video:publication_date>{video.publication_date}</video:publication_date>\n"
        "\t\t\t<video:family_friendly>yes</video:family_friendly>\n"
        f"{tags}"
        "\t\t</video:video>\n"
    )


def _news_xml(news: NewsSpec) -> str:
    return (
        "\t\t<news:news>\n"
        "\t\t\t<news:publication>\n"
        f"\t\t\t\t<news:name>{news.name}</news:name>\n"
        f"\t\t\t\t<news:language>{news.language}</news:language>\n"
        "\t\t\t</news:publication>\n"
        f"\t\t\t<news:publication_date>{news.publication_date}</news:publication_date>\n"
        f"\t\t\t<news:title><![CDATA[{news.title}]]></news:title>\n"
        "\t\t</news:news>\n"
    )
