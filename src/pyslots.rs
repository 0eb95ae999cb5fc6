//! The one module that builds the package's records (`Entry`, `SitemapRef`, `Image`,
//! `Alternate`, `Video`, `News`) of the core's ([`crate::record`]), for the block scanner
//! and its `Entries` runs.
//!
//! Each record is an instance of a frozen slots dataclass built without its Python
//! `__init__`. The object is allocated as `object.__new__` allocates it, with the type's
//! generic allocator (every slot empty), and each field's value is stored in its slot as
//! the slot's member descriptor stores it (what the dataclass's own `__init__` does through
//! `object.__setattr__`), at the slot's offset in the instance, found once per class
//! ([`slot_offsets`]): no argument tuple, no bound method, no attribute lookup a field.
//! Datetimes are made by the `datetime` module's own C API (its capsule), not through a
//! Python call. The fields it sets are [`RECORDS`], exported as `_native.RECORDS`: the
//! package checks them against its dataclasses' fields at import
//! (`_core/_xml/_interface.py`), and [`Slots::of`] that each is a slot of a class whose
//! `__new__` is `object`'s.

use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple, PyType};

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

/// A cache of this many short values at most, of the fields whose values a document repeats
/// (an alternate's hreflang and media, an image's licence and place, a news item's
/// publication): one `str` each, shared by the records.
const TEXTS: usize = 256;
const _: () = assert!(TEXTS.is_power_of_two());
/// The longest value kept there, in bytes (longer ones rarely repeat).
const TEXT_BYTES: usize = 64;

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
    new_datetime: Option<NewDateTime>, // the datetime module's constructor in C, if found
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
        let utc = timezone.getattr(intern!(py, "utc"))?;
        Ok(Self {
            entry: Slots::of(config, "entry", &ENTRY_FIELDS)?,
            sitemap_ref: Slots::of(config, "sitemap_ref", &SITEMAP_REF_FIELDS)?,
            image: Slots::of(config, "image", &IMAGE_FIELDS)?,
            alternate: Slots::of(config, "alternate", &ALTERNATE_FIELDS)?,
            video: Slots::of(config, "video", &VIDEO_FIELDS)?,
            news: Slots::of(config, "news", &NEWS_FIELDS)?,
            changefreqs,
            new_datetime: new_datetime(&datetime_type, &utc),
            datetime: datetime_type.unbind(),
            utc: utc.unbind(),
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
    /// The same for the short values [`Objects::shared`] makes.
    texts: Vec<Option<(Box<str>, Py<PyString>)>>,
    zones: HashMap<i32, Py<PyAny>>,
}

impl Objects {
    pub(crate) fn new(records: Arc<Records>) -> Self {
        Self {
            records,
            dates: (0..DATES).map(|_| None).collect(),
            texts: (0..TEXTS).map(|_| None).collect(),
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

    pub(crate) fn image<'py>(&mut self, py: Python<'py>, i: &Image) -> PyResult<Bound<'py, PyAny>> {
        let text = |v: &Option<String>| -> PyResult<Bound<'py, PyAny>> {
            Ok(v.as_deref().into_pyobject(py)?.into_any())
        };
        let loc = i.loc.as_str().into_pyobject(py)?.into_any();
        let values = [
            loc,
            text(&i.caption)?,
            text(&i.title)?,
            self.shared(py, i.geo_location.as_deref()),
            self.shared(py, i.license.as_deref()),
        ];
        self.records.image.build(py, values)
    }

    pub(crate) fn alternate<'py>(
        &mut self,
        py: Python<'py>,
        a: &Alternate,
    ) -> PyResult<Bound<'py, PyAny>> {
        let values = [
            self.shared(py, a.hreflang.as_deref()),
            a.href.as_str().into_pyobject(py)?.into_any(),
            self.shared(py, a.media.as_deref()),
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
            self.shared(py, n.publication_name.as_deref()),
            self.shared(py, n.publication_language.as_deref()),
            self.date(py, n.publication_date)?,
            text(&n.title)?,
            text(&n.keywords)?,
            text(&n.genres)?,
        ];
        self.records.news.build(py, values)
    }

    /// `value` as a `str` (None as None), the one made before when it is short and was the
    /// last value to take its slot of the cache.
    fn shared<'py>(&mut self, py: Python<'py>, value: Option<&str>) -> Bound<'py, PyAny> {
        let Some(text) = value else {
            return py.None().into_bound(py);
        };
        if text.len() > TEXT_BYTES {
            return PyString::new(py, text).into_any();
        }
        let slot = text_slot(text);
        if let Some((known, object)) = &self.texts[slot] {
            if **known == *text {
                return object.bind(py).clone().into_any();
            }
        }
        let object = PyString::new(py, text);
        self.texts[slot] = Some((text.into(), object.clone().unbind()));
        object.into_any()
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
        let zone = if d.date_alone {
            self.records.date_alone.bind(py).clone()
        } else {
            self.zone(py, d.offset_seconds)?
        };
        let built = match self.records.new_datetime {
            Some(make) => {
                let class = self.records.datetime.bind(py);
                make.call(py, &d, &zone, class)?
            }
            None => self.records.datetime.bind(py).call1((
                d.year,
                d.month,
                d.day,
                d.hour,
                d.minute,
                d.second,
                d.microsecond,
                zone,
            ))?,
        };
        self.dates[slot] = Some((key, built.clone().unbind()));
        Ok(built)
    }

    /// The `timezone` of an offset (UTC's own object for 0, as `fromisoformat` gives), one
    /// object per offset.
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

