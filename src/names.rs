//! Namespace declarations in scope, kept across feeds (quick-xml's own resolver lives in
//! one `Reader`, and the tokenizer makes a new one for every chunk it parses).

/// The `xmlns` and `xmlns:p` declarations of the open elements, innermost last.
#[derive(Debug, Default)]
pub(crate) struct Namespaces {
    bindings: Vec<Binding>,
}

#[derive(Debug)]
struct Binding {
    prefix: String, // "" for the default namespace
    uri: String,
    depth: usize, // the element that declared it
}

pub(crate) const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

impl Namespaces {
    pub(crate) fn declare(&mut self, prefix: &str, uri: String, depth: usize) {
        self.bindings.push(Binding {
            prefix: prefix.to_owned(),
            uri,
            depth,
        });
    }

    /// The namespace of `prefix` ("" for none), or None when it is bound nowhere.
    pub(crate) fn resolve(&self, prefix: &str) -> Option<&str> {
        if let Some(b) = self.bindings.iter().rev().find(|b| b.prefix == prefix) {
            return Some(&b.uri);
        }
        match prefix {
            "" => Some(""),
            "xml" => Some(XML_NS),
            _ => None,
        }
    }

    /// Forget what the element at `depth` declared (it has closed).
    pub(crate) fn close(&mut self, depth: usize) {
        while self.bindings.last().is_some_and(|b| b.depth >= depth) {
            self.bindings.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_declarations_shadow_and_then_end() {
        let mut ns = Namespaces::default();
        assert_eq!(ns.resolve(""), Some(""));
        assert_eq!(ns.resolve("image"), None);
        ns.declare("", "outer".into(), 1);
        ns.declare("", "inner".into(), 3);
        assert_eq!(ns.resolve(""), Some("inner"));
        ns.close(3);
        assert_eq!(ns.resolve(""), Some("outer"));
        ns.close(1);
        assert_eq!(ns.resolve(""), Some(""));
    }
}
