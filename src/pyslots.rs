//! The one module that builds the package's records (`Entry`, `SitemapRef`, `Image`,
//! `Alternate`, `Video`, `News`) of the core's ([`crate::record`]), for the block scanner
//! and its `Entries` runs.
//!
//! Each record is an instance of a frozen slots dataclass built without its Python
//! `__init__`. The object is allocated as `object.__new__` allocates it, with the type's
//! generic allocator (every slot empty), and each field is set as the dataclass's own
//! `__init__` sets it, with `object.__setattr__`: the generic attribute setter, which finds
//! the field's slot (a member descriptor) on the class and stores the value there, past the
//! class's `__setattr__` that refuses writes to a frozen instance. Called through the C
//! API, neither builds an argument tuple nor a bound method; through Python, those were a
//! third of the cost of making a record. The fields it sets are [`RECORDS`], exported as
//! `_native.RECORDS`: the package checks them against its dataclasses' fields at import
//! (`_core/_xml/_interface.py`), and [`Slots::of`] that each is a slot of a class whose
//! `__new__` is `object`'s.

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple, PyType};

use crate::block::extend::{NEWS_FIELDS, VIDEO_FIELDS};
use crate::record::{Alternate, ChangeFreq, DateTime, Entry, Image, News, SitemapRef, Video};

/// The fields of each record class this module sets, in the order it takes their values
/// (the dataclasses' order; `Video` and `News` as `block::extend` orders them).
pub(crate) const ENTRY_FIELDS: [&str; 9] = [
    "loc",
    "lastmod",
    "changefreq",
    "priority",
    "sitemap",
    "images",
    "videos",
    "news",
    "alternates",
];
pub(crate) const SITEMAP_REF_FIELDS: [&str; 3] = ["loc", "lastmod", "source"];
pub(crate) const IMAGE_FIELDS: [&str; 5] = ["loc", "caption", "title", "geo_location", "license"];
pub(crate) const ALTERNATE_FIELDS: [&str; 3] = ["hreflang", "href", "media"];

/// Each record class by its `__name__`, and its fields: `_native.RECORDS`.
pub(crate) const RECORDS: [(&str, &[&str]); 6] = [
    ("Entry", &ENTRY_FIELDS),
    ("SitemapRef", &SITEMAP_REF_FIELDS),
    ("Image", &IMAGE_FIELDS),
    ("Alternate", &ALTERNATE_FIELDS),
    ("Video", &VIDEO_FIELDS),
    ("News", &NEWS_FIELDS),
];

/// A cache of this many datetimes at most (sitemaps repeat a few dates thousands of times).
const DATES: usize = 4_096;
const _: () = assert!(DATES.is_power_of_two()); // (a slot is the hash's low bits)

/// The record classes and the standard library's types a record's values are made of;
/// one per interface (`_native.Interface`), shared by every document read with it.
pub(crate) struct Records {
    entry: Slots<9>,
    sitemap_ref: Slots<3>,
    image: Slots<5>,
    alternate: Slots<3>,
    video: Slots<16>,
    news: Slots<6>,
    changefreqs: Vec<Py<PyAny>>, // the enum's members, in `ChangeFreq::ALL`'s order
    datetime: Py<PyAny>,
    fromisoformat: Py<PyAny>, // datetime.fromisoformat: one string, parsed in C
    timezone: Py<PyAny>,
    timedelta: Py<PyAny>,
    utc: Py<PyAny>,
    date_alone: Py<PyAny>, // the zone of a date written alone (the interface's)
}

