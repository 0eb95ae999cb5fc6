"""Whether an hreflang value is a language tag search engines read (BCP 47, RFC 5646).

An hreflang names a language, optionally with a script and a region: ``en``, ``zh-Hant``,
``en-GB``, ``es-419``; or ``x-default``. The language must be a real ISO 639 code: a
country code in its place (``us``, ``uk``) is the usual mistake, and search engines then
ignore the alternate. Variants (``de-CH-1996``) are accepted; extensions and private use
are not, as no search engine reads them in hreflang.
"""

from __future__ import annotations

import re

from ._iso639 import THREE_LETTER, TWO_LETTER

_TAG = re.compile(
    r"(?P<language>[a-z]{2,3})"
    r"(?:-[a-z]{4})?"  # script (ISO 15924)
    r"(?:-(?:[a-z]{2}|\d{3}))?"  # region (ISO 3166-1, or a UN M.49 number)
    r"(?:-(?:[a-z\d]{5,8}|\d[a-z\d]{3}))*",  # variants
)


def is_hreflang(value: str) -> bool:
    """True when ``value`` is ``x-default`` or a BCP 47 tag with an ISO 639 language."""
    tag = value.strip().lower()  # subtags are case-insensitive; "en_US" is no tag at all
    if tag == "x-default":
        return True
    match = _TAG.fullmatch(tag)
    if match is None:
        return False
    language = match["language"]
    return language in (TWO_LETTER if len(language) == 2 else THREE_LETTER)
