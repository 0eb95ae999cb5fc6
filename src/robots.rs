//! robots.txt rules (RFC 9309), the compiled core's statement of the package's reference
//! matcher (`sitemap_reader/_core/_formats/_robots_rules.py`): the groups that apply to a
//! product token and to `*`, and whether they disallow a URL. It parses and matches as the
//! reference does, octet for octet (tests/core/test_robots_match.py holds the two
//! together); the walk builds one [`Robots`] per origin and judges a compiled run's locs
//! with it, so that no Python object is made for a URL robots.txt allows.
//!
//! Remote bytes never panic here: every index is bounded by the slice it reads.
//!
//! A hostile robots.txt's cost is bounded as the reference bounds it (the same answers): a
//! rule given again is kept once, the rules without `*` are found by a lookup of the path's
//! prefixes, and of the rules with `*` only the first [`WILDCARD_RULES_MAX`] of a group (in
//! the file's order) are kept, the rest counted in [`Group::dropped`].

use std::collections::{HashMap, HashSet};

/// The rules with `*` a group keeps (the reference's `WILDCARD_RULES_MAX`).
pub const WILDCARD_RULES_MAX: usize = 500;
/// A group of at most so many rules is tried rule by rule (the reference's `_LINEAR_MAX`).
const LINEAR_MAX: usize = 32;

/// One `Allow` or `Disallow` line: the pattern's octets between its `*`, normalised, and
/// whether a final `$` anchors it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub allow: bool,
    /// The value as the robots.txt has it (what a problem names).
    pub written: String,
    /// The normalised pattern's length with its `$`: the longest match wins.
    pub length: usize,
    /// The normalised pattern with its `$` (two rules of one pattern and verdict are one).
    pattern: Vec<u8>,
    pieces: Vec<Vec<u8>>,
    anchored: bool,
}

impl Rule {
    fn of(allow: bool, value: &[u8]) -> Rule {
        let anchored = value.last() == Some(&b'$');
        let body = if anchored {
            &value[..value.len() - 1]
        } else {
            value
        };
        let mut normal = Vec::with_capacity(body.len() + 1);
        normalise(body, &mut normal);
        let mut pieces: Vec<Vec<u8>> = normal.split(|&b| b == b'*').map(<[u8]>::to_vec).collect();
        if pieces.len() > 2 {
            // ("**" matches as "*": the empty pieces between are dropped)
            let last = pieces.pop().unwrap_or_default();
            let mut kept = vec![std::mem::take(&mut pieces[0])];
            kept.extend(pieces.drain(1..).filter(|piece| !piece.is_empty()));
            kept.push(last);
            pieces = kept;
        }
        if anchored {
            normal.push(b'$');
        }
        Rule {
            allow,
            written: String::from_utf8_lossy(value).into_owned(),
            length: normal.len(),
            pattern: normal,
            pieces,
            anchored,
        }
    }

    /// No `*`: it matches the paths it starts (or, anchored, the one it is).
    fn literal(&self) -> bool {
        self.pieces.len() == 1
    }

    /// Whether `path` (normalised) matches: each piece found at the leftmost place after
    /// the last (which finds a match when there is one), the first at the start, the last
    /// at the end when anchored.
    pub fn matches(&self, path: &[u8]) -> bool {
        let Some((first, rest)) = self.pieces.split_first() else {
            return false; // (split always gives a piece)
        };
        if !path.starts_with(first) {
            return false;
        }
        let Some((last, middle)) = rest.split_last() else {
            return !self.anchored || path.len() == first.len();
        };
        let mut at = first.len();
        for piece in middle {
            match find(path, piece, at) {
                Some(found) => at = found + piece.len(),
                None => return false,
            }
        }
        if self.anchored {
            path.len() >= at + last.len() && path.ends_with(last)
        } else {
            find(path, last, at).is_some()
        }
    }
}

/// Where `needle` first occurs in `hay` at or after `from` (`from` itself for an empty one).
fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let rest = hay.get(from..)?;
    let Some(&first) = needle.first() else {
        return Some(from);
    };
    // (the pieces are short and paths too: find the first octet, then compare)
    memchr::memchr_iter(first, rest)
        .find(|&at| rest[at..].starts_with(needle))
        .map(|at| at + from)
}

