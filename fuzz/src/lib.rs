//! What the cargo-fuzz targets share: an input is a few control bytes, then a document;
//! the document is scanned whole and again in the chunks the control bytes choose, and
//! both reads must agree. A target is an impl of [`Chunked`] and one call to [`check`].
//!
//! The control bytes: the first says how many cuts (`b % 9`; 0 to 8) and whether a short
//! document is also fed byte by byte (bit 0x80); then two bytes per cut, each a position in
//! the document (little-endian, modulo its length plus one). The token bound is the
//! target's: the default one, or [`TIGHT_TOKEN_BYTES`] to reach every limit in a short input.

#![forbid(unsafe_code)]

use std::fmt::Debug;

/// The token bound of the tight targets.
pub const TIGHT_TOKEN_BYTES: usize = 64;
/// Documents up to this length are also fed byte by byte when the input asks.
pub const BYTEWISE_MAX: usize = 512;

/// A sans-IO scanner as the targets drive it.
pub trait Chunked: Sized {
    /// One record; two reads agree when their records are equal.
    type Record: PartialEq + Debug;
    /// The fault's verdict (its kind): two reads agree when theirs are equal.
    type Verdict: PartialEq + Debug;

    fn with_token_bound(max_token_bytes: usize) -> Self;
    fn feed(&mut self, data: &[u8]) -> Vec<Self::Record>;
    fn close(&mut self) -> Vec<Self::Record>;
    fn verdict(&self) -> Option<Self::Verdict>;
}

/// How an input is read: the chunk boundaries (sorted positions in the document) and the
/// token bound, decoded from its control bytes.
#[derive(Debug)]
pub struct Plan<'a> {
    pub doc: &'a [u8],
    pub cuts: Vec<usize>,
    pub max_token_bytes: usize,
    pub bytewise: bool,
}

impl<'a> Plan<'a> {
    /// None for an input too short to hold its own control bytes.
    pub fn decode(input: &'a [u8], max_token_bytes: usize) -> Option<Self> {
        let (&head, rest) = input.split_first()?;
        let count = usize::from(head % 9);
        if rest.len() < 2 * count {
            return None;
        }
        let (positions, doc) = rest.split_at(2 * count);
        let mut cuts: Vec<usize> = positions
            .chunks_exact(2)
            .map(|p| usize::from(u16::from_le_bytes([p[0], p[1]])) % (doc.len() + 1))
            .collect();
        cuts.sort_unstable();
        let bytewise = head & 0x80 != 0 && doc.len() <= BYTEWISE_MAX;
        Some(Self {
            doc,
            cuts,
            max_token_bytes,
            bytewise,
        })
    }

    /// The document cut at `cuts` (empty chunks included: a scanner must take them).
    pub fn chunks(&self) -> Vec<&'a [u8]> {
        let mut chunks = Vec::with_capacity(self.cuts.len() + 1);
        let mut start = 0;
        for &cut in &self.cuts {
            chunks.push(&self.doc[start..cut]);
            start = cut;
        }
        chunks.push(&self.doc[start..]);
        chunks
    }
}

/// The records and the verdict of one read.
pub type Outcome<S> = (Vec<<S as Chunked>::Record>, Option<<S as Chunked>::Verdict>);

/// Read `chunks` with a fresh scanner.
pub fn read<S: Chunked>(chunks: &[&[u8]], max_token_bytes: usize) -> Outcome<S> {
    let mut scanner = S::with_token_bound(max_token_bytes);
    let mut records = Vec::new();
    for chunk in chunks {
        records.extend(scanner.feed(chunk));
    }
    records.extend(scanner.close());
    (records, scanner.verdict())
}

/// The fuzz check: the whole document and its chunks (and its bytes, if asked) give the
/// same records and the same verdict. Panics (a finding) when they do not.
pub fn check<S: Chunked>(input: &[u8], max_token_bytes: usize) {
    let Some(plan) = Plan::decode(input, max_token_bytes) else {
        return;
    };
    let whole = read::<S>(&[plan.doc], plan.max_token_bytes);
    let split = read::<S>(&plan.chunks(), plan.max_token_bytes);
    assert_eq!(whole, split, "whole vs cut at {:?}", plan.cuts);
    if plan.bytewise {
        let bytes: Vec<&[u8]> = plan.doc.chunks(1).collect();
        assert_eq!(
            whole,
            read::<S>(&bytes, plan.max_token_bytes),
            "whole vs bytewise"
        );
    }
}

/// The crate's text scanner: its lines, and at the end what it counted.
impl Chunked for sitemap_reader_native::text::TextScanner {
    type Record = sitemap_reader_native::text::TextLine;
    type Verdict = (u64, bool);

