//! `sitemap_reader._native.BlockScanner`: the compiled fast path of the XML reader, in the
//! place of the Python `_scan.Scanner` (same constructor, `feed` and `finish`).
//!
//! A chunk is scanned and its blocks judged detached from the interpreter (the GIL
//! released) into Rust records; then, attached, they become the package's own records
//! (its classes are passed in: this module imports nothing of the package) and go to the
//! document's output. What only Python or expat may judge goes to them through the
//! callables given: `emit_entry` / `emit_ref` for a block's fields, `read` / `settled`
//! for the bytes of an odd block.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

use crate::block::{BlockScanner, Container, Ext, Fields, Limits, Record, Step};
use crate::guard::caught;
use crate::record::{Alternate, DateTime, Image};

/// Panics caught in any scanner of the process: each one a bug.
static PANICS: AtomicU64 = AtomicU64::new(0);

/// A cache of this many datetimes at most (sitemaps repeat a few dates thousands of times).
const DATES: usize = 4_096;

/// The package's classes and functions the scanner builds with (see `_tokenizer.py`).
struct Types {
    entry: Py<PyAny>,
    sitemap_ref: Py<PyAny>,
    image: Py<PyAny>,
    alternate: Py<PyAny>,
    changefreqs: Vec<Py<PyAny>>,
    datetime: Py<PyAny>,
    timezone: Py<PyAny>,
    timedelta: Py<PyAny>,
    utc: Py<PyAny>,
    emit_entry: Py<PyAny>,
    emit_ref: Py<PyAny>,
    error_kind: Py<PyAny>,
    build_image: Py<PyAny>,
    alternate_of: Py<PyAny>,
    /// Per container Python builds: its fields' names, its builder, its slot among an
    /// entry's extensions (1: videos, 2: news), and which fields keep every value.
    builders: Vec<Builder>,
}

struct Builder {
    names: Vec<String>,
    repeated: Vec<bool>,
    build: Py<PyAny>,
    slot: usize,
}

#[pyclass(module = "sitemap_reader._native", name = "BlockScanner")]
struct PyBlockScanner {
    core: BlockScanner,
    doc: Py<PyAny>,
    url: Py<PyAny>,
    read: Py<PyAny>,
    settled: Py<PyAny>,
    types: Types,
    records: Vec<Record>,
    dates: HashMap<DateTime, Py<PyAny>>,
    zones: HashMap<i32, Py<PyAny>>,
    done: bool, // the document was cut or a panic was caught: nothing more is read
    panic_for_tests: bool,
}

