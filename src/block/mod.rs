//! The compiled reader of whole `<url>` / `<sitemap>` blocks: the Python fast path
//! (`_core/_xml/_scan.py` with `_blocks.py` and `_records.py`) in Rust, under the same
//! handover contract with expat (see [`scan`]).

mod check;
pub mod extend;
mod judge;
pub mod read;
pub mod scan;
pub(crate) mod text;

#[cfg(test)]
mod proptests;

pub use extend::Build;
pub use read::{Container, Ext, Fields, CORE, IMAGE, XHTML};
pub use scan::{BlockScanner, Limits, Record, Step, BLOCK_MAX};
