"""The fuzzing campaign in the suite: a short seeded run of its harness, and its findings.

The campaign itself (``python -m fuzz.campaign``, atheris) is not run here; its harness is:
every invariant of fuzz/harness.py over inputs made by its mutator from a fixed seed, first
from the made seeds and the parser's fixtures, then from the real-world corpus when it is
checked out. Each finding of the campaign is kept under fuzz/findings/ and replayed, with a
test that says what was wrong in the parser's own terms.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from fuzz.harness import (
    BYTEWISE_MAX,
    MAX_LEN,
    Finding,
    check,
    check_events,
    check_scope,
    decode,
    normalise,
)
from fuzz.mutate import mutate
from fuzz.seeds import seeds
from sitemap_reader import Entry, Limits, ScopePolicy
from sitemap_reader._core._walk._scope import Scope, origin_of
from tests.support.helpers import (
    URL,
    cut_at,
    entries,
    fatal,
    gz,
    kinds,
    locs,
    needs_corpus,
    parse,
    parse_chunks,
    problem,
    problems,
    refs,
    two_way_splits,
    whole,
)

FINDINGS = sorted((Path(__file__).resolve().parents[2] / "fuzz" / "findings").glob("*.bin"))


def _campaign(pool: list[bytes], inputs: int, seed: int) -> tuple[int, int]:
    """``inputs`` mutated inputs through every invariant; (entries kept, dropped) by scope."""
    rng = random.Random(seed)
    kept = dropped = 0
    for i in range(inputs):
        data = mutate(rng.choice(pool), rng, pool, MAX_LEN)
        outcome = check(data, memory=i % 64 == 0)
        kept += outcome.kept
        dropped += outcome.dropped
    return kept, dropped


# -- the short seeded run ------------------------------------------------------------------


def test_seeded_run_from_made_seeds_and_fixtures() -> None:
    """About a second and a half: 250 inputs, none breaks an invariant, and the scope oracle
    judged entries both ways (else the run would check nothing about scope)."""
    kept, dropped = _campaign(seeds(corpus=False), 250, seed=20_261_130)
    assert kept > 50 and dropped > 50


@needs_corpus
def test_seeded_run_from_the_corpus() -> None:
    pool = seeds(corpus=True)
    assert len(pool) > len(seeds(corpus=False)) + 100  # the corpus is in the pool
    kept, dropped = _campaign(pool, 250, seed=5)
    assert kept > 50 and dropped > 50


# -- the harness catches what it is for ------------------------------------------------------


def test_the_oracle_normalises_as_rfc_3986_says() -> None:
    assert normalise("https://EXAMPLE.com./dir/a/../b") == ("https", "example.com", 443, "/dir/b")
    assert normalise("http://example.com:80/dir/%2e%2E/x") == ("http", "example.com", 80, "/x")
    assert normalise("https://example.com/dir/.\t./x")[3] == "/x"  # type: ignore[index]
    assert normalise("https://ex%61mple.com/%7Eu") == ("https", "example.com", 443, "/~u")
    assert normalise("https://example.com/dir/..%2Fx")[3] == "/dir/..%2Fx"  # type: ignore[index]
    for bad in ("ftp://example.com/", "https://@/", "https://[::1/", "https://a:99999/", "/x"):
        assert normalise(bad) is None, bad


def test_the_invariants_fail_on_what_they_forbid() -> None:
    case = decode(b"\0\0\0\0")
    with pytest.raises(Finding, match="with a host"):
        check_events([Entry("http://@/x")], case)
    with pytest.raises(Finding, match="over max_loc_length"):
        check_events([Entry("https://example.com/" + "x" * 2_048)], case)
    assert check_scope([Entry("https://example.com/dir/a"), Entry("https://other/")], case) == (
        1,
        1,
    )


def test_the_reads_an_input_gets_are_as_documented() -> None:
    """What fuzz/README.md says of how often each read applies: chunks on the fast path for an
    odd split seed, byte by byte up to BYTEWISE_MAX bytes and gzipped for the top three bits
    of the first header byte at 6 or 7, both on the other path; memory only when asked."""
    doc = b"<urlset><url><loc>https://example.com/dir/a</loc></url></urlset>"
    small, large = doc.ljust(BYTEWISE_MAX), doc.ljust(BYTEWISE_MAX + 1)
    assert check(b"\0\0\0\1" + small).runs == ("chunks fast", "bytes exact")
    assert check(b"\0\0\0\2" + small, memory=True).runs == ("chunks exact", "bytes fast", "memory")
    assert check(b"\0\0\0\1" + large).runs == ("chunks fast",)
    assert check(b"\xc0\0\0\2" + large).runs == ("chunks exact", "gzip fast")
    assert check(b"\xe0\0\0\1" + small).runs == ("chunks fast", "bytes exact", "gzip exact")
    assert check(b"\xa0\0\0\1" + large).runs == ("chunks fast",)  # 5 << 5: no gzip


# -- the findings ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_finding_stays_fixed(path: Path) -> None:
    """Each input the campaign found passes every invariant now."""
    check(path.read_bytes(), memory=True)


def test_findings_are_kept() -> None:
    assert len(FINDINGS) >= 20


def test_the_docs_quote_the_last_campaigns_record() -> None:
    """fuzz/RESULTS.json holds every field the campaign writes (null where a run did not
    record it, with a note saying so), and docs/safety.md quotes it as it is."""
    root = Path(__file__).resolve().parents[2]
    record = json.loads((root / "fuzz" / "RESULTS.json").read_text())
    fields = ["inputs", "seconds", "findings_fixed", "tool", "date", "commit", "dirty"]
    fields += ["seed_pool", "seed_pool_corpus", "peak_rss_mb", "checks"]
    assert list(record)[: len(fields)] == fields
    assert all(record[k] is not None or k in record["notes"] for k in fields)
    assert record["findings_fixed"] == len(FINDINGS)
    row = next(
        line
        for line in (root / "docs" / "safety.md").read_text(encoding="utf-8").splitlines()
        if "RESULTS.json`) |" in line
    )
    assert f"{record['inputs']:,} inputs in {record['seconds']:,.0f} s" in row
    assert f"peak RSS of a fuzzing process {record['peak_rss_mb']} MB" in row
    assert f"commit `{record['commit'][:7]}`" in row


def test_loc_without_a_host_is_invalid() -> None:
    """loc-without-host: "http://@" and "https://:443/" passed for URLs; "http://[" too,
    which urllib cannot even split."""
    doc = (
        b"http://@\nhttps://:443/dir/\nhttp://[\nhttp://a]b/\nhttps://u@/x\nhttps://example.com/ok"
    )
    events = parse(doc)
    assert locs(events) == ["https://example.com/ok"]
    assert "5 values" in problem(events, "invalid-loc").message
    events = parse(b"<urlset><url><loc>https://a@b.example/x?q=[1]</loc></url></urlset>")
    assert locs(events) == ["https://a@b.example/x?q=[1]"]  # "@" and "[" are fine elsewhere


def test_a_resolved_loc_is_held_to_max_loc_length() -> None:
    """resolved-loc-too-long: the length was checked before the base was joined to it."""
    limits = Limits(max_loc_length=60)
    events = parse(b"d" * 40 + b"\n" + b"e" * 20 + b"\n", limits=limits, resolve_relative=True)
    assert locs(events) == [URL.rsplit("/", 1)[0] + "/" + "e" * 20]
    assert "1 URL longer" in problem(events, "loc-too-long").message


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/dir/../admin",
        "https://example.com/dir/..",
        "https://example.com/dir/%2e%2E/admin",
        "https://example.com/dir/.%2e/admin",
        "https://example.com/dir/.\t./admin",
        "https://example.com/dir/a/../../admin",
    ],
)
def test_scope_sees_through_dot_segments(url: str) -> None:
    """scope-dot-segments: the filter's prefix test kept URLs whose path leaves the folder."""
    assert Scope(URL, ScopePolicy.STRICT).filter().check(url) == "outside-folder"