/// The merged groups that apply to one agent, their rules longest first and an `Allow`
/// before a `Disallow` as long: the first that matches decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The product token the groups name, or `*`.
    pub agent: String,
    pub rules: Vec<Rule>,
    /// The rules with `*` past [`WILDCARD_RULES_MAX`], left out.
    pub dropped: usize,
    index: Option<Index>,
}

impl Group {
    fn of(agent: &str, rules: Vec<Rule>) -> Group {
        let mut seen = HashSet::new();
        let (mut wildcards, mut dropped) = (0, 0);
        let mut kept = Vec::with_capacity(rules.len());
        for rule in rules {
            if !seen.insert((rule.allow, rule.pattern.clone())) {
                continue; // (the first as long decides before it: never decides)
            }
            if !rule.literal() {
                wildcards += 1;
                if wildcards > WILDCARD_RULES_MAX {
                    dropped += 1;
                    continue;
                }
            }
            kept.push(rule);
        }
        kept.sort_by_key(|rule| (std::cmp::Reverse(rule.length), !rule.allow));
        let index = (kept.len() > LINEAR_MAX).then(|| Index::of(&kept));
        Group {
            agent: agent.to_owned(),
            rules: kept,
            dropped,
            index,
        }
    }

    /// The rule that decides for `path` (normalised); None when none matches.
    pub fn decide(&self, path: &[u8]) -> Option<&Rule> {
        match &self.index {
            Some(index) => index.decide(&self.rules, path),
            None => self.rules.iter().find(|rule| rule.matches(path)),
        }
    }

    pub fn disallows(&self, path: &[u8]) -> bool {
        self.decide(path).is_some_and(|rule| !rule.allow)
    }
}

/// A large group's rules found without trying each (the reference's `_Index`): the rules
/// without `*` by their text, the others tried in order; each named by its rank.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Index {
    /// A literal rule's text -> the first rank of that text.
    starts: HashMap<Vec<u8>, usize>,
    /// The same of the anchored ones (text without its `$`).
    whole: HashMap<Vec<u8>, usize>,
    /// The lengths of `starts`'s texts, longest first.
    lengths: Vec<usize>,
    /// The ranks of the rules with `*`, in order.
    wildcards: Vec<usize>,
}

impl Index {
    fn of(rules: &[Rule]) -> Index {
        let mut index = Index::default();
        for (rank, rule) in rules.iter().enumerate() {
            if !rule.literal() {
                index.wildcards.push(rank);
            } else if let Some(text) = rule.pieces.first() {
                let map = if rule.anchored {
                    &mut index.whole
                } else {
                    &mut index.starts
                };
                map.entry(text.clone()).or_insert(rank);
            }
        }
        let lengths: HashSet<usize> = index.starts.keys().map(Vec::len).collect();
        index.lengths = lengths.into_iter().collect();
        index.lengths.sort_unstable_by(|a, b| b.cmp(a));
        index
    }

    fn decide<'a>(&self, rules: &'a [Rule], path: &[u8]) -> Option<&'a Rule> {
        // The literal rule that matches first: the anchored one the path is (longer than
        // any prefix), else the longest prefix ...
        let best = self.whole.get(path).copied().or_else(|| {
            self.lengths
                .iter()
                .filter_map(|&length| path.get(..length))
                .find_map(|start| self.starts.get(start).copied())
        });
        let end = best.unwrap_or(rules.len());
        // ... unless a rule with `*` before it matches.
        self.wildcards
            .iter()
            .take_while(|&&rank| rank < end)
            .filter_map(|&rank| rules.get(rank))
            .find(|rule| rule.matches(path))
            .or_else(|| best.and_then(|rank| rules.get(rank)))
    }
}

/// An origin's robots.txt as the reader judges by it: the groups naming its product token
/// (`named`) and the `*` groups (`anyone`), None where there is none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Robots {
    pub named: Option<Group>,
    pub anyone: Option<Group>,
}

impl Robots {
    /// Whether robots.txt disallows `url` for the agent, and for `*` when a group named
    /// the agent (else false): the package's `RobotsFilter.judge`.
    pub fn judge(&self, url: &str, path: &mut Vec<u8>) -> (bool, bool) {
        path.clear();
        path_of(url, path);
        let anyone = self.anyone.as_ref().is_some_and(|g| g.disallows(path));
        match &self.named {
            Some(named) => (named.disallows(path), anyone),
            None => (anyone, false),
        }
    }

