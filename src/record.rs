//! The records, as Rust structs: field for field and in the same order as the Python
//! dataclasses of `sitemap_reader/_base/_models.py` (`Option` for `X | None`, `Vec` for a
//! tuple). An `Entry`'s `sitemap` (the document's URL) is the document's, not stored here.

/// A timezone-aware datetime, as `datetime` holds one (the offset in seconds east of UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateTime {
    pub year: i32,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub microsecond: u32,
    pub offset_seconds: i32,
}

/// `ChangeFreq`, in the Python enum's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

    /// The protocol's word for it (the Python enum's value).
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
}

#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    pub loc: String,
    pub caption: Option<String>,
    pub title: Option<String>,
    pub geo_location: Option<String>,
    pub license: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Video {
    pub thumbnail_loc: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub content_loc: Option<String>,
    pub player_loc: Option<String>,
    pub duration: Option<i64>,
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

#[derive(Debug, Clone, PartialEq, Default)]
pub struct News {
    pub publication_name: Option<String>,
    pub publication_language: Option<String>,
    pub publication_date: Option<DateTime>,
    pub title: Option<String>,
    pub keywords: Option<String>,
    pub genres: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Alternate {
    pub hreflang: Option<String>,
    pub href: String,
    pub media: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
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

#[derive(Debug, Clone, PartialEq)]
pub struct SitemapRef {
    pub loc: String,
    pub lastmod: Option<DateTime>,
}
