"""Entries as columns: one Arrow schema, batch conversion, a streaming Parquet sink, pandas.

The schema (:func:`entry_schema`) is the one contract of every columnar output: the Parquet
file of ``dump --format parquet``, :func:`entries_to_table`, :func:`entries_to_dataframe`
and ``read_dataframe`` (in ``_frames``); anything that turns entries into frames (a Dask task over one
leaf sitemap) goes through :func:`entries_to_table` so that it cannot drift.

====================  ======================================  ==============================
column                Arrow type                              value
====================  ======================================  ==============================
``loc``               string, not null                        the page URL
``lastmod``           timestamp[us, tz=UTC]                   the instant, converted to UTC
                                                              (the offset written is not
                                                              kept); null when absent
``changefreq``        string                                  ``always`` ... ``never``, null
``priority``          float64                                 as written (no 0.5 default)
``sitemap``           string, not null                        the document it came from
``source``            string                                  the SOURCE it descends from: a
                                                              URL as given, a local file's
                                                              absolute path, ``-`` (a batch's
                                                              ``root``)
``images``            list<struct<loc, caption, title,        one item per ``image:image``;
                      geo_location, license>>                 an empty list when none
``videos``            list<struct<thumbnail_loc, title,       ``duration`` and
                      description, content_loc, player_loc,   ``view_count`` int64,
                      duration, expiration_date, rating,      ``rating`` float64, dates
                      view_count, publication_date,           timestamp[us, tz=UTC], flags
                      family_friendly, requires_subscription, bool, ``tags`` list<string>
                      live, uploader, category, tags>>
``news``              list<struct<publication_name,           ``publication_date``
                      publication_language, publication_date, timestamp[us, tz=UTC]
                      title, keywords, genres>>
``alternates``        list<struct<hreflang, href, media>>     hreflang links
====================  ======================================  ==============================

Struct fields keep the names of the record fields (:class:`Image`, :class:`Video`,
:class:`News`, :class:`Alternate`), so a row reads like ``entry_to_dict`` of its entry, with
empty lists where the JSON object leaves a key out.

pyarrow (and pandas, for frames) are optional: they are imported on first use, and their
absence raises ImportError naming the extra to install. This module imports the records
only, never the reader (aiohttp).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import attrgetter
from types import ModuleType, TracebackType
from typing import IO, TYPE_CHECKING, Any

from .._base._models import Alternate, Entry, Image, News, Video
from .._base._replacement import Replacement

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa
    from typing_extensions import Self

_EXTRA = "pip install 'sitemap-reader[parquet]'"
_EXTRA_PANDAS = "pip install 'sitemap-reader[pandas]'"

# Rows per record batch and per Parquet row group: big enough that Arrow's per-call costs
# vanish, small enough that a row group in flight is a few MB whatever the run's size.
ROW_GROUP_SIZE = 65_536
PENDING_ENTRIES = 8_192  # entries that wait as records before they are converted


def _require(name: str, install: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(
            f"{name} is needed for Parquet, Arrow and pandas output and is not installed: {install}"
        ) from exc


def require_pyarrow() -> Any:
    """pyarrow, imported on first use; ImportError names the extra to install."""
    return _require("pyarrow", _EXTRA)


def _pq() -> Any:
    require_pyarrow()
    return _require("pyarrow.parquet", _EXTRA)


def require_pandas() -> Any:
    """pandas (and pyarrow under it), imported on first use; ImportError names the extra."""
    _require("pyarrow", _EXTRA_PANDAS)
    return _require("pandas", _EXTRA_PANDAS)


# -- the schema --------------------------------------------------------------------------------

# Each annotation a record field may have, as an Arrow type and whether it may be null. The
# schema is derived from the records' dataclass fields through this map, so a field added
# to a record either gets its column or stops entry_schema() with its name (never missed).
_ARROW: dict[str, tuple[Callable[[Any], Any], bool]] = {
    "str": (lambda pa: pa.string(), False),
    "str | None": (lambda pa: pa.string(), True),
    "int | None": (lambda pa: pa.int64(), True),
    "float | None": (lambda pa: pa.float64(), True),
    "bool | None": (lambda pa: pa.bool_(), True),
    "datetime | None": (lambda pa: pa.timestamp("us", tz="UTC"), True),  # aware: to UTC
    "ChangeFreq | None": (lambda pa: pa.string(), True),  # a str enum: its word
    "tuple[str, ...]": (lambda pa: pa.list_(pa.string()), True),  # nullable as first pinned
}
_RECORDS: dict[str, type] = {cls.__name__: cls for cls in (Image, Video, News, Alternate)}
_SOURCE_AFTER = "sitemap"  # the source column is no record field: a batch's root, after this


def _extension(annotation: str) -> type | None:
    """The record of an extension field (``tuple[Image, ...]``), None for another field."""
    inner = annotation.removeprefix("tuple[").removesuffix(", ...]")
    return _RECORDS.get(inner) if inner != annotation else None


_SCALARS = tuple(f.name for f in dataclasses.fields(Entry) if _extension(str(f.type)) is None)
_EXTENSIONS: tuple[tuple[str, type], ...] = tuple(
    (f.name, cls) for f in dataclasses.fields(Entry) if (cls := _extension(str(f.type)))
)


def _field(pa: Any, record: type, field: dataclasses.Field[Any]) -> Any:
    """The Arrow field of one record field, by its annotation."""
    annotation = str(field.type)
    cls = _extension(annotation)
    if cls is not None:
        return pa.field(field.name, pa.list_(pa.struct(_struct_fields(pa, cls))), nullable=False)
    try:
        make, nullable = _ARROW[annotation]
    except KeyError:
        raise TypeError(
            f"{record.__name__}.{field.name}: {annotation} has no Arrow type in the columnar "
            "schema; add it to _output/_table.py's _ARROW"
        ) from None
    return pa.field(field.name, make(pa), nullable=nullable)


def _struct_fields(pa: Any, record: type) -> list[Any]:
    """The Arrow fields of ``record``, one per dataclass field, in the record's order."""
    return [_field(pa, record, f) for f in dataclasses.fields(record)]


