//! `_native.LineWriter`: the command line's jsonl, csv and txt lines written by the crate.
//!
//! Python `Entry` records are read into [`crate::record`] records with the GIL held, then
//! written with it released. Only the values the parser makes are taken, each of its exact
//! type (the classes are passed in: this module imports nothing of the package): a str, a
//! float, an int that fits 64 bits, a bool, a tuple, a `datetime` at a fixed offset of whole
//! seconds, a `ChangeFreq` member. A batch holding anything else (a hand-made record: an int
//! priority, a naive datetime, a str with a lone surrogate) is not written: `write` returns
//! None and the Python writer, which knows what to do with it, writes the batch. Only what a
//! format writes is read (txt: the loc; csv: the scalar fields).

use std::cell::Cell;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt, PyString, PyTuple, PyType};

use crate::guard::caught;
use std::sync::Arc;

use crate::lines::{
    instant, write_entries, write_passing, Disallowed, Format, Gate, Passed, RobotsGate,
};
use crate::py_block::PyEntries;
use crate::pyrobots::{PyByOrigin, PyRobots};
use crate::record::{Alternate, ChangeFreq, DateTime, Entry, Image, News, Video};

#[pyclass(module = "sitemap_reader._native", name = "LineWriter", frozen)]
pub struct PyLineWriter {
    format: Format,
    kinds: Kinds,
}

/// The exact types a batch's values must have.
struct Kinds {
    entry: Py<PyType>,
    image: Py<PyType>,
    video: Py<PyType>,
    news: Py<PyType>,
    alternate: Py<PyType>,
    changefreq: Py<PyType>,
    datetime: Py<PyType>,
    timezone: Py<PyType>,
}

type RecordTypes<'py> = (
    Bound<'py, PyType>,
    Bound<'py, PyType>,
    Bound<'py, PyType>,
    Bound<'py, PyType>,
    Bound<'py, PyType>,
);