    /// Whether no URL is disallowed, for the agent or for `*`.
    pub fn allows_all(&self) -> bool {
        let open = |g: &Option<Group>| g.as_ref().is_none_or(|g| g.rules.iter().all(|r| r.allow));
        open(&self.named) && open(&self.anyone)
    }
}

const UNRESERVED: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Append `path` as RFC 9309 section 2.2.2 compares it to `out`: octets outside printable
/// ASCII, a lone `%` and the characters no URI holds literally percent-encoded; escapes of
/// unreserved characters decoded; other escapes kept, in upper case.
pub fn normalise(path: &[u8], out: &mut Vec<u8>) {
    // (most paths need nothing: copied up to the first octet that does)
    let plain = path.iter().position(|&b| !PLAIN[usize::from(b)]);
    let Some(mut i) = plain else {
        out.extend_from_slice(path);
        return;
    };
    out.extend_from_slice(&path[..i]);
    while let Some(&octet) = path.get(i) {
        i += 1;
        if octet == b'%' {
            let high = path.get(i).copied().and_then(hex_value);
            let low = path.get(i + 1).copied().and_then(hex_value);
            if let (Some(high), Some(low)) = (high, low) {
                i += 2;
                let value = high * 16 + low;
                if UNRESERVED.contains(&value) {
                    out.push(value);
                } else {
                    escape(value, out);
                }
                continue;
            }
            escape(octet, out);
        } else if PLAIN[usize::from(octet)] {
            out.push(octet);
        } else {
            escape(octet, out);
        }
    }
}

/// The octets `normalise` keeps as they are: printable ASCII but `%` and the characters no
/// URI holds literally.
const PLAIN: [bool; 256] = {
    let mut plain = [false; 256];
    let mut octet = 0x21;
    while octet <= 0x7e {
        plain[octet] = true;
        octet += 1;
    }
    let odd = b"%\"<>\\^`{|}";
    let mut i = 0;
    while i < odd.len() {
        plain[odd[i] as usize] = false;
        i += 1;
    }
    plain
};

fn escape(octet: u8, out: &mut Vec<u8>) {
    out.extend_from_slice(&[
        b'%',
        HEX[usize::from(octet >> 4)],
        HEX[usize::from(octet & 15)],
    ]);
}

fn hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        _ => None,
    }
}

/// Append the path and query of `url`, normalised, to `out`: what the rules are matched
/// against (the fragment is never sent; an empty path is "/").
pub fn path_of(url: &str, out: &mut Vec<u8>) {
    let url = url.as_bytes();
    let start = memchr::memchr_iter(b':', url)
        .find(|&at| url[at + 1..].starts_with(b"//"))
        .map_or(0, |at| at + 3);
    let rest = url.get(start..).unwrap_or_default();
    let path = match memchr::memchr3(b'/', b'?', b'#', rest) {
        Some(at) => &rest[at..],
        None => &[],
    };
    let path = match memchr::memchr(b'#', path) {
        Some(at) => &path[..at],
        None => path,
    };
    if path.first() != Some(&b'/') {
        out.push(b'/');
    }
    normalise(path, out);
}

