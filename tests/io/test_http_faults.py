"""Faults over a real aiohttp server: statuses, retries, resets, timeouts, redirects, junk."""

from __future__ import annotations

import dataclasses
import gc
import gzip
import warnings

from aiohttp import web
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import Format, Limits, ReaderConfig, RetryPolicy, Status, Timeouts
from tests.support.http_site import (
    FAST,
    Run,
    Served,
    closed_port,
    hang,
    html,
    redirect,
    reset_after,
    sequence,
    serve,
    sitemapindex,
    slow,
    stall_after,
    status,
    trickle,
    urlset,
    walk,
    xml,
)

# Short timeouts for the tests that make the server go silent (waiting for the status line
# may take connect + read).
QUICK_READ = dataclasses.replace(FAST, timeouts=Timeouts(connect=0.1, read=0.2, request=5.0))


async def checked_walk(url: str, config: ReaderConfig) -> tuple[Run, list[str]]:
    """A walk, and the "coroutine ... was never awaited" warnings it left
    (collected at once: they are raised when the garbage is)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = await walk(url, config=config)
        gc.collect()
    unawaited = [
        str(w.message).splitlines()[0] for w in caught if "never awaited" in str(w.message)
    ]
    return run, unawaited


def pages(s: Served, n: int, prefix: str = "/page") -> list[str]:
    return [s.a(f"{prefix}/{i}") for i in range(n)]


def cut_after(document: str, closing_tags: int) -> int:
    """The byte offset just past the ``closing_tags``-th ``</url>``, plus a few bytes more."""
    data = document.encode()
    at = -1
    for _ in range(closing_tags):
        at = data.index(b"</url>", at + 1)
    return at + len(b"</url>") + 5


# -- statuses and retries ---------------------------------------------------------------------


async def test_500_twice_then_200_is_read_whole(aiohttp_server: AiohttpServer) -> None:
    """Two 500s and then a 200 cost three requests and yield every entry once, with no problem."""
    s = await serve(aiohttp_server)
    body = urlset(*pages(s, 3))
    s.add("/sitemap.xml", sequence(status(500), status(500), xml(body)))

    run = await walk(s.a("/sitemap.xml"))

    assert run.locs == pages(s, 3)
    assert s.count("/sitemap.xml") == 3
    assert run.problems == []
    report = run.report(s.a("/sitemap.xml"))
    assert (report.status, report.http_status, report.entries) == (Status.OK, 200, 3)


async def test_500_every_time_fails_after_the_attempts(aiohttp_server: AiohttpServer) -> None:
    """A sitemap that answers 500 to every try is requested ``attempts`` times and reported."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", status(500))
    config = dataclasses.replace(
        FAST, retry=RetryPolicy(attempts=4, backoff=0.01, max_backoff=0.02)
    )

    run = await walk(s.a("/sitemap.xml"), config=config)

    assert run.entries == []
    assert s.count("/sitemap.xml") == 4
    problem = run.problem("http-status")
    assert problem.url == s.a("/sitemap.xml")
    assert "HTTP 500" in problem.message
    report = run.report(s.a("/sitemap.xml"))
    assert (report.status, report.http_status, report.problems) == (
        Status.FAILED,
        500,
        (problem,),
    )


async def test_429_waits_as_long_as_retry_after_says(aiohttp_server: AiohttpServer) -> None:
    """A 429 with Retry-After is retried after the wait it asks for (capped by the policy)."""
    s = await serve(aiohttp_server)
    s.add(
        "/sitemap.xml",
        sequence(status(429, headers={"Retry-After": "120"}), xml(urlset(*pages(s, 2)))),
    )
    # backoff alone would wait at most 0.05 s; Retry-After (120 s, capped to 0.4 s) must win
    config = dataclasses.replace(
        FAST, retry=RetryPolicy(backoff=0.01, max_backoff=0.05, max_retry_after=0.4)
    )

    run = await walk(s.a("/sitemap.xml"), config=config)

    assert run.locs == pages(s, 2)
    first, second = s.site.times("/sitemap.xml")
    assert 0.35 <= second - first < 3.0
    assert run.problems == []


async def test_408_and_503_are_retried(aiohttp_server: AiohttpServer) -> None:
    """408 and 503 (with a zero Retry-After) are retried like other transient answers."""
    s = await serve(aiohttp_server)
    s.add(
        "/sitemap.xml",
        sequence(status(408), status(503, headers={"Retry-After": "0"}), xml(urlset(s.a("/p")))),
    )

    run = await walk(s.a("/sitemap.xml"))

    assert run.locs == [s.a("/p")]
    assert s.count("/sitemap.xml") == 3