#[pymethods]
impl PyLineWriter {
    #[new]
    #[pyo3(signature = (fmt, records, changefreq, *, csv_quote_cr = false))]
    fn new(
        py: Python<'_>,
        fmt: &str,
        records: RecordTypes<'_>,
        changefreq: Bound<'_, PyType>,
        csv_quote_cr: bool,
    ) -> PyResult<Self> {
        let format = Format::from_name(fmt, csv_quote_cr).ok_or_else(|| {
            PyValueError::new_err(format!("no such format {fmt:?}: jsonl, csv or txt"))
        })?;
        let datetime = py.import(intern!(py, "datetime"))?;
        let type_of = |name: &Bound<'_, PyString>| -> PyResult<Py<PyType>> {
            Ok(datetime.getattr(name)?.cast_into::<PyType>()?.unbind())
        };
        let (entry, image, video, news, alternate) = records;
        Ok(Self {
            format,
            kinds: Kinds {
                entry: entry.unbind(),
                image: image.unbind(),
                video: video.unbind(),
                news: news.unbind(),
                alternate: alternate.unbind(),
                changefreq: changefreq.unbind(),
                datetime: type_of(intern!(py, "datetime"))?,
                timezone: type_of(intern!(py, "timezone"))?,
            },
        })
    }

    /// The lines of `entries` (any iterable of `Entry`) as UTF-8, or None when one holds a
    /// value this writer does not take (then the Python writer writes the batch).
    fn write<'py>(
        &self,
        py: Python<'py>,
        entries: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let runs = match Reader::new(py, &self.kinds, Depth::of(self.format)).runs(entries) {
            Ok(runs) => runs,
            Err(Miss::Unfit) => return Ok(None),
            Err(Miss::Python(error)) => return Err(error),
        };
        let format = self.format;
        let written = py.detach(|| {
            caught(|| {
                let mut out = lines_buffer();
                for run in &runs {
                    write_entries(format, &run.entries, &run.sitemap, &mut out);
                }
                out
            })
        });
        match written {
            Ok(out) => Ok(Some(kept_bytes(py, out))),
            Err(error) => Err(PyRuntimeError::new_err(error.message)),
        }
    }

    /// The lines of the entries that pass the checks `dump` makes between the parser and
    /// the writer, made here as a compiled parser would make them on its records: the
    /// scope's fast test (`scope`: the walk's `ScopeFilter`, its `prefixes` read), at most
    /// `room` entries in scope, and `since` (a `Since`: its `when` and `keep_undated`
    /// read; None: off). Returns the lines and (read, in scope, written) counts as
    /// `lines::Passed` says, or None as `write` does. Entries of one document only (they
    /// name one sitemap).
    #[pyo3(signature = (entries, *, scope, since, room = usize::MAX))]
    fn write_passing<'py>(
        &self,
        py: Python<'py>,
        entries: &Bound<'py, PyAny>,
        scope: &Bound<'py, PyAny>,
        since: &Bound<'py, PyAny>,
        room: usize,
    ) -> PyResult<Option<PassedLines<'py>>> {
        // --since reads every lastmod, whatever the format writes.
        let depth = Depth::of(self.format).max(Depth::Scalars);
        let mut reader = Reader::new(py, &self.kinds, depth);
        let gate = gate_of(&mut reader, scope, since)?;
        let runs = match reader.runs(entries) {
            Ok(runs) => runs,
            Err(Miss::Unfit) => return Ok(None),
            Err(Miss::Python(error)) => return Err(error),
        };
        if runs.len() > 1 {
            return Err(PyValueError::new_err(
                "write_passing() takes the entries of one document: these name several sitemaps",
            ));
        }
        let format = self.format;
        let written = py.detach(|| {
            caught(|| {
                let mut out = lines_buffer();
                let passed = match runs.first() {
                    Some(run) => {
                        write_passing(format, &run.entries, &run.sitemap, &gate, room, &mut out)
                    }
                    None => Passed::default(),
                };
                (out, passed)
            })
        });
        match written {
            Ok((out, passed)) => Ok(Some((
                kept_bytes(py, out),
                passed.read,
                passed.in_scope,
                passed.written,
            ))),
            Err(error) => Err(PyRuntimeError::new_err(error.message)),
        }
    }
    /// The lines of a run of compiled records (`Entries`, from `start`) that pass the same
    /// checks as `write_passing`, and robots.txt's (`robots`: a `RobotsGate`, its `rules`,
    /// `prefix` and `obey` read; None: off), with no Python object made. Returns the lines,
    /// where the records judged end (the first the fast scope test does not pass, or that
    /// is not on the rules' origin, or the first past `room`, or the run's end), how many of
    /// those were in scope and written, and with `robots` what it disallowed: for the agent
    /// and for `*`, each a count and the first loc.
    #[pyo3(signature = (run, *, start = 0, scope, since, room = usize::MAX, robots = None))]
    #[allow(clippy::too_many_arguments)]
    fn write_run<'py>(
        &self,
        py: Python<'py>,
        run: &Bound<'py, PyEntries>,
        start: usize,
        scope: &Bound<'py, PyAny>,
        since: &Bound<'py, PyAny>,
        room: usize,
        robots: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<RunLines<'py>> {
        let mut gate = gate_of(
            &mut Reader::new(py, &self.kinds, Depth::Scalars),
            scope,
            since,
        )?;
        gate.robots = robots.map(robots_gate_of).transpose()?;
        let run = run.get();
        let start = start.min(run.records.len());
        let records = &run.records[start..];
        let format = self.format;
        let written = py.detach(|| {
            caught(|| {
                let mut out = lines_buffer();
                let passed = write_passing(format, records, &run.sitemap, &gate, room, &mut out);
                (out, passed)
            })
        });
        let loc = |first: Option<usize>| first.map(|i| records[i].loc.clone());
        match written {
            Ok((out, passed)) => Ok((
                kept_bytes(py, out),
                start.min(run.records.len()) + passed.read,
                passed.in_scope,
                passed.written,
                gate.robots.is_some().then(|| {
                    let Disallowed { agent, anyone } = passed.disallowed;
                    ((agent.0, loc(agent.1)), (anyone.0, loc(anyone.1)))
                }),
            )),
            Err(error) => Err(PyRuntimeError::new_err(error.message)),
        }
    }
}

