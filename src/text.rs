//! Plain-text sitemaps: one URL a line (sitemaps.org, "Text file"), bytes in any split.
//!
//! ```
//! use sitemap_reader_native::text::{TextLine, TextScanner};
//! let mut scanner = TextScanner::new(1024);
//! let mut lines = scanner.feed(b"\xEF\xBB\xBFhttps://a.example/\r\n  \n/b\xff");
//! lines.extend(scanner.close());
//! assert_eq!(lines[0], TextLine::Url("https://a.example/".into()));
//! assert_eq!(lines[1], TextLine::NotUtf8("/b%FF".into()));
//! assert!(scanner.urlish());
//! ```
//!
//! The Python handler (`sitemap_reader/_core/_formats/_text.py`) is the reference: this
//! type does its byte work (the lines, their bound, their encoding, whether any looks like
//! a URL) and leaves the judging of each URL and the counting to the document, which the
//! XML formats share. Lines are split on bytes, so a multi-byte character is never cut.

use memchr::memchr_iter;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One line that holds something, or a line over the bound, in the order they came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextLine {
    /// A UTF-8 line, stripped.
    Url(String),
    /// A line that is not UTF-8, stripped, its bytes outside ASCII's printable ones
    /// percent-encoded (as a browser would send them).
    NotUtf8(String),
    /// A line of more than the bound: not kept, counted once however it was split.
    TooLong,
}

/// See the module documentation.
#[derive(Debug)]
pub struct TextScanner {
    rest: Vec<u8>, // the line so far (never more than the bound)
    first: bool,
    skipping: bool, // inside a line already counted as too long
    lines: u64,     // lines that hold something
    urlish: bool,   // one of them looks like a URL, or was too long to tell
    max_line_bytes: usize,
    out: Vec<TextLine>,
}

impl TextScanner {
    pub fn new(max_line_bytes: usize) -> Self {
        Self {
            rest: Vec::new(),
            first: true,
            skipping: false,
            lines: 0,
            urlish: false,
            max_line_bytes,
            out: Vec::new(),
        }
    }

    /// Take the next bytes of the document; return the lines they completed.
    pub fn feed(&mut self, data: &[u8]) -> Vec<TextLine> {
        let mut data = data;
        if self.first {
            self.first = false;
            data = data.strip_prefix(BOM).unwrap_or(data);
        }
        let limit = self.max_line_bytes;
        let mut start = 0;
        for end in memchr_iter(b'\n', data) {
            let piece = &data[start..end];
            start = end + 1;
            if self.skipping {
                self.skipping = false; // the end of a line already counted
                continue;
            }
            if self.rest.is_empty() {
                self.whole_line(piece);
            } else {
                let mut line = std::mem::take(&mut self.rest);
                line.extend_from_slice(piece);
                self.whole_line(&line);
                line.clear();
                self.rest = line; // (its buffer kept for the next line)
            }
        }
        // The line that goes on: kept up to the bound, counted once past it.
        let tail = &data[start..];
        if !self.skipping {
            if self.rest.len() + tail.len() > limit {
                self.too_long();
                self.skipping = true;
                self.rest.clear();
            } else {
                self.rest.extend_from_slice(tail);
            }
        }
        std::mem::take(&mut self.out)
    }

    /// The end of the document: its last line, if it had no line end.
    pub fn close(&mut self) -> Vec<TextLine> {
        if !self.skipping && !self.rest.is_empty() {
            let line = std::mem::take(&mut self.rest);
            self.line(&line);
        }
        self.rest.clear();
        std::mem::take(&mut self.out)
    }

    /// Lines that held something, so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Whether a line looked like a URL (absolute http(s), or a path), or was too long to
    /// tell: a document with lines and none of these is no sitemap.
    pub fn urlish(&self) -> bool {
        self.urlish
    }

    fn whole_line(&mut self, line: &[u8]) {
        if line.len() > self.max_line_bytes {
            self.too_long(); // the same verdict as when it arrives in pieces
        } else {
            self.line(line);
        }
    }

    fn too_long(&mut self) {
        self.urlish = true; // (a URL too long, for all the reader can tell)
        self.out.push(TextLine::TooLong);
    }

    fn line(&mut self, line: &[u8]) {
        let line = strip(line);
        if line.is_empty() {
            return;
        }
        self.lines += 1;
        let head = &line[..line.len().min(8)];
        let http =
            starts_with_ignore_case(head, b"http://") || starts_with_ignore_case(head, b"https://");
        let item = match std::str::from_utf8(line) {
            Ok(text) => {
                self.urlish = self.urlish || http || (line[0] == b'/' && is_reference(line));
                TextLine::Url(text.to_owned())
            }
            Err(_) => {
                self.urlish = self.urlish || http;
                TextLine::NotUtf8(percent_encoded(line))
            }
        };
        self.out.push(item);
    }
}

