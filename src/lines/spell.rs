//! How Python spells a value in the writers' output: a JSON string as
//! `json.encoder.encode_basestring` writes it (`ensure_ascii=False`), a float as
//! `repr(float)`, a datetime as `datetime.isoformat()`, a csv field as the `csv` module's
//! minimal quoting does.

use std::fmt::Write as _;

use crate::record::DateTime;

/// `s` quoted as JSON: `"` and `\` escaped, the short escapes for `\n \r \t \b \f`, any
/// other character below U+0020 as `\u00XX` (lowercase hex); the rest, non-ASCII
/// included, as it is.
pub fn json_string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        if !ESCAPED[usize::from(byte)] {
            continue; // (every byte of a multi-byte character is >= 0x80)
        }
        out.extend_from_slice(&bytes[start..i]);
        start = i + 1;
        let short: &[u8] = match byte {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            _ => b"",
        };
        if short.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(byte >> 4)]);
            out.push(HEX[usize::from(byte & 0x0f)]);
        } else {
            out.extend_from_slice(short);
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// The bytes a JSON string escapes: the control characters, the quote and the backslash
/// (a table: most strings have none, and a lookup a byte is the fastest test of that).
static ESCAPED: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// `repr(value)` of a Python float: the shortest digits that read back as `value`, laid out
/// as CPython does ("0.5", "1.0", "1e-05", "1e+16", "-0.0", "nan", "inf").
pub fn float_repr(out: &mut Vec<u8>, value: f64) {
    if value.is_nan() {
        out.extend_from_slice(b"nan");
        return;
    }
    if value.is_sign_negative() {
        out.push(b'-');
    }
    let value = value.abs();
    if value.is_infinite() {
        out.extend_from_slice(b"inf");
        return;
    }
    // Rust's LowerExp writes the shortest round-trip digits too: "1.2345e-5", "0e0". Where
    // two such strings lie equally near the value (562949953421312.25: ...2 or ...3), it
    // takes the upper one and CPython the even one, as an exact-precision format does.
    let shortest = format!("{value:e}");
    let places = shortest
        .split_once('e')
        .map_or(0, |(m, _)| m.len().saturating_sub(2));
    let even = format!("{value:.places$e}");
    let text = if even != shortest && even.parse::<f64>() == Ok(value) {
        even
    } else {
        shortest
    };
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: Vec<u8> = mantissa.bytes().filter(|b| *b != b'.').collect();
    let point = exponent + 1; // value = 0.DIGITS x 10^point
    if !(-4 < point && point <= 16) {
        // Exponent form: "d.ddde+XX", two exponent digits at least, no ".0" added.
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(Bytes(out), "e{sign}{:02}", exponent.unsigned_abs());
    } else if point <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', point.unsigned_abs() as usize));
        out.extend_from_slice(&digits);
    } else {
        let point = point as usize; // (1..=16 here)
        if point >= digits.len() {
            out.extend_from_slice(&digits);
            out.extend(std::iter::repeat_n(b'0', point - digits.len()));
            out.extend_from_slice(b".0");
        } else {
            out.extend_from_slice(&digits[..point]);
            out.push(b'.');
            out.extend_from_slice(&digits[point..]);
        }
    }
}

/// A float as `json.dumps` writes it: its repr, and JavaScript's names where JSON has none.
pub fn json_number(out: &mut Vec<u8>, value: f64) {
    if value.is_nan() {
        out.extend_from_slice(b"NaN");
    } else if value.is_infinite() {
        out.extend_from_slice(if value > 0.0 {
            b"Infinity"
        } else {
            b"-Infinity"
        });
    } else {
        float_repr(out, value);
    }
}

/// `value.isoformat()`: microseconds only when there are any, the offset as `+HH:MM`, with
/// `:SS` when it has seconds. (Digits pushed by hand: `write!` costs more than the rest of
/// a line.)
pub fn isoformat(out: &mut Vec<u8>, value: &DateTime) {
    if (0..=9999).contains(&value.year) {
        let year = value.year as u32; // (0..=9999: as Python's %04d)
        two(out, year / 100);
        two(out, year % 100);
    } else {
        let _ = write!(Bytes(out), "{:04}", value.year); // (no Python datetime has one)
    }
    out.push(b'-');
    two(out, value.month.into());
    out.push(b'-');
    two(out, value.day.into());
    out.push(b'T');
    two(out, value.hour.into());
    out.push(b':');
    two(out, value.minute.into());
    out.push(b':');
    two(out, value.second.into());
    let micro = value.microsecond;
    if micro >= 1_000_000 {
        let _ = write!(Bytes(out), ".{micro}"); // (out of Python's range: as it is)
    } else if micro != 0 {
        out.push(b'.');
        two(out, micro / 10_000);
        two(out, micro / 100 % 100);
        two(out, micro % 100);
    }
    out.push(if value.offset_seconds < 0 { b'-' } else { b'+' });
    let offset = value.offset_seconds.unsigned_abs();
    two(out, offset / 3600);
    out.push(b':');
    two(out, offset % 3600 / 60);
    if offset % 60 != 0 {
        out.push(b':');
        two(out, offset % 60);
    }
}

/// `value` in two digits at least, as `%02d`.
fn two(out: &mut Vec<u8>, value: u32) {
    if value >= 100 {
        let _ = write!(Bytes(out), "{value}");
        return;
    }
    out.push(b'0' + (value / 10) as u8);
    out.push(b'0' + (value % 10) as u8);
}

