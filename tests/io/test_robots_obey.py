"""``ReaderConfig.robots`` / ``--robots obey``: the page URLs a site's robots.txt disallows for
the reader's user agent are left out, counted as "robots" and said in a problem, by the
library and the command line, by both cores and on the compiled line path of ``dump``."""

from __future__ import annotations

import dataclasses
import threading

import pytest
from aiohttp import web
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import (
    LinePlan,
    Lines,
    ProblemKind,
    ReaderConfig,
    RobotsPolicy,
    ScopePolicy,
    SitemapReader,
)
from sitemap_reader._base._config import CHECK_ROBOTS, WALK_ROBOTS
from sitemap_reader._core._formats._robots_rules import RobotsRules
from sitemap_reader._core._pure import PURE_ENV
from sitemap_reader._core._xml._core_choice import COMPILED
from sitemap_reader._io._walk._robots import RobotsFilter
from tests.support.cli import main_captured, run_cli
from tests.support.http_site import (
    FAST,
    Handler,
    Served,
    ThreadedServer,
    gated,
    serve,
    sitemapindex,
    status,
    text,
    urlset,
    walk,
    xml,
)

OBEY = dataclasses.replace(FAST, robots=RobotsPolicy.OBEY)

# Several groups, a longer Allow inside a Disallow, a tie (Allow wins), "*" and "$", a rule
# written percent-encoded and one written in UTF-8.
RULES = (
    "User-agent: *\n"
    "Disallow: /private/\n"
    "Allow: /private/open\n"
    "Disallow: /tie\n"
    "Allow: /tie\n"
    "Disallow: /*.pdf$\n"
    "Disallow: /caf%C3%A9/\n"
    "Disallow: /*?session=\n"
    "Disallow: /über/\n"
    "\n"
    "User-agent: mybot\n"
    "Disallow: /mine/\n"
)
PATHS = (
    "/a",
    "/private/x",
    "/private/open/1",
    "/tie/1",
    "/doc.pdf",
    "/doc.pdf?page=2",
    "/café/1",
    "/list?session=9",
    "/%C3%BCber/x",
    "/mine/1",
)
# Disallowed for "*" (the group for mybot replaces it wholly, RFC 9309 section 2.2.1).
FOR_ANYONE = {"/private/x", "/doc.pdf", "/café/1", "/list?session=9", "/%C3%BCber/x"}
FOR_MYBOT = {"/mine/1"}


@pytest.mark.parametrize(
    ("agent", "disallowed"),
    [("sitemap-reader/1.0", FOR_ANYONE), ("MyBot/2.1 (+https://bot.invalid)", FOR_MYBOT)],
)
def test_rules_match_as_rfc_9309_says(agent: str, disallowed: set[str]) -> None:
    rules = RobotsRules.parse(RULES.encode(), agent)
    judged = {p for p in PATHS if rules.check("https://shop.invalid" + p) is not None}
    assert judged == disallowed


def test_the_rule_that_matched_is_said() -> None:
    rules = RobotsRules.parse(RULES, "sitemap-reader")
    assert rules.check("https://x.invalid/private/x") == "Disallow: /private/ (user-agent: *)"
    assert rules.check("https://x.invalid/private/open") is None
    assert rules.check("https://x.invalid/doc.pdf") == "Disallow: /*.pdf$ (user-agent: *)"


def test_a_robots_txt_that_disallows_nothing_for_the_agent_allows_all() -> None:
    rules = RobotsRules.parse("User-agent: other\nDisallow: /\n", "sitemap-reader")
    assert rules.allows_all


async def test_obey_leaves_out_what_robots_txt_disallows(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text(RULES + f"Sitemap: {s.a('/s.xml')}\n"))
    s.add("/s.xml", xml(urlset(*(s.a(p) for p in PATHS))))

    ignored = await walk(s.a("/"), config=FAST)
    assert sorted(ignored.locs) == sorted(s.a(p) for p in PATHS)
    assert ProblemKind.ROBOTS_DISALLOWED not in ignored.kinds

    run = await walk(s.a("/"), config=OBEY)
    assert sorted(run.locs) == sorted(s.a(p) for p in PATHS if p not in FOR_ANYONE)
    report = run.report(s.a("/s.xml"))
    assert dict(report.dropped) == {"robots": len(FOR_ANYONE)}
    assert dict(report.dropped_examples) == {"robots": s.a("/private/x")}
    problem = run.problem("robots-disallowed")
    assert problem.count == len(FOR_ANYONE) and problem.url == s.a("/s.xml")
    assert "Disallow: /private/ (user-agent: *)" in problem.message
    assert s.count("/robots.txt") == 2  # once a run: the rules came from the walk's read


async def test_a_failed_robots_txt_disallows_its_site_and_a_missing_one_allows_it(
    aiohttp_server: AiohttpServer,
) -> None:
    """The sitemap on 127.0.0.1 lists URLs of localhost too (scope off): a 5xx robots.txt
    there leaves them all out; a 404 on 127.0.0.1 keeps its own."""
    s = await serve(aiohttp_server)
    failed = threading.Event()  # the sitemap is served once localhost's robots.txt failed
    s.add("/robots.txt", status(404), host="127.0.0.1")
    s.add("/robots.txt", then_set(status(503), failed), host="localhost")
    s.add("/sitemap.xml", gated(xml(urlset(s.a("/1"), s.a("/2"), s.b("/3"), s.b("/4"))), failed))
    once = dataclasses.replace(FAST.retry, attempts=1)
    config = dataclasses.replace(OBEY, scope=ScopePolicy.OFF, retry=once)
    run = await walk(s.a("/"), s.b("/"), config=config)
    assert sorted(run.locs) == [s.a("/1"), s.a("/2")]
    assert dict(run.report(s.a("/sitemap.xml")).dropped) == {"robots": 2}
    assert "robots.txt unreachable" in run.problem("robots-disallowed").message