def test_scope_keeps_dot_segments_that_stay_in_the_folder() -> None:
    check = Scope(URL, ScopePolicy.STRICT).filter().check
    assert check("https://example.com/dir/a/../b") is None
    assert check("https://example.com/dir/.well-known/x") is None


def test_scope_of_a_host_yarl_cannot_decode() -> None:
    """scope-invalid-punycode: yarl decodes the host lazily and raised UnicodeError out of
    the filter (in a walk: out of the whole run)."""
    scope = Scope(URL, ScopePolicy.STRICT)
    assert scope.filter().check("http://xn--a/") == "not-http"
    assert scope.check_child("https://xn--a/s.xml") == "not-http"
    assert origin_of("http://xn--a/") == ""


def test_feedparser_raising_ends_the_document() -> None:
    """feedparser-raises: an encoding name that is not UTF-8 made feedparser raise."""
    events = parse(b'<?encoding="\xd1"?><rss><channel><item><link>https://example.com/dir/a')
    last = fatal(events)
    assert last is not None and last.kind == "not-well-formed"


def test_feed_item_with_a_links_element() -> None:
    """feed-links-element: feedparser gives the text of a <links> element as "links" (and
    then a dict as "link"): iterating it raised AttributeError."""
    doc = b"<rss><channel><item><links>x</links><link>https://example.com/dir/a</link></item>"
    events = parse(doc + b"<item><link>https://example.com/dir/b</link></item></channel></rss>")
    assert locs(events) == ["https://example.com/dir/b"]
    assert kinds(events) == ["missing-loc"]


