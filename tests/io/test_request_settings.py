"""Request settings on every request of a run: headers, a proxy, the environment's proxies and
.netrc, over a real server that logs each request's headers and a real forward proxy.

127.0.0.1 and localhost reach the same server but are two hosts (two origins): a redirect
from one to the other is the cross-host hop that credentials must not follow.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

import aiohttp
import pytest
from pytest_aiohttp.plugin import AiohttpServer
from yarl import URL

from sitemap_reader import ReaderConfig, ScopePolicy
from sitemap_reader._io._http._aiohttp import AiohttpTransport
from sitemap_reader._io._http._fetch import Fetcher, _same_origin
from tests.support.http_site import (
    FAST,
    Served,
    closed_port,
    redirect,
    serve,
    sitemapindex,
    text,
    urlset,
    walk,
    xml,
)
from tests.support.proxy import Proxy, serve_proxy

SECRET = "Bearer s3cr3t-token"
CREDENTIALS = (("Authorization", SECRET), ("Cookie", "session=c00kie"))
TRACE = ("X-Trace", "run-42")
SETTINGS = dataclasses.replace(FAST, headers=(*CREDENTIALS, TRACE))
_ENV_PROXIES = ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy")


def _small_site(s: Served) -> None:
    """robots.txt -> /index.xml -> /child.xml, all on 127.0.0.1."""
    s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
    s.add("/index.xml", xml(sitemapindex(s.a("/child.xml"))))
    s.add("/child.xml", xml(urlset(s.a("/page"))))


async def test_headers_reach_robots_probes_sitemaps_and_same_host_hops(
    aiohttp_server: AiohttpServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Every request carries the run's headers, credentials included while on one origin;
    the debug log names them with the credentials masked."""
    s = await serve(aiohttp_server)
    s.add("/robots.txt", text("User-agent: *\nDisallow:\n"))  # names no sitemap: probes
    s.add("/sitemap.xml", redirect("/real-index.xml"))  # the first probe, moved on one host
    s.add("/real-index.xml", xml(sitemapindex(s.a("/child.xml"))))
    s.add("/child.xml", xml(urlset(s.a("/page"))))
    with caplog.at_level(logging.DEBUG, logger="sitemap_reader"):
        run = await walk(s.a("/"), config=SETTINGS)
    assert run.locs == [s.a("/page")]
    paths = s.site.paths()
    assert paths[:4] == ["/robots.txt", "/sitemap.xml", "/real-index.xml", "/child.xml"]
    for hit in s.site.hits:
        assert hit.headers["Authorization"] == SECRET, hit.path
        assert hit.headers["Cookie"] == "session=c00kie", hit.path
        assert hit.headers["X-Trace"] == "run-42", hit.path
        assert hit.headers["User-Agent"] == FAST.user_agent  # the run's own, kept
    gets = [r.getMessage() for r in caplog.records if r.getMessage().startswith("GET ")]
    assert len(gets) == len(paths)
    assert all("Authorization: Bearer ***" in line and "X-Trace: run-42" in line for line in gets)
    assert not any("s3cr3t" in r.getMessage() or "c00kie" in r.getMessage() for r in caplog.records)


