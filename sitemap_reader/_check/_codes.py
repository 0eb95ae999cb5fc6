"""The codes of ``check``: what each finding means, how bad it is, and the record itself.

A code is stable: once published it keeps its meaning and is never reused for another one
(a check that goes away leaves its number unused). The letter says the area: R robots.txt,
H HTTP, P the protocol, V values, X extensions, S the sampled pages (``--sample``), C the
check itself. The table of codes in docs/check.md is checked against :data:`CODES` by a test.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(str, enum.Enum):
    """How much a finding matters: an error loses URLs or breaks the protocol, a warning is
    likely to mislead a crawler, a notice is worth knowing."""

    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"

    def __str__(self) -> str:
        return self.value

    @property
    def rank(self) -> int:
        """2 for an error, 1 for a warning, 0 for a notice (for ``--fail-on``)."""
        return _RANK[self]


_RANK = {Severity.ERROR: 2, Severity.WARNING: 1, Severity.NOTICE: 0}


@dataclass(frozen=True, slots=True)
class Code:
    """One code of the registry: its name, severity, what it means, what the owner should
    do, and an example (``check --explain CODE``)."""

    code: str
    name: str
    severity: Severity
    summary: str  # what is wrong, in a few words
    fix: str  # what to change
    meaning: str = ""  # what it means for a crawler, in a sentence or two (check --explain)
    example: str = ""  # what such a fault looks like


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing ``check`` found wrong with a site's sitemaps.

    ``code`` is a stable code of :data:`CODES` (``name`` its word), ``url`` the document to
    fix (a robots.txt, an index, a sitemap, a local file), ``line`` its line where known,
    ``message`` what was found and what to change, ``count`` how many times it occurred in
    that document (tolerated faults are counted, not listed one by one).
    """

    code: str
    name: str
    severity: Severity
    url: str
    message: str
    line: int | None = None
    count: int = 1

    def __str__(self) -> str:
        where = f"{self.url}:{self.line}" if self.line is not None else self.url
        return f"{where}: {self.severity}: {self.message} [{self.code} {self.name}]"


E, W, N = Severity.ERROR, Severity.WARNING, Severity.NOTICE

