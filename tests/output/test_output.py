"""The command line's hand-written JSON lines equal json.dumps of entry_to_dict."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from sitemap_reader import Alternate, ChangeFreq, Entry, Image, News, Video, entry_to_dict
from sitemap_reader._output._lines import json_line
from tests.support.helpers import CORPUS, needs_corpus, parse

_text = st.text(min_size=1, max_size=30)
_images = st.lists(
    st.builds(Image, _text, st.none() | _text, st.none() | _text, st.none(), st.none()),
    max_size=3,
).map(tuple)
_dates = st.none() | st.datetimes(
    min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1)
).map(lambda d: d.replace(tzinfo=timezone(timedelta(hours=d.hour % 5))))


@given(
    loc=_text,
    lastmod=_dates,
    changefreq=st.none() | st.sampled_from(list(ChangeFreq)),
    priority=st.none() | st.floats(min_value=0.0, max_value=1.0),
    images=_images,
    alternates=st.lists(st.builds(Alternate, st.none() | _text, _text), max_size=2).map(tuple),
    news=st.lists(st.builds(News, title=_text), max_size=1).map(tuple),
)
def test_json_line_is_json_dumps_of_entry_to_dict(
    loc: str,
    lastmod: datetime | None,
    changefreq: ChangeFreq | None,
    priority: float | None,
    images: tuple[Image, ...],
    alternates: tuple[Alternate, ...],
    news: tuple[News, ...],
) -> None:
    """Every entry shape is written exactly as the documented JSON object, one per line."""
    entry = Entry(
        loc,
        lastmod,
        changefreq,
        priority,
        "https://example.com/s.xml",
        images,
        (),
        news,
        alternates,
    )
    line = json_line(entry)
    assert line.endswith("\n") and "\n" not in line[:-1]
    assert line == json.dumps(entry_to_dict(entry), ensure_ascii=False) + "\n"
    assert json.loads(line)["loc"] == loc


_floats = st.none() | st.floats(allow_nan=True, allow_infinity=True)


@given(
    video=st.builds(
        Video,
        thumbnail_loc=st.none() | _text,
        title=st.none() | _text,
        description=st.none() | _text,
        duration=st.none() | st.integers(min_value=0, max_value=10**9),
        expiration_date=_dates,
        rating=_floats,
        view_count=st.none() | st.integers(min_value=0),
        publication_date=_dates,
        family_friendly=st.none() | st.booleans(),
        live=st.none() | st.booleans(),
        tags=st.lists(_text, max_size=3).map(tuple),
    ),
    news=st.builds(
        News,
        publication_name=st.none() | _text,
        publication_language=st.none() | _text,
        publication_date=_dates,
        title=st.none() | _text,
        keywords=st.none() | _text,
    ),
    image=st.builds(Image, _text, st.none() | _text, st.none() | _text, st.none() | _text),
    alternate=st.builds(Alternate, st.none() | _text, _text, st.none() | _text),
    priority=_floats,
)
def test_json_line_writes_every_extension_field(
    video: Video, news: News, image: Image, alternate: Alternate, priority: float | None
) -> None:
    """Videos and news with every field type (dates, numbers, booleans, tags), images and
    alternates with every field: still json.dumps of entry_to_dict, byte for byte."""
    entry = Entry("https://e.com/\u00e9", None, None, priority, "s", (image,), (video,), (news,))
    entry = replace(entry, alternates=(alternate,))
    assert json_line(entry) == json.dumps(entry_to_dict(entry), ensure_ascii=False) + "\n"


@needs_corpus
def test_json_line_equals_json_dumps_on_every_corpus_entry() -> None:
    """Every entry of the real corpus, whatever its shape, is written as json.dumps writes
    it; the corpus holds every shape (so the fast writer's every branch is compared)."""
    shapes = dict.fromkeys(("images", "videos", "news", "alternates", "unicode", "escape"), 0)
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or path.name in ("MANIFEST.tsv", "README.md"):
            continue
        for event in parse(path.read_bytes()):
            if type(event) is not Entry:
                continue
            line = json.dumps(entry_to_dict(event), ensure_ascii=False) + "\n"
            assert json_line(event) == line, path.name
            for name in ("images", "videos", "news", "alternates"):
                shapes[name] += bool(getattr(event, name))
            shapes["unicode"] += not line.isascii()
            shapes["escape"] += "\\" in line  # a quote, backslash or control character
    assert all(shapes.values()), shapes


def test_one_instant_in_two_offsets_keeps_each_offset() -> None:
    """Aware datetimes compare by instant: a cache keyed by them alone wrote the first
    offset seen for every later spelling of the same instant."""
    paris = datetime(2024, 5, 1, 10, 0, tzinfo=timezone(timedelta(hours=1)))
    utc = datetime(2024, 5, 1, 9, 0, tzinfo=timezone.utc)
    assert paris == utc
    for lastmod in (paris, utc):
        entry = Entry("https://example.com/a", lastmod, sitemap="https://example.com/s.xml")
        assert json.loads(json_line(entry))["lastmod"] == lastmod.isoformat()