async def test_404_is_not_retried(aiohttp_server: AiohttpServer) -> None:
    """A 404 is final: one request, one problem naming the URL and the status."""
    s = await serve(aiohttp_server)

    run = await walk(s.a("/missing.xml"))

    assert s.count("/missing.xml") == 1
    problem = run.problem("http-status")
    assert (problem.url, problem.message) == (s.a("/missing.xml"), "HTTP 404 Not Found")
    assert run.report(s.a("/missing.xml")).status is Status.FAILED


async def test_410_and_403_are_not_retried(aiohttp_server: AiohttpServer) -> None:
    """Other 4xx statuses are final too."""
    s = await serve(aiohttp_server)
    s.add("/gone.xml", status(410))
    s.add("/forbidden.xml", status(403))

    run = await walk(s.a("/gone.xml"), s.a("/forbidden.xml"))

    assert (s.count("/gone.xml"), s.count("/forbidden.xml")) == (1, 1)
    assert sorted(p.message for p in run.problems) == ["HTTP 403 Forbidden", "HTTP 410 Gone"]


# -- bodies cut or stalled --------------------------------------------------------------------


async def test_reset_mid_body_keeps_entries_before_it(aiohttp_server: AiohttpServer) -> None:
    """A connection reset midway on every try keeps the entries read before the reset (once
    each, across the retries) and reports the cut."""
    s = await serve(aiohttp_server)
    body = urlset(*pages(s, 10))
    s.add("/sitemap.xml", reset_after(body, cut_after(body, 3)))

    run = await walk(s.a("/sitemap.xml"))

    assert run.locs == pages(s, 3)
    assert s.count("/sitemap.xml") == FAST.retry.attempts
    problem = run.problem("network")
    assert problem.url == s.a("/sitemap.xml")
    assert f"after {cut_after(body, 3):,} bytes of the body" in problem.message
    report = run.report(s.a("/sitemap.xml"))
    assert (report.status, report.entries) == (Status.PARTIAL, 3)


async def test_reset_once_then_whole_body(aiohttp_server: AiohttpServer) -> None:
    """A body cut once and then served whole yields every entry exactly once, in order."""
    s = await serve(aiohttp_server)
    body = urlset(*pages(s, 6))
    s.add("/sitemap.xml", sequence(reset_after(body, cut_after(body, 2)), xml(body)))

    run = await walk(s.a("/sitemap.xml"))

    assert run.locs == pages(s, 6)
    assert s.count("/sitemap.xml") == 2
    assert run.problems == []
    assert run.report(s.a("/sitemap.xml")).status is Status.OK


async def test_read_timeout_before_headers(aiohttp_server: AiohttpServer) -> None:
    """A server silent past the read timeout is retried, then reported as timed out."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", hang(3.0, xml(urlset(s.a("/p")))))

    run = await walk(s.a("/sitemap.xml"), config=QUICK_READ)

    assert run.entries == []
    assert s.count("/sitemap.xml") == QUICK_READ.retry.attempts
    problem = run.problem("network")
    assert (problem.url, problem.message) == (
        s.a("/sitemap.xml"),
        f"timed out: no answer within {QUICK_READ.timeouts.read:g} s",
    )
    assert run.report(s.a("/sitemap.xml")).status is Status.FAILED


async def test_read_timeout_mid_body_keeps_entries(aiohttp_server: AiohttpServer) -> None:
    """A body that stalls midway past the read timeout keeps what came before the stall."""
    s = await serve(aiohttp_server)
    body = urlset(*pages(s, 8))
    s.add("/sitemap.xml", stall_after(body, cut_after(body, 4), 3.0))

    run = await walk(s.a("/sitemap.xml"), config=QUICK_READ)

    assert run.locs == pages(s, 4)
    problem = run.problem("network")
    assert problem.url == s.a("/sitemap.xml")
    assert problem.message.startswith(
        f"timed out: no data for {QUICK_READ.timeouts.read:g} s after"
    )
    assert run.report(s.a("/sitemap.xml")).status is Status.PARTIAL


async def test_trickling_body_is_cut_by_the_request_budget(aiohttp_server: AiohttpServer) -> None:
    """A server that sends a little at a time, each wait under the read timeout, is cut when the
    request's waits add up past ``Timeouts.request``; what came before the cut is kept."""
    s = await serve(aiohttp_server)
    body = urlset(*pages(s, 40))
    s.add("/sitemap.xml", trickle(body, 200, 0.05))  # about 2 s in all
    config = dataclasses.replace(
        FAST,
        timeouts=Timeouts(connect=0.5, read=0.5, request=0.4),
        retry=RetryPolicy(attempts=1),
    )

    run, unawaited = await checked_walk(s.a("/sitemap.xml"), config)

    assert 0 < len(run.locs) < 40  # cut before the body's 2 s were over
    assert run.locs == pages(s, len(run.locs))
    problem = run.problem("network")
    assert (problem.url, problem.message.split(" after ")[0]) == (
        s.a("/sitemap.xml"),
        "timed out: the request's 0.4 s budget ran out",
    )
    assert run.report(s.a("/sitemap.xml")).status is Status.PARTIAL
    assert unawaited == []