# fmt: off
_TABLE = (
    # -- robots.txt
    ("R101", "robots-relative-sitemap", W, "a Sitemap: line is relative",
     "write the sitemap's absolute URL (https://host/path) on the Sitemap: line"),
    ("R102", "robots-invalid-sitemap", E, "a Sitemap: line is no http(s) URL",
     "write an absolute http(s) URL on the Sitemap: line"),
    ("R103", "robots-sitemap-unreachable", E, "a sitemap robots.txt names cannot be read",
     "make the URL answer 200 with the sitemap, or remove the Sitemap: line"),
    ("R104", "robots-sitemap-redirected", W, "a sitemap robots.txt names redirects",
     "name the final URL on the Sitemap: line"),
    ("R105", "no-sitemap", E, "no sitemap found",
     "add a Sitemap: line to robots.txt, or serve /sitemap.xml"),
    ("R106", "robots-unavailable", E, "robots.txt answers 5xx or cannot be reached",
     "make robots.txt answer 200 (or 404): crawlers take an unreachable one as 'disallow all'"),
    ("R107", "robots-missing", N, "the site has no robots.txt",
     "serve a robots.txt with a Sitemap: line, so crawlers find the sitemaps"),
    ("R108", "robots-disallowed-url", W, "the sitemap lists URLs robots.txt disallows",
     "list only URLs crawlers may fetch, or allow them in robots.txt"),
    ("R109", "robots-disallowed-sitemap", E, "robots.txt disallows the sitemap's own URL",
     "allow the sitemap's URL in robots.txt (an Allow: line for its path)"),
    ("R110", "sitemap-not-in-robots", N, "a sitemap robots.txt does not name",
     "add a Sitemap: line for it to robots.txt"),
    ("R111", "robots-rules-dropped", W, "robots.txt has more rules with '*' than are read",
     "merge the rules with '*' (at most 500 in a group): the ones past them are ignored"),
    # -- HTTP
    ("H201", "http-status", E, "the document answers an HTTP error status",
     "make the URL answer 200, or stop naming it"),
    ("H202", "network", E, "the document could not be fetched (network, timeout, cut body)",
     "check the server: it must answer within the timeouts and send the whole body"),
    ("H203", "redirect", N, "the document redirects once",
     "name the final URL where the sitemap is listed"),
    ("H204", "redirect-chain", W, "the document redirects more than once",
     "name the final URL, or redirect in one hop"),
    ("H205", "redirect-failed", E, "a redirect loops, has no target or leaves http(s)",
     "fix the redirect"),
    ("H206", "content-type", W, "the Content-Type does not match the body",
     "serve XML as application/xml, text sitemaps as text/plain, .gz as application/gzip"),
    ("H207", "gzip-not-gzip", E, "the document is named or served as gzip but is not gzip",
     "gzip the file, or drop the .gz suffix and gzip Content-Type"),
    ("H208", "gzip-undeclared", N, "the body is a gzip file but neither name nor type says so",
     "name the file .gz and serve it as application/gzip"),
    ("H209", "slow-response", W, "the response took long",
     "serve sitemaps as static files or cache them: slow answers get cut by crawlers"),
    ("H210", "content-encoding", E, "a Content-Encoding that cannot be undone",
     "use gzip, deflate, br or zstd as Content-Encoding, or none"),
    ("H211", "private-address", E, "a host resolves to a private or loopback address",
     "name hosts that resolve to public addresses"),
    ("H212", "gzip-corrupt", E, "the gzip stream is corrupt or cut",
     "regenerate the .gz file and check it with gzip -t"),
    # -- the protocol
    ("P301", "too-many-urls", E, "over 50,000 URLs in one sitemap",
     "split the sitemap and list the parts in a sitemap index"),
    ("P302", "too-large", E, "over 50 MB uncompressed",
     "split the sitemap and list the parts in a sitemap index"),
    ("P303", "index-of-index", E, "a sitemap index names another index",
     "list the urlsets in the first index: indexes may not be nested"),
    ("P304", "namespace", E,
     "the root or an extension has a wrong namespace or none (search engines refuse it)",
     ('write xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" on the root, and each '
      "extension's namespace exactly as its specification gives it")),
    ("P305", "not-well-formed", E, "the XML is not well-formed (often a bad escape)",
     "escape & as &amp; and < as &lt; in values, and fix the XML where it breaks"),
    ("P306", "loc-not-escaped", W, "URLs hold characters that must be percent-encoded",
     "percent-encode spaces, non-ASCII characters and <>\"{}|\\^` in URLs"),
    ("P307", "encoding", W, "the document is not in UTF-8",
     "write the sitemap in UTF-8: the protocol requires it"),
    ("P308", "invalid-bytes", E, "bytes that are not valid in the document's encoding",
     "save the file in UTF-8 and check the generator's encoding"),
    ("P309", "loc-too-long", E, "URLs longer than 2,048 characters (dropped)",
     "shorten the URLs or leave them out"),
    ("P310", "relative-loc", E, "relative URLs (dropped, or resolved by guessing)",
     "write absolute URLs: configure the generator's base URL"),
    ("P311", "invalid-loc", E, "values that are no http(s) URL, or an empty <loc>",
     "write an absolute http(s) URL in every <loc>"),
    ("P312", "url-out-of-scope", E, "URLs outside the sitemap's location (dropped)",
     ("list only URLs under the sitemap's folder, on its scheme, host and port, or name the "
      "sitemap in the robots.txt of the site its URLs are on")),
    ("P313", "child-out-of-scope", E, "an index names a sitemap on another host or folder",
     "host the child with the index, or name it in that host's robots.txt"),
    ("P314", "duplicate-url", W, "the same URL is listed twice in one sitemap",
     "list each URL once"),
    ("P315", "duplicate-url-across", N, "the same URL is listed in several sitemaps",
     "list each URL in one sitemap"),
    ("P316", "sitemap-named-twice", W, "a sitemap is named more than once",
     "name each sitemap once (robots.txt and indexes together)"),
    ("P317", "truncated", E, "the document ends before it is complete",
     "serve the whole file; check the generator finished"),
    ("P318", "html", E, "an HTML page where a sitemap was expected",
     "serve the sitemap at this URL (a 'not found' page must answer 404)"),
    ("P319", "not-a-sitemap", E, "the document is empty or another kind of XML",
     "serve a urlset, a sitemapindex, a feed or a text list here"),
    ("P320", "unsafe-xml", E, "the XML declares entities",
     "remove the DOCTYPE's entity declarations"),
    ("P321", "cycle", E, "an index names one of its own ancestors",
     "remove the entry that loops back"),
    ("P322", "too-deep", W, "indexes nested too deep to be read",
     "list the urlsets in the top index"),
    ("P323", "too-big-value", E, "a value, line or nesting too large to read (cut there)",
     "fix the generator: no value or line should be that long"),
    ("P324", "empty-sitemap", W, "a sitemap lists no URL",
     "remove the empty sitemap, or fill it"),
    ("P325", "unreadable", E, "a local file cannot be read", "check the path"),
    ("P326", "merge-conflict", E, "git merge-conflict markers left in the file",
     ("resolve the conflict: keep one side and delete the <<<<<<<, ======= and >>>>>>> "
      "lines, then regenerate the sitemap rather than merging it")),
    ("P327", "several-locs", E, "an entry holds more than one <loc>",
     "give each URL (or child sitemap) an entry of its own, with one <loc>"),
    ("P328", "unclosed-entry", E, "an entry starts before the one before it has closed",
     "close each <url> (or <sitemap>) with its end tag before the next one starts"),
    ("P329", "cut-entry", W, "the document ends inside an entry (kept, without what was cut)",
     "serve the whole, well-formed file: the entry's fields after the cut are lost"),
    ("P340", "repeated-element", W,
     "an entry gives a field twice where the schema allows one (the last one is read)",
     "give each <lastmod>, <changefreq> and <priority> once per entry"),
    # -- values
    ("V401", "invalid-lastmod", W, "lastmod values that are no W3C datetime",
     "write lastmod as YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+00:00"),
    ("V402", "lastmod-future", W, "lastmod values in the future",
     "write when the page last changed, not a later date"),
    ("V403", "lastmod-one-instant", W, "most lastmods carry one instant (the generation time)",
     "write each page's own last change: crawlers stop trusting a uniform lastmod"),
    ("V404", "invalid-changefreq", W, "changefreq values not of the protocol",
     "use always, hourly, daily, weekly, monthly, yearly or never (lower case)"),
    ("V405", "invalid-priority", W, "priority values outside 0.0-1.0 or not numbers",
     "write a number from 0.0 to 1.0, or leave priority out"),
    ("V406", "lastmod-untrusted", W, "the lastmods were judged untrusted (needs a state file)",
     "write each page's and each child sitemap's real last change"),
    ("V420", "lastmod-date-only", N, "lastmod values with a date but no time of day",
     "write lastmod with the time and its zone (YYYY-MM-DDThh:mm:ss+00:00): Bing asks for both"),
    # -- extensions
    ("X501", "image-missing-loc", E, "an <image:image> without <image:loc>",
     "give every image its <image:loc>"),
    ("X502", "video-missing-field", E, "a <video:video> without a required field",
     "give every video thumbnail_loc, title, description and content_loc or player_loc"),
    ("X503", "news-missing-field", E, "a <news:news> without a required field",
     "give every news entry publication name and language, publication_date and title"),
    ("X504", "news-too-many", E, "a news sitemap with over 1,000 news entries",
     "keep at most 1,000 news entries per sitemap; split it"),
    ("X505", "news-old", W, "news entries published more than two days ago",
     "list only articles of the last two days in a news sitemap"),
    ("X506", "hreflang-no-x-default", N, "hreflang alternates without x-default",
     'add <xhtml:link rel="alternate" hreflang="x-default" href="..."/>'),
    ("X507", "hreflang-not-reciprocal", W, "a page's alternate does not name it back",
     "list the same set of alternates on every page of the set"),
    ("X508", "invalid-extension", W,
     "extension values that are malformed, or elements in no extension's namespace (left out)",
     ("fix the dates, numbers and yes/no values of the extension, and bind its prefix to the "
      "extension's namespace")),
    ("X509", "hreflang-invalid", W, "hreflang values that are no BCP 47 language tag",
     ("write an ISO 639 language code (en, de), optionally with a script or region "
      "(zh-Hant, en-GB), or x-default")),
    ("X520", "image-too-many", W, "a <url> with over 1,000 <image:image>",
     "list at most 1,000 images per page: the rest are ignored"),
    ("X521", "hreflang-no-self", W, "a page with hreflang alternates, none of them itself",
     ('add the page itself to its alternates (<xhtml:link rel="alternate" hreflang="its '
      'language" href="its own <loc>"/>)')),
    ("X522", "video-content-is-page", E, "a video whose content_loc is the page's own <loc>",
     "point <video:content_loc> at the video file itself (or use <video:player_loc>)"),
    ("X523", "video-text-too-long", W,
     "a video title over 100 or description over 2,048 characters",
     "shorten the video's title to 100 characters and its description to 2,048"),
    # -- the sampled pages (check --sample N)
    ("S701", "page-redirects", W, "sampled listed pages redirect",
     "list each page's final URL, the one that answers 200"),
    ("S702", "page-client-error", E, "sampled listed pages answer 4xx",
     "remove the pages that are gone from the sitemap, or make them answer 200"),
    ("S703", "page-server-error", E, "sampled listed pages answer 5xx",
     "make the pages answer 200: a crawler retries them, then drops them"),
    ("S704", "page-unreachable", W, "sampled listed pages cannot be fetched (network, timeout)",
     "check the server: it must answer the listed pages within the timeouts"),
    ("S705", "page-noindex", E, "sampled listed pages are marked noindex",
     "list only pages to be indexed, or drop the noindex from them"),
    ("S706", "page-canonical-elsewhere", W, "sampled listed pages name another URL as canonical",
     "list the canonical URL, not the page that points to it"),
    # -- the check itself
    ("C601", "incomplete", N, "a budget of the run was reached: not everything was checked",
     "raise the limit (--max-sitemaps, --deadline, ...) to check the rest"),
    ("C602", "check-bounded", N, "a cross-sitemap check stopped at its memory bound",
     "raise the bound to check the rest"),
    ("C699", "other", W, "another problem the reader met", "see the message"),
)
# fmt: on

