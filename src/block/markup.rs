//! Comments and processing instructions in and between blocks, judged by expat's rules
//! for them: one that passes is skipped here (the exact path reads nothing of it), any
//! other is odd, and expat reports it.

use super::text::Odd;

/// A comment's text between `<!--` and `-->`: XML forbids `--` in it (so also a `-`
/// before the `-->`) and the control characters it forbids anywhere.
pub(crate) fn comment(text: &str) -> Result<(), Odd> {
    let bytes = text.as_bytes();
    if memchr::memmem::find(bytes, b"--").is_some() || bytes.last() == Some(&b'-') {
        return Err(Odd);
    }
    chars(bytes)
}

/// A processing instruction's text between `<?` and `?>`: a target, then nothing, or
/// white space and any characters. A target expat might refuse (`xml` in any case, a
/// name beyond the ASCII letters, digits, `_`, `-` and `.` generators write, a prefix)
/// is odd.
pub(crate) fn instruction(text: &str) -> Result<(), Odd> {
    let bytes = text.as_bytes();
    let end = bytes.iter().position(|&b| is_ws(b)).unwrap_or(bytes.len());
    let target = &bytes[..end];
    let plain = target
        .first()
        .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
        && target[1..]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'));
    if !plain || target.eq_ignore_ascii_case(b"xml") {
        return Err(Odd);
    }
    chars(bytes)
}

/// No control character but tab, LF and CR (U+FFFE and U+FFFF never reach a block:
/// the scanner stops at them).
fn chars(bytes: &[u8]) -> Result<(), Odd> {
    let mut bad = false;
    for &b in bytes {
        bad |= (b < 0x20) & !is_ws(b); // (one pass, no early exit: see text::chars_cr)
    }
    if bad {
        Err(Odd)
    } else {
        Ok(())
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_as_expat_reads_them() {
        for ok in ["", " c ", "a-b", "\r\n\t<url>&amp;", "é -x"] {
            assert_eq!(comment(ok), Ok(()), "{ok:?}");
        }
        for odd in ["a--b", "--", "a-", "-", "a\u{1}", "\u{b}"] {
            assert_eq!(comment(odd), Err(Odd), "{odd:?}");
        }
    }

    #[test]
    fn instructions_as_expat_reads_them() {
        for ok in [
            "x",
            "xml-stylesheet href=\"a\"",
            "a\r\nb?",
            "_a.b-c  ",
            "xmlx",
        ] {
            assert_eq!(instruction(ok), Ok(()), "{ok:?}");
        }
        for odd in [
            "", " x", "xml", "XmL a", "a:b", "1a", "é", "a\u{1}", "a\u{c}b", "x\u{a0}y",
        ] {
            assert_eq!(instruction(odd), Err(Odd), "{odd:?}");
        }
    }
}