async def test_credentials_stay_behind_on_a_redirect_to_another_host(
    aiohttp_server: AiohttpServer,
) -> None:
    """127.0.0.1 -> localhost -> 127.0.0.1: Authorization and Cookie reach the first host only;
    the other headers go on; a hop back does not bring the credentials back."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", redirect(s.b("/moved.xml")), host="127.0.0.1")
    s.add("/moved.xml", redirect(s.a("/back.xml")), host="localhost")
    s.add("/back.xml", xml(urlset(s.a("/page"))), host="127.0.0.1")
    config = dataclasses.replace(SETTINGS, scope=ScopePolicy.OFF)
    run = await walk(s.a("/sitemap.xml"), config=config)
    assert run.locs == [s.a("/page")]
    [first] = s.site.headers("/sitemap.xml")
    assert first["Authorization"] == SECRET and first["Cookie"] == "session=c00kie"
    for later in (*s.site.headers("/moved.xml"), *s.site.headers("/back.xml")):
        assert "Authorization" not in later and "Cookie" not in later
        assert later["X-Trace"] == "run-42"
    assert s.count("/moved.xml", host="localhost") == 1 and s.count("/back.xml") == 1


async def test_a_request_header_given_twice_is_sent_twice(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", xml(urlset(s.a("/page"))))
    config = dataclasses.replace(FAST, headers=(("X-Tag", "a"), ("X-Tag", "b")))
    await walk(s.a("/sitemap.xml"), config=config)
    [sent] = s.site.headers("/sitemap.xml")
    assert sent.getall("X-Tag") == ["a", "b"]


async def test_every_request_goes_through_the_proxy_with_its_credentials(
    aiohttp_server: AiohttpServer,
) -> None:
    s = await serve(aiohttp_server)
    _small_site(s)
    p = await serve_proxy(aiohttp_server, Proxy(credentials="user:pr0xy-pass"))
    config = dataclasses.replace(FAST, proxy=p.url(userinfo="user:pr0xy-pass"))
    run = await walk(s.a("/"), config=config)
    assert run.locs == [s.a("/page")]
    assert p.proxy.targets() == [s.a("/robots.txt"), s.a("/index.xml"), s.a("/child.xml")]
    assert s.site.paths() == ["/robots.txt", "/index.xml", "/child.xml"]  # forwarded, once each
    # The proxy's credentials went to the proxy, not on to the site.
    assert all("Proxy-Authorization" not in hit.headers for hit in s.site.hits)


async def test_the_proxy_password_is_masked_in_problems(aiohttp_server: AiohttpServer) -> None:
    """A proxy that refuses the credentials (407), and one that is not there."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", xml(urlset(s.a("/page"))))
    p = await serve_proxy(aiohttp_server, Proxy(credentials="user:right"))
    wrong = dataclasses.replace(FAST, proxy=p.url(userinfo="user:wr0ng-pass"))
    run = await walk(s.a("/sitemap.xml"), config=wrong)
    assert [problem.message for problem in run.problems] == [
        "HTTP 407 Proxy Authentication Required"
    ]
    assert s.site.hits == []
    absent = f"http://user:wr0ng-pass@127.0.0.1:{closed_port()}"
    run = await walk(s.a("/sitemap.xml"), config=dataclasses.replace(FAST, proxy=absent))
    [problem] = run.problems
    assert "could not connect to the proxy 127.0.0.1" in problem.message
    assert "wr0ng-pass" not in repr(run.events)
    assert "wr0ng-pass" not in repr(wrong) and SECRET not in repr(SETTINGS)


