//! A sans-IO tokenizer of plain urlsets: bytes in any split, the `<url>` fields out.
//!
//! ```
//! use sitemap_reader_native::UrlsetScanner;
//! let mut scanner = UrlsetScanner::default();
//! let mut records = scanner.feed(b"<urlset><url><loc> https://a.example/&#97; </lo");
//! records.extend(scanner.close_with(b"c></url></urlset>"));
//! assert_eq!(records[0].loc, "https://a.example/a");
//! assert!(scanner.error().is_none());
//! ```
//!
//! quick-xml has no push mode and takes the end of its input as the end of the document,
//! so this type owns the buffer: each `feed` parses the pending bytes up to the last point
//! where only whole markup lies before (after the last `>` or before the last `<`), and an
//! item still cut there (a `>` inside a comment, CDATA or attribute value) is parsed again,
//! whole, once more bytes came. Everything that must outlive one chunk (open elements,
//! namespace declarations, the value being read) is kept here, not in quick-xml's reader.
//!
//! What it reads, for now: per `<url>`, the texts of `<loc>`, `<lastmod>`, `<changefreq>`
//! and `<priority>` as the Python core hands them to its record builder (references
//! decoded once, line ends normalised, stripped). The first fault ends the document: the
//! records completed before it are kept and [`UrlsetScanner::error`] says what and where.

use memchr::memrchr2;
use quick_xml::errors::{Error as XmlError, SyntaxError};
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

use crate::names::Namespaces;
use crate::refs;

/// The longest unfinished token (or value) the scanner holds, as the Python core's limit.
pub const DEFAULT_MAX_TOKEN_BYTES: usize = 1_048_576;
/// Open elements, at most (the Python core's bound too).
pub const MAX_DEPTH: usize = 256;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Namespaces real files give the sitemap elements; the Python core reads them alike.
const SITEMAP_LIKE: [&str; 6] = [
    "http://www.sitemaps.org/schemas/sitemap/0.9",
    "https://www.sitemaps.org/schemas/sitemap/0.9",
    "http://www.google.com/schemas/sitemap/0.84",
    "http://www.google.com/schemas/sitemap/0.9",
    "http://www.sitemaps.org/schemas/sitemap/0.9/",
    "",
];

/// One `<url>`: its fields' texts. A missing `<loc>` is "" (the record builder reports it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UrlRecord {
    pub loc: String,
    pub lastmod: Option<String>,
    pub changefreq: Option<String>,
    pub priority: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Not well-formed XML.
    Syntax,
    /// The document ends inside an element or a token.
    Truncated,
    /// Not UTF-8.
    Encoding,
    /// A reference that is not a character reference or a predefined entity.
    Reference,
    /// A prefix bound nowhere.
    Namespace,
    /// The root element is not a urlset.
    NotUrlset,
    /// The DOCTYPE declares an entity (never expanded, so the document is not read on).
    Entity,
    /// An unfinished token or a value over the token limit.
    TokenTooLarge,
    /// Elements nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A panic in the scanner, caught by the bindings: a bug.
    Internal,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "syntax",
            ErrorKind::Truncated => "truncated",
            ErrorKind::Encoding => "encoding",
            ErrorKind::Reference => "reference",
            ErrorKind::Namespace => "namespace",
            ErrorKind::NotUrlset => "not-urlset",
            ErrorKind::Entity => "entity",
            ErrorKind::TokenTooLarge => "token-too-large",
            ErrorKind::TooDeep => "too-deep",
            ErrorKind::Internal => "internal",
        }
    }
}

/// What ended the document, at which byte offset of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanError {
    pub kind: ErrorKind,
    pub offset: u64,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Loc,
    Lastmod,
    Changefreq,
    Priority,
}

