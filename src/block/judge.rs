//! A block's fields judged as `_records.emit_entry` / `emit_ref` judge them, for the
//! values nothing is noted about; any other block's fields go to Python as they are, so
//! that its words and tallies are Python's by construction.

use super::check::{changefreq, lastmod, plain_loc, priority};
use super::read::{Ext, Fields};
use super::scan::Limits;
use crate::record::{Entry, SitemapRef};

#[derive(Debug)]
pub enum Judged {
    Entry(Entry),
    Ref(SitemapRef),
    /// Python judges these fields.
    Python(Fields),
}

pub fn judge(fields: Fields, index: bool, limits: &Limits) -> Judged {
    let loc_ok = fields
        .loc
        .as_deref()
        .is_some_and(|l| plain_loc(l, limits.max_loc_length));
    let date = match fields.lastmod.as_deref() {
        None | Some("") => Some(None),
        Some(raw) => lastmod(raw).map(Some),
    };
    let freq = match fields.changefreq.as_deref() {
        None | Some("") => Some(None),
        Some(raw) => changefreq(raw).map(Some),
    };
    let prio = match fields.priority.as_deref() {
        None | Some("") => Some(None),
        Some(raw) => priority(raw).map(Some),
    };
    let (Some(lastmod), Some(changefreq), Some(priority), true) = (date, freq, prio, loc_ok) else {
        return Judged::Python(fields);
    };
    if !fields.built() || fields.unclosed.is_some() {
        return Judged::Python(fields);
    }
    let loc = fields.loc.unwrap_or_default();
    if index {
        return Judged::Ref(SitemapRef { loc, lastmod });
    }
    let (mut image_count, mut alternate_count) = (0, 0);
    for ext in &fields.exts {
        match ext {
            Ext::Image(_) => image_count += 1,
            Ext::Alternate(_) => alternate_count += 1,
            _ => {}
        }
    }
    let mut images = Vec::with_capacity(image_count);
    let mut alternates = Vec::with_capacity(alternate_count);
    let mut videos = Vec::new();
    let mut news = Vec::new();
    for ext in fields.exts {
        match ext {
            Ext::Image(i) => images.push(i),
            Ext::Alternate(a) => alternates.push(a),
            Ext::Video(v) => videos.push(*v),
            Ext::News(n) => news.push(*n),
            Ext::PyImage(_)
            | Ext::PyAlternate(_)
            | Ext::PyContainer(..)
            | Ext::Repeated(_)
            | Ext::MoreLoc(_)
            | Ext::Lookalike { .. } => {} // (built())
        }
    }
    Judged::Entry(Entry {
        loc,
        lastmod,
        changefreq,
        priority,
        images,
        videos,
        news,
        alternates,
    })
}