def test_a_feed_date_read_without_a_deprecation_warning() -> None:
    """feedparser-deprecation (found by the suite's run, where warnings are errors): asking
    feedparser for "updated" of an item that has only "published" warns."""
    doc = (
        b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="https://example.com/dir/a"/>'
        b"<published>2024-01-02T03:04:05Z</published></entry></feed>"
    )
    (entry,) = entries(parse(doc))  # pytest turns warnings into errors (pyproject.toml)
    assert entry.lastmod is not None and entry.lastmod.day == 2


def test_a_feed_date_before_year_one_is_no_date() -> None:
    """feed-date-out-of-range: feedparser parses "00000005" to a time tuple of year -1, which
    no datetime holds: converting it raised ValueError out of close()."""
    doc = (
        b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="https://example.com/dir/a"/>'
        b"<updated>00000005</updated></entry></feed>"
    )
    events = parse(doc)
    (entry,) = entries(events)
    assert entry.lastmod is None
    assert "invalid-lastmod" in kinds(events)


def test_feed_cap_holds_while_the_root_is_undecided() -> None:
    """feed-cap-while-undecided: bytes after an unknown root went past max_feed_bytes, so
    the verdict depended on the split, and a chunk after a feed marker that came past the cap
    recursed without end."""
    doc = b"<foo>" + b"a" * 1_500 + b"<rss>" + b"b" * 3_000
    limits = Limits(max_feed_bytes=1_000)
    reference = parse(doc, limits=limits)
    assert kinds(reference) == ["unknown-format"]  # no feed marker within the cap
    for cuts in ([6], [6, 1_600], [500, 999, 1_001, 2_000]):
        assert parse_chunks(cut_at(doc, cuts), limits=limits) == reference, cuts


def test_a_one_byte_document_is_read_once() -> None:
    """one-byte-document: a document shorter than the gzip magic was read twice at close."""
    events = parse(b"a", resolve_relative=True)
    assert locs(events) == [URL.rsplit("/", 1)[0] + "/a"]
    assert parse_chunks([gz(b"a")], resolve_relative=True) == events


