//! `sitemap_reader._native.run_keys`: the change feed's keys of a run's URLs (`keys.rs`),
//! hashed with the GIL released; what `_io/_state/_runs.py` calls on the compiled core.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

use crate::guard::caught;
use crate::keys::packed_keys;

/// Each URL's key, packed as little-endian 64-bit integers. A URL that is not valid UTF-8
/// (a lone surrogate) raises UnicodeEncodeError, as `str.encode` does: the caller hashes
/// those as the pure core does.
#[pyfunction]
pub fn run_keys<'py>(py: Python<'py>, locs: &Bound<'py, PyList>) -> PyResult<Bound<'py, PyBytes>> {
    // Copied out (one memcpy a URL) so that the hashing runs detached.
    let mut text = Vec::new();
    let mut ends = Vec::with_capacity(locs.len());
    for loc in locs.iter() {
        text.extend_from_slice(loc.cast::<PyString>()?.to_str()?.as_bytes());
        ends.push(text.len());
    }
    let packed = py
        .detach(|| caught(|| packed_keys(&text, &ends)))
        .map_err(|panic| {
            crate::py_block::count_panic();
            PyRuntimeError::new_err(panic.message)
        })?;
    Ok(PyBytes::new(py, &packed))
}
