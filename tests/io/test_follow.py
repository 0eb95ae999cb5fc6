"""Choosing children before fetching them (``ReaderConfig.follow``), over a real server: a
refused child is never requested and is reported skipped with the rule that refused it;
the predicate sees each child's URL, parent, depth and index lastmod; sources (given, or named
by a robots.txt) are never judged; an index whose every child is refused says so."""

from __future__ import annotations

import dataclasses
import pickle
from datetime import datetime, timezone
from pathlib import Path

import pytest
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import (
    ChildSitemap,
    FollowRules,
    Incremental,
    ReaderConfig,
    SitemapReader,
    SqliteStateStore,
    Status,
)
from tests.support.http_site import (
    FAST,
    Run,
    serve,
    serve_index,
    sitemapindex,
    text,
    urlset,
    walk,
    xml,
)


def following(follow: object) -> ReaderConfig:
    return dataclasses.replace(FAST, follow=follow)  # type: ignore[arg-type]


async def test_a_skipped_child_is_not_requested_and_is_reported_skipped(
    aiohttp_server: AiohttpServer,
) -> None:
    s = await serve(aiohttp_server)
    serve_index(s, {"post": 2, "tag-a": 3, "tag-b": 1}, index_lastmod="2024-03-01")

    run = await walk(s.a("/"), config=following(FollowRules(skip=("tag-",))))

    assert s.count("/tag-a.xml") == s.count("/tag-b.xml") == 0
    assert s.count("/post.xml") == 1
    assert sorted(run.locs) == [s.a("/p/post0"), s.a("/p/post1")]
    skipped = run.report(s.a("/tag-a.xml"))
    assert skipped.status is Status.SKIPPED
    assert skipped.not_followed == "matches --skip 'tag-'"
    assert (skipped.source, skipped.depth) == (s.a("/index.xml"), 1)
    assert skipped.lastmod == datetime(2024, 3, 1, tzinfo=timezone.utc)
    # Named in the index's order, as a read child is: tree draws it in its place.
    orders = [run.report(s.a(f"/{n}.xml")).order for n in ("post", "tag-a", "tag-b")]
    assert orders == sorted(orders)
    assert run.problems == []  # a chosen skip is no problem with the site
    assert run.report(s.a("/post.xml")).not_followed is None


async def test_follow_patterns_choose_among_index_children_at_every_depth(
    aiohttp_server: AiohttpServer,
) -> None:
    """Some --follow must match (any of them), at every depth below the sources."""
    s = await serve(aiohttp_server)
    serve_index(s, {"post": 1, "page": 1, "tag": 1})
    s.add("/robots.txt", text(f"Sitemap: {s.a('/top.xml')}\n"))
    s.add("/top.xml", xml(sitemapindex(s.a("/index.xml"), s.a("/other.xml"))))
    rules = FollowRules(follow=("index", "/post"))

    run = await walk(s.a("/"), config=following(rules))

    assert s.site.paths() == ["/robots.txt", "/top.xml", "/index.xml", "/post.xml"]
    assert run.report(s.a("/other.xml")).not_followed == "matches no --follow ('index', '/post')"
    why = run.report(s.a("/tag.xml")).not_followed
    assert why == "matches no --follow ('index', '/post')"
    assert run.locs == [s.a("/p/post0")]


