//! The urlset tokenizer on arbitrary bytes: whole and cut at fuzzer-chosen points, it must
//! give the same records and the same fault, and never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sitemap_reader_native::{UrlsetScanner, DEFAULT_MAX_TOKEN_BYTES};

fuzz_target!(|input: &[u8]| {
    sitemap_reader_native_fuzz::check::<UrlsetScanner>(input, DEFAULT_MAX_TOKEN_BYTES);
});