impl Records {
    /// The record classes the interface `config` names, and its `changefreq` enum, called
    /// with each word of `ChangeFreq::ALL`.
    pub(crate) fn of(config: &Bound<'_, PyAny>) -> PyResult<Self> {
        let py = config.py();
        let changefreq = config.getattr(intern!(py, "changefreq"))?;
        let changefreqs = ChangeFreq::ALL
            .iter()
            .map(|c| Ok(changefreq.call1((c.as_str(),))?.unbind()))
            .collect::<PyResult<Vec<_>>>()?;
        // (the standard library's: not the package's to give)
        let datetime = py.import("datetime")?;
        let timezone = datetime.getattr(intern!(py, "timezone"))?;
        let datetime_type = datetime.getattr(intern!(py, "datetime"))?;
        Ok(Self {
            entry: Slots::of(config, "entry", &ENTRY_FIELDS)?,
            sitemap_ref: Slots::of(config, "sitemap_ref", &SITEMAP_REF_FIELDS)?,
            image: Slots::of(config, "image", &IMAGE_FIELDS)?,
            alternate: Slots::of(config, "alternate", &ALTERNATE_FIELDS)?,
            video: Slots::of(config, "video", &VIDEO_FIELDS)?,
            news: Slots::of(config, "news", &NEWS_FIELDS)?,
            changefreqs,
            fromisoformat: datetime_type
                .getattr(intern!(py, "fromisoformat"))?
                .unbind(),
            datetime: datetime_type.unbind(),
            utc: timezone.getattr(intern!(py, "utc"))?.unbind(),
            timezone: timezone.unbind(),
            timedelta: datetime.getattr(intern!(py, "timedelta"))?.unbind(),
            date_alone: config.getattr(intern!(py, "date_alone"))?.unbind(),
        })
    }
}

/// What turns the core's records into the package's, with caches of the datetimes and
/// time zones built (sitemaps repeat a few dates thousands of times). One per document,
/// shared by its scanner and its `Entries`.
#[pyclass(module = "sitemap_reader._native")]
pub(crate) struct Objects {
    records: Arc<Records>,
    /// Direct-mapped by `date_key`'s hash: a lookup is one slot whatever the keys, so
    /// dates crafted to collide only miss (a hash map's chains would grow instead).
    dates: Vec<Option<(DateKey, Py<PyAny>)>>,
    zones: HashMap<i32, Py<PyAny>>,
}

impl Objects {
    pub(crate) fn new(records: Arc<Records>) -> Self {
        Self {
            records,
            dates: (0..DATES).map(|_| None).collect(),
            zones: HashMap::new(),
        }
    }