/// The groups of robots.txt `body` naming `product` (a product token in lower case; ""
/// names none) and the `*` groups, each merged (RFC 9309 sections 2.1 and 2.2.1).
pub fn parse(body: &[u8], product: &str) -> Robots {
    let mut body = body;
    while let Some(rest) = body.strip_prefix(b"\xef\xbb\xbf") {
        body = rest;
    }
    let product = product.as_bytes();
    let (mut named, mut anyone) = (Vec::new(), Vec::new());
    let (mut has_named, mut has_anyone) = (false, false);
    let mut agents: Vec<Vec<u8>> = Vec::new();
    let mut in_agents = false; // the last group line was a user-agent line
    for raw in lines(body) {
        let line = match raw.iter().position(|&b| b == b'#') {
            Some(at) => &raw[..at], // '#' starts a comment
            None => raw,
        };
        let Some((key, value)) = split_line(line) else {
            continue;
        };
        if key == b"user-agent" {
            if !in_agents {
                agents.clear();
            }
            let agent = if value == b"*" {
                b"*".to_vec()
            } else {
                value
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b == b'-')
                    .map(u8::to_ascii_lowercase)
                    .collect()
            };
            has_named |= !product.is_empty() && agent == product;
            has_anyone |= agent == b"*";
            agents.push(agent);
            in_agents = true;
        } else if !matches!(
            key.as_slice(),
            b"sitemap" | b"sitemaps" | b"site-map" | b"site map"
        ) {
            in_agents = false; // any line but Sitemap ends the user-agent lines
            let allow = key == b"allow";
            if (allow || key == b"disallow") && !value.is_empty() {
                let rule = Rule::of(allow, value);
                if !product.is_empty() && agents.iter().any(|a| a == product) {
                    named.push(rule.clone());
                }
                if agents.iter().any(|a| a == b"*") {
                    anyone.push(rule);
                }
            }
        }
    }
    let product = String::from_utf8_lossy(product);
    Robots {
        named: has_named.then(|| Group::of(&product, named)),
        anyone: has_anyone.then(|| Group::of("*", anyone)),
    }
}

/// The lines of `body`, split at CR LF, CR and LF.
fn lines(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(body);
    std::iter::from_fn(move || {
        let text = rest?;
        match text.iter().position(|&b| b == b'\r' || b == b'\n') {
            None => {
                rest = None;
                Some(text)
            }
            Some(at) => {
                let skip = if text[at..].starts_with(b"\r\n") {
                    2
                } else {
                    1
                };
                rest = Some(&text[at + skip..]);
                Some(&text[..at])
            }
        }
    })
}

/// A line's key (lower case, `_` read as `-`) and value (without the spaces and tabs
/// around it), as the package's `_LINE` reads them: `[ \t]*`, a letter, letters, `_`,
/// `-` or spaces, `[ \t]*`, a colon, the value.
fn split_line(line: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let start = line.iter().position(|&b| b != b' ' && b != b'\t')?;
    let line = &line[start..];
    if !line.first()?.is_ascii_alphabetic() {
        return None;
    }
    let colon = line.iter().position(|&b| b == b':')?;
    let key = trim_end(&line[..colon]);
    if !key
        .iter()
        .all(|b| b.is_ascii_alphabetic() || b"_ -".contains(b))
    {
        return None;
    }
    let key = key
        .iter()
        .map(|b| {
            if *b == b'_' {
                b'-'
            } else {
                b.to_ascii_lowercase()
            }
        })
        .collect();
    Some((key, trim_start(trim_end(&line[colon + 1..]))))
}

fn trim_end(text: &[u8]) -> &[u8] {
    let end = text
        .iter()
        .rposition(|&b| b != b' ' && b != b'\t')
        .map_or(0, |at| at + 1);
    &text[..end]
}

