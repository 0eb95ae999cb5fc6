//! References in text: `&#n;`, `&#xh;` and the five predefined entities, decoded once.
//! Nothing else is an entity here: no DTD is read, so any other name is an error.

/// The fault of a '&' that no reference follows ("& ", or "&x" and no ';' before '<').
const UNCLOSED: &str = "a '&' that starts no reference (no ';' ends it; write &amp;)";

/// Whether `b` can be in the name of a reference.
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"#._:-".contains(&b) || b >= 0x80
}

/// What `&name;` stands for, or why it cannot be read.
pub(crate) fn resolve(name: &str) -> Result<char, String> {
    // quick-xml reads up to the ';' whatever comes between: "&a b;" is no reference.
    if name.is_empty() || !name.bytes().all(is_name_byte) {
        return Err(UNCLOSED.to_owned());
    }
    if let Some(number) = name.strip_prefix('#') {
        let value = match number.strip_prefix('x') {
            Some(hex) if valid_digits(hex, 16) => u32::from_str_radix(hex, 16).ok(),
            None if valid_digits(number, 10) => number.parse::<u32>().ok(),
            _ => None,
        };
        return match value.and_then(char::from_u32) {
            Some(c) if is_xml_char(c) => Ok(c),
            _ => Err(format!("reference to an invalid character (&{name};)")),
        };
    }
    match name {
        "lt" => Ok('<'),
        "gt" => Ok('>'),
        "amp" => Ok('&'),
        "apos" => Ok('\''),
        "quot" => Ok('"'),
        _ => Err(format!(
            "undefined entity &{name}; (only character references and the five predefined \
             entities are read)"
        )),
    }
}

fn valid_digits(digits: &str, radix: u32) -> bool {
    // from_str_radix takes a leading '+'; XML does not.
    !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix))
}

/// XML 1.0's Char production (surrogates cannot be a `char`).
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn character_references_and_the_predefined_entities() {
        assert_eq!(resolve("#97"), Ok('a'));
        assert_eq!(resolve("#x65"), Ok('e'));
        assert_eq!(resolve("#x1F600"), Ok('\u{1F600}'));
        assert_eq!(resolve("amp"), Ok('&'));
        assert_eq!(resolve("quot"), Ok('"'));
    }

    #[test]
    fn everything_else_is_refused() {
        for name in [
            "#0",
            "#x0",
            "#1",
            "#xD800",
            "#x110000",
            "#+1",
            "#x",
            "#",
            "#xFFFE",
            "nbsp",
            "#99999999999",
        ] {
            assert!(resolve(name).is_err(), "{name}");
        }
    }
}
