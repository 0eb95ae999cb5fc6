//! The compiled reader of whole `<url>` / `<sitemap>` blocks, the XML reader's fast path:
//! the blocks it reads exactly become records as the exact path's record functions
//! (`_core/_xml/_records.py`) would make them; every other block goes to expat under the
//! handover contract of [`scan`].

mod check;
pub mod extend;
mod judge;
mod markup;
pub mod read;
pub mod scan;
pub(crate) mod text;

#[cfg(test)]
mod proptests;

pub use extend::Build;
pub use read::{Container, Ext, Fields, Repeat, CORE, FRESH, IMAGE, LOOKALIKE, OTHER, XHTML};
pub use scan::{handovers, BlockScanner, Limits, Place, Record, Step, BLOCK_MAX};