async def test_unreachable_sitemap_is_a_network_problem(aiohttp_server: AiohttpServer) -> None:
    """A sitemap on a port where nothing listens is reported with the URL and the cause."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", xml(urlset(s.a("/p"))))
    dead = f"http://127.0.0.1:{closed_port()}/sitemap.xml"

    run = await walk(dead, s.a("/sitemap.xml"))

    assert run.locs == [s.a("/p")]
    problem = run.problem("network")
    assert problem.url == dead
    assert problem.message
    assert run.report(dead).status is Status.FAILED


async def test_robots_unreachable_means_complete_disallow() -> None:
    """A robots.txt that cannot be reached: the site is reported and no path is probed. A
    refused connection is said plainly (most likely a wrong address), in no aiohttp words
    and without the robots.txt rule, which is for a server that answered 5xx."""
    port = closed_port()
    root = f"http://127.0.0.1:{port}/"

    run = await walk(root)

    problem = run.problem("robots-unavailable")
    assert problem.url == root + "robots.txt"
    assert problem.message == (
        f"could not connect to 127.0.0.1:{port} (connection refused): is the address right?"
    )
    assert [r.url for r in run.reports] == [root + "robots.txt"]


async def test_truncated_gzip_file_keeps_entries(aiohttp_server: AiohttpServer) -> None:
    """A .gz file whose stream stops early yields the entries before the cut and a problem."""
    s = await serve(aiohttp_server)
    data = gzip.compress(urlset(*pages(s, 50)).encode(), mtime=0)
    s.add("/sitemap.xml.gz", xml(data[: len(data) * 2 // 3], content_type="application/gzip"))

    run = await walk(s.a("/sitemap.xml.gz"))

    assert 0 < len(run.locs) < 50
    assert run.locs == pages(s, len(run.locs))
    problem = run.problem("truncated")
    assert (problem.url, problem.fatal) == (s.a("/sitemap.xml.gz"), True)
    assert run.report(s.a("/sitemap.xml.gz")).status is Status.PARTIAL


# -- redirects -----------------------------------------------------------------------------------


async def test_redirect_limit(aiohttp_server: AiohttpServer) -> None:
    """More redirects than ``max_redirects`` fail the sitemap; the last hop is never requested."""
    s = await serve(aiohttp_server)
    for i in range(3):
        s.add(f"/r{i}.xml", redirect(f"/r{i + 1}.xml"))
    s.add("/r3.xml", xml(urlset(s.a("/p"))))
    config = dataclasses.replace(FAST, limits=Limits(max_redirects=2))

    run = await walk(s.a("/r0.xml"), config=config)

    assert run.entries == []
    assert s.site.paths() == ["/r0.xml", "/r1.xml", "/r2.xml"]
    problem = run.problem("redirect")
    assert problem.url == s.a("/r0.xml")
    assert "more than 2 redirects" in problem.message
    assert run.report(s.a("/r0.xml")).status is Status.FAILED


async def test_redirects_up_to_the_limit_are_followed(aiohttp_server: AiohttpServer) -> None:
    """Exactly ``max_redirects`` hops are allowed."""
    s = await serve(aiohttp_server)
    for i in range(2):
        s.add(f"/r{i}.xml", redirect(f"/r{i + 1}.xml", 302))
    s.add("/r2.xml", xml(urlset(s.a("/p"))))
    config = dataclasses.replace(FAST, limits=Limits(max_redirects=2))

    run = await walk(s.a("/r0.xml"), config=config)

    assert run.locs == [s.a("/p")]


async def test_redirect_loop(aiohttp_server: AiohttpServer) -> None:
    """A redirect loop is detected on its first turn and reported, not followed to the limit."""
    s = await serve(aiohttp_server)
    s.add("/x.xml", redirect("/y.xml"))
    s.add("/y.xml", redirect(s.a("/x.xml")))

    run = await walk(s.a("/x.xml"))

    assert s.site.paths() == ["/x.xml", "/y.xml"]
    problem = run.problem("redirect")
    assert problem.url == s.a("/x.xml")
    assert "redirect loop" in problem.message


async def test_redirect_to_another_scheme_is_refused(aiohttp_server: AiohttpServer) -> None:
    """A redirect to a non-http(s) URL is not followed, and the problem quotes it."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", redirect("ftp://127.0.0.1/sitemap.xml"))
    s.add("/no-location.xml", status(302))

    run = await walk(s.a("/sitemap.xml"), s.a("/no-location.xml"))

    messages = {p.url: p.message for p in run.problems}
    assert "ftp://127.0.0.1/sitemap.xml" in messages[s.a("/sitemap.xml")]
    assert "without a Location" in messages[s.a("/no-location.xml")]
    assert run.entries == []


