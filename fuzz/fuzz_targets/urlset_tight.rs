//! As `urlset_split`, under a token bound of 64 bytes: every limit is reachable in a short
//! input, so whole and cut reads must also agree on which bound, or which fault, came first.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sitemap_reader_native::UrlsetScanner;
use sitemap_reader_native_fuzz::{check, TIGHT_TOKEN_BYTES};

fuzz_target!(|input: &[u8]| check::<UrlsetScanner>(input, TIGHT_TOKEN_BYTES));
