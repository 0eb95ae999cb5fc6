"""What a document's first bytes tell the XML reader's fast path: whether its prolog lets a
scanner take over after the root start tag, and the element kind of each prefix the root
declares (namespace variants and look-alikes included). Only the compiled core has such a
scanner; the pure core reads on with expat."""

from __future__ import annotations

import re

from .._sniff import declares
from ._exact import SITEMAP_LIKE
from ._extensions import CORE, EXT_VARIANTS, kind_of

# What the document must start with for the scanner to take over after the root tag:
# an optional BOM and declaration, comments, processing instructions (<?xml-stylesheet?>,
# which Yoast, Rank Math and WordPress write, among them) and white space, a DOCTYPE
# without an internal subset (one with could declare defaults and entities: the document
# is expat's), then an unprefixed root start tag.
# (one white-space character an iteration: "(?:\s+)*" backtracks exponentially on a long
# run of spaces before a prolog that does not match)
_MISC = rb"(?:[ \t\r\n]|<!--(?:[^-]|-(?!-))*-->|<\?(?![Xx][Mm][Ll][ \t\r\n?])[^?]*(?:\?(?!>)[^?]*)*\?>)*"
_LITERAL = rb"(?:\"[^\"]*\"|'[^']*')"
_DOCTYPE = (
    rb"<!DOCTYPE[ \t\r\n]+[A-Za-z_:][\w.\-:]*"
    rb"(?:[ \t\r\n]+(?:SYSTEM[ \t\r\n]+"
    + _LITERAL
    + rb"|PUBLIC[ \t\r\n]+"
    + _LITERAL
    + rb"[ \t\r\n]+"
    + _LITERAL
    + rb"))?[ \t\r\n]*>"
)
PROLOG = re.compile(
    rb"(?:\xef\xbb\xbf)?(?:<\?xml(?P<decl>[^>]*)\?>)?" + _MISC + rb"(?:" + _DOCTYPE + _MISC + rb")?"
    rb"<(?P<root>[A-Za-z_][\w.\-:]*)"
    rb"(?P<attrs>(?:[ \t\r\n]+[A-Za-z_:][\w.\-:]*[ \t\r\n]*=[ \t\r\n]*(?:\"[^\"<]*\"|'[^'<]*'))*)"
    rb"[ \t\r\n]*>"
)
_ENCODING = re.compile(rb"encoding[ \t\r\n]*=[ \t\r\n]*[\"']([A-Za-z0-9._\-]+)[\"']")


# A DOCTYPE PROLOG may accept (no internal subset), or the start of one not closed yet.
# (closed, it must be one PROLOG accepts; any other goes to expat at once, as before)
_OPEN_DOCTYPE = re.compile(_DOCTYPE + rb"|<!DOCTYPE[^\[>]*\Z")


def declares_more(prolog: bytearray) -> bool:
    """``_sniff.declares`` for the fast path: True when the prolog holds a "<!" that is no
    comment's and no DOCTYPE the scanner may run after (one without an internal subset,
    closed or not yet: which it is is judged once more bytes came, so the verdict does not
    depend on where the input was split); such a prolog leaves the document to expat."""
    head = _OPEN_DOCTYPE.sub(b"", bytes(prolog))
    for cut in range(len(b"<!DOCTYPE") - 1, 2, -1):  # ("<!" and "<!-": declares waits)
        if head.endswith(b"<!DOCTYPE"[:cut]):
            head = head[:-cut]
            break
    return declares(bytearray(head))


def place_after(head: bytes) -> tuple[int, int]:
    """Where expat's numbering stands after ``head`` (UTF-8 that does not end in a CR): the
    line, from 1 (CR LF, CR and LF each end one), and the column, from 0, in characters
    (a byte-order mark is one), where the block scanner's input starts."""
    breaks = head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n")
    tail = head[max(head.rfind(b"\n"), head.rfind(b"\r")) + 1 :]
    return 1 + breaks, sum(1 for b in tail if b & 0xC0 != 0x80)


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
    rb"[ \t\r\n]xmlns(?::([A-Za-z_][A-Za-z0-9_.\-]*))?[ \t\r\n]*=[ \t\r\n]*"
    rb"(?:\"([^\"]*)\"|'([^']*)')"
)
# Set on a prefix's kind when its namespace is a variant of an extension's (EXT_VARIANTS):
# the scanner leaves the first block with an element under it to expat, where the exact
# path records the variant (doc.variants) as it does on a document it reads whole; it
# reads the blocks after it (src/block/read.rs, FRESH).
FRESH = 0x80


def namespaces(root_attrs: bytes) -> dict[str, str]:
    """Each namespace the root start tag declares (its attribute bytes), by prefix ("": the
    default one, "" when none is declared), as expat names it: for the look-alikes the
    scanner's blocks hold, which Python counts by their namespace. One with a reference or
    a character expat normalises (a tab, a line break) is left out: such a block is expat's."""
    found = {"": ""}
    for m in _NS_DECL.finditer(root_attrs):
        raw = m[2] if m[2] is not None else m[3]
        prefix = "" if m[1] is None else m[1].decode()
        found.pop(prefix, None)
        if not any(c in raw for c in b"&\t\r\n"):
            found[prefix] = raw.decode("utf-8", "replace")
    return found


def prefixes(root_attrs: bytes) -> dict[str, int] | None:
    """The element kind of each prefix the root start tag declares (its attribute bytes),
    as the exact path's ``SitemapMachine._name`` finds it: the sitemap's own namespace is
    CORE (the scanner leaves a block with such an element to expat), a variant of an
    extension's the extension's kind with FRESH, a look-alike LOOKALIKE (a block with one
    is expat's, which counts it). A namespace with a reference in it is not decoded here:
    such a prefix is left out (its elements are expat's), and such a default namespace
    leaves the document to the exact path (None)."""
    declared: list[tuple[bytes | None, str]] = []
    for m in _NS_DECL.finditer(root_attrs):
        raw = m[2] if m[2] is not None else m[3]
        if b"&" not in raw:
            declared.append((m[1], raw.decode("utf-8", "replace")))
        elif m[1] is None:
            return None  # (a prefix's namespace may be the root's once decoded)
        # (a prefix left out: a block with an element under it is expat's)
    root_ns = next((uri for prefix, uri in declared if prefix is None), "")
    kinds: dict[str, int] = {}
    for prefix, uri in declared:
        if prefix is None:
            continue
        if uri == root_ns or uri in SITEMAP_LIKE:
            kind = CORE
        else:
            kind = kind_of(uri)
            if uri in EXT_VARIANTS:
                kind |= FRESH
        kinds[prefix.decode()] = kind
    return kinds