async def test_the_sitemaps_robots_txt_names_are_sources_never_judged(
    aiohttp_server: AiohttpServer,
) -> None:
    """Issue 29: robots.txt names an index whose URL no --follow pattern matches; the pattern
    is meant for the index's children, as Scrapy's sitemap_follow is. The index is read and
    the pattern chooses among what it names; --skip spares it too."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text(f"Sitemap: {s.a('/sitemap_index.xml')}\n"))
    s.add(
        "/sitemap_index.xml",
        xml(
            sitemapindex(
                s.a("/sitemaps/products-1.xml"),
                s.a("/sitemaps/products-2.xml"),
                s.a("/sitemaps/blog.xml"),
            )
        ),
    )
    for name in ("products-1", "products-2", "blog"):
        s.add(f"/sitemaps/{name}.xml", xml(urlset(s.a(f"/p/{name}"))))

    run = await walk(s.a("/"), config=following(FollowRules(follow=("/sitemaps/products-",))))

    assert sorted(run.locs) == [s.a("/p/products-1"), s.a("/p/products-2")]
    index = run.report(s.a("/sitemap_index.xml"))
    assert (index.status, index.not_followed) == (Status.OK, None)
    assert run.report(s.a("/sitemaps/blog.xml")).status is Status.SKIPPED
    assert s.count("/sitemaps/blog.xml") == 0
    assert run.problems == []  # some children followed: no news

    run = await walk(s.a("/"), config=following(FollowRules(skip=("sitemap",))))
    assert run.report(s.a("/sitemap_index.xml")).status is Status.OK
    # ... and a source given directly is never judged either.
    run = await walk(s.a("/sitemap_index.xml"), config=following(FollowRules(skip=("index",))))
    assert run.report(s.a("/sitemap_index.xml")).status is Status.OK
    assert run.report(s.a("/sitemaps/blog.xml")).status is Status.OK


async def test_an_index_whose_every_child_is_refused_says_so_once(
    aiohttp_server: AiohttpServer,
) -> None:
    """A pattern that matches none of an index's children prunes everything below it: one
    problem on the index names the count refused and the rules, in the stream and its report."""
    s = await serve(aiohttp_server)
    serve_index(s, {"post": 1, "page": 1, "tag": 1})
    rules = FollowRules(follow=("/product",), skip=("/tag",))

    run = await walk(s.a("/"), config=following(rules))

    assert run.locs == []
    (problem,) = run.problems
    assert (problem.kind, problem.url, problem.count) == (
        "nothing-followed",
        s.a("/index.xml"),
        3,
    )
    assert problem.message == (
        "3 sitemaps it names refused by the follow rules, none followed "
        "(matches no --follow ('/product'); matches --skip '/tag')"
    )
    assert run.report(s.a("/index.xml")).problems == (problem,)
    # A predicate of the caller's own is named as the config's.
    run = await walk(s.a("/index.xml"), config=following(lambda child: False))
    assert [p.message for p in run.problems] == [
        (
            "3 sitemaps it names refused by the follow rules, none followed "
            "(refused by ReaderConfig.follow)"
        )
    ]
    # One child followed: no problem.
    run = await walk(s.a("/index.xml"), config=following(FollowRules(follow=("/post",))))
    assert run.problems == []


async def test_skip_wins_over_follow(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    serve_index(s, {"post-1": 1, "post-2": 1})

    run = await walk(s.a("/index.xml"), config=following(FollowRules(("post",), ("-2",))))

    assert run.locs == [s.a("/p/post-10")]
    assert run.report(s.a("/post-2.xml")).not_followed == "matches --skip '-2'"
    assert s.count("/post-2.xml") == 0


async def test_a_predicate_sees_each_child_before_it_is_fetched(
    aiohttp_server: AiohttpServer,
) -> None:
    """A plain function (a lambda, a closure): its False leaves the child unread."""
    s = await serve(aiohttp_server)
    serve_index(s, {"new": 1, "old": 1})
    s.add("/robots.txt", text(f"Sitemap: {s.a('/top.xml')}\n"))
    s.add("/top.xml", xml(sitemapindex((s.a("/index.xml"), "2024-05-01"))))
    s.add(
        "/index.xml",
        xml(sitemapindex((s.a("/new.xml"), "2024-06-01"), (s.a("/old.xml"), "2020-01-01"))),
    )
    seen: list[ChildSitemap] = []
    cutoff = datetime(2024, 1, 1, tzinfo=timezone.utc)

    def recent(child: ChildSitemap) -> bool:
        seen.append(child)
        return child.lastmod is None or child.lastmod >= cutoff

    run = await walk(s.a("/robots.txt"), config=following(recent))

    assert seen == [  # not /top.xml: what a robots.txt names is a source, never judged
        ChildSitemap(
            s.a("/index.xml"), s.a("/top.xml"), 1, datetime(2024, 5, 1, tzinfo=timezone.utc)
        ),
        ChildSitemap(
            s.a("/new.xml"), s.a("/index.xml"), 2, datetime(2024, 6, 1, tzinfo=timezone.utc)
        ),
        ChildSitemap(
            s.a("/old.xml"), s.a("/index.xml"), 2, datetime(2020, 1, 1, tzinfo=timezone.utc)
        ),
    ]
    assert s.count("/old.xml") == 0 and run.locs == [s.a("/p/new0")]
    assert run.report(s.a("/old.xml")).not_followed == "refused by ReaderConfig.follow"

    # A lambda does as well in this process.
    run = await walk(s.a("/index.xml"), config=following(lambda child: "new" in child.url))
    assert run.locs == [s.a("/p/new0")]


async def test_a_child_skipped_by_one_index_is_read_when_another_follows_it(
    aiohttp_server: AiohttpServer,
) -> None:
    """A refusal does not take the document on: named again where it is followed, it is read."""
    s = await serve(aiohttp_server)
    serve_index(s, {"shared": 1})
    s.add("/a.xml", xml(sitemapindex(s.a("/shared.xml"))))
    s.add("/b.xml", xml(sitemapindex(s.a("/shared.xml"))))

    def only_from_b(child: ChildSitemap) -> bool:
        return child.parent.endswith("/b.xml")

    run = await walk(s.a("/a.xml"), s.a("/b.xml"), config=following(only_from_b))

    assert run.locs == [s.a("/p/shared0")]
    assert sorted(r.status for r in run.reports if r.url == s.a("/shared.xml")) == [
        Status.OK,
        Status.SKIPPED,
    ]


async def test_the_children_of_an_unchanged_index_are_judged_too(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """An index skipped on its lastmod (a state file) names its recorded children again:
    they pass the caller's rules as freshly named ones do."""
    s = await serve(aiohttp_server)
    serve_index(s, {"post": 1, "tag": 1}, index_lastmod="2024-03-01")
    s.add("/top.xml", xml(sitemapindex((s.a("/index.xml"), "2024-03-01"))))
    path = tmp_path / "state.sqlite"

    async def run(config: ReaderConfig) -> Run:
        # No recheck sample: the index is skipped on its lastmod alone.
        config = dataclasses.replace(config, incremental=Incremental(recheck=0))
        with SqliteStateStore(path) as store:
            async with SitemapReader(config, state=store) as reader:
                return Run([event async for event in reader.walk(s.a("/top.xml"))])

    await run(FAST)
    before = s.count("/index.xml"), s.count("/tag.xml")
    second = await run(following(FollowRules(skip=("tag",))))

    assert (s.count("/index.xml"), s.count("/tag.xml")) == before  # neither asked again
    assert second.report(s.a("/index.xml")).status is Status.UNCHANGED
    tag = second.report(s.a("/tag.xml"))
    assert (tag.status, tag.not_followed) == (Status.SKIPPED, "matches --skip 'tag'")
    assert second.report(s.a("/post.xml")).status is Status.UNCHANGED
    # Every recorded child refused: the unchanged index says so, as a read one would.
    third = await run(following(FollowRules(skip=("tag", "post"))))
    assert [(p.kind, p.url, p.count) for p in third.problems] == [
        ("nothing-followed", s.a("/index.xml"), 2)
    ]
    assert third.report(s.a("/index.xml")).problems == tuple(third.problems)