#[pymethods]
impl PyBlockScanner {
    #[new]
    #[pyo3(signature = (doc, *, index, kinds, read, settled, types, panic_for_tests = false))]
    fn new(
        doc: &Bound<'_, PyAny>,
        index: bool,
        kinds: &Bound<'_, PyDict>,
        read: Py<PyAny>,
        settled: Py<PyAny>,
        types: &Bound<'_, PyTuple>,
        panic_for_tests: bool,
    ) -> PyResult<Self> {
        let py = doc.py();
        let limits = doc.getattr(intern!(py, "limits"))?;
        let limits = Limits {
            max_urls: limits.getattr(intern!(py, "max_urls"))?.extract()?,
            max_loc_length: limits.getattr(intern!(py, "max_loc_length"))?.extract()?,
            max_token_bytes: limits.getattr(intern!(py, "max_token_bytes"))?.extract()?,
        };
        let mut prefixes = Vec::new();
        for (prefix, kind) in kinds.iter() {
            prefixes.push((prefix.extract::<String>()?, kind.extract::<u8>()?));
        }
        let item = |i: usize| -> PyResult<Py<PyAny>> { Ok(types.get_item(i)?.unbind()) };
        let changefreqs = types
            .get_item(4)?
            .try_iter()?
            .map(|c| c.map(Bound::unbind))
            .collect::<PyResult<Vec<_>>>()?;
        // (kind, local, ((kind, local, name, repeated), ...), build, slot) per container
        let mut containers = Vec::new();
        let mut builders = Vec::new();
        for spec in types.get_item(14)?.try_iter()? {
            let spec = spec?;
            let mut fields = Vec::new();
            let mut names = Vec::new();
            let mut repeated = Vec::new();
            for field in spec.get_item(2)?.try_iter()? {
                let (kind, local, name, many): (u8, String, String, bool) = field?.extract()?;
                fields.push((kind, local));
                names.push(name);
                repeated.push(many);
            }
            containers.push(Container {
                kind: spec.get_item(0)?.extract()?,
                local: spec.get_item(1)?.extract()?,
                fields,
            });
            builders.push(Builder {
                names,
                repeated,
                build: spec.get_item(3)?.unbind(),
                slot: spec.get_item(4)?.extract()?,
            });
        }
        let types = Types {
            entry: item(0)?,
            sitemap_ref: item(1)?,
            image: item(2)?,
            alternate: item(3)?,
            changefreqs,
            datetime: item(5)?,
            timezone: item(6)?,
            timedelta: item(7)?,
            utc: item(8)?,
            emit_entry: item(9)?,
            emit_ref: item(10)?,
            error_kind: item(11)?,
            build_image: item(12)?,
            alternate_of: item(13)?,
            builders,
        };
        Ok(Self {
            core: BlockScanner::new(prefixes, containers, index, limits),
            url: doc.getattr(intern!(py, "url"))?.unbind(),
            doc: doc.clone().unbind(),
            read,
            settled,
            types,
            records: Vec::new(),
            dates: HashMap::new(),
            zones: HashMap::new(),
            done: false,
            panic_for_tests,
        })
    }

    /// Take `data`; None while the scanner goes on, else the bytes to give expat.
    fn feed<'py>(&mut self, py: Python<'py>, data: &[u8]) -> PyResult<Option<Bound<'py, PyBytes>>> {
        if self.done {
            return Ok(None);
        }
        let core = &mut self.core;
        match py.detach(|| caught(|| core.push(data))) {
            Ok(None) => {}
            Ok(Some(rest)) => return Ok(Some(PyBytes::new(py, &rest))),
            Err(error) => return self.panicked(py, &error.message).map(|()| None),
        }
        self.run(py)
    }

    /// End of input: everything not consumed goes to expat.
    fn finish<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyBytes> {
        if self.done {
            return PyBytes::new(py, b"");
        }
        PyBytes::new(py, &self.core.finish())
    }
}

