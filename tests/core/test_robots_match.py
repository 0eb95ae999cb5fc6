"""The robots.txt matcher (RFC 9309) of both cores held together: the package's reference
(``_core/_formats/_robots_rules.py``, the pure core's) and the crate's (``src/robots.rs``,
``_native.RobotsRules``, which judges the compiled runs), on generated robots.txt files and
URLs and on the corpus's real ones; and both against Protego's public ``can_fetch``, a
matcher crawlers use, except where RFC 9309 and Protego differ (listed below, and in
docs/configuration.md)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sitemap_reader import ScopePolicy
from sitemap_reader._core._formats._robots import product_token
from sitemap_reader._core._formats._robots_rules import (
    WILDCARD_RULES_MAX,
    RobotsRules,
    normalise,
    path_of,
)
from sitemap_reader._core._parser import SitemapParser
from sitemap_reader._core._pure import PURE_ENV, pure_requested
from sitemap_reader._core._walk._scope import Scope, origin_of
from sitemap_reader._io._walk._robots import CLOSED, RobotsBook, RobotsFilter, Rulings
from tests.support.helpers import CORPUS, needs_corpus
from tests.support.lines import line_writer, native

OFF = Scope("", ScopePolicy.OFF).filter()  # (every URL passes the scope)
SITE = "https://shop.invalid"
OTHER = "http://other.invalid:8080"


def reference(body: bytes, user_agent: str, url: str) -> tuple[bool, bool]:
    """The pure core's verdict: ``RobotsFilter.judge`` on the rules ``RobotsBook`` read."""
    book = RobotsBook()
    book.read(origin_of(url), body, user_agent)
    return RobotsFilter(book).judge(url)


def protego() -> Any:
    """Protego (a test dependency), or the calling test skipped where it is missing."""
    return pytest.importorskip("protego")


def compiled(body: bytes, user_agent: str, url: str) -> tuple[bool, bool]:
    verdict: tuple[bool, bool] = native().RobotsRules(body, product_token(user_agent)).judge(url)
    return verdict


# -- generated robots.txt files: the parts whose meaning the two matchers must agree on ------

_AGENTS = ["*", "bot", "Bot/2.1", "BOT", "other", "bot-x", "", " * ", "\tbot\t"]
_PIECES = [
    "/", "a", "b", "ab", ".pdf", "*", "**", "-", "~", "?", "=", "?s=", "&",
    "%41", "%2F", "%2f", "%3D", "%c3%a9", "%C3%A9", "é", "ツ", "%", "%4", "%zz", " ",
    '"', "<", "|", "\x7f", "$", "%24", "index.html", "\udcff",
]  # fmt: skip
_pattern = st.lists(st.sampled_from(_PIECES), max_size=6).map("".join)
_value = st.one_of(_pattern, _pattern.map(lambda p: p + "$"), st.sampled_from(["", "/", "*"]))
_KEYS = {
    "agent": ["User-agent", "user-agent", "USER_AGENT", "User-agent ", "user agent"],
    "rule": ["Disallow", "Allow", "disallow", "ALLOW", "Disallow\t"],
    "other": ["Sitemap", "sitemaps", "Site-map", "Crawl-delay", "Host", "Noindex"],
}
_line = st.one_of(
    st.builds("{}: {}".format, st.sampled_from(_KEYS["agent"]), st.sampled_from(_AGENTS)),
    st.builds("{}:{}".format, st.sampled_from(_KEYS["rule"]), _value),
    st.builds("{}: {}".format, st.sampled_from(_KEYS["rule"]), _value),
    st.builds("{}: /x".format, st.sampled_from(_KEYS["other"])),
    st.sampled_from(["", "# comment", "Disallow /nocolon", " \t", "Disallow: /c # comment"]),
)
_END = st.sampled_from(["\n", "\r\n", "\r"])
_robots = st.lists(st.tuples(_line, _END), max_size=14).map(
    lambda lines: "".join(a + b for a, b in lines).encode("utf-8", "surrogateescape")
)
_url = st.builds(
    "{}{}{}".format,
    st.sampled_from([SITE, SITE + ":8443", "http://shop.invalid"]),
    st.one_of(_pattern.filter(lambda p: not p.startswith(("/", "?"))).map(lambda p: "/" + p),
              _pattern.map(lambda p: "/" + p + "?" + p), st.just("")),
    st.sampled_from(["", "#frag", "#/a"]),
).map(lambda url: url.replace("\udcff", "\xff"))  # fmt: skip
_user_agent = st.sampled_from(["bot/1.0", "sitemap-reader/1.0 (+https://e.invalid)", "other"])


