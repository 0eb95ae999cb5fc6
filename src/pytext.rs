//! The text scanner's bindings: `sitemap_reader._native.TextScanner` (see `py.rs` for the
//! module). The work runs with the GIL released, and a panic is caught and kept as an
//! "internal" error, never raised as PanicException.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::guard::{caught, Panic};
use crate::text::{TextLine, TextScanner};

/// A line as Python gets it: (kind, text). Kinds: [`URL`], [`NOT_UTF8`], [`TOO_LONG`].
type Line = (u8, String);
const URL: u8 = 0;
const NOT_UTF8: u8 = 1;
const TOO_LONG: u8 = 2; // (its text is "")

#[pyclass(module = "sitemap_reader._native", name = "TextScanner")]
pub(crate) struct PyTextScanner {
    inner: TextScanner,
    closed: bool,
    panic: Option<Panic>, // set once a panic was caught: the scanner is not used again
}

#[pymethods]
impl PyTextScanner {
    #[new]
    #[pyo3(signature = (*, max_line_bytes))]
    fn new(max_line_bytes: usize) -> Self {
        Self {
            inner: TextScanner::new(max_line_bytes),
            closed: false,
            panic: None,
        }
    }

    fn feed(&mut self, py: Python<'_>, data: &[u8]) -> PyResult<Vec<Line>> {
        if self.closed {
            return Err(PyRuntimeError::new_err(
                "TextScanner.feed() called after close()",
            ));
        }
        Ok(self.guarded(py, |scanner| scanner.feed(data)))
    }

    fn close(&mut self, py: Python<'_>) -> Vec<Line> {
        if self.closed {
            return Vec::new();
        }
        self.closed = true;
        self.guarded(py, TextScanner::close)
    }

    /// Lines that held something, so far.
    #[getter]
    fn lines(&self) -> u64 {
        self.inner.lines()
    }

    /// Whether a line looked like a URL, or was too long to tell.
    #[getter]
    fn urlish(&self) -> bool {
        self.inner.urlish()
    }

    /// ("internal", 0, message) once a panic was caught, else None: lines have no faults.
    #[getter]
    fn error(&self) -> Option<(&'static str, u64, String)> {
        let panic = self.panic.as_ref()?;
        Some(("internal", 0, panic.message.clone()))
    }
}

impl PyTextScanner {
    fn guarded<F>(&mut self, py: Python<'_>, work: F) -> Vec<Line>
    where
        F: FnOnce(&mut TextScanner) -> Vec<TextLine> + Send,
    {
        if self.panic.is_some() {
            return Vec::new();
        }
        let inner = &mut self.inner;
        match py.detach(|| caught(|| work(inner))) {
            Ok(lines) => lines.into_iter().map(line).collect(),
            Err(error) => {
                self.panic = Some(error);
                Vec::new()
            }
        }
    }
}

fn line(line: TextLine) -> Line {
    match line {
        TextLine::Url(text) => (URL, text),
        TextLine::NotUtf8(text) => (NOT_UTF8, text),
        TextLine::TooLong => (TOO_LONG, String::new()),
    }
}
