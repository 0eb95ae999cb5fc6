//! The block scanner: the compiled form of the Python `_scan.Scanner`, with the same
//! handover contract. It owns the bytes not consumed yet, takes the blocks it can read
//! exactly (`read`, `judge`), and says what else must happen as a [`Step`]: a record for
//! Python to judge, bytes for expat (an odd block, after a filler of the line breaks and
//! the column of what was consumed since expat last read), or everything left.

use memchr::memmem;

use super::judge::{judge, Judged};
use super::read::{BlockReader, Container, Fields};
use crate::record::{Entry, SitemapRef};

/// A longer block is left to expat (as `_scan.BLOCK_MAX`).
pub const BLOCK_MAX: usize = 65_536;
/// After this many blocks left to expat, if they are half of all, expat reads the rest.
const ODD_BLOCKS: u64 = 64;

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
}

#[derive(Debug)]
pub struct BlockScanner {
    reader: BlockReader,
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
    block: bool,      // expat is reading a block the scanner did not take
    odd: u64,         // blocks expat read
    /// Entries the document holds (the caller keeps it in step with its own count).
    pub entries: u64,
    stopped: bool,
}

impl BlockScanner {
    pub fn new(
        kinds: Vec<(String, u8)>,
        containers: Vec<Container>,
        index: bool,
        limits: Limits,
    ) -> Self {
        Self {
            reader: BlockReader::new(kinds, containers, index, limits.max_loc_length),
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
            block: false,
            odd: 0,
            entries: 0,
            stopped: false,
        }
    }

    /// Take `data`; `Some(bytes)` when the scanner stops for good at it (invalid UTF-8
    /// or a non-character is expat's to report): expat reads those bytes.
    pub fn push(&mut self, data: &[u8]) -> Option<Vec<u8>> {
        self.total += data.len() as u64;
        if self.pos > 0 && self.pos * 2 >= self.buf.len() {
            self.buf.drain(..self.pos);
            self.searched = self.searched.saturating_sub(self.pos);
            self.pos = 0;
        }
        let mut raw = std::mem::take(&mut self.pending);
        raw.extend_from_slice(data);
        let valid = match std::str::from_utf8(&raw) {
            Ok(_) => raw.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => return Some(self.stop_with(&raw)),
        };
        let Ok(text) = std::str::from_utf8(&raw[..valid]) else {
            return Some(self.stop_with(&raw)); // (cannot be: checked above)
        };
        // U+FFFE and U+FFFF are no XML characters: expat reports them.
        let bytes = text.as_bytes();
        if memmem::find(bytes, "\u{fffe}".as_bytes()).is_some()
            || memmem::find(bytes, "\u{ffff}".as_bytes()).is_some()
        {
            return Some(self.stop_with(&raw));
        }
        self.buf.push_str(text);
        self.pending = raw[valid..].to_vec();
        None
    }

    /// End of input: everything not consumed goes to expat.
    pub fn finish(&mut self) -> Vec<u8> {
        self.stop_with(&[])
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
            if self.block {
                return self.through_block();
            }
            let pos = self.pos;
            match self.find_end(pos) {
                Some((_, end)) if end - pos <= self.limit => match self.take(pos, end, out) {
                    Taken::Yes => continue,
                    Taken::Judge(fields) => return Step::Judge(fields),
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
        let Some(text) = self.buf.get(pos..end) else {
            return Taken::No;
        };
        let Ok(fields) = self.reader.read(text) else {
            return Taken::No;
        };
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

    /// The bytes up to `end` were taken: count their line breaks and column.
    fn consume(&mut self, end: usize) {
        let seg = &self.buf.as_bytes()[self.pos..end];
        self.pos = end;
        let lf = memchr::memchr_iter(b'\n', seg).count() as u64;
        let cr = memchr::memchr_iter(b'\r', seg).count() as u64;
        let breaks = if cr > 0 {
            lf + cr - memmem::find_iter(seg, b"\r\n").count() as u64
        } else {
            lf
        };
        let chars = |s: &[u8]| s.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u64;
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
        self.odd += 1;
        if self.odd < ODD_BLOCKS || 2 * self.odd <= self.entries {
            self.block = true;
            return None;
        }
        Some(Step::Stop(self.stop_with(&[])))
    }

    /// Where the first end tag of a block at or after `from` starts and ends.
    fn find_end(&mut self, from: usize) -> Option<(usize, usize)> {
        let tag: &[u8] = if self.index { b"</sitemap" } else { b"</url" };
        let buf = self.buf.as_bytes();
        let mut at = from.max(self.searched);
        while let Some(i) = memmem::find(&buf[at..], tag) {
            let start = at + i;
            let mut j = start + tag.len();
            while j < buf.len() && matches!(buf[j], b' ' | b'\t' | b'\r' | b'\n') {
                j += 1;
            }
            if j == buf.len() {
                self.searched = start; // (maybe one once more bytes come)
                return None;
            }
            if buf[j] == b'>' {
                return Some((start, j + 1));
            }
            at = start + 1;
        }
        self.searched = self.buf.len().saturating_sub(tag.len() - 1).max(from);
        None
    }

    /// True when what follows `pos` may still become a block the scanner takes.
    fn can_wait(&self, pos: usize) -> bool {
        if self.buf.len() - pos + self.pending.len() > self.limit {
            return false;
        }
        let window = &self.buf.as_bytes()[pos..self.buf.len().min(pos + 64)];
        let lead = window
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            .unwrap_or(window.len());
        let head = &window[lead..window.len().min(lead + 9)];
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
                    if stop - lt < 64 && !buf[lt..].contains(&b'>') {
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
        data.extend_from_slice(&self.buf.as_bytes()[pos..stop]);
        self.pos = stop;
        Step::Send { data, at, tag }
    }

    /// Where `buf[i]` stands in the scanner's input.
    fn offset(&self, i: usize) -> u64 {
        self.total - self.pending.len() as u64 - (self.buf.len() - i) as u64
    }
}
