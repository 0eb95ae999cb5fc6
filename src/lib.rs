//! The compiled core of sitemap-reader.
//!
//! - [`block`]: the XML reader's fast path beside the exact (expat) path of
//!   `sitemap_reader/_core/_xml/`: whole `<url>` / `<sitemap>` blocks read with
//!   quick-xml in a strict subset and judged as the Python record functions judge them,
//!   every other block handed to expat under the same contract; its records are
//!   [`record`]'s. The package uses it unless `SITEMAP_READER_PURE` is set.
//! - [`lines`]: the writer of jsonl / csv / txt lines from [`record`]'s records.
//! - [`text::TextScanner`]: the byte work of plain-text sitemaps, which the reader uses.
//! - [`inflate::Inflater`]: the gzip and deflate content codings, a bounded piece at a time.
//! - [`keys`]: the change feed's keys of URLs (BLAKE2b, 64 bits), as the state store keeps them.
//!
//! The Rust part is free of PyO3 (`cargo test` needs no libpython); the `python` feature
//! adds the bindings.

// The C API's unsafe calls are in `pyslots` (the bindings), each with why it holds: the
// records' allocator and slots, and the datetime module's constructor.
#![deny(unsafe_code)]

pub mod block;
pub mod guard;
pub mod inflate;
pub mod keys;
pub mod lines;
pub mod record;
mod refs;
pub mod robots;
pub mod text;

#[cfg(feature = "python")]
mod py;
#[cfg(feature = "python")]
mod py_block;
#[cfg(feature = "python")]
mod py_inflate;
#[cfg(feature = "python")]
mod pyface;
#[cfg(feature = "python")]
mod pykeys;
#[cfg(feature = "python")]
mod pylines;
#[cfg(feature = "python")]
mod pyrobots;
#[cfg(feature = "python")]
mod pyslots;
#[cfg(feature = "python")]
mod pytext;
