//! Video and news records from a container's fields, as `_extensions._video` and
//! `_news` build them, for the values nothing is noted about: text as it is, plain
//! numbers, the common date shapes, yes/no words. A container holding anything else (or
//! a field this module does not know) goes to Python's builder whole, which notes it.

use super::check::{lastmod, plain_decimal};
use crate::record::{DateTime, News, Video};

/// The record a container's fields make here (the container's slot in the entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    Video,
    News,
    /// Python builds it.
    Python,
}

/// A value Python must judge (it would note it, or read it otherwise).
struct Python;

type Got<T> = Result<Option<T>, Python>;

fn text(raw: Option<&str>) -> Option<String> {
    raw.filter(|v| !v.is_empty()).map(str::to_owned)
}

/// `int(raw)` for ASCII digits (up to 18: no overflow), which is never negative.
fn int(raw: Option<&str>) -> Got<i64> {
    match raw {
        None | Some("") => Ok(None),
        Some(r) if r.len() <= 18 && r.bytes().all(|b| b.is_ascii_digit()) => {
            r.parse().map(Some).map_err(|_| Python)
        }
        Some(_) => Err(Python),
    }
}

/// `float(raw)` for plain decimals (never negative, never NaN).
fn float(raw: Option<&str>) -> Got<f64> {
    match raw {
        None | Some("") => Ok(None),
        Some(r) => plain_decimal(r).map(Some).ok_or(Python),
    }
}

fn date(raw: Option<&str>) -> Got<DateTime> {
    match raw {
        None | Some("") => Ok(None),
        Some(r) => lastmod(r).map(Some).ok_or(Python),
    }
}

/// `_YES.get(raw.lower())` for ASCII words (beyond ASCII, `lower()` is Python's).
fn flag(raw: Option<&str>) -> Got<bool> {
    let Some(r) = raw.filter(|r| !r.is_empty()) else {
        return Ok(None);
    };
    if !r.is_ascii() {
        return Err(Python);
    }
    match r.to_ascii_lowercase().as_str() {
        "yes" | "true" => Ok(Some(true)),
        "no" | "false" => Ok(Some(false)),
        _ => Err(Python),
    }
}

/// The fields Python's builder takes from its `sub` dict: the last value of each name
/// (as the dict keeps it), every value of `tags`.
struct Sub<'a, const N: usize> {
    values: [Option<&'a str>; N],
    tags: Vec<&'a str>,
}

impl<'a, const N: usize> Sub<'a, N> {
    fn of(order: &[&str; N], names: &[String], found: &'a [(usize, String)]) -> Option<Self> {
        let mut sub = Sub {
            values: [None; N],
            tags: Vec::new(),
        };
        for &(field, ref value) in found {
            let name = names.get(field)?.as_str();
            if name == "tags" {
                sub.tags.push(value.as_str());
                continue;
            }
            let at = order.iter().position(|n| *n == name)?;
            sub.values[at] = Some(value.as_str());
        }
        Some(sub)
    }
}

/// The fields of `Video` and `News` in their classes' order: the order the bindings give
/// their values in, and the names of `_extensions.CONTAINERS`.
pub const VIDEO_FIELDS: [&str; 16] = [
    "thumbnail_loc",
    "title",
    "description",
    "content_loc",
    "player_loc",
    "duration",
    "expiration_date",
    "rating",
    "view_count",
    "publication_date",
    "family_friendly",
    "requires_subscription",
    "live",
    "uploader",
    "category",
    "tags", // (every value: `Sub::tags`)
];

pub const NEWS_FIELDS: [&str; 6] = [
    "publication_name",
    "publication_language",
    "publication_date",
    "title",
    "keywords",
    "genres",
];