    fn with_token_bound(max_token_bytes: usize) -> Self {
        Self::new(max_token_bytes)
    }
    fn feed(&mut self, data: &[u8]) -> Vec<Self::Record> {
        self.feed(data)
    }
    fn close(&mut self) -> Vec<Self::Record> {
        self.close()
    }
    fn verdict(&self) -> Option<Self::Verdict> {
        Some((self.lines(), self.urlish()))
    }
}

/// The XML reader's compiled fast path, with the caller's part played as the proptests of
/// `src/block` play it: a record handed back for judging counts as an entry, and expat
/// closes a record at every end tag it is given. Its records are those it built and those
/// it handed back, in order; its verdict the bytes expat was given, fillers taken out, as a
/// sorted multiset (the chunking moves where a filler stands, never what else expat reads).
/// Both only agree across splits on valid UTF-8 without U+FFFE or U+FFFF: a chunk that
/// holds one of them hands every byte of it to expat, whatever blocks it holds
/// (`block_split` checks that the scanner never panics on such input,
/// and compares the rest).
pub struct BlockRun {
    scanner: sitemap_reader_native::block::BlockScanner,
    stopped: bool,
    expat: Vec<u8>,
}

/// True when the block scanner must read `doc` alike at any split. Invalid UTF-8, U+FFFE
/// and U+FFFF hand their chunk and the rest to expat: where a
/// cut falls moves which blocks come before them (taken here, or read by expat, with the
/// same records in the reader), so only the other documents are compared.
pub fn splits_agree(doc: &[u8]) -> bool {
    std::str::from_utf8(doc).is_ok_and(|t| !t.contains(['\u{fffe}', '\u{ffff}']))
}

/// One thing a block-scanner read produced.
#[derive(Debug, PartialEq)]
pub enum BlockOut {
    Built(sitemap_reader_native::block::Record),
    Judged(sitemap_reader_native::block::Fields),
}

impl BlockRun {
    fn pump(&mut self, out: &mut Vec<BlockOut>) {
        use sitemap_reader_native::block::Step;
        loop {
            let mut built = Vec::new();
            // (the scanner counts the entries it builds itself, as the bindings rely on)
            let step = self.scanner.run(&mut built);
            out.extend(built.into_iter().map(BlockOut::Built));
            match step {
                Step::Wait => return,
                Step::Judge(fields) => {
                    self.scanner.entries += 1;
                    out.push(BlockOut::Judged(fields));
                }
                Step::Send { data, tag, .. } => {
                    self.expat.extend(data);
                    if tag.is_some() {
                        self.scanner.settled();
                    }
                }
                Step::Stop(rest) => {
                    self.expat.extend(rest);
                    self.stopped = true;
                    return;
                }
            }
        }
    }
}

impl Chunked for BlockRun {
    type Record = BlockOut;
    type Verdict = Vec<u8>;

    fn with_token_bound(max_token_bytes: usize) -> Self {
        use sitemap_reader_native::block::{
            BlockScanner, Build, Container, Limits, Place, FRESH, IMAGE, LOOKALIKE, OTHER, XHTML,
        };
        let (video, news) = (2, 3); // the element kinds of `_extensions` (VIDEO, NEWS)
        let kinds = vec![
            ("image".to_owned(), IMAGE),
            ("xhtml".to_owned(), XHTML),
            ("video".to_owned(), video),
            ("news".to_owned(), news),
            ("mobile".to_owned(), OTHER),
            ("look".to_owned(), LOOKALIKE),
            ("imgv".to_owned(), IMAGE | FRESH), // a namespace variant
        ];
        let field = |kind: u8, local: &str| (kind, local.to_owned());
        let names = |of: &[&str]| of.iter().map(|n| (*n).to_owned()).collect();
        let containers = vec![
            Container {
                kind: video,
                local: "video".to_owned(),
                fields: vec![
                    field(video, "title"),
                    field(video, "tag"),
                    field(video, "duration"),
                    field(video, "family_friendly"),
                ],
                names: names(&["title", "tags", "duration", "family_friendly"]),
                build: Build::Video,
            },
            Container {
                kind: news,
                local: "news".to_owned(),
                fields: vec![
                    field(news, "title"),
                    field(news, "name"),
                    field(news, "publication_date"),
                ],
                names: names(&["title", "publication_name", "publication_date"]),
                build: Build::News,
            },
        ];
        let limits = Limits {
            max_urls: 50,
            max_loc_length: 64,
            max_token_bytes,
        };
        let mut scanner = BlockScanner::new(kinds, containers, false, limits, Place::new(1, 0));
        // (the look-alikes' namespaces: their blocks are read, noted as extensions)
        let uris = [
            ("", "urn:sitemap"),
            ("mobile", "urn:mobile"),
            ("look", "urn:look"),
        ];
        scanner.set_namespaces(uris.map(|(p, u)| (p.to_owned(), u.to_owned())).to_vec());
        Self {
            scanner,
            stopped: false,
            expat: Vec::new(),
        }
    }
    fn feed(&mut self, data: &[u8]) -> Vec<Self::Record> {
        let mut out = Vec::new();
        if self.stopped {
            self.expat.extend_from_slice(data);
        } else if let Some(rest) = self.scanner.push(data) {
            self.expat.extend(rest);
            self.stopped = true;
        } else {
            self.pump(&mut out);
        }
        out
    }
    fn close(&mut self) -> Vec<Self::Record> {
        if !self.stopped {
            self.stopped = true;
            let rest = self.scanner.finish();
            self.expat.extend(rest);
        }
        Vec::new()
    }
    fn verdict(&self) -> Option<Self::Verdict> {
        let mut kept: Vec<u8> = self
            .expat
            .iter()
            .copied()
            .filter(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
            .collect();
        kept.sort_unstable();
        Some(kept)
    }
}

/// The inflater (`src/inflate.rs`) as a scanner: its records are the bytes it inflates (one
/// record a byte, so the pieces' boundaries, which follow the chunks, do not count), its
/// verdict the fault and whether the stream was complete. `GZIP`: gzip, else deflate. The
/// token bound is its step.
pub struct InflateRun<const GZIP: bool> {
    inflater: sitemap_reader_native::inflate::Inflater,
}

impl<const GZIP: bool> Chunked for InflateRun<GZIP> {
    type Record = u8;
    type Verdict = (Option<String>, bool);