/// See the module documentation.
#[derive(Debug)]
pub struct UrlsetScanner {
    pending: Vec<u8>, // bytes not parsed yet
    offset: u64,      // the document offset of pending[0]
    searched: usize,  // pending's bytes already searched for a cut point
    started: bool,    // the document's first bytes were parsed (a BOM is only one there)
    events: u64,      // events read so far (an XML declaration must be the first)
    max_token_bytes: usize,
    names: Namespaces,
    open: OpenElements, // end tags must match
    root_ns: Option<String>,
    root_closed: bool,
    item: Option<UrlRecord>,
    capture: Option<Field>, // the field being read (always at depth 3)
    capture_at: u64,        // the offset of its start tag
    text: String,
    out: Vec<UrlRecord>,
    error: Option<ScanError>,
    closed: bool,
}

impl Default for UrlsetScanner {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_TOKEN_BYTES)
    }
}

impl UrlsetScanner {
    pub fn new(max_token_bytes: usize) -> Self {
        Self {
            pending: Vec::new(),
            offset: 0,
            searched: 0,
            started: false,
            events: 0,
            max_token_bytes,
            names: Namespaces::default(),
            open: OpenElements::default(),
            root_ns: None,
            root_closed: false,
            item: None,
            capture: None,
            capture_at: 0,
            text: String::new(),
            out: Vec::new(),
            error: None,
            closed: false,
        }
    }

    /// Take the next bytes of the document; return the records they completed.
    pub fn feed(&mut self, data: &[u8]) -> Vec<UrlRecord> {
        if !self.closed && self.error.is_none() && !data.is_empty() {
            self.pending.extend_from_slice(data);
            self.parse(false);
        }
        std::mem::take(&mut self.out)
    }

    /// The end of the document: the last records (then check [`Self::error`]).
    pub fn close(&mut self) -> Vec<UrlRecord> {
        if !self.closed {
            self.closed = true;
            if self.error.is_none() {
                self.parse(true);
            }
            if self.error.is_none() {
                self.finish();
            }
        }
        std::mem::take(&mut self.out)
    }

    /// `feed(data)` then `close()`.
    pub fn close_with(&mut self, data: &[u8]) -> Vec<UrlRecord> {
        let mut records = self.feed(data);
        records.extend(self.close());
        records
    }

    /// The fault that ended the document, if one did.
    pub fn error(&self) -> Option<&ScanError> {
        self.error.as_ref()
    }

    // -- the buffer ----------------------------------------------------------------------

    fn parse(&mut self, last: bool) {
        let mut end = if last {
            self.pending.len()
        } else {
            self.cut_point()
        };
        self.searched = self.pending.len();
        // Invalid UTF-8 is found here, at its own offset whatever the split: quick-xml
        // would report it at the start of the event it is in, which the split moves.
        match std::str::from_utf8(&self.pending[..end]) {
            Ok(_) => {}
            Err(e) if e.error_len().is_none() && !last => {
                end = e.valid_up_to(); // a character cut by the chunking
            }
            Err(e) => return self.read_to_bad_byte(e.valid_up_to()),
        }
        self.consume(end, last);
        if !last && self.error.is_none() {
            self.check_pending();
        }
    }

    /// Parse the first `end` pending bytes; what was used leaves the buffer.
    fn consume(&mut self, end: usize, last: bool) {
        if end > 0 {
            let mut buf = std::mem::take(&mut self.pending);
            let used = self.run(&buf, end, last);
            buf.drain(..used);
            self.offset += used as u64;
            self.pending = buf;
            self.searched = self.pending.len();
        }
    }

    /// A bad byte `valid` bytes into the pending ones: what comes before it is read first
    /// (a fault there comes first, as it does when the bad byte is in a later chunk).
    fn read_to_bad_byte(&mut self, valid: usize) {
        let offset = self.offset + valid as u64;
        self.consume(valid, false);
        if offset - self.offset > self.max_token_bytes as u64 {
            // An unfinished token ran over the bound before the bad byte: that came
            // first, as it does when the bytes come in smaller chunks.
            self.fail(ErrorKind::TokenTooLarge, self.offset, self.too_long());
        } else {
            self.fail(ErrorKind::Encoding, offset, not_utf8());
        }
    }

