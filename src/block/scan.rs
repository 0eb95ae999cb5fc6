//! The block scanner, with its handover contract to expat (the exact path). It owns the bytes not consumed yet, takes the blocks it can read
//! exactly (`read`, `judge`), and says what else must happen as a [`Step`]: a record for
//! Python to judge, bytes for expat (an odd block, after a filler of the line breaks and
//! the column of what was consumed since expat last read), or everything left.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use memchr::memmem;

use super::judge::{judge, Judged};
use super::read::{BlockReader, Container, Ext, Fields, Read};
use crate::record::{Entry, SitemapRef};

/// A longer block is left to expat (as `_scan.BLOCK_MAX`).
pub const BLOCK_MAX: usize = 65_536;
/// The longest end tag of a record the scanner sees as one (`</url`, white space, `>`):
/// the tail it keeps for more bytes, when it may start one, is shorter.
const END_TAG: usize = 64;
/// A filler longer than this (line breaks and columns) goes to expat before the scanner
/// reads on: white space between blocks, however long, costs bounded memory.
const FILLER_MAX: u64 = 65_536;
/// After this many blocks left to expat, if they are half of all, expat reads the rest.
const ODD_BLOCKS: u64 = 64;
/// Records inside records deeper than this are expat's (generators that forget an end tag
/// make one level; the exact path bounds the depth of elements at 256).
const NESTED_MAX: usize = 4;

/// Blocks handed to expat, and documents whose rest expat read alone, in this process
/// (`handovers`): what the tests and the benchmarks count of the handover.
static ODD: AtomicU64 = AtomicU64::new(0);
static STOPPED: AtomicU64 = AtomicU64::new(0);

/// How many blocks the scanners of this process handed to expat (the root's end tag is
/// none), and how many documents' rest they left to expat alone.
pub fn handovers() -> (u64, u64) {
    (ODD.load(Ordering::Relaxed), STOPPED.load(Ordering::Relaxed))
}

/// What the document's `Limits` say about blocks.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_urls: u64,
    pub max_loc_length: usize,
    pub max_token_bytes: usize,
}

/// A record the scanner built.
#[derive(Debug, PartialEq)]
pub enum Record {
    Entry(Entry),
    Ref(SitemapRef),
}

/// What the caller must do before running the scanner again.
#[derive(Debug, PartialEq)]
pub enum Step {
    /// Nothing more until more input comes.
    Wait,
    /// Python judges this block's fields (`emit_entry` / `emit_ref`).
    Judge(Fields),
    /// Expat reads these bytes (`at`: where they start in the scanner's input, when a
    /// filler starts them); `tag`: the length of the end tag they end with, when they do
    /// (ask whether expat closed the record there: `settle`).
    Send {
        data: Vec<u8>,
        at: Option<u64>,
        tag: Option<usize>,
    },
    /// The scanner stops for good: expat reads these bytes and the rest alone.
    Stop(Vec<u8>),
}

enum Taken {
    Yes,
    Judge(Fields),
    No,
    /// A record another one ran into whose end is not in yet.
    Wait,
}

/// One record of a record that others ran into (`unclosed-entry`), and what comes before
/// it (from the end of the one before: white space, the end tags of records): its
/// start and end in `buf`; `unclosed` for a record the next one ran into.
#[derive(Debug)]
struct Part {
    start: usize,
    end: usize,
    fields: Fields,
    unclosed: bool,
}

/// How far a plan of records inside records got.
enum Plan {
    Done(usize),
    Wait,
    No,
}

/// A record others ran into, read so far: kept while its end is not in, so that each byte
/// of it is read once however the input comes (positions in `buf`).
#[derive(Debug)]
struct Nest {
    start: usize,
    parts: VecDeque<Part>,
    /// Records open (the one at `start` and those inside it that others ran into).
    open: usize,
    at: usize,       // where the next record or end tag is looked for
    searched: usize, // no end tag starts before this (from `at`)
}