@functools.lru_cache(maxsize=1)
def entry_schema() -> pa.Schema:
    """The Arrow schema of entries as columns (the table in this module's docstring).

    Raises:
        ImportError: pyarrow is not installed (the message names the extra).
    """
    pa = require_pyarrow()
    columns = []
    for field in _struct_fields(pa, Entry):
        columns.append(field)
        if field.name == _SOURCE_AFTER:
            columns.append(pa.field("source", pa.string()))
    return pa.schema(columns)


# -- entries -> columns ------------------------------------------------------------------------

_GET = {name: attrgetter(name) for name in (*_SCALARS, *(n for n, _ in _EXTENSIONS))}


def _column(pa: Any, values: list[Any], type: Any) -> Any:
    """An Arrow array of ``values``; repeated values are converted once each.

    Sitemaps repeat a few lastmods and one sitemap URL many times, and converting an aware
    datetime costs about a microsecond, far more than a dict lookup: when at most half the
    values are distinct, the distinct ones are converted and taken by index."""
    distinct = dict.fromkeys(values)
    if len(distinct) * 2 > len(values):
        return pa.array(values, type)
    codes = {value: i for i, value in enumerate(distinct)}
    indices = pa.array(list(map(codes.__getitem__, values)), pa.int32())
    return pa.array(list(distinct), type).take(indices)


def _list_column(pa: Any, entries: Sequence[Entry], name: str, field: Any) -> Any:
    """A list<struct> column from each entry's tuple of extension records."""
    get = _GET[name]
    struct_type = field.type.value_type
    if not any(map(get, entries)):  # the common case: no entry has any
        zeros = pa.py_buffer(bytes(4 * (len(entries) + 1)))
        offsets = pa.Array.from_buffers(pa.int32(), len(entries) + 1, [None, zeros])
        values = pa.array([], struct_type)
    else:
        per_row = list(map(get, entries))
        flat = list(itertools.chain.from_iterable(per_row))
        children = [
            _column(pa, list(map(attrgetter(f.name), flat)), f.type) for f in struct_type.fields
        ]
        values = pa.StructArray.from_arrays(children, fields=list(struct_type.fields))
        lengths = itertools.accumulate(map(len, per_row), initial=0)
        offsets = pa.array(list(lengths), pa.int32())
    return pa.ListArray.from_arrays(offsets, values, type=field.type)


