//! The checks the lines path (`SitemapReader.line_batches`, `dump`) makes on each entry
//! between the parser and the writer, on Rust records, so that a compiled parser can hand
//! the writer its records without Python objects: the scope's fast test (the compiled core's
//! statement of `ScopeFilter.fast`), the run's entry budget (`max_entries`) and `--since`
//! (of `Since.keeps`), and robots.txt (`ReaderConfig.robots`: the rules of one origin, as
//! [`crate::robots`] judges them). They run in the walk's order: scope, then robots.txt,
//! then the budget on the entries in scope, then `--since` on what the budget kept. Their parameters are read from those
//! Python objects (`pylines::gate_of`), never derived here; tests/output/test_compiled_gate.py
//! holds each rule to its Python statement.

use std::collections::HashMap;
use std::sync::Arc;

use crate::lines::{write_entries, Format};
use crate::record::{DateTime, Entry};
use crate::robots::Robots;

/// What an entry must pass to be written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Gate {
    /// The scope's prefixes, `ScopeFilter.prefixes` (a loc passes the fast test when it
    /// starts with one and holds no dot segment, tab or line break); None when scope is off.
    pub scope: Option<Vec<String>>,
    /// `Since.when` as a UTC instant in microseconds since 1970, and `Since.keep_undated`:
    /// whether an entry without a lastmod is kept (not `--since-strict`).
    pub since: Option<(i64, bool)>,
    /// robots.txt's rules of the origin whose URLs start with `prefix`; with `obey`, the
    /// entries they disallow for the agent are left out (else only counted). None when
    /// robots.txt is ignored.
    pub robots: Option<RobotsGate>,
}

/// The rules of one origin, those of the other origins whose robots.txt the walk read, and
/// whether they are obeyed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RobotsGate {
    pub rules: Arc<Robots>,
    /// The origin's URLs start so ("https://host/").
    pub prefix: String,
    /// Every origin the walk read a robots.txt for ("https://host[:port]", as the package's
    /// `origin_of` writes it), with its rules: a loc on another origin is judged by its own
    /// origin's rules, or allowed when the walk read none; None: the caller's (as is a loc
    /// whose origin only `origin_of` can tell).
    pub others: Option<Arc<ByOrigin>>,
    pub obey: bool,
}

/// Rules by origin (`RobotsBook`'s, the compiled core's).
pub type ByOrigin = HashMap<String, Arc<Robots>>;

impl RobotsGate {
    /// The rules `loc` is judged by: `Some(None)` when the walk read no robots.txt for its
    /// origin (all allowed), None when only the caller can tell (see [`plain_origin`]).
    pub fn rules_for(&self, loc: &str) -> Option<Option<&Robots>> {
        if loc.starts_with(self.prefix.as_str()) {
            return Some(Some(&self.rules));
        }
        let others = self.others.as_ref()?;
        let origin = plain_origin(loc)?;
        Some(others.get(origin).map(|rules| &**rules))
    }
}

/// The `scheme://host[:port]` that `loc` starts with when it is written as the package's
/// `origin_of` (yarl's `URL.origin()`) would write it, so that the text is the origin the
/// walk's book knows it by: `http` or `https`, a host of lower-case letters, digits, `-`
/// and `.` (no empty label, no punycode, which yarl may rewrite), a port of digits without
/// a leading zero that is not the scheme's default; None for any other form (userinfo,
/// upper case, IPv6, escapes), which only the caller's `origin_of` can tell.
pub fn plain_origin(loc: &str) -> Option<&str> {
    let (scheme_len, default) = if loc.starts_with("https://") {
        (8, "443")
    } else if loc.starts_with("http://") {
        (7, "80")
    } else {
        return None;
    };
    let rest = &loc[scheme_len..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let (host, port) = match authority.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
        && !host.starts_with('.')
        && !host.ends_with('.')
        && !host.contains("..")
        && !host.contains("xn--");
    let port_ok = port.is_none_or(|port| {
        !port.is_empty()
            && port.len() <= 5
            && port.bytes().all(|b| b.is_ascii_digit())
            && !port.starts_with('0')
            && port != default
            && port.parse::<u32>().is_ok_and(|n| n <= 65_535)
    });
    (host_ok && port_ok).then(|| &loc[..scheme_len + end])
}

/// What robots.txt disallowed among the entries judged: for the agent and for `*` (when a
/// group names the agent), how many and the index of the first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Disallowed {
    pub agent: (usize, Option<usize>),
    pub anyone: (usize, Option<usize>),
}