@pytest.mark.usefixtures("built")
@settings(max_examples=1500, deadline=None)
@given(body=_robots, user_agent=_user_agent, urls=st.lists(_url, min_size=1, max_size=8))
@example(body=b"User-agent: bot\nDisallow: /a\nAllow: /a\n", user_agent="bot/1", urls=[SITE + "/a"])
def test_the_crates_matcher_is_the_references(
    body: bytes, user_agent: str, urls: list[str]
) -> None:
    """Groups, rules, wildcards, escapes, ties and the line forms real files carry: the
    crate parses and judges each URL as the reference does."""
    rules = native().RobotsRules(body, product_token(user_agent))
    for url in urls:
        assert rules.judge(url) == reference(body, user_agent, url), (body, url)


@pytest.mark.usefixtures("built")
@settings(max_examples=1500, deadline=None)
@given(body=st.binary(max_size=200), url=st.text(max_size=30))
def test_any_bytes_are_judged_alike_and_raise_nothing(body: bytes, url: str) -> None:
    """Remote bytes (not UTF-8, NUL, stray colons and BOMs) and any URL text."""
    body = b"user-agent: bot\n" + body
    url = SITE + "/" + url.encode("utf-8", "replace").decode("utf-8")
    assert compiled(body, "bot", url) == reference(body, "bot", url)


@pytest.fixture
def built() -> None:
    native()