def record_batch(entries: Sequence[Entry], sources: Any) -> Any:
    """One RecordBatch of ``entries``; ``sources`` is the source column (an Arrow array)."""
    pa = require_pyarrow()
    schema = entry_schema()
    # attrgetter over a list is the cheapest way to pull a field out of a slotted record;
    # ChangeFreq is a str enum, which Arrow reads as its value.
    columns = [pa.array(list(map(_GET["loc"], entries)), pa.string())]
    columns += [
        _column(pa, list(map(_GET[name], entries)), schema.field(name).type)
        for name in _SCALARS[1:]
    ]
    columns.append(sources)
    columns += [_list_column(pa, entries, name, schema.field(name)) for name, _ in _EXTENSIONS]
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def source_column(pa: Any, runs: Sequence[tuple[str | None, int]]) -> Any:
    """The source column from ``(source, rows)`` runs."""
    arrays = [
        pa.nulls(n, pa.string()) if source is None else pa.repeat(pa.scalar(source, pa.string()), n)
        for source, n in runs
    ]
    if len(arrays) == 1:
        return arrays[0]
    return pa.concat_arrays(arrays) if arrays else pa.array([], pa.string())


def entries_to_batches(
    entries: Iterable[Entry], *, source: str | None = None, batch_size: int = ROW_GROUP_SIZE
) -> Iterator[pa.RecordBatch]:
    """``entries`` as Arrow record batches of at most ``batch_size`` rows (lazily).

    ``source`` fills the ``source`` column (the SOURCE the entries were read for; null
    when None). Only one batch of entries is held at a time.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, not {batch_size}")
    pa = require_pyarrow()
    iterator = iter(entries)
    while chunk := list(itertools.islice(iterator, batch_size)):
        yield record_batch(chunk, source_column(pa, [(source, len(chunk))]))


def entries_to_table(entries: Iterable[Entry], *, source: str | None = None) -> pa.Table:
    """``entries`` as an Arrow table of :func:`entry_schema` (``source`` as for
    :func:`entries_to_batches`). No entries give an empty table of the same schema."""
    return require_pyarrow().Table.from_batches(
        list(entries_to_batches(entries, source=source)), schema=entry_schema()
    )


def table_to_dataframe(table: pa.Table) -> pd.DataFrame:
    """An Arrow table of :func:`entry_schema` as a pandas DataFrame.

    Every column keeps its Arrow type as a ``pd.ArrowDtype``: nulls stay null (a missing
    priority is ``<NA>``, not NaN), ``lastmod`` is a UTC timestamp with the ``.dt``
    accessor, and the extension columns are lists of structs (``.list`` and ``.struct``
    accessors). ``pd.read_parquet(path, dtype_backend="pyarrow")`` reads a file written by
    :class:`ParquetSink` into the same dtypes.
    """
    pd = require_pandas()
    return table.to_pandas(types_mapper=pd.ArrowDtype)


def entries_to_dataframe(entries: Iterable[Entry], *, source: str | None = None) -> pd.DataFrame:
    """``entries`` as a pandas DataFrame (:func:`table_to_dataframe` of
    :func:`entries_to_table`). With no entries it is the empty frame of the schema, with
    every dtype: the ``meta`` a Dask frame of entries needs."""
    require_pandas()  # before any work: the message should name the pandas extra
    return table_to_dataframe(entries_to_table(entries, source=source))


# -- Parquet -----------------------------------------------------------------------------------


# Columns whose values are mostly distinct (URLs, titles): a Parquet dictionary only costs
# time there before Arrow gives up on it, and on 65,536 locs the file came out 2.4 times
# larger with one. Every other column repeats a few values and is dictionary-encoded.
_DISTINCT = {
    "loc",
    "images.loc",
    "images.caption",
    "images.title",
    "videos.thumbnail_loc",
    "videos.title",
    "videos.description",
    "videos.content_loc",
    "videos.player_loc",
    "news.title",
    "news.keywords",
    "alternates.href",
}


@functools.lru_cache(maxsize=1)
def _dictionary() -> list[str]:
    """The Parquet column paths to dictionary-encode (``use_dictionary``)."""
    is_list = require_pyarrow().types.is_list
    paths = []
    for field in entry_schema():
        if not is_list(field.type):
            if field.name not in _DISTINCT:
                paths.append(field.name)
            continue
        for child in field.type.value_type.fields:
            if f"{field.name}.{child.name}" not in _DISTINCT:
                path = f"{field.name}.list.element.{child.name}"
                paths.append(path + ".list.element" if is_list(child.type) else path)
    return paths


class ParquetSink:
    """Write entries to a Parquet file of :func:`entry_schema`, in row groups, as they come.

        with ParquetSink("entries.parquet") as sink:
            async for batch in reader.walk_batches(*sources):
                sink.write([e for e in batch if type(e) is Entry], source=batch.root)

    Entries are converted a few thousand at a time, and each full row group of
    ``row_group_size`` rows is written, so memory stays flat for any number of rows: at most
    one row group waits, as Arrow columns.

    A path is written whole or not at all: rows go to a temporary file beside it, which
    replaces ``where`` on a clean :meth:`close` and is removed when the ``with`` block raises
    (or on :meth:`abort`). The file gets the permissions of the one it replaces, or those a
    new file gets from the umask. A binary file object is written in place and left open.

    Raises:
        ImportError: pyarrow is not installed (the message names the extra).
        OSError: the path cannot be written (its directory is missing, it is a directory).
    """

    def __init__(
        self,
        where: str | os.PathLike[str] | IO[bytes],
        *,
        row_group_size: int = ROW_GROUP_SIZE,
        compression: str = "zstd",
    ) -> None:
        if row_group_size < 1:
            raise ValueError(f"row_group_size must be positive, not {row_group_size}")
        pq = _pq()
        self.row_group_size = row_group_size
        self.rows = 0  # entries written so far (row groups flushed)
        # Few entries wait as records: converted soon, they cost a fraction of the memory
        # and of the garbage collector's time.
        self._chunk = min(PENDING_ENTRIES, row_group_size)
        self._pending: list[Entry] = []
        self._runs: list[tuple[str | None, int]] = []  # the pending entries' sources
        self._batches: list[Any] = []  # converted, waiting for a full row group
        self._batched = 0
        self._file: Replacement | None = None
        if isinstance(where, (str, os.PathLike)):
            self._file = Replacement(where, suffix=".parquet")
            assert self._file.path is not None
            where = self._file.path
        try:
            self._writer = pq.ParquetWriter(
                where, entry_schema(), compression=compression, use_dictionary=_dictionary()
            )
        except BaseException:
            self._discard()
            raise
        finally:
            # Closed once pyarrow has the path open: a FIFO (Replacement writes one in place)
            # whose writer closed would tell its reader the end had come.
            if self._file is not None:
                os.close(self._file.fd)
        self._closed = False

    def write(self, entries: Iterable[Entry], *, source: str | None = None) -> None:
        """Add ``entries`` (any iterable, consumed a chunk at a time); ``source`` fills their
        ``source`` column (null when None)."""
        if self._closed:
            raise ValueError("write() on a closed ParquetSink")
        iterator = iter(entries)
        while True:
            pending = self._pending
            before = len(pending)
            room = self._chunk - before
            pending.extend(itertools.islice(iterator, room))
            added = len(pending) - before
            if added:
                runs = self._runs
                if runs and runs[-1][0] == source:
                    runs[-1] = (source, runs[-1][1] + added)
                else:
                    runs.append((source, added))
            if added < room:  # the iterable is spent
                return
            self._convert()
            while self._batched >= self.row_group_size:
                self._write_group(self.row_group_size)

    def _convert(self) -> None:
        self._batches.append(
            record_batch(self._pending, source_column(require_pyarrow(), self._runs))
        )
        self._batched += len(self._pending)
        self._pending, self._runs = [], []

    def _write_group(self, rows: int) -> None:
        table = require_pyarrow().Table.from_batches(self._batches, schema=entry_schema())
        self._writer.write_table(table.slice(0, rows), row_group_size=rows)
        rest = table.slice(rows)
        self._batches, self._batched = rest.to_batches(), rest.num_rows
        self.rows += rows

    def close(self) -> None:
        """Write what is pending and finish the file (it then replaces the path given)."""
        if self._closed:
            return
        try:
            if self._pending:
                self._convert()
            if self._batched:
                self._write_group(self._batched)
        except BaseException:
            self.abort()
            raise
        self._closed = True
        try:
            self._writer.close()  # the footer: it too may not fit on the device
            if self._file is not None:
                self._file.commit()
        finally:
            self._discard()

    def abort(self) -> None:
        """Stop without finishing: a path given is left as it was (the rows are dropped)."""
        if self._closed:
            return
        self._closed = True
        self._pending, self._runs, self._batches = [], [], []
        try:
            self._writer.close()
        finally:
            self._discard()

    def _discard(self) -> None:
        if self._file is not None:
            self._file.discard()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()