#[derive(Debug)]
pub struct BlockScanner {
    reader: BlockReader,
    /// `</url` or `</sitemap`, built once. Boxed: the searcher holds SIMD vectors aligned
    /// to 32 bytes, and the scanner lives inside a Python object, which is aligned to 16
    /// only (unboxed, the vectors' aligned loads faulted).
    end_tag: Box<memmem::Finder<'static>>,
    index: bool,
    limits: Limits,
    limit: usize,
    buf: String,      // the text from `pos` on is not consumed
    pos: usize,       // where the bytes not consumed start
    searched: usize,  // no end tag starts before this (from `pos`)
    pending: Vec<u8>, // the start of a character cut by the chunking
    total: u64,       // bytes fed
    lines: u64,       // line breaks consumed since expat last read, as expat counts them
    col: u64,         // characters since the last of them
    at: Place,        // where `pos` stands in the document, as expat numbers it
    block: bool,      // expat is reading a block the scanner did not take
    odd: u64,         // blocks expat read
    /// The records of a record others ran into, read whole, not judged yet (in order),
    /// and where that record's end tag ends.
    parts: VecDeque<Part>,
    parts_end: usize,
    /// A record others ran into whose end is not in yet.
    nest: Option<Nest>,
    /// Entries the document holds (the caller keeps it in step with its own count).
    pub entries: u64,
    stopped: bool,
}

/// A place in the document as expat numbers it: its line (from 1) and column (from 0, in
/// characters), and whether the byte before it is a CR (a LF after it ends no line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub line: u64,
    pub column: u64,
    after_cr: bool,
}

impl Place {
    /// Line `line`, column `column`, not after a CR.
    pub fn new(line: u64, column: u64) -> Self {
        Self {
            line,
            column,
            after_cr: false,
        }
    }

    /// The place after `seg` (which starts here).
    pub fn after(self, seg: &[u8]) -> Self {
        let Some(last) = memchr::memrchr2(b'\n', b'\r', seg) else {
            return Self {
                column: self.column + chars(seg),
                after_cr: false,
                ..self
            };
        };
        let (lf, cr) = count_breaks(seg);
        let mut breaks = lf + cr;
        if cr > 0 {
            breaks -= memmem::find_iter(seg, b"\r\n").count() as u64;
        }
        if self.after_cr && seg.first() == Some(&b'\n') {
            breaks -= 1; // (the LF of a CR LF cut before it)
        }
        Self {
            line: self.line + breaks,
            column: chars(&seg[last + 1..]),
            after_cr: seg.last() == Some(&b'\r'),
        }
    }
}

/// The characters of UTF-8 text (its bytes that start one).
fn chars(s: &[u8]) -> u64 {
    s.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u64
}

impl BlockScanner {
    /// `start`: where the scanner's input starts in the document (after the root's start
    /// tag), as expat numbers it.
    pub fn new(
        kinds: Vec<(String, u8)>,
        containers: Vec<Container>,
        index: bool,
        limits: Limits,
        start: Place,
    ) -> Self {
        Self {
            reader: BlockReader::new(kinds, containers, index, limits.max_loc_length),
            end_tag: Box::new(memmem::Finder::new(if index {
                &b"</sitemap"[..]
            } else {
                b"</url"
            })),
            index,
            limits,
            limit: BLOCK_MAX.min(limits.max_token_bytes),
            buf: String::new(),
            pos: 0,
            searched: 0,
            pending: Vec::new(),
            total: 0,
            lines: 0,
            col: 0,
            at: start,
            block: false,
            odd: 0,
            parts: VecDeque::new(),
            parts_end: 0,
            nest: None,
            entries: 0,
            stopped: false,
        }
    }

    /// Each prefix's namespace as expat names it ("": the default one), for the
    /// look-alikes of extensions' elements Python counts (without: their blocks are odd).
    pub fn set_namespaces(&mut self, namespaces: Vec<(String, String)>) {
        self.reader.set_namespaces(namespaces);
    }