/// The slot of a short text in the cache (FNV-1a: a value crafted to collide only misses).
fn text_slot(text: &str) -> usize {
    let mut hash: u32 = 0x811c_9dc5;
    for &byte in text.as_bytes() {
        hash = (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193);
    }
    (hash as usize) & (TEXTS - 1)
}

/// The builder of one record class: its `N` fields, whose values [`Slots::build`] takes
/// as an array of `N` (a field added to the list without its value does not compile).
pub(crate) struct Slots<const N: usize> {
    class: Py<PyType>,
    offsets: [usize; N], // where each field's slot lies in an instance, in bytes
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
                Ok(PyString::intern(py, name))
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Self {
            offsets: slot_offsets(class, &names)?,
            class: class.clone().unbind(),
        })
    }

    pub(crate) fn build<'py>(
        &self,
        py: Python<'py>,
        values: [Bound<'py, PyAny>; N],
    ) -> PyResult<Bound<'py, PyAny>> {
        let object = allocate(self.class.bind(py))?;
        for (&offset, value) in self.offsets.iter().zip(values) {
            store(&object, offset, value);
        }
        untrack(&object);
        Ok(object)
    }
}

/// Take a record out of the garbage collector's lists: its values (str, float, datetime,
/// an enum member, tuples of records made here) are immutable and none can refer back to
/// it, so it is never part of a cycle, and the collector, run every few hundred
/// allocations, need not walk the records of a document at each run.
#[allow(unsafe_code)]
fn untrack(object: &Bound<'_, PyAny>) {
    // SAFETY: `object` is a live instance (a `Bound`, the GIL held) of a class with the
    // collector's header (a Python class), tracked by `PyType_GenericAlloc`; untracking a
    // tracked object is what its type's own code may do at any time.
    unsafe { ffi::PyObject_GC_UnTrack(object.as_ptr().cast()) }
}

/// Where the slot of each of `names` lies in an instance of `class`, in bytes from its
/// start. The limited API gives no member's offset, so it is observed: an instance gets an
/// object of its own in each slot, through the generic setter (which writes where the
/// slot's member descriptor says), and each object's address is looked for among the
/// instance's words. Found exactly once each, past the object's header, or refused.
fn slot_offsets<const N: usize>(
    class: &Bound<'_, PyType>,
    names: &[Bound<'_, PyString>],
) -> PyResult<[usize; N]> {
    let py = class.py();
    let size: usize = class.getattr(intern!(py, "__basicsize__"))?.extract()?;
    let items: usize = class.getattr(intern!(py, "__itemsize__"))?.extract()?;
    if items != 0 {
        return Err(PyTypeError::new_err(format!("{class} has items")));
    }
    let object = allocate(class)?;
    let marks = names.iter().map(|_| PyList::empty(py)).collect::<Vec<_>>();
    for (name, mark) in names.iter().zip(&marks) {
        set_slot(&object, name, mark)?;
    }
    let words = words_of(&object, size);
    let word = std::mem::size_of::<usize>();
    let header = std::mem::size_of::<ffi::PyObject>();
    let mut offsets = [0; N];
    for ((offset, name), mark) in offsets.iter_mut().zip(names).zip(&marks) {
        let address = mark.as_ptr() as usize;
        let mut found = (0..words.len()).filter(|&at| words[at] == address);
        *offset = match (found.next(), found.next()) {
            (Some(at), None) if at * word >= header => at * word,
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "the slot of {name} was not found in an instance of {class}"
                )))
            }
        };
    }
    Ok(offsets)
}

/// The first `size` bytes of `object`, as words (at most its basic size: see the caller).
#[allow(unsafe_code)]
fn words_of(object: &Bound<'_, PyAny>, size: usize) -> Vec<usize> {
    let count = size / std::mem::size_of::<usize>();
    // SAFETY: `object` is a live instance (a `Bound`, the GIL held) of a class with no
    // items, allocated by `PyType_GenericAlloc` with the type's basic size, `size`: its
    // first `size` bytes are its own, initialised (zeroed, then written by Python), and an
    // object is aligned at least as a pointer is. They are copied out while nothing else
    // runs (the GIL is held and no Python code is called).
    unsafe { std::slice::from_raw_parts(object.as_ptr().cast::<usize>(), count).to_vec() }
}

