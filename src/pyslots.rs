//! Instances of a frozen slots dataclass built without its Python `__init__`.
//!
//! The object comes from `object.__new__`, and each field is set as the dataclass's own
//! `__init__` sets it, with `object.__setattr__`: the generic attribute setter, which finds
//! the field's slot (a member descriptor) on the class and stores the value there, past
//! the class's `__setattr__` that refuses writes to a frozen instance. Called through the C
//! API, it builds no argument tuple and no bound `__set__`; through Python, those were a
//! third of the cost of making a record. Used for the classes of the most records, whose
//! `__init__` only sets its fields.

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyString;

pub(crate) struct Slots {
    class: Py<PyAny>,
    new: Py<PyAny>,
    names: Vec<Py<PyString>>, // the fields, in order, interned
}

impl Slots {
    /// The builder of `class`, whose `fields` must each be one of its slots (checked here,
    /// once, so that [`Slots::build`] only ever writes slots).
    pub(crate) fn of(class: &Bound<'_, PyAny>, fields: &[&str]) -> PyResult<Self> {
        let py = class.py();
        let member = py
            .import("types")?
            .getattr(intern!(py, "MemberDescriptorType"))?;
        let own = class.getattr(intern!(py, "__dict__"))?;
        let names = fields
            .iter()
            .map(|name| {
                if !own.get_item(*name)?.is_instance(&member)? {
                    return Err(PyTypeError::new_err(format!(
                        "{name} is no slot of {class}"
                    )));
                }
                Ok(PyString::intern(py, name).unbind())
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Self {
            class: class.clone().unbind(),
            new: class.getattr(intern!(py, "__new__"))?.unbind(),
            names,
        })
    }

    pub(crate) fn build<'py, const N: usize>(
        &self,
        py: Python<'py>,
        values: [Bound<'py, PyAny>; N],
    ) -> PyResult<Bound<'py, PyAny>> {
        let object = self.new.bind(py).call1((self.class.bind(py),))?;
        for (name, value) in self.names.iter().zip(values) {
            set_slot(&object, name.bind(py), &value)?;
        }
        Ok(object)
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
