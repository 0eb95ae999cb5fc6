"""The exception tree is honest: every exception class the package exports is raised by a
real run (a problem met over the loopback server or on disk, given to raise_for_problem,
or a state file refused), and every exception class defined in the package is exported or
caught inside it."""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from pytest_aiohttp.plugin import AiohttpServer

import sitemap_reader
from sitemap_reader import (
    AddressRefused,
    ContentEncodingError,
    FetchError,
    HTTPStatusError,
    LimitExceeded,
    Limits,
    ParseError,
    Problem,
    RedirectError,
    ScopePolicy,
    SitemapReader,
    SitemapReaderError,
    SqliteStateStore,
    StateError,
    StateLocked,
    TransportError,
    UnsafeXMLError,
    WorkerLost,
    raise_for_problem,
)
from sitemap_reader._io._walk import _pool
from tests.support.hostile import entity_attack
from tests.support.http_site import (
    FAST,
    Served,
    closed_port,
    redirect,
    serve,
    sitemapindex,
    status,
    urlset,
    walk,
    xml,
)

PACKAGE = Path(sitemap_reader.__file__).parent
Trigger = Callable[[Served, Path, pytest.MonkeyPatch], Awaitable[Problem | None]]


async def _one_problem(*sources: str, kind: str, config: Any = FAST) -> Problem:
    run = await walk(*sources, config=config)
    return run.problem(kind)


async def not_well_formed(s: Served, tmp: Path, mp: pytest.MonkeyPatch) -> Problem:
    s.add("/s.xml", xml(urlset(s.a("/p")).replace("</url>", "</uri>")))
    return await _one_problem(s.a("/s.xml"), kind="not-well-formed")


async def unsafe_xml(s: Served, tmp: Path, mp: pytest.MonkeyPatch) -> Problem:
    s.add("/s.xml", xml(entity_attack("billion-laughs", tmp / "secret")))
    return await _one_problem(s.a("/s.xml"), kind="unsafe-xml")


async def too_large(s: Served, tmp: Path, mp: pytest.MonkeyPatch) -> Problem:
    s.add("/s.xml", xml(urlset(*(s.a(f"/p{i}") for i in range(200)))))
    config = dataclasses.replace(FAST, limits=Limits(max_bytes=1_000))
    return await _one_problem(s.a("/s.xml"), kind="too-large", config=config)


async def unreadable(s: Served, tmp: Path, mp: pytest.MonkeyPatch) -> Problem:
    return await _one_problem(str(tmp), kind="unreadable")  # a directory is no file to read


async def redirect_loop(s: Served, tmp: Path, mp: pytest.MonkeyPatch) -> Problem:
    s.add("/s.xml", redirect(s.a("/s.xml")))
    return await _one_problem(s.a("/s.xml"), kind="redirect")


async def not_found(s: Served, tmp: Path, mp: pytest.MonkeyPatch) -> Problem:
    s.add("/s.xml", status(404))
    return await _one_problem(s.a("/s.xml"), kind="http-status")


async def refused_connection(s: Served, tmp: Path, mp: pytest.MonkeyPatch) -> Problem:
    return await _one_problem(f"http://127.0.0.1:{closed_port()}/s.xml", kind="network")


async def unknown_coding(s: Served, tmp: Path, mp: pytest.MonkeyPatch) -> Problem:
    async def handle(request: web.Request) -> web.StreamResponse:
        body = urlset(s.a("/p")).encode()
        return web.Response(body=body, headers={"Content-Encoding": "x-custom"})

    s.add("/s.xml", handle)
    return await _one_problem(s.a("/s.xml"), kind="content-encoding")


async def private_address(s: Served, tmp: Path, mp: pytest.MonkeyPatch) -> Problem:
    s.add("/index.xml", xml(sitemapindex(s.b("/evil.xml"))))
    # Scope off, so that the guard, not the scope, is what keeps the index from localhost.
    guarded = dataclasses.replace(FAST, scope=ScopePolicy.OFF, allow_private=False)
    return await _one_problem(s.a("/index.xml"), kind="private-address", config=guarded)


