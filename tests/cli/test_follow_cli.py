"""``--follow`` and ``--skip`` on the command line: they choose among the children an index
names (never the sources, nor what a robots.txt names); ``tree`` draws the children left unread
with the rule that skipped them and the summary counts them; an index whose every child is
refused says so in one line; a bad pattern is a usage error, ``check`` does not fetch (nor judge) what it skips, and with ``--state --changes``
a skipped child's URLs are kept in the state file, never handed out as removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemap_reader._cli import main
from tests.support.cli import main_captured as cli
from tests.support.http_site import (
    Served,
    ThreadedServer,
    serve_index,
    sitemapindex,
    text,
    urlset,
    xml,
)


def test_tree_shows_children_skipped_and_the_summary_counts_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ThreadedServer() as s:
        serve_index(s, {"post": 2, "tag-a": 3, "tag-b": 1, "page": 1})
        code, out, err = cli(capsys, "tree", "--skip", "tag-", "--skip", "nothing", s.a("/"))
        tags = s.count("/tag-a.xml") + s.count("/tag-b.xml")
    assert (code, tags) == (0, 0)
    lines = out.splitlines()
    at = lines.index(f"    ├── {s.a('/tag-a.xml')}  [skipped]")
    assert lines[at + 1] == "    │     - not followed: matches --skip 'tag-'"
    assert f"{s.a('/post.xml')}  urlset  2 URLs  [ok]" in out
    assert err.startswith("sitemap-reader: 3 URLs from 3 sitemaps, 2 sitemaps skipped by --skip, ")


def test_follow_names_its_patterns_and_a_source_is_always_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ThreadedServer() as s:
        serve_index(s, {"post": 1, "page": 1})
        code, out, err = cli(
            capsys, "tree", "--follow", "/post", "--skip", "/draft", s.a("/index.xml")
        )
    assert code == 0
    assert "- not followed: matches no --follow ('/post')" in out
    assert f"{s.a('/post.xml')}  urlset  1 URL  [ok]" in out
    assert f"{s.a('/index.xml')}  sitemapindex  2 sitemaps  [ok]" in out
    assert "1 sitemap skipped by --follow and --skip" in err


def products_site(s: Served) -> None:
    """robots.txt names /sitemap_index.xml, which names the product and blog sitemaps."""
    s.add("/robots.txt", text(f"Sitemap: {s.a('/sitemap_index.xml')}\n"))
    names = ("products-1", "products-2", "blog")
    s.add("/sitemap_index.xml", xml(sitemapindex(*[s.a(f"/sitemaps/{n}.xml") for n in names])))
    for name in names:
        s.add(f"/sitemaps/{name}.xml", xml(urlset(s.a(f"/p/{name}"))))


def test_follow_chooses_among_what_the_index_robots_txt_names_lists(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 29: this printed 0 URLs (exit 0), the index that robots.txt names refused."""
    with ThreadedServer() as s:
        products_site(s)
        code, out, err = cli(
            capsys, "dump", "--format", "txt", "--follow", "/sitemaps/products-", s.a("/")
        )
        blog = s.count("/sitemaps/blog.xml")
    assert (code, blog) == (0, 0)
    # (in the order the two sitemaps finished: the order of a run's URLs is not promised)
    assert sorted(out.splitlines()) == [s.a("/p/products-1"), s.a("/p/products-2")]
    assert err.startswith("sitemap-reader: 2 URLs from 3 sitemaps, 1 sitemap skipped by --follow, ")


def test_a_filter_that_refuses_every_child_of_an_index_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ThreadedServer() as s:
        products_site(s)
        code, out, err = cli(capsys, "dump", "--follow", "/product/", s.a("/"))
        _, tree, _ = cli(capsys, "tree", "--skip", "/sitemaps/", s.a("/"))
        checked, found, _ = cli(
            capsys, "check", "--format", "json", "--skip", "/sitemaps/", s.a("/")
        )
    said = [line for line in err.splitlines() if "nothing-followed" in line]
    assert said == [
        (
            f"sitemap-reader: {s.a('/sitemap_index.xml')}: 3 sitemaps it names refused by the "
            "follow rules, none followed (matches no --follow ('/product/')) [nothing-followed]"
        )
    ]
    assert (code, out) == (0, "")  # the index was read: what it names was the choice
    assert (
        "      ! nothing-followed: 3 sitemaps it names refused by the follow rules, none "
        "followed (matches --skip '/sitemaps/')" in tree.splitlines()
    )
    # check judges the site, not the caller's rules: no finding says it.
    assert checked == 0 and "nothing-followed" not in found and "follow rules" not in found


@pytest.mark.parametrize("option", ["--follow", "--skip"])
def test_a_bad_pattern_is_a_usage_error_naming_it(
    option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in ("dump", "tree", "check"):
        with pytest.raises(SystemExit) as exit:
            main([command, option, "post(", "https://example.com/"])
        assert exit.value.code == 2
        err = capsys.readouterr().err
        assert f"argument {option}: 'post(' is not a regular expression: missing )" in err


def test_check_does_not_fetch_or_judge_a_skipped_child(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The broken child (not served: 404) is an error for check, unless it is skipped."""
    with ThreadedServer() as s:
        serve_index(s, {"post": 1})
        s.site.routes.pop((None, "/post.xml"))
        broken, _, _ = cli(capsys, "check", "--format", "json", s.a("/index.xml"))
        code, out, _ = cli(capsys, "check", "--format", "json", "--skip", "post", s.a("/"))
        asked = s.count("/post.xml")
    assert (broken, code, asked) == (1, 0, 1)
    findings = [json.loads(line) for line in out.splitlines()][:-1]
    assert [f for f in findings if "post.xml" in json.dumps(f)] == []


def test_a_skipped_child_is_neither_read_nor_taken_as_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --state --changes: the skipped sitemap's URLs stay in the state file (no removal
    in the feed), and a later run that follows it again finds them unchanged."""
    state = str(tmp_path / "state.sqlite")

    def changes(out: str) -> list[tuple[str, str]]:
        return sorted((r["change"], r["loc"]) for r in map(json.loads, out.splitlines()))

    with ThreadedServer() as s:
        # tag is small beside post: its removal is not one the shrink guard would hold.
        serve_index(s, {"post": 4, "tag": 2}, index_lastmod="2024-03-01")
        _, first, _ = cli(capsys, "dump", "--state", state, "--changes", s.a("/"))
        # The index moves both lastmods; post gains a URL, tag loses one (unseen: skipped).
        serve_index(s, {"post": 5, "tag": 1}, index_lastmod="2024-04-01")
        asked = s.count("/tag.xml")
        code, second, err = cli(
            capsys, "dump", "--state", state, "--changes", "--skip", "/tag", s.a("/")
        )
        skipped_asked = s.count("/tag.xml") - asked
        _, third, _ = cli(capsys, "dump", "--state", state, "--changes", s.a("/"))
    assert [c for c, _ in changes(first)] == ["new"] * 6
    assert (code, skipped_asked) == (0, 0)
    assert changes(second) == [("new", s.a("/p/post4"))]
    assert "1 sitemap skipped by --skip" in err
    # Followed again, tag is read: what it dropped meanwhile is removed now, and only that.
    assert changes(third) == [("removed", s.a("/p/tag1"))]