def test_html_wins_over_a_feed_marker_whatever_the_split() -> None:
    """html-or-feed-by-split: a feed marker decided before a later "<html" was seen."""
    doc = b"<feed<!<html"
    for pieces in [whole(doc), *two_way_splits(doc)]:
        assert kinds(parse_chunks(pieces)) == ["html"]


def test_junk_after_the_root_gives_one_message_whatever_the_split(fast: bool) -> None:
    """junk-after-root-by-split: expat says "junk after document element" or "invalid
    token", a column apart, depending on whether "m" ends a chunk."""
    doc = b"<urlset><url><loc>https://example.com/dir/a</loc></url></urlset>m/"
    reference = parse(doc, fast=fast)
    assert len(entries(reference)) == 1
    assert "after the </urlset>" in reference[-1].message  # type: ignore[attr-defined]
    for pieces in two_way_splits(doc):
        assert parse_chunks(pieces, fast=fast) == reference


def test_a_comment_start_split_across_chunks() -> None:
    """comment-start-split: "<!" at the end of a chunk counted as a DOCTYPE before "--"
    came, so expat read the prolog early and gave another verdict than when whole."""
    doc = b"<x a='1' b <!-- c -->" + b" " * 2_000
    limits = Limits(max_bytes=1_000)
    reference = parse(doc, limits=limits)
    assert kinds(reference) == ["too-large"]
    for cut in range(5, 20):
        assert parse_chunks(cut_at(doc, [cut]), limits=limits) == reference, cut


def test_a_long_value_before_a_fault_gives_one_verdict_whatever_the_split(fast: bool) -> None:
    """long-value-before-a-fault: expat hands on no text of a run it finds a fault in, so a
    value over max_token_bytes followed by "]]>" was token-too-large in chunks and
    not-well-formed whole."""
    doc = b"<urlset><url><loc>https://example.com/dir/" + b"x" * 400 + b"]]></loc></url></urlset>"
    limits = Limits(max_token_bytes=300)
    reference = parse(doc, limits=limits, fast=fast)
    assert kinds(reference) == ["namespace", "token-too-large"]
    for cut in (20, 100, 250, 330, 400, 445):
        assert parse_chunks(cut_at(doc, [cut]), limits=limits, fast=fast) == reference, cut
    short = doc.replace(b"x" * 400, b"x" * 100)  # within the limit: the fault is the verdict
    assert kinds(parse(short, limits=limits, fast=fast))[-1] == "not-well-formed"


_SPACES_BEFORE_A_DOCTYPE = """
from sitemap_reader._core._xml._prolog import PROLOG
for spaces in (26, 60_000):
    assert PROLOG.match(b" " * spaces + b"<!DOCTYPE urlset>") is None
"""


