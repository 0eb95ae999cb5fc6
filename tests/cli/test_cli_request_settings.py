"""--header, --proxy and --trust-env on dump, tree and check: every request of the run gets
them, over a loopback site that logs headers and a loopback forward proxy; a malformed one
is a usage error (exit 2). Each command runs in-process (``main`` on a worker thread)."""

from __future__ import annotations

import pytest
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader._cli import main
from tests.support.cli import cli
from tests.support.http_site import Served, serve, sitemapindex, text, urlset, xml
from tests.support.proxy import serve_proxy

COMMANDS = [("dump",), ("tree",), ("check", "--format", "json")]
PATHS = ["/robots.txt", "/index.xml", "/child.xml"]


def _small_site(s: Served) -> None:
    s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
    s.add("/index.xml", xml(sitemapindex(s.a("/child.xml"))))
    s.add("/child.xml", xml(urlset(s.a("/page"))))


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
async def test_headers_and_proxy_reach_every_request(
    command: tuple[str, ...], aiohttp_server: AiohttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    s = await serve(aiohttp_server)
    _small_site(s)
    p = await serve_proxy(aiohttp_server)
    argv = [*command, "-q", "--no-progress", "--header", "X-Trace: cli-7"]
    code = await cli(*argv, "--header", "Authorization: Bearer t0ken", "--proxy", p.url(), s.a("/"))
    assert code == 0
    assert s.site.paths() == PATHS
    assert [h.headers["X-Trace"] for h in s.site.hits] == ["cli-7"] * 3
    assert [h.headers["Authorization"] for h in s.site.hits] == ["Bearer t0ken"] * 3
    assert p.proxy.targets() == [s.a(path) for path in PATHS]
    assert "t0ken" not in capsys.readouterr().err


async def test_trust_env_takes_the_environment_proxy_only_when_given(
    aiohttp_server: AiohttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = await serve(aiohttp_server)
    _small_site(s)
    p = await serve_proxy(aiohttp_server)
    for name in ("HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", p.url())
    assert await cli("dump", "-q", "--no-progress", s.a("/")) == 0
    assert p.proxy.hits == [] and s.site.paths() == PATHS  # the environment ignored
    assert await cli("dump", "-q", "--no-progress", "--trust-env", s.a("/")) == 0
    assert p.proxy.targets() == [s.a(path) for path in PATHS]


@pytest.mark.parametrize(
    ("option", "error"),
    [
        # Without its colon a header is not echoed: it may be a secret.
        (["--header", "X-Trace"], "argument --header: a header is written 'Name: value', and"),
        (["--header", "Accept-Encoding: gzip"], "argument --header: the Accept-Encoding header"),
        (["--header", "Bad Name: 1"], "argument --header: 'Bad Name' is not a header name"),
        (["--header", "Host: example.com"], "argument --header: the Host header is the HTTP"),
        (["--proxy", "socks5://127.0.0.1:1080"], "argument --proxy: the proxy 'socks5://"),
        (["--proxy", "http://u:pw@"], "argument --proxy: the proxy 'http://u:***@' is not a URL"),
    ],
)
@pytest.mark.parametrize("command", ["dump", "tree", "check"])
def test_a_malformed_setting_is_a_usage_error(
    command: str, option: list[str], error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        main([command, *option, "http://127.0.0.1:9/"])
    out, err = capsys.readouterr()
    assert (exit.value.code, out) == (2, "")
    assert f"sitemap-reader {command}: error: {error}" in err
    assert "pw@" not in err
