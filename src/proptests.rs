//! Properties of the tokenizer on generated and on damaged documents: any split of the
//! bytes gives what the whole document gives, and no input makes it panic.
//!
//! The damaged documents are mutations (bytes flipped, markup characters put in, ranges
//! cut out, the end cut off) of generated urlsets and, where the real-world corpus is
//! checked out next to the repository (or `SITEMAP_READER_CORPUS` names it), of its
//! urlsets: a fuzzing loop without `cargo fuzz`.

use std::path::PathBuf;
use std::sync::OnceLock;

use proptest::prelude::*;

use crate::{ScanError, UrlRecord, UrlsetScanner};

type Outcome = (Vec<UrlRecord>, Option<ScanError>);

fn scan_pieces(data: &[u8], cuts: &[usize]) -> Outcome {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (data.len() + 1)).collect();
    cuts.sort_unstable();
    let mut scanner = UrlsetScanner::default();
    let mut records = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain([data.len()]) {
        records.extend(scanner.feed(&data[start..cut]));
        start = cut;
    }
    records.extend(scanner.close());
    (records, scanner.error().cloned())
}

fn value() -> impl Strategy<Value = String> {
    let text = prop::sample::select(vec![
        "https://example.com/a",
        "https://example.com/caf\u{e9}?q=1&amp;r=2",
        "  padded  ",
        "",
        "2024-03-05T10:20:30+02:00",
        "weekly",
        "0.5",
        "\u{65e5}\u{672c}",
        "1 &lt; 2",
    ]);
    (text, 0..5u8).prop_map(|(text, shape)| match shape {
        0 => text.to_owned(),
        1 => format!(
            "<![CDATA[{}]]>",
            text.replace("&amp;", "&").replace("&lt;", "<")
        ),
        2 => text
            .replace("&amp;", "\0")
            .replace('a', "&#97;")
            .replace('e', "&#x65;")
            .replace('\0', "&amp;"),
        3 => format!("\r\n{text}\r"),
        _ => format!("<!-- c -->{text}<?pi x?>"),
    })
}

fn url() -> impl Strategy<Value = String> {
    let field = prop::sample::select(vec!["loc", "lastmod", "changefreq", "priority", "other"]);
    let child = (field, value(), any::<bool>()).prop_map(|(name, text, prefixed)| {
        if prefixed {
            format!("<image:image><image:{name}>{text}</image:{name}></image:image>")
        } else {
            format!("<{name}>{text}</{name}>")
        }
    });
    prop::collection::vec(child, 0..5)
        .prop_map(|children| format!("<url>{}</url>\n", children.concat()))
}

fn urlset() -> impl Strategy<Value = Vec<u8>> {
    let head = prop::sample::select(vec![
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "\u{feff}<?xml version='1.0'?>",
        "<!DOCTYPE urlset>\n",
        "",
    ]);
    let root = prop::sample::select(vec![
        "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" \
         xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">",
        "<sm:urlset xmlns:sm=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:image=\"i\">",
        "<urlset xmlns:image='http://www.google.com/schemas/sitemap-image/1.1'>",
    ]);
    (head, root, prop::collection::vec(url(), 0..8)).prop_map(|(head, root, urls)| {
        let close = if root.starts_with("<sm:") {
            "</sm:urlset>"
        } else {
            "</urlset>"
        };
        let body = if root.starts_with("<sm:") {
            urls.concat()
                .replace("<url>", "<sm:url>")
                .replace("</url>", "</sm:url>")
        } else {
            urls.concat()
        };
        format!("{head}{root}\n{body}{close}\n").into_bytes()
    })
}

