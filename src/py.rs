//! The bindings: `sitemap_reader._native`, typed by `sitemap_reader/_native.pyi`.
//!
//! Shaped like the Python parser (`feed()`/`close()`, never raising for the content).
//! The work runs detached from the interpreter (the GIL released), and a panic is caught
//! and reported as an "internal" error, never as Python's PanicException.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::guard::caught;
use crate::{ScanError, UrlRecord, UrlsetScanner, DEFAULT_MAX_TOKEN_BYTES};

/// One `<url>` as Python gets it: (loc, lastmod, changefreq, priority).
type Fields = (String, Option<String>, Option<String>, Option<String>);

#[pyclass(module = "sitemap_reader._native", name = "UrlsetScanner")]
struct PyUrlsetScanner {
    inner: UrlsetScanner,
    closed: bool,
    panic: Option<ScanError>, // set once a panic was caught: the scanner is not used again
}

#[pymethods]
impl PyUrlsetScanner {
    #[new]
    #[pyo3(signature = (*, max_token_bytes = DEFAULT_MAX_TOKEN_BYTES))]
    fn new(max_token_bytes: usize) -> Self {
        Self {
            inner: UrlsetScanner::new(max_token_bytes),
            closed: false,
            panic: None,
        }
    }

    fn feed(&mut self, py: Python<'_>, data: &[u8]) -> PyResult<Vec<Fields>> {
        if self.closed {
            return Err(PyRuntimeError::new_err(
                "UrlsetScanner.feed() called after close()",
            ));
        }
        Ok(self.guarded(py, |scanner| scanner.feed(data)))
    }

    fn close(&mut self, py: Python<'_>) -> Vec<Fields> {
        if self.closed {
            return Vec::new();
        }
        self.closed = true;
        self.guarded(py, UrlsetScanner::close)
    }

    /// (kind, byte offset, message) of the fault that ended the document, or None.
    #[getter]
    fn error(&self) -> Option<(&'static str, u64, String)> {
        let error = self.panic.as_ref().or(self.inner.error())?;
        Some((error.kind.as_str(), error.offset, error.message.clone()))
    }
}

impl PyUrlsetScanner {
    fn guarded<F>(&mut self, py: Python<'_>, work: F) -> Vec<Fields>
    where
        F: FnOnce(&mut UrlsetScanner) -> Vec<UrlRecord> + Send,
    {
        if self.panic.is_some() {
            return Vec::new();
        }
        let inner = &mut self.inner;
        match py.detach(|| caught(|| work(inner))) {
            Ok(records) => records.into_iter().map(fields).collect(),
            Err(error) => {
                self.panic = Some(error); // (the scanner is not used again)
                Vec::new()
            }
        }
    }
}

fn fields(record: UrlRecord) -> Fields {
    (
        record.loc,
        record.lastmod,
        record.changefreq,
        record.priority,
    )
}

#[pymodule(name = "_native")]
fn native_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyUrlsetScanner>()?;
    crate::py_block::register(m)?;
    m.add_class::<crate::pytext::PyTextScanner>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // What `sitemap-reader --version` shows: a debug build is far slower.
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    m.add("build_profile", profile)?;
    Ok(())
}
