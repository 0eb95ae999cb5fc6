//! The line writer alone, in Rust, on records made in Rust: what writing costs when a compiled
//! parser hands the writer its records with no Python object between them.
//!
//!     cargo bench --bench lines
//!
//! Writes 50,000 records of about the shape of `benchmarks/bench_parse.py`'s mixed document
//! (a loc, a lastmod, changefreq and priority; 1.8 hreflang alternates and half an image with
//! a title an entry, on average) in batches of 200, best of twenty runs (wall time), and
//! prints one JSON line per format with the nanoseconds an entry.

use std::time::Instant;

use sitemap_reader_native::lines::{write_entries, Format};
use sitemap_reader_native::record::{Alternate, ChangeFreq, DateTime, Entry, Image};

const ENTRIES: usize = 50_000;
const BATCH: usize = 200;
const RUNS: usize = 20;
const SITEMAP: &str = "https://www.example.com/sitemap.xml";

fn record(i: usize) -> Entry {
    let loc = format!(
        "https://www.example.com/blog/2022/{:02}/avoid-guide-coffee-{i}/",
        i % 12
    );
    let alternates = if i % 20 < 9 {
        ["de", "fr", "es", "x-default"]
            .iter()
            .map(|lang| Alternate {
                hreflang: Some((*lang).to_owned()),
                href: format!("https://www.example.com/{lang}/blog/{i}/"),
                media: None,
            })
            .collect()
    } else {
        Vec::new()
    };
    let images = if i % 2 == 0 {
        vec![Image {
            loc: format!("https://www.example.com/img/{i}.jpg"),
            title: Some(format!("Coffee \"guide\" number {i}")),
            ..Image::default()
        }]
    } else {
        Vec::new()
    };
    Entry {
        loc,
        lastmod: Some(DateTime {
            year: 2022,
            month: (i % 12 + 1) as u8,
            day: (i % 28 + 1) as u8,
            hour: (i % 24) as u8,
            minute: (i % 60) as u8,
            second: (i % 60) as u8,
            microsecond: 0,
            offset_seconds: 0,
            date_alone: false,
        }),
        changefreq: Some(ChangeFreq::ALL[i % 7]),
        priority: Some([0.5, 0.6, 0.8, 1.0][i % 4]),
        images,
        videos: Vec::new(),
        news: Vec::new(),
        alternates,
    }
}

fn main() {
    let records: Vec<Entry> = (0..ENTRIES).map(record).collect();
    let formats = [
        ("jsonl", Format::Jsonl),
        ("csv", Format::Csv { quote_cr: false }),
        ("txt", Format::Txt),
    ];
    for (name, format) in formats {
        let mut best = f64::INFINITY;
        let mut bytes = 0;
        for _ in 0..RUNS {
            let start = Instant::now();
            let mut written = 0;
            for batch in records.chunks(BATCH) {
                let mut out = Vec::new();
                write_entries(format, batch, SITEMAP, &mut out);
                written += out.len();
            }
            best = best.min(start.elapsed().as_secs_f64());
            bytes = written;
        }
        let per_entry = best / ENTRIES as f64 * 1e9;
        println!(
            "{{\"format\": {name:?}, \"entries\": {ENTRIES}, \"seconds\": {best}, \
             \"ns_per_entry\": {per_entry:.0}, \"bytes\": {bytes}}}"
        );
    }
}