    /// How much of the pending bytes holds only whole markup and text.
    fn cut_point(&self) -> usize {
        let pending = &self.pending;
        // Only new bytes can hold a new cut point: the old ones were searched.
        match memrchr2(b'>', b'<', &pending[self.searched..]) {
            Some(i) if pending[self.searched + i] == b'<' => self.searched + i,
            // After a '>' comes text (or, if the '>' was inside markup, nothing is read
            // past that markup's start anyway): all of it that cannot go on.
            Some(i) => {
                let at = self.searched + i + 1;
                at + text_end(&pending[at..])
            }
            // A long run of text (what was left after a cut always starts with the
            // markup that was cut, or with text): all of it but what may go on.
            None if pending.first().is_some_and(|&b| b != b'<') => text_end(pending),
            None => 0,
        }
    }

    /// Parse `buf[..end]`; return how many bytes were used (the rest waits for more).
    fn run(&mut self, buf: &[u8], end: usize, last: bool) -> usize {
        let mut start = 0;
        if !self.started && buf[..end].starts_with(BOM) {
            start = BOM.len(); // the document's byte order mark: skipped, counted
        }
        // quick-xml drops a BOM at the start of its input: anywhere else these bytes are
        // the character U+FEFF, so it never sees them there.
        while buf[start..end].starts_with(BOM) {
            self.on_text("\u{FEFF}", self.offset + start as u64);
            start += BOM.len();
        }
        let mut reader = Reader::from_reader(&buf[start..end]);
        let config = reader.config_mut();
        config.check_end_names = false; // checked here: the open elements outlive a reader
        config.allow_unmatched_ends = true;
        config.check_comments = true;
        let base = self.offset + start as u64;
        let mut used = 0usize; // bytes of the slice whose events were handled
        while self.error.is_none() {
            match reader.read_event() {
                Ok(Event::Eof) => {
                    used = end - start;
                    break;
                }
                Ok(event) => {
                    let next = usize::try_from(reader.buffer_position()).unwrap_or(end - start);
                    // The same bound as on an unfinished token (check_pending), checked
                    // before the token is read, so that the verdict does not depend on
                    // where the chunks were cut.
                    if next - used > self.max_token_bytes && bounded(&event) {
                        self.fail(
                            ErrorKind::TokenTooLarge,
                            base + used as u64,
                            self.too_long(),
                        );
                        break;
                    }
                    self.on_event(event, base + used as u64);
                    self.events += 1;
                    used = next;
                }
                // Cut inside markup by the chunking: parsed again with more bytes.
                Err(XmlError::Syntax(e)) if !last && e != SyntaxError::InvalidBangMarkup => {
                    break;
                }
                Err(e) => self.fail_xml(&e, base + reader.error_position()),
            }
        }
        if start + used > 0 {
            self.started = true;
        }
        start + used
    }

    fn check_pending(&mut self) {
        // What is left is unfinished markup (or a reference still without its ';').
        let max = self.max_token_bytes;
        if self.pending.len() > max {
            // A bad byte within the bound comes first (as it does when fed whole); so does
            // a character begun within it, judged once its bytes came (at most 3 more).
            let end = self.pending.len().min(max + 4);
            match std::str::from_utf8(&self.pending[..end]) {
                Err(e) if e.valid_up_to() <= max && e.error_len().is_some() => {
                    self.read_to_bad_byte(e.valid_up_to());
                }
                Err(e) if e.valid_up_to() <= max => {} // its last bytes are still to come
                _ => self.fail(ErrorKind::TokenTooLarge, self.offset, self.too_long()),
            }
        }
    }

    fn too_long(&self) -> String {
        let max = self.max_token_bytes;
        format!("a token (a tag, comment, CDATA section or declaration) over {max} bytes")
    }