# Per code: what it means for a crawler, and what such a fault looks like (check --explain).
_DETAILS: dict[str, tuple[str, str]] = {
    # -- robots.txt
    "R101": (
        (
            "The protocol wants the full URL on a Sitemap: line. A relative one is resolved "
            "against robots.txt by this reader, but other crawlers ignore the line."
        ),
        "Sitemap: /sitemap.xml",
    ),
    "R102": (
        (
            "A Sitemap: line names something no crawler can fetch: another scheme, or no URL at "
            "all. The line is skipped."
        ),
        "Sitemap: ftp://example.com/sitemap.xml",
    ),
    "R103": (
        (
            "robots.txt points crawlers at a sitemap that fails (an error status, a network "
            "error): none of its URLs reach them."
        ),
        "Sitemap: https://example.com/sitemap.xml  (answers 404)",
    ),
    "R104": (
        (
            "The sitemap robots.txt names answers with a redirect. Crawlers may not follow it, and"
            " a sitemap's scope is judged by where it is read."
        ),
        "Sitemap: http://example.com/sitemap.xml  (301 to https://example.com/sitemap.xml)",
    ),
    "R105": (
        (
            "Neither robots.txt nor any well-known path (/sitemap.xml and the generators' "
            "defaults) gave a sitemap: crawlers find the site's pages only by following links."
        ),
        "robots.txt has no Sitemap: line, and /sitemap.xml answers 404",
    ),
    "R106": (
        (
            "robots.txt answers a server error or cannot be reached. RFC 9309 tells crawlers to "
            "take that as 'disallow everything', so the site is not crawled."
        ),
        "GET /robots.txt -> 503 Service Unavailable",
    ),
    "R107": (
        (
            "The site answers 404 for robots.txt. Crawlers then may fetch everything, but they "
            "learn of no sitemap from it."
        ),
        "GET /robots.txt -> 404 Not Found",
    ),
    "R108": (
        (
            "A sitemap lists URLs that the site's robots.txt disallows, for the --user-agent "
            "given or for any crawler (*): crawlers that obey it do not fetch them, and search "
            "engines report them ('Submitted URL blocked by robots.txt'). The count is of the "
            "URLs read (--robots report, check's default; --robots obey leaves them out)."
        ),
        "Disallow: /search/ and the sitemap lists https://example.com/search/shoes",
    ),
    "R109": (
        (
            "robots.txt disallows the URL of a sitemap it names or that is read: a crawler "
            "that obeys robots.txt does not fetch the sitemap (with --robots obey, neither "
            "does check: what it lists stays unknown)."
        ),
        "Disallow: /feeds/ and Sitemap: https://example.com/feeds/sitemap.xml",
    ),
    "R110": (
        (
            "A sitemap was found at a well-known path (/sitemap.xml, ...), but robots.txt names "
            "no sitemap: crawlers that do not guess paths never find it. Or a sitemap given "
            "directly is not named by its site's robots.txt, which names others: crawlers find "
            "it only if one of those indexes lists it."
        ),
        "robots.txt has no Sitemap: line; /sitemap.xml answers 200",
    ),
    "R111": (
        (
            "A group of robots.txt holds more than 500 rules with '*': each must be tried on "
            "every URL, so the reader keeps the first 500 (in the file's order) and ignores "
            "the rest, as it ignores a robots.txt past its first 500 KiB. The URLs only those "
            "would disallow are read (and, with --robots obey, kept); other crawlers may "
            "bound such files otherwise."
        ),
        "Disallow: *?id=1, Disallow: *?id=2, ... 20,000 such lines",
    ),
    # -- HTTP
    "H201": (
        "The document answers a 4xx or 5xx status, so none of its URLs are read.",
        "GET /sitemap-2.xml -> 404 Not Found",
    ),
    "H202": (
        (
            "The connection failed, timed out, or the body ended before its announced length: the "
            "document was not read, or only in part."
        ),
        "GET /sitemap.xml: connection refused",
    ),
    "H203": (
        (
            "The document redirects once. Crawlers follow it, but the sitemap is better named "
            "where it lives."
        ),
        "GET /sitemap.xml -> 301 Location: /sitemaps/sitemap.xml",
    ),
    "H204": (
        (
            "The document redirects several times in a row: each hop costs a request, and crawlers"
            " give up after a few."
        ),
        "/sitemap.xml -> /sitemap -> /sitemaps/sitemap.xml",
    ),
    "H205": (
        (
            "The redirect cannot be followed: it loops, has no Location, or leaves http(s). The "
            "document is not read."
        ),
        "/sitemap.xml -> 302 Location: /sitemap.xml",
    ),
    "H206": (
        (
            "The Content-Type says one thing and the body is another. Crawlers may refuse the "
            "document on its type."
        ),
        "Content-Type: text/html for a <urlset> document",
    ),
    "H207": (
        (
            "The URL ends in .gz or the response says gzip, but the bytes are not gzip. Crawlers "
            "that trust the name fail to read it."
        ),
        "/sitemap.xml.gz served as plain XML",
    ),
    "H208": (
        (
            "The body is gzip data, but neither the name nor the Content-Type says so. This reader"
            " unpacks it; other crawlers may see binary garbage."
        ),
        "/sitemap.xml answers gzip bytes as application/xml",
    ),
    "H209": (
        (
            "The response took longer than the --slow bound. Slow sitemaps are cut by crawlers "
            "with tighter timeouts."
        ),
        "GET /sitemap.xml took 12.4 s",
    ),
    "H210": (
        (
            "The response declares a Content-Encoding that cannot be undone, so the body cannot be"
            " read."
        ),
        "Content-Encoding: compress",
    ),
    "H211": (
        (
            "A host named by the documents resolves to a loopback, private or link-local address. "
            "The reader refuses it (it guards against SSRF), and so do crawlers."
        ),
        "<loc>http://intranet.example.com/sitemap.xml</loc>  (resolves to 10.0.0.5)",
    ),
    "H212": (
        (
            "The gzip stream breaks off or fails its check: only the entries before the fault are "
            "read."
        ),
        "/sitemap.xml.gz cut in the middle of an upload",
    ),
    # -- the protocol
    "P301": (
        (
            "The protocol allows at most 50,000 URLs in one sitemap. Search engines may ignore the"
            " whole file, or the URLs past the limit."
        ),
        "a urlset with 60,000 <url> entries",
    ),
    "P302": (
        (
            "The protocol allows at most 50 MB (52,428,800 bytes) uncompressed. The document is "
            "read up to the limit and cut there."
        ),
        "a 130 MB sitemap.xml (gzip does not count: the limit is on the unpacked bytes)",
    ),
    "P303": (
        (
            "A sitemap index names another index. The protocol allows one level; search engines "
            "may not read the nested one."
        ),
        (
            "<sitemapindex><sitemap><loc>https://example.com/index-2.xml</loc>...  (index-2.xml is"
            " a sitemapindex)"
        ),
    ),
    "P304": (
        (
            "The root element lacks the sitemaps.org namespace, or has another. Search engines "
            "refuse such a document."
        ),
        '<urlset xmlns="http://www.google.com/schemas/sitemap/0.84">',
    ),
    "P305": (
        (
            "The XML breaks a rule of XML, most often an unescaped & in a URL. Parsers stop at the"
            " error; the entries after it are lost."
        ),
        "<loc>https://example.com/?a=1&b=2</loc>",
    ),
    "P306": (
        (
            "URLs hold spaces, non-ASCII or other characters that must be percent-encoded. "
            "Crawlers may encode them differently, or drop the URL."
        ),
        "<loc>https://example.com/café menu</loc>",
    ),
    "P307": (
        (
            "The document declares or uses an encoding other than UTF-8, which the protocol "
            "requires. It is read, but other readers may garble it."
        ),
        '<?xml version="1.0" encoding="ISO-8859-1"?>',
    ),
    "P308": (
        (
            "Some bytes are invalid in the document's encoding: what they spell is guessed, or the"
            " line is lost."
        ),
        "a byte 0xE9 in a file declared UTF-8",
    ),
    "P309": (
        "The protocol requires URLs under 2,048 characters. Longer ones are dropped.",
        "<loc>https://example.com/search?q=...(3,000 characters)</loc>",
    ),
    "P310": (
        (
            "A <loc> is a relative URL. The protocol wants absolute URLs; relative ones are "
            "dropped, or resolved by guessing with --resolve-relative."
        ),
        "<loc>/products/42</loc>",
    ),
    "P311": (
        "A <loc> is empty or is no http(s) URL. The entry is dropped.",
        "<loc>mailto:shop@example.com</loc>",
    ),
    "P312": (
        (
            "A sitemap may list only URLs under its own folder on its own host, unless robots.txt "
            "vouches for it. URLs outside are dropped (--scope strict)."
        ),
        "https://example.com/blog/sitemap.xml lists https://example.com/shop/1",
    ),
    "P313": (
        (
            "An index names a sitemap on another host or outside its folder, and no robots.txt "
            "vouches for it: the child is not read."
        ),
        "https://example.com/sitemap.xml names https://cdn.example.net/sitemap-1.xml",
    ),
    "P314": (
        (
            "One sitemap lists the same URL more than once: the duplicates add nothing and waste "
            "the 50,000-URL budget."
        ),
        "<loc>https://example.com/a</loc> twice in sitemap-1.xml",
    ),
    "P315": (
        (
            "Several sitemaps list the same URL, often with different lastmods: crawlers cannot "
            "tell which one holds."
        ),
        "https://example.com/a in both sitemap-1.xml and sitemap-2.xml",
    ),
    "P316": (
        (
            "One sitemap is named more than once (by robots.txt and an index, or twice in an "
            "index). It is read once."
        ),
        "robots.txt and sitemap_index.xml both name /sitemap-1.xml",
    ),
    "P317": (
        (
            "The document ends before its root element is closed or its stream ends: the entries "
            "read stand, the rest is missing."
        ),
        "a urlset whose last line is <url><loc>https://example.com/x",
    ),
    "P318": (
        (
            "An HTML page answers where a sitemap was expected, typically a 'not found' page "
            "served with status 200 (a soft 404)."
        ),
        "GET /sitemap.xml -> 200 <!DOCTYPE html><title>Page not found</title>",
    ),
    "P319": (
        (
            "The document is empty, or is XML of another kind than a urlset, a sitemapindex or a "
            "feed."
        ),
        "<rss> without items, or <html>...</html> as XML, or 0 bytes",
    ),
    "P320": (
        (
            "The XML declares entities in a DOCTYPE. They are refused (they can blow up memory), "
            "and the document with them."
        ),
        '<!DOCTYPE urlset [<!ENTITY a "...">]>',
    ),
    "P321": (
        (
            "An index names a sitemap that leads back to itself. The loop is cut; the entry adds "
            "nothing."
        ),
        "index.xml names index-2.xml, which names index.xml",
    ),
    "P322": (
        "Indexes are nested deeper than --max-depth: the deeper ones are not read.",
        "index -> index -> ... eleven levels down",
    ),
    "P323": (
        ("A single value, line or nesting is too large to read safely: the document is cut there."),
        "a <loc> of 2 MB, or elements nested 300 deep",
    ),
    "P326": (
        (
            "Lines of git merge-conflict markers (<<<<<<<, =======, >>>>>>>) were left in the "
            "file: it is no XML, and parsers stop at the first marker."
        ),
        "a line '<<<<<<< HEAD' between two <url> entries",
    ),
    "P324": (
        "The sitemap is well-formed but lists no URL at all.",
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>',
    ),
    "P325": (
        "A local file given as a source cannot be read: missing, unreadable, or a directory.",
        "sitemap-reader check ./sitemaps/missing.xml",
    ),
    "P327": (
        (
            "An entry holds several <loc> elements. Most readers keep one of them (the first "
            "or the last) and lose the others without a word; this reader keeps the first with "
            "the entry's fields and each other one as an entry of its own, without fields."
        ),
        "<url><loc>https://example.com/a</loc><loc>https://example.com/b</loc></url>",
    ),
    "P328": (
        (
            "An entry's end tag is missing, or entries are nested: the XML breaks there or its "
            "structure is wrong, and readers lose the entry. This reader keeps the open entry "
            "as it stood when the next one started."
        ),
        "<sitemap><loc>https://example.com/a.xml</loc> <sitemap><loc>...</loc></sitemap>",
    ),
    "P329": (
        (
            "The document ends (cut, broken, or over a limit) inside an entry whose <loc> was "
            "read. This reader keeps that entry with the fields read before the cut; many "
            "readers drop it."
        ),
        "an index whose last line is <sitemap><loc>https://example.com/s9.xml</loc><lastmod>20",
    ),
    "P340": (
        (
            "An entry holds two <lastmod> (or <changefreq>, <priority>), which the schema "
            "forbids. Readers keep one of them, not all the same one: this reader keeps the "
            "last, and a crawler may trust the other."
        ),
        (
            "<url><loc>https://example.com/a</loc><lastmod>2024-05-01</lastmod>"
            "<lastmod>2024-06-01</lastmod></url>"
        ),
    ),
    # -- values
    "V401": (
        (
            "A lastmod is not a W3C datetime. Crawlers ignore it, so the page's change goes "
            "unnoticed."
        ),
        "<lastmod>May 1, 2024</lastmod>",
    ),
    "V402": (
        (
            "A lastmod lies in the future. Crawlers take it as a sign the dates are not real, and "
            "trust them less."
        ),
        "<lastmod>2099-01-01</lastmod>",
    ),
    "V403": (
        (
            "Most entries carry the same instant, usually when the file was generated. Such a "
            "lastmod tells nothing, and crawlers learn to ignore it."
        ),
        "every <lastmod> is 2024-05-01T03:00:00+00:00",
    ),
    "V404": (
        "A changefreq is not one of the protocol's words. It is left out.",
        "<changefreq>Daily</changefreq> or <changefreq>often</changefreq>",
    ),
    "V405": (
        "A priority is not a number from 0.0 to 1.0. It is left out.",
        "<priority>high</priority> or <priority>5</priority>",
    ),
    "V406": (
        (
            "Over runs with a state file, the lastmods were found not to follow the content: this "
            "reader stops trusting them to skip unchanged sitemaps, as crawlers do."
        ),
        "an index whose lastmods stay put while its sitemaps change",
    ),
    "V420": (
        (
            "A lastmod gives a date but no time of day. Bing asks for the date and the time, so "
            "a page changed twice a day looks unchanged."
        ),
        "<lastmod>2024-05-01</lastmod>",
    ),
    # -- extensions
    "X501": (
        "An image entry has no <image:loc>: the image cannot be found.",
        "<image:image><image:title>Logo</image:title></image:image>",
    ),
    "X502": (
        "A video entry lacks a field the video extension requires.",
        "<video:video> without <video:thumbnail_loc>",
    ),
    "X503": (
        "A news entry lacks a field the news extension requires.",
        "<news:news> without <news:publication_date>",
    ),
    "X504": (
        "A news sitemap may hold at most 1,000 news entries.",
        "a news sitemap with 1,500 <news:news> entries",
    ),
    "X505": (
        (
            "News sitemaps are for articles of the last two days; older ones are ignored by news "
            "crawlers."
        ),
        "<news:publication_date>2023-01-05</news:publication_date>",
    ),
    "X506": (
        "A set of hreflang alternates has no x-default, the page for languages not listed.",
        '<xhtml:link rel="alternate" hreflang="en" .../> and "de", no "x-default"',
    ),
    "X507": (
        (
            "Page A names page B as its alternate, but B does not name A back. Search engines "
            "ignore alternates that are not reciprocal."
        ),
        "/en/ lists /de/ as hreflang=de; /de/ lists no /en/",
    ),
    "X509": (
        (
            "An hreflang is no language tag: its language must be an ISO 639 code (en, de, yue), "
            "optionally with a script or region. Search engines ignore the alternate."
        ),
        '<xhtml:link rel="alternate" hreflang="us" href="https://example.com/us/"/>',
    ),
    "X508": (
        "An extension value is malformed (a date, a number, yes/no): the value is left out.",
        "<video:duration>ten minutes</video:duration>",
    ),
    "X520": (
        (
            "Google's image extension allows at most 1,000 <image:image> in one <url>: the "
            "images past the limit are ignored."
        ),
        "a product page listing 1,200 <image:image> elements",
    ),
    "X521": (
        (
            "Each page of a set of hreflang alternates must list itself as well as the others "
            "(Google's rule). Without its own link search engines may ignore the set."
        ),
        '<url><loc>https://example.com/en/</loc> names only hreflang="de" https://example.com/de/',
    ),
    "X522": (
        (
            "<video:content_loc> must be the video file, not the page that shows it: a "
            "content_loc equal to the page's <loc> points a crawler back at the HTML, and "
            "Google ignores the video."
        ),
        "<loc>https://example.com/v/1</loc> with <video:content_loc>https://example.com/v/1",
    ),
    "X523": (
        (
            "Google's video extension allows a title of at most 100 and a description of at "
            "most 2,048 characters; longer ones are cut or the video is refused."
        ),
        "<video:description> of 3,000 characters",
    ),
    # -- the sampled pages
    "S701": (
        (
            "A listed page redirects: a crawler spends a request on the listed URL, then "
            "another on its target. Search Console reports such pages; the target is what "
            "should be listed."
        ),
        "https://example.com/old-page answers 301 to https://example.com/new-page",
    ),
    "S702": (
        (
            "A listed page answers 404, 410 or another 4xx: the sitemap names a page that is "
            "not there. Crawlers drop it, and trust the sitemap less."
        ),
        "https://example.com/removed answers 404",
    ),
    "S703": (
        (
            "A listed page answers 500 or another 5xx: crawlers retry it later and drop it if "
            "it keeps failing."
        ),
        "https://example.com/search?q=x answers 503",
    ),
    "S704": (
        (
            "A listed page could not be fetched at all: the connection failed or timed out, "
            "after the reader's retries."
        ),
        "https://example.com/slow-page answers nothing within the read timeout",
    ),
    "S705": (
        (
            "A listed page says it must not be indexed, by an X-Robots-Tag header or a "
            '<meta name="robots"> tag: the sitemap asks for a page the page itself refuses.'
        ),
        '<meta name="robots" content="noindex,follow"> in the page\'s head',
    ),
    "S706": (
        (
            "A listed page names another URL as its canonical, by a Link header or a "
            '<link rel="canonical">: search engines index that URL, not the listed one.'
        ),
        '<link rel="canonical" href="https://example.com/page"> in https://example.com/page?ref=1',
    ),
    # -- the check itself
    "C601": (
        (
            "A budget of the run (sitemaps, URLs, bytes or the deadline) was reached: what was "
            "read is checked, the rest was not."
        ),
        "sitemap-reader check --max-sitemaps 100 https://big.example.com/",
    ),
    "C602": (
        (
            "A check across sitemaps (duplicates, hreflang) keeps a bounded number of URLs in "
            "memory and stopped at that bound."
        ),
        "more than 250,000 URLs tracked for duplicates across sitemaps",
    ),
    "C699": (
        "The reader met a problem no other code names. The message says what it is.",
        "an unexpected error while reading a document",
    ),
}

CODES: dict[str, Code] = {
    code: Code(
        code=code,
        name=name,
        severity=severity,
        summary=summary,
        fix=fix,
        meaning=_DETAILS[code][0],
        example=_DETAILS[code][1],
    )
    for code, name, severity, summary, fix in _TABLE
}
BY_NAME: dict[str, Code] = {code.name: code for code in CODES.values()}


def finding(
    name: str,
    url: str,
    message: str,
    *,
    line: int | None = None,
    count: int = 1,
    fix: str | None = None,
) -> Finding:
    """A Finding of the code named ``name``, with its registered severity; the message
    ends with what to change: ``fix``, fitted to this finding, else the code's own."""
    code = BY_NAME[name]
    text = f"{message.rstrip('.')}. Fix: {fix or code.fix}."
    return Finding(
        code=code.code,
        name=code.name,
        severity=code.severity,
        url=url,
        message=text,
        line=line,
        count=count,
    )
