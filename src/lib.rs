//! The compiled core of sitemap-reader.
//!
//! For now one piece: [`urlset::UrlsetScanner`], a sans-IO tokenizer of plain urlsets on
//! quick-xml. It is not the reader's core yet: the Python package keeps its own parser
//! until this one yields the same records and problems. And [`text::TextScanner`], the
//! byte work of plain-text sitemaps, which the reader uses. The Rust part is free of PyO3
//! (`cargo test` needs no libpython); the `python` feature adds the bindings.

#![forbid(unsafe_code)]

pub mod guard;
mod names;
mod refs;
pub mod text;
pub mod urlset;

#[cfg(test)]
mod proptests;

#[cfg(feature = "python")]
mod py;
#[cfg(feature = "python")]
mod pytext;

pub use urlset::{ErrorKind, ScanError, UrlRecord, UrlsetScanner, DEFAULT_MAX_TOKEN_BYTES};
