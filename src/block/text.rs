//! Values as expat hands them to the Python reader: line ends normalised, references
//! decoded once, then stripped as Python's `str.strip()` strips (Unicode white space).

use crate::refs;

/// Python's `str.isspace()`: what `str.strip()` takes off both ends.
pub(crate) fn is_py_space(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\u{1c}'..='\u{20}'
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// `text` stripped as `str.strip()` strips it.
pub(crate) fn py_strip(text: &str) -> &str {
    text.trim_matches(is_py_space)
}

/// Why a piece of a value is not taken here: the block is expat's to judge.
#[derive(Debug, PartialEq, Eq)]
pub struct Odd;

/// Append a run of character data (text or a CDATA section) with CR LF and a lone CR
/// made LF, as expat does; a control character XML forbids, or `>` in text (`]]>` is
/// not allowed there: expat judges), is odd.
pub(crate) fn push_chars(out: &mut String, raw: &str, cdata: bool) -> Result<(), Odd> {
    if chars_cr(raw, cdata)? {
        push_line_ends(out, raw);
    } else {
        out.push_str(raw);
    }
    Ok(())
}

/// Whether a run of character data holds a CR (its line ends need rewriting), or `Odd`
/// as [`push_chars`] judges it. One pass without early exits, which the compiler turns
/// into wide compares: values are short, and nearly all of them are plain.
pub(crate) fn chars_cr(raw: &str, cdata: bool) -> Result<bool, Odd> {
    let (mut bad, mut cr) = (false, false);
    let gt = if cdata { 0 } else { b'>' }; // (no value holds a NUL: expat refuses it)
    for &b in raw.as_bytes() {
        bad |= (b < 0x20) & (b != b'\t') & (b != b'\n') & (b != b'\r');
        bad |= b == gt;
        cr |= b == b'\r';
    }
    if bad {
        Err(Odd)
    } else {
        Ok(cr)
    }
}

/// `raw` appended to `out` with XML's line ends: CR LF and a lone CR become LF.
pub(crate) fn push_line_ends(out: &mut String, raw: &str) {
    let mut rest = raw;
    while let Some(i) = rest.find('\r') {
        out.push_str(&rest[..i]);
        out.push('\n');
        rest = rest[i + 1..].strip_prefix('\n').unwrap_or(&rest[i + 1..]);
    }
    out.push_str(rest);
}

/// Append what `&name;` stands for; a reference expat would refuse is odd.
pub(crate) fn push_ref(out: &mut String, name: &str) -> Result<(), Odd> {
    out.push(refs::resolve(name).map_err(|_| Odd)?);
    Ok(())
}

/// An attribute's value between its quotes, decoded: only the shape generators write
/// (no tab, line break, `<` or control character, which expat rewrites or refuses).
/// Without a reference it is `raw` itself; else it is decoded into `out`.
pub(crate) fn attribute_value<'a>(raw: &'a str, out: &'a mut String) -> Result<&'a str, Odd> {
    let mut bad = false;
    for &b in raw.as_bytes() {
        bad |= b < 0x20 || b == b'<'; // (one pass, no early exit: see chars_cr)
    }
    if bad {
        return Err(Odd);
    }
    let Some(first) = memchr::memchr(b'&', raw.as_bytes()) else {
        return Ok(raw);
    };
    out.clear();
    let mut rest = raw;
    let mut at = first;
    loop {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let end = memchr::memchr(b';', after.as_bytes()).ok_or(Odd)?;
        push_ref(out, &after[..end])?;
        rest = &after[end + 1..];
        match memchr::memchr(b'&', rest.as_bytes()) {
            Some(i) => at = i,
            None => break,
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_is_pythons() {
        assert_eq!(py_strip("\u{3000} a b\u{85}\n"), "a b");
        assert_eq!(py_strip("\u{feff}a"), "\u{feff}a"); // (not white space to Python)
        assert_eq!(py_strip("\u{200b}a"), "\u{200b}a");
    }

    #[test]
    fn line_ends_as_expat() {
        let mut out = String::new();
        push_chars(&mut out, "a\r\nb\rc\n", false).unwrap();
        assert_eq!(out, "a\nb\nc\n");
        assert_eq!(push_chars(&mut out, "a>b", false), Err(Odd));
        assert!(push_chars(&mut out, "a>b", true).is_ok());
        assert_eq!(push_chars(&mut out, "a\u{1}", true), Err(Odd));
    }

    #[test]
    fn attribute_values() {
        let mut out = String::new();
        assert_eq!(attribute_value("a&amp;b&#x41;", &mut out), Ok("a&bA"));
        assert_eq!(attribute_value("a&lt;", &mut out), Ok("a<"));
        assert_eq!(attribute_value("plain", &mut out), Ok("plain"));
        assert_eq!(attribute_value("a\tb", &mut out), Err(Odd));
        assert_eq!(attribute_value("a&b", &mut out), Err(Odd));
        assert_eq!(attribute_value("&#1;", &mut out), Err(Odd));
    }
}