@needs_corpus
@pytest.mark.parametrize("name", sorted(p.name for p in (CORPUS / "robots").glob("*")))
def test_the_corpus_robots_files_are_judged_alike(name: str) -> None:
    """Every rule of the real files, as a path and cut short, for three agents."""
    body = (CORPUS / "robots" / name).read_bytes()
    text = body.decode("utf-8", "replace")
    values = re.findall(r"(?im)^\s*(?:dis)?allow\s*:\s*([^#\s]*)", text)
    paths = {"/", "/index.html", "/?q=1"}
    for value in values:
        path = value.rstrip("$").replace("*", "x")
        paths.update({path, path[: len(path) // 2], path + "/more?x=1"})
    urls = [SITE + (p if p.startswith("/") else "/" + p) for p in paths]
    for agent in ("sitemap-reader/1.0", "Yandex", "Googlebot/2.1"):
        rules = native().RobotsRules(body, product_token(agent))
        assert [rules.judge(u) for u in urls] == [reference(body, agent, u) for u in urls]


# -- against Protego: where both read RFC 9309 alike --------------------------------------

# The pieces on which Protego and RFC 9309 agree: no escape of a reserved character other
# than "/" and no stray "%" (see the differences below), no "index.html".
_AGREED = ["/", "a", "b", "ab", ".pdf", "*", "-", "~", "?", "=", "?s=", "%41", "%2F",
           "%c3%a9", "%C3%A9", "é", "ツ", " ", '"']  # fmt: skip
_agreed_pattern = st.lists(st.sampled_from(_AGREED), max_size=5).map("".join)
_agreed_line = st.one_of(
    st.builds("User-agent: {}".format, st.sampled_from(["*", "bot", "other", "BOT"])),
    st.builds(
        "{}: {}".format,
        st.sampled_from(["Disallow", "Allow"]),
        st.one_of(_agreed_pattern, _agreed_pattern.map(lambda p: p + "$")),
    ),
    st.sampled_from(["", "# c", "Sitemap: https://shop.invalid/s.xml", "Crawl-delay: 1"]),
)
_agreed_robots = st.lists(_agreed_line, max_size=12).map(lambda ls: "\n".join(ls) + "\n")
_agreed_url = _agreed_pattern.map(lambda p: SITE + "/" + p)


@settings(max_examples=1500, deadline=None)
@given(body=_agreed_robots, urls=st.lists(_agreed_url, min_size=1, max_size=6))
@example(body="User-agent: *\nDisallow: /a\nAllow: /a\n", urls=[SITE + "/a"])  # a tie
@example(body="User-agent: *\nDisallow: /*.pdf$\n", urls=[SITE + "/x.pdf", SITE + "/x.pdf?a"])
def test_both_match_as_protego_where_the_rfc_and_protego_agree(body: str, urls: list[str]) -> None:
    parser = protego().Protego.parse(body)
    have_native = _native_or_none()
    for url in urls:
        expected = not parser.can_fetch(url, "bot")
        assert reference(body.encode(), "bot/1.0", url)[0] is expected, (body, url)
        if have_native is not None:
            assert compiled(body.encode(), "bot/1.0", url)[0] is expected, (body, url)


def _native_or_none() -> Any:
    try:
        from sitemap_reader import _native
    except ImportError:  # pragma: no cover - the crate not built here
        return None
    return _native


# Where RFC 9309 and Protego differ, the matcher follows the RFC: (robots.txt, user agent,
# path, disallowed by RFC 9309 as read here, disallowed by Protego). Listed in
# docs/configuration.md#the-urls-robotstxt-disallows---robots.
DIFFERENCES = {
    # RFC 9309 2.2.2: an escape of a reserved character is not decoded ("%3D" is not "=").
    "reserved-escape": ("User-agent: *\nDisallow: /a=b\n", "bot", "/a%3Db", False, True),
    # Protego allows "/" too when a rule allows "/index.html"; RFC 9309 has no such rule.
    "index-html": (
        "User-agent: *\nDisallow: /\nAllow: /index.html\n", "bot", "/", True, False,
    ),
    # RFC 9309 2.2.1: a group applies to the crawler whose product token it names; Protego
    # applies a group whose name is a word of the crawler's ("sitemap" in "sitemap-reader").
    "product-token": (
        "User-agent: sitemap\nDisallow: /\n", "sitemap-reader", "/a", False, True,
    ),
    # An escape of octets that are not UTF-8 is an octet to compare (RFC 9309 2.2.2);
    # Protego decodes it to U+FFFD, so that every such escape matches every other.
    "octet-escape": ("User-agent: *\nDisallow: /%FF\n", "bot", "/%FE", False, True),
}  # fmt: skip


@pytest.mark.parametrize("case", DIFFERENCES)
def test_where_rfc_9309_and_protego_differ_the_rfc_is_followed(case: str) -> None:
    body, agent, path, rfc, protegos = DIFFERENCES[case]
    assert (not protego().Protego.parse(body).can_fetch(SITE + path, agent)) is protegos
    assert reference(body.encode(), agent, SITE + path)[0] is rfc
    if _native_or_none() is not None:
        assert compiled(body.encode(), agent, SITE + path)[0] is rfc


# -- the parts -----------------------------------------------------------------------------


def test_paths_are_normalised_as_rfc_9309_shows() -> None:
    """The table of RFC 9309 section 2.2.2, and what no URI holds literally."""
    assert normalise(b"/foo/bar?baz=quz") == "/foo/bar?baz=quz"
    assert normalise("/foo/bar/ツ".encode()) == "/foo/bar/%E3%83%84"
    assert normalise(b"/foo/bar/%e3%83%84") == "/foo/bar/%E3%83%84"
    assert normalise(b"/foo/bar/%62%61%7A") == "/foo/bar/baz"
    assert normalise(b"/a b%2f%zz%") == "/a%20b%2F%25zz%25"
    assert path_of("https://e.com") == "/"
    assert path_of("https://e.com?q=1#f") == "/?q=1"
    assert path_of("https://e.com:8/a/b?c#d") == "/a/b?c"


def test_groups_merge_and_the_named_ones_replace_star() -> None:
    body = (
        "user-agent: a\r\nUser-Agent: MyBot/2\rdisallow: /1\nsitemap: /s\n"
        "crawl-delay: 1\nuser-agent: *\ndisallow: /2\nuser-agent: mybot\nallow: /1/x\n"
        "Disallow: /before-any-agent-is-not-here\n"
    )
    agent, anyone = RobotsRules.parse_both(body, "mybot/1")
    assert agent.agent == "mybot" and anyone.agent == "*"
    assert [r.written for r in agent.group.rules] == ["/before-any-agent-is-not-here", "/1/x", "/1"]  # type: ignore[union-attr]
    assert agent.check("http://e/1/y") == "Disallow: /1 (user-agent: mybot)"
    assert agent.check("http://e/1/x") is None and agent.check("http://e/2") is None
    assert anyone.check("http://e/2") == "Disallow: /2 (user-agent: *)"
    # No group names the agent: the "*" rules, the same object twice.
    other, star = RobotsRules.parse_both(body, "other")
    assert other is star


def test_the_longest_match_wins_and_allow_wins_a_tie() -> None:
    rules = RobotsRules.parse(
        "User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /a/b/c\nAllow: /*.x\nDisallow: /*.x$",
        "bot",
    )
    judged = {p: rules.check(SITE + p) for p in ("/a", "/a/b", "/a/b/c", "/q.x", "/q.xy")}
    assert judged == {
        "/a": "Disallow: /a (user-agent: *)",
        "/a/b": None,
        "/a/b/c": "Disallow: /a/b/c (user-agent: *)",
        "/q.x": "Disallow: /*.x$ (user-agent: *)",  # 6 octets against 4
        "/q.xy": None,
    }


# -- the compiled runs: the walk's batch judgment -------------------------------------------

_SEGMENTS = ["a", "ab", "b", "x.pdf", "%C3%A9", "é", "?s=1", "#f", "/", "//", "=", "~", "$"]
_BATCH_RULES = (
    "User-agent: *\nDisallow: /a\nAllow: /ab\nDisallow: /*.pdf$\nDisallow: /*?s=\n"
    "Disallow: /é/\nDisallow: /b$\nDisallow: /*/x\nAllow: /a/b/\n\n"
    "User-agent: mybot\nDisallow: /ab/\nDisallow: /*%24\n"
)


def _run(locs: list[str]) -> Any:
    """The compiled core's run of ``locs`` (``_native.Entries``), as the walk gets it."""
    native()
    if pure_requested():
        pytest.skip(f"{PURE_ENV} is set: the parser makes no compiled runs")
    urlset = "".join(f"<url><loc>{loc.replace('&', '&amp;')}</loc></url>" for loc in locs)
    parser = SitemapParser(SITE + "/s.xml", lines=True)
    xml = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urlset}</urlset>'
    events = [*parser.feed(xml.encode()), *parser.close()]
    (run,) = events
    return run


@settings(max_examples=300, deadline=None)
@given(
    paths=st.lists(st.lists(st.sampled_from(_SEGMENTS), max_size=5), min_size=1, max_size=30),
    hosts=st.lists(
        st.sampled_from([SITE, SITE, OTHER, "https://elsewhere.invalid", "https://Odd.invalid"]),
        min_size=1,
    ),
    obey=st.booleans(),
)
def test_a_compiled_run_is_judged_as_each_url_one_by_one(
    paths: list[list[str]], hosts: list[str], obey: bool
) -> None:
    """The crate's line writer judges a run by the gate ``RobotsFilter.gate`` gives
    (``LineWriter.write_run``'s ``robots``) as ``judge`` judges each URL: it leaves out
    (``obey``) or keeps the URLs disallowed for the agent, counts those and the ones
    disallowed for "*" with the first of each; a URL of another origin is judged by that
    origin's rules (allowed when the book has none), and it stops at a URL whose origin only
    ``origin_of`` can tell (upper case)."""
    locs = [hosts[i % len(hosts)] + "/" + "/".join(p) for i, p in enumerate(paths)]
    run = _run(locs)
    for agent in ("sitemap-reader", "MyBot/1"):
        book = RobotsBook()
        book.read(SITE, _BATCH_RULES.encode(), agent)
        book.read(OTHER, b"User-agent: *\nDisallow: /ab\n", agent)
        one_by_one = RobotsFilter(book)
        gate = RobotsFilter(book).gate(SITE + "/", obey)
        data, end, in_scope, written, said = line_writer("txt").write_run(
            run, scope=OFF, since=None, robots=gate
        )
        judged = locs[: next((i for i, u in enumerate(locs) if "Odd" in u), None)]
        assert end == len(judged)
        verdicts = [one_by_one.judge(loc) for loc in judged]
        kept = [loc for loc, (a, _) in zip(judged, verdicts, strict=True) if not (a and obey)]
        assert data.decode().splitlines() == kept and in_scope == written == len(kept)
        for k in (0, 1):
            found = [loc for loc, v in zip(judged, verdicts, strict=True) if v[k]]
            assert said[k] == (len(found), found[0] if found else None)


def test_a_failed_robots_txt_disallows_every_url_of_a_run() -> None:
    book = RobotsBook()
    book.add(SITE, Rulings(CLOSED.agent, CLOSED.anyone))
    locs = [SITE + "/a", SITE + "/b?c"]
    gate = RobotsFilter(book).gate(locs[0], True)
    data, end, in_scope, _, said = line_writer("txt").write_run(
        _run(locs), scope=OFF, since=None, robots=gate
    )
    assert (data, end, in_scope, said) == (b"", 2, 0, ((2, locs[0]), (0, None)))


# -- a hostile robots.txt: its cost bounded, both cores alike --------------------------------

_BOUND = WILDCARD_RULES_MAX


def _both(body: bytes, agent: str, urls: list[str]) -> list[tuple[bool, bool]]:
    """The verdicts of the reference, which must be the crate's."""
    verdicts = [reference(body, agent, url) for url in urls]
    if not pure_requested() or _native_or_none() is not None:
        rules = native().RobotsRules(body, product_token(agent))
        assert [rules.judge(url) for url in urls] == verdicts
    return verdicts


def test_rules_with_star_past_the_bound_are_left_out_alike() -> None:
    """Of a group's rules with "*", the first ``WILDCARD_RULES_MAX`` in the file's order are
    kept (a rule given again counted once), the rest dropped and counted; rules without
    "*" are all kept, as are the other groups' own."""
    kept = [f"Disallow: /*?kept={i}$" for i in range(_BOUND - 1)]
    lines = [
        "User-agent: *",
        "Disallow: /*.pdf$",
        *kept,
        "Disallow: /*.pdf$",  # (again: not counted)
        "Disallow: /*?late=1",  # past the bound
        "Disallow: /*?late=2",
        "Disallow: /literal/",  # no "*": kept
        "User-agent: bot",
        "Disallow: /*?late=1",
    ]
    body = "\n".join(lines).encode()
    urls = [SITE + p for p in ("/a.pdf", f"/a?kept={_BOUND - 2}", "/a?late=1", "/literal/x", "/b")]
    assert _both(body, "other", urls) == [
        (True, False),
        (True, False),
        (False, False),  # only a dropped rule disallows it
        (True, False),
        (False, False),
    ]
    assert _both(body, "bot", urls[2:3]) == [(True, False)]  # the bot's own group: one rule
    anyone = RobotsRules.parse(body, "other").group
    assert anyone is not None and anyone.dropped == 2
    assert sum(not r.literal for r in anyone.rules) == _BOUND


def test_a_hostile_robots_txt_keeps_few_rules_to_try() -> None:
    """Work counted, not timed: the 500 KiB files of benchmarks/bench_robots.py's shapes
    leave at most ``WILDCARD_RULES_MAX`` rules to try one by one on a URL; the rules
    without "*" are looked up, and a rule given again is kept once."""

    def filled(line: str) -> bytes:
        body, size, i = ["User-agent: *\n"], 0, 0
        while size < 500 * 1024:
            body.append(line.format(i) + "\n")
            size, i = size + len(body[-1]), i + 1
        return "".join(body).encode()

    star = RobotsRules.parse(filled("Disallow: *q{0:x}z"), "bot").group
    runs = RobotsRules.parse(filled("Disallow: /p/{0}" + "*" * 400 + "x"), "bot").group
    prefixes = RobotsRules.parse(filled("Disallow: /p/{0}/"), "bot").group
    repeated = RobotsRules.parse(filled("Disallow: /*.pdf$"), "bot").group
    assert star is not None and runs is not None and prefixes is not None
    assert star.index is not None and len(star.index.wildcards) == _BOUND
    assert star.dropped > 20_000
    # "*" runs match as one "*": three pieces to find, not 401.
    assert runs.index is not None and {len(r.pieces) for r in runs.rules} == {2}
    assert prefixes.index is not None and prefixes.index.wildcards == ()
    assert len(prefixes.rules) > 25_000 and prefixes.dropped == 0
    assert repeated is not None and len(repeated.rules) == 1
    urls = [SITE + p for p in ("/p/7/x", "/p/77", "/q/1z", "/a.pdf", "/p/3/axx")]
    for body in (filled("Disallow: *q{0:x}z"), filled("Disallow: /p/{0}/")):
        assert _both(body, "bot", urls)


@pytest.mark.usefixtures("built")
@settings(max_examples=300, deadline=None)
@given(
    rules=st.lists(st.builds("{}: {}".format, st.sampled_from(["Allow", "Disallow"]), _value),
                   min_size=30, max_size=90),
    urls=st.lists(_url, min_size=1, max_size=10),
)  # fmt: skip
def test_large_groups_are_judged_by_the_index_as_rule_by_rule(
    rules: list[str], urls: list[str]
) -> None:
    """A group of more than a few rules is judged through its index (the rules without "*"
    looked up by the path's prefixes): the crate as the reference, and the reference as
    trying each rule in order would."""
    body = ("User-agent: *\n" + "\n".join(rules)).encode("utf-8", "surrogateescape")
    group = RobotsRules.parse(body, "bot").group
    for url in urls:
        if group is not None and group.index is not None:
            path = path_of(url)
            in_order = next((r for r in group.rules if r.matches(path)), None)
            assert group.decide(path) is in_order, (body, url)
        assert compiled(body, "bot", url) == reference(body, "bot", url), (body, url)