async def test_a_local_robots_txt_names_sources_and_a_local_index_says_nothing_followed(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """A local robots.txt's sitemaps are sources too; a local index's children are judged,
    and its nothing-followed problem is in the stream, as a fetched index's is."""
    s = await serve(aiohttp_server)
    serve_index(s, {"post": 1, "tag": 1})
    robots = tmp_path / "robots.txt"
    robots.write_text(f"Sitemap: {s.a('/post.xml')}\nSitemap: {s.a('/tag.xml')}\n")

    run = await walk(str(robots), config=following(FollowRules(follow=("nothing",))))

    assert (s.count("/post.xml"), s.count("/tag.xml")) == (1, 1)
    tag = run.report(s.a("/tag.xml"))
    assert (tag.status, tag.depth, tag.source) == (Status.OK, 0, str(robots))

    index = tmp_path / "index.xml"
    index.write_text(sitemapindex(s.a("/post.xml"), s.a("/tag.xml")))
    run = await walk(str(index), config=following(FollowRules(follow=("nothing",))))
    assert [(p.kind, p.url, p.count) for p in run.problems] == [("nothing-followed", str(index), 2)]
    assert run.report(str(index)).problems == tuple(run.problems)


def test_follow_rules_are_plain_data_that_pickle() -> None:
    """ReaderConfig travels to Dask workers pickled: the rules go with it, patterns compiled."""
    config = ReaderConfig(follow=FollowRules(follow=("post",), skip=("draft",)))
    back = pickle.loads(pickle.dumps(config))
    assert back == config
    rules = back.follow
    assert rules(ChildSitemap("https://e.com/post-1.xml", "https://e.com/i.xml", 1))
    assert not rules(ChildSitemap("https://e.com/post-draft.xml", "https://e.com/i.xml", 1))
    assert not rules(ChildSitemap("https://e.com/page.xml", "https://e.com/i.xml", 1))


def test_bad_rules_and_predicates_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"--skip '\[' is not a regular expression"):
        FollowRules(skip=("[",))
    with pytest.raises(TypeError, match=r"ReaderConfig\.follow must be callable"):
        ReaderConfig(follow="post")  # type: ignore[arg-type]
