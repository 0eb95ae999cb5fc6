//! One whole `<url>` (or index `<sitemap>`) block, read with quick-xml in a strict
//! subset: the fields, `<image:image>` with its fields and `<xhtml:link rel="alternate">`
//! under the prefixes the root declared, text, CDATA and references; comments,
//! processing instructions (`markup`) and the elements a record ignores are checked and
//! skipped. Anything else, or anything expat might judge otherwise, is odd: the block is
//! expat's.

use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

use super::check::plain_loc;
use super::extend::{self, Build};
use super::markup;
use super::text::{attribute_value, chars_cr, push_chars, push_line_ends, push_ref, py_strip, Odd};
use crate::record::{Alternate, Image, News, Video};

/// The element kinds of `_extensions` (what a prefix's namespace is).
pub const CORE: u8 = 0;
pub const IMAGE: u8 = 1;
pub const XHTML: u8 = 4;
/// No extension's namespace, and one that only looks like one's (`sitemap-image`...).
pub const OTHER: u8 = 5;
pub const LOOKALIKE: u8 = 6;
/// Set on a prefix's kind when its namespace is a variant of the extension's (https, a
/// trailing slash...), which the exact path reports when it meets the first element under
/// it: the first block holding one is expat's (it records the variant there, at the same
/// moment as on the exact path), the blocks after it are read here.
pub const FRESH: u8 = 0x80;

/// The raw (decoded, stripped) fields of a block and its extensions in document order.
#[derive(Debug, Default, PartialEq)]
pub struct Fields {
    pub loc: Option<String>,
    pub lastmod: Option<String>,
    pub changefreq: Option<String>,
    pub priority: Option<String>,
    pub exts: Vec<Ext>,
    /// Where (line, column) the record that ran into this one starts (`unclosed-entry`,
    /// which Python notes before it judges this one): set by the scanner.
    pub unclosed: Option<(u64, u64)>,
}

/// What [`BlockReader::read_block`] found: a whole record, or a record whose child is a
/// record (`unclosed-entry`): the byte offset in the block where that one's start tag is.
#[derive(Debug, PartialEq)]
pub enum Read {
    Whole(Fields),
    Nested(usize),
}

/// An extension of a block: built here when Python would note nothing about it, else
/// its values for Python's builder (`_extensions._image`, `alternate_of`), which counts
/// what it notes.
#[derive(Debug, PartialEq)]
pub enum Ext {
    Image(Image),
    Alternate(Alternate),
    /// An image without its loc: (loc, caption, title, geo_location, license) as read.
    PyImage([Option<String>; 5]),
    /// An alternate whose href is not in `check_loc`'s fast branch: (hreflang, href,
    /// media), the attributes' values as expat gives them.
    PyAlternate([Option<String>; 3]),
    /// A video or news container whose values nothing is noted about (boxed: a video is
    /// larger than all the other variants together, and every extension is moved).
    Video(Box<Video>),
    News(Box<News>),
    /// Any other video or news container (the index of its `Container` among those
    /// given): its fields' (name, value) in document order, for its Python builder.
    PyContainer(usize, Vec<(usize, String)>),
    /// A child of the record that only looks like an extension's (`_extensions.lookalike`,
    /// which Python counts: `invalid-extension`), not read: its namespace and local name.
    Lookalike {
        uri: String,
        local: String,
    },
    /// A field given twice (`repeated-element`, which Python notes: the last value is the
    /// record's): its name, this value, and where its start tag is: `at`, a byte offset in
    /// the block, which the scanner makes the document's line and column.
    Repeated(Repeat),
    /// A further `<loc>` (`several-locs`, which Python notes): a record of its own,
    /// without fields, emitted after the block's (`name` is "loc").
    MoreLoc(Repeat),
}

/// A field given once more in a block (see `Ext::Repeated`).
#[derive(Debug, PartialEq)]
pub struct Repeat {
    pub name: &'static str,
    pub value: String,
    pub at: usize,
    pub line: u64,
    pub column: u64,
}

/// An extension container Python builds (`_extensions.CONTAINERS`, but images): its
/// element, and the field of each element within it, at any depth.
#[derive(Debug, Clone)]
pub struct Container {
    pub kind: u8,
    pub local: String,
    pub fields: Vec<(u8, String)>, // (kind, local name); a field is its index here
    /// Each field's name in Python's builder (`_extensions.CONTAINERS`), by index.
    pub names: Vec<String>,
    /// The record built here from those names' values, if any.
    pub build: Build,
}

/// Deeper than this below a container, a block is expat's (which bounds the depth).
const CONTAINER_DEPTH: usize = 8;
/// A start tag with more attributes than this is expat's (generators write up to four).
const ATTRIBUTES: usize = 8;
/// Deeper than this inside an element a record ignores, a block is expat's.
const SKIP_DEPTH: usize = 8;

impl Fields {
    /// True when every extension was built here.
    pub fn built(&self) -> bool {
        self.exts.iter().all(|e| {
            !matches!(
                e,
                Ext::PyImage(_)
                    | Ext::PyAlternate(_)
                    | Ext::PyContainer(..)
                    | Ext::Repeated(_)
                    | Ext::MoreLoc(_)
                    | Ext::Lookalike { .. }
            )
        })
    }
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
    /// Each prefix's namespace as expat names it ("": the default one), for the
    /// look-alikes Python counts; a prefix left out here makes such a block odd.
    namespaces: Vec<(String, String)>,
    containers: Vec<Container>,
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

impl ImageFields {
    fn into_ext(self) -> Ext {
        let Some(loc) = self.loc.filter(|l| !l.is_empty()) else {
            // `_image` notes it (image-missing-loc), naming it by what it holds
            return Ext::PyImage([
                None,
                self.caption,
                self.title,
                self.geo_location,
                self.license,
            ]);
        };
        Ext::Image(Image {
            loc,
            caption: self.caption.filter(|v| !v.is_empty()),
            title: self.title.filter(|v| !v.is_empty()),
            geo_location: self.geo_location.filter(|v| !v.is_empty()),
            license: self.license.filter(|v| !v.is_empty()),
        })
    }
}

impl BlockReader {
    pub fn new(
        kinds: Vec<(String, u8)>,
        containers: Vec<Container>,
        index: bool,
        max_loc_length: usize,
    ) -> Self {
        Self {
            kinds,
            namespaces: Vec::new(),
            containers,
            index,
            max_loc_length,
            text: String::new(),
            attr: String::new(),
        }
    }

