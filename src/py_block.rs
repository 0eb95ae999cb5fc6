//! `sitemap_reader._native.BlockScanner`: the compiled fast path of the XML reader (its
//! constructor, `feed` and `finish` are what `_core/_xml/_document.py` calls).
//!
//! A chunk is scanned and its blocks judged detached from the interpreter (the GIL
//! released) into Rust records; then, attached, they become the package's own records
//! (`pyslots`, with the classes of the `Interface` given: this module imports nothing of
//! the package) and go to the document's output. What only Python or expat may judge goes
//! to them through the interface's callables, `emit_entry` / `emit_ref` for a block's
//! fields, and the scanner's `read` / `settled` for the bytes of an odd block.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pyo3::gc::PyVisit;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use pyo3::PyTraverseError;

use crate::block::{BlockScanner, Ext, Fields, Limits, Place, Record, Step};
use crate::guard::caught;
use crate::pyface::{self, PyInterface};
use crate::pyslots::{Objects, IMAGE_FIELDS};
use crate::record::Entry;

/// Panics caught in any scanner of the process: each one a bug.
static PANICS: AtomicU64 = AtomicU64::new(0);

// A pyclass lives in memory Python allocates, aligned to 16 bytes whatever the Rust type
// asks (PyO3 issue #3607): a field that needs more (a SIMD searcher) must be boxed, or its
// aligned loads fault.
const _: () = assert!(std::mem::align_of::<BlockScanner>() <= 16);
const _: () = assert!(std::mem::align_of::<Objects>() <= 16);

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
    interface: Py<PyInterface>,
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
    #[pyo3(signature = (doc, *, index, kinds, read, settled, interface, start, namespaces = None, lines = false, panic_for_tests = false))]
    #[allow(clippy::too_many_arguments)] // (the Python constructor's keywords)
    fn new(
        doc: &Bound<'_, PyAny>,
        index: bool,
        kinds: &Bound<'_, PyDict>,
        read: Py<PyAny>,
        settled: Py<PyAny>,
        interface: Bound<'_, PyInterface>,
        start: (u64, u64),
        namespaces: Option<&Bound<'_, PyDict>>,
        lines: bool,
        panic_for_tests: bool,
    ) -> PyResult<Self> {
        let py = doc.py();
        // What is read of the document here and in `run` / `flush` / `panicked` is
        // `_interface.ScannedDocument`'s (a test holds the two together).
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
        let mut uris = Vec::new();
        for (prefix, uri) in namespaces.into_iter().flat_map(|d| d.iter()) {
            uris.push((prefix.extract::<String>()?, uri.extract::<String>()?));
        }
        let shared = interface.get();
        let containers = shared.containers.clone();
        let url = doc.getattr(intern!(py, "url"))?;
        let start = Place::new(start.0, start.1);
        let mut core = BlockScanner::new(prefixes, containers, index, limits, start);
        core.set_namespaces(uris);
        Ok(Self {
            core,
            sitemap: url.extract::<String>()?.into(),
            url: url.unbind(),
            doc: doc.clone().unbind(),
            callbacks: Some(Callbacks { read, settled }),
            objects: Py::new(py, Objects::new(Arc::clone(&shared.records)))?,
            interface: interface.unbind(),
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
        visit.call(&self.interface)?;
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
        let calls = self.interface.get();
        // A record the next one ran into: noted after what its extensions note, before it
        // is judged, as the exact path's _ran_into notes it.
        let index = self.core.is_index();
        let unclosed = f
            .unclosed
            .map(|(line, column)| (f.loc.clone(), index, line, column));
        let note_unclosed = || -> PyResult<()> {
            if let Some((loc, index, line, column)) = &unclosed {
                let args = (doc, loc.as_deref(), *index, *line, *column);
                calls.note_unclosed.bind(py).call1(args)?;
            }
            Ok(())
        };
        let loc = f.loc.unwrap_or_default();
        let mut more = Vec::new(); // further <loc>s: records of their own, after this one
        let ok = if self.core.is_index() {
            for ext in f.exts {
                note(py, calls, doc, ext, &mut more)?; // (an index's records: no extensions)
            }
            note_unclosed()?;
            calls.emit_ref.bind(py).call1((doc, loc, f.lastmod))?
        } else if f.exts.is_empty() {
            note_unclosed()?;
            let args = (doc, loc, f.lastmod, f.changefreq, f.priority);
            calls.emit_entry.bind(py).call1(args)?
        } else {
            let mut images = Vec::new();
            let mut alternates = Vec::new();
            let mut videos = Vec::new();
            let mut news = Vec::new();
            for ext in f.exts {
                let Some(ext) = note(py, calls, doc, ext, &mut more)? else {
                    continue;
                };
                match ext {
                    Ext::Image(i) => images.push(objects.image(py, &i)?),
                    Ext::Alternate(a) => alternates.push(objects.alternate(py, &a)?),
                    Ext::Video(v) => videos.push(objects.video(py, &v)?),
                    Ext::News(n) => news.push(objects.news(py, &n)?),
                    Ext::PyImage(values) => {
                        let sub = PyDict::new(py);
                        for (name, value) in IMAGE_FIELDS.into_iter().zip(values) {
                            if let Some(value) = value {
                                sub.set_item(name, value)?;
                            }
                        }
                        let built = calls.build_image.bind(py).call1((sub, doc))?;
                        if !built.is_none() {
                            images.push(built);
                        }
                    }
                    Ext::PyContainer(at, found) => {
                        let builder = &calls.builders[at];
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
                            if builder.slot == pyface::VIDEOS {
                                videos.push(built)
                            } else {
                                news.push(built)
                            }
                        }
                    }
                    // (noted above)
                    Ext::Repeated(_) | Ext::MoreLoc(_) | Ext::Lookalike { .. } => {}
                    Ext::PyAlternate([hreflang, href, media]) => {
                        let args = (hreflang, href, media, doc);
                        let built = calls.alternate_of.bind(py).call1(args)?;
                        if !built.is_none() {
                            alternates.push(built);
                        }
                    }
                }
            }
            note_unclosed()?;
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
            calls.emit_entry.bind(py).call1(args)?
        };
        let mut ok = ok.is_truthy()?;
        for loc in more {
            if !ok {
                break; // (the document was cut: max_urls)
            }
            ok = if self.core.is_index() {
                calls.emit_ref.bind(py).call1((doc, loc, None::<String>))?
            } else {
                let none = None::<String>;
                let args = (doc, loc, none.clone(), none.clone(), none);
                calls.emit_entry.bind(py).call1(args)?
            }
            .is_truthy()?;
        }
        Ok(ok)
    }

    /// A caught panic: the document ends with the problem, counted as a bug.
    fn panicked(&mut self, py: Python<'_>, what: &str) -> PyResult<()> {
        PANICS.fetch_add(1, Ordering::Relaxed);
        self.done = true;
        let message = format!("{what}; the document was read up to there");
        let kind = self.interface.get().error_kind.clone_ref(py);
        self.doc
            .bind(py)
            .call_method1(intern!(py, "fail"), (kind, message))?;
        Ok(())
    }
}

