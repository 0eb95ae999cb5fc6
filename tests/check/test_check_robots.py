"""``check`` and robots.txt: the listed URLs it disallows for ``*`` and for ``--user-agent``
(R108), a sitemap whose own URL it disallows (R109, not fetched with ``--robots obey``), a
sitemap given directly that it does not name (R110), by default (``--robots report``, and the
library's ``check`` alike) and not with ``--robots ignore``."""

from __future__ import annotations

import dataclasses
import json

import pytest
from pytest_aiohttp.plugin import AiohttpServer

import sitemap_reader as sr
from tests.support.cli import main_captured
from tests.support.http_site import FAST, Served, ThreadedServer, serve, text, urlset, xml

# A group for mybot, which replaces "*" for it (RFC 9309 section 2.2.1).
RULES = (
    "User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\n\nUser-agent: mybot\nDisallow: /mine/\n"
)
PATHS = ("/a", "/private/x", "/doc.pdf", "/doc.pdf?page=2", "/mine/1")
FOR_ANYONE = {"/private/x", "/doc.pdf"}
FOR_MYBOT = {"/mine/1"}


def findings(out: str) -> list[dict[str, object]]:
    return [row for row in map(json.loads, out.splitlines()) if "code" in row]


def site(s: Served) -> None:
    s.add("/robots.txt", text(RULES + "Disallow: /maps/\n" + f"Sitemap: {s.a('/maps/s.xml')}\n"))
    s.add("/maps/s.xml", xml(urlset(*(s.a(p) for p in PATHS))))


def test_check_reports_what_robots_txt_disallows_for_the_agent_and_for_anyone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The mybot group disallows /mine/ and /maps/ (the sitemap itself); "*" the others:
    each said with its count, its first URL and its rule; every URL is still read."""
    with ThreadedServer() as s:
        site(s)
        _, out, _ = main_captured(
            capsys, "check", s.a("/"), "--user-agent", "MyBot/2", "--format", "json"
        )
        found = findings(out)
        r108 = sorted((f["count"], f["message"]) for f in found if f["code"] == "R108")
        assert [n for n, _ in r108] == [len(FOR_MYBOT), len(FOR_ANYONE)]
        assert "http://127.0.0.1" in str(r108[0][1]) and "/mine/1" in str(r108[0][1])
        assert "Disallow: /mine/ (user-agent: mybot)" in str(r108[0][1])
        assert "to other crawlers (user-agent: *)" in str(r108[1][1])
        (r109,) = [f for f in found if f["code"] == "R109"]
        assert r109["url"] == s.a("/maps/s.xml")
        assert "Disallow: /maps/ (user-agent: mybot)" in str(r109["message"])
        assert not [f for f in found if f["code"] == "P312"]  # no scope's drop

        _, out, _ = main_captured(
            capsys, "check", s.a("/"), "--robots", "ignore", "--format", "json"
        )
        assert not [f for f in findings(out) if f["code"] in ("R108", "R109")]


def test_check_with_obey_counts_the_urls_it_left_out(capsys: pytest.CaptureFixture[str]) -> None:
    with ThreadedServer() as s:
        site(s)
        _, out, _ = main_captured(capsys, "check", s.a("/"), "--robots", "obey", "--format", "json")
        (r108,) = [f for f in findings(out) if f["code"] == "R108"]
        assert r108["count"] == len(FOR_ANYONE)
        assert "(left out: --robots obey)" in str(r108["message"])


def test_check_reports_a_sitemap_given_directly_that_robots_txt_does_not_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The given sitemap's site has its robots.txt read: R110 names what it names instead,
    and its rules judge the sitemap's URLs (R108) and its own URL (R109)."""
    with ThreadedServer() as s:
        site(s)
        s.add("/other.xml", xml(urlset(s.a("/a"), s.a("/private/x"))))
        _, out, _ = main_captured(capsys, "check", s.a("/other.xml"), "--format", "json")
        found = findings(out)
        (r110,) = [f for f in found if f["code"] == "R110"]
        assert r110["url"] == s.a("/other.xml") and r110["severity"] == "notice"
        assert s.a("/maps/s.xml") in str(r110["message"])
        (r108,) = [f for f in found if f["code"] == "R108"]
        assert r108["count"] == 1 and "/private/x" in str(r108["message"])

        _, out, _ = main_captured(capsys, "check", s.a("/maps/s.xml"), "--format", "json")
        codes = [f["code"] for f in findings(out)]
        assert "R110" not in codes  # robots.txt names it


def test_check_with_obey_says_a_disallowed_sitemap_was_not_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ThreadedServer() as s:
        site(s)
        argv = ("check", s.a("/"), "--robots", "obey", "--user-agent", "mybot", "--format", "json")
        code, out, _ = main_captured(capsys, *argv)
        (r109,) = [f for f in findings(out) if f["code"] == "R109"]
        assert r109["url"] == s.a("/maps/s.xml") and r109["severity"] == "error"
        assert "not fetched (--robots obey)" in str(r109["message"])
        assert s.count("/maps/s.xml") == 0 and code == 1


async def test_the_librarys_check_reports_robots_txt_unless_told_otherwise(
    aiohttp_server: AiohttpServer,
) -> None:
    """As the command line's check: ReaderConfig.robots None reads and reports the rules;
    a policy set is kept."""
    s = await serve(aiohttp_server)
    site(s)

    async def codes(config: sr.ReaderConfig) -> list[str]:
        async with sr.SitemapReader(config) as reader:
            return [f.code async for f in reader.check(s.a("/"))]

    assert FAST.robots is None
    found = await codes(FAST)
    assert found.count("R108") == 1 and found.count("R109") == 0  # (R109: mybot's rule)
    ignored = dataclasses.replace(FAST, robots=sr.RobotsPolicy.IGNORE)
    assert "R108" not in await codes(ignored)