    /// Take `data`; `Some(bytes)` when the scanner stops for good at it (invalid UTF-8
    /// or a non-character is expat's to report): expat reads those bytes.
    pub fn push(&mut self, data: &[u8]) -> Option<Vec<u8>> {
        self.total += data.len() as u64;
        if self.pos > 0 && self.pos * 2 >= self.buf.len() {
            self.buf.drain(..self.pos);
            self.searched = self.searched.saturating_sub(self.pos);
            for part in &mut self.parts {
                (part.start, part.end) = (part.start - self.pos, part.end - self.pos);
            }
            self.parts_end = self.parts_end.saturating_sub(self.pos);
            if let Some(nest) = &mut self.nest {
                // (it starts at `pos`: it waits there)
                nest.start -= self.pos;
                nest.at -= self.pos;
                nest.searched -= self.pos;
                for part in &mut nest.parts {
                    (part.start, part.end) = (part.start - self.pos, part.end - self.pos);
                }
            }
            self.pos = 0;
        }
        // The bytes cut from the last chunk, then this one: most chunks come whole.
        let joined;
        let raw: &[u8] = if self.pending.is_empty() {
            data
        } else {
            let mut bytes = std::mem::take(&mut self.pending);
            bytes.extend_from_slice(data);
            joined = bytes;
            &joined
        };
        let (text, cut) = match std::str::from_utf8(raw) {
            Ok(text) => (text, &raw[raw.len()..]),
            Err(e) if e.error_len().is_none() => {
                let (valid, cut) = raw.split_at(e.valid_up_to());
                // (valid_up_to is where the checked prefix ends)
                match std::str::from_utf8(valid) {
                    Ok(text) => (text, cut),
                    Err(_) => return Some(self.give_up(raw)),
                }
            }
            Err(_) => return Some(self.give_up(raw)),
        };
        // U+FFFE and U+FFFF are no XML characters: expat reports them.
        // (In UTF-8, EF is only ever a lead byte: each match starts a character of three.)
        let bytes = text.as_bytes();
        if memmem::find_iter(bytes, b"\xef\xbf")
            .any(|i| matches!(bytes.get(i + 2), Some(0xbe | 0xbf)))
        {
            return Some(self.give_up(raw));
        }
        self.buf.push_str(text);
        self.pending = cut.to_vec();
        None
    }

    /// End of input: everything not consumed goes to expat.
    pub fn finish(&mut self) -> Vec<u8> {
        self.stop_with(&[])
    }

    /// The scanner stops before the end of the input: the rest is expat's alone.
    fn give_up(&mut self, tail: &[u8]) -> Vec<u8> {
        STOPPED.fetch_add(1, Ordering::Relaxed);
        self.stop_with(tail)
    }

    /// Everything not consumed (then `tail`), after the filler: expat's from now on.
    fn stop_with(&mut self, tail: &[u8]) -> Vec<u8> {
        let mut out = self.filler();
        out.extend_from_slice(&self.buf.as_bytes()[self.pos..]);
        out.extend_from_slice(&self.pending);
        out.extend_from_slice(tail);
        self.buf.clear();
        self.pos = 0;
        self.searched = 0;
        self.pending.clear();
        self.stopped = true;
        out
    }

    /// True for a sitemap index's scanner.
    pub fn is_index(&self) -> bool {
        self.index
    }

    /// Expat closed the record whose end tag the last `Send` ended with.
    pub fn settled(&mut self) {
        self.block = false;
    }

    /// Consume what the bytes allow: the records built go to `out`, and the step says
    /// what must happen next.
    pub fn run(&mut self, out: &mut Vec<Record>) -> Step {
        if self.stopped {
            return Step::Wait;
        }
        loop {
            if let Some(step) = self.next_part(out) {
                return step;
            }
            if self.block {
                return self.through_block();
            }
            self.skip_space();
            if self.lines + self.col > FILLER_MAX {
                return self.send_filler();
            }
            let pos = self.pos;
            match self.find_end(pos) {
                Some((_, end)) if end - pos <= self.limit => match self.take(pos, end, out) {
                    Taken::Yes => continue,
                    Taken::Judge(fields) => return Step::Judge(fields),
                    Taken::Wait => return Step::Wait,
                    Taken::No => {}
                },
                Some(_) => {}
                None if self.can_wait(pos) => return Step::Wait,
                None => {}
            }
            if let Some(step) = self.odd_block() {
                return step;
            }
        }
    }

    /// Read and judge the whole block from `pos` to `end`.
    fn take(&mut self, pos: usize, end: usize, out: &mut Vec<Record>) -> Taken {
        // (blocks start and end at ASCII bytes: the slice is whole characters)
        if self.nest.as_ref().is_some_and(|n| n.start == pos) {
            return self.take_nested(pos, out); // (read up to where it waited)
        }
        let Some(text) = self.buf.get(pos..end) else {
            return Taken::No;
        };
        match self.reader.read_block(text) {
            Ok(Read::Whole(fields)) => self.emit(pos, end, fields, false, out),
            Ok(Read::Nested(_)) => self.take_nested(pos, out),
            Err(_) => Taken::No,
        }
    }

