//! One whole `<url>` (or index `<sitemap>`) block, read with quick-xml in a strict
//! subset: the fields, `<image:image>` with its fields and `<xhtml:link rel="alternate">`
//! under the prefixes the root declared, text, CDATA and references. Anything else, or
//! anything expat might judge otherwise, is odd: the block is expat's.

use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

use super::check::plain_loc;
use super::text::{attribute_value, push_chars, push_ref, py_strip, Odd};
use crate::record::{Alternate, Image};

/// The element kinds of `_extensions` (what a prefix's namespace is).
pub const CORE: u8 = 0;
pub const IMAGE: u8 = 1;
pub const XHTML: u8 = 4;

/// The raw (decoded, stripped) fields of a block and its extensions, which are built
/// here only when nothing in them is noted by Python (image locs present, alternates'
/// hrefs in `check_loc`'s fast branch).
#[derive(Debug, Default, PartialEq)]
pub struct Fields {
    pub loc: Option<String>,
    pub lastmod: Option<String>,
    pub changefreq: Option<String>,
    pub priority: Option<String>,
    pub images: Vec<Image>,
    pub alternates: Vec<Alternate>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Loc,
    Lastmod,
    Changefreq,
    Priority,
    ImageLoc,
    Caption,
    Title,
    GeoLocation,
    License,
}

/// Reads blocks of one document; its buffers are reused from block to block.
#[derive(Debug)]
pub struct BlockReader {
    kinds: Vec<(String, u8)>,
    index: bool,
    max_loc_length: usize,
    text: String,
    attr: String,
}

#[derive(Default)]
struct ImageFields {
    loc: Option<String>,
    caption: Option<String>,
    title: Option<String>,
    geo_location: Option<String>,
    license: Option<String>,
}

impl BlockReader {
    pub fn new(kinds: Vec<(String, u8)>, index: bool, max_loc_length: usize) -> Self {
        Self {
            kinds,
            index,
            max_loc_length,
            text: String::new(),
            attr: String::new(),
        }
    }

    /// The fields of `block` (from the white space before its start tag to the end of
    /// its end tag), or `Odd`.
    pub fn read(&mut self, block: &str) -> Result<Fields, Odd> {
        let mut reader = Reader::from_str(block);
        let config = reader.config_mut();
        config.check_end_names = true;
        config.check_comments = true;
        let mut fields = Fields::default();
        let tag = if self.index { "sitemap" } else { "url" };
        // Before the start tag: white space only.
        loop {
            match reader.read_event().map_err(|_| Odd)? {
                Event::Text(t) if is_space(&t) => {}
                Event::Start(e) if e.name().0 == tag && bare(&e) => break,
                _ => return Err(Odd),
            }
        }
        let mut image: Option<ImageFields> = None;
        loop {
            match reader.read_event().map_err(|_| Odd)? {
                Event::Text(t) if is_space(&t) => {}
                Event::Start(e) if bare(&e) => {
                    let field = self.field(e.name().0, image.is_some())?;
                    match field {
                        None => {
                            image = Some(ImageFields::default()); // <image:image>
                        }
                        Some(field) => {
                            let value = self.value(&mut reader)?;
                            let slot = match (field, image.as_mut()) {
                                (Field::Loc, None) => &mut fields.loc,
                                (Field::Lastmod, None) => &mut fields.lastmod,
                                (Field::Changefreq, None) => &mut fields.changefreq,
                                (Field::Priority, None) => &mut fields.priority,
                                (Field::ImageLoc, Some(i)) => &mut i.loc,
                                (Field::Caption, Some(i)) => &mut i.caption,
                                (Field::Title, Some(i)) => &mut i.title,
                                (Field::GeoLocation, Some(i)) => &mut i.geo_location,
                                (Field::License, Some(i)) => &mut i.license,
                                _ => return Err(Odd),
                            };
                            if slot.replace(value).is_some() {
                                return Err(Odd); // a repeated field
                            }
                        }
                    }
                }
                Event::Empty(e) if image.is_none() && !self.index => {
                    if let Some(alternate) = self.alternate(&e)? {
                        fields.alternates.push(alternate);
                    }
                }
                Event::End(e) => {
                    if let Some(found) = image.take() {
                        // (quick-xml checked that it closes <image:image>)
                        let loc = found.loc.filter(|l| !l.is_empty()).ok_or(Odd)?;
                        fields.images.push(Image {
                            loc,
                            caption: found.caption.filter(|v| !v.is_empty()),
                            title: found.title.filter(|v| !v.is_empty()),
                            geo_location: found.geo_location.filter(|v| !v.is_empty()),
                            license: found.license.filter(|v| !v.is_empty()),
                        });
                    } else if e.name().0 == tag {
                        break;
                    } else {
                        return Err(Odd);
                    }
                }
                _ => return Err(Odd),
            }
        }
        match reader.read_event() {
            Ok(Event::Eof) => Ok(fields),
            _ => Err(Odd),
        }
    }