/// What a block's extension says Python notes (a field given twice, a further `<loc>`,
/// which joins `more`, a look-alike), noted; any other extension is given back.
fn note(
    py: Python<'_>,
    calls: &PyInterface,
    doc: &Bound<'_, PyAny>,
    ext: Ext,
    more: &mut Vec<String>,
) -> PyResult<Option<Ext>> {
    match ext {
        Ext::Repeated(r) => {
            let args = (doc, r.name, r.value, r.line, r.column);
            calls.note_repeated.bind(py).call1(args)?;
        }
        Ext::MoreLoc(r) => {
            let args = (doc, &r.value, r.line, r.column);
            calls.note_more_loc.bind(py).call1(args)?;
            more.push(r.value);
        }
        Ext::Lookalike { uri, local } => {
            calls.note_lookalike.bind(py).call1((doc, uri, local))?;
        }
        other => return Ok(Some(other)),
    }
    Ok(None)
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

/// Count a panic caught elsewhere in the bindings (the inflater's).
pub(crate) fn count_panic() {
    PANICS.fetch_add(1, Ordering::Relaxed);
}

/// How many panics the compiled core caught in this process (each one a bug).
#[pyfunction]
pub fn caught_panics() -> u64 {
    PANICS.load(Ordering::Relaxed)
}

/// How many blocks the scanners of this process handed to expat, and how many documents'
/// rest they left to expat alone (what the tests and benchmarks count of the handover).
#[pyfunction]
pub fn handovers() -> (u64, u64) {
    crate::block::handovers()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyBlockScanner>()?;
    m.add_class::<PyEntries>()?;
    m.add_class::<crate::pyrobots::PyRobots>()?;
    m.add_class::<crate::pyrobots::PyByOrigin>()?;
    m.add_function(wrap_pyfunction!(caught_panics, m)?)?;
    m.add_function(wrap_pyfunction!(handovers, m)?)?;
    Ok(())
}