    /// Judge the record read from `start` to `end`, after consuming what comes before it.
    fn emit(
        &mut self,
        start: usize,
        end: usize,
        mut fields: Fields,
        unclosed: bool,
        out: &mut Vec<Record>,
    ) -> Taken {
        self.consume(start);
        let text = &self.buf.as_bytes()[start..end];
        for ext in &mut fields.exts {
            if let Ext::Repeated(repeat) | Ext::MoreLoc(repeat) = ext {
                // (rare: the block is counted again up to it)
                let place = self.at.after(&text[..repeat.at]);
                (repeat.line, repeat.column) = (place.line, place.column);
            }
        }
        if unclosed {
            // (the next record's start tag is where this part ends, as expat says it)
            let place = self.at.after(text);
            fields.unclosed = Some((place.line, place.column));
        }
        // Past max_urls, emit_entry counts the entry and may cut the document: expat's.
        let room = self.entries < self.limits.max_urls;
        match judge(fields, self.index, &self.limits) {
            Judged::Entry(e) if room => out.push(Record::Entry(e)),
            Judged::Ref(r) if room => out.push(Record::Ref(r)),
            Judged::Python(fields) => {
                self.consume(end);
                return Taken::Judge(fields);
            }
            _ => return Taken::No,
        }
        self.entries += 1;
        self.consume(end);
        Taken::Yes
    }

    /// A record another one starts in at `pos` (`unclosed-entry`): read whole, from its
    /// start tag to its own end tag, with every record inside it, when it is in the
    /// subset and within a block's bound, its records then judged one by one
    /// (`next_part`) as the exact path emits them: the one run into, as it stood, when
    /// the next one starts, then each inner one. Else expat's, as any odd block (a record
    /// whose end tag is missing, the common case, is expat's: the document is not
    /// well-formed where the root's end tag comes).
    fn take_nested(&mut self, pos: usize, out: &mut Vec<Record>) -> Taken {
        let mut nest = match self.nest.take() {
            Some(nest) if nest.start == pos => nest,
            _ => Nest {
                start: pos,
                parts: VecDeque::new(),
                open: 0,
                at: pos,
                searched: pos,
            },
        };
        match self.plan(&mut nest) {
            Plan::Done(end) => {
                let records: usize = nest
                    .parts
                    .iter()
                    .map(|p| {
                        1 + p
                            .fields
                            .exts
                            .iter()
                            .filter(|e| matches!(e, Ext::MoreLoc(_)))
                            .count()
                    })
                    .sum();
                // (no record may meet max_urls: expat would have to take over inside one)
                if self.entries.saturating_add(records as u64) > self.limits.max_urls {
                    return Taken::No;
                }
                self.parts = nest.parts;
                self.parts_end = end;
                match self.next_part(out) {
                    Some(Step::Judge(fields)) => Taken::Judge(fields),
                    _ => Taken::Yes,
                }
            }
            Plan::Wait if self.buf.len() - pos + self.pending.len() <= self.limit => {
                self.nest = Some(nest);
                Taken::Wait
            }
            Plan::Wait | Plan::No => Taken::No,
        }
    }

    /// Read on the records of `nest`, to its parts, from where it stopped: where its end
    /// tag ends, or wait for more bytes.
    fn plan(&mut self, nest: &mut Nest) -> Plan {
        loop {
            // White space, then a record, or the end tag of the innermost record open.
            let rest = &self.buf.as_bytes()[nest.at..];
            let space = rest
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                .unwrap_or(rest.len());
            let next = nest.at + space;
            let (start, end) = match self.end_from(next.max(nest.searched)) {
                Ok(found) => found,
                Err(searched) => {
                    nest.searched = searched.max(next);
                    return Plan::Wait;
                }
            };
            if end - nest.start > self.limit {
                return Plan::No;
            }
            if nest.open > 0 && start == next {
                nest.open -= 1;
                (nest.at, nest.searched) = (end, end);
                if nest.open == 0 {
                    return Plan::Done(end);
                }
                continue;
            }
            let inner = match self.reader.read_block(&self.buf[next..end]) {
                Ok(Read::Whole(fields)) => {
                    nest.parts.push_back(Part {
                        start: next,
                        end,
                        fields,
                        unclosed: false,
                    });
                    (nest.at, nest.searched) = (end, end);
                    if nest.open == 0 {
                        return Plan::Done(end);
                    }
                    continue;
                }
                Ok(Read::Nested(at)) if nest.open < NESTED_MAX => next + at,
                _ => return Plan::No,
            };
            // The record as it stood when the next one started: its fields had all closed.
            let mut head = self.buf[next..inner].to_owned();
            head.push_str(if self.index { "</sitemap>" } else { "</url>" });
            let Ok(Read::Whole(fields)) = self.reader.read_block(&head) else {
                return Plan::No;
            };
            nest.parts.push_back(Part {
                start: next,
                end: inner,
                fields,
                unclosed: true,
            });
            nest.open += 1;
            (nest.at, nest.searched) = (inner, inner);
        }
    }