    /// The field a start tag opens (`None`: an `<image:image>`), in or out of an image.
    fn field(&self, name: &str, in_image: bool) -> Result<Option<Field>, Odd> {
        let (kind, local) = self.key(name)?;
        let field = match (kind, local, in_image) {
            (CORE, "loc", false) => Field::Loc,
            (CORE, "lastmod", false) => Field::Lastmod,
            (CORE, "changefreq", false) if !self.index => Field::Changefreq,
            (CORE, "priority", false) if !self.index => Field::Priority,
            (IMAGE, "image", false) if !self.index => return Ok(None),
            (IMAGE, "loc", true) => Field::ImageLoc,
            (IMAGE, "caption", true) => Field::Caption,
            (IMAGE, "title", true) => Field::Title,
            (IMAGE, "geo_location", true) => Field::GeoLocation,
            (IMAGE, "license", true) => Field::License,
            _ => return Err(Odd),
        };
        Ok(Some(field))
    }

    fn key<'n>(&self, name: &'n str) -> Result<(u8, &'n str), Odd> {
        let Some((prefix, local)) = name.split_once(':') else {
            return Ok((CORE, name));
        };
        let kind = self
            .kinds
            .iter()
            .find(|(p, _)| p == prefix)
            .map(|&(_, k)| k)
            .ok_or(Odd)?;
        // (a prefixed core element is read by the Python scanner: here it is odd)
        if kind == CORE || local.contains(':') {
            return Err(Odd);
        }
        Ok((kind, local))
    }

    /// A field's value up to its end tag: decoded, line ends normalised, stripped.
    fn value(&mut self, reader: &mut Reader<&[u8]>) -> Result<String, Odd> {
        self.text.clear();
        loop {
            match reader.read_event().map_err(|_| Odd)? {
                Event::Text(t) => push_chars(&mut self.text, &t, false)?,
                Event::CData(t) => push_chars(&mut self.text, &t, true)?,
                Event::GeneralRef(r) => push_ref(&mut self.text, &r)?,
                Event::End(_) => return Ok(py_strip(&self.text).to_owned()),
                _ => return Err(Odd),
            }
        }
    }

    /// An `<xhtml:link rel="alternate" hreflang=".." href=".."/>`: the alternate, or
    /// None when Python skips it silently (an empty href); anything else is odd.
    fn alternate(&mut self, e: &BytesStart<'_>) -> Result<Option<Alternate>, Odd> {
        if self.key(e.name().0)? != (XHTML, "link") {
            return Err(Odd);
        }
        let (mut rel, mut hreflang, mut href) = (None, None, None);
        let mut rest = e.attributes_raw();
        loop {
            let name_at = rest.trim_start_matches(is_ws_char);
            if name_at.len() == rest.len() {
                break; // (no white space: the end, or what expat must judge)
            }
            rest = name_at;
            let Some(eq) = rest.find('=') else { break };
            let name = rest[..eq].trim_end_matches(is_ws_char);
            let after = rest[eq + 1..].trim_start_matches(is_ws_char);
            let quote = after.chars().next().filter(|&q| q == '"' || q == '\'');
            let quote = quote.ok_or(Odd)?;
            let close = after[1..].find(quote).ok_or(Odd)?;
            attribute_value(&after[1..1 + close], &mut self.attr)?;
            let slot = match name {
                "rel" => &mut rel,
                "hreflang" => &mut hreflang,
                "href" => &mut href,
                _ => return Err(Odd),
            };
            if slot.replace(self.attr.clone()).is_some() {
                return Err(Odd); // expat: a duplicate attribute
            }
            rest = &after[close + 2..];
        }
        if !rest.is_empty() || rel.as_deref() != Some("alternate") {
            return Err(Odd);
        }
        let href = href.unwrap_or_default();
        let href = py_strip(&href);
        if href.is_empty() {
            return Ok(None);
        }
        if !plain_loc(href, self.max_loc_length) {
            return Err(Odd); // check_loc's other branches note it: Python's to judge
        }
        let hreflang = hreflang
            .as_deref()
            .map(py_strip)
            .filter(|h| !h.is_empty())
            .map(str::to_owned);
        Ok(Some(Alternate {
            hreflang,
            href: href.to_owned(),
            media: None,
        }))
    }
}

