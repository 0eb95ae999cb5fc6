"""The codes of ``check``: what each finding means, how bad it is, and the record itself.

A code is stable: once published it keeps its meaning and is never reused for another one
(a check that goes away leaves its number unused). The letter says the area: R robots.txt,
H HTTP, P the protocol, V values, X extensions, C the check itself. The table of codes in
docs/check.md is checked against :data:`CODES` by a test.
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
    """One code of the registry: its name, severity and what the owner should do."""

    code: str
    name: str
    severity: Severity
    summary: str  # what is wrong, in a few words
    fix: str  # what to change


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
    ("P304", "namespace", E, "the root has a wrong namespace or none (search engines refuse it)",
     'write xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" on the root'),
    ("P305", "not-well-formed", E, "the XML is not well-formed (often a bad escape)",
     "escape & as &amp; and < as &lt; in values; fix the XML at the line given"),
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
     "move the sitemap up to the site's root, or name it in its host's robots.txt"),
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
    ("X508", "invalid-extension", W, "extension values that are malformed (left out)",
     "fix the dates, numbers and yes/no values of the extension"),
    ("X509", "hreflang-invalid", W, "hreflang values that are no BCP 47 language tag",
     ("write an ISO 639 language code (en, de), optionally with a script or region "
      "(zh-Hant, en-GB), or x-default")),
    # -- the check itself
    ("C601", "incomplete", N, "a budget of the run was reached: not everything was checked",
     "raise the limit (--max-sitemaps, --deadline, ...) to check the rest"),
    ("C602", "check-bounded", N, "a cross-sitemap check stopped at its memory bound",
     "raise the bound to check the rest"),
    ("C699", "other", W, "another problem the reader met", "see the message"),
)
# fmt: on

CODES: dict[str, Code] = {
    code: Code(code=code, name=name, severity=severity, summary=summary, fix=fix)
    for code, name, severity, summary, fix in _TABLE
}
BY_NAME: dict[str, Code] = {code.name: code for code in CODES.values()}


def finding(
    name: str, url: str, message: str, *, line: int | None = None, count: int = 1
) -> Finding:
    """A Finding of the code named ``name``, with its registered severity; the message
    ends with what to change."""
    code = BY_NAME[name]
    text = f"{message.rstrip('.')}. Fix: {code.fix}."
    return Finding(
        code=code.code,
        name=code.name,
        severity=code.severity,
        url=url,
        message=text,
        line=line,
        count=count,
    )