def then_set(handler: Handler, event: threading.Event) -> Handler:
    async def handle(request: web.Request) -> web.StreamResponse:
        response = await handler(request)
        await response.prepare(request)
        await response.write_eof()
        event.set()
        return response

    return handle


def cli_site(s: Served) -> None:
    s.add("/robots.txt", text(RULES + f"Sitemap: {s.a('/index.xml')}\n"))
    s.add("/index.xml", xml(sitemapindex(s.a("/s0.xml"), s.a("/s1.xml"))))
    s.add("/s0.xml", xml(urlset(*(s.a(p) for p in PATHS))))
    s.add("/s1.xml", xml(urlset(*(s.a(f"/private/{i}") for i in range(30)), s.a("/z"))))


@pytest.mark.parametrize("fmt", ["txt", "jsonl"])
def test_dump_obeys_on_both_cores_and_the_compiled_line_path(
    fmt: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In this process dump writes lines with the crate (the compiled core); the pure core
    runs in a subprocess: the same URLs, the same summary."""
    with ThreadedServer() as s:
        cli_site(s)
        argv = ("dump", s.a("/"), "--robots", "obey", "--format", fmt)
        code, out, err = main_captured(capsys, *argv)
        assert code == 0, err
        kept = [p for p in PATHS if p not in FOR_ANYONE] + ["/z"]
        assert len(out.splitlines()) == len(kept)
        assert all(s.a(p) in out for p in kept)
        assert "/private/x" not in out and "/private/1" not in out
        assert "35 URLs dropped as disallowed by robots.txt (robots)" in err
        monkeypatch.setenv(PURE_ENV, "1")
        pure = run_cli(*argv)
        assert pure.returncode == 0
        assert sorted(pure.stdout.decode("utf-8").splitlines()) == sorted(out.splitlines())
        assert "35 URLs dropped as disallowed by robots.txt (robots)" in pure.stderr.decode()


def test_tree_counts_by_the_agents_group(capsys: pytest.CaptureFixture[str]) -> None:
    with ThreadedServer() as s:
        cli_site(s)
        _, out, err = main_captured(capsys, "tree", s.a("/"), "--robots", "obey")
        assert "30 dropped (30 robots)" in out + err
        _, out, err = main_captured(
            capsys, "tree", s.a("/"), "--robots", "obey", "--user-agent", "mybot/1"
        )
        assert "1 dropped (1 robots)" in out + err and "30 dropped" not in out + err


def test_the_default_is_the_runs_own() -> None:
    """None: a walk ignores robots.txt's rules, a check reports them (tests/check)."""
    assert ReaderConfig().robots is None
    assert (WALK_ROBOTS, CHECK_ROBOTS) == (RobotsPolicy.IGNORE, RobotsPolicy.REPORT)
    assert ReaderConfig(robots="obey").robots is RobotsPolicy.OBEY  # type: ignore[arg-type]


async def test_a_compiled_run_on_several_origins_is_judged_in_the_crate(
    aiohttp_server: AiohttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scope off, the sitemap on 127.0.0.1 lists URLs of localhost (whose robots.txt the
    walk read too) and of a host it read none for, interleaved: the crate judges each by
    its own origin's rules (no Python judgement a URL, counted), as Python would; only the
    URL whose origin only ``origin_of`` can tell (an upper-case host) is judged in Python."""
    if not COMPILED:
        pytest.skip("the compiled core is off here (SITEMAP_READER_PURE): no compiled runs")
    s = await serve(aiohttp_server)
    read = threading.Event()  # the sitemap is served once localhost's robots.txt was read
    s.add("/robots.txt", text(f"User-agent: *\nDisallow: /a/\nSitemap: {s.a('/s.xml')}\n"),
          host="127.0.0.1")  # fmt: skip
    s.add("/robots.txt", then_set(text("User-agent: *\nDisallow: /b/\n"), read), host="localhost")
    odd = f"http://LOCALHOST:{s.port}/b/odd"
    locs = [u for i in range(50) for u in (s.a(f"/a/{i}"), s.a(f"/{i}"), s.b(f"/b/{i}"),
                                           s.b(f"/{i}"), f"http://unread.invalid/b/{i}")]  # fmt: skip
    locs.insert(120, odd)
    s.add("/s.xml", gated(xml(urlset(*locs)), read))
    judged: list[str] = []
    judge = RobotsFilter.judge

    def counted(self: RobotsFilter, url: str) -> tuple[bool, bool]:
        judged.append(url)
        return judge(self, url)

    monkeypatch.setattr(RobotsFilter, "judge", counted)
    config = dataclasses.replace(OBEY, scope=ScopePolicy.OFF)
    out = b""
    async with SitemapReader(config) as reader:
        async for batch in reader.line_batches(s.a("/"), s.b("/"), plan=LinePlan("txt")):
            out += b"".join(e.data for e in batch if isinstance(e, Lines))
    kept = [u for u in locs if ("/a/" not in u and "/b/" not in u) or "unread" in u]
    assert out.decode().splitlines() == kept
    # In Python: the odd URL (left out by localhost's rules, found by origin_of); the first
    # URL disallowed, again for its rule's text; the sitemap's own URL, before its fetch.
    assert sorted(judged) == sorted([odd, s.a("/a/0"), s.a("/s.xml")])