impl Disallowed {
    fn add(count: &mut (usize, Option<usize>), i: usize) {
        count.0 += 1;
        count.1.get_or_insert(i);
    }
}

/// What [`write_passing`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Passed {
    /// Entries judged: all of them, or up to the first one the fast scope test cannot pass
    /// (only Python's scope check can tell: it and the rest are the caller's) or the first
    /// one past the budget.
    pub read: usize,
    /// Of those, the entries in scope (what the budget and the walk's progress count).
    pub in_scope: usize,
    /// Of those, the entries written (the rest were before `--since`).
    pub written: usize,
    /// Of the entries judged, those robots.txt disallows (left out, with `obey`, when
    /// disallowed for the agent: neither in scope nor written).
    pub disallowed: Disallowed,
}

impl Gate {
    /// Whether `loc` passes the scope's fast test.
    pub fn in_scope(&self, loc: &str) -> bool {
        match &self.scope {
            None => true,
            Some(prefixes) => {
                prefixes.iter().any(|p| loc.starts_with(p.as_str())) && !may_leave(loc)
            }
        }
    }

    /// Whether an entry of this lastmod is kept by `--since`.
    pub fn recent(&self, lastmod: Option<&DateTime>) -> bool {
        match (self.since, lastmod) {
            (None, _) => true,
            (Some((_, undated)), None) => undated,
            (Some((since, _)), Some(lastmod)) => instant(lastmod) >= since,
        }
    }
}

/// Append the lines of the entries of `entries` that pass `gate`, at most `room` of them in
/// scope, to `out`; stop at the first the fast scope test does not pass, or whose origin's
/// robots.txt rules only the caller can find (see [`RobotsGate::rules_for`]).
pub fn write_passing(
    format: Format,
    entries: &[Entry],
    sitemap: &str,
    gate: &Gate,
    room: usize,
    out: &mut Vec<u8>,
) -> Passed {
    let mut passed = Passed::default();
    let mut start = 0; // the first entry of the run of kept ones not written yet
    let mut path = Vec::new(); // (the robots.txt matcher's, reused)
    for (i, entry) in entries.iter().enumerate() {
        if !gate.in_scope(&entry.loc) || passed.in_scope == room {
            break;
        }
        if let Some(robots) = &gate.robots {
            let Some(rules) = robots.rules_for(&entry.loc) else {
                break;
            };
            let (agent, anyone) = match rules {
                Some(rules) => rules.judge(&entry.loc, &mut path),
                None => (false, false), // (no robots.txt read for its origin)
            };
            if anyone {
                Disallowed::add(&mut passed.disallowed.anyone, i);
            }
            if agent {
                Disallowed::add(&mut passed.disallowed.agent, i);
                if robots.obey {
                    write_entries(format, &entries[start..i], sitemap, out);
                    start = i + 1;
                    passed.read = i + 1;
                    continue;
                }
            }
        }
        passed.read = i + 1;
        passed.in_scope += 1;
        if !gate.recent(entry.lastmod.as_ref()) {
            write_entries(format, &entries[start..i], sitemap, out);
            start = i + 1;
            continue;
        }
        passed.written += 1;
    }
    write_entries(format, &entries[start..passed.read], sitemap, out);
    passed
}

/// What may make a URL leave the folder its text starts with once a fetcher reads it: a dot
/// segment ("/." or "/%2e"), or a tab or line break a fetcher removes (the walk's rule).
fn may_leave(url: &str) -> bool {
    url.contains("/.")
        || url.contains("/%2e")
        || url.contains("/%2E")
        || url.contains(['\t', '\n', '\r'])
}

