//! The text scanner on arbitrary bytes, under a small line bound (so lines over it are
//! common): whole and cut at fuzzer-chosen points, the same lines and the same counts.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sitemap_reader_native::text::TextScanner;
use sitemap_reader_native_fuzz::{check, TIGHT_TOKEN_BYTES};

fuzz_target!(|input: &[u8]| check::<TextScanner>(input, TIGHT_TOKEN_BYTES));