# -- one failure among many ----------------------------------------------------------------------


async def test_one_child_failing_while_nineteen_succeed(aiohttp_server: AiohttpServer) -> None:
    """One broken child of twenty is one problem naming it; its nineteen siblings are read."""
    s = await serve(aiohttp_server)
    children = [s.a(f"/child-{i}.xml") for i in range(20)]
    s.add("/index.xml", xml(sitemapindex(*children)))
    for i in range(20):
        if i == 7:
            s.add("/child-7.xml", status(500))
        else:
            s.add(f"/child-{i}.xml", xml(urlset(*pages(s, 2, f"/c{i}"))))

    run = await walk(s.a("/index.xml"))

    expected = sorted(loc for i in range(20) if i != 7 for loc in pages(s, 2, f"/c{i}"))
    assert sorted(run.locs) == expected
    problem = run.problem("http-status")
    assert (problem.url, problem.message) == (children[7], "HTTP 500 Internal Server Error")
    assert len(run.problems) == 1
    statuses = [run.report(c).status for c in children]
    assert statuses.count(Status.OK) == 19
    assert statuses[7] is Status.FAILED
    assert run.report(s.a("/index.xml")).status is Status.OK
    assert s.count("/child-7.xml") == FAST.retry.attempts
    assert all(s.count(f"/child-{i}.xml") == 1 for i in range(20) if i != 7)


async def test_soft_404_sitemap_is_a_problem_not_a_crash(aiohttp_server: AiohttpServer) -> None:
    """An HTML page served with 200 where a sitemap was named yields no URLs and one problem."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/soft.xml"), s.a("/good.xml"))))
    s.add("/soft.xml", html())
    s.add("/good.xml", xml(urlset(s.a("/p"))))

    run = await walk(s.a("/index.xml"))

    assert run.locs == [s.a("/p")]
    problem = run.problem("html")
    assert problem.url == s.a("/soft.xml")
    report = run.report(s.a("/soft.xml"))
    assert (report.status, report.format, report.entries) == (Status.FAILED, Format.HTML, 0)


async def test_empty_and_junk_documents_are_reported(aiohttp_server: AiohttpServer) -> None:
    """An empty body and XML with a foreign root fail with problems that name their URLs."""
    s = await serve(aiohttp_server)
    s.add("/empty.xml", xml(b""))
    s.add("/other.xml", xml("<?xml version='1.0'?><config><a>1</a></config>"))

    run = await walk(s.a("/empty.xml"), s.a("/other.xml"))

    assert run.entries == []
    assert {p.url: p.kind for p in run.problems} == {
        s.a("/empty.xml"): "empty",
        s.a("/other.xml"): "unknown-format",
    }
    assert {r.status for r in run.reports} == {Status.FAILED}


# -- budgets ---------------------------------------------------------------------------------------


async def test_max_sitemaps_budget(aiohttp_server: AiohttpServer) -> None:
    """Past ``max_sitemaps`` documents the rest are neither queued nor requested; one
    problem names the budget and the first document left out."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(*(s.a(f"/c{i}.xml") for i in range(5)))))
    for i in range(5):
        s.add(f"/c{i}.xml", xml(urlset(s.a(f"/p{i}"))))
    config = dataclasses.replace(FAST, limits=Limits(max_sitemaps=3, max_concurrency=1))

    run = await walk(s.a("/index.xml"), config=config)

    assert run.locs == [s.a("/p0"), s.a("/p1")]
    assert s.site.paths() == ["/index.xml", "/c0.xml", "/c1.xml"]
    assert run.kinds == ["max-sitemaps"]
    problem = run.problem("max-sitemaps")
    assert problem.url == s.a("/c2.xml")
    assert "budget of 3 sitemaps is spent" in problem.message
    read = [r.url for r in run.reports if r.status is not Status.SKIPPED]
    assert read == [s.a("/index.xml"), s.a("/c0.xml"), s.a("/c1.xml")]
    # The children left unread are reported skipped, as the index names them.
    skipped = [r for r in run.reports if r.status is Status.SKIPPED]
    assert [(r.url, r.source) for r in skipped] == [
        (s.a(f"/c{i}.xml"), s.a("/index.xml")) for i in (2, 3, 4)
    ]