/// Store `value` in the empty slot at `offset` of `object`, as the slot's member descriptor
/// stores it (it takes the reference: `into_ptr`).
#[allow(unsafe_code)]
fn store(object: &Bound<'_, PyAny>, offset: usize, value: Bound<'_, PyAny>) {
    // SAFETY: `object` was just allocated by `allocate` from the class whose slots
    // `slot_offsets` found at `offset` (an object slot, one pointer wide and aligned, past
    // the header, inside the basic size) and has not been shown to any Python code: the slot
    // is NULL, so no reference is lost by the write, and the object now owns the reference
    // `into_ptr` gives up, as `PyMember_SetOne` does for an object slot. The GIL is held.
    unsafe {
        let slot = object.as_ptr().cast::<u8>().add(offset);
        slot.cast::<*mut ffi::PyObject>().write(value.into_ptr());
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

/// `object.__setattr__(object, name, value)`: where [`slot_offsets`] learns the slots.
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

/// The head of the `datetime` module's C API (`PyDateTime_CAPI` of CPython's
/// `datetime.h`, its capsule `datetime.datetime_CAPI`), as far as the constructor of a
/// datetime. The structure only ever grew at its end (3.7 added `TimeZone_UTC`, the last
/// field before these constructors); [`new_datetime`] checks its types against the
/// module's before it takes anything from it.
#[repr(C)]
#[allow(dead_code)] // (the fields before the constructor are there for their places)
struct DateTimeCapi {
    date_type: *mut ffi::PyTypeObject,
    datetime_type: *mut ffi::PyTypeObject,
    time_type: *mut ffi::PyTypeObject,
    delta_type: *mut ffi::PyTypeObject,
    tzinfo_type: *mut ffi::PyTypeObject,
    utc: *mut ffi::PyObject,
    date_from_date:
        unsafe extern "C" fn(c_int, c_int, c_int, *mut ffi::PyTypeObject) -> *mut ffi::PyObject,
    datetime_from_date_and_time: MakeDateTime,
}

/// `DateTime_FromDateAndTime`: year to microsecond, tzinfo, class; a new reference, or NULL
/// with an exception set (a field out of range: the checks of `datetime(...)`).
type MakeDateTime = unsafe extern "C" fn(
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    *mut ffi::PyObject,
    *mut ffi::PyTypeObject,
) -> *mut ffi::PyObject;

/// The `datetime` module's own constructor of a datetime, as called from C: no argument
/// tuple, no keyword parsing (the Python call costs several times more).
#[derive(Clone, Copy)]
struct NewDateTime(MakeDateTime);

impl NewDateTime {
    /// `datetime(year, ..., microsecond, zone)`, of the class `class` (`datetime.datetime`,
    /// the class [`new_datetime`] checked against the capsule's).
    #[allow(unsafe_code)]
    fn call<'py>(
        self,
        py: Python<'py>,
        d: &DateTime,
        zone: &Bound<'py, PyAny>,
        class: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // (out of a C int: a value the constructor refuses, as it refuses it from Python)
        let microsecond = c_int::try_from(d.microsecond).unwrap_or(c_int::MAX);
        // SAFETY: the function is the `datetime` module's `DateTime_FromDateAndTime`, taken
        // from its capsule once its head was checked (`new_datetime`); the module is never
        // unloaded. `zone` and `class` are live objects (`Bound`) it borrows, `class` the
        // type that module made; the GIL is held. It returns a new reference or NULL with
        // an exception set, which `from_owned_ptr_or_err` takes.
        unsafe {
            let object = (self.0)(
                d.year,
                c_int::from(d.month),
                c_int::from(d.day),
                c_int::from(d.hour),
                c_int::from(d.minute),
                c_int::from(d.second),
                microsecond,
                zone.as_ptr(),
                class.as_ptr().cast::<ffi::PyTypeObject>(),
            );
            Bound::from_owned_ptr_or_err(py, object)
        }
    }
}

/// The constructor in the `datetime` module's capsule, if the capsule is there and its
/// datetime type and UTC are the module's `datetime` and `timezone.utc` (`datetime_type`,
/// `utc`); None, and the datetimes are made by a call of the class, otherwise.
#[allow(unsafe_code)]
fn new_datetime(datetime_type: &Bound<'_, PyAny>, utc: &Bound<'_, PyAny>) -> Option<NewDateTime> {
    // SAFETY: the GIL is held (the `Bound`s). `PyCapsule_Import` imports the module and
    // returns the capsule's pointer, or NULL with an exception set, which is cleared. The
    // pointer is the module's static `PyDateTime_CAPI`, which lives as long as the process:
    // its first six fields are read, and compared with the module's own objects, before
    // the constructor after them is taken (a layout that differs leaves it alone).
    unsafe {
        let capi = ffi::PyCapsule_Import(c"datetime.datetime_CAPI".as_ptr(), 0);
        if capi.is_null() {
            ffi::PyErr_Clear();
            return None;
        }
        let capi = &*capi.cast::<DateTimeCapi>();
        let same = std::ptr::eq(capi.datetime_type.cast(), datetime_type.as_ptr())
            && std::ptr::eq(capi.utc, utc.as_ptr());
        same.then_some(NewDateTime(capi.datetime_from_date_and_time))
    }
}