thread_local! {
    /// The buffer of the last lines written on this thread, kept for its room.
    static ROOM: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// The most room kept between two calls (a run's lines are a chunk's entries: far less).
const ROOM_KEPT: usize = 4 << 20;

/// An empty buffer for lines, with the room the last lines written on this thread took.
/// A buffer grown from nothing by doubling makes a request of 1 KiB or more at each step
/// past it, and glibc consolidates its free lists at each (the parse's strings had just
/// been freed): about 1% of a dump's instructions, more of its time.
fn lines_buffer() -> Vec<u8> {
    let mut out = ROOM.take();
    out.clear();
    out
}

/// The lines as bytes; the buffer is kept for the next lines of this thread.
fn kept_bytes(py: Python<'_>, out: Vec<u8>) -> Bound<'_, PyBytes> {
    let bytes = PyBytes::new(py, &out);
    if out.capacity() <= ROOM_KEPT {
        ROOM.set(out);
    }
    bytes
}

/// The robots.txt part of the gate, read by attribute from the walk's `RobotsGate`:
/// `rules` (a `RobotsRules`), `prefix`, `others` (a `RobotsRulesByOrigin` or None) and
/// `obey`.
fn robots_gate_of(robots: &Bound<'_, PyAny>) -> PyResult<RobotsGate> {
    let py = robots.py();
    let rules = robots.getattr(intern!(py, "rules"))?;
    let rules = rules.cast::<PyRobots>()?;
    let others = robots.getattr(intern!(py, "others"))?;
    let others = if others.is_none() {
        None
    } else {
        Some(Arc::clone(&others.cast::<PyByOrigin>()?.get().rules))
    };
    Ok(RobotsGate {
        rules: Arc::clone(&rules.get().robots),
        prefix: robots.getattr(intern!(py, "prefix"))?.extract()?,
        others,
        obey: robots.getattr(intern!(py, "obey"))?.extract()?,
    })
}

/// The gate of `dump`'s checks, its parameters read by attribute from the Python objects
/// that state them (nothing re-derived here): `scope.prefixes` (the walk's `ScopeFilter`:
/// None when scope is off) and, unless `since` is None, `since.when` (an aware datetime at
/// a fixed offset of whole seconds) and `since.keep_undated` (a `Since`).
fn gate_of<'py>(
    reader: &mut Reader<'_, 'py>,
    scope: &Bound<'py, PyAny>,
    since: &Bound<'py, PyAny>,
) -> PyResult<Gate> {
    let py = reader.py;
    let prefixes: Option<Vec<String>> = scope.getattr(intern!(py, "prefixes"))?.extract()?;
    let since = if since.is_none() {
        None
    } else {
        let when = since.getattr(intern!(py, "when"))?;
        let keep_undated: bool = since.getattr(intern!(py, "keep_undated"))?.extract()?;
        match reader.date(&when) {
            Ok(date) => Some((instant(&date), keep_undated)),
            Err(Miss::Python(error)) => return Err(error),
            Err(Miss::Unfit) => {
                return Err(PyValueError::new_err(
                    "since.when must be an aware datetime at a fixed offset of whole seconds",
                ))
            }
        }
    };
    Ok(Gate {
        scope: prefixes,
        since,
        robots: None,
    })
}

/// The lines `write_passing` wrote, and its counts (read, in scope, written).
type PassedLines<'py> = (Bound<'py, PyBytes>, usize, usize, usize);

/// What robots.txt disallowed for the agent and for `*`: a count and the first loc each.
type RobotsSaid = ((usize, Option<String>), (usize, Option<String>));

/// `write_run`'s answer: `PassedLines`, where the records judged end, and `RobotsSaid`.
type RunLines<'py> = (Bound<'py, PyBytes>, usize, usize, usize, Option<RobotsSaid>);

