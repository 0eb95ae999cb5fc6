//! Instances of a frozen slots dataclass built without its Python `__init__`.
//!
//! The object is allocated as `object.__new__` allocates it, with the type's generic
//! allocator (every slot empty), and each field is set as the dataclass's own `__init__`
//! sets it, with `object.__setattr__`: the generic attribute setter, which finds the
//! field's slot (a member descriptor) on the class and stores the value there, past the
//! class's `__setattr__` that refuses writes to a frozen instance. Called through the C
//! API, neither builds an argument tuple nor a bound method; through Python, those were a
//! third of the cost of making a record. Used for the classes of the most records, whose
//! `__init__` only sets its fields and whose `__new__` is `object`'s (both checked when the
//! builder is made).

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyType};

pub(crate) struct Slots {
    class: Py<PyType>,
    names: Vec<Py<PyString>>, // the fields, in order, interned
}

impl Slots {
    /// The builder of `class`, whose `fields` must each be one of its slots (checked here,
    /// once, so that [`Slots::build`] only ever writes slots).
    pub(crate) fn of(class: &Bound<'_, PyAny>, fields: &[&str]) -> PyResult<Self> {
        let py = class.py();
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
        Ok(Self {
            class: class.clone().unbind(),
            names,
        })
    }

    pub(crate) fn build<'py, const N: usize>(
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
