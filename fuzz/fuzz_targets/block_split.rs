//! The XML reader's compiled fast path (the block scanner) on arbitrary bytes: it never
//! panics, and on valid UTF-8 without U+FFFE or U+FFFF the whole document and its chunks
//! build the same records, hand back the same ones for judging and give expat the same
//! bytes (see `BlockRun`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sitemap_reader_native_fuzz::{check, read, splits_agree, BlockRun, Plan, TIGHT_TOKEN_BYTES};

fuzz_target!(|input: &[u8]| {
    // The token bound from the first byte: the default, or tight enough to reach it.
    let Some((&bound, rest)) = input.split_first() else {
        return;
    };
    let max_token_bytes = if bound & 1 == 0 {
        1 << 20
    } else {
        TIGHT_TOKEN_BYTES
    };
    let Some(plan) = Plan::decode(rest, max_token_bytes) else {
        return;
    };
    if splits_agree(plan.doc) {
        check::<BlockRun>(rest, max_token_bytes);
    } else {
        read::<BlockRun>(&plan.chunks(), max_token_bytes); // no panic, nothing to compare
    }
});