    /// The next record planned by `take_nested`, judged: records built go to `out`; a
    /// step when Python judges one (or expat must read: none planned is refused).
    fn next_part(&mut self, out: &mut Vec<Record>) -> Option<Step> {
        while let Some(part) = self.parts.pop_front() {
            match self.emit(part.start, part.end, part.fields, part.unclosed, out) {
                Taken::Yes => {}
                Taken::Judge(fields) => return Some(Step::Judge(fields)),
                // (room was checked for every record of the plan)
                Taken::No | Taken::Wait => unreachable!("a planned record refused"),
            }
        }
        if self.parts_end > self.pos {
            self.consume(self.parts_end); // the end tags of the records run into
        }
        self.parts_end = 0;
        None
    }

    /// White space between blocks is consumed here, however long (a run over a block's
    /// bound was expat's): all but a CR that ends the bytes, which may start a CR LF
    /// (one line break, counted once whole).
    fn skip_space(&mut self) {
        let rest = &self.buf.as_bytes()[self.pos..];
        let mut run = rest
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            .unwrap_or(rest.len());
        if run == rest.len() && rest.last() == Some(&b'\r') {
            run -= 1;
        }
        if run > 0 {
            self.consume(self.pos + run);
        }
    }

    /// The bytes up to `end` were taken: count their line breaks and column.
    fn consume(&mut self, end: usize) {
        let seg = &self.buf.as_bytes()[self.pos..end];
        self.at = self.at.after(seg);
        self.pos = end;
        let (lf, cr) = count_breaks(seg);
        let breaks = if cr > 0 {
            lf + cr - memmem::find_iter(seg, b"\r\n").count() as u64
        } else {
            lf
        };
        if breaks > 0 {
            self.lines += breaks;
            let last = memchr::memrchr2(b'\n', b'\r', seg).unwrap_or(0);
            self.col = chars(&seg[last + 1..]);
        } else {
            self.col += chars(seg);
        }
    }

    fn filler(&mut self) -> Vec<u8> {
        let mut filler = vec![b'\n'; usize::try_from(self.lines).unwrap_or(usize::MAX)];
        filler.resize(filler.len() + usize::try_from(self.col).unwrap_or(0), b' ');
        self.lines = 0;
        self.col = 0;
        filler
    }

    /// The block at `pos` is expat's: it reads it (None), or, when most blocks so far
    /// were odd, everything from there on, alone.
    fn odd_block(&mut self) -> Option<Step> {
        if !self.buf.as_bytes()[self.pos..].starts_with(b"</") {
            ODD.fetch_add(1, Ordering::Relaxed); // (not the root's end tag)
        }
        self.odd += 1;
        if self.odd < ODD_BLOCKS || 2 * self.odd <= self.entries {
            self.block = true;
            return None;
        }
        Some(Step::Stop(self.give_up(&[])))
    }

    /// Where the first end tag of a block at or after `from` starts and ends.
    fn find_end(&mut self, from: usize) -> Option<(usize, usize)> {
        match self.end_from(from.max(self.searched)) {
            Ok(found) => Some(found),
            Err(searched) => {
                self.searched = searched.max(from);
                None
            }
        }
    }

    /// Where the first end tag of a record at or after `at` starts and ends, or where a
    /// search must start again when more bytes come.
    fn end_from(&self, mut at: usize) -> Result<(usize, usize), usize> {
        let tag = self.end_tag.needle();
        let buf = self.buf.as_bytes();
        // An end tag is one of at most END_TAG bytes: `through_block` keeps a shorter tail
        // that may become one, so whole or cut, the same end tags are seen.
        let max_ws = END_TAG - 1 - tag.len();
        while let Some(i) = self.end_tag.find(&buf[at..]) {
            let start = at + i;
            let mut j = start + tag.len();
            let ws_end = (j + max_ws).min(buf.len());
            while j < ws_end && matches!(buf[j], b' ' | b'\t' | b'\r' | b'\n') {
                j += 1;
            }
            if j == buf.len() {
                return Err(start); // (maybe one once more bytes come)
            }
            if buf[j] == b'>' {
                return Ok((start, j + 1));
            }
            at = start + 1;
        }
        Err(self.buf.len().saturating_sub(tag.len() - 1).max(at))
    }