    pub(crate) fn entry<'py>(
        &mut self,
        py: Python<'py>,
        e: &Entry,
        url: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lastmod = self.date(py, e.lastmod)?;
        let changefreq = match e.changefreq {
            Some(c) => self.records.changefreqs[c as usize].bind(py).clone(),
            None => py.None().into_bound(py),
        };
        let priority = e.priority.into_pyobject(py)?.into_any();
        let loc = e.loc.as_str().into_pyobject(py)?.into_any();
        let none = PyTuple::empty(py).into_any();
        let (images, videos, news, alternates) = if e.images.is_empty()
            && e.alternates.is_empty()
            && e.videos.is_empty()
            && e.news.is_empty()
        {
            (none.clone(), none.clone(), none.clone(), none)
        } else {
            let images = e.images.iter().map(|i| self.image(py, i));
            let images = images.collect::<PyResult<Vec<_>>>()?;
            let alternates = e.alternates.iter().map(|a| self.alternate(py, a));
            let alternates = alternates.collect::<PyResult<Vec<_>>>()?;
            let mut videos = Vec::with_capacity(e.videos.len());
            for v in &e.videos {
                videos.push(self.video(py, v)?);
            }
            let mut news = Vec::with_capacity(e.news.len());
            for n in &e.news {
                news.push(self.news(py, n)?);
            }
            (
                PyTuple::new(py, images)?.into_any(),
                PyTuple::new(py, videos)?.into_any(),
                PyTuple::new(py, news)?.into_any(),
                PyTuple::new(py, alternates)?.into_any(),
            )
        };
        self.records.entry.build(
            py,
            [
                loc,
                lastmod,
                changefreq,
                priority,
                url.clone(),
                images,
                videos,
                news,
                alternates,
            ],
        )
    }

    pub(crate) fn sitemap_ref<'py>(
        &mut self,
        py: Python<'py>,
        r: &SitemapRef,
        url: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lastmod = self.date(py, r.lastmod)?;
        let loc = r.loc.as_str().into_pyobject(py)?.into_any();
        self.records
            .sitemap_ref
            .build(py, [loc, lastmod, url.clone()])
    }

    pub(crate) fn image<'py>(&self, py: Python<'py>, i: &Image) -> PyResult<Bound<'py, PyAny>> {
        let text = |v: &Option<String>| -> PyResult<Bound<'py, PyAny>> {
            Ok(v.as_deref().into_pyobject(py)?.into_any())
        };
        let loc = i.loc.as_str().into_pyobject(py)?.into_any();
        let values = [
            loc,
            text(&i.caption)?,
            text(&i.title)?,
            text(&i.geo_location)?,
            text(&i.license)?,
        ];
        self.records.image.build(py, values)
    }

    pub(crate) fn alternate<'py>(
        &self,
        py: Python<'py>,
        a: &Alternate,
    ) -> PyResult<Bound<'py, PyAny>> {
        let values = [
            a.hreflang.as_deref().into_pyobject(py)?.into_any(),
            a.href.as_str().into_pyobject(py)?.into_any(),
            a.media.as_deref().into_pyobject(py)?.into_any(),
        ];
        self.records.alternate.build(py, values)
    }

    pub(crate) fn video<'py>(&mut self, py: Python<'py>, v: &Video) -> PyResult<Bound<'py, PyAny>> {
        let text = |v: &Option<String>| -> PyResult<Bound<'py, PyAny>> {
            Ok(v.as_deref().into_pyobject(py)?.into_any())
        };
        let number =
            |n: Option<i64>| -> PyResult<Bound<'py, PyAny>> { Ok(n.into_pyobject(py)?.into_any()) };
        let flag = |f: Option<bool>| -> PyResult<Bound<'py, PyAny>> {
            Ok(f.into_pyobject(py)?.to_owned().into_any())
        };
        let tags = PyTuple::new(py, &v.tags)?.into_any();
        let values = [
            text(&v.thumbnail_loc)?,
            text(&v.title)?,
            text(&v.description)?,
            text(&v.content_loc)?,
            text(&v.player_loc)?,
            number(v.duration)?,
            self.date(py, v.expiration_date)?,
            v.rating.into_pyobject(py)?.into_any(),
            number(v.view_count)?,
            self.date(py, v.publication_date)?,
            flag(v.family_friendly)?,
            flag(v.requires_subscription)?,
            flag(v.live)?,
            text(&v.uploader)?,
            text(&v.category)?,
            tags,
        ];
        self.records.video.build(py, values)
    }

    pub(crate) fn news<'py>(&mut self, py: Python<'py>, n: &News) -> PyResult<Bound<'py, PyAny>> {
        let text = |v: &Option<String>| -> PyResult<Bound<'py, PyAny>> {
            Ok(v.as_deref().into_pyobject(py)?.into_any())
        };
        let values = [
            text(&n.publication_name)?,
            text(&n.publication_language)?,
            self.date(py, n.publication_date)?,
            text(&n.title)?,
            text(&n.keywords)?,
            text(&n.genres)?,
        ];
        self.records.news.build(py, values)
    }

    /// A datetime, from the cache when it was built before.
    fn date<'py>(
        &mut self,
        py: Python<'py>,
        value: Option<DateTime>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Some(d) = value else {
            return Ok(py.None().into_bound(py));
        };
        let key = date_key(&d);
        let slot = date_slot(key);
        if let Some((known, date)) = &self.dates[slot] {
            if *known == key {
                return Ok(date.bind(py).clone());
            }
        }
        let built = match iso_text(&d).filter(|_| !d.date_alone) {
            // The string, parsed by C, costs less than the constructor's eight arguments
            // parsed by keyword rules; an offset of 0 gives UTC's own object, as below.
            Some(text) => self
                .records
                .fromisoformat
                .bind(py)
                .call1((PyString::new(py, text.as_str()),))?,
            None => {
                let zone = if d.date_alone {
                    self.records.date_alone.bind(py).clone()
                } else {
                    self.zone(py, d.offset_seconds)?
                };
                self.records.datetime.bind(py).call1((
                    d.year,
                    d.month,
                    d.day,
                    d.hour,
                    d.minute,
                    d.second,
                    d.microsecond,
                    zone,
                ))?
            }
        };
        self.dates[slot] = Some((key, built.clone().unbind()));
        Ok(built)
    }

    /// The `timezone` of an offset (UTC's own object for 0, as `fromisoformat` gives).
    fn zone<'py>(&mut self, py: Python<'py>, seconds: i32) -> PyResult<Bound<'py, PyAny>> {
        if seconds == 0 {
            return Ok(self.records.utc.bind(py).clone());
        }
        if let Some(known) = self.zones.get(&seconds) {
            return Ok(known.bind(py).clone());
        }
        let delta = self.records.timedelta.bind(py).call1((0, seconds))?;
        let zone = self.records.timezone.bind(py).call1((delta,))?;
        self.zones.insert(seconds, zone.clone().unbind());
        Ok(zone)
    }
}

