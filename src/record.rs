//! The records of a sitemap, field for field and in the same order as the Python
//! dataclasses `Entry`, `SitemapRef`, `Image`, `Video`, `News` and `Alternate`
//! (sitemap_reader/_base/_models.py): the same names, `Option` for `X | None`, `Vec` for a
//! tuple. An entry's `sitemap` (a reference's `source`) is not kept per record: every
//! record of a document shares it, so whoever writes them takes it once. The dataclasses
//! are where the records are defined: the bindings build them (`pyslots.rs`) from the
//! field lists they export as `_native.RECORDS`, which the package checks at import.

/// The protocol's `<changefreq>` values (Python's `ChangeFreq`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChangeFreq {
    Always,
    Hourly,
    Daily,
    Weekly,
    Monthly,
    Yearly,
    Never,
}

impl ChangeFreq {
    pub const ALL: [ChangeFreq; 7] = [
        ChangeFreq::Always,
        ChangeFreq::Hourly,
        ChangeFreq::Daily,
        ChangeFreq::Weekly,
        ChangeFreq::Monthly,
        ChangeFreq::Yearly,
        ChangeFreq::Never,
    ];

    /// The word, as the Python enum's value.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeFreq::Always => "always",
            ChangeFreq::Hourly => "hourly",
            ChangeFreq::Daily => "daily",
            ChangeFreq::Weekly => "weekly",
            ChangeFreq::Monthly => "monthly",
            ChangeFreq::Yearly => "yearly",
            ChangeFreq::Never => "never",
        }
    }

    /// The value named by its exact word (the enum's value), or None.
    pub fn from_word(word: &str) -> Option<ChangeFreq> {
        ChangeFreq::ALL
            .into_iter()
            .find(|freq| freq.as_str() == word)
    }
}

/// An aware datetime: Python's `datetime` with a fixed offset (`datetime.timezone`) of
/// whole seconds east of UTC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DateTime {
    pub year: i32,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub microsecond: u32,
    pub offset_seconds: i32,
    /// Written as a date alone (`2024-05-01`): made in the interface's `date_alone` zone
    /// (UTC, not `timezone.utc` itself), the trace `check` reads (V420).
    pub date_alone: bool,
}

/// `<image:image>`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Image {
    pub loc: String,
    pub caption: Option<String>,
    pub title: Option<String>,
    pub geo_location: Option<String>,
    pub license: Option<String>,
}

/// `<video:video>`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Video {
    pub thumbnail_loc: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub content_loc: Option<String>,
    pub player_loc: Option<String>,
    pub duration: Option<i64>, // seconds
    pub expiration_date: Option<DateTime>,
    pub rating: Option<f64>,
    pub view_count: Option<i64>,
    pub publication_date: Option<DateTime>,
    pub family_friendly: Option<bool>,
    pub requires_subscription: Option<bool>,
    pub live: Option<bool>,
    pub uploader: Option<String>,
    pub category: Option<String>,
    pub tags: Vec<String>,
}

/// `<news:news>`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct News {
    pub publication_name: Option<String>,
    pub publication_language: Option<String>,
    pub publication_date: Option<DateTime>,
    pub title: Option<String>,
    pub keywords: Option<String>,
    pub genres: Option<String>,
}

/// `<xhtml:link rel="alternate" hreflang=".." href="..">`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Alternate {
    pub hreflang: Option<String>,
    pub href: String,
    pub media: Option<String>,
}

/// One page URL a sitemap lists (its `sitemap` kept by the caller, once a document).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Entry {
    pub loc: String,
    pub lastmod: Option<DateTime>,
    pub changefreq: Option<ChangeFreq>,
    pub priority: Option<f64>,
    pub images: Vec<Image>,
    pub videos: Vec<Video>,
    pub news: Vec<News>,
    pub alternates: Vec<Alternate>,
}

/// An index's `<sitemap>` (Python's `SitemapRef`); its `source` is the document's, as an
/// entry's `sitemap` is.
#[derive(Clone, Debug, PartialEq)]
pub struct SitemapRef {
    pub loc: String,
    pub lastmod: Option<DateTime>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changefreq_words_round_trip() {
        for freq in ChangeFreq::ALL {
            assert_eq!(ChangeFreq::from_word(freq.as_str()), Some(freq));
        }
        assert_eq!(ChangeFreq::from_word("Daily"), None);
        assert_eq!(ChangeFreq::from_word(""), None);
    }
}