    /// True when what follows `pos` may still become a block the scanner takes.
    fn can_wait(&self, pos: usize) -> bool {
        if self.buf.len() - pos + self.pending.len() > self.limit {
            return false;
        }
        let mut rest = &self.buf.as_bytes()[pos..];
        loop {
            let lead = rest
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                .unwrap_or(rest.len());
            rest = &rest[lead..];
            // Comments and processing instructions are read with the block after them.
            let (open, close): (usize, &[u8]) = if rest.starts_with(b"<!--") {
                (4, b"-->")
            } else if rest.starts_with(b"<?") {
                (2, b"?>")
            } else if b"<!--".starts_with(rest) {
                return true; // (cut within `<!--`)
            } else {
                break;
            };
            match memmem::find(&rest[open..], close) {
                Some(i) => rest = &rest[open + i + close.len()..],
                None => return true,
            }
        }
        let head = &rest[..rest.len().min(9)];
        let opening: &[u8] = if self.index { b"<sitemap" } else { b"<url" };
        head.starts_with(opening) || opening.starts_with(head)
    }

    /// Give expat the bytes from `pos` to the next end tag of a record (or all of them
    /// but what may start one).
    fn through_block(&mut self) -> Step {
        let pos = self.pos;
        let (stop, tag) = match self.find_end(pos) {
            Some((start, end)) => (end, Some(end - start)),
            None => {
                let mut stop = self.buf.len();
                let buf = self.buf.as_bytes();
                if let Some(lt) = memchr::memrchr(b'<', &buf[pos..]) {
                    let lt = pos + lt;
                    if stop - lt < END_TAG && !buf[lt..].contains(&b'>') {
                        stop = lt; // maybe the start of the end tag: kept for more bytes
                    }
                }
                if stop == pos {
                    return Step::Wait;
                }
                (stop, None)
            }
        };
        let mut data = self.filler();
        let at = if data.is_empty() {
            None
        } else {
            Some(self.offset(pos) - data.len() as u64)
        };
        let seg = &self.buf.as_bytes()[pos..stop];
        data.extend_from_slice(seg);
        self.at = self.at.after(seg);
        self.pos = stop;
        Step::Send { data, at, tag }
    }

    /// Expat reads the filler of what was consumed so far (and counts its lines).
    fn send_filler(&mut self) -> Step {
        let data = self.filler();
        let at = Some(self.offset(self.pos) - data.len() as u64);
        Step::Send {
            data,
            at,
            tag: None,
        }
    }

    /// Where `buf[i]` stands in the scanner's input.
    fn offset(&self, i: usize) -> u64 {
        self.total - self.pending.len() as u64 - (self.buf.len() - i) as u64
    }
}

/// How many LF and CR bytes `seg` holds: one pass, in runs of 255 bytes counted in a
/// byte each, which the compiler turns into wide compares and adds (two counts by
/// `memchr` read a block twice, and more slowly).
fn count_breaks(seg: &[u8]) -> (u64, u64) {
    let (mut lf, mut cr) = (0u64, 0u64);
    for run in seg.chunks(255) {
        let (mut run_lf, mut run_cr) = (0u8, 0u8);
        for &b in run {
            // (wrapping: no check in the loop; 255 bytes cannot overflow a byte)
            run_lf = run_lf.wrapping_add(u8::from(b == b'\n'));
            run_cr = run_cr.wrapping_add(u8::from(b == b'\r'));
        }
        lf += u64::from(run_lf);
        cr += u64::from(run_cr);
    }
    (lf, cr)
}

#[cfg(test)]
mod tests {
    #[test]
    fn line_breaks_are_counted_past_a_run() {
        let seg = "a\r\nb\n".repeat(100);
        assert_eq!(super::count_breaks(seg.as_bytes()), (200, 100));
        assert_eq!(super::count_breaks(b""), (0, 0));
    }

    use super::*;

    fn scanner(index: bool) -> BlockScanner {
        let limits = Limits {
            max_urls: 2,
            max_loc_length: 2_048,
            max_token_bytes: 1 << 20,
        };
        BlockScanner::new(Vec::new(), Vec::new(), index, limits, Place::new(1, 0))
    }