/// A datetime's fields in two words.
type DateKey = (u64, u64);

fn date_key(d: &DateTime) -> DateKey {
    let date = (d.year as u32 as u64) << 40
        | (d.month as u64) << 32
        | (d.day as u64) << 24
        | (d.hour as u64) << 16
        | (d.minute as u64) << 8
        | d.second as u64;
    (
        date,
        u64::from(d.date_alone) << 63
            | (d.microsecond as u64) << 32
            | d.offset_seconds as u32 as u64,
    )
}

/// The slot of a date key in the cache: its words mixed (splitmix64's finaliser) so
/// that dates a second or a day apart spread over the slots.
fn date_slot((date, rest): DateKey) -> usize {
    let mut x = date ^ rest.rotate_left(29);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    (x as usize) & (DATES - 1)
}

/// `d` as `datetime.isoformat()` writes it (`YYYY-MM-DDTHH:MM:SS[.ffffff]+HH:MM`), which
/// `fromisoformat` reads back to the same datetime; None where the constructor must make
/// it (a year out of four digits, an offset of seconds, fields out of range).
fn iso_text(d: &DateTime) -> Option<IsoText> {
    let offset = d.offset_seconds;
    let in_range = (1..=9999).contains(&d.year)
        && (1..=12).contains(&d.month)
        && (1..=31).contains(&d.day)
        && d.hour < 24
        && d.minute < 60
        && d.second < 60
        && d.microsecond < 1_000_000
        && offset % 60 == 0
        && offset.abs() < 86_400;
    if !in_range {
        return None;
    }
    let mut text = IsoText::default();
    let year = d.year as u32;
    text.digits(year / 100, 2);
    text.digits(year % 100, 2);
    for (sep, value) in [
        (b'-', d.month),
        (b'-', d.day),
        (b'T', d.hour),
        (b':', d.minute),
        (b':', d.second),
    ] {
        text.push(sep);
        text.digits(u32::from(value), 2);
    }
    if d.microsecond != 0 {
        text.push(b'.');
        text.digits(d.microsecond, 6);
    }
    text.push(if offset < 0 { b'-' } else { b'+' });
    let minutes = offset.unsigned_abs() / 60;
    text.digits(minutes / 60, 2);
    text.push(b':');
    text.digits(minutes % 60, 2);
    Some(text)
}

/// The ASCII text of one datetime, on the stack (at most 32 bytes:
/// `YYYY-MM-DDTHH:MM:SS.ffffff+HH:MM`).
#[derive(Default)]
struct IsoText {
    bytes: [u8; 32],
    len: usize,
}

impl IsoText {
    fn push(&mut self, byte: u8) {
        self.bytes[self.len] = byte;
        self.len += 1;
    }

    /// `value`'s last `width` decimal digits, zero-padded.
    fn digits(&mut self, mut value: u32, width: usize) {
        for place in (self.len..self.len + width).rev() {
            self.bytes[place] = b'0' + (value % 10) as u8;
            value /= 10;
        }
        self.len += width;
    }