/// `line` without the white space Python's `bytes.strip()` takes (`trim_ascii`'s set and
/// the vertical tab).
fn strip(line: &[u8]) -> &[u8] {
    let Some(start) = line.iter().position(|&b| !is_space(b)) else {
        return &[];
    };
    let end = line
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(start, |i| i + 1);
    &line[start..end]
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c')
}

fn starts_with_ignore_case(text: &[u8], prefix: &[u8]) -> bool {
    text.len() >= prefix.len() && text[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// RFC 3986 appendix C: white space, controls and `<>"` never occur in a URI reference.
fn is_reference(line: &[u8]) -> bool {
    !line
        .iter()
        .any(|&b| b <= 0x20 || b == 0x7F || matches!(b, b'<' | b'>' | b'"'))
}

/// Every byte outside `!`..`~` as `%XX` (upper-case hex), the rest as it is.
fn percent_encoded(line: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(line.len() * 3);
    for &b in line {
        if (0x21..0x7F).contains(&b) {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(pieces: &[&[u8]], max: usize) -> (Vec<TextLine>, u64, bool) {
        let mut scanner = TextScanner::new(max);
        let mut lines = Vec::new();
        for piece in pieces {
            lines.extend(scanner.feed(piece));
        }
        lines.extend(scanner.close());
        (lines, scanner.lines(), scanner.urlish())
    }

    fn url(text: &str) -> TextLine {
        TextLine::Url(text.to_owned())
    }

    #[test]
    fn lines_are_stripped_and_blank_ones_skipped() {
        let doc =
            b"\xEF\xBB\xBF\x0b https://a.example/1 \r\n\r\n\t\x0b\x0c\nhttps://a.example/2\rx\n/p";
        let (lines, count, urlish) = scan(&[doc], 1024);
        assert_eq!(
            lines,
            [
                url("https://a.example/1"),
                url("https://a.example/2\rx"),
                url("/p")
            ]
        );
        assert_eq!((count, urlish), (3, true));
    }

    #[test]
    fn a_bom_counts_only_at_the_start() {
        let (lines, _, _) = scan(&[b"a\n", b"\xEF\xBB\xBFb"], 1024);
        assert_eq!(lines, [url("a"), url("\u{FEFF}b")]);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_percent_encoded() {
        let (lines, _, urlish) = scan(&[b"HTTPS://a.example/\xe9 x\xff\n"], 1024);
        assert_eq!(
            lines,
            [TextLine::NotUtf8("HTTPS://a.example/%E9%20x%FF".into())]
        );
        assert!(urlish);
    }

    #[test]
    fn what_looks_like_a_url() {
        for (doc, urlish) in [
            (&b"not a url\nftp://x/\n"[..], false),
            (b"/a path\n", false), // white space: no URI reference
            (b"/a\"q\n", false),
            (b"/a/b?c\n", true),
            (b"hTtP://\n", true),
            (b"/\xff\n", false), // a path only counts when it is UTF-8
        ] {
            assert_eq!(scan(&[doc], 1024).2, urlish, "{doc:?}");
        }
    }

    #[test]
    fn a_long_line_counts_once_however_it_is_split() {
        let mut doc = vec![b'a'; 30];
        doc.extend(b"\nhttp://a/\n");
        doc.extend([b'b'; 11]);
        let whole = scan(&[&doc], 10);
        assert_eq!(
            whole.0,
            [TextLine::TooLong, url("http://a/"), TextLine::TooLong]
        );
        for cut in 0..=doc.len() {
            assert_eq!(scan(&[&doc[..cut], &doc[cut..]], 10), whole, "cut {cut}");
        }
        let bytewise: Vec<&[u8]> = doc.chunks(1).collect();
        assert_eq!(scan(&bytewise, 10), whole);
    }

    #[test]
    fn a_long_line_holds_at_most_the_bound() {
        // Memory: a line fed in small pieces is held up to the bound, then dropped.
        let mut scanner = TextScanner::new(100);
        let mut lines = Vec::new();
        for _ in 0..10_000 {
            lines.extend(scanner.feed(b"https:/"));
            assert!(scanner.rest.len() <= 100 && scanner.rest.capacity() <= 256);
        }
        lines.extend(scanner.feed(b"\nhttp://a/\n"));
        assert_eq!(lines, [TextLine::TooLong, url("http://a/")]);
    }

    #[test]
    fn the_bound_is_on_the_line_before_stripping() {
        assert_eq!(scan(&[b"  abcd  \n"], 8).0, [url("abcd")]);
        assert_eq!(scan(&[b"  abcd   \n"], 8).0, [TextLine::TooLong]);
        assert_eq!(scan(&[b"  abcd   "], 8).0, [TextLine::TooLong]);
    }
}
