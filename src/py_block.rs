//! `sitemap_reader._native.BlockScanner`: the compiled fast path of the XML reader (its
//! constructor, `feed` and `finish` are what `_core/_xml/_document.py` calls).
//!
//! A chunk is scanned and its blocks judged detached from the interpreter (the GIL
//! released) into Rust records; then, attached, they become the package's own records
//! (its classes are passed in: this module imports nothing of the package) and go to the
//! document's output. What only Python or expat may judge goes to them through the
//! callables given: `emit_entry` / `emit_ref` for a block's fields, `read` / `settled`
//! for the bytes of an odd block.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pyo3::gc::PyVisit;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};
use pyo3::PyTraverseError;

use crate::block::extend::{NEWS_FIELDS, VIDEO_FIELDS};
use crate::block::{BlockScanner, Build, Container, Ext, Fields, Limits, Record, Step};
use crate::guard::caught;
use crate::pyslots::Slots;
use crate::record::{Alternate, DateTime, Entry, Image, News, SitemapRef, Video};

/// Panics caught in any scanner of the process: each one a bug.
static PANICS: AtomicU64 = AtomicU64::new(0);

// A pyclass lives in memory Python allocates, aligned to 16 bytes whatever the Rust type
// asks (PyO3 issue #3607): a field that needs more (a SIMD searcher) must be boxed, or its
// aligned loads fault.
const _: () = assert!(std::mem::align_of::<BlockScanner>() <= 16);
const _: () = assert!(std::mem::align_of::<Objects>() <= 16);

/// An entry's extension slots (`_extensions.VIDEOS`, `NEWS_ITEMS`).
const VIDEOS: usize = 1;
const NEWS: usize = 2;

/// A cache of this many datetimes at most (sitemaps repeat a few dates thousands of times).
const DATES: usize = 4_096;
const _: () = assert!(DATES.is_power_of_two()); // (a slot is the hash's low bits)

/// The package's classes and functions the scanner builds with (see `_core_choice.py`).
struct Types {
    entry: Slots,
    sitemap_ref: Slots,
    image: Slots,
    alternate: Slots,
    video: Slots,
    news: Slots,
    changefreqs: Vec<Py<PyAny>>,
    datetime: Py<PyAny>,
    fromisoformat: Py<PyAny>, // datetime.fromisoformat: one string, parsed in C
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
    sitemap: Arc<str>, // the same URL, for the runs of `lines` (shared, not copied a run)
    // The reader's callbacks are its bound methods, and the reader holds this scanner: a
    // cycle that only the collector breaks, so the scanner takes part in it (`__traverse__`,
    // `__clear__`). Without that, every document left unfinished (cut, cancelled) kept its
    // reader and buffers for the life of the process.
    callbacks: Option<Callbacks>,
    objects: Py<Objects>,
    lines: bool, // entries go out as `Entries` (compiled records), not as objects
    records: Vec<Record>,
    done: bool, // the document was cut or a panic was caught: nothing more is read
    panic_for_tests: bool,
}

/// `read` / `settled`: the reader's bound methods (see the module docs).
struct Callbacks {
    read: Py<PyAny>,
    settled: Py<PyAny>,
}

