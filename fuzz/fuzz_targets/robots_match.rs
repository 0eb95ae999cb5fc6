//! The robots.txt matcher on arbitrary bytes: the input up to its first 0xFF byte is a
//! robots.txt, each line of the rest a URL's path. Remote bytes never panic the parser or
//! the matcher, rules that disallow nothing (`allows_all`) disallow no URL, and a group
//! decides (through its index, when it is large) as trying its rules in order would.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sitemap_reader_native::robots::{parse, path_of};

fuzz_target!(|input: &[u8]| {
    let (body, paths) = match input.iter().position(|&b| b == 0xff) {
        Some(at) => (&input[..at], &input[at + 1..]),
        None => (input, &[][..]),
    };
    for product in ["bot", ""] {
        let robots = parse(body, product);
        let open = robots.allows_all();
        let mut path = Vec::new();
        for line in paths.split(|&b| b == b'\n') {
            let url = format!("https://e.invalid/{}", String::from_utf8_lossy(line));
            let judged = robots.judge(&url, &mut path);
            assert!(!open || judged == (false, false), "{url}");
            for group in [&robots.named, &robots.anyone].into_iter().flatten() {
                path.clear();
                path_of(&url, &mut path);
                let in_order = group.rules.iter().find(|rule| rule.matches(&path));
                assert_eq!(group.decide(&path), in_order, "{url}");
            }
        }
    }
});
