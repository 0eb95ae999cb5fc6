//! `_native.RobotsRules`: an origin's robots.txt parsed once by [`crate::robots`] (the
//! package's `RobotsBook` makes one per origin it reads), then given to
//! `Entries.robots` to judge a compiled run's locs with the GIL released, no Python object
//! made for a URL it allows.

use std::sync::Arc;

use pyo3::types::PyDict;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::guard::caught;
use crate::lines::ByOrigin;
use crate::robots::{parse, Robots};

#[pyclass(module = "sitemap_reader._native", name = "RobotsRules", frozen)]
pub struct PyRobots {
    pub robots: Arc<Robots>,
}

#[pymethods]
impl PyRobots {
    /// The rules of robots.txt `body` for the product token `product` (lower case, as
    /// `product_token` gives it; "" names no group) and for `*`.
    #[new]
    fn new(py: Python<'_>, body: &[u8], product: &str) -> PyResult<Self> {
        match py.detach(|| caught(|| parse(body, product))) {
            Ok(robots) => Ok(Self {
                robots: Arc::new(robots),
            }),
            Err(error) => {
                crate::py_block::count_panic();
                Err(PyRuntimeError::new_err(error.message))
            }
        }
    }

    /// Whether the rules disallow `url` for the agent, and for `*` when a group names the
    /// agent (else false): `RobotsFilter.judge`'s answer.
    fn judge(&self, url: &str) -> (bool, bool) {
        self.robots.judge(url, &mut Vec::new())
    }

    /// Whether no URL is disallowed, for the agent or for `*`.
    #[getter]
    fn allows_all(&self) -> bool {
        self.robots.allows_all()
    }
}

/// `_native.RobotsRulesByOrigin`: the `RobotsRules` of every origin whose robots.txt the walk
/// read (the package's `RobotsBook` makes one when it has read another), so that a compiled
/// run's locs on several origins are each judged by their own origin's rules in the crate.
#[pyclass(
    module = "sitemap_reader._native",
    name = "RobotsRulesByOrigin",
    frozen
)]
pub struct PyByOrigin {
    pub rules: Arc<ByOrigin>,
}

#[pymethods]
impl PyByOrigin {
    /// `rules`: each origin ("https://host[:port]", as `origin_of` writes it) and its rules.
    #[new]
    fn new(rules: &Bound<'_, PyDict>) -> PyResult<Self> {
        let mut by_origin = ByOrigin::with_capacity(rules.len());
        for (origin, robots) in rules.iter() {
            let robots = robots.cast::<PyRobots>()?;
            by_origin.insert(origin.extract()?, Arc::clone(&robots.get().robots));
        }
        Ok(Self {
            rules: Arc::new(by_origin),
        })
    }

    fn __len__(&self) -> usize {
        self.rules.len()
    }
}