impl PyBlockScanner {
    fn run<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let doc = self.doc.bind(py).clone();
        loop {
            self.core.entries = doc.getattr(intern!(py, "entries"))?.extract()?;
            let (core, records) = (&mut self.core, &mut self.records);
            let panic = self.panic_for_tests;
            let step = py.detach(|| {
                caught(|| {
                    assert!(!panic, "the panic asked for by a test");
                    core.run(records)
                })
            });
            let step = match step {
                Ok(step) => step,
                Err(error) => {
                    self.records.clear();
                    return self.panicked(py, &error.message).map(|()| None);
                }
            };
            if !self.records.is_empty() {
                self.flush(py, &doc)?;
                doc.setattr(intern!(py, "entries"), self.core.entries)?;
            }
            match step {
                Step::Wait => return Ok(None),
                Step::Stop(rest) => return Ok(Some(PyBytes::new(py, &rest))),
                Step::Judge(fields) => {
                    if !self.judge(py, &doc, fields)? {
                        self.done = true; // the document was cut (max_urls)
                        return Ok(None);
                    }
                }
                Step::Send { data, at, tag } => {
                    let bytes = PyBytes::new(py, &data);
                    if !self.read.bind(py).call1((bytes, at))?.is_truthy()? {
                        return Ok(Some(PyBytes::new(py, b""))); // expat ended the document
                    }
                    if let Some(tag) = tag {
                        if self.settled.bind(py).call1((tag,))?.is_truthy()? {
                            self.core.settled();
                        }
                    }
                }
            }
        }
    }

    /// The records built detached, as the package's records, to the document's output.
    fn flush(&mut self, py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<()> {
        let out = doc.getattr(intern!(py, "out"))?;
        let out = out.cast::<pyo3::types::PyList>()?;
        let url = self.url.bind(py).clone();
        let records = std::mem::take(&mut self.records);
        for record in &records {
            let object = match record {
                Record::Entry(e) => {
                    let lastmod = self.date(py, e.lastmod)?;
                    let changefreq = match e.changefreq {
                        Some(c) => self.types.changefreqs[c as usize].bind(py).clone(),
                        None => py.None().into_bound(py),
                    };
                    let priority = e.priority.into_pyobject(py)?.into_any();
                    let loc = e.loc.as_str().into_pyobject(py)?.into_any();
                    let entry = self.types.entry.bind(py);
                    if e.images.is_empty() && e.alternates.is_empty() {
                        entry.call1((loc, lastmod, changefreq, priority, &url))?
                    } else {
                        let images = e.images.iter().map(|i| self.image(py, i));
                        let images = PyTuple::new(py, images.collect::<PyResult<Vec<_>>>()?)?;
                        let alternates = e.alternates.iter().map(|a| self.alternate(py, a));
                        let alternates =
                            PyTuple::new(py, alternates.collect::<PyResult<Vec<_>>>()?)?;
                        let none = PyTuple::empty(py);
                        entry.call1((
                            loc, lastmod, changefreq, priority, &url, images, &none, &none,
                            alternates,
                        ))?
                    }
                }
                Record::Ref(r) => {
                    let lastmod = self.date(py, r.lastmod)?;
                    let class = self.types.sitemap_ref.bind(py);
                    class.call1((r.loc.as_str(), lastmod, &url))?
                }
            };
            out.append(object)?;
        }
        self.records = records;
        self.records.clear(); // (the vector is kept: no allocation per chunk)
        Ok(())
    }

    fn image<'py>(&self, py: Python<'py>, i: &Image) -> PyResult<Bound<'py, PyAny>> {
        self.types.image.bind(py).call1((
            i.loc.as_str(),
            i.caption.as_deref(),
            i.title.as_deref(),
            i.geo_location.as_deref(),
            i.license.as_deref(),
        ))
    }

    fn alternate<'py>(&self, py: Python<'py>, a: &Alternate) -> PyResult<Bound<'py, PyAny>> {
        let args = (a.hreflang.as_deref(), a.href.as_str(), a.media.as_deref());
        self.types.alternate.bind(py).call1(args)
    }

    /// A datetime, from the cache when it was built before.
    fn date<'py>(
        &mut self,
        py: Python<'py>,
        value: Option<DateTime>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Some(d) = value else {
            return Ok(py.None().into_bound(py));
        };
        if let Some(known) = self.dates.get(&d) {
            return Ok(known.bind(py).clone());
        }
        let zone = self.zone(py, d.offset_seconds)?;
        let built = self.types.datetime.bind(py).call1((
            d.year,
            d.month,
            d.day,
            d.hour,
            d.minute,
            d.second,
            d.microsecond,
            zone,
        ))?;
        if self.dates.len() >= DATES {
            self.dates.clear();
        }
        self.dates.insert(d, built.clone().unbind());
        Ok(built)
    }

    /// The `timezone` of an offset (UTC's own object for 0, as `fromisoformat` gives).
    fn zone<'py>(&mut self, py: Python<'py>, seconds: i32) -> PyResult<Bound<'py, PyAny>> {
        if seconds == 0 {
            return Ok(self.types.utc.bind(py).clone());
        }
        if let Some(known) = self.zones.get(&seconds) {
            return Ok(known.bind(py).clone());
        }
        let delta = self.types.timedelta.bind(py).call1((0, seconds))?;
        let zone = self.types.timezone.bind(py).call1((delta,))?;
        self.zones.insert(seconds, zone.clone().unbind());
        Ok(zone)
    }

    /// Python judges these fields: `emit_entry` / `emit_ref`, after the extensions
    /// Python must build (in document order, as the exact path counts what they note);
    /// False once the document was cut.
    fn judge(&mut self, py: Python<'_>, doc: &Bound<'_, PyAny>, f: Fields) -> PyResult<bool> {
        let loc = f.loc.unwrap_or_default();
        let ok = if self.core.is_index() {
            self.types.emit_ref.bind(py).call1((doc, loc, f.lastmod))?
        } else if f.exts.is_empty() {
            let args = (doc, loc, f.lastmod, f.changefreq, f.priority);
            self.types.emit_entry.bind(py).call1(args)?
        } else {
            let mut images = Vec::new();
            let mut alternates = Vec::new();
            let mut videos = Vec::new();
            let mut news = Vec::new();
            for ext in f.exts {
                match ext {
                    Ext::Image(i) => images.push(self.image(py, &i)?),
                    Ext::Alternate(a) => alternates.push(self.alternate(py, &a)?),
                    Ext::PyImage(values) => {
                        let sub = PyDict::new(py);
                        let names = ["loc", "caption", "title", "geo_location", "license"];
                        for (name, value) in names.into_iter().zip(values) {
                            if let Some(value) = value {
                                sub.set_item(name, value)?;
                            }
                        }
                        let built = self.types.build_image.bind(py).call1((sub, doc))?;
                        if !built.is_none() {
                            images.push(built);
                        }
                    }
                    Ext::PyContainer(at, found) => {
                        let builder = &self.types.builders[at];
                        let sub = PyDict::new(py);
                        for (field, value) in found {
                            let name = builder.names[field].as_str();
                            if builder.repeated[field] {
                                match sub.get_item(name)? {
                                    Some(list) => {
                                        list.call_method1(intern!(py, "append"), (value,))?
                                    }
                                    None => {
                                        sub.set_item(name, vec![value])?;
                                        continue;
                                    }
                                };
                            } else {
                                sub.set_item(name, value)?;
                            }
                        }
                        let built = builder.build.bind(py).call1((sub, doc))?;
                        if !built.is_none() {
                            if builder.slot == 1 {
                                videos.push(built)
                            } else {
                                news.push(built)
                            }
                        }
                    }
                    Ext::PyAlternate([hreflang, href, media]) => {
                        let args = (hreflang, href, media, doc);
                        let built = self.types.alternate_of.bind(py).call1(args)?;
                        if !built.is_none() {
                            alternates.push(built);
                        }
                    }
                }
            }
            let args = (
                doc,
                loc,
                f.lastmod,
                f.changefreq,
                f.priority,
                PyTuple::new(py, images)?,
                PyTuple::new(py, videos)?,
                PyTuple::new(py, news)?,
                PyTuple::new(py, alternates)?,
            );
            self.types.emit_entry.bind(py).call1(args)?
        };
        ok.is_truthy()
    }

    /// A caught panic: the document ends with the problem, counted as a bug.
    fn panicked(&mut self, py: Python<'_>, what: &str) -> PyResult<()> {
        PANICS.fetch_add(1, Ordering::Relaxed);
        self.done = true;
        let message = format!("{what}; the document was read up to there");
        let kind = self.types.error_kind.bind(py);
        self.doc
            .bind(py)
            .call_method1(intern!(py, "fail"), (kind, message))?;
        Ok(())
    }
}

/// How many panics the compiled core caught in this process (each one a bug).
#[pyfunction]
pub fn caught_panics() -> u64 {
    PANICS.load(Ordering::Relaxed)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyBlockScanner>()?;
    m.add_function(wrap_pyfunction!(caught_panics, m)?)?;
    Ok(())
}