#[pymethods]
impl PyBlockScanner {
    #[new]
    #[pyo3(signature = (doc, *, index, kinds, read, settled, types, lines = false, panic_for_tests = false))]
    #[allow(clippy::too_many_arguments)] // (the Python constructor's keywords)
    fn new(
        doc: &Bound<'_, PyAny>,
        index: bool,
        kinds: &Bound<'_, PyDict>,
        read: Py<PyAny>,
        settled: Py<PyAny>,
        types: &Bound<'_, PyTuple>,
        lines: bool,
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
            let slot = spec.get_item(4)?.extract()?;
            containers.push(Container {
                kind: spec.get_item(0)?.extract()?,
                local: spec.get_item(1)?.extract()?,
                fields,
                names: names.clone(),
                build: match slot {
                    VIDEOS => Build::Video,
                    NEWS => Build::News,
                    _ => Build::Python,
                },
            });
            builders.push(Builder {
                names,
                repeated,
                build: spec.get_item(3)?.unbind(),
                slot,
            });
        }
        let entry_fields = [
            "loc",
            "lastmod",
            "changefreq",
            "priority",
            "sitemap",
            "images",
            "videos",
            "news",
            "alternates",
        ];
        let types = Types {
            entry: Slots::of(&types.get_item(0)?, &entry_fields)?,
            sitemap_ref: Slots::of(&types.get_item(1)?, &["loc", "lastmod", "source"])?,
            image: Slots::of(
                &types.get_item(2)?,
                &["loc", "caption", "title", "geo_location", "license"],
            )?,
            alternate: Slots::of(&types.get_item(3)?, &["hreflang", "href", "media"])?,
            video: Slots::of(&types.get_item(15)?, &VIDEO_FIELDS)?,
            news: Slots::of(&types.get_item(16)?, &NEWS_FIELDS)?,
            changefreqs,
            datetime: item(5)?,
            fromisoformat: types
                .get_item(5)?
                .getattr(intern!(py, "fromisoformat"))?
                .unbind(),
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
            sitemap: doc.getattr(intern!(py, "url"))?.extract::<String>()?.into(),
            doc: doc.clone().unbind(),
            callbacks: Some(Callbacks { read, settled }),
            objects: Py::new(
                py,
                Objects {
                    types,
                    dates: (0..DATES).map(|_| None).collect(),
                    zones: HashMap::new(),
                },
            )?,
            lines,
            records: Vec::new(),
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

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.doc)?;
        visit.call(&self.url)?;
        visit.call(&self.objects)?;
        if let Some(callbacks) = &self.callbacks {
            visit.call(&callbacks.read)?;
            visit.call(&callbacks.settled)?;
        }
        Ok(())
    }

    /// The collector breaks a cycle here: the scanner reads nothing more.
    fn __clear__(&mut self) {
        self.callbacks = None;
        self.done = true;
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
                    let Some(callbacks) = &self.callbacks else {
                        return Ok(Some(PyBytes::new(py, b""))); // cleared: nothing more is read
                    };
                    let bytes = PyBytes::new(py, &data);
                    if !callbacks.read.bind(py).call1((bytes, at))?.is_truthy()? {
                        return Ok(Some(PyBytes::new(py, b""))); // expat ended the document
                    }
                    if let Some(tag) = tag {
                        if callbacks.settled.bind(py).call1((tag,))?.is_truthy()? {
                            self.core.settled();
                        }
                    }
                }
            }
        }
    }

    /// The records built detached, to the document's output: as the package's records, or
    /// (`lines`) each run of entries as one `Entries` holding them, the references still
    /// as objects.
    fn flush(&mut self, py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<()> {
        let out = doc.getattr(intern!(py, "out"))?;
        let out = out.cast::<pyo3::types::PyList>()?;
        let url = self.url.bind(py).clone();
        let mut objects = self.objects.bind(py).borrow_mut();
        if !self.lines {
            for record in &self.records {
                let object = match record {
                    Record::Entry(e) => objects.entry(py, e, &url)?,
                    Record::Ref(r) => objects.sitemap_ref(py, r, &url)?,
                };
                out.append(object)?;
            }
            self.records.clear(); // (the vector is kept: no allocation per chunk)
            return Ok(());
        }
        let mut records = std::mem::take(&mut self.records);
        let mut run = Vec::new();
        for record in records.drain(..) {
            match record {
                Record::Entry(e) => run.push(e),
                Record::Ref(r) => {
                    if !run.is_empty() {
                        let entries = std::mem::take(&mut run);
                        out.append(self.entries(py, &url, entries)?)?;
                    }
                    out.append(objects.sitemap_ref(py, &r, &url)?)?;
                }
            }
        }
        drop(objects);
        if !run.is_empty() {
            out.append(self.entries(py, &url, run)?)?;
        }
        self.records = records; // (empty, its room kept)
        Ok(())
    }

    fn entries(
        &self,
        py: Python<'_>,
        url: &Bound<'_, PyAny>,
        records: Vec<Entry>,
    ) -> PyResult<Py<PyEntries>> {
        Py::new(
            py,
            PyEntries {
                records,
                sitemap: Arc::clone(&self.sitemap),
                url: url.clone().unbind(),
                objects: self.objects.clone_ref(py),
            },
        )
    }

    /// Python judges these fields: `emit_entry` / `emit_ref`, after the extensions
    /// Python must build (in document order, as the exact path counts what they note);
    /// False once the document was cut.
    fn judge(&mut self, py: Python<'_>, doc: &Bound<'_, PyAny>, f: Fields) -> PyResult<bool> {
        let mut objects = self.objects.bind(py).borrow_mut();
        let loc = f.loc.unwrap_or_default();
        let ok = if self.core.is_index() {
            objects
                .types
                .emit_ref
                .bind(py)
                .call1((doc, loc, f.lastmod))?
        } else if f.exts.is_empty() {
            let args = (doc, loc, f.lastmod, f.changefreq, f.priority);
            objects.types.emit_entry.bind(py).call1(args)?
        } else {
            let mut images = Vec::new();
            let mut alternates = Vec::new();
            let mut videos = Vec::new();
            let mut news = Vec::new();
            for ext in f.exts {
                match ext {
                    Ext::Image(i) => images.push(objects.image(py, &i)?),
                    Ext::Alternate(a) => alternates.push(objects.alternate(py, &a)?),
                    Ext::Video(v) => videos.push(objects.video(py, &v)?),
                    Ext::News(n) => news.push(objects.news(py, &n)?),
                    Ext::PyImage(values) => {
                        let sub = PyDict::new(py);
                        let names = ["loc", "caption", "title", "geo_location", "license"];
                        for (name, value) in names.into_iter().zip(values) {
                            if let Some(value) = value {
                                sub.set_item(name, value)?;
                            }
                        }
                        let built = objects.types.build_image.bind(py).call1((sub, doc))?;
                        if !built.is_none() {
                            images.push(built);
                        }
                    }
                    Ext::PyContainer(at, found) => {
                        let builder = &objects.types.builders[at];
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
                            if builder.slot == VIDEOS {
                                videos.push(built)
                            } else {
                                news.push(built)
                            }
                        }
                    }
                    Ext::PyAlternate([hreflang, href, media]) => {
                        let args = (hreflang, href, media, doc);
                        let built = objects.types.alternate_of.bind(py).call1(args)?;
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
            objects.types.emit_entry.bind(py).call1(args)?
        };
        ok.is_truthy()
    }

    /// A caught panic: the document ends with the problem, counted as a bug.
    fn panicked(&mut self, py: Python<'_>, what: &str) -> PyResult<()> {
        PANICS.fetch_add(1, Ordering::Relaxed);
        self.done = true;
        let message = format!("{what}; the document was read up to there");
        let kind = self
            .objects
            .bind(py)
            .borrow()
            .types
            .error_kind
            .clone_ref(py);
        self.doc
            .bind(py)
            .call_method1(intern!(py, "fail"), (kind, message))?;
        Ok(())
    }
}

/// A run of entries of one document as the compiled core read them (`BlockScanner` made
/// with `lines`): `dump`'s line writer writes them with no Python object made
/// (`LineWriter.write_run`); `objects` makes the package's `Entry` records of those it
/// does not write.
#[pyclass(module = "sitemap_reader._native", name = "Entries", frozen)]
pub struct PyEntries {
    pub records: Vec<Entry>,
    pub sitemap: Arc<str>, // the document's URL, every entry's `sitemap`
    url: Py<PyAny>,        // the same, as the str object the package's records share
    objects: Py<Objects>,
}

#[pymethods]
impl PyEntries {
    fn __len__(&self) -> usize {
        self.records.len()
    }

    /// The entries from `start` to `end` (the end of the run when None) as `Entry` records.
    #[pyo3(signature = (start = 0, end = None))]
    fn objects<'py>(
        &self,
        py: Python<'py>,
        start: usize,
        end: Option<usize>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let end = end.unwrap_or(self.records.len()).min(self.records.len());
        let url = self.url.bind(py);
        let mut objects = self.objects.bind(py).borrow_mut();
        self.records
            .get(start..end)
            .unwrap_or_default()
            .iter()
            .map(|entry| objects.entry(py, entry, url))
            .collect()
    }
}

/// What turns the core's records into the package's, with caches of the datetimes and
/// time zones built (sitemaps repeat a few dates thousands of times). One per document,
/// shared by its scanner and its `Entries`.
#[pyclass(module = "sitemap_reader._native")]
struct Objects {
    types: Types,
    /// Direct-mapped by `date_key`'s hash: a lookup is one slot whatever the keys, so
    /// dates crafted to collide only miss (a hash map's chains would grow instead).
    dates: Vec<Option<(DateKey, Py<PyAny>)>>,
    zones: HashMap<i32, Py<PyAny>>,
}

impl Objects {
    fn entry<'py>(
        &mut self,
        py: Python<'py>,
        e: &Entry,
        url: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lastmod = self.date(py, e.lastmod)?;
        let changefreq = match e.changefreq {
            Some(c) => self.types.changefreqs[c as usize].bind(py).clone(),
            None => py.None().into_bound(py),
        };
        let priority = e.priority.into_pyobject(py)?.into_any();
        let loc = e.loc.as_str().into_pyobject(py)?.into_any();
        let none = PyTuple::empty(py).into_any();
        let (images, videos, news, alternates) = if e.images.is_empty()
            && e.alternates.is_empty()
            && e.videos.is_empty()
            && e.news.is_empty()
        {
            (none.clone(), none.clone(), none.clone(), none)
        } else {
            let images = e.images.iter().map(|i| self.image(py, i));
            let images = images.collect::<PyResult<Vec<_>>>()?;
            let alternates = e.alternates.iter().map(|a| self.alternate(py, a));
            let alternates = alternates.collect::<PyResult<Vec<_>>>()?;
            let mut videos = Vec::with_capacity(e.videos.len());
            for v in &e.videos {
                videos.push(self.video(py, v)?);
            }
            let mut news = Vec::with_capacity(e.news.len());
            for n in &e.news {
                news.push(self.news(py, n)?);
            }
            (
                PyTuple::new(py, images)?.into_any(),
                PyTuple::new(py, videos)?.into_any(),
                PyTuple::new(py, news)?.into_any(),
                PyTuple::new(py, alternates)?.into_any(),
            )
        };
        self.types.entry.build(
            py,
            [
                loc,
                lastmod,
                changefreq,
                priority,
                url.clone(),
                images,
                videos,
                news,
                alternates,
            ],
        )
    }

    fn sitemap_ref<'py>(
        &mut self,
        py: Python<'py>,
        r: &SitemapRef,
        url: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lastmod = self.date(py, r.lastmod)?;
        let loc = r.loc.as_str().into_pyobject(py)?.into_any();
        self.types
            .sitemap_ref
            .build(py, [loc, lastmod, url.clone()])
    }

    fn image<'py>(&self, py: Python<'py>, i: &Image) -> PyResult<Bound<'py, PyAny>> {
        let text = |v: &Option<String>| -> PyResult<Bound<'py, PyAny>> {
            Ok(v.as_deref().into_pyobject(py)?.into_any())
        };
        let loc = i.loc.as_str().into_pyobject(py)?.into_any();
        let values = [
            loc,
            text(&i.caption)?,
            text(&i.title)?,
            text(&i.geo_location)?,
            text(&i.license)?,
        ];
        self.types.image.build(py, values)
    }

    fn alternate<'py>(&self, py: Python<'py>, a: &Alternate) -> PyResult<Bound<'py, PyAny>> {
        let values = [
            a.hreflang.as_deref().into_pyobject(py)?.into_any(),
            a.href.as_str().into_pyobject(py)?.into_any(),
            a.media.as_deref().into_pyobject(py)?.into_any(),
        ];
        self.types.alternate.build(py, values)
    }

    fn video<'py>(&mut self, py: Python<'py>, v: &Video) -> PyResult<Bound<'py, PyAny>> {
        let text = |v: &Option<String>| -> PyResult<Bound<'py, PyAny>> {
            Ok(v.as_deref().into_pyobject(py)?.into_any())
        };
        let number =
            |n: Option<i64>| -> PyResult<Bound<'py, PyAny>> { Ok(n.into_pyobject(py)?.into_any()) };
        let flag = |f: Option<bool>| -> PyResult<Bound<'py, PyAny>> {
            Ok(f.into_pyobject(py)?.to_owned().into_any())
        };
        let tags = PyTuple::new(py, &v.tags)?.into_any();
        let values = [
            text(&v.thumbnail_loc)?,
            text(&v.title)?,
            text(&v.description)?,
            text(&v.content_loc)?,
            text(&v.player_loc)?,
            number(v.duration)?,
            self.date(py, v.expiration_date)?,
            v.rating.into_pyobject(py)?.into_any(),
            number(v.view_count)?,
            self.date(py, v.publication_date)?,
            flag(v.family_friendly)?,
            flag(v.requires_subscription)?,
            flag(v.live)?,
            text(&v.uploader)?,
            text(&v.category)?,
            tags,
        ];
        self.types.video.build(py, values)
    }

    fn news<'py>(&mut self, py: Python<'py>, n: &News) -> PyResult<Bound<'py, PyAny>> {
        let text = |v: &Option<String>| -> PyResult<Bound<'py, PyAny>> {
            Ok(v.as_deref().into_pyobject(py)?.into_any())
        };
        let values = [
            text(&n.publication_name)?,
            text(&n.publication_language)?,
            self.date(py, n.publication_date)?,
            text(&n.title)?,
            text(&n.keywords)?,
            text(&n.genres)?,
        ];
        self.types.news.build(py, values)
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
        let key = date_key(&d);
        let slot = date_slot(key);
        if let Some((known, date)) = &self.dates[slot] {
            if *known == key {
                return Ok(date.bind(py).clone());
            }
        }
        let built = match iso_text(&d) {
            // The string, parsed by C, costs less than the constructor's eight arguments
            // parsed by keyword rules; an offset of 0 gives UTC's own object, as below.
            Some(text) => self
                .types
                .fromisoformat
                .bind(py)
                .call1((PyString::new(py, text.as_str()),))?,
            None => {
                let zone = self.zone(py, d.offset_seconds)?;
                self.types.datetime.bind(py).call1((
                    d.year,
                    d.month,
                    d.day,
                    d.hour,
                    d.minute,
                    d.second,
                    d.microsecond,
                    zone,
                ))?
            }
        };
        self.dates[slot] = Some((key, built.clone().unbind()));
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
}