fn corpus() -> &'static [Vec<u8>] {
    static FILES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = std::env::var_os("SITEMAP_READER_CORPUS")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
        let mut files = Vec::new();
        for sub in ["urlset", "ext", "broken"] {
            let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
                continue;
            };
            let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
            paths.sort();
            for path in paths {
                // Compressed files are the Python side's to inflate; only XML here.
                if path.extension().is_some_and(|e| e == "xml") {
                    if let Ok(data) = std::fs::read(&path) {
                        files.push(data);
                    }
                }
            }
        }
        files
    })
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, &'static [u8]),
    Remove(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let markup: &'static [&'static [u8]] = &[
        b"<",
        b">",
        b"&",
        b"]]>",
        b"<![CDATA[",
        b"<!--",
        b"-->",
        b"\"",
        b"'",
        b"&#",
        b";",
        b"\r",
        b"\xEF\xBB\xBF",
        b"\xff",
        b"\xC3",
        b"</url>",
        b"<url>",
        b"<loc>",
        b"xmlns:p='x'",
        b"<!DOCTYPE x [<!ENTITY e 'v'>]>",
        b"&e;",
        b"?>",
        b"<?",
    ];
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Mutation::Flip(at, b)),
        (any::<usize>(), prop::sample::select(markup)).prop_map(|(at, s)| Mutation::Insert(at, s)),
        (any::<usize>(), 0..64usize).prop_map(|(at, n)| Mutation::Remove(at, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(mut data: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let len = data.len();
        match *m {
            Mutation::Flip(at, b) if len > 0 => data[at % len] = b,
            Mutation::Insert(at, s) => {
                let at = at % (len + 1);
                data.splice(at..at, s.iter().copied());
            }
            Mutation::Remove(at, n) if len > 0 => {
                let at = at % len;
                data.drain(at..(at + n).min(len));
            }
            Mutation::Truncate(at) => data.truncate(at % (len + 1)),
            _ => {}
        }
    }
    data
}

/// 512 cases each by default (`cargo test` stays quick); PROPTEST_CASES asks for more.
fn config() -> ProptestConfig {
    let mut config = ProptestConfig::default(); // (reads PROPTEST_CASES)
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 512;
    }
    config
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generated_urlsets_read_alike_in_any_split(
        doc in urlset(),
        cuts in prop::collection::vec(any::<usize>(), 1..6),
    ) {
        let whole = scan_pieces(&doc, &[]);
        prop_assert_eq!(&whole.1, &None, "{}", String::from_utf8_lossy(&doc));
        prop_assert_eq!(scan_pieces(&doc, &cuts), whole);
    }

    #[test]
    fn damaged_urlsets_never_panic_and_read_alike_in_any_split(
        doc in urlset(),
        seed in any::<usize>(),
        use_corpus in any::<bool>(),
        mutations in prop::collection::vec(mutation(), 1..6),
        cuts in prop::collection::vec(any::<usize>(), 1..6),
    ) {
        let files = corpus();
        let base = if use_corpus && !files.is_empty() { files[seed % files.len()].clone() } else { doc };
        let damaged = mutate(base, &mutations);
        let whole = scan_pieces(&damaged, &[]);
        prop_assert_eq!(scan_pieces(&damaged, &cuts), whole);
    }
}

#[test]
fn every_corpus_file_reads_alike_byte_by_byte() {
    for data in corpus() {
        let whole = scan_pieces(data, &[]);
        let cuts: Vec<usize> = (1..data.len()).step_by(97).collect();
        assert_eq!(scan_pieces(data, &cuts), whole);
    }
}

#[test]
fn a_long_run_of_text_reads_alike_whole_and_split() {
    // Found by the mutation property: a urlset cut off in a run of white space longer than
    // the token limit was refused when fed whole, read when fed in two.
    let mut doc = b"<urlset><url><loc>a</loc></url>".to_vec();
    doc.extend(std::iter::repeat_n(
        b' ',
        crate::DEFAULT_MAX_TOKEN_BYTES + 1,
    ));
    let whole = scan_pieces(&doc, &[]);
    assert_eq!(scan_pieces(&doc, &[31]), whole);
    assert_eq!(whole.1.map(|e| e.kind), Some(crate::ErrorKind::Truncated));
}

#[test]
fn a_long_token_is_refused_whole_and_split() {
    let mut doc = b"<urlset><url><loc>a</loc></url><!--".to_vec();
    doc.extend(std::iter::repeat_n(b'>', crate::DEFAULT_MAX_TOKEN_BYTES));
    doc.extend(b"--></urlset>");
    let whole = scan_pieces(&doc, &[]);
    assert_eq!(
        whole.1.as_ref().map(|e| (e.kind, e.offset)),
        Some((crate::ErrorKind::TokenTooLarge, 31))
    );
    for cuts in [vec![40], vec![1000, 70_000, 900_000]] {
        assert_eq!(scan_pieces(&doc, &cuts), whole);
    }
}
