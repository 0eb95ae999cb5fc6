//! Whole lines, as the Python writer writes them (the differential tests in
//! tests/output/ compare the two on the corpus and on generated records).

use super::*;
use crate::record::ChangeFreq;

const SITEMAP: &str = "https://e.com/s.xml";

/// A datetime of 2024-05-01T09:03:07 with these microseconds and offset (shared by the
/// spelling tests).
pub(super) fn at(microsecond: u32, offset_seconds: i32) -> DateTime {
    DateTime {
        year: 2024,
        month: 5,
        day: 1,
        hour: 9,
        minute: 3,
        second: 7,
        microsecond,
        offset_seconds,
        date_alone: false,
    }
}

fn rich() -> Entry {
    Entry {
        loc: "https://e.com/a?x=1,2".into(),
        lastmod: Some(at(120, 0)),
        changefreq: Some(ChangeFreq::Daily),
        priority: Some(0.8),
        images: vec![Image {
            loc: "https://e.com/i.jpg".into(),
            title: Some("A \"t\"".into()),
            ..Image::default()
        }],
        videos: vec![
            Video {
                title: Some("v".into()),
                duration: Some(60),
                rating: Some(4.5),
                family_friendly: Some(true),
                live: Some(false),
                publication_date: Some(DateTime {
                    year: 2020,
                    month: 1,
                    day: 2,
                    hour: 3,
                    minute: 4,
                    second: 5,
                    microsecond: 0,
                    offset_seconds: -(5 * 3600 + 30),
                    date_alone: false,
                }),
                tags: vec!["a".into(), "b".into()],
                ..Video::default()
            },
            Video::default(),
        ],
        news: vec![News {
            publication_name: Some("P".into()),
            publication_language: Some("en".into()),
            ..News::default()
        }],
        alternates: vec![
            Alternate {
                hreflang: Some("de".into()),
                href: "https://e.com/de".into(),
                media: None,
            },
            Alternate {
                hreflang: None,
                href: "https://e.com/m".into(),
                media: Some("only screen".into()),
            },
        ],
    }
}

fn bare(loc: &str) -> Entry {
    Entry {
        loc: loc.into(),
        ..Entry::default()
    }
}

fn written(format: Format, entries: &[Entry]) -> String {
    let mut out = Vec::new();
    write_entries(format, entries, SITEMAP, &mut out);
    String::from_utf8(out).unwrap()
}

#[test]
fn jsonl_writes_every_field_that_is_set() {
    let expected = concat!(
        r#"{"loc": "https://e.com/a?x=1,2", "lastmod": "2024-05-01T09:03:07.000120+00:00", "#,
        r#""changefreq": "daily", "priority": 0.8, "sitemap": "https://e.com/s.xml", "#,
        r#""images": [{"loc": "https://e.com/i.jpg", "title": "A \"t\""}], "#,
        r#""videos": [{"title": "v", "duration": 60, "rating": 4.5, "#,
        r#""publication_date": "2020-01-02T03:04:05-05:00:30", "family_friendly": true, "#,
        r#""live": false, "tags": ["a", "b"]}, {}], "#,
        r#""news": [{"publication_name": "P", "publication_language": "en"}], "#,
        r#""alternates": [{"hreflang": "de", "href": "https://e.com/de"}, "#,
        r#"{"href": "https://e.com/m", "media": "only screen"}]}"#,
        "\n",
        r#"{"loc": "https://e.com/b", "lastmod": null, "changefreq": null, "#,
        r#""priority": null, "sitemap": "https://e.com/s.xml"}"#,
        "\n",
    );
    assert_eq!(
        written(Format::Jsonl, &[rich(), bare("https://e.com/b")]),
        expected
    );
}

#[test]
fn csv_writes_the_scalar_columns_quoted_where_needed() {
    let expected = concat!(
        "\"https://e.com/a?x=1,2\",2024-05-01T09:03:07.000120+00:00,daily,0.8,",
        "https://e.com/s.xml\n",
        "\"https://e.com/b\"\"\",,,,https://e.com/s.xml\n",
    );
    let format = Format::Csv { quote_cr: false };
    assert_eq!(
        written(format, &[rich(), bare("https://e.com/b\"")]),
        expected
    );
}

#[test]
fn txt_writes_one_loc_a_line() {
    assert_eq!(
        written(Format::Txt, &[rich(), bare("https://e.com/é")]),
        "https://e.com/a?x=1,2\nhttps://e.com/é\n"
    );
    assert_eq!(written(Format::Txt, &[]), "");
}

#[test]
fn formats_are_named_as_on_the_command_line() {
    assert_eq!(Format::from_name("jsonl", true), Some(Format::Jsonl));
    assert_eq!(
        Format::from_name("csv", true),
        Some(Format::Csv { quote_cr: true })
    );
    assert_eq!(Format::from_name("txt", false), Some(Format::Txt));
    assert_eq!(Format::from_name("parquet", false), None);
}