    fn finish(&mut self) {
        if let Some(top) = self.open.last() {
            let message = format!("the document ends inside <{top}>");
            self.fail(ErrorKind::Truncated, self.offset, message);
        } else if self.root_ns.is_none() {
            let message = "the document has no root element".to_owned();
            self.fail(ErrorKind::Syntax, self.offset, message);
        }
    }

    fn fail(&mut self, kind: ErrorKind, offset: u64, message: String) {
        if self.error.is_none() {
            self.item = None; // an unfinished record is not one
            self.error = Some(ScanError {
                kind,
                offset,
                message,
            });
        }
    }

    fn fail_xml(&mut self, error: &XmlError, offset: u64) {
        let unclosed = quick_xml::errors::IllFormedError::UnclosedReference;
        if matches!(error, XmlError::IllFormed(e) if *e == unclosed) {
            return self.fail(ErrorKind::Reference, offset, refs::UNCLOSED.to_owned());
        }
        let kind = match error {
            XmlError::Syntax(SyntaxError::InvalidBangMarkup) => ErrorKind::Syntax,
            XmlError::Syntax(_) => ErrorKind::Truncated,
            XmlError::Encoding(_) => ErrorKind::Encoding,
            XmlError::Escape(_) => ErrorKind::Reference,
            _ => ErrorKind::Syntax,
        };
        self.fail(kind, offset, error.to_string());
    }

    // -- events --------------------------------------------------------------------------

    fn on_event(&mut self, event: Event<'_>, at: u64) {
        match event {
            Event::Start(e) => self.on_start(&e, at, false),
            Event::Empty(e) => self.on_start(&e, at, true),
            Event::End(e) => self.on_end(e.name().0, at),
            Event::Text(t) => self.on_text(&t, at),
            Event::CData(t) => self.on_cdata(&t, at),
            Event::GeneralRef(r) => match refs::resolve(&r) {
                Ok(c) => self.on_char(c, at),
                Err(message) => self.fail(ErrorKind::Reference, at, message),
            },
            Event::DocType(d) => self.on_doctype(&d, at),
            Event::Decl(_) if self.events > 0 || self.open_or_done() => {
                let message = "an XML declaration not at the start of the document".to_owned();
                self.fail(ErrorKind::Syntax, at, message);
            }
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::Eof => {}
        }
    }

    fn open_or_done(&self) -> bool {
        !self.open.is_empty() || self.root_closed
    }

    fn on_start(&mut self, e: &BytesStart<'_>, at: u64, empty: bool) {
        if self.root_closed {
            let message = "an element after the root element".to_owned();
            return self.fail(ErrorKind::Syntax, at, message);
        }
        let depth = self.open.len() + 1;
        if depth > MAX_DEPTH {
            let message = format!("elements nested deeper than {MAX_DEPTH} levels");
            return self.fail(ErrorKind::TooDeep, at, message);
        }
        if !e.attributes_raw().is_empty() && !self.declare(e, depth, at) {
            return;
        }
        let qname = e.name().0;
        let (prefix, local) = qname.split_once(':').unwrap_or(("", qname));
        let Some(ns) = self.names.resolve(prefix) else {
            let message = format!("<{qname}>: the prefix {prefix:?} is not bound");
            return self.fail(ErrorKind::Namespace, at, message);
        };
        if depth == 1 {
            if local != "urlset" {
                let message = format!("the root element is <{qname}>, not a urlset");
                return self.fail(ErrorKind::NotUrlset, at, message);
            }
            self.root_ns = Some(ns.to_owned());
        } else if self.capture.is_none() && (depth == 2 || depth == 3) && self.is_core(ns) {
            if depth == 2 {
                if local == "url" && self.item.is_none() {
                    self.item = Some(UrlRecord::default());
                }
            } else if self.item.is_some() {
                self.capture = match local {
                    "loc" => Some(Field::Loc),
                    "lastmod" => Some(Field::Lastmod),
                    "changefreq" => Some(Field::Changefreq),
                    "priority" => Some(Field::Priority),
                    _ => None,
                };
                self.capture_at = at;
                self.text.clear();
            }
        }
        if empty {
            self.closed_element(depth);
        } else {
            self.open.push(qname);
        }
    }

