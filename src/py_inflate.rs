//! The inflater's bindings: `sitemap_reader._native.Inflater` (see `py.rs` for the module),
//! which `sitemap_reader/_core/_codings.py` wraps as its gzip and deflate decoders on the
//! compiled core. Each pull inflates one piece with the GIL released; a panic is caught
//! and becomes the stream's fault, never PanicException.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::guard::caught;
use crate::inflate::{Coding, Inflater};

#[pyclass(module = "sitemap_reader._native", name = "Inflater")]
pub(crate) struct PyInflater {
    inner: Inflater,
}

#[pymethods]
impl PyInflater {
    #[new]
    #[pyo3(signature = (coding, *, step))]
    fn new(coding: &str, step: usize) -> PyResult<Self> {
        let coding = match coding {
            "gzip" => Coding::Gzip,
            "deflate" => Coding::Deflate,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "Inflater undoes gzip or deflate, not {coding:?}"
                )))
            }
        };
        Ok(Self {
            inner: Inflater::new(coding, step),
        })
    }

    /// Take the next compressed bytes (a copy: the work runs without the GIL).
    fn push(&mut self, data: &[u8]) {
        self.inner.push(data);
    }

    /// The next piece of output (at most `step` bytes), or None until more input comes.
    fn pull<'py>(&mut self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        let inner = &mut self.inner;
        match py.detach(|| caught(|| inner.pull())) {
            Ok(0) => None,
            Ok(_) => Some(PyBytes::new(py, self.inner.piece())),
            Err(panic) => {
                crate::py_block::count_panic();
                self.inner.fail(panic.message);
                None
            }
        }
    }

    /// True when the stream ended where it should (not cut midway).
    #[getter]
    fn complete(&self) -> bool {
        self.inner.complete()
    }

    /// The fault that ended the stream, in CPython's zlib words, else None.
    #[getter]
    fn fault(&self) -> Option<&str> {
        self.inner.fault()
    }
}