/// Entries in a row listed by one document.
struct Run {
    sitemap: String,
    entries: Vec<Entry>,
}

/// Why a batch was not read: a value of another type, or an error Python raised.
enum Miss {
    Unfit,
    Python(PyErr),
}

impl From<PyErr> for Miss {
    fn from(error: PyErr) -> Self {
        Miss::Python(error)
    }
}

type Got<T> = Result<T, Miss>;

/// How much of an entry a format writes: what is not written is not read either.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Depth {
    Loc,
    Scalars,
    All,
}

impl Depth {
    fn of(format: Format) -> Depth {
        match format {
            Format::Txt => Depth::Loc,
            Format::Csv { .. } => Depth::Scalars,
            Format::Jsonl => Depth::All,
        }
    }
}

/// Reads Python records into Rust ones, for one call.
struct Reader<'a, 'py> {
    py: Python<'py>,
    kinds: &'a Kinds,
    depth: Depth,
    // The offsets of the fixed timezones met: nearly every date of a run has one or two.
    offsets: Vec<(Bound<'py, PyAny>, i32)>,
}

impl<'a, 'py> Reader<'a, 'py> {
    fn new(py: Python<'py>, kinds: &'a Kinds, depth: Depth) -> Self {
        Self {
            py,
            kinds,
            depth,
            offsets: Vec::new(),
        }
    }

    fn runs(&mut self, entries: &Bound<'py, PyAny>) -> Got<Vec<Run>> {
        let py = self.py;
        let mut runs: Vec<Run> = Vec::new();
        let mut current: Option<Bound<'py, PyAny>> = None; // the last run's sitemap
        for item in entries.try_iter()? {
            let item = item?;
            self.exact(&item, &self.kinds.entry)?;
            if self.depth == Depth::Loc {
                // (txt writes no sitemap: one run, whatever documents the entries name)
                if runs.is_empty() {
                    runs.push(Run {
                        sitemap: String::new(),
                        entries: Vec::new(),
                    });
                }
                let entry = self.entry(&item)?;
                if let Some(run) = runs.first_mut() {
                    run.entries.push(entry);
                }
                continue;
            }
            let sitemap = item.getattr(intern!(py, "sitemap"))?;
            let same = match &current {
                Some(last) => last.is(&sitemap) || last.eq(&sitemap)?,
                None => false,
            };
            if !same {
                runs.push(Run {
                    sitemap: text(&sitemap)?,
                    entries: Vec::new(),
                });
                current = Some(sitemap);
            }
            let entry = self.entry(&item)?;
            if let Some(run) = runs.last_mut() {
                run.entries.push(entry);
            }
        }
        Ok(runs)
    }

    fn exact(&self, value: &Bound<'py, PyAny>, kind: &Py<PyType>) -> Got<()> {
        if value.get_type().is(kind.bind(self.py)) {
            Ok(())
        } else {
            Err(Miss::Unfit)
        }
    }

    fn entry(&mut self, item: &Bound<'py, PyAny>) -> Got<Entry> {
        let py = self.py;
        let loc = text(&item.getattr(intern!(py, "loc"))?)?;
        if self.depth == Depth::Loc {
            return Ok(Entry {
                loc,
                ..Entry::default()
            });
        }
        let lastmod = self.maybe_date(item, intern!(py, "lastmod"))?;
        let changefreq = item.getattr(intern!(py, "changefreq"))?;
        let changefreq = if changefreq.is_none() {
            None
        } else {
            self.exact(&changefreq, &self.kinds.changefreq)?;
            // A str enum: the member's str is its value.
            let word = changefreq.cast::<PyString>().map_err(|_| Miss::Unfit)?;
            Some(ChangeFreq::from_word(word.to_str()?).ok_or(Miss::Unfit)?)
        };
        let priority = maybe(item, intern!(py, "priority"), float)?;
        if self.depth == Depth::Scalars {
            return Ok(Entry {
                loc,
                lastmod,
                changefreq,
                priority,
                ..Entry::default()
            });
        }
        Ok(Entry {
            loc,
            lastmod,
            changefreq,
            priority,
            images: self.records(item, intern!(py, "images"), Self::image)?,
            videos: self.records(item, intern!(py, "videos"), Self::video)?,
            news: self.records(item, intern!(py, "news"), Self::news)?,
            alternates: self.records(item, intern!(py, "alternates"), Self::alternate)?,
        })
    }