    /// Take the `xmlns` declarations of a start tag; false once it failed.
    fn declare(&mut self, e: &BytesStart<'_>, depth: usize, at: u64) -> bool {
        for attr in e.attributes() {
            let attr = match attr {
                Ok(attr) => attr,
                Err(error) => {
                    self.fail(
                        ErrorKind::Syntax,
                        at,
                        format!("a malformed attribute: {error}"),
                    );
                    return false;
                }
            };
            let key = attr.key.0;
            let prefix = match key.strip_prefix("xmlns") {
                Some("") => "",
                Some(rest) if rest.starts_with(':') => &rest[1..],
                _ => {
                    let (prefix, _) = key.split_once(':').unwrap_or(("", key));
                    if !prefix.is_empty() && prefix != "xmlns" && !self.bound(prefix, e) {
                        let message = format!("the attribute {key}: its prefix is not bound");
                        self.fail(ErrorKind::Namespace, at, message);
                        return false;
                    }
                    continue;
                }
            };
            match attribute_value(&attr.value) {
                Ok(uri) => self.names.declare(prefix, uri, depth),
                Err(message) => {
                    self.fail(ErrorKind::Reference, at, message);
                    return false;
                }
            }
        }
        true
    }

    /// Whether `prefix` is bound, counting the declarations of the tag `e` itself.
    fn bound(&self, prefix: &str, e: &BytesStart<'_>) -> bool {
        self.names.resolve(prefix).is_some()
            || e.attributes()
                .flatten()
                .any(|a| a.key.0.strip_prefix("xmlns:") == Some(prefix))
    }

    fn is_core(&self, ns: &str) -> bool {
        self.root_ns.as_deref() == Some(ns) || SITEMAP_LIKE.contains(&ns)
    }

    fn on_end(&mut self, name: &str, at: u64) {
        match self.open.last() {
            Some(top) if top == name => {}
            Some(top) => {
                let message = format!("the end tag </{name}> does not close <{top}>");
                return self.fail(ErrorKind::Syntax, at, message);
            }
            None => {
                let message = format!("the end tag </{name}> closes nothing");
                return self.fail(ErrorKind::Syntax, at, message);
            }
        }
        let depth = self.open.len();
        self.open.pop();
        self.closed_element(depth);
    }

    fn closed_element(&mut self, depth: usize) {
        if let Some(field) = self.capture {
            if depth == 3 {
                self.capture = None;
                let value = self.text.trim().to_owned();
                if let Some(item) = self.item.as_mut() {
                    match field {
                        Field::Loc => item.loc = value,
                        Field::Lastmod => item.lastmod = Some(value),
                        Field::Changefreq => item.changefreq = Some(value),
                        Field::Priority => item.priority = Some(value),
                    }
                }
            }
        } else if depth == 2 {
            if let Some(item) = self.item.take() {
                self.out.push(item);
            }
        } else if depth == 1 {
            self.root_closed = true;
        }
        self.names.close(depth);
    }

    fn on_text(&mut self, raw: &str, at: u64) {
        // The first fault by position (where a run of text starts depends on the split):
        // a forbidden control character, or outside the root anything but white space.
        let control = refs::forbidden_control(raw.as_bytes());
        let outside = if self.open.is_empty() {
            raw.bytes().position(|b| !is_xml_space(b))
        } else {
            None
        };
        match (control, outside) {
            (Some(i), o) if o.is_none_or(|o| i <= o) => {
                let message = format!("the control character {:#04x}", raw.as_bytes()[i]);
                return self.fail(ErrorKind::Syntax, at + i as u64, message);
            }
            (_, Some(i)) => {
                let message = "text outside the root element".to_owned();
                return self.fail(ErrorKind::Syntax, at + i as u64, message);
            }
            _ => {}
        }
        if self.capture.is_some() {
            push_normalized(&mut self.text, raw);
            self.check_value();
        }
    }