fn is_ws_char(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn is_space(text: &str) -> bool {
    text.bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

/// A start tag without attributes.
fn bare(e: &BytesStart<'_>) -> bool {
    is_space(e.attributes_raw())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader() -> BlockReader {
        let kinds = vec![("image".to_owned(), IMAGE), ("xhtml".to_owned(), XHTML)];
        BlockReader::new(kinds, false, 2048)
    }

    #[test]
    fn a_rich_block() {
        let block = "\n <url>\r\n<loc> https://a/&amp;b </loc><lastmod>2024-01-01</lastmod>\
            <image:image><image:loc><![CDATA[https://a/i.jpg]]></image:loc>\
            <image:title>T &lt; 2</image:title></image:image>\
            <xhtml:link rel=\"alternate\" hreflang=' de ' href=\"https://a/de\" /></url >";
        let fields = reader().read(block).unwrap();
        assert_eq!(fields.loc.as_deref(), Some("https://a/&b"));
        assert_eq!(fields.lastmod.as_deref(), Some("2024-01-01"));
        assert_eq!(fields.images[0].loc, "https://a/i.jpg");
        assert_eq!(fields.images[0].title.as_deref(), Some("T < 2"));
        assert_eq!(fields.alternates[0].hreflang.as_deref(), Some("de"));
        assert_eq!(fields.alternates[0].href, "https://a/de");
    }

    #[test]
    fn what_is_odd() {
        for block in [
            "<url><loc>a</loc><!-- c --></url>",
            "<url><loc>a</loc><loc>b</loc></url>",
            "<url><video:video/></url>",
            "<url><x:loc>a</x:loc></url>",
            "<url a=\"1\"><loc>a</loc></url>",
            "<url><loc>a&#1;</loc></url>",
            "<url><loc>a&nbsp;</loc></url>",
            "<url><loc>a<b/></loc></url>",
            "<url><loc>a</lastmod></url>",
            "<url><image:image><image:title>t</image:title></image:image></url>",
            "<url><xhtml:link rel=\"alternate\" href=\"/rel\"/></url>",
            "<url><xhtml:link rel=\"alternate\" href=\"https://a\" href=\"https://b\"/></url>",
            "<url><xhtml:link rel=\"alternate\"href=\"https://a\"/></url>",
            "<url><xhtml:link rel=\"alternate\" href=\"https://a\tb\"/></url>",
            "<url><foo>x</foo></url>",
            "<url>text<loc>a</loc></url>",
            "<url><loc>a > b</loc></url>",
        ] {
            assert_eq!(reader().read(block), Err(Odd), "{block}");
        }
    }
}
