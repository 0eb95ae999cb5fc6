"""A real headless Chromium driven over its DevTools protocol (aiohttp's websocket client),
for the report page's test: open a file, record every request and console message, evaluate
an expression, take a screenshot. Chromium listens on 127.0.0.1 only, on a port it picks.

Also a small PNG reader (zlib and the five row filters), so a screenshot's colours can be
counted without an imaging library.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import shutil
import struct
import tempfile
import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
_LISTENING = re.compile(rb"DevTools listening on (ws://127\.0\.0\.1:(\d+)/\S+)")


@dataclass
class PageLoad:
    """What opening one page gave."""

    requests: list[str] = field(default_factory=list)  # every URL the page asked for
    console: list[str] = field(default_factory=list)  # console messages and log entries
    errors: list[str] = field(default_factory=list)  # exceptions thrown by the page
    value: Any = None  # the evaluated expression's result
    screenshot: bytes = b""  # PNG


class _Session:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse[Any]) -> None:
        self._ws = ws
        self._next = 0
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self.loaded = asyncio.Event()

    async def pump(self) -> None:
        async for message in self._ws:
            data = json.loads(message.data)
            if "id" in data:
                self._waiting.pop(data["id"]).set_result(data)
            else:
                self.events.append(data)
                if data.get("method") == "Page.loadEventFired":
                    self.loaded.set()

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._next += 1
        future = asyncio.get_running_loop().create_future()
        self._waiting[self._next] = future
        await self._ws.send_str(json.dumps({"id": self._next, "method": method, "params": params}))
        reply = await asyncio.wait_for(future, 30)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result


@contextlib.asynccontextmanager
async def chromium(width: int = 412, height: int = 900) -> AsyncIterator[str]:
    """Start headless Chromium; yields the DevTools HTTP endpoint (http://127.0.0.1:PORT)."""
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory() as profile:
        process = await asyncio.create_subprocess_exec(
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",  # as on a phone: the page has its whole width
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            # Nothing leaves the machine: no name is resolved (no DNS query), no proxy-less
            # connection is made, and the background services that phone home are off.
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            "--proxy-server=127.0.0.1:9",
            "--proxy-bypass-list=<-loopback>",
            "--disable-features=MediaRouter,OptimizationHints,Translate,AsyncDns",
            "--disable-sync",
            "--disable-domain-reliability",
            "--no-pings",
            "--disable-default-apps",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            "about:blank",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "HOME": profile},
        )
        try:
            assert process.stderr is not None
            port = None
            while port is None:
                line = await asyncio.wait_for(process.stderr.readline(), 30)
                if not line:
                    raise RuntimeError("chromium exited before listening")
                match = _LISTENING.search(line)
                if match:
                    port = int(match[2])
            drain = asyncio.ensure_future(_drain(process.stderr))
            yield f"http://127.0.0.1:{port}"
            drain.cancel()
        finally:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass


async def open_page(
    endpoint: str, url: str, expression: str, *, width: int | None = None, full: bool = False
) -> PageLoad:
    """Open ``url`` in a new tab; record requests and console output until it has loaded;
    evaluate ``expression`` (JSON-able) and take a full-width screenshot (the whole page's
    height if ``full``). ``width`` lays the page out at that many CSS pixels: headless
    Chromium's window is never narrower than 500, a phone's is."""
    out = PageLoad()
    async with aiohttp.ClientSession() as http:
        async with http.put(f"{endpoint}/json/new?about:blank") as response:
            target = await response.json()
        async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            session = _Session(ws)
            pump = asyncio.ensure_future(session.pump())
            try:
                for domain in ("Page", "Network", "Runtime", "Log"):
                    await session.call(f"{domain}.enable")
                if width is not None:
                    await session.call(
                        "Emulation.setDeviceMetricsOverride",
                        width=width,
                        height=900,
                        deviceScaleFactor=1,
                        mobile=False,
                    )
                await session.call("Page.navigate", url=url)
                await asyncio.wait_for(session.loaded.wait(), 30)
                await asyncio.sleep(0.2)  # late requests (none expected) would show here
                result = await session.call(
                    "Runtime.evaluate", expression=expression, returnByValue=True
                )
                out.value = result["result"].get("value")
                shot = await session.call(
                    "Page.captureScreenshot", format="png", captureBeyondViewport=full
                )
                out.screenshot = base64.b64decode(shot["data"])
            finally:
                pump.cancel()
    for event in session.events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Network.requestWillBeSent":
            out.requests.append(params["request"]["url"])
        elif method == "Runtime.consoleAPICalled":
            out.console.append(f"{params['type']}: {params.get('args')}")
        elif method == "Log.entryAdded":
            entry = params["entry"]
            out.console.append(f"{entry['level']}: {entry.get('text')}")
        elif method == "Runtime.exceptionThrown":
            out.errors.append(str(params.get("exceptionDetails")))
    return out


# -- PNG ---------------------------------------------------------------------------------------


def png_colours(data: bytes, limit: int = 1_000) -> set[bytes]:
    """The distinct pixel values of an 8-bit RGB or RGBA PNG (at most ``limit`` of them)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = channels = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        tag, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if tag == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 3 if colour == 2 else 4
        elif tag == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    colours: set[bytes] = set()
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            a = row[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                row[i] = (row[i] + a) & 0xFF
            elif kind == 2:
                row[i] = (row[i] + b) & 0xFF
            elif kind == 3:
                row[i] = (row[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        for x in range(0, stride, channels):
            colours.add(bytes(row[x : x + channels]))
            if len(colours) >= limit:
                return colours
        previous = row
    return colours