    fn with_token_bound(max_token_bytes: usize) -> Self {
        use sitemap_reader_native::inflate::{Coding, Inflater};
        let coding = if GZIP { Coding::Gzip } else { Coding::Deflate };
        Self {
            inflater: Inflater::new(coding, max_token_bytes),
        }
    }
    fn feed(&mut self, data: &[u8]) -> Vec<Self::Record> {
        self.inflater.push(data);
        let mut out = Vec::new();
        while self.inflater.pull() > 0 {
            out.extend_from_slice(self.inflater.piece());
        }
        out
    }
    fn close(&mut self) -> Vec<Self::Record> {
        Vec::new()
    }
    fn verdict(&self) -> Option<Self::Verdict> {
        Some((
            self.inflater.fault().map(str::to_owned),
            self.inflater.complete(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_control_bytes_choose_the_cuts() {
        // 0x83: 131 % 9 = five cuts, bytewise; 0x80: 128 % 9 = two cuts (at 3 and 1), bytewise
        assert!(Plan::decode(&[0x83, 3, 0, 1, 0, b'a', b'b'], 1000).is_none());
        let input = [0x80, 3, 0, 1, 0, b'a', b'b', b'c', b'd'];
        let plan = Plan::decode(&input, 1000).unwrap();
        assert_eq!(plan.cuts, [1, 3]);
        assert_eq!(plan.max_token_bytes, 1000);
        assert!(plan.bytewise);
        assert_eq!(plan.chunks(), [&b"a"[..], b"bc", b"d"]);
        assert!(Plan::decode(&[2, 0], 1000).is_none());
    }

    #[test]
    fn a_text_sitemap_agrees_with_itself() {
        let mut input = vec![0x81, 2, 0, 7, 0, 20, 0];
        input.extend_from_slice(b"\xEF\xBB\xBFhttps://a/\r\n x\xff \n/p");
        check::<sitemap_reader_native::text::TextScanner>(&input, 8);
    }

    #[test]
    fn a_gzip_member_agrees_with_itself() {
        // `printf '<url/>' | gzip -n`, cut in two and fed byte by byte
        let mut input = vec![0x88, 9, 0]; // one cut (at 9), and bytewise
        input.extend_from_slice(&[
            0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xb3, 0x29, 0x2d, 0xca, 0xd1, 0xb7, 3, 0, 0x5f,
            0x76, 0xce, 0xa0, 6, 0, 0, 0,
        ]);
        let plan = Plan::decode(&input, 4).unwrap();
        assert_eq!(plan.cuts, [9]);
        let (out, verdict) = read::<InflateRun<true>>(&[plan.doc], 4);
        assert_eq!(
            (out.as_slice(), verdict),
            (&b"<url/>"[..], Some((None, true)))
        );
        check::<InflateRun<true>>(&input, 4);
        check::<InflateRun<false>>(&input, 4); // (no zlib header: raw deflate, a fault)
    }

    #[test]
    fn a_non_character_moves_the_blocks_taken_with_the_cut() {
        let doc = "<url><loc>https://a/</loc></url>\u{fffe}".as_bytes();
        assert!(!splits_agree(doc) && splits_agree(&doc[..32]));
        let whole = read::<BlockRun>(&[doc], 1 << 20);
        let split = read::<BlockRun>(&[&doc[..32], &doc[32..]], 1 << 20);
        assert_eq!((whole.0.len(), split.0.len()), (0, 1)); // (expat reads it when whole)
    }
}