/// A datetime's fields in two words.
type DateKey = (u64, u64);

fn date_key(d: &DateTime) -> DateKey {
    let date = (d.year as u32 as u64) << 40
        | (d.month as u64) << 32
        | (d.day as u64) << 24
        | (d.hour as u64) << 16
        | (d.minute as u64) << 8
        | d.second as u64;
    (
        date,
        (d.microsecond as u64) << 32 | d.offset_seconds as u32 as u64,
    )
}

/// The slot of a date key in the cache: its words mixed (splitmix64's finaliser) so
/// that dates a second or a day apart spread over the slots.
fn date_slot((date, rest): DateKey) -> usize {
    let mut x = date ^ rest.rotate_left(29);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    (x as usize) & (DATES - 1)
}

/// `d` as `datetime.isoformat()` writes it (`YYYY-MM-DDTHH:MM:SS[.ffffff]+HH:MM`), which
/// `fromisoformat` reads back to the same datetime; None where the constructor must make
/// it (a year out of four digits, an offset of seconds, fields out of range).
fn iso_text(d: &DateTime) -> Option<IsoText> {
    let offset = d.offset_seconds;
    let in_range = (1..=9999).contains(&d.year)
        && (1..=12).contains(&d.month)
        && (1..=31).contains(&d.day)
        && d.hour < 24
        && d.minute < 60
        && d.second < 60
        && d.microsecond < 1_000_000
        && offset % 60 == 0
        && offset.abs() < 86_400;
    if !in_range {
        return None;
    }
    let mut text = IsoText::default();
    let year = d.year as u32;
    text.digits(year / 100, 2);
    text.digits(year % 100, 2);
    for (sep, value) in [
        (b'-', d.month),
        (b'-', d.day),
        (b'T', d.hour),
        (b':', d.minute),
        (b':', d.second),
    ] {
        text.push(sep);
        text.digits(u32::from(value), 2);
    }
    if d.microsecond != 0 {
        text.push(b'.');
        text.digits(d.microsecond, 6);
    }
    text.push(if offset < 0 { b'-' } else { b'+' });
    let minutes = offset.unsigned_abs() / 60;
    text.digits(minutes / 60, 2);
    text.push(b':');
    text.digits(minutes % 60, 2);
    Some(text)
}

/// The ASCII text of one datetime, on the stack (at most 32 bytes:
/// `YYYY-MM-DDTHH:MM:SS.ffffff+HH:MM`).
#[derive(Default)]
struct IsoText {
    bytes: [u8; 32],
    len: usize,
}

impl IsoText {
    fn push(&mut self, byte: u8) {
        self.bytes[self.len] = byte;
        self.len += 1;
    }

    /// `value`'s last `width` decimal digits, zero-padded.
    fn digits(&mut self, mut value: u32, width: usize) {
        for place in (self.len..self.len + width).rev() {
            self.bytes[place] = b'0' + (value % 10) as u8;
            value /= 10;
        }
        self.len += width;
    }

    fn as_str(&self) -> &str {
        // (ASCII digits and separators only: always UTF-8)
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

/// How many panics the compiled core caught in this process (each one a bug).
#[pyfunction]
pub fn caught_panics() -> u64 {
    PANICS.load(Ordering::Relaxed)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyBlockScanner>()?;
    m.add_class::<PyEntries>()?;
    m.add_function(wrap_pyfunction!(caught_panics, m)?)?;
    Ok(())
}