async def test_the_guard_judges_the_target_not_the_proxy(aiohttp_server: AiohttpServer) -> None:
    """Through a proxy on localhost (a name the resolver lets through: the user chose it), an
    index on the trusted source host 127.0.0.1 names a child on localhost, a loopback host
    the documents named: refused before it reaches the proxy, whose socket peer the old
    check would have seen instead of the target."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.b("/child.xml"), s.a("/own.xml"))))
    s.add("/child.xml", xml(urlset(s.b("/page"))))
    s.add("/own.xml", xml(urlset(s.a("/page"))))
    p = await serve_proxy(aiohttp_server)
    config = dataclasses.replace(
        FAST, scope=ScopePolicy.OFF, allow_private=False, proxy=p.url(host="localhost")
    )
    run = await walk(s.a("/index.xml"), config=config)
    assert run.locs == [s.a("/page")]
    refused = run.problem("private-address")
    assert refused.url == s.b("/child.xml") and "loopback" in refused.message
    assert p.proxy.targets() == [s.a("/index.xml"), s.a("/own.xml")]
    assert s.count("/child.xml") == 0


def _clear_env_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _ENV_PROXIES:
        monkeypatch.delenv(name, raising=False)


async def test_trust_env_routes_through_the_environment_proxy(
    aiohttp_server: AiohttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = await serve(aiohttp_server)
    _small_site(s)
    p = await serve_proxy(aiohttp_server)
    _clear_env_proxies(monkeypatch)
    monkeypatch.setenv("HTTP_PROXY", p.url())
    ignored = await walk(s.a("/"), config=FAST)  # trust_env off: the environment is ignored
    assert ignored.locs == [s.a("/page")] and p.proxy.hits == []
    trusted = await walk(s.a("/"), config=dataclasses.replace(FAST, trust_env=True))
    assert trusted.locs == [s.a("/page")]
    assert p.proxy.targets() == [s.a("/robots.txt"), s.a("/index.xml"), s.a("/child.xml")]
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")  # NO_PROXY names the host: direct again
    await walk(s.a("/"), config=dataclasses.replace(FAST, trust_env=True))
    assert len(p.proxy.hits) == 3 and len(s.site.hits) == 9


async def test_trust_env_reads_netrc_for_each_host(
    aiohttp_server: AiohttpServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """.netrc's credentials go to their machine only, and only with trust_env."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", redirect(s.b("/moved.xml")), host="127.0.0.1")
    s.add("/moved.xml", xml(urlset(s.b("/page"))), host="localhost")
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login reader password n3trc-pass\n", encoding="utf-8")
    netrc.chmod(0o600)
    _clear_env_proxies(monkeypatch)
    monkeypatch.setenv("NETRC", str(netrc))
    config = dataclasses.replace(FAST, scope=ScopePolicy.OFF)
    await walk(s.a("/sitemap.xml"), config=config)
    assert "Authorization" not in s.site.headers("/sitemap.xml")[0]
    await walk(s.a("/sitemap.xml"), config=dataclasses.replace(config, trust_env=True))
    assert s.site.headers("/sitemap.xml")[1]["Authorization"] == "Basic cmVhZGVyOm4zdHJjLXBhc3M="
    assert all("Authorization" not in h for h in s.site.headers("/moved.xml"))
    # The run's own Authorization wins over .netrc's (as curl's -H does).
    own = dataclasses.replace(config, trust_env=True, headers=(("Authorization", SECRET),))
    assert (await walk(s.a("/sitemap.xml"), config=own)).locs == [s.b("/page")]
    assert s.site.headers("/sitemap.xml")[2]["Authorization"] == SECRET


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        ({"headers": {"Bad Name": "x"}}, "not a header name"),
        ({"headers": {"X-A": "one\r\nInjected: two"}}, "line break"),
        ({"headers": {"Host": "example.com"}}, "HTTP client's to write"),
        ({"headers": [("X-A",)]}, r"\(name, value\) pair"),
        ({"proxy": "socks5://127.0.0.1:1080"}, "not an http:// URL"),
        ({"proxy": "http://user:pw@"}, "is not a URL"),
    ],
)
def test_bad_request_settings_are_refused(settings: dict[str, object], error: str) -> None:
    with pytest.raises(ValueError, match=error) as caught:
        ReaderConfig(**settings)  # type: ignore[arg-type]
    assert "pw" not in str(caught.value)


def test_headers_are_taken_as_a_mapping_or_pairs() -> None:
    assert ReaderConfig(headers={"X-A": "1"}).headers == (("X-A", "1"),)  # type: ignore[arg-type]
    assert ReaderConfig(headers=[("X-A", "1"), ("X-A", "2")]).headers == (  # type: ignore[arg-type]
        ("X-A", "1"),
        ("X-A", "2"),
    )


async def test_a_transport_error_never_shows_the_proxy_password() -> None:
    """Whatever words aiohttp's error holds (here its InvalidURL, which is the proxy's URL
    itself), the problem's message has the password masked."""
    proxy = "http://user:wr0ng-pass@127.0.0.1:3128"
    config = dataclasses.replace(SETTINGS, proxy=proxy)
    async with aiohttp.ClientSession() as session:
        fetcher = Fetcher(AiohttpTransport(session), config, None)
        error = fetcher._transport_error("http://example.com/", aiohttp.InvalidURL(proxy))
    assert "http://user:***@127.0.0.1:3128" in str(error)
    assert "wr0ng-pass" not in str(error) and error.url == "http://example.com/"


@pytest.mark.parametrize(
    ("then", "same"),
    [
        ("http://example.com/other.xml", True),
        ("https://example.com/", True),  # the upgrade on the default ports keeps them
        ("https://example.com:8443/", False),
        ("http://example.com:8080/", False),
        ("http://www.example.com/", False),
        ("http://example.com.evil.test/", False),
    ],
)
def test_which_hops_keep_the_credentials(then: str, same: bool) -> None:
    assert _same_origin(URL("http://example.com/sitemap.xml"), URL(then)) is same
    if then.startswith("https://example.com/"):  # never the downgrade
        assert _same_origin(URL(then), URL("http://example.com/")) is False
