"""``check`` and robots.txt: the listed URLs it disallows for ``*`` and for ``--user-agent``
(R108), a sitemap whose own URL it disallows (R109), by default (``--robots report``) and not
with ``--robots ignore``."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import main_captured
from tests.support.http_site import Served, ThreadedServer, text, urlset, xml

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