    /// Each prefix's namespace ("": the default one): without it, a block with a
    /// look-alike is odd.
    pub fn set_namespaces(&mut self, namespaces: Vec<(String, String)>) {
        self.namespaces = namespaces;
    }

    /// The fields of `block` (from the white space before its start tag to the end of
    /// its end tag), or `Odd`.
    pub fn read(&mut self, block: &str) -> Result<Fields, Odd> {
        match self.read_block(block)? {
            Read::Whole(fields) => Ok(fields),
            Read::Nested(_) => Err(Odd),
        }
    }

    /// As `read`, but a record that starts as a child of this one (the exact path's
    /// `_ran_into`: not inside an image or a link) ends the reading there: `Nested`.
    pub fn read_block(&mut self, block: &str) -> Result<Read, Odd> {
        // Before the start tag: white space only, as a block is taken. It
        // is looked at here: quick-xml would drop a U+FEFF that starts its input.
        let start = trim_ws_start(block);
        let lead = block.len() - start.len();
        if !start.starts_with('<') {
            return Err(Odd); // text, a reference: expat's (which may refuse them)
        }
        let mut reader = Reader::from_str(start);
        let config = reader.config_mut();
        config.check_end_names = true;
        config.check_comments = true;
        // White space between elements is no event: it is all the block may hold there,
        // and text that is more than white space is still text (and odd). Within a value
        // every character counts: `value` turns this off while it reads one.
        config.trim_text_start = true;
        let mut fields = Fields::default();
        let tag = if self.index { "sitemap" } else { "url" };
        loop {
            // (comments and processing instructions between blocks come with the next one)
            match reader.read_event().map_err(|_| Odd)? {
                Event::Start(e) if e.name().0 == tag && bare(&e) => break,
                Event::Comment(c) => markup::comment(&c)?,
                Event::PI(p) => markup::instruction(&p)?,
                _ => return Err(Odd),
            }
        }
        let mut image: Option<ImageFields> = None;
        loop {
            match reader.read_event().map_err(|_| Odd)? {
                Event::Text(t) if is_space(&t) => {}
                Event::Start(e) if image.is_none() && e.name().0 == tag && bare(&e) => {
                    let end = usize::try_from(reader.buffer_position()).map_err(|_| Odd)?;
                    return Ok(Read::Nested(lead + end - e.len() - 2));
                }
                Event::Start(e) => {
                    let (kind, local) = self.key(e.name().0)?;
                    let top = image.is_none() && !self.index;
                    if top && (kind, local) == (XHTML, "link") {
                        // <xhtml:link ...>...</xhtml:link>: the exact path reads nothing of
                        // what it holds (comments, text, elements), only expat checks it
                        let link = self.alternate(&e)?;
                        self.skip(&mut reader, no_field)?;
                        fields.exts.extend(link);
                        continue;
                    }
                    if let Some(at) = self.container_at(kind, local).filter(|_| top) {
                        self.attributes(&e, false, |_, _| Ok(()))?;
                        let found = self.read_container(&mut reader, at)?;
                        fields.exts.push(self.container(at, found));
                        continue;
                    }
                    let field = match self.field(kind, local, image.is_some()) {
                        Ok(field) if bare(&e) => field,
                        Err(Odd) if image.is_none() => {
                            let note = self.other_child(&e, kind, local)?;
                            self.skip(&mut reader, no_field)?;
                            fields.exts.extend(note);
                            continue;
                        }
                        // Inside an image, the exact path reads the image's fields at any
                        // depth and nothing else: an element without one is skipped.
                        Err(Odd) => {
                            self.attributes(&e, true, |_, _| Ok(()))?;
                            self.skip(&mut reader, image_field)?;
                            continue;
                        }
                        _ => return Err(Odd),
                    };
                    match field {
                        None => {
                            image = Some(ImageFields::default()); // <image:image>
                        }
                        Some(field) => {
                            // (where its start tag began: the input read so far, but the tag)
                            let end = usize::try_from(reader.buffer_position()).map_err(|_| Odd)?;
                            let at = lead + end - e.len() - 2;
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
                            let name = match field {
                                Field::Lastmod => "lastmod",
                                Field::Changefreq => "changefreq",
                                Field::Priority => "priority",
                                Field::Loc => "loc",
                                // (an image's field given twice: the last one counts)
                                _ => "",
                            };
                            if slot.is_some() && !name.is_empty() {
                                // Python notes it where it starts (the scanner says where).
                                let (line, column) = (0, 0);
                                let repeat = Repeat {
                                    name,
                                    value,
                                    at,
                                    line,
                                    column,
                                };
                                if name == "loc" {
                                    // A further <loc>: a record of its own; the first stays.
                                    fields.exts.push(Ext::MoreLoc(repeat));
                                    continue;
                                }
                                // The last one counts.
                                *slot = Some(repeat.value.clone());
                                fields.exts.push(Ext::Repeated(repeat));
                                continue;
                            }
                            *slot = Some(value);
                        }
                    }
                }
                Event::Empty(e) if image.is_none() => {
                    let (kind, local) = self.key(e.name().0)?;
                    if !self.index && (kind, local) == (XHTML, "link") {
                        fields.exts.extend(self.alternate(&e)?);
                    } else if self.field(kind, local, false).is_err() {
                        fields.exts.extend(self.other_child(&e, kind, local)?);
                    } else {
                        return Err(Odd); // <loc/>, an empty container: the exact path's
                    }
                }
                Event::Empty(e) => {
                    // (in an image: an empty field is the exact path's, another element
                    // nothing)
                    let (kind, local) = self.key(e.name().0)?;
                    if image_field(kind, local) {
                        return Err(Odd);
                    }
                    self.attributes(&e, true, |_, _| Ok(()))?;
                }
                Event::Comment(c) => markup::comment(&c)?,
                Event::PI(p) => markup::instruction(&p)?,
                Event::End(e) => {
                    if let Some(found) = image.take() {
                        // (quick-xml checked that it closes <image:image>)
                        fields.exts.push(found.into_ext());
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
            Ok(Event::Eof) => Ok(Read::Whole(fields)),
            _ => Err(Odd),
        }
    }

    /// The field a start tag opens (`None`: an `<image:image>`), in or out of an image.
    fn field(&self, kind: u8, local: &str, in_image: bool) -> Result<Option<Field>, Odd> {
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

    fn key<'n>(&mut self, name: &'n str) -> Result<(u8, &'n str), Odd> {
        // quick-xml does not check names: a name expat might refuse (a control
        // character, `<news:>`) is odd, even in an element the block ignores.
        let Some(colon) = memchr::memchr(b':', name.as_bytes()) else {
            return if is_plain_name(name) {
                Ok((CORE, name))
            } else {
                Err(Odd)
            };
        };
        let (prefix, local) = (&name[..colon], &name[colon + 1..]);
        let slot = self
            .kinds
            .iter_mut()
            .find(|(p, _)| p == prefix)
            .ok_or(Odd)?;
        let kind = slot.1;
        if kind & FRESH != 0 {
            // The first element under a variant: this block goes to expat, which reads it
            // and records the variant (see FRESH).
            slot.1 = kind & !FRESH;
            return Err(Odd);
        }
        // (a prefixed core element is odd: expat reads it)
        if kind == CORE || !is_plain_name(local) {
            return Err(Odd);
        }
        Ok((kind, local))
    }

    /// A field's value up to its end tag: decoded, line ends normalised, stripped.
    fn value(&mut self, reader: &mut Reader<&[u8]>) -> Result<String, Odd> {
        reader.config_mut().trim_text_start = false;
        self.text.clear();
        let mut event = reader.read_event().map_err(|_| Odd)?;
        // Most values are one run of text or CDATA: taken from the input as it is when
        // the end tag follows it.
        if let Some((run, cdata)) = run_of(&event) {
            let cr = chars_cr(run, cdata)?;
            let next = reader.read_event().map_err(|_| Odd)?;
            if !cr && matches!(next, Event::End(_)) {
                let value = py_strip(run).to_owned();
                return self.value_end(reader, value);
            }
            if cr {
                push_line_ends(&mut self.text, run);
            } else {
                self.text.push_str(run);
            }
            event = next;
        }
        loop {
            match event {
                Event::Text(t) => push_chars(&mut self.text, &t, false)?,
                Event::CData(t) => push_chars(&mut self.text, &t, true)?,
                Event::GeneralRef(r) => push_ref(&mut self.text, &r)?,
                // (expat hands on the text on both sides of them)
                Event::Comment(c) => markup::comment(&c)?,
                Event::PI(p) => markup::instruction(&p)?,
                Event::End(_) => {
                    let value = py_strip(&self.text).to_owned();
                    return self.value_end(reader, value);
                }
                _ => return Err(Odd),
            }
            event = reader.read_event().map_err(|_| Odd)?;
        }
    }

    /// A value read to its end tag: white space between elements is skipped again.
    fn value_end(&mut self, reader: &mut Reader<&[u8]>, value: String) -> Result<String, Odd> {
        reader.config_mut().trim_text_start = true;
        Ok(value)
    }

    /// The attributes of a start tag, decoded, each given to `take` (which may refuse
    /// it); only the shape generators write: unprefixed names, each once, quoted values.
    /// With `prefixed` (an element the exact path reads nothing of), a name may also have
    /// a prefix the root declares (`xsi:type`) or `xml` (`xml:lang`), as expat finds it
    /// bound; a local name given twice is odd, whatever its prefixes (two prefixes may
    /// name one namespace, which expat refuses).
    fn attributes(
        &mut self,
        e: &BytesStart<'_>,
        prefixed: bool,
        mut take: impl FnMut(&str, &str) -> Result<(), Odd>,
    ) -> Result<(), Odd> {
        // The names seen so far (for duplicates); more than fit here: the block is odd.
        let mut seen: [&str; ATTRIBUTES] = [""; ATTRIBUTES];
        let mut count = 0;
        let mut rest = e.attributes_raw();
        loop {
            let name_at = trim_ws_start(rest);
            if name_at.len() == rest.len() {
                break; // (no white space: the end, or what expat must judge)
            }
            rest = name_at;
            let Some(eq) = memchr::memchr(b'=', rest.as_bytes()) else {
                break;
            };
            let name = trim_ws_end(&rest[..eq]);
            let local = match name.split_once(':') {
                Some((prefix, local)) if prefixed && self.bound(prefix) => local,
                _ => name,
            };
            if !is_plain_name(local) || local == "xmlns" || seen[..count].contains(&local) {
                return Err(Odd); // a namespace declared here, a prefix, a duplicate
            }
            *seen.get_mut(count).ok_or(Odd)? = local;
            count += 1;
            let after = trim_ws_start(&rest[eq + 1..]);
            let quote = after
                .as_bytes()
                .first()
                .filter(|&&q| q == b'"' || q == b'\'');
            let quote = *quote.ok_or(Odd)?;
            let close = memchr::memchr(quote, &after.as_bytes()[1..]).ok_or(Odd)?;
            take(name, attribute_value(&after[1..1 + close], &mut self.attr)?)?;
            rest = &after[close + 2..];
        }
        if rest.is_empty() {
            Ok(())
        } else {
            Err(Odd)
        }
    }

    /// True for a prefix expat finds bound on an attribute: `xml`, or one the root declares
    /// (with a namespace the scanner was given).
    fn bound(&self, prefix: &str) -> bool {
        prefix == "xml" || (!prefix.is_empty() && self.namespaces.iter().any(|(p, _)| p == prefix))
    }

    /// The container (video, news) an element of this kind and local name opens, if any.
    fn container_at(&self, kind: u8, local: &str) -> Option<usize> {
        self.containers
            .iter()
            .position(|c| c.kind == kind && c.local == local)
    }

    /// A container's fields up to its end tag, at any depth as on the exact path: other
    /// elements are read only for their well-formedness.
    fn read_container(
        &mut self,
        reader: &mut Reader<&[u8]>,
        at: usize,
    ) -> Result<Vec<(usize, String)>, Odd> {
        let mut found = Vec::new();
        let mut depth = 0usize;
        let mut ignored = String::new();
        loop {
            match reader.read_event().map_err(|_| Odd)? {
                Event::Start(e) => {
                    self.attributes(&e, false, |_, _| Ok(()))?;
                    match self.container_field(at, e.name().0)? {
                        Some(field) => found.push((field, self.value(reader)?)),
                        None if depth < CONTAINER_DEPTH => depth += 1,
                        None => return Err(Odd),
                    }
                }
                Event::Empty(e) => {
                    self.attributes(&e, false, |_, _| Ok(()))?;
                    if let Some(field) = self.container_field(at, e.name().0)? {
                        found.push((field, String::new()));
                    }
                }
                Event::End(_) if depth == 0 => return Ok(found),
                Event::End(_) => depth -= 1,
                // Text outside the fields: ignored, but expat must find it well-formed.
                Event::Text(t) => {
                    ignored.clear();
                    push_chars(&mut ignored, &t, false)?;
                }
                Event::CData(t) => {
                    ignored.clear();
                    push_chars(&mut ignored, &t, true)?;
                }
                Event::GeneralRef(r) => push_ref(&mut ignored, &r)?,
                Event::Comment(c) => markup::comment(&c)?,
                Event::PI(p) => markup::instruction(&p)?,
                _ => return Err(Odd),
            }
        }
    }

    /// A child of a record that is none of its fields, as `_exact._start` meets it: one
    /// the exact path reads nothing of (None), or a look-alike of an extension's element,
    /// which it counts (`_extensions.lookalike`); the record's own element (one record run
    /// into another) and an extension's element where the subset does not read it are odd.
    fn other_child(
        &mut self,
        e: &BytesStart<'_>,
        kind: u8,
        local: &str,
    ) -> Result<Option<Ext>, Odd> {
        let record = if self.index { "sitemap" } else { "url" };
        if kind > LOOKALIKE || (kind, local) == (CORE, record) {
            return Err(Odd);
        }
        let mut hreflang = false;
        self.attributes(e, true, |name, _| {
            hreflang |= name == "hreflang";
            Ok(())
        })?;
        if self.index {
            return Ok(None); // (an index's records have no extensions)
        }
        if self.container_at(kind, local).is_some()
            || (kind, local) == (IMAGE, "image")
            || (kind, local) == (XHTML, "link")
        {
            return Err(Odd);
        }
        let lookalike = kind == LOOKALIKE
            || (matches!(kind, CORE | OTHER)
                && (matches!(local, "image" | "video" | "news") || (local == "link" && hreflang)));
        if !lookalike {
            return Ok(None);
        }
        let name = e.name().0;
        let prefix = name.split_once(':').map_or("", |(prefix, _)| prefix);
        let (_, uri) = self
            .namespaces
            .iter()
            .find(|(p, _)| p == prefix)
            .ok_or(Odd)?;
        Ok(Some(Ext::Lookalike {
            uri: uri.clone(),
            local: local.to_owned(),
        }))
    }

    /// An element a record ignores, after its start tag, up to its end tag: its content
    /// is only checked for what expat would refuse (names, attributes, characters).
    /// `read`: an element the exact path would read there (`read(kind, local)`) is odd.
    fn skip(&mut self, reader: &mut Reader<&[u8]>, read: fn(u8, &str) -> bool) -> Result<(), Odd> {
        let mut depth = 0usize;
        let mut ignored = String::new();
        loop {
            match reader.read_event().map_err(|_| Odd)? {
                Event::Start(e) if depth < SKIP_DEPTH => {
                    let (kind, local) = self.key(e.name().0)?;
                    if read(kind, local) {
                        return Err(Odd);
                    }
                    self.attributes(&e, true, |_, _| Ok(()))?;
                    depth += 1;
                }
                Event::Empty(e) => {
                    let (kind, local) = self.key(e.name().0)?;
                    if read(kind, local) {
                        return Err(Odd);
                    }
                    self.attributes(&e, true, |_, _| Ok(()))?;
                }
                Event::End(_) if depth == 0 => return Ok(()),
                Event::End(_) => depth -= 1,
                Event::Text(t) => {
                    chars_cr(&t, false)?;
                }
                Event::CData(t) => {
                    chars_cr(&t, true)?;
                }
                Event::GeneralRef(r) => {
                    ignored.clear();
                    push_ref(&mut ignored, &r)?;
                }
                Event::Comment(c) => markup::comment(&c)?,
                Event::PI(p) => markup::instruction(&p)?,
                _ => return Err(Odd),
            }
        }
    }

    /// The record of a container's fields, when they make one here.
    fn container(&self, at: usize, found: Vec<(usize, String)>) -> Ext {
        let container = &self.containers[at];
        let built = match container.build {
            Build::Video => extend::video(&container.names, &found).map(|v| Ext::Video(v.into())),
            Build::News => extend::news(&container.names, &found).map(|n| Ext::News(n.into())),
            Build::Python => None,
        };
        built.unwrap_or(Ext::PyContainer(at, found))
    }

    fn container_field(&mut self, at: usize, name: &str) -> Result<Option<usize>, Odd> {
        let (kind, local) = self.key(name)?;
        let fields = &self.containers[at].fields;
        Ok(fields.iter().position(|(k, l)| *k == kind && l == local))
    }

    /// The alternate of an `<xhtml:link>` (its attributes `rel`, `hreflang`, `href` and
    /// `media` at most), None when `alternate` skips it silently (no rel="alternate", an
    /// empty href); anything else is odd.
    fn alternate(&mut self, e: &BytesStart<'_>) -> Result<Option<Ext>, Odd> {
        // rel is only compared; hreflang, href and media are kept as read.
        let mut rel: Option<Result<bool, Odd>> = None;
        let mut values: [Option<String>; 3] = Default::default(); // hreflang, href, media
        self.attributes(e, false, |name, value| {
            let slot = match name {
                "rel" => {
                    let rel_value = py_strip(value);
                    // (str.lower() beyond ASCII: Python's to judge)
                    let alternate = rel_value
                        .is_ascii()
                        .then(|| rel_value.eq_ignore_ascii_case("alternate"));
                    return match rel.replace(alternate.ok_or(Odd)) {
                        Some(_) => Err(Odd), // expat: a duplicate attribute
                        None => Ok(()),
                    };
                }
                "hreflang" => 0,
                "href" => 1,
                "media" => 2,
                _ => return Err(Odd),
            };
            match values[slot].replace(value.to_owned()) {
                Some(_) => Err(Odd), // expat: a duplicate attribute
                None => Ok(()),
            }
        })?;
        let [hreflang, href, media] = values;
        let is_alternate = rel.unwrap_or(Ok(false))?;
        let stripped = py_strip(href.as_deref().unwrap_or(""));
        if !is_alternate || stripped.is_empty() {
            return Ok(None);
        }
        if !plain_loc(stripped, self.max_loc_length) {
            // check_loc's other branches note or resolve it: Python's to judge
            return Ok(Some(Ext::PyAlternate([hreflang, href, media])));
        }
        Ok(Some(Ext::Alternate(Alternate {
            hreflang: hreflang.and_then(stripped_owned),
            href: href.and_then(stripped_owned).unwrap_or_default(),
            media: media.filter(|m| !m.is_empty()),
        })))
    }
}

/// `value` stripped as `str.strip()` strips, without a copy when nothing is stripped;
/// None when nothing is left.
fn stripped_owned(value: String) -> Option<String> {
    let stripped = py_strip(&value);
    if stripped.is_empty() {
        None
    } else if stripped.len() == value.len() {
        Some(value)
    } else {
        Some(stripped.to_owned())
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// No element is read inside the one skipped (see `skip`).
fn no_field(_: u8, _: &str) -> bool {
    false
}

/// An image's field, which the exact path reads at any depth inside `<image:image>`.
fn image_field(kind: u8, local: &str) -> bool {
    kind == IMAGE
        && matches!(
            local,
            "loc" | "caption" | "title" | "geo_location" | "license"
        )
}

/// `text` without the XML white space it starts with (ASCII: a character boundary).
fn trim_ws_start(text: &str) -> &str {
    let lead = text.bytes().take_while(|&b| is_ws(b)).count();
    &text[lead..]
}

/// `text` without the XML white space it ends with.
fn trim_ws_end(text: &str) -> &str {
    let trail = text.bytes().rev().take_while(|&b| is_ws(b)).count();
    &text[..text.len() - trail]
}

/// An XML name without a prefix, of the characters generators use (ASCII only, so
/// its bytes are its characters).
fn is_plain_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    bytes
        .first()
        .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
        && bytes[1..]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
}

fn is_space(text: &str) -> bool {
    text.bytes().all(is_ws)
}

/// The text of a run of character data (and whether it is CDATA), if `event` is one.
fn run_of<'e>(event: &'e Event<'_>) -> Option<(&'e str, bool)> {
    match event {
        Event::Text(t) => Some((t, false)),
        Event::CData(t) => Some((t, true)),
        _ => None,
    }
}

/// A start tag without attributes.
fn bare(e: &BytesStart<'_>) -> bool {
    is_space(e.attributes_raw())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader_building(build: Build) -> BlockReader {
        let kinds = vec![
            ("image".to_owned(), IMAGE),
            ("xhtml".to_owned(), XHTML),
            ("video".to_owned(), 2),
        ];
        let video = Container {
            kind: 2,
            local: "video".to_owned(),
            fields: vec![(2, "title".to_owned()), (2, "tag".to_owned())],
            names: vec!["title".to_owned(), "tags".to_owned()],
            build,
        };
        BlockReader::new(kinds, vec![video], false, 2048)
    }

    fn reader() -> BlockReader {
        reader_building(Build::Python)
    }

    fn reader_with(kinds: &[(&str, u8)], index: bool) -> BlockReader {
        let kinds = kinds.iter().map(|&(p, k)| (p.to_owned(), k)).collect();
        BlockReader::new(kinds, Vec::new(), index, 2048)
    }

    #[test]
    fn comments_and_instructions_are_skipped() {
        let block = "<!-- between --><?pi x?>\n<url><!-- a -->\n<loc>https://a/<!-- b -->b<?p?>\
            </loc><?q data?><image:image><!----><image:loc>https://a/i</image:loc></image:image>\
            </url>";
        let fields = reader().read(block).unwrap();
        assert_eq!(fields.loc.as_deref(), Some("https://a/b"));
        let [Ext::Image(image)] = &fields.exts[..] else {
            panic!("{:?}", fields.exts);
        };
        assert_eq!(image.loc, "https://a/i");
    }

    #[test]
    fn elements_a_record_ignores_are_skipped() {
        let mut reader = reader_with(&[("mobile", OTHER), ("image", IMAGE)], false);
        let block = "<url><mobile:mobile/><loc>https://a/</loc><foo a=\"1\" b='&amp;'>\
            <loc>x</loc><url/><![CDATA[<]]>&lt;<!-- c --><mobile:x><b/></mobile:x></foo>\
            <image:loc>y</image:loc><mobile:thing/><sitemap/></url>";
        let fields = reader.read(block).unwrap();
        assert_eq!(fields.loc.as_deref(), Some("https://a/"));
        assert!(fields.exts.is_empty());
        // an index's records: anything but their fields and the record's element
        let mut index = reader_with(&[("image", IMAGE), ("xhtml", XHTML)], true);
        let block = "<sitemap><loc>https://a/s</loc><image:image><image:loc>i</image:loc>\
            </image:image><xhtml:link rel='alternate' href='https://a/'/><changefreq>d\
            </changefreq><url/><image/></sitemap>";
        assert_eq!(
            index.read(block).unwrap().loc.as_deref(),
            Some("https://a/s")
        );
        assert_eq!(index.read("<sitemap><sitemap/></sitemap>"), Err(Odd));
        // a look-alike (the exact path counts it): odd, unless its namespace is known
        let mut reader = reader_with(&[("look", LOOKALIKE), ("other", OTHER)], false);
        let lookalikes = [
            ("<url><look:x/></url>", "urn:look", "x"),
            (
                "<url><other:video>v<x/></other:video></url>",
                "urn:other",
                "video",
            ),
            (
                "<url><other:link hreflang='de'/></url>",
                "urn:other",
                "link",
            ),
            ("<url><image>x</image></url>", "urn:sitemap", "image"),
        ];
        for (block, ..) in lookalikes {
            assert_eq!(reader.read(block), Err(Odd), "{block}");
        }
        reader.set_namespaces(
            [
                ("", "urn:sitemap"),
                ("look", "urn:look"),
                ("other", "urn:other"),
            ]
            .map(|(p, u)| (p.to_owned(), u.to_owned()))
            .to_vec(),
        );
        for (block, uri, local) in lookalikes {
            let noted = Ext::Lookalike {
                uri: uri.to_owned(),
                local: local.to_owned(),
            };
            assert_eq!(reader.read(block).unwrap().exts, [noted], "{block}");
        }
        // (a link is one with an hreflang only, as `_extensions.lookalike` says)
        let fields = reader
            .read("<url><other:link href='x'/><link/></url>")
            .unwrap();
        assert!(fields.exts.is_empty());
    }

    #[test]
    fn the_first_element_under_a_namespace_variant_is_expats() {
        let mut reader = reader_with(&[("image", IMAGE | FRESH)], false);
        let block = "<url><loc>https://a/</loc><image:image><image:loc>https://a/i\
            </image:loc></image:image></url>";
        // once (expat reads that block and records the variant), then read here
        assert_eq!(reader.read(block), Err(Odd));
        assert_eq!(reader.read(block).unwrap().exts.len(), 1);
        // at any depth, in any element
        let block = "<url><loc>https://a/</loc><foo><image:x/></foo></url>";
        let mut reader = reader_with(&[("image", IMAGE | FRESH)], false);
        assert_eq!(reader.read(block), Err(Odd));
        assert!(reader.read(block).is_ok());
        // not before its element is met
        let mut reader = reader_with(&[("image", IMAGE | FRESH)], false);
        assert!(reader.read("<url><loc>https://a/</loc></url>").is_ok());
        assert_eq!(reader.read(block), Err(Odd));
    }

    #[test]
    fn a_video_of_plain_values_is_built_here() {
        let block = "<url><loc>https://a/</loc><video:video><video:title> T </video:title>\
            <video:tag>a</video:tag><video:x><video:tag>b</video:tag></video:x></video:video></url>";
        let fields = reader_building(Build::Video).read(block).unwrap();
        let [Ext::Video(video)] = &fields.exts[..] else {
            panic!("{:?}", fields.exts);
        };
        assert_eq!(video.title.as_deref(), Some("T"));
        assert_eq!(video.tags, ["a", "b"]);
        assert!(fields.built());
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
        let [Ext::Image(image), Ext::Alternate(alternate)] = &fields.exts[..] else {
            panic!("{:?}", fields.exts);
        };
        assert_eq!(image.loc, "https://a/i.jpg");
        assert_eq!(image.title.as_deref(), Some("T < 2"));
        assert_eq!(alternate.hreflang.as_deref(), Some("de"));
        assert_eq!(alternate.href, "https://a/de");
    }

    #[test]
    fn extensions_python_judges() {
        let block = "<url><loc>https://a/</loc><image:image><image:title>T</image:title>\
            </image:image><xhtml:link rel=\" Alternate\" href=\"/rel\"></xhtml:link>\
            <xhtml:link rel=\"canonical\" href=\"https://a/c\"/></url>";
        let fields = reader().read(block).unwrap();
        assert!(!fields.built());
        let [Ext::PyImage(image), Ext::PyAlternate(alternate)] = &fields.exts[..] else {
            panic!("{:?}", fields.exts);
        };
        assert_eq!(image[2].as_deref(), Some("T"));
        assert_eq!(alternate[1].as_deref(), Some("/rel"));
    }

    #[test]
    fn containers_at_any_depth() {
        let block = "<url><loc>https://a/</loc><video:video><video:x a='1'><video:tag>t1\
            </video:tag></video:x><video:title>T</video:title><video:tag/></video:video></url>";
        let fields = reader().read(block).unwrap();
        let [Ext::PyContainer(0, found)] = &fields.exts[..] else {
            panic!("{:?}", fields.exts);
        };
        let want = [
            (1, "t1".to_owned()),
            (0, "T".to_owned()),
            (1, String::new()),
        ];
        assert_eq!(found[..], want);
        for odd in [
            "<url><loc>a</loc><video:video><video:title>a<b/></video:title></video:video></url>",
            "<url><loc>a</loc><video:video><video:x a='1' a='2'/></video:video></url>",
            "<url><loc>a</loc><video:video><q:x/></video:video></url>",
            "<url><loc>a</loc><video:video><!-- c -- --></video:video></url>",
            // names quick-xml lets through and expat refuses (the differential fuzz)
            "<url><loc>a</loc><video:video><x><\u{10}/></x></video:video></url>",
            "<url><loc>a</loc><video:video><video:\u{10}ame/></video:video></url>",
            "<url><loc>a</loc><video:video><video:x\u{10}>t</video:x\u{10}></video:video></url>",
            "<url><loc>a</loc><video:video><video:/></video:video></url>",
            "<url><loc>a</loc><video:video><video:1x/></video:video></url>",
            "<url><loc>a</loc><video:video><x></></x></video:video></url>",
            "<url><loc>a</loc><video:video><x></x ></y></video:video></url>",
            "<url><loc>a</loc><video:video><x></x a=\"1\"></video:video></url>",
        ] {
            assert_eq!(reader().read(odd), Err(Odd), "{odd}");
        }
    }

    #[test]
    fn a_further_loc_is_read_and_a_record_inside_the_record_is_found() {
        // A further <loc>: a record of its own after the block's (several-locs), Python's.
        let more = |value: &str, at| {
            Ext::MoreLoc(Repeat {
                name: "loc",
                value: value.to_owned(),
                at,
                line: 0,
                column: 0,
            })
        };
        let fields = reader().read("<url><loc>a</loc><loc> b </loc><loc/></url>");
        assert_eq!(fields, Err(Odd)); // (an empty field: the exact path's)
        let fields = reader()
            .read("<url><loc>a</loc><loc> b </loc><loc>c</loc></url>")
            .unwrap();
        assert_eq!(fields.loc.as_deref(), Some("a"));
        assert_eq!(fields.exts, [more("b", 17), more("c", 31)]);
        let mut index = BlockReader::new(Vec::new(), Vec::new(), true, 2048);
        let block = "<sitemap><loc>a</loc><lastmod>2024</lastmod><loc>b</loc></sitemap>";
        assert_eq!(index.read(block).unwrap().exts, [more("b", 44)]);
        // A record another one starts in (unclosed-entry): where, for the scanner.
        for block in [
            "<url><loc>a</loc><url><loc>b</loc></url>",
            "<url><loc>a</loc><url><loc>b</loc></url></url>",
        ] {
            assert_eq!(reader().read(block), Err(Odd), "{block}");
            assert_eq!(reader().read_block(block), Ok(Read::Nested(17)), "{block}");
        }
        let block = "<sitemap><loc>a</loc><sitemap><loc>b</loc></sitemap>";
        assert_eq!(index.read(block), Err(Odd));
        assert_eq!(index.read_block(block), Ok(Read::Nested(21)));
        // (not inside an image, where the exact path reads no record; nor empty)
        let block = "<url><image:image><url><loc>a</loc></url></image:image></url>";
        assert!(matches!(reader().read_block(block), Ok(Read::Whole(_))));
        assert_eq!(reader().read_block("<url><url/></url>"), Err(Odd));
        assert!(index.read("<sitemap><loc>a</loc></sitemap>").is_ok());
    }

    #[test]
    fn what_a_link_or_an_image_holds_besides_its_own_is_skipped() {
        let block = "<url><xhtml:link rel='alternate' href='https://a/de'><!-- c -->t<x a='1'>\
            <loc>l</loc></x><?p?></xhtml:link><image:image><!-- c --><foo a='1'><b/>t</foo>\
            <image:loc>https://a/i</image:loc><image:image/><url/><loc>x</loc></image:image></url>";
        let fields = reader().read(block).unwrap();
        assert_eq!(fields.loc, None);
        let [Ext::Alternate(link), Ext::Image(image)] = &fields.exts[..] else {
            panic!("{:?}", fields.exts);
        };
        assert_eq!(
            (link.href.as_str(), image.loc.as_str()),
            ("https://a/de", "https://a/i")
        );
    }

    #[test]
    fn a_skipped_element_may_have_attributes_under_a_bound_prefix() {
        let mut reader = reader_with(&[("xsi", OTHER), ("mobile", OTHER)], false);
        reader.set_namespaces(vec![("xsi".to_owned(), "urn:xsi".to_owned())]);
        let block = "<url><loc>https://a/</loc><mobile:mobile xsi:type='pc' xml:lang=\"en\">\
            <x xsi:nil='true'/></mobile:mobile></url>";
        assert!(reader.read(block).is_ok());
        for odd in [
            "<url><foo q:a='1'/></url>",             // (unbound: expat refuses it)
            "<url><foo mobile:a='1'/></url>",        // (no namespace given for it)
            "<url><foo xsi:a='1' xml:a='2'/></url>", // (maybe one name twice)
            "<url><foo xmlns:q='u'/></url>",         // (a declaration)
            "<url><loc xsi:type='x'>https://a/</loc></url>", // (a field's: still bare)
            "<url><foo xsi:='1'/></url>",
        ] {
            assert_eq!(reader.read(odd), Err(Odd), "{odd}");
        }
    }

    #[test]
    fn a_field_given_twice_is_read_and_its_repeat_said_where() {
        let block = "\n <url><lastmod>1</lastmod><loc>https://a/</loc><lastmod> 2 </lastmod>\
            <priority>0.1</priority><image:image><image:loc>i</image:loc><image:loc>j</image:loc>\
            </image:image><priority>0.2</priority></url>";
        let fields = reader().read(block).unwrap();
        assert_eq!(fields.lastmod.as_deref(), Some("2")); // (the last one counts)
        assert_eq!(fields.priority.as_deref(), Some("0.2"));
        let at = |tag: &str| block.rfind(tag).unwrap();
        let repeat = |name, value: &str, at| {
            Ext::Repeated(Repeat {
                name,
                value: value.to_owned(),
                at,
                line: 0,
                column: 0,
            })
        };
        let image = Image {
            loc: "j".to_owned(), // (an image's field given twice: the last, unnoted)
            caption: None,
            title: None,
            geo_location: None,
            license: None,
        };
        assert_eq!(
            fields.exts,
            [
                repeat("lastmod", "2", at("<lastmod>")),
                Ext::Image(image),
                repeat("priority", "0.2", at("<priority>")),
            ]
        );
        assert!(!fields.built()); // (Python notes the repeats)
        let mut index = reader_with(&[], true);
        let block =
            "<sitemap><lastmod>1</lastmod><loc>https://a/</loc><lastmod>2</lastmod></sitemap>";
        let fields = index.read(block).unwrap();
        assert_eq!(fields.exts, [repeat("lastmod", "2", 50)]);
    }

    #[test]
    fn what_is_odd() {
        for block in [
            "<url><loc>a</loc><!-- c -- --></url>",
            "<url><loc>a</loc><!-- c ---></url>",
            "<url><loc>a</loc><!--></url>",
            "<url><loc>a</loc><!-- \u{1} --></url>",
            "<url><loc>a</loc><?xml version='1.0'?></url>",
            "<url><loc>a</loc><?XML x?></url>",
            "<url><loc>a</loc><?a:b x?></url>",
            "<url><loc>a</loc><??></url>",
            "<url><loc>a<?p\u{1}?></loc></url>",
            "<url><video:video/></url>",
            "<url><x:loc>a</x:loc></url>",
            "<url a=\"1\"><loc>a</loc></url>",
            "<url><loc>a&#1;</loc></url>",
            "<url><loc>a&nbsp;</loc></url>",
            "<url><loc>a<b/></loc></url>",
            "<url><loc>a</lastmod></url>",
            "<url><xhtml:link rel=\"alternate\" href=\"https://a\"><a b='1' b='2'/></xhtml:link></url>",
            // an image's field in an element inside the image (the exact path reads it)
            "<url><image:image><foo><image:loc>i</image:loc></foo></image:image></url>",
            "<url><image:image><image:loc>i</image:loc><image:title/></image:image></url>",
            "<url><image:image><foo q:a='1'/></image:image></url>",
            "<url><xhtml:link rel=\"alternate\" href=\"https://a\" href=\"https://b\"/></url>",
            "<url><xhtml:link rel=\"alternate\"href=\"https://a\"/></url>",
            "<url><xhtml:link rel=\"alternate\" href=\"https://a\tb\"/></url>",
            "<url><xhtml:link rel=\"alternate\" type=\"x\" href=\"https://a\"/></url>",
            // elements a record ignores, but what expat may refuse or the exact path reads
            "<url><foo a='1' a='2'>x</foo></url>",
            "<url><foo xmlns:q='q'>x</foo></url>",
            "<url><foo q:a='1'>x</foo></url>",
            "<url><foo><q:x/></foo></url>",
            "<url><foo>a\u{1}</foo></url>",
            "<url><foo>&bogus;</foo></url>",
            "<url><foo></foo ></bar></url>",
            "<url><foo><\u{10}/></foo></url>",
            "<url><foo><b><b><b><b><b><b><b><b><b>x</b></b></b></b></b></b></b></b></b></foo></url>",
            "<url><url><loc>a</loc></url></url>",
            "<url><image>x</image></url>",
            "<url><news/></url>",
            "<url><link hreflang='de' href='https://a/de'/></url>",
            "<url><look:thing/></url>",
            "<url><mobile:image/></url>",
            "<url><video:video/></url>",
            "<url><image:image/></url>",
            "<url><loc/></url>",
            "<url>text<loc>a</loc></url>",
            "<url><loc>a > b</loc></url>",
            // between blocks: white space only (the block-split fuzz found the U+FEFF)
            "\u{feff}\r\n<url><loc>a</loc></url>",
            "\u{feff}<url><loc>a</loc></url>",
            " \u{a0}<url><loc>a</loc></url>",
            "x\n<url><loc>a</loc></url>",
            "&bogus;<url><loc>a</loc></url>",
            "&amp;<url><loc>a</loc></url>",
            "<![CDATA[ ]]><url><loc>a</loc></url>",
            "<!-- c -- --><url><loc>a</loc></url>",
            "<?xml x?><url><loc>a</loc></url>",
            "<!-- c -->x<url><loc>a</loc></url>",
            "</x><url><loc>a</loc></url>",
        ] {
            assert_eq!(reader().read(block), Err(Odd), "{block}");
        }
    }
}