async def test_deadline_bounds_the_run(aiohttp_server: AiohttpServer) -> None:
    """A run deadline ends a hanging fetch and skips what is left, with problems saying so."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/hang.xml"), s.a("/later.xml"))))
    s.add("/hang.xml", hang(5.0, xml(urlset(s.a("/p")))))
    s.add("/later.xml", xml(urlset(s.a("/q"))))
    config = dataclasses.replace(
        FAST,
        limits=Limits(max_concurrency=1),
        timeouts=Timeouts(connect=2.0, read=10.0, request=10.0, deadline=0.4),
    )

    run, unawaited = await checked_walk(s.a("/index.xml"), config)

    assert run.entries == []  # the hanging fetch ended before its answer (5 s) came
    assert s.count("/later.xml") == 0
    assert run.report(s.a("/hang.xml")).status is Status.FAILED
    later = run.report(s.a("/later.xml"))
    assert later.status is Status.SKIPPED
    assert later.problems[0].kind == "deadline"
    # a request refused for the deadline must not leave its coroutine unawaited
    assert unawaited == []


async def test_children_queued_for_a_connection_do_not_time_out(
    aiohttp_server: AiohttpServer,
) -> None:
    """Twelve slow children through two connections per host: waiting for our own connection
    slot is not a connect timeout, so every child is read."""
    served = await serve(aiohttp_server)
    children = [f"/c{i}.xml" for i in range(12)]
    served.add("/index.xml", xml(sitemapindex(*(served.a(path) for path in children))))
    for i, path in enumerate(children):
        served.add(path, slow(xml(urlset(served.a(f"/p{i}"))), 0.15))
    config = dataclasses.replace(
        FAST,
        limits=Limits(per_host=2, max_concurrency=16),
        timeouts=Timeouts(connect=0.2, read=1.0, request=5.0),
    )
    run = await walk(served.a("/index.xml"), config=config)
    assert sorted(run.locs) == sorted(served.a(f"/p{i}") for i in range(12))
    assert run.problems == []
    assert all(served.count(path) == 1 for path in children)


async def test_body_cut_by_a_clean_close_keeps_what_was_buffered(
    aiohttp_server: AiohttpServer,
) -> None:
    """Content-Length promises more than comes, then the server closes: a short body arrives
    with the close, and aiohttp raises before handing it over. The bytes it had are still
    parsed, and the entries before the cut delivered (on the last attempt)."""
    s = await serve(aiohttp_server)
    body = urlset(*pages(s, 50)).encode()

    async def truncated(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/xml"})
        response.content_length = len(body)
        await response.prepare(request)
        await response.write(body[: len(body) * 3 // 4])
        assert request.transport is not None
        request.transport.close()
        return response

    s.add("/sitemap.xml", truncated)
    config = dataclasses.replace(FAST, retry=RetryPolicy(attempts=1))

    run = await walk(s.a("/sitemap.xml"), config=config)

    report = run.report(s.a("/sitemap.xml"))
    assert report.status is Status.PARTIAL
    assert report.bytes == len(body) * 3 // 4
    assert 30 < len(run.locs) < 50
    assert run.locs == pages(s, 50)[: len(run.locs)]
    problem = run.problem("network")
    assert problem.fatal
    assert f"after {len(body) * 3 // 4:,} bytes of the body" in problem.message
