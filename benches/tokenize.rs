//! The tokenizer alone, in Rust: no Python objects made of its texts.
//!
//!     cargo bench --bench tokenize -- FILE...
//!
//! Feeds each file in 64 KiB chunks, best of five, and prints one JSON line per file
//! (`benchmarks/bench_native.py` runs it beside the Python readers). `quick_xml_seconds` is
//! quick-xml's own reader over the whole file, every event read and dropped: what the
//! crate costs on our documents before any work of ours.

use std::time::Instant;

use quick_xml::events::Event;
use quick_xml::reader::Reader;
use sitemap_reader_native::UrlsetScanner;

const CHUNK: usize = 65_536;
const RUNS: usize = 5;

fn main() {
    // `cargo bench` adds its own flags ("--bench"): the rest are files.
    for path in std::env::args().skip(1).filter(|a| !a.starts_with("--")) {
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut best = f64::INFINITY;
        let mut records = 0;
        for _ in 0..RUNS {
            let start = Instant::now();
            let mut scanner = UrlsetScanner::default();
            let mut n = 0;
            for chunk in data.chunks(CHUNK) {
                n += scanner.feed(chunk).len();
            }
            n += scanner.close().len();
            best = best.min(start.elapsed().as_secs_f64());
            if let Some(error) = scanner.error() {
                panic!("{path}: {error:?}");
            }
            records = n;
        }
        let mut floor = f64::INFINITY;
        let mut events = 0u64;
        for _ in 0..RUNS {
            let start = Instant::now();
            let mut reader = Reader::from_reader(&data[..]);
            let mut n = 0u64;
            loop {
                match reader.read_event() {
                    Ok(Event::Eof) => break,
                    Ok(_) => n += 1,
                    Err(e) => panic!("{path}: {e}"),
                }
            }
            floor = floor.min(start.elapsed().as_secs_f64());
            events = n;
        }
        println!(
            "{{\"path\": {path:?}, \"seconds\": {best}, \"records\": {records}, \
             \"quick_xml_seconds\": {floor}, \"quick_xml_events\": {events}}}"
        );
    }
}
