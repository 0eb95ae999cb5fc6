//! The command line's lines: a batch of [`Entry`] records of one document written as jsonl,
//! csv or txt, byte for byte as the Python writer (sitemap_reader/_output/_lines.py) writes
//! them. jsonl is `json.dumps(entry_to_dict(entry), ensure_ascii=False)`: the scalar fields
//! always (null when absent), each extension list only when it has records, and in a
//! record only the fields that are set. csv is the scalar columns under the `csv` module's
//! minimal quoting (the header is the caller's, written once); txt is one loc a line.

mod gate;
mod spell;

use crate::record::{Alternate, DateTime, Entry, Image, News, Video};
pub use gate::{
    instant, plain_origin, write_passing, ByOrigin, Disallowed, Gate, Passed, RobotsGate,
};
pub use spell::{csv_field, float_repr, isoformat, json_number, json_string};

/// The header row of the csv format.
pub const CSV_HEADER: &str = "loc,lastmod,changefreq,priority,sitemap\n";

/// What the lines are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Jsonl,
    /// `quote_cr`: a carriage return makes a field quoted (the `csv` module of Python 3.13
    /// and later; earlier ones write it bare).
    Csv {
        quote_cr: bool,
    },
    Txt,
}

impl Format {
    /// The format named as on the command line (`--format`), or None.
    pub fn from_name(name: &str, quote_cr: bool) -> Option<Format> {
        match name {
            "jsonl" => Some(Format::Jsonl),
            "csv" => Some(Format::Csv { quote_cr }),
            "txt" => Some(Format::Txt),
            _ => None,
        }
    }
}

/// Append the lines of `entries`, every one listed by the document `sitemap`, to `out`.
pub fn write_entries(format: Format, entries: &[Entry], sitemap: &str, out: &mut Vec<u8>) {
    match format {
        Format::Txt => {
            for entry in entries {
                out.extend_from_slice(entry.loc.as_bytes());
                out.push(b'\n');
            }
        }
        Format::Csv { quote_cr } => {
            let mut tail = vec![b','];
            csv_field(&mut tail, sitemap, quote_cr);
            tail.push(b'\n');
            let mut numbers = Numbers::default();
            for entry in entries {
                csv_row(out, entry, quote_cr, &tail, &mut numbers);
            }
        }
        Format::Jsonl => {
            let mut tail = b", \"sitemap\": ".to_vec();
            json_string(&mut tail, sitemap);
            let mut numbers = Numbers::default();
            for entry in entries {
                json_line(out, entry, &tail, &mut numbers);
            }
        }
    }
}

/// loc, lastmod, changefreq, priority (its repr), then `tail`: the sitemap column and the
/// line end, the same on every row of a document.
fn csv_row(out: &mut Vec<u8>, entry: &Entry, quote_cr: bool, tail: &[u8], numbers: &mut Numbers) {
    csv_field(out, &entry.loc, quote_cr);
    out.push(b',');
    if let Some(lastmod) = &entry.lastmod {
        isoformat(out, lastmod); // (digits, dashes, colons, a dot, a sign: never quoted)
    }
    out.push(b',');
    if let Some(changefreq) = entry.changefreq {
        out.extend_from_slice(changefreq.as_str().as_bytes());
    }
    out.push(b',');
    if let Some(priority) = entry.priority {
        numbers.repr(out, priority);
    }
    out.extend_from_slice(tail);
}

/// One JSON object and its line end; `tail` is `, "sitemap": "..."`.
fn json_line(out: &mut Vec<u8>, entry: &Entry, tail: &[u8], numbers: &mut Numbers) {
    out.extend_from_slice(b"{\"loc\": ");
    json_string(out, &entry.loc);
    out.extend_from_slice(b", \"lastmod\": ");
    json_date(out, entry.lastmod.as_ref());
    out.extend_from_slice(b", \"changefreq\": ");
    match entry.changefreq {
        Some(changefreq) => {
            out.push(b'"');
            out.extend_from_slice(changefreq.as_str().as_bytes());
            out.push(b'"');
        }
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b", \"priority\": ");
    match entry.priority {
        Some(priority) => numbers.json(out, priority),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(tail);
    json_list(out, numbers, "images", &entry.images, image);
    json_list(out, numbers, "videos", &entry.videos, video);
    json_list(out, numbers, "news", &entry.news, news);
    json_list(out, numbers, "alternates", &entry.alternates, alternate);
    out.extend_from_slice(b"}\n");
}

fn json_date(out: &mut Vec<u8>, value: Option<&DateTime>) {
    match value {
        Some(value) => {
            out.push(b'"');
            isoformat(out, value);
            out.push(b'"');
        }
        None => out.extend_from_slice(b"null"),
    }
}

/// `, "name": [record, record]`, or nothing for no records.
fn json_list<T>(
    out: &mut Vec<u8>,
    numbers: &mut Numbers,
    name: &str,
    records: &[T],
    write: fn(&mut Object, &T),
) {
    if records.is_empty() {
        return;
    }
    out.extend_from_slice(b", \"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\": [");
    for (i, record) in records.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        out.push(b'{');
        write(
            &mut Object {
                out: &mut *out,
                numbers: &mut *numbers,
                empty: true,
            },
            record,
        );
        out.push(b'}');
    }
    out.push(b']');
}

