//! The gzip and deflate content codings undone as the bytes arrive, a bounded piece at a
//! time: what `sitemap_reader/_core/_codings.py`'s `Gunzip` and `Inflate` do with Python's
//! zlib, on flate2's zlib-rs backend (a port of zlib: the same faults, the same words).
//!
//! [`Inflater::push`] takes compressed bytes; each [`Inflater::pull`] inflates at most one
//! piece of `step` bytes from them, so a bomb costs one step at a time and the consumer,
//! which stops pulling when it has had enough, bounds the total. A fault ends the stream:
//! the output decoded before it comes out first, then [`Inflater::fault`] says what it was,
//! in CPython's words (`Error -3 while decompressing data: ...`).

use flate2::{Decompress, FlushDecompress, Status};

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The wrapping of the deflate data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coding {
    /// gzip (RFC 1952), member after member, as `cat a.gz b.gz` makes.
    Gzip,
    /// HTTP's deflate: zlib-wrapped (RFC 1950) or, as some servers send it, raw (RFC
    /// 1951), told apart by the zlib header's check bits, as browsers do.
    Deflate,
}

/// One content-coded stream, inflated a piece at a time.
pub struct Inflater {
    coding: Coding,
    dec: Decompress,
    /// Deflate: the wrapping is known (two bytes came).
    started: bool,
    /// The current stream (gzip: member) ended where it should.
    eof: bool,
    /// Gzip: what followed the last member was no member (zero padding or junk, which
    /// gzip(1) ignores too); deflate: the stream ended. The rest of the input is ignored.
    done: bool,
    /// Compressed bytes from `at` on are still to be inflated.
    input: Vec<u8>,
    at: usize,
    /// The output of the last pull: `buf[..made]`.
    buf: Vec<u8>,
    made: usize,
    /// The last piece filled the buffer: zlib may hold more output.
    full: bool,
    fault: Option<String>,
}

impl Inflater {
    /// `step`: the most bytes one [`Inflater::pull`] gives (at least 1).
    pub fn new(coding: Coding, step: usize) -> Self {
        Self {
            coding,
            dec: fresh(coding),
            started: coding == Coding::Gzip,
            eof: false,
            done: false,
            input: Vec::new(),
            at: 0,
            buf: vec![0; step.max(1)],
            made: 0,
            full: false,
            fault: None,
        }
    }

    /// Take the next compressed bytes (ignored once the stream is over or faulty).
    pub fn push(&mut self, data: &[u8]) {
        if self.done || self.fault.is_some() {
            return;
        }
        self.input.drain(..self.at);
        self.at = 0;
        self.input.extend_from_slice(data);
    }

    /// Inflate the next piece of output, at most `step` bytes, into [`Inflater::piece`]; its
    /// length, 0 when there is none until more input comes (or ever, after the end or a
    /// fault).
    pub fn pull(&mut self) -> usize {
        self.made = 0;
        loop {
            if self.done || self.fault.is_some() || (self.at == self.input.len() && !self.full) {
                return 0;
            }
            let rest = &self.input[self.at..];
            if !self.started {
                // Deflate: the first two bytes tell the wrapping.
                if rest.len() < 2 {
                    return 0;
                }
                if !zlib_header(rest[0], rest[1]) {
                    self.dec = Decompress::new(false); // no zlib header: raw deflate
                }
                self.started = true;
            }
            if self.eof {
                match self.coding {
                    Coding::Deflate => {
                        self.done = true; // anything after the stream's end is ignored
                        return 0;
                    }
                    Coding::Gzip if rest.len() < 2 => return 0, // may start a member
                    Coding::Gzip if rest[..2] != GZIP_MAGIC => {
                        self.done = true;
                        return 0;
                    }
                    Coding::Gzip => {
                        self.dec = fresh(Coding::Gzip);
                        self.eof = false;
                    }
                }
            }
            let (before_in, before_out) = (self.dec.total_in(), self.dec.total_out());
            let result = self
                .dec
                .decompress(rest, &mut self.buf, FlushDecompress::None);
            // (The counts of one call: at most the lengths of the slices it was given.)
            let taken = usize::try_from(self.dec.total_in() - before_in).unwrap_or(usize::MAX);
            let made = usize::try_from(self.dec.total_out() - before_out).unwrap_or(0);
            self.at = self.at.saturating_add(taken).min(self.input.len());
            self.made = made.min(self.buf.len());
            // A full piece may leave output in zlib's state with the input used up (the rest
            // of a match): it is drained before asking for input, or what came out would
            // depend on the chunking.
            self.full = self.made == self.buf.len();
            match result {
                // zlib keeps the output of a call that fails: it comes out before the fault.
                Err(error) => {
                    self.fault = Some(message(&error));
                    return self.made;
                }
                Ok(Status::StreamEnd) => {
                    self.eof = true;
                    self.full = false;
                }
                Ok(Status::Ok | Status::BufError) if made == 0 && taken == 0 => {
                    return 0; // no progress: wait for input, never spin
                }
                Ok(Status::Ok | Status::BufError) => {}
            }
            if self.made > 0 {
                return self.made;
            }
        }
    }

