//! A panic becomes a fault: none may reach Python (as PyO3's PanicException, a
//! BaseException that would cut through the reader's error handling).

use std::panic::{catch_unwind, AssertUnwindSafe};

/// A panic caught in the compiled core: a bug to report, with what it said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panic {
    pub message: String,
}

/// Run `work`; a panic in it comes back as a [`Panic`]. What it was working on may be
/// left half-changed (hence `AssertUnwindSafe`): the caller must not use it again.
pub fn caught<T>(work: impl FnOnce() -> T) -> Result<T, Panic> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Panic {
            message: format!("a bug in the compiled scanner (a caught panic: {what})"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_a_fault() {
        assert_eq!(caught(|| 7), Ok(7));
        let error = caught(|| -> u8 { panic!("boom {}", 1) }).unwrap_err();
        assert!(
            error.message.ends_with("(a caught panic: boom 1)"),
            "{}",
            error.message
        );
    }
}