/// `value` as microseconds since 1970-01-01 UTC (Python compares aware datetimes so).
pub fn instant(value: &DateTime) -> i64 {
    let days = days_from_civil(value.year, value.month, value.day);
    let seconds = days * 86_400
        + i64::from(value.hour) * 3600
        + i64::from(value.minute) * 60
        + i64::from(value.second)
        - i64::from(value.offset_seconds);
    seconds * 1_000_000 + i64::from(value.microsecond)
}

/// Days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i32, month: u8, day: u8) -> i64 {
    let (month, day) = (i64::from(month), i64::from(day));
    let year = i64::from(year) - i64::from(month <= 2);
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(loc: &str, day: Option<u8>) -> Entry {
        Entry {
            loc: loc.into(),
            lastmod: day.map(|day| DateTime {
                year: 2024,
                month: 5,
                day,
                ..DateTime::default()
            }),
            ..Entry::default()
        }
    }

    fn date(year: i32, month: u8, day: u8, offset_seconds: i32) -> DateTime {
        DateTime {
            year,
            month,
            day,
            offset_seconds,
            ..DateTime::default()
        }
    }

    #[test]
    fn instants_count_from_1970_in_utc() {
        assert_eq!(instant(&date(1970, 1, 1, 0)), 0);
        assert_eq!(
            instant(&date(1970, 1, 2, 3600)),
            (86_400 - 3600) * 1_000_000
        );
        assert_eq!(instant(&date(2000, 3, 1, 0)), 951_868_800 * 1_000_000);
        assert_eq!(instant(&date(1, 1, 1, 0)), -62_135_596_800 * 1_000_000);
        assert_eq!(instant(&date(9999, 12, 31, 0)), 253_402_214_400 * 1_000_000);
    }

    #[test]
    fn the_fast_scope_test_passes_prefixed_locs_that_cannot_leave() {
        let gate = Gate {
            scope: Some(vec!["https://e.com/".into(), "https://cdn.e.com/".into()]),
            ..Gate::default()
        };
        assert!(gate.in_scope("https://e.com/a"));
        assert!(gate.in_scope("https://cdn.e.com/b"));
        for loc in [
            "https://other.com/a",
            "https://e.com/../admin",
            "https://e.com/%2E%2e/admin",
            "https://e.com/a\t/b",
            "https://e.co",
        ] {
            assert!(!gate.in_scope(loc), "{loc}");
        }
        assert!(Gate::default().in_scope("anything at all"));
    }

    #[test]
    fn scope_then_budget_then_since() {
        let entries = [
            entry("https://e.com/1", Some(1)),
            entry("https://e.com/2", Some(20)),
            entry("https://e.com/3", None),
            entry("https://e.com/4", Some(2)),
            entry("https://e.com/5", Some(30)),
            entry("https://other.com/6", Some(30)),
            entry("https://e.com/7", Some(30)),
        ];
        let since = instant(&date(2024, 5, 10, 0));
        let gate = |undated| Gate {
            scope: Some(vec!["https://e.com/".into()]),
            since: Some((since, undated)),
            robots: None,
        };
        let run = |gate: &Gate, room| {
            let mut out = Vec::new();
            let passed = write_passing(Format::Txt, &entries, "s", gate, room, &mut out);
            (passed, String::from_utf8(out).unwrap())
        };
        let (passed, text) = run(&gate(true), usize::MAX);
        assert_eq!((passed.read, passed.in_scope, passed.written), (5, 5, 3));
        assert_eq!(text, "https://e.com/2\nhttps://e.com/3\nhttps://e.com/5\n");
        let (passed, text) = run(&gate(false), 3);
        assert_eq!((passed.read, passed.in_scope, passed.written), (3, 3, 1));
        assert_eq!(text, "https://e.com/2\n");
        let (passed, text) = run(&Gate::default(), 0);
        assert_eq!((passed, text.as_str()), (Passed::default(), ""));
    }

    #[test]
    fn robots_txt_leaves_out_or_counts_and_stops_at_another_origin() {
        let entries = [
            entry("https://e.com/a", None),
            entry("https://e.com/private/1", None),
            entry("https://e.com/b", None),
            entry("https://e.com/private/2", None),
            entry("https://other.com/private/3", None),
            entry("https://e.com/c", None),
        ];
        let rules = crate::robots::parse(b"User-agent: *\nDisallow: /private/\n", "bot");
        let gate = |obey| Gate {
            robots: Some(RobotsGate {
                rules: Arc::new(rules.clone()),
                prefix: "https://e.com/".into(),
                others: None,
                obey,
            }),
            ..Gate::default()
        };
        let mut out = Vec::new();
        let passed = write_passing(
            Format::Txt,
            &entries,
            "s",
            &gate(true),
            usize::MAX,
            &mut out,
        );
        assert_eq!((passed.read, passed.in_scope, passed.written), (4, 2, 2));
        assert_eq!(passed.disallowed.agent, (2, Some(1)));
        assert_eq!(passed.disallowed.anyone, (0, None));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "https://e.com/a\nhttps://e.com/b\n"
        );
        let mut out = Vec::new();
        let passed = write_passing(Format::Txt, &entries, "s", &gate(false), 3, &mut out);
        assert_eq!((passed.read, passed.in_scope, passed.written), (3, 3, 3));
        assert_eq!(passed.disallowed.agent, (1, Some(1)));
    }

    #[test]
    fn other_origins_are_judged_by_their_own_rules() {
        let entries = [
            entry("https://e.com/private/1", None),
            entry("https://other.com/private/2", None),
            entry("https://other.com/mine/3", None),
            entry("https://unread.com:8443/mine/4", None),
            entry("https://e.com/mine/5", None),
            entry("https://Other.com/mine/6", None),
            entry("https://e.com/7", None),
        ];
        let rules = |body: &[u8]| Arc::new(crate::robots::parse(body, "bot"));
        let others: ByOrigin = [
            (
                "https://e.com".into(),
                rules(b"User-agent: *\nDisallow: /private/\n"),
            ),
            (
                "https://other.com".into(),
                rules(b"User-agent: *\nDisallow: /mine/\n"),
            ),
        ]
        .into();
        let gate = Gate {
            robots: Some(RobotsGate {
                rules: rules(b"User-agent: *\nDisallow: /private/\n"),
                prefix: "https://e.com/".into(),
                others: Some(Arc::new(others)),
                obey: true,
            }),
            ..Gate::default()
        };
        let mut out = Vec::new();
        let passed = write_passing(Format::Txt, &entries, "s", &gate, usize::MAX, &mut out);
        // (stopped at the upper-case host: only origin_of can tell its origin)
        assert_eq!((passed.read, passed.in_scope), (5, 3));
        assert_eq!(passed.disallowed.agent, (2, Some(0)));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "https://other.com/private/2\nhttps://unread.com:8443/mine/4\nhttps://e.com/mine/5\n"
        );
    }

    #[test]
    fn plain_origins_are_the_ones_origin_of_writes_alike() {
        for (loc, origin) in [
            ("https://e.com/a", Some("https://e.com")),
            ("http://e.com:8080?q", Some("http://e.com:8080")),
            ("https://a-1.b.c", Some("https://a-1.b.c")),
            ("https://e.com:443/a", None),
            ("http://e.com:80/a", None),
            ("http://e.com:080/a", None),
            ("http://e.com:99999/a", None),
            ("http://e.com:/a", None),
            ("https://E.com/a", None),
            ("https://u@e.com/a", None),
            ("https://e.com./a", None),
            ("https://xn--caf-dma.com/a", None),
            ("https://[::1]/a", None),
            ("https://e%2ecom/a", None),
            ("ftp://e.com/a", None),
            ("https:///a", None),
        ] {
            assert_eq!(plain_origin(loc), origin, "{loc}");
        }
    }
}
