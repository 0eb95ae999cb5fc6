//! The extension module `sitemap_reader._native`, typed by `sitemap_reader/_native.pyi`: the
//! block scanner (`py_block.rs`), the interface it is given and the numbers the package
//! checks at import (`pyface.rs`), the line writer (`pylines.rs`), the text scanner
//! (`pytext.rs`), the inflater (`py_inflate.rs`) and the change feed's keys (`pykeys.rs`). Each runs its work detached from the
//! interpreter (the GIL released), and a panic is caught and reported, never raised as
//! Python's PanicException.

use pyo3::prelude::*;

#[pymodule(name = "_native")]
fn native_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::py_block::register(m)?;
    crate::pyface::register(m)?;
    crate::pylines::register(m)?;
    m.add_class::<crate::pytext::PyTextScanner>()?;
    m.add_class::<crate::py_inflate::PyInflater>()?;
    m.add_function(wrap_pyfunction!(crate::pykeys::run_keys, m)?)?;
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