/// The video of a container's fields (`names`: the name of each field index), or None
/// when Python must build it.
pub fn video(names: &[String], found: &[(usize, String)]) -> Option<Video> {
    let Sub { values, tags } = Sub::of(&VIDEO_FIELDS, names, found)?;
    let [thumbnail_loc, title, description, content_loc, player_loc, duration, expiration_date, rating, view_count, publication_date, family_friendly, requires_subscription, live, uploader, category, _tags] =
        values;
    Some(Video {
        duration: int(duration).ok()?,
        expiration_date: date(expiration_date).ok()?,
        rating: float(rating).ok()?,
        view_count: int(view_count).ok()?,
        publication_date: date(publication_date).ok()?,
        family_friendly: flag(family_friendly).ok()?,
        requires_subscription: flag(requires_subscription).ok()?,
        live: flag(live).ok()?,
        thumbnail_loc: text(thumbnail_loc),
        title: text(title),
        description: text(description),
        content_loc: text(content_loc),
        player_loc: text(player_loc),
        uploader: text(uploader),
        category: text(category),
        tags: tags
            .into_iter()
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect(),
    })
}

/// The news of a container's fields, or None when Python must build it.
pub fn news(names: &[String], found: &[(usize, String)]) -> Option<News> {
    let Sub { values, .. } = Sub::of(&NEWS_FIELDS, names, found)?;
    let [publication_name, publication_language, publication_date, title, keywords, genres] =
        values;
    Some(News {
        publication_date: date(publication_date).ok()?,
        publication_name: text(publication_name),
        publication_language: text(publication_language),
        title: text(title),
        keywords: text(keywords),
        genres: text(genres),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(of: &[&str]) -> Vec<String> {
        of.iter().map(|n| (*n).to_owned()).collect()
    }

    fn found(values: &[(usize, &str)]) -> Vec<(usize, String)> {
        values.iter().map(|&(f, v)| (f, v.to_owned())).collect()
    }

    #[test]
    fn a_video_of_plain_values() {
        let names = names(&[
            "title",
            "tags",
            "duration",
            "rating",
            "live",
            "expiration_date",
        ]);
        let got = video(
            &names,
            &found(&[
                (0, "first"),
                (1, "a"),
                (2, "0042"),
                (1, ""),
                (0, "T"),
                (3, "4.5"),
                (4, "Yes"),
                (5, "2024-03-05"),
                (1, "b"),
            ]),
        )
        .unwrap();
        assert_eq!(got.title.as_deref(), Some("T")); // (the last, as Python's dict keeps it)
        assert_eq!(got.tags, ["a", "b"]);
        assert_eq!(got.duration, Some(42));
        assert_eq!(got.rating, Some(4.5));
        assert_eq!(got.live, Some(true));
        assert_eq!(got.expiration_date.map(|d| d.day), Some(5));
        let empty = video(&names, &found(&[(0, ""), (2, ""), (4, "")])).unwrap();
        assert_eq!(empty, Video::default());
    }

    #[test]
    fn values_python_notes_or_reads_otherwise_are_its_own() {
        let names = names(&["duration", "rating", "family_friendly", "publication_date"]);
        for (field, raw) in [
            (0, "-1"),
            (0, "1_000"),
            (0, "+5"),
            (0, "\u{663}"),
            (0, "1234567890123456789"),
            (1, "1e3"),
            (1, "nan"),
            (1, "."),
            (2, "maybe"),
            (2, "\u{130}"),
            (3, "2024-13-01"),
            (3, "2024-03-05T10:20Z"),
        ] {
            assert_eq!(video(&names, &found(&[(field, raw)])), None, "{raw}");
        }
        // a bad value Python never sees (a later one replaces it) is no matter
        assert!(video(&names, &found(&[(0, "x"), (0, "60")])).is_some());
        let platform = vec!["platform".to_owned()];
        assert_eq!(video(&platform, &found(&[(0, "web")])), None);
    }

    #[test]
    fn news_of_plain_values() {
        let names = names(&["publication_name", "publication_date", "title"]);
        let got = news(
            &names,
            &found(&[(0, "N"), (1, "2024-01-01T00:00:00Z"), (2, "")]),
        )
        .unwrap();
        assert_eq!(got.publication_name.as_deref(), Some("N"));
        assert_eq!(got.publication_date.map(|d| d.year), Some(2024));
        assert_eq!(got.title, None);
        assert_eq!(news(&names, &found(&[(1, "junk")])), None);
    }
}
