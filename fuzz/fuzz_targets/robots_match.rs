//! The robots.txt matcher on arbitrary bytes: the input up to its first 0xFF byte is a
//! robots.txt, each line of the rest a URL's path. Remote bytes never panic the parser or
//! the matcher, and rules that disallow nothing (`allows_all`) disallow no URL.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sitemap_reader_native::robots::parse;

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
        }
    }
});
