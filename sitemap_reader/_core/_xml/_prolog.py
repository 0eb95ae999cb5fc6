"""What a document's first bytes tell the XML reader's fast path: whether its prolog lets a
scanner take over after the root start tag, and the element kind of each prefix the root
declares. Only the compiled core has such a scanner; the pure core reads on with expat."""

from __future__ import annotations

import re

from ._extensions import EXT_VARIANTS, LOOKALIKE, kind_of

# What the document must start with for the scanner to take over after the root tag:
# an optional BOM and declaration, comments, processing instructions (<?xml-stylesheet?>,
# which Yoast, Rank Math and WordPress write, among them) and white space (no DOCTYPE: it
# could declare defaults), then an unprefixed root start tag.
PROLOG = re.compile(
    rb"(?:\xef\xbb\xbf)?(?:<\?xml(?P<decl>[^>]*)\?>)?"
    # (one white-space character an iteration: "(?:\s+)*" backtracks exponentially on a
    # long run of spaces before a prolog that does not match)
    rb"(?:[ \t\r\n]|<!--(?:[^-]|-(?!-))*-->|<\?(?![Xx][Mm][Ll][ \t\r\n?])[^?]*(?:\?(?!>)[^?]*)*\?>)*"
    rb"<(?P<root>[A-Za-z_][\w.\-:]*)"
    rb"(?P<attrs>(?:[ \t\r\n]+[A-Za-z_:][\w.\-:]*[ \t\r\n]*=[ \t\r\n]*(?:\"[^\"<]*\"|'[^'<]*'))*)"
    rb"[ \t\r\n]*>"
)
_ENCODING = re.compile(rb"encoding[ \t\r\n]*=[ \t\r\n]*[\"']([A-Za-z0-9._\-]+)[\"']")


def eligible(match: re.Match[bytes]) -> dict[str, int] | None:
    """For a document whose prolog matched: None when the scanner may not run, else the
    element kind of each prefix the root declares."""
    root = match["root"]
    if root not in (b"urlset", b"sitemapindex"):
        return None
    decl = match["decl"]
    if decl:
        enc = _ENCODING.search(decl)
        if enc is not None and enc[1].lower() != b"utf-8":
            return None
    return prefixes(match["attrs"])


_NS_DECL = re.compile(
    rb"[ \t\r\n]xmlns:([A-Za-z_][A-Za-z0-9_.\-]*)[ \t\r\n]*=[ \t\r\n]*(?:\"([^\"&]*)\"|'([^'&]*)')"
)


def prefixes(root_attrs: bytes) -> dict[str, int] | None:
    """The element kind of each prefix the root start tag declares (its attribute bytes),
    or None when one is a variant or a look-alike of an extension's namespace: such rare
    documents are the exact path's, which reports them (once, at the end)."""
    kinds: dict[str, int] = {}
    for m in _NS_DECL.finditer(root_attrs):
        uri = (m[2] if m[2] is not None else m[3]).decode("utf-8", "replace")
        kind = kind_of(uri)
        if kind == LOOKALIKE or uri in EXT_VARIANTS:
            return None
        kinds[m[1].decode()] = kind
    return kinds
