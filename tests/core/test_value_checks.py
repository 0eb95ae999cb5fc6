"""The values both cores judge, one at a time: the compiled core's checks (``src/block/check.rs``,
``extend.rs``) against the Python ones (``_records.emit_entry``, ``Document.check_loc``,
``_dates.parse_datetime``, ``_extensions``' converters).

Each value hypothesis makes (the common shapes with any digits, near misses, Unicode digits
and case, any text) stands alone in a document read by both cores. The events must be the
same, and a record the compiled core built itself (it judged the value) must never be one
of a value Python notes anything about: there it must decline, and hand the value to
Python. The documents of ``test_compiled_core.py`` and ``test_parser_differential.py`` hold
a few values of each kind; these cover the values around the edges of what Rust judges.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from sitemap_reader import Limits, Problem
from tests.support.compiled import compiled_events, needs_compiled
from tests.support.helpers import IMAGE_NS, NEWS_NS, SITEMAP_NS, VIDEO_NS, XHTML_NS, parse

pytestmark = needs_compiled

_PADS = st.sampled_from(["", "", "", " ", "\n  ", "\t", "\u00a0", "\u3000", "\u2028"])


def _padded(values: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(_PADS, values, _PADS).map("".join)


def _any_case(words: list[str]) -> st.SearchStrategy[str]:
    def cased(word: str, upper: list[bool]) -> str:
        return "".join(c.upper() if u else c for c, u in zip(word, upper, strict=False))

    return st.builds(cased, st.sampled_from(words), st.lists(st.booleans(), min_size=8))


# (XML 1.0's characters; text() is escaped where it is written)
_TEXT = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff").filter(
        lambda c: c != "\r"
    ),
    max_size=12,
)
_SEP = st.sampled_from(["-", "-", "-", "/", "."])


@st.composite
def _dates(draw: st.DrawFn) -> str:
    """The three shapes Rust reads (a day of a month that may not have it, any year), and
    the other shapes ``parse_datetime`` reads, with near misses."""
    # (the ends of months, and the years whose February the leap rule's exceptions decide)
    y = draw(st.sampled_from([1900, 2000, 2100, 2024, 2023, 1, 9999]) | st.integers(0, 10_000))
    m = draw(st.just(2) | st.integers(0, 13))
    d = draw(st.sampled_from([28, 29, 30, 31]) | st.integers(0, 32))
    day = f"{y:04d}{draw(_SEP)}{m:02d}-{d:02d}"
    hh, mm, ss = draw(st.integers(0, 25)), draw(st.integers(0, 61)), draw(st.integers(0, 61))
    time = f"T{hh:02d}:{mm:02d}:{ss:02d}"
    sign = draw(st.sampled_from(["+", "-", "\u2212"]))
    oh, om = draw(st.integers(0, 25)), draw(st.integers(0, 61))
    zone = draw(
        st.sampled_from(["Z", "z", "", f"{sign}{oh:02d}:{om:02d}", f"{sign}{oh:02d}{om:02d}"])
    )
    shape = draw(st.integers(0, 5))
    if shape == 0:
        return day
    if shape == 5:  # (the days the calendar's rules decide, in Rust's shapes)
        edge = ["1900-02-29", "2000-02-29", "2100-02-29", "2023-02-29", "2024-02-29", "2024-04-31"]
        return draw(st.sampled_from(edge)) + draw(st.sampled_from(["", time + zone]))
    if shape == 1:
        return day + time + zone
    if shape == 2:
        frac = "." + draw(st.text("0123456789", min_size=1, max_size=8))
        return day + time + frac + zone
    if shape == 3:
        return day + draw(st.sampled_from(["T", " "])) + f"{hh:02d}:{mm:02d}" + zone
    return draw(st.from_regex(r"\A\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\dZ)?\Z") | _TEXT)


_NUMBERS = st.one_of(
    st.from_regex(r"\A[+-]?[0-9]{0,20}(\.[0-9]{0,20})?([eE][+-]?[0-9]{1,3})?\Z"),
    st.from_regex(r"\A\d{1,4}(\.\d{0,3})?\Z"),  # (Unicode digits too)
    st.decimals(min_value=-2, max_value=2, places=3).map(str),
    st.integers(0, 10**20).map(str),
    st.sampled_from(["nan", "NaN", "inf", "-0", "0.0", "1_0", "0x1", "1.", ".5", "."]),
    _TEXT,
)
_CHANGEFREQS = st.one_of(
    _any_case(["always", "hourly", "daily", "weekly", "monthly", "yearly", "never"]),
    st.sampled_from(["da\u0131ly", "NEVER\u200b", "Hourly!", "sometimes"]),
    _TEXT,
)
_FLAGS = st.one_of(
    _any_case(["yes", "no", "true", "false"]),
    st.sampled_from(["Y", "1", "ye\u017f", "\u0130", "n\u00f6"]),
    _TEXT,
)
_URL_TEXT = st.lists(st.sampled_from(["a", "b", "/", ".", "-", "%20", "\u00e9"]), max_size=20)
# (at most one character that check_loc's fast branch, or the URL, does not take)
_URL_ODD = st.sampled_from(["?", "#", ":", "@", "[", "]", " ", "\u3000", "&", *[""] * 9])
_LOCS = st.one_of(
    st.tuples(
        st.sampled_from(["https://", "http://", "HTTPS://", "ftp://", "//", "/", ""]),
        _URL_TEXT.map("".join),
        _URL_ODD,
        _URL_TEXT.map("".join),
    ).map("".join),
    _TEXT,
)


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr(text: str) -> str:
    return _escaped(text).replace('"', "&quot;")


_HEAD = (
    f'<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}" xmlns:video="{VIDEO_NS}" '
    f'xmlns:news="{NEWS_NS}" xmlns:xhtml="{XHTML_NS}">\n'
)
_LOC = "<loc>https://example.com/p</loc>"


def _in_url(inner: Callable[[str], str]) -> Callable[[str], str]:
    return lambda v: f"{_HEAD}<url>{inner(v)}</url>\n</urlset>\n"


def _video(field: str) -> Callable[[str], str]:
    return _in_url(
        lambda v: (
            f"{_LOC}<video:video><video:title>T</video:title>"
            f"<video:{field}>{_escaped(v)}</video:{field}></video:video>"
        )
    )


# Where each value is written: the field, and the document around it.
_FIELDS: dict[str, tuple[st.SearchStrategy[str], Callable[[str], str]]] = {
    "loc": (_LOCS, _in_url(lambda v: f"<loc>{_escaped(v)}</loc>")),
    "lastmod": (_dates(), _in_url(lambda v: f"{_LOC}<lastmod>{_escaped(v)}</lastmod>")),
    "changefreq": (
        _CHANGEFREQS,
        _in_url(lambda v: f"{_LOC}<changefreq>{_escaped(v)}</changefreq>"),
    ),
    "priority": (_NUMBERS, _in_url(lambda v: f"{_LOC}<priority>{_escaped(v)}</priority>")),
    "image-loc": (
        _LOCS,
        _in_url(lambda v: f"{_LOC}<image:image><image:loc>{_escaped(v)}</image:loc></image:image>"),
    ),
    "alternate-href": (
        _LOCS,
        _in_url(lambda v: f'{_LOC}<xhtml:link rel="alternate" hreflang="de" href="{_attr(v)}"/>'),
    ),
    "video-duration": (_NUMBERS, _video("duration")),
    "video-view_count": (_NUMBERS, _video("view_count")),
    "video-rating": (_NUMBERS, _video("rating")),
    "video-expiration_date": (_dates(), _video("expiration_date")),
    "video-publication_date": (_dates(), _video("publication_date")),
    "video-family_friendly": (_FLAGS, _video("family_friendly")),
    "video-live": (_FLAGS, _video("live")),
    "news-publication_date": (
        _dates(),
        _in_url(
            lambda v: (
                f"{_LOC}<news:news><news:title>T</news:title><news:publication_date>"
                f"{_escaped(v)}</news:publication_date></news:news>"
            )
        ),
    ),
    "index-lastmod": (
        _dates(),
        lambda v: (
            f'<sitemapindex xmlns="{SITEMAP_NS}">\n<sitemap><loc>https://example.com/'
            f"s.xml</loc><lastmod>{_escaped(v)}</lastmod></sitemap>\n</sitemapindex>\n"
        ),
    ),
    "index-loc": (
        _LOCS,
        lambda v: (
            f'<sitemapindex xmlns="{SITEMAP_NS}">\n<sitemap><loc>{_escaped(v)}</loc>'
            "</sitemap>\n</sitemapindex>\n"
        ),
    ),
}
_LIMITS = st.sampled_from([Limits(), Limits(max_loc_length=30)])


@pytest.mark.parametrize("field", list(_FIELDS))
@settings(max_examples=300, deadline=None)
@given(data=st.data(), limits=_LIMITS)
def test_a_value_the_compiled_core_judges_is_judged_as_python_does(
    field: str, data: st.DataObject, limits: Limits
) -> None:
    values, document = _FIELDS[field]
    value = data.draw(_padded(values), label="value")
    doc = document(value).encode()
    exact = parse(doc, fast=False, limits=limits)
    compiled, _, built = compiled_events([doc], limits)
    assert compiled == exact
    assert repr(compiled) == repr(exact)
    noted = [e.kind for e in exact if isinstance(e, Problem)]
    # A record Rust built is of a value it judged; one Python notes it must decline.
    assert not (built and noted), (value, noted)
    event("built by the compiled core" if built else "judged by Python or expat")