    fn records<T>(
        &mut self,
        item: &Bound<'py, PyAny>,
        name: &Bound<'py, PyString>,
        read: fn(&mut Self, &Bound<'py, PyAny>) -> Got<T>,
    ) -> Got<Vec<T>> {
        let records = item.getattr(name)?;
        let records = records.cast_exact::<PyTuple>().map_err(|_| Miss::Unfit)?;
        records.iter().map(|record| read(self, &record)).collect()
    }

    fn image(&mut self, image: &Bound<'py, PyAny>) -> Got<Image> {
        let py = self.py;
        self.exact(image, &self.kinds.image)?;
        Ok(Image {
            loc: text(&image.getattr(intern!(py, "loc"))?)?,
            caption: maybe(image, intern!(py, "caption"), text)?,
            title: maybe(image, intern!(py, "title"), text)?,
            geo_location: maybe(image, intern!(py, "geo_location"), text)?,
            license: maybe(image, intern!(py, "license"), text)?,
        })
    }

    fn video(&mut self, video: &Bound<'py, PyAny>) -> Got<Video> {
        let py = self.py;
        self.exact(video, &self.kinds.video)?;
        let tags = video.getattr(intern!(py, "tags"))?;
        let tags = tags.cast_exact::<PyTuple>().map_err(|_| Miss::Unfit)?;
        Ok(Video {
            thumbnail_loc: maybe(video, intern!(py, "thumbnail_loc"), text)?,
            title: maybe(video, intern!(py, "title"), text)?,
            description: maybe(video, intern!(py, "description"), text)?,
            content_loc: maybe(video, intern!(py, "content_loc"), text)?,
            player_loc: maybe(video, intern!(py, "player_loc"), text)?,
            duration: maybe(video, intern!(py, "duration"), integer)?,
            expiration_date: self.maybe_date(video, intern!(py, "expiration_date"))?,
            rating: maybe(video, intern!(py, "rating"), float)?,
            view_count: maybe(video, intern!(py, "view_count"), integer)?,
            publication_date: self.maybe_date(video, intern!(py, "publication_date"))?,
            family_friendly: maybe(video, intern!(py, "family_friendly"), flag)?,
            requires_subscription: maybe(video, intern!(py, "requires_subscription"), flag)?,
            live: maybe(video, intern!(py, "live"), flag)?,
            uploader: maybe(video, intern!(py, "uploader"), text)?,
            category: maybe(video, intern!(py, "category"), text)?,
            tags: tags.iter().map(|tag| text(&tag)).collect::<Got<_>>()?,
        })
    }

    fn news(&mut self, news: &Bound<'py, PyAny>) -> Got<News> {
        let py = self.py;
        self.exact(news, &self.kinds.news)?;
        Ok(News {
            publication_name: maybe(news, intern!(py, "publication_name"), text)?,
            publication_language: maybe(news, intern!(py, "publication_language"), text)?,
            publication_date: self.maybe_date(news, intern!(py, "publication_date"))?,
            title: maybe(news, intern!(py, "title"), text)?,
            keywords: maybe(news, intern!(py, "keywords"), text)?,
            genres: maybe(news, intern!(py, "genres"), text)?,
        })
    }

    fn alternate(&mut self, alternate: &Bound<'py, PyAny>) -> Got<Alternate> {
        let py = self.py;
        self.exact(alternate, &self.kinds.alternate)?;
        Ok(Alternate {
            hreflang: maybe(alternate, intern!(py, "hreflang"), text)?,
            href: text(&alternate.getattr(intern!(py, "href"))?)?,
            media: maybe(alternate, intern!(py, "media"), text)?,
        })
    }

    fn maybe_date(
        &mut self,
        item: &Bound<'py, PyAny>,
        name: &Bound<'py, PyString>,
    ) -> Got<Option<DateTime>> {
        let value = item.getattr(name)?;
        if value.is_none() {
            return Ok(None);
        }
        self.date(&value).map(Some)
    }

    /// A `datetime` whose tzinfo is a `datetime.timezone` of whole seconds.
    fn date(&mut self, value: &Bound<'py, PyAny>) -> Got<DateTime> {
        let py = self.py;
        self.exact(value, &self.kinds.datetime)?;
        let zone = value.getattr(intern!(py, "tzinfo"))?;
        let offset_seconds = self.offset(zone)?;
        let small =
            |name: &Bound<'py, PyString>| -> Got<u8> { Ok(value.getattr(name)?.extract::<u8>()?) };
        Ok(DateTime {
            year: value.getattr(intern!(py, "year"))?.extract()?,
            month: small(intern!(py, "month"))?,
            day: small(intern!(py, "day"))?,
            hour: small(intern!(py, "hour"))?,
            minute: small(intern!(py, "minute"))?,
            second: small(intern!(py, "second"))?,
            microsecond: value.getattr(intern!(py, "microsecond"))?.extract()?,
            offset_seconds,
            date_alone: false, // (the lines spell the instant alike)
        })
    }

    fn offset(&mut self, zone: Bound<'py, PyAny>) -> Got<i32> {
        if let Some((_, seconds)) = self.offsets.iter().find(|(known, _)| known.is(&zone)) {
            return Ok(*seconds);
        }
        let py = self.py;
        self.exact(&zone, &self.kinds.timezone)?; // (None, a naive datetime, is no timezone)
        let delta = zone.call_method1(intern!(py, "utcoffset"), (py.None(),))?;
        let part = |name: &Bound<'py, PyString>| -> Got<i64> {
            Ok(delta.getattr(name)?.extract::<i64>()?)
        };
        if part(intern!(py, "microseconds"))? != 0 {
            return Err(Miss::Unfit); // isoformat would write them: no record holds them
        }
        let seconds = part(intern!(py, "days"))? * 86_400 + part(intern!(py, "seconds"))?;
        let seconds = i32::try_from(seconds).map_err(|_| Miss::Unfit)?;
        if self.offsets.len() < 16 {
            self.offsets.push((zone, seconds));
        }
        Ok(seconds)
    }
}

/// The attribute `name` of `item`, None when it is None, else read by `read`.
fn maybe<'py, T>(
    item: &Bound<'py, PyAny>,
    name: &Bound<'py, PyString>,
    read: fn(&Bound<'py, PyAny>) -> Got<T>,
) -> Got<Option<T>> {
    let value = item.getattr(name)?;
    if value.is_none() {
        Ok(None)
    } else {
        read(&value).map(Some)
    }
}

/// An exact str; one with a lone surrogate is unfit (the Python writer fails on it as the
/// pure core does).
fn text(value: &Bound<'_, PyAny>) -> Got<String> {
    let value = value.cast_exact::<PyString>().map_err(|_| Miss::Unfit)?;
    value.to_str().map(str::to_owned).map_err(|_| Miss::Unfit)
}

fn float(value: &Bound<'_, PyAny>) -> Got<f64> {
    let value = value.cast_exact::<PyFloat>().map_err(|_| Miss::Unfit)?;
    Ok(value.value())
}

fn integer(value: &Bound<'_, PyAny>) -> Got<i64> {
    let value = value.cast_exact::<PyInt>().map_err(|_| Miss::Unfit)?; // (a bool is no int here)
    value.extract::<i64>().map_err(|_| Miss::Unfit)
}

fn flag(value: &Bound<'_, PyAny>) -> Got<bool> {
    let value = value.cast_exact::<PyBool>().map_err(|_| Miss::Unfit)?;
    Ok(value.is_true())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyLineWriter>()
}