    #[test]
    fn an_odd_block_comes_after_a_filler_of_what_was_consumed() {
        let mut s = scanner(false);
        // Two line breaks (CR LF is one), then 3 characters (é is one) before the odd block.
        let data = "<url><loc>https://a/</loc></url>\r\n\n<url><loc>https://a/\u{e9}</loc></url>\
                    <url><!-- odd -- --></url>";
        assert_eq!(s.push(data.as_bytes()), None);
        let mut out = Vec::new();
        let Step::Send {
            data: sent,
            at,
            tag,
        } = s.run(&mut out)
        else {
            panic!("no handover");
        };
        assert_eq!(out.len(), 2);
        let filler =
            "\n\n".to_owned() + &" ".repeat("<url><loc>https://a/é</loc></url>".chars().count());
        assert_eq!(
            String::from_utf8(sent).unwrap(),
            filler.clone() + "<url><!-- odd -- --></url>"
        );
        let odd_at = data.find("<url><!--").unwrap() as u64;
        assert_eq!(at, Some(odd_at - filler.len() as u64));
        assert_eq!(tag, Some("</url>".len()));
        s.settled();
        assert_eq!(s.run(&mut out), Step::Wait);
    }

    #[test]
    fn white_space_between_blocks_is_consumed_however_long() {
        let mut s = scanner(false);
        let block = "<url><loc>https://a/</loc></url>";
        // Over the bound of a block, with a CR LF cut by the chunking: one line break.
        let gap = " ".repeat(BLOCK_MAX + 10) + "\n\t";
        assert_eq!(s.push(format!("{block}{gap}\r").as_bytes()), None);
        let mut out = Vec::new();
        assert_eq!(s.run(&mut out), Step::Wait);
        assert_eq!(
            s.push(format!("\n  {block}\r\n <url a='1'>").as_bytes()),
            None
        );
        assert_eq!(s.run(&mut out), Step::Wait);
        assert_eq!(out.len(), 2);
        // The odd block comes after a filler of three line breaks and one column.
        assert_eq!(s.finish(), b"\n\n\n <url a='1'>");
    }

    #[test]
    fn a_repeat_is_placed_as_expat_places_it() {
        let limits = Limits {
            max_urls: 9,
            max_loc_length: 2_048,
            max_token_bytes: 100,
        };
        let mut s = BlockScanner::new(Vec::new(), Vec::new(), false, limits, Place::new(3, 7));
        // A CR LF cut by the chunking in an odd block (over the bound: sent as it comes),
        // then a block with a repeat.
        let data = format!("<url><loc>https://a/{}</loc>\r", "x".repeat(100));
        assert_eq!(s.push(data.as_bytes()), None);
        let mut out = Vec::new();
        assert!(matches!(s.run(&mut out), Step::Send { tag: None, .. }));
        assert_eq!(s.run(&mut out), Step::Wait);
        let data = "\n</url>\r\n<url><loc>https://a/</loc>\r\n\
                    <lastmod>1\u{e9}</lastmod><lastmod>2</lastmod></url>";
        assert_eq!(s.push(data.as_bytes()), None);
        assert!(matches!(s.run(&mut out), Step::Send { tag: Some(6), .. }));
        s.settled();
        let Step::Judge(fields) = s.run(&mut out) else {
            panic!("no block for Python");
        };
        let [Ext::Repeated(repeat)] = &fields.exts[..] else {
            panic!("{:?}", fields.exts);
        };
        assert_eq!((repeat.line, repeat.column), (6, 21));
        assert_eq!(
            Place::new(1, 0).after(b"a\r"),
            Place {
                line: 2,
                column: 0,
                after_cr: true
            }
        );
        assert_eq!(Place::new(1, 5).after(b"\xc3\xa9"), Place::new(1, 6));
    }

