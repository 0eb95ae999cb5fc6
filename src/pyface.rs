//! The interface between the cores: what the package gives the compiled core, and the
//! numbers and names the compiled core exports for the package to check at import.
//!
//! The package builds one `_native.Interface` at import from its `Interface` dataclass
//! (`sitemap_reader/_core/_xml/_interface.py`), whose attributes are read here by name,
//! once; every `BlockScanner` is given it. The module exports `KINDS` (the element kinds
//! the block reader knows), `SLOTS` (where a container's records go among an entry's
//! extensions), `RECORDS` (each record class's fields, as `pyslots` sets them) and
//! `CHANGEFREQS` (the words, in the order the records' `changefreq` is numbered): the
//! package checks each against its own at import, and refuses a build that differs.

use std::sync::Arc;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::block::{Build, Container, CORE, IMAGE, XHTML};
use crate::pyslots::{Records, RECORDS};
use crate::record::ChangeFreq;

/// An entry's extension slots (`_extensions.VIDEOS`, `NEWS_ITEMS`): a container of one of
/// these is built here ([`Build`]), any other by its Python builder.
pub(crate) const VIDEOS: usize = 1;
pub(crate) const NEWS: usize = 2;

/// `_native.Interface(config)`: the package's record classes, record functions and
/// extension containers, read from `config` by attribute name.
#[pyclass(module = "sitemap_reader._native", name = "Interface", frozen)]
pub(crate) struct PyInterface {
    pub(crate) records: Arc<Records>,
    pub(crate) emit_entry: Py<PyAny>,
    pub(crate) emit_ref: Py<PyAny>,
    pub(crate) error_kind: Py<PyAny>,
    pub(crate) build_image: Py<PyAny>,
    pub(crate) alternate_of: Py<PyAny>,
    pub(crate) note_repeated: Py<PyAny>,
    pub(crate) note_lookalike: Py<PyAny>,
    pub(crate) note_more_loc: Py<PyAny>,
    pub(crate) note_unclosed: Py<PyAny>,
    /// The containers Python gives the fields of (`_extensions.CONTAINERS` but images), for
    /// the block reader, and their Python builders, in the same order.
    pub(crate) containers: Vec<Container>,
    pub(crate) builders: Vec<Builder>,
}

/// A container's Python builder, and how its fields go into the dict it takes.
pub(crate) struct Builder {
    pub(crate) names: Vec<String>,
    pub(crate) repeated: Vec<bool>, // the fields of which every value is kept
    pub(crate) build: Py<PyAny>,
    pub(crate) slot: usize,
}

#[pymethods]
impl PyInterface {
    #[new]
    fn new(config: &Bound<'_, PyAny>) -> PyResult<Self> {
        let py = config.py();
        let get = |name: &Bound<'_, pyo3::types::PyString>| -> PyResult<Py<PyAny>> {
            Ok(config.getattr(name)?.unbind())
        };
        // {(kind, local): Container(fields={(kind, local): name}, build, slot)}
        let repeated = config.getattr(intern!(py, "repeated"))?;
        let mut containers = Vec::new();
        let mut builders = Vec::new();
        let specs = config.getattr(intern!(py, "containers"))?;
        for item in specs.call_method0(intern!(py, "items"))?.try_iter()? {
            let (key, spec): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
            let (kind, local): (u8, String) = key.extract()?;
            let mut fields = Vec::new();
            let mut names = Vec::new();
            let mut many = Vec::new();
            let spec_fields = spec.getattr(intern!(py, "fields"))?;
            for field in spec_fields.call_method0(intern!(py, "items"))?.try_iter()? {
                let (element, name): ((u8, String), String) = field?.extract()?;
                many.push(repeated.contains(&name)?);
                fields.push(element);
                names.push(name);
            }
            let slot = spec.getattr(intern!(py, "slot"))?.extract()?;
            containers.push(Container {
                kind,
                local,
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
                repeated: many,
                build: spec.getattr(intern!(py, "build"))?.unbind(),
                slot,
            });
        }
        Ok(Self {
            records: Arc::new(Records::of(config)?),
            emit_entry: get(intern!(py, "emit_entry"))?,
            emit_ref: get(intern!(py, "emit_ref"))?,
            error_kind: get(intern!(py, "error_kind"))?,
            build_image: get(intern!(py, "build_image"))?,
            alternate_of: get(intern!(py, "alternate_of"))?,
            note_repeated: get(intern!(py, "note_repeated"))?,
            note_lookalike: get(intern!(py, "note_lookalike"))?,
            note_more_loc: get(intern!(py, "note_more_loc"))?,
            note_unclosed: get(intern!(py, "note_unclosed"))?,
            containers,
            builders,
        })
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<PyInterface>()?;
    let kinds = PyDict::new(py);
    for (name, kind) in [("core", CORE), ("image", IMAGE), ("xhtml", XHTML)] {
        kinds.set_item(name, kind)?;
    }
    m.add("KINDS", kinds)?;
    let slots = PyDict::new(py);
    slots.set_item("videos", VIDEOS)?;
    slots.set_item("news", NEWS)?;
    m.add("SLOTS", slots)?;
    let records = PyDict::new(py);
    for (class, fields) in RECORDS {
        records.set_item(class, PyTuple::new(py, fields)?)?;
    }
    m.add("RECORDS", records)?;
    let words = ChangeFreq::ALL.map(ChangeFreq::as_str);
    m.add("CHANGEFREQS", PyTuple::new(py, words)?)?;
    Ok(())
}
