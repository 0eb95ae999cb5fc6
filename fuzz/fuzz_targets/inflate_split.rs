//! The inflater (gzip and deflate) on arbitrary bytes: it never panics, and the whole
//! stream and its chunks inflate to the same bytes, the same fault and the same `complete`,
//! with a step of one byte, 64 bytes or 64 KiB (the first byte's two low bits).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sitemap_reader_native_fuzz::{check, InflateRun, TIGHT_TOKEN_BYTES};

fuzz_target!(|input: &[u8]| {
    let Some((&choice, rest)) = input.split_first() else {
        return;
    };
    let step = match choice & 3 {
        0 => 1,
        1 => TIGHT_TOKEN_BYTES,
        _ => 65_536,
    };
    if choice & 4 == 0 {
        check::<InflateRun<true>>(rest, step);
    } else {
        check::<InflateRun<false>>(rest, step);
    }
});