    fn as_str(&self) -> &str {
        // (ASCII digits and separators only: always UTF-8)
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

/// The builder of one record class: its `N` fields, whose values [`Slots::build`] takes
/// as an array of `N` (a field added to the list without its value does not compile).
pub(crate) struct Slots<const N: usize> {
    class: Py<PyType>,
    names: [Py<PyString>; N], // the fields, in order, interned
}

impl<const N: usize> Slots<N> {
    /// The builder of the class `config.<attribute>`, a dataclass whose fields are
    /// `fields`, each one of its slots (checked here, once, so that [`Slots::build`] only
    /// ever writes slots, all of them).
    pub(crate) fn of(
        config: &Bound<'_, PyAny>,
        attribute: &str,
        fields: &[&str; N],
    ) -> PyResult<Self> {
        let py = config.py();
        let class = config.getattr(attribute)?;
        let class = class.cast::<PyType>()?;
        let object_new = py.get_type::<PyAny>().getattr(intern!(py, "__new__"))?;
        if !class.getattr(intern!(py, "__new__"))?.is(&object_new) {
            return Err(PyTypeError::new_err(format!(
                "{class} has a __new__ of its own"
            )));
        }
        let member = py
            .import("types")?
            .getattr(intern!(py, "MemberDescriptorType"))?;
        // Every field of the dataclass, none else, in its order: a record has no field left
        // unset (nor one set out of place) whatever the class was given.
        let names = py
            .import("dataclasses")?
            .call_method1(intern!(py, "fields"), (class,))?
            .try_iter()?
            .map(|f| f?.getattr(intern!(py, "name"))?.extract::<String>())
            .collect::<PyResult<Vec<_>>>()?;
        if names != *fields {
            return Err(PyTypeError::new_err(format!(
                "{class} has the fields {}; the compiled core sets {}",
                names.join(", "),
                fields.join(", ")
            )));
        }
        let own = class.getattr(intern!(py, "__dict__"))?;
        let names = fields
            .iter()
            .map(|name| {
                let slot = own.get_item(*name).ok(); // (a mapping proxy: KeyError when absent)
                if !slot.is_some_and(|d| d.is_instance(&member).unwrap_or(false)) {
                    return Err(PyTypeError::new_err(format!(
                        "{name} is no slot of {class}"
                    )));
                }
                Ok(PyString::intern(py, name).unbind())
            })
            .collect::<PyResult<Vec<_>>>()?;
        let names =
            <[_; N]>::try_from(names).map_err(|_| PyTypeError::new_err("one name a field"))?; // (never: `fields` has N)
        Ok(Self {
            class: class.clone().unbind(),
            names,
        })
    }

    pub(crate) fn build<'py>(
        &self,
        py: Python<'py>,
        values: [Bound<'py, PyAny>; N],
    ) -> PyResult<Bound<'py, PyAny>> {
        let object = allocate(self.class.bind(py))?;
        for (name, value) in self.names.iter().zip(values) {
            set_slot(&object, name.bind(py), &value)?;
        }
        Ok(object)
    }
}

/// `object.__new__(class)`, for a class whose `__new__` is `object`'s (see [`Slots::of`]).
#[allow(unsafe_code)]
fn allocate<'py>(class: &Bound<'py, PyType>) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: `class` is a live type object (a `Bound`) and the GIL is held. The type is a
    // class defined in Python (a dataclass) whose `__new__` is `object`'s, and for such a
    // type `object.__new__` allocates with `PyType_GenericAlloc`: the object's memory
    // zeroed, its slots empty (NULL, as the garbage collector allows), its type referenced,
    // tracked by the collector. It returns a new reference, or NULL with an exception set;
    // `from_owned_ptr_or_err` takes either.
    unsafe {
        let object = ffi::PyType_GenericAlloc(class.as_type_ptr(), 0);
        Bound::from_owned_ptr_or_err(class.py(), object)
    }
}

/// `object.__setattr__(object, name, value)`.
#[allow(unsafe_code)]
fn set_slot(
    object: &Bound<'_, PyAny>,
    name: &Bound<'_, PyString>,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    // SAFETY: the three pointers come from `Bound` references, so each is a live object
    // for the whole call, and the attached `Python` token they carry means the GIL is
    // held. `PyObject_GenericSetAttr` borrows them (it takes its own reference to the
    // value it stores) and, on failure, returns -1 with an exception set, which
    // `PyErr::fetch` takes.
    let status =
        unsafe { ffi::PyObject_GenericSetAttr(object.as_ptr(), name.as_ptr(), value.as_ptr()) };
    if status == 0 {
        Ok(())
    } else {
        Err(PyErr::fetch(object.py()))
    }
}