async def worker_killed(s: Served, tmp: Path, mp: pytest.MonkeyPatch) -> Problem:
    """The parse worker is killed as soon as it starts: the child it was given is lost."""
    real_start = _pool._Worker._start

    async def start_and_kill(worker: Any) -> None:
        await real_start(worker)
        worker._process.kill()
        await worker._process.wait()

    mp.setattr(_pool._Worker, "_start", start_and_kill)
    s.add("/index.xml", xml(sitemapindex(s.a("/child.xml"))))
    s.add("/child.xml", xml(urlset(*(s.a(f"/p{i}") for i in range(100)))))
    config = dataclasses.replace(FAST, workers=1)
    return await _one_problem(s.a("/index.xml"), kind="worker-lost", config=config)


async def no_sitemap(s: Served, tmp: Path, mp: pytest.MonkeyPatch) -> Problem:
    robots = tmp / "robots.txt"
    robots.write_text("User-agent: *\nDisallow: /private/\n")
    return await _one_problem(str(robots), kind="no-sitemap")


async def bad_state_file(s: Served, tmp: Path, mp: pytest.MonkeyPatch) -> None:
    state = tmp / "state.sqlite"
    state.write_bytes(b"not a database, only words" * 100)
    await asyncio.to_thread(SqliteStateStore, state)  # raises


async def state_locked(s: Served, tmp: Path, mp: pytest.MonkeyPatch) -> None:
    state = tmp / "state.sqlite"
    # The second raises: the first holds the file.
    async with SitemapReader(FAST, state=state), SitemapReader(FAST, state=state):
        pass


# Each exported exception class, and a real run that raises it.
TRIGGERS: dict[type[SitemapReaderError], Trigger] = {
    ParseError: not_well_formed,
    UnsafeXMLError: unsafe_xml,
    LimitExceeded: too_large,
    FetchError: unreadable,
    RedirectError: redirect_loop,
    HTTPStatusError: not_found,
    TransportError: refused_connection,
    ContentEncodingError: unknown_coding,
    AddressRefused: private_address,
    WorkerLost: worker_killed,
    SitemapReaderError: no_sitemap,
    StateError: bad_state_file,
    StateLocked: state_locked,
}


@pytest.mark.parametrize("cls", TRIGGERS, ids=lambda c: c.__name__)
async def test_each_exported_exception_is_raised_for_real(
    cls: type[SitemapReaderError],
    aiohttp_server: AiohttpServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = await serve(aiohttp_server)
    problem: Problem | None = None
    with pytest.raises(SitemapReaderError) as caught:
        problem = await TRIGGERS[cls](s, tmp_path, monkeypatch)
        assert problem is not None
        raise_for_problem(problem)
    error = caught.value
    assert type(error) is cls
    if isinstance(error, StateError):  # raised to the caller as it is, no problem between
        assert error.path == str(tmp_path / "state.sqlite")
        return
    assert problem is not None
    assert (error.kind, error.url, str(error)) == (problem.kind, problem.url, problem.message)
    if isinstance(error, HTTPStatusError):
        assert error.status == 404 and not error.retryable
    if isinstance(error, AddressRefused):
        assert (error.host, error.address) == ("localhost", "127.0.0.1")


def _defined_exceptions() -> set[type[BaseException]]:
    """Every exception class defined in the package's modules (entry points left out)."""
    found: set[type[BaseException]] = set()
    for info in pkgutil.walk_packages([str(PACKAGE)], "sitemap_reader."):
        if info.name.endswith("__main__"):
            continue  # importing one runs the command line
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__.startswith("sitemap_reader"):
                found.add(obj)
    return found


def _caught_names() -> set[str]:
    """The names the package's source catches: in an ``except`` clause, or told apart by
    ``isinstance`` from what one caught (aiohttp wraps the guard's refusal)."""
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            caught: ast.expr | None = None
            if isinstance(node, ast.ExceptHandler):
                caught = node.type
            elif isinstance(node, ast.Call) and ast.unparse(node.func) == "isinstance":
                caught = node.args[1]
            if caught is not None:
                for part in ast.walk(caught):
                    if isinstance(part, ast.Name):
                        names.add(part.id)
                    elif isinstance(part, ast.Attribute):
                        names.add(part.attr)
    return names


def test_every_exception_class_is_exported_or_caught_inside() -> None:
    exported = {
        obj
        for name in sitemap_reader.__all__
        if inspect.isclass(obj := getattr(sitemap_reader, name)) and issubclass(obj, BaseException)
    }
    assert exported == set(TRIGGERS)  # a new public exception needs a real trigger above
    inside = _defined_exceptions() - exported
    assert inside, "the private exceptions were not found: the walk above is broken"
    caught = _caught_names()
    assert sorted(c.__name__ for c in inside if c.__name__ not in caught) == []