    #[test]
    fn a_record_inside_a_record_is_read_whole_with_its_end_tag() {
        let limits = Limits {
            max_urls: 9,
            max_loc_length: 2_048,
            max_token_bytes: 1 << 20,
        };
        let new = || BlockScanner::new(Vec::new(), Vec::new(), false, limits, Place::new(1, 0));
        let doc = "<url><loc>https://a/1</loc>\n <url><loc>https://a/2</loc></url>\n\
                   <url><loc>https://a/3</loc><url><loc>https://a/4</loc></url></url></url>\n\
                   <url><loc>https://a/5</loc></url>";
        let locs = |out: &[Record]| -> Vec<String> {
            out.iter()
                .map(|r| match r {
                    Record::Entry(e) => e.loc.clone(),
                    Record::Ref(r) => r.loc.clone(),
                })
                .collect()
        };
        // Whole or cut anywhere: the records run into go to Python with where the next
        // one starts (1 and 3), in document order; the others are built here.
        // (the last: a byte at a time, a record others ran into read on where it waited)
        for cut in 1..=doc.len() {
            let mut s = new();
            let (mut out, mut judged) = (Vec::new(), Vec::new());
            let pieces: Vec<&str> = if cut == doc.len() {
                (0..doc.len()).map(|i| &doc[i..=i]).collect()
            } else {
                vec![&doc[..cut], &doc[cut..]]
            };
            for piece in pieces {
                assert_eq!(s.push(piece.as_bytes()), None);
                loop {
                    match s.run(&mut out) {
                        Step::Wait => break,
                        Step::Judge(fields) => {
                            judged.push((out.len(), fields.loc.clone(), fields.unclosed));
                            s.entries += 1;
                        }
                        step => panic!("{step:?} at {cut}"),
                    }
                }
            }
            // (expat is given only the filler of what was consumed)
            let rest = s.finish();
            assert!(rest.iter().all(|&b| b == b'\n' || b == b' '), "{cut}");
            assert_eq!(
                locs(&out),
                ["https://a/2", "https://a/4", "https://a/5"],
                "{cut}"
            );
            let want = [
                (0, Some("https://a/1".to_owned()), Some((2, 1))),
                (1, Some("https://a/3".to_owned()), Some((3, 27))),
            ];
            assert_eq!(judged, want, "{cut}");
        }
        // Expat's: an end tag missing (the root's end tag is then a fault), a record
        // nested too deep, or one past max_urls.
        let deep = format!(
            "{}{}",
            "<url>".repeat(NESTED_MAX + 2),
            "</url>".repeat(NESTED_MAX + 2)
        );
        for odd in [
            "<url><loc>https://a/1</loc><url><loc>https://a/2</loc></url>\n</urlset>",
            deep.as_str(),
            "<url><loc>https://a/1</loc><url/></url>",
            "<url><loc>https://a/1</loc><url><loc>https://a/2</loc></url><x/></url>",
        ] {
            let mut s = new();
            assert_eq!(s.push(odd.as_bytes()), None);
            let step = s.run(&mut Vec::new());
            assert!(matches!(step, Step::Send { .. } | Step::Wait), "{odd}");
        }
        let mut s = new();
        s.entries = 8;
        assert_eq!(s.push(doc.as_bytes()), None);
        assert!(matches!(s.run(&mut Vec::new()), Step::Send { .. }));
    }

    #[test]
    fn a_long_filler_goes_to_expat_before_the_scanner_reads_on() {
        let mut s = scanner(false);
        let gap = "\n".repeat(FILLER_MAX as usize) + "  ";
        assert_eq!(
            s.push(format!("{gap}<url><loc>https://a/</loc></url>").as_bytes()),
            None
        );
        let mut out = Vec::new();
        let Step::Send { data, at, tag } = s.run(&mut out) else {
            panic!("no filler sent");
        };
        assert_eq!((data, at, tag), (gap.clone().into_bytes(), Some(0), None));
        assert_eq!(s.run(&mut out), Step::Wait);
        assert_eq!(out.len(), 1);
        assert_eq!(s.finish(), " ".repeat(32).into_bytes()); // (the block's columns)
    }

    #[test]
    fn a_non_character_stops_the_scanner_and_its_neighbours_do_not() {
        for ok in ["\u{fffd}", "\u{ffef}", "\u{ef}\u{bf}", "\u{efbf}"] {
            let mut s = scanner(false);
            assert_eq!(
                s.push(format!("<url><loc>{ok}</loc>").as_bytes()),
                None,
                "{ok:?}"
            );
        }
        for bad in ["\u{fffe}", "\u{ffff}"] {
            let mut s = scanner(false);
            let data = format!("<url><loc>a{bad}</loc>");
            assert_eq!(s.push(b"<url>"), None);
            // cut within the character: it is judged once whole
            let (head, tail) = data.as_bytes()[5..].split_at(data.len() - 5 - 8);
            assert_eq!(s.push(head), None, "{bad:?}");
            assert_eq!(s.push(tail).as_deref(), Some(data.as_bytes()), "{bad:?}");
        }
    }

    #[test]
    fn past_max_urls_a_block_is_expats_and_a_cut_block_waits() {
        let mut s = scanner(true);
        let block = "<sitemap><loc>https://a/s.xml</loc></sitemap>";
        assert_eq!(s.push(block.repeat(3).as_bytes()), None);
        let mut out = Vec::new();
        let step = s.run(&mut out);
        assert_eq!(out.len(), 2);
        assert!(matches!(step, Step::Send { tag: Some(10), .. }), "{step:?}");
        s.settled();
        assert_eq!(s.push(b"<sitemap><loc>https://a/t"), None);
        assert_eq!(s.run(&mut out), Step::Wait); // (a block not whole yet waits)
        assert_eq!(s.finish(), b"<sitemap><loc>https://a/t");
    }
}