    /// The output of the last [`Inflater::pull`].
    pub fn piece(&self) -> &[u8] {
        &self.buf[..self.made]
    }

    /// True when the stream ended where it should (not cut midway).
    pub fn complete(&self) -> bool {
        self.eof
    }

    /// The fault that ended the stream, in CPython's zlib words.
    pub fn fault(&self) -> Option<&str> {
        self.fault.as_deref()
    }

    /// End the stream with `fault` (a caught panic): nothing more comes out.
    pub fn fail(&mut self, fault: String) {
        self.fault = Some(fault);
    }
}

fn fresh(coding: Coding) -> Decompress {
    match coding {
        Coding::Gzip => Decompress::new_gzip(15),
        Coding::Deflate => Decompress::new(true),
    }
}

/// Whether two bytes are a zlib header: deflate, a window of at most 32 KiB, check bits right.
fn zlib_header(cmf: u8, flg: u8) -> bool {
    cmf & 0x0F == 8 && cmf >> 4 <= 7 && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0
}

/// A fault as CPython's zlib module words it (`zlib_error` in Modules/zlibmodule.c): the
/// return code, then zlib's message, or the module's own for none.
fn message(error: &flate2::DecompressError) -> String {
    if error.needs_dictionary().is_some() {
        return "Error 2 while decompressing data".to_owned(); // Z_NEED_DICT has no message
    }
    let text = error.message().unwrap_or("invalid input data");
    let code = match text {
        "insufficient memory" => -4, // Z_MEM_ERROR
        "stream error" => -2,        // Z_STREAM_ERROR
        _ => -3,                     // Z_DATA_ERROR: what remote bytes cause
    };
    format!("Error {code} while decompressing data: {text}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::{DeflateEncoder, GzEncoder, ZlibEncoder};
    use flate2::Compression;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut e = ZlibEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn raw(data: &[u8]) -> Vec<u8> {
        let mut e = DeflateEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// Everything `chunks` inflate to, the largest piece, and the fault.
    fn inflate(coding: Coding, chunks: &[&[u8]], step: usize) -> (Vec<u8>, usize, Inflater) {
        let mut inflater = Inflater::new(coding, step);
        let (mut out, mut largest) = (Vec::new(), 0);
        for chunk in chunks {
            inflater.push(chunk);
            while inflater.pull() > 0 {
                largest = largest.max(inflater.piece().len());
                out.extend_from_slice(inflater.piece());
            }
        }
        (out, largest, inflater)
    }

    fn text() -> Vec<u8> {
        (0..5000)
            .flat_map(|i| format!("<url><loc>https://example.com/{i}</loc></url>\n").into_bytes())
            .collect()
    }

    #[test]
    fn each_wrapping_whatever_the_chunking() {
        let data = text();
        let cases = [
            (Coding::Gzip, gzip(&data)),
            (Coding::Deflate, zlib(&data)),
            (Coding::Deflate, raw(&data)),
        ];
        for (coding, coded) in cases {
            for size in [1, 7, 4096, coded.len()] {
                let chunks: Vec<&[u8]> = coded.chunks(size).collect();
                let (out, largest, inflater) = inflate(coding, &chunks, 1000);
                assert_eq!(out, data, "{coding:?} in chunks of {size}");
                assert!(largest <= 1000);
                assert!(inflater.complete() && inflater.fault().is_none());
            }
        }
    }

    #[test]
    fn gzip_members_then_padding() {
        let data = text();
        let (a, b) = data.split_at(data.len() / 3);
        let mut coded = [gzip(a), gzip(b)].concat();
        coded.extend_from_slice(&[0; 10]); // zero padding after the last member: ignored
        for size in [1, 2, 999] {
            let chunks: Vec<&[u8]> = coded.chunks(size).collect();
            let (out, _, inflater) = inflate(Coding::Gzip, &chunks, 4096);
            assert_eq!(out, data);
            assert!(inflater.complete() && inflater.fault().is_none());
        }
    }

    #[test]
    fn a_cut_stream_is_not_complete() {
        let data = text();
        let coded = gzip(&data);
        let (out, _, inflater) = inflate(Coding::Gzip, &[&coded[..coded.len() / 2]], 4096);
        assert!(data.starts_with(&out) && !out.is_empty());
        assert!(!inflater.complete() && inflater.fault().is_none());
    }

    #[test]
    fn faults_in_zlib_words_after_the_output_before_them() {
        let data = text();
        let mut coded = gzip(&data);
        let at = coded.len() - 8;
        coded[at] ^= 0xFF; // the CRC-32
        let (out, _, inflater) = inflate(Coding::Gzip, &[&coded], 4096);
        assert_eq!(out, data);
        assert_eq!(
            inflater.fault(),
            Some("Error -3 while decompressing data: incorrect data check")
        );
        assert!(!inflater.complete());

        let (out, _, inflater) = inflate(Coding::Gzip, &[b"<urlset>"], 4096);
        assert!(out.is_empty());
        assert_eq!(
            inflater.fault(),
            Some("Error -3 while decompressing data: incorrect header check")
        );
        // A zlib header asking for a preset dictionary: zlib gives no message.
        let (_, _, inflater) = inflate(Coding::Deflate, &[&[0x78, 0xBB, 0, 0, 0, 1, 0]], 4096);
        assert_eq!(inflater.fault(), Some("Error 2 while decompressing data"));
    }

    #[test]
    fn output_held_in_zlib_comes_out_whatever_the_split() {
        // With a small step, a piece often fills it while the input is used up and the rest
        // of a match is still in zlib's state (found by the inflate_split fuzz target).
        let data: Vec<u8> = (0..60)
            .flat_map(|i| format!("<url><loc>https://e.com/{}</loc></url>", i % 7).into_bytes())
            .collect();
        for (coding, coded) in [(Coding::Gzip, gzip(&data)), (Coding::Deflate, raw(&data))] {
            for cut in 0..=coded.len() {
                let prefix = &coded[..cut];
                for step in [1, 5, 64] {
                    let whole = inflate(coding, &[prefix], step);
                    let bytes: Vec<&[u8]> = prefix.chunks(1).collect();
                    let bytewise = inflate(coding, &bytes, step);
                    assert_eq!(whole.0, bytewise.0, "{coding:?} cut at {cut}, step {step}");
                    assert_eq!(whole.2.complete(), bytewise.2.complete());
                }
            }
        }
    }

    #[test]
    fn a_bomb_a_step_at_a_time() {
        let coded = gzip(&vec![b' '; 8 << 20]);
        let mut inflater = Inflater::new(Coding::Gzip, 65_536);
        inflater.push(&coded);
        let mut pulls = 0;
        while inflater.pull() > 0 {
            assert!(inflater.piece().len() <= 65_536);
            pulls += 1;
        }
        assert_eq!(pulls, 128);
        assert!(inflater.complete());
    }
}
