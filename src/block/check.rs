//! The checks of the Python records (`_records.emit_entry`, `Document.check_loc`,
//! `_dates.parse_datetime`) for the values generators write. Each says `None` for
//! anything it does not judge exactly as Python: the Python code then judges it.

use super::text::is_py_space;
use crate::record::{ChangeFreq, DateTime};

/// `Document.check_loc`'s fast branch: `Some(loc)` when Python takes it as it is.
pub(crate) fn plain_loc(raw: &str, max_loc_length: usize) -> bool {
    let rest = raw
        .strip_prefix("https://")
        .or_else(|| raw.strip_prefix("http://"));
    let Some(head) = rest.and_then(|r| r.chars().next()) else {
        return false;
    };
    !matches!(head, '/' | '?' | '#' | ':')
        && !is_py_space(head)
        && memchr::memchr3(b'@', b'[', b']', raw.as_bytes()).is_none()
        && (raw.len() <= max_loc_length || raw.chars().count() <= max_loc_length)
}

/// A changefreq value as `emit_entry` reads it (exact, or lowercased), ASCII only.
pub(crate) fn changefreq(raw: &str) -> Option<ChangeFreq> {
    if !raw.is_ascii() {
        return None;
    }
    ChangeFreq::ALL
        .into_iter()
        .find(|c| c.as_str().eq_ignore_ascii_case(raw))
}

/// A priority as `float()` reads it, for plain decimals from 0 to 1.
pub(crate) fn priority(raw: &str) -> Option<f64> {
    plain_decimal(raw).filter(|value| (0.0..=1.0).contains(value))
}

/// `float(raw)` for plain decimals (`0.64`, `1`, `.5`, `1.`): both round correctly, so
/// they give the same number. Anything else (a sign, an exponent, `nan`) is Python's.
pub(crate) fn plain_decimal(raw: &str) -> Option<f64> {
    let (int, frac) = raw.split_once('.').unwrap_or((raw, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if raw.len() > 32 || (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return None;
    }
    raw.parse().ok()
}

/// `parse_datetime` for its three common shapes (`YYYY-MM-DD`, `...Thh:mm:ssZ` and
/// `...Thh:mm:ss+hh:mm`) where every part is a valid number; `None` for anything else.
pub(crate) fn lastmod(raw: &str) -> Option<DateTime> {
    let b = raw.as_bytes();
    let n = b.len();
    if !(n == 10 || n == 20 || n == 25) || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |at: usize, len: usize| -> Option<u32> {
        let digits = b.get(at..at + len)?;
        digits.iter().try_fold(0u32, |acc, &d| {
            d.is_ascii_digit().then(|| acc * 10 + u32::from(d - b'0'))
        })
    };
    let year = num(0, 4)?;
    let month = num(5, 2)?;
    let day = num(8, 2)?;
    if year == 0 || !(1..=12).contains(&month) || day == 0 || day > days_in(year, month) {
        return None;
    }
    let mut value = DateTime {
        year: i32::try_from(year).ok()?,
        month: u8::try_from(month).ok()?,
        day: u8::try_from(day).ok()?,
        hour: 0,
        minute: 0,
        second: 0,
        microsecond: 0,
        offset_seconds: 0,
        date_alone: n == 10,
    };
    if n == 10 {
        return Some(value);
    }
    if b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    value.hour = u8::try_from(hour).ok()?;
    value.minute = u8::try_from(minute).ok()?;
    value.second = u8::try_from(second).ok()?;
    if n == 20 {
        return (b[19] == b'Z').then_some(value);
    }
    let sign = match b[19] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    if b[22] != b':' {
        return None;
    }
    let (oh, om) = (num(20, 2)?, num(23, 2)?);
    if oh > 23 || om > 59 {
        return None;
    }
    value.offset_seconds = sign * i32::try_from(oh * 3600 + om * 60).ok()?;
    Some(value)
}

fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locs_of_the_fast_branch() {
        assert!(plain_loc("https://a/b", 2048));
        assert!(plain_loc("http://\u{e9}", 2048));
        for raw in [
            "https:///a",
            "http://",
            "ftp://a",
            "https://a@b",
            "https://[::1]/",
            "http:// a",
        ] {
            assert!(!plain_loc(raw, 2048), "{raw}");
        }
        assert!(!plain_loc("https://abc", 10));
        assert!(plain_loc("https://\u{e9}\u{e9}", 10)); // (characters, not bytes)
    }

    #[test]
    fn the_common_date_shapes() {
        let d = lastmod("2024-02-29T10:20:30+02:00").unwrap();
        assert_eq!(
            (d.year, d.month, d.day, d.hour, d.offset_seconds),
            (2024, 2, 29, 10, 7200)
        );
        assert_eq!(
            lastmod("2024-03-05T10:20:30-00:30").unwrap().offset_seconds,
            -1800
        );
        assert!(lastmod("2024-03-05").is_some_and(|d| d.date_alone));
        assert!(lastmod("2024-03-05T10:20:30Z").is_some());
        // Midnight UTC with its time of day written is no date alone (check's V420).
        assert!(lastmod("2024-03-05T00:00:00Z").is_some_and(|d| !d.date_alone));
        assert!(lastmod("2024-03-05T00:00:00+00:00").is_some_and(|d| !d.date_alone));
        for raw in [
            "2023-02-29",
            "0000-01-01",
            "2024-13-01",
            "2024-03-05T24:00:00Z",
            "2024-03-05t10:20:30Z",
            "2024-03-05T10:20:30+24:00",
            "2024-03-05 10:20:30Z",
            "2024-3-05",
            "+024-03-05",
        ] {
            assert!(lastmod(raw).is_none(), "{raw}");
        }
    }

    #[test]
    fn changefreq_and_priority() {
        assert_eq!(changefreq("Daily"), Some(ChangeFreq::Daily));
        assert_eq!(changefreq("sometimes"), None);
        assert_eq!(priority("0.5"), Some(0.5));
        assert_eq!(priority("0.3"), Some(3.0 / 10.0));
        assert_eq!(priority("1.5"), None);
        assert_eq!(priority("0.64"), Some(0.64));
        assert_eq!(priority(".5"), Some(0.5));
        assert_eq!(priority("1."), Some(1.0));
        for raw in [".", "", "+0.5", "1e-1", "nan", "0_5", "1.0001", "0.5 "] {
            assert_eq!(priority(raw), None, "{raw}");
        }
    }
}