/// The members of one JSON object being written: a member left out when its value is
/// absent (None, or an empty tuple), as `_extension` of the Python writer does.
struct Object<'a> {
    out: &'a mut Vec<u8>,
    numbers: &'a mut Numbers,
    empty: bool,
}

impl Object<'_> {
    fn key(&mut self, name: &str) -> &mut Vec<u8> {
        let out = &mut *self.out;
        if !self.empty {
            out.extend_from_slice(b", ");
        }
        self.empty = false;
        out.push(b'"');
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\": ");
        out
    }

    fn text(&mut self, name: &str, value: Option<&String>) {
        if let Some(value) = value {
            json_string(self.key(name), value);
        }
    }

    fn date(&mut self, name: &str, value: Option<&DateTime>) {
        if value.is_some() {
            json_date(self.key(name), value);
        }
    }

    fn integer(&mut self, name: &str, value: Option<i64>) {
        if let Some(value) = value {
            self.key(name)
                .extend_from_slice(value.to_string().as_bytes());
        }
    }

    fn number(&mut self, name: &str, value: Option<f64>) {
        if let Some(value) = value {
            self.key(name);
            self.numbers.json(self.out, value);
        }
    }

    fn flag(&mut self, name: &str, value: Option<bool>) {
        if let Some(value) = value {
            let word: &[u8] = if value { b"true" } else { b"false" };
            self.key(name).extend_from_slice(word);
        }
    }

    fn texts(&mut self, name: &str, values: &[String]) {
        if values.is_empty() {
            return;
        }
        let out = self.key(name);
        out.push(b'[');
        for (i, value) in values.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b", ");
            }
            json_string(out, value);
        }
        out.push(b']');
    }
}

/// The spellings of the floats met in a batch: a sitemap repeats a few priorities, and a
/// float's repr costs a few hundred nanoseconds.
#[derive(Default)]
struct Numbers {
    known: Vec<(u64, Vec<u8>)>,
}

impl Numbers {
    fn repr(&mut self, out: &mut Vec<u8>, value: f64) {
        let bits = value.to_bits();
        if let Some((_, text)) = self.known.iter().find(|(known, _)| *known == bits) {
            out.extend_from_slice(text);
            return;
        }
        let start = out.len();
        float_repr(out, value);
        if self.known.len() < 32 {
            self.known.push((bits, out[start..].to_vec()));
        }
    }

    fn json(&mut self, out: &mut Vec<u8>, value: f64) {
        if value.is_finite() {
            self.repr(out, value);
        } else {
            json_number(out, value);
        }
    }
}

fn image(object: &mut Object, image: &Image) {
    object.text("loc", Some(&image.loc));
    object.text("caption", image.caption.as_ref());
    object.text("title", image.title.as_ref());
    object.text("geo_location", image.geo_location.as_ref());
    object.text("license", image.license.as_ref());
}

fn video(object: &mut Object, video: &Video) {
    object.text("thumbnail_loc", video.thumbnail_loc.as_ref());
    object.text("title", video.title.as_ref());
    object.text("description", video.description.as_ref());
    object.text("content_loc", video.content_loc.as_ref());
    object.text("player_loc", video.player_loc.as_ref());
    object.integer("duration", video.duration);
    object.date("expiration_date", video.expiration_date.as_ref());
    object.number("rating", video.rating);
    object.integer("view_count", video.view_count);
    object.date("publication_date", video.publication_date.as_ref());
    object.flag("family_friendly", video.family_friendly);
    object.flag("requires_subscription", video.requires_subscription);
    object.flag("live", video.live);
    object.text("uploader", video.uploader.as_ref());
    object.text("category", video.category.as_ref());
    object.texts("tags", &video.tags);
}

fn news(object: &mut Object, news: &News) {
    object.text("publication_name", news.publication_name.as_ref());
    object.text("publication_language", news.publication_language.as_ref());
    object.date("publication_date", news.publication_date.as_ref());
    object.text("title", news.title.as_ref());
    object.text("keywords", news.keywords.as_ref());
    object.text("genres", news.genres.as_ref());
}

fn alternate(object: &mut Object, alternate: &Alternate) {
    object.text("hreflang", alternate.hreflang.as_ref());
    object.text("href", Some(&alternate.href));
    object.text("media", alternate.media.as_ref());
}

#[cfg(test)]
mod tests;