/// One csv field under `csv.QUOTE_MINIMAL` with `lineterminator="\n"`: quoted (its quotes
/// doubled) when it holds a comma, a quote or a line feed, or a carriage return where the
/// running Python's csv quotes one (3.13 and later: `quote_cr`).
pub fn csv_field(out: &mut Vec<u8>, field: &str, quote_cr: bool) {
    let special = |b: &u8| matches!(b, b',' | b'"' | b'\n') || (quote_cr && *b == b'\r');
    if !field.as_bytes().iter().any(special) {
        out.extend_from_slice(field.as_bytes());
        return;
    }
    out.push(b'"');
    for piece in field.split_inclusive('"') {
        out.extend_from_slice(piece.as_bytes());
        if piece.ends_with('"') {
            out.push(b'"');
        }
    }
    out.push(b'"');
}

/// `fmt::Write` onto a byte buffer (what is written is UTF-8 already).
struct Bytes<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Bytes<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spelled(write: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        write(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn floats_are_spelled_as_python_repr() {
        // (value, repr(value)) as CPython 3 prints them.
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.5, "0.5"),
            (0.1, "0.1"),
            (0.8, "0.8"),
            (1.5, "1.5"),
            (0.30000000000000004, "0.30000000000000004"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (0.000123, "0.000123"),
            (0.0000123, "1.23e-05"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (123456789012345.6, "123456789012345.6"),
            (1e22, "1e+22"),
            (1e100, "1e+100"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"),
            (-2.5e-7, "-2.5e-07"),
            (12.0, "12.0"),
            (100.25, "100.25"),
            // Ties between two shortest strings: the even one, as CPython.
            (2f64.powi(49) + 0.25, "562949953421312.2"),
            (2f64.powi(49) + 0.75, "562949953421312.8"),
            (4.35, "4.35"),
            (f64::NAN, "nan"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for &(value, repr) in cases {
            assert_eq!(spelled(|out| float_repr(out, value)), repr, "{value:e}");
        }
    }

    proptest::proptest! {
        #[test]
        fn every_float_reads_back(bits: u64) {
            let value = f64::from_bits(bits);
            let text = spelled(|out| float_repr(out, value));
            if value.is_nan() {
                proptest::prop_assert_eq!(text, "nan");
            } else {
                proptest::prop_assert_eq!(text.parse::<f64>().map(f64::to_bits), Ok(bits));
            }
        }
    }

    #[test]
    fn json_numbers_name_what_json_has_no_number_for() {
        assert_eq!(spelled(|out| json_number(out, f64::NAN)), "NaN");
        assert_eq!(spelled(|out| json_number(out, f64::INFINITY)), "Infinity");
        assert_eq!(
            spelled(|out| json_number(out, f64::NEG_INFINITY)),
            "-Infinity"
        );
        assert_eq!(spelled(|out| json_number(out, 0.5)), "0.5");
    }

    #[test]
    fn json_strings_escape_as_encode_basestring() {
        let cases: &[(&str, &str)] = &[
            ("", r#""""#),
            ("plain", r#""plain""#),
            ("a\"b\\c", r#""a\"b\\c""#),
            ("\n\r\t\u{8}\u{c}", r#""\n\r\t\b\f""#),
            ("\u{0}\u{1}\u{1f}", r#""\u0000\u0001\u001f""#),
            ("\u{7f}", "\"\u{7f}\""), // DEL is no control character to JSON
            ("é€😀\u{2028}", "\"é€😀\u{2028}\""),
            ("x\u{1b}[0m", r#""x\u001b[0m""#),
        ];
        for &(text, json) in cases {
            assert_eq!(spelled(|out| json_string(out, text)), json, "{text:?}");
        }
    }

    #[test]
    fn datetimes_are_spelled_as_isoformat() {
        let date = crate::lines::tests::at;
        let cases: &[(DateTime, &str)] = &[
            (date(0, 0), "2024-05-01T09:03:07+00:00"),
            (date(120, 3600), "2024-05-01T09:03:07.000120+01:00"),
            (date(0, -18000), "2024-05-01T09:03:07-05:00"),
            (date(0, 19800), "2024-05-01T09:03:07+05:30"),
            (date(0, -(3600 + 61)), "2024-05-01T09:03:07-01:01:01"),
            (date(999_999, 86399), "2024-05-01T09:03:07.999999+23:59:59"),
            (
                DateTime {
                    year: 7,
                    ..date(0, 0)
                },
                "0007-05-01T09:03:07+00:00",
            ),
        ];
        for (value, iso) in cases {
            assert_eq!(spelled(|out| isoformat(out, value)), *iso);
        }
    }

    #[test]
    fn csv_fields_are_quoted_only_when_they_must() {
        let cases: &[(&str, bool, &str)] = &[
            ("", false, ""),
            ("a b", false, "a b"),
            ("a,b", false, "\"a,b\""),
            ("say \"hi\"", false, "\"say \"\"hi\"\"\""),
            ("\"", false, "\"\"\"\""),
            ("a\nb", false, "\"a\nb\""),
            ("a\rb", false, "a\rb"),
            ("a\rb", true, "\"a\rb\""),
            ("\u{0}é", false, "\u{0}é"),
        ];
        for &(field, quote_cr, written) in cases {
            assert_eq!(
                spelled(|out| csv_field(out, field, quote_cr)),
                written,
                "{field:?}"
            );
        }
    }
}