def test_white_space_before_a_doctype_does_not_backtrack() -> None:
    """prolog-regex-backtracking (a libFuzzer timeout): "(?:[ \\t\\r\\n]+|...)*" in the
    prolog expression tried every partition of a run of spaces before a prolog it did not
    match: 26 spaces took seconds, 370 never ended."""
    # In a child process, so that a match that never ends fails by the bound, not a hang:
    # 26 spaces took about 4 s before, 60,000 never ended; microseconds now.
    subprocess.run(
        [sys.executable, "-c", _SPACES_BEFORE_A_DOCTYPE],
        check=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    doc = (
        b" " * 400
        + b"<!DOCTYPE urlset>"
        + b" " * 100
        + b"<urlset><url><loc>https://example.com/dir/a"
    )
    assert locs(parse(doc + b"</loc></url></urlset>")) == ["https://example.com/dir/a"]


def test_a_long_white_space_head_counts_whatever_the_split() -> None:
    """long-white-space-head: white space over max_token_bytes before the first character
    sent the document to the text reader without it, so the line it starts was too long
    whole and short in chunks."""
    doc = b" " * 126 + b"https://example.com/dir/a\nhttps://example.com/dir/b"
    limits = Limits(max_token_bytes=120)
    reference = parse(doc, limits=limits)
    assert locs(reference) == ["https://example.com/dir/b"]
    assert kinds(reference) == ["loc-too-long"]
    for cut in (121, 125, 126, 127):
        assert parse_chunks(cut_at(doc, [cut]), limits=limits) == reference, cut


def test_a_prolog_fault_expat_reports_only_at_the_end() -> None:
    """prolog-fault-seen-at-the-end: expat reports the ">" after "?>" at once when "<rss"
    comes in the same chunk, at the end otherwise; at the end the feed behind it was not
    looked for."""
    doc = b'<?l veate><![C8"?>><rss'
    reference = parse(doc)
    assert [(p.kind, p.fatal) for p in problems(reference)] == [
        ("not-well-formed", False),  # read leniently as a feed...
        ("not-well-formed", True),  # ...which feedparser cannot read
    ]
    assert parse_chunks([doc[:-4], doc[-4:-3], doc[-3:]]) == reference
    for pieces in two_way_splits(doc):
        assert parse_chunks(pieces) == reference


def test_held_input_is_read_before_the_feed_cap() -> None:
    """feed-cap-before-held-input: input held back from expat (an unfinished token) was read
    after the cap was declared, so a fault in it was lost when it came in chunks."""
    doc = b"<?pi <!x " + b"a" * 900 + b"\x00" + b"b" * 2_000  # ("<!": expat reads the prolog)
    limits = Limits(max_feed_bytes=1_500)
    reference = parse(doc, limits=limits)
    assert kinds(reference) == ["not-well-formed"]  # the NUL, within the cap
    for cuts in ([300], [800, 1_000], [850], [10, 1_600]):  # ([800, ...]: 700 bytes held)
        assert parse_chunks(cut_at(doc, cuts), limits=limits) == reference, cuts


def test_a_root_in_input_held_until_the_end() -> None:
    """root-in-held-input: input held back from expat (after an unfinished processing
    instruction) was read only at the end, and a root in it was taken for no root."""
    doc = b'<?l version="1"?><!-- c --><?pi <![x ' + b"a" * 100 + b"?><c>"
    reference = parse(doc)
    assert kinds(reference) == ["unknown-format"]
    for cut in (45, len(doc) - 5, len(doc) - 2):  # (the last two: the root is held)
        assert parse_chunks(cut_at(doc, [cut])) == reference, cut


def test_white_space_over_the_token_limit_before_markup() -> None:
    """white-space-before-markup: white space over max_token_bytes made a text sitemap when
    it came alone, an XML one when the "<" after it came in the same chunk."""
    doc = b" " * 137 + b"<urlset><url><loc>https://example.com/dir/a</loc></url></urlset>"
    limits = Limits(max_token_bytes=120)
    reference = parse(doc, limits=limits)
    assert locs(reference) == [] and kinds(reference) == ["loc-too-long"]  # one long line
    for cut in (100, 130, 137, 138):
        assert parse_chunks(cut_at(doc, [cut]), limits=limits) == reference, cut


def test_a_cut_while_the_scanner_waits_on_a_fault() -> None:
    """cut-while-the-scanner-waits: at max_bytes the fast path dropped the bytes its scanner
    still waited on, where the exact path had already found a fault in them."""
    block = b"<sitemap><loc>https://example.com/dir/s.xml</loc></sitemap>\n"
    doc = b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' + block * 10
    doc += b"<sitemap><loc>x</loc>\n<<y>" + b" " * 500
    limits = Limits(max_bytes=len(doc) - 100)
    reference = parse(doc, limits=limits, fast=False)
    # A line that opens with "<<" is taken for git's conflict marker (see _expat).
    assert len(refs(reference)) == 10 and kinds(reference)[-1] == "merge-conflict"
    assert parse(doc, limits=limits, fast=True) == reference
    assert parse_chunks(cut_at(doc, [700]), limits=limits, fast=True) == reference
