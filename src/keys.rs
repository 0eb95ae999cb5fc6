//! The change feed's keys (`sitemap_reader/_io/_state/_runs.py`): a URL's key is the first 8
//! bytes of the BLAKE2b digest of its UTF-8 (digest size 8) as a little-endian signed
//! 64-bit integer, as `hashlib.blake2b(loc, digest_size=8)` gives it on the pure core. A
//! state file written by either core is read by the other, so the two must agree bit for bit.

use blake2::digest::consts::U8;
use blake2::{Blake2b, Digest};

/// The key of one URL's UTF-8 bytes.
pub fn key(loc: &[u8]) -> i64 {
    i64::from_le_bytes(Blake2b::<U8>::digest(loc).into())
}

/// The keys of the URLs laid end to end in `text`, the `n`th ending at `ends[n]` (each end
/// at or after the one before and within `text`; one that is not ends the URLs there),
/// packed as little-endian 64-bit integers (what `array('q')` reads).
pub fn packed_keys(text: &[u8], ends: &[usize]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ends.len() * 8);
    let mut start = 0;
    for &end in ends {
        let Some(loc) = text.get(start..end) else {
            break; // not the layout promised: no key, never a panic
        };
        out.extend_from_slice(&key(loc).to_le_bytes());
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hashlib_gives_the_same() {
        // int.from_bytes(blake2b(b, digest_size=8).digest(), "little", signed=True)
        assert_eq!(key(b""), -5_426_141_060_434_712_860);
        assert_eq!(key(b"https://example.com/"), 6_581_209_984_513_522_196);
    }

    #[test]
    fn packed_in_order() {
        let text = b"ab";
        let packed = packed_keys(text, &[1, 2]);
        assert_eq!(packed.len(), 16);
        assert_eq!(&packed[..8], &key(b"a").to_le_bytes());
        assert_eq!(&packed[8..], &key(b"b").to_le_bytes());
        assert!(packed_keys(text, &[3]).is_empty());
        assert_eq!(packed_keys(text, &[2, 1]).len(), 8); // a backward end stops there
    }

    proptest! {
        #[test]
        fn any_layout_no_panic(text in proptest::collection::vec(any::<u8>(), 0..64),
                               ends in proptest::collection::vec(0usize..80, 0..16)) {
            let packed = packed_keys(&text, &ends);
            prop_assert!(packed.len() <= ends.len() * 8);
            prop_assert_eq!(packed.len() % 8, 0);
        }
    }
}