    fn on_cdata(&mut self, raw: &str, at: u64) {
        if self.open.is_empty() {
            let message = "a CDATA section outside the root element".to_owned();
            return self.fail(ErrorKind::Syntax, at, message);
        }
        self.on_text(raw, at);
    }

    fn on_char(&mut self, c: char, at: u64) {
        if self.capture.is_some() {
            self.text.push(c);
            self.check_value();
        } else if self.open.is_empty() {
            let message = "a reference outside the root element".to_owned();
            self.fail(ErrorKind::Syntax, at, message);
        }
    }

    fn check_value(&mut self) {
        // The Python core counts characters; bytes are never fewer.
        if self.text.len() > self.max_token_bytes
            && self.text.chars().count() > self.max_token_bytes
        {
            let message = format!("a value over {} characters", self.max_token_bytes);
            self.fail(ErrorKind::TokenTooLarge, self.capture_at, message);
        }
    }

    fn on_doctype(&mut self, dtd: &str, at: u64) {
        if self.root_ns.is_some() {
            let message = "a DOCTYPE after the root element".to_owned();
            self.fail(ErrorKind::Syntax, at, message);
        } else if dtd.contains("<!ENTITY") {
            // Tolerated, never read: an entity declared there would be expanded by a
            // parser that reads it, so the document is not read on (as the Python core).
            let message = "the document declares an entity; entities are never expanded, \
                           so it was not read further"
                .to_owned();
            self.fail(ErrorKind::Entity, at, message);
        }
    }
}

/// The qualified names of the open elements, in one buffer: an allocation per element
/// would cost more than quick-xml's parsing of it.
#[derive(Debug, Default)]
struct OpenElements {
    names: String,
    starts: Vec<usize>,
}

impl OpenElements {
    fn push(&mut self, name: &str) {
        self.starts.push(self.names.len());
        self.names.push_str(name);
    }

    fn pop(&mut self) {
        if let Some(start) = self.starts.pop() {
            self.names.truncate(start);
        }
    }

    fn last(&self) -> Option<&str> {
        self.starts.last().map(|&start| &self.names[start..])
    }

    fn len(&self) -> usize {
        self.starts.len()
    }

    fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }
}

/// How much of a run of text can be read now: not a reference without its ';' yet, nor
/// a CR whose LF may follow (the two are one line end).
fn text_end(text: &[u8]) -> usize {
    let mut end = text.len();
    if let Some(amp) = memchr::memrchr(b'&', text) {
        // Held back only while it can still become one: "& " is broken already, and
        // quick-xml says so now as it would with the rest of the document.
        if text[amp + 1..].iter().all(|&b| refs::is_name_byte(b)) {
            end = amp;
        }
    }
    if end > 0 && text[end - 1] == b'\r' {
        end -= 1;
    }
    end // (a character cut by the chunking is left by parse's UTF-8 check)
}

/// Whether the token bound applies to an event read whole: not to text (a value has its
/// own bound), nor to a "reference" that is none ("& ... ;": in chunks, quick-xml reports the
/// '&' as soon as a byte no name can hold follows it, never as a long token).
fn bounded(event: &Event<'_>) -> bool {
    match event {
        Event::Text(_) => false,
        Event::GeneralRef(r) => r.bytes().all(refs::is_name_byte),
        _ => true,
    }
}

fn not_utf8() -> String {
    "the document is not UTF-8 (an invalid byte sequence)".to_owned()
}

fn is_xml_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// `raw` with XML's line ends (CR LF and a lone CR become LF), appended to `out`.
fn push_normalized(out: &mut String, raw: &str) {
    if raw.contains('\r') {
        crate::block::text::push_line_ends(out, raw);
    } else {
        out.push_str(raw);
    }
}

