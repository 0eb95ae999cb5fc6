"""The interface between the cores (``_core/_xml/_interface.py``, ``src/pyface.rs``): a build
of the extension whose numbers or record fields differ from the package's fails at import,
naming what differs; the compiled core reads its configuration once, by name, and of a
``Document`` only what ``ScannedDocument`` declares."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

import pytest

from sitemap_reader import Entry, Limits
from sitemap_reader._base._models import Alternate, Image, News, Video
from sitemap_reader._core._doc import Document
from sitemap_reader._core._xml import _core_choice
from sitemap_reader._core._xml._document import XmlHandler
from sitemap_reader._core._xml._interface import (
    DOCUMENT_READS,
    INTERFACE,
    LIMITS_READS,
    Interface,
)
from tests.support.compiled import needs_compiled
from tests.support.helpers import IMAGE_NS, NEWS_NS, SITEMAP_NS, VIDEO_NS, XHTML_NS, cut_at

pytestmark = needs_compiled

if _core_choice.COMPILED:
    from sitemap_reader import _native

# -- a build that differs fails at import ----------------------------------------------------

# Loads the extension by its file, changes what it exports, then imports the package: as a
# build of the extension from another commit would be met.
_CHILD = """
import importlib.machinery, importlib.util, sys
path = sys.argv[1]
loader = importlib.machinery.ExtensionFileLoader("sitemap_reader._native", path)
spec = importlib.util.spec_from_file_location("sitemap_reader._native", path, loader=loader)
native = importlib.util.module_from_spec(spec)
loader.exec_module(native)
exec(sys.argv[2])
sys.modules["sitemap_reader._native"] = native
import sitemap_reader
print(sitemap_reader.SitemapParser)
"""


def _import_with(change: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SITEMAP_READER_PURE"}
    return subprocess.run(
        [sys.executable, "-c", _CHILD, str(_native.__file__), change],
        capture_output=True,
        check=False,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (
            'native.KINDS = {**native.KINDS, "image": 2}',
            "the element kind 'image' is 2 there, 1 in _extensions",
        ),
        (
            'native.KINDS = {**native.KINDS, "svg": 7}',
            "it knows the element kind 'svg' (7), which the package does not",
        ),
        (
            'native.SLOTS = {**native.SLOTS, "news": 3}',
            "the extension slot 'news' is 3 there, 2 in _extensions' slots",
        ),
        (
            # (a field the dataclass has that the compiled core does not set)
            'native.RECORDS = {**native.RECORDS, "Video": native.RECORDS["Video"][:-1]}',
            (
                "it builds Video with the fields thumbnail_loc, title, description, content_loc, "
                "player_loc, duration, expiration_date, rating, view_count, publication_date, "
                "family_friendly, requires_subscription, live, uploader, category; the dataclass "
                "has thumbnail_loc, "
            ),
        ),
        (
            'native.CHANGEFREQS = native.CHANGEFREQS[:-1] + ("fortnightly",)',
            (
                "its changefreq words are always, hourly, daily, weekly, monthly, yearly, "
                "fortnightly; ChangeFreq has others"
            ),
        ),
    ],
    ids=["kind", "unknown-kind", "slot", "record-field", "changefreq"],
)
def test_a_build_that_differs_fails_at_import_naming_what(change: str, said: str) -> None:
    done = _import_with(change)
    assert done.returncode != 0, done.stdout
    assert "ImportError: sitemap_reader._native does not match this package: " + said in (
        done.stderr
    ), done.stderr[-3000:]
    assert "SITEMAP_READER_PURE=1" in done.stderr


def test_the_same_build_imports() -> None:
    """(the child above, changing nothing: the failures are the changes')"""
    done = _import_with("pass")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "SitemapParser" in done.stdout


@dataclass(frozen=True, slots=True)
class _LongerImage:
    """An ``Image`` with one field more, which the compiled core would leave unset."""

    loc: str
    caption: str | None = None
    title: str | None = None
    geo_location: str | None = None
    license: str | None = None
    width: int | None = None


def test_a_record_class_of_other_fields_is_refused_by_the_compiled_core() -> None:
    """The compiled core checks the classes it is given too, whoever gives them: and the
    package turns its refusal into the ImportError."""
    fields = "loc, caption, title, geo_location, license"
    said = f"has the fields {fields}, width; the compiled core sets {fields}"
    with pytest.raises(TypeError, match=re.escape(said) + "$"):
        _native.Interface(INTERFACE._replace(image=_LongerImage))  # type: ignore[arg-type]

    class Refusing:
        def __getattr__(self, name: str) -> Any:
            return getattr(_native, name)

        @staticmethod
        def Interface(config: Interface) -> Any:
            return _native.Interface(config._replace(image=_LongerImage))  # type: ignore[arg-type]

    with pytest.raises(ImportError, match="does not match this package: .*" + re.escape(said)):
        _core_choice._interface(Refusing())  # type: ignore[arg-type]


def test_the_records_fields_are_the_dataclasses() -> None:
    for cls in (Entry, Image, Alternate, Video, News):
        assert _native.RECORDS[cls.__name__] == tuple(f.name for f in dataclasses.fields(cls))


# -- what the compiled core reads --------------------------------------------------------------

_TRACING = [False]


@contextmanager
def _tracing(on: bool) -> Iterator[None]:
    before, _TRACING[0] = _TRACING[0], on
    try:
        yield
    finally:
        _TRACING[0] = before


def _while(on: bool, function: Callable[..., Any]) -> Callable[..., Any]:
    def traced(*args: Any, **kwargs: Any) -> Any:
        with _tracing(on):
            return function(*args, **kwargs)

    return traced


class _Traced:
    """Notes the names of the attributes read while the tracing is on."""

    read: ClassVar[set[str]]

    def __getattribute__(self, name: str) -> Any:
        if _TRACING[0]:
            type(self).read.add(name)
        return super().__getattribute__(name)


class _TracedLimits(_Traced, Limits):
    read: ClassVar[set[str]] = set()


class _TracedDocument(_Traced, Document):
    read: ClassVar[set[str]] = set()

    def __setattr__(self, name: str, value: Any) -> None:
        if _TRACING[0]:
            _TracedDocument.read.add(name)
        super().__setattr__(name, value)

    def fail(self, *args: Any, **kwargs: Any) -> None:
        with _tracing(False):  # (what the method reads is Python's)
            super().fail(*args, **kwargs)


class _Config(Interface):
    """Counts the reads of its fields (by the compiled core: nothing else reads it)."""

    def __getattribute__(self, name: str) -> Any:
        _CONFIG_READS.append(name)
        return super().__getattribute__(name)


_CONFIG_READS: list[str] = []


def _traced_interface() -> Any:
    """The package's interface, its Python functions run with the tracing off (what they
    read is Python's, not the compiled core's)."""
    fields = INTERFACE._asdict()
    for name in ("emit_entry", "emit_ref", "build_image", "alternate_of"):
        fields[name] = _while(False, fields[name])
    fields["containers"] = {
        key: c._replace(build=_while(False, c.build)) for key, c in INTERFACE.containers.items()
    }
    config = _Config(**fields)
    _CONFIG_READS.clear()
    return _native.Interface(config)


def _read(data: bytes, doc: Document, pieces: int, *, interface: Any, panic: bool) -> None:
    """``data`` read by the XML reader, the compiled core's calls traced."""

    class Scanner:
        def __init__(self, doc: Document, **kw: Any) -> None:
            kw["read"], kw["settled"] = _while(False, kw["read"]), _while(False, kw["settled"])
            lines = doc.lines
            with _tracing(True):
                self.scanner = _native.BlockScanner(
                    doc, interface=interface, lines=lines, panic_for_tests=panic, **kw
                )

        def feed(self, data: bytes) -> bytes | None:
            with _tracing(True):
                return self.scanner.feed(data)  # type: ignore[no-any-return]

        def finish(self) -> bytes:
            with _tracing(True):
                return self.scanner.finish()  # type: ignore[no-any-return]

    original = _core_choice.new_scanner
    _core_choice.new_scanner = Scanner
    try:
        handler = XmlHandler(doc)
        for piece in cut_at(data, range(0, len(data), max(1, len(data) // pieces))):
            handler.feed(piece)
        handler.close()
        handler.end()
    finally:
        _core_choice.new_scanner = original


_URLSET = (
    f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}" '
    f'xmlns:image="{IMAGE_NS}" xmlns:video="{VIDEO_NS}" xmlns:news="{NEWS_NS}" '
    f'xmlns:xhtml="{XHTML_NS}">\n'
    # built by the compiled core: plain values, an image, an alternate, a video, a news
    "<url><loc>https://example.com/a</loc><lastmod>2024-05-01T10:00:00+02:00</lastmod>"
    "<changefreq>daily</changefreq><priority>0.5</priority>"
    "<image:image><image:loc>https://example.com/a.jpg</image:loc></image:image>"
    '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/>'
    "<video:video><video:title>T</video:title><video:duration>60</video:duration></video:video>"
    "<news:news><news:publication_date>2024-05-01</news:publication_date></news:news></url>\n"
    # judged by Python: a bad lastmod, an image without loc, a relative alternate, a bad
    # video duration, a bad news date
    "<url><loc>https://example.com/b</loc><lastmod>soon</lastmod>"
    "<image:image><image:title>no loc</image:title></image:image>"
    '<xhtml:link rel="alternate" hreflang="fr" href="/fr"/>'
    "<video:video><video:duration>long</video:duration></video:video>"
    "<news:news><news:publication_date>then</news:publication_date></news:news></url>\n"
    "<url><loc>https://example.com/c</loc><priority>high</priority></url>\n"
    # read by expat: a comment inside a record
    "<url><!-- odd --><loc>https://example.com/d</loc></url>\n"
    + "".join(f"<url><loc>https://example.com/{i}</loc></url>\n" for i in range(6))
    + "</urlset>\n"
).encode()
_INDEX = (
    f'<sitemapindex xmlns="{SITEMAP_NS}">\n'
    "<sitemap><loc>https://example.com/s1.xml</loc><lastmod>2024-05-01</lastmod></sitemap>\n"
    "<sitemap><loc>https://example.com/s2.xml</loc><lastmod>now</lastmod></sitemap>\n"
    "</sitemapindex>\n"
).encode()


def test_the_compiled_core_reads_the_declared_document_attributes_only() -> None:
    """Every path of the scanner (records built, judged by Python, odd blocks, an index,
    the runs of ``lines``, limits that cut, a caught panic) reads of the ``Document`` and
    its ``Limits`` exactly what ``ScannedDocument`` declares: one more read in Rust fails
    here, as does a name left declared that nothing reads."""
    _TracedDocument.read.clear()
    _TracedLimits.read.clear()
    interface = _traced_interface()
    runs = [
        (_URLSET, Limits(), False, False),
        (_URLSET, Limits(), True, False),  # lines: Entries runs
        (_URLSET, Limits(max_urls=3, cut_at_max_urls=True), False, False),
        (_URLSET, Limits(max_loc_length=24), True, False),
        (_INDEX, Limits(), False, False),
        (_URLSET, Limits(), False, True),  # a caught panic: doc.fail
    ]
    for data, limits, lines, panic in runs:
        traced = _TracedLimits(
            **{f.name: getattr(limits, f.name) for f in dataclasses.fields(limits)}
        )
        for pieces in (1, 7):
            doc = _TracedDocument("https://example.com/s.xml", traced, False)
            doc.lines = lines
            _read(data, doc, pieces, interface=interface, panic=panic)
            assert doc.out or (panic and doc.fatal is not None)  # (each read did its work)
    assert _TracedDocument.read == DOCUMENT_READS
    assert _TracedLimits.read == LIMITS_READS


def test_the_interface_is_read_once_by_name() -> None:
    """The compiled core reads each field of ``Interface`` once, by name, when the
    ``_native.Interface`` is made (the containers' own fields aside), and never again
    while documents are read with it."""
    interface = _traced_interface()
    made = list(_CONFIG_READS)
    declared = list(Interface._fields)
    assert sorted(set(made)) == sorted(declared)
    assert len(made) == len(declared)
    doc = Document("https://example.com/s.xml", Limits(), False)
    _read(_URLSET, doc, 3, interface=interface, panic=False)
    assert any(
        isinstance(e, Entry) and e.lastmod == datetime.fromisoformat("2024-05-01T10:00:00+02:00")
        for e in doc.out
    )
    assert made == _CONFIG_READS
