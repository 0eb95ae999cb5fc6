//! The checks the lines path (`SitemapReader.line_batches`, `dump`) makes on each entry
//! between the parser and the writer, on Rust records, so that a compiled parser can hand
//! the writer its records without Python objects: the scope's fast test (the compiled core's
//! statement of `ScopeFilter.fast`), the run's entry budget (`max_entries`) and `--since`
//! (of `Since.keeps`), and robots.txt (`ReaderConfig.robots`: the rules of one origin, as
//! [`crate::robots`] judges them). They run in the walk's order: scope, then robots.txt,
//! then the budget on the entries in scope, then `--since` on what the budget kept. Their parameters are read from those
//! Python objects (`pylines::gate_of`), never derived here; tests/output/test_compiled_gate.py
//! holds each rule to its Python statement.

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

/// The rules of one origin, and whether they are obeyed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RobotsGate {
    pub rules: Arc<Robots>,
    /// The origin's URLs start so ("https://host/"): a loc that does not is the caller's.
    pub prefix: String,
    pub obey: bool,
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
/// scope, to `out`; stop at the first the fast scope test does not pass, or that is on
/// another origin than the robots.txt rules'.
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
            if !entry.loc.starts_with(robots.prefix.as_str()) {
                break;
            }
            let (agent, anyone) = robots.rules.judge(&entry.loc, &mut path);
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
}