/// An attribute's value as XML reads it: references decoded, white space made spaces.
fn attribute_value(raw: &str) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let Some(end) = after.find(';') else {
            return Err("a reference with no ';' in an attribute".to_owned());
        };
        out.push(refs::resolve(&after[..end])?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out.replace(['\t', '\n', '\r'], " "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(doc: &[u8]) -> (Vec<UrlRecord>, Option<ScanError>) {
        let mut scanner = UrlsetScanner::default();
        let records = scanner.close_with(doc);
        (records, scanner.error().cloned())
    }

    fn locs(records: &[UrlRecord]) -> Vec<&str> {
        records.iter().map(|r| r.loc.as_str()).collect()
    }

    #[test]
    fn a_plain_urlset() {
        let doc = br#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>https://example.com/a</loc><lastmod>2024-01-02</lastmod>
    <changefreq>weekly</changefreq><priority>0.5</priority>
    <image:image><image:loc>https://example.com/i.png</image:loc></image:image></url>
  <url><loc><![CDATA[https://example.com/b?x=1&y=2]]></loc></url>
  <url><lastmod>2024</lastmod></url>
</urlset>"#;
        let (records, error) = scan(doc);
        assert_eq!(error, None);
        assert_eq!(
            records[0],
            UrlRecord {
                loc: "https://example.com/a".into(),
                lastmod: Some("2024-01-02".into()),
                changefreq: Some("weekly".into()),
                priority: Some("0.5".into()),
            }
        );
        assert_eq!(
            locs(&records),
            ["https://example.com/a", "https://example.com/b?x=1&y=2", ""]
        );
    }

    #[test]
    fn references_are_decoded_once() {
        let (records, _) =
            scan(b"<urlset><url><loc>a&amp;amp;&#x26;&lt;&#47;</loc></url></urlset>");
        assert_eq!(locs(&records), ["a&amp;&</"]);
    }

    #[test]
    fn a_doctype_is_tolerated_and_never_read() {
        let (records, error) =
            scan(b"<!DOCTYPE urlset SYSTEM \"x.dtd\"><urlset><url><loc>a</loc></url></urlset>");
        assert_eq!((locs(&records), error), (vec!["a"], None));
        let doc = b"<!DOCTYPE u [<!ENTITY e \"x\">]><urlset><url><loc>&e;</loc></url></urlset>";
        let (records, error) = scan(doc);
        assert!(records.is_empty());
        assert_eq!(error.map(|e| e.kind), Some(ErrorKind::Entity));
    }

    #[test]
    fn elements_of_other_namespaces_are_not_fields() {
        let doc = b"<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9' xmlns:o='other'>\
                    <url><o:loc>no</o:loc><loc>yes</loc></url><o:url><loc>no</loc></o:url></urlset>";
        let (records, error) = scan(doc);
        assert_eq!((locs(&records), error), (vec!["yes"], None));
    }

    #[test]
    fn line_ends_are_normalised_and_values_stripped() {
        let (records, _) = scan(b"<urlset><url><loc>\r\n a\rb\r\n </loc></url></urlset>");
        assert_eq!(locs(&records), ["a\nb"]);
    }

    #[test]
    fn a_truncated_document_keeps_its_prefix() {
        let (records, error) = scan(b"<urlset><url><loc>a</loc></url><url><loc>b</loc>");
        assert_eq!(locs(&records), ["a"]);
        assert_eq!(error.map(|e| e.kind), Some(ErrorKind::Truncated));
    }

    #[test]
    fn faults_end_the_document() {
        for (doc, kind) in [
            (&b"<sitemapindex/>"[..], ErrorKind::NotUrlset),
            (
                b"<urlset><url><loc>&nbsp;</loc></url></urlset>",
                ErrorKind::Reference,
            ),
            (b"<urlset><url><loc>a</url></urlset>", ErrorKind::Syntax),
            (b"<urlset><p:url/></urlset>", ErrorKind::Namespace),
            (
                b"<urlset><url><loc>\xff</loc></url></urlset>",
                ErrorKind::Encoding,
            ),
            (
                b"<urlset><url><loc>a\x01</loc></url></urlset>",
                ErrorKind::Syntax,
            ),
            (b"<urlset></urlset><urlset/>", ErrorKind::Syntax),
            (b"<urlset><!-- a -- b --></urlset>", ErrorKind::Syntax),
            (b"", ErrorKind::Syntax),
        ] {
            let (_, error) = scan(doc);
            assert_eq!(
                error.map(|e| e.kind),
                Some(kind),
                "{}",
                String::from_utf8_lossy(doc)
            );
        }
    }

    #[test]
    fn a_bom_past_the_start_is_a_character() {
        let mut scanner = UrlsetScanner::default();
        let mut records = scanner.feed(b"\xEF\xBB\xBF<urlset><url><loc>");
        records.extend(scanner.close_with(b"\xEF\xBB\xBFa</loc></url></urlset>"));
        assert_eq!(locs(&records), ["\u{FEFF}a"]);
    }

    #[test]
    fn an_unfinished_token_is_bounded() {
        let mut scanner = UrlsetScanner::new(64);
        scanner.feed(b"<urlset><!-- ");
        scanner.feed(&[b'>'; 100]);
        assert_eq!(
            scanner.error().map(|e| e.kind),
            Some(ErrorKind::TokenTooLarge)
        );
    }

    /// The whole document and the same bytes cut at every point agree.
    fn agrees_at_every_cut(doc: &[u8], max_token_bytes: usize) -> Option<ErrorKind> {
        let mut whole = UrlsetScanner::new(max_token_bytes);
        let records = whole.close_with(doc);
        let kind = whole.error().map(|e| e.kind);
        for cut in 0..=doc.len() {
            let mut split = UrlsetScanner::new(max_token_bytes);
            let mut got = split.feed(&doc[..cut]);
            got.extend(split.close_with(&doc[cut..]));
            assert_eq!(
                (&got, split.error().map(|e| e.kind)),
                (&records, kind),
                "cut {cut}"
            );
        }
        kind
    }

    #[test]
    fn a_broken_reference_is_one_whatever_its_length() {
        // (cargo fuzz): whole, quick-xml read "& ...;" as one reference over the bound.
        let mut doc = b"<urlset>&".to_vec();
        doc.extend([b' '; 80]);
        doc.extend(b";</urlset>");
        assert_eq!(agrees_at_every_cut(&doc, 64), Some(ErrorKind::Reference));
    }

    #[test]
    fn a_fault_before_a_bad_byte_comes_first_in_chunks_too() {
        // (cargo fuzz): in chunks, a bad byte within the bound was reported before the
        // broken "<!x" ahead of it, which the whole document's read reports.
        let mut doc = b"<!\xc3\xb0Yp".to_vec();
        doc.extend([b'\xff'; 96]);
        doc.extend(b"!>");
        assert_eq!(agrees_at_every_cut(&doc, 64), Some(ErrorKind::Syntax));
    }

    #[test]
    fn a_bad_character_begun_within_the_bound_comes_first_in_chunks_too() {
        // (cargo fuzz): cut just after a lead byte at the bound, the unfinished token was
        // refused before its next byte showed the character bad, which a whole read reports.
        let mut doc = b"<?xml ".to_vec();
        doc.extend([b'a'; 58]);
        doc.extend(b"\xc7\xcf1]]>");
        assert_eq!(agrees_at_every_cut(&doc, 64), Some(ErrorKind::Encoding));
    }

    #[test]
    fn a_long_value_is_bounded() {
        let mut doc = b"<urlset><url><loc>".to_vec();
        doc.extend([b'a'; 100]);
        doc.extend(b"</loc></url></urlset>");
        let mut scanner = UrlsetScanner::new(64);
        scanner.close_with(&doc);
        assert_eq!(
            scanner.error().map(|e| e.kind),
            Some(ErrorKind::TokenTooLarge)
        );
    }
}