fn trim_start(text: &[u8]) -> &[u8] {
    let start = text
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(text.len());
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const RULES: &str = "User-agent: *\nDisallow: /private/\nAllow: /private/open\n\
        Disallow: /tie\nAllow: /tie\nDisallow: /*.pdf$\nDisallow: /caf%C3%A9/\n\
        Disallow: /*?session=\nDisallow: /über/\n\nUser-agent: mybot\nDisallow: /mine/\n";

    fn judge(robots: &Robots, url: &str) -> (bool, bool) {
        robots.judge(url, &mut Vec::new())
    }

    #[test]
    fn rules_match_as_rfc_9309_says() {
        let robots = parse(RULES.as_bytes(), "sitemap-reader");
        for (path, disallowed) in [
            ("/a", false),
            ("/private/x", true),
            ("/private/open/1", false),
            ("/tie/1", false),
            ("/doc.pdf", true),
            ("/doc.pdf?page=2", false),
            ("/café/1", true),
            ("/list?session=9", true),
            ("/%C3%BCber/x", true),
            ("/%75ber/", false),
            ("/mine/1", false),
        ] {
            let url = format!("https://shop.invalid{path}");
            assert_eq!(judge(&robots, &url), (disallowed, false), "{path}");
        }
        let mybot = parse(RULES.as_bytes(), "mybot");
        assert_eq!(judge(&mybot, "https://shop.invalid/mine/1"), (true, false));
        assert_eq!(
            judge(&mybot, "https://shop.invalid/private/x"),
            (false, true)
        );
    }

    #[test]
    fn paths_are_normalised_alike() {
        let normal = |text: &[u8]| {
            let mut out = Vec::new();
            normalise(text, &mut out);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(normal("/foo/bar/ツ".as_bytes()), "/foo/bar/%E3%83%84");
        assert_eq!(normal(b"/foo/bar/%e3%83%84"), "/foo/bar/%E3%83%84");
        assert_eq!(normal(b"/foo/bar/%62%61%7A"), "/foo/bar/baz");
        assert_eq!(normal(b"/a b%2F%zz%"), "/a%20b%2F%25zz%25");
        let path = |url: &str| {
            let mut out = Vec::new();
            path_of(url, &mut out);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(path("https://e.com"), "/");
        assert_eq!(path("https://e.com?q=1#f"), "/?q=1");
        assert_eq!(path("https://e.com/a/b?c#d"), "/a/b?c");
    }

    #[test]
    fn groups_merge_and_the_named_one_replaces_anyone() {
        let body = b"user-agent: a\r\nUser-Agent: MyBot/2\rdisallow: /1\nsitemap: /s\n\
            crawl-delay: 1\nuser-agent: *\ndisallow: /2\nuser-agent: mybot\nallow: /1/x\n";
        let robots = parse(body, "mybot");
        let named = robots.named.as_ref().unwrap();
        assert_eq!(named.rules.len(), 2);
        assert_eq!(named.rules[0].written, "/1/x");
        assert_eq!(judge(&robots, "http://e/2"), (false, true));
        assert_eq!(judge(&robots, "http://e/1/y"), (true, false));
        assert!(parse(b"Disallow: /\n", "mybot").allows_all());
    }

    #[test]
    fn a_hostile_robots_txt_keeps_few_rules_to_try() {
        let mut body = String::from("User-agent: *\nDisallow: /private/\n");
        for i in 0..WILDCARD_RULES_MAX + 3 {
            body.push_str(&format!(
                "Disallow: *q{i}z\nDisallow: /p/{i}/\nDisallow: /a**b*\n"
            ));
        }
        let robots = parse(body.as_bytes(), "bot");
        let group = robots.anyone.as_ref().unwrap();
        // "/a**b*" kept once; the "*q..z" past the bound (the first 499 and it make 500) dropped.
        assert_eq!(group.dropped, 4);
        assert_eq!(
            group.rules.iter().filter(|r| !r.literal()).count(),
            WILDCARD_RULES_MAX
        );
        assert_eq!(group.rules.len(), 2 * WILDCARD_RULES_MAX + 4);
        for url in [
            "/private/x",
            "/p/7/x",
            "/q7z",
            "/q501z",
            "/a/b",
            "/p/1/q1z",
            "/",
        ] {
            let mut path = Vec::new();
            path_of(&format!("https://e.invalid{url}"), &mut path);
            let in_order = group.rules.iter().find(|rule| rule.matches(&path));
            assert_eq!(group.decide(&path), in_order, "{url}");
        }
        let judged = |url: &str| judge(&robots, &format!("https://e.invalid{url}")).0;
        assert!(judged("/x/q7z") && judged("/p/9/") && !judged("/x/q501z"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4_000))]
        /// Remote bytes never panic the parser or the matcher.
        #[test]
        fn remote_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..300),
                                    url in "\\PC{0,40}") {
            let robots = parse(&body, "bot");
            let _ = robots.judge(&url, &mut Vec::new());
            let _ = robots.allows_all();
        }

        /// ... nor do robots.txt lines made of the characters the rules give meaning to.
        #[test]
        fn rule_shaped_bytes_never_panic(
            rules in proptest::collection::vec("(user-agent|allow|disallow): [*$%/a-c#?]{0,12}", 0..12),
            url in "https://e/[*$%/a-c#?é]{0,20}",
        ) {
            let robots = parse(rules.join("\n").as_bytes(), "bot");
            let _ = robots.judge(&url, &mut Vec::new());
        }
    }
}
