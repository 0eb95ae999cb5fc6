"""The command line's --help texts as pinned (argparse at COLUMNS=100, Python 3.11's layout).

tests/cli/test_cli_help.py holds the command line to them, and tests/cli/test_cli_docs.py
holds docs/cli.md to them: a change of an option is a change here, made on purpose.
"""

from __future__ import annotations

HELP: dict[tuple[str, ...], str] = {
    (): """\
usage: sitemap-reader [-h] [--version] COMMAND ...

Read a site's sitemaps (robots.txt, indexes, XML, text, feeds, gzip) and print one record per page
URL.

options:
  -h, --help  show this help message and exit
  --version   show program's version number and exit

commands:
  COMMAND
    dump      print every page URL the sources' sitemaps vouch for
    tree      print the sitemap hierarchy with counts, lastmod, status and problems
    check     report what is wrong with the sources' sitemaps (--codes lists the codes)
    state     inspect a state file (--state)

Each command's --help gives its options and exit statuses.
""",
    ("dump",): """\
usage: sitemap-reader dump [OPTIONS] [SOURCE ...]

Print one record per page URL the sources' sitemaps vouch for, on stdout or in a file; problems,
progress and a summary go to stderr.

positional arguments:
  SOURCE                a site root (https://example.com/: its robots.txt, then well-known paths),
                        a robots.txt, sitemap or index URL, a local file (a path or a file: URL; a
                        robots.txt has its Sitemap: lines followed), or - for stdin

options:
  -h, --help            show this help message and exit
  --sites FILE          also read the sites listed in FILE (- for stdin): one a line, blank lines
                        and # comments skipped. All are read in one run, sharing its per-host
                        limit; its budgets count them all, so a long list may need --deadline none
                        and a larger --max-sitemaps
  --base-url URL        read local files as if fetched from URL: relative locs resolve against it
                        (--resolve-relative), --scope judges their entries by it, and their
                        records name it as their sitemap
  --format {jsonl,csv,txt,parquet}
                        jsonl (default): one JSON object a line; csv: a header row and the scalar
                        columns; txt: one loc a line; parquet: every field as typed columns, with
                        the source (needs -o FILE and pyarrow: pip install 'sitemap-
                        reader[parquet]')
  -o FILE, --output FILE
                        write records here, not stdout
  --since WHEN          keep entries whose lastmod is at or after WHEN: a date (2024-05-01) or a
                        duration back from now (7d, 12h); entries without a lastmod are kept
  --since-strict        with --since, also drop entries that have no lastmod
  --scope {strict,host,off}
                        strict: the sitemaps.org location rule plus robots.txt vouching (default);
                        host: same host only; off: keep everything
  --robots {ignore,obey,report}
                        obey: leave out the page URLs the site's robots.txt disallows for the user
                        agent (counted as 'robots'), and do not fetch a sitemap it disallows;
                        report: keep and fetch them, and say what it disallows (check's default);
                        ignore: keep them (the default of the other commands). With obey or
                        report, a sitemap given directly has its site's robots.txt read too
  --max-depth N         nested index depth (10)
  --concurrency N       requests in flight, all hosts (16)
  --per-host N          requests in flight to one host (4)
  --delay DURATION      the least time between the starts of two requests to one host: 0.5s, 2s,
                        1m or plain seconds (0)
  --obey-crawl-delay    wait at least robots.txt's Crawl-delay (of the group naming the user
                        agent, else *) between the requests to its host
  --max-delay DURATION  the cap of a Crawl-delay, and of a 429 or 503's Retry-After that slows its
                        host for the rest of the run (30s)
  --timeout DURATION    per request, body included: 30s, 2m or plain seconds (300)
  --follow REGEX        fetch a sitemap an index names only if its URL matches REGEX (Python
                        re.search; repeatable: any may match); the sources, and the sitemaps a
                        robots.txt names, are always read
  --skip REGEX          do not fetch a sitemap an index names whose URL matches REGEX (repeatable;
                        never a source); it is reported skipped, and with --state its URLs are
                        kept, not taken as removed
  --allow-private       let documents send the reader to loopback, private and link-local
                        addresses (the SSRF guard; the sources' own hosts are always allowed)
  --user-agent UA       the User-Agent header
  --header 'NAME: VALUE'
                        send this header with every request (robots.txt, probes, sitemaps,
                        redirect hops); repeatable. Authorization, Cookie and Proxy-Authorization
                        are not sent on after a redirect to another host, and are masked in
                        messages
  --proxy URL           send every request through this http proxy, for http and https targets
                        (http://[user:password@]host:port); the SSRF guard still judges the
                        targets
  --trust-env           use HTTP_PROXY, HTTPS_PROXY, NO_PROXY and .netrc as curl does (off: a run
                        does not change with the environment); --proxy wins over them
  --no-probe            do not try well-known sitemap paths when robots.txt names none
  --resolve-relative    resolve relative <loc> values against the sitemap URL (a local file's:
                        --base-url) instead of dropping them
  --workers N           processes that parse the sitemaps an index names: a number, 'auto' (one a
                        core when there are several) or 0 for none, all parsed in the main process
                        (0)
  --parse-threads N     threads that parse sitemaps in the main process: a number, 0 for none, or
                        'auto' (one a core where dump writes its lines from the compiled core's
                        records; none elsewhere: records built for Python hold the GIL, so threads
                        gain little) (auto)
  -q, --quiet           no problems, no summary
  --no-progress         no progress display
  --state [FILE]        remember what was read in FILE (SQLite; its directory is created) and next
                        time fetch and print only what changed. --state alone uses
                        $XDG_STATE_HOME/sitemap-reader/state.sqlite (~/.local/state/... by
                        default); a directory gets state.sqlite inside it; a URL after --state is
                        a SOURCE
  --all                 with --state: read and print everything, changed or not (and record it)
  --max-age AGE         with --state: ask again (conditionally) for a sitemap whose index lastmod
                        is unchanged once its last check is older than AGE: 12h, 7d, 2w or plain
                        seconds (7d)
  --changes             with --state: only what changed since the last dump --changes: dump prints
                        each URL with "change": new, modified or removed; tree counts them per
                        sitemap and leaves them to the next dump
  --trust-lastmod {always,auto,never}
                        with --state: when a sitemap whose index lastmod did not move is skipped:
                        always, never, or auto (default): unless its source's lastmods were judged
                        untrusted
  --shrink-guard SHARE  with --changes: a sitemap or source listing fewer than SHARE of the URLs
                        of its last complete read holds its removals back until a later run sees
                        the same; 0 or off: no guard (0.5)
  --recheck N           with --state: per source, ask again (conditionally) N of the sitemaps that
                        their index lastmod would skip, the longest unchecked first, to catch an
                        index whose lastmods lie; 0: none (default: up to 4 that answer 304, the
                        others within 2% of the site's bytes a run on average, at least one every
                        5 runs)
  --wait DURATION       with --state: when another run holds the state file, wait up to DURATION
                        for it to end instead of exiting 2 at once: 30m, 2h, 1d or plain seconds

limits of one document:
  the protocol's; a document past one is reported

  --max-bytes SIZE      decompressed bytes: 500k, 100M; a larger one is cut (50M)
  --max-urls N          entries; more are reported, and read (50,000)
  --cut-at-max-urls     stop reading a document at --max-urls entries (by default all are read)

budgets of the run:
  reaching one stops new work; what was read is kept

  --deadline DURATION   the whole run: 30m, 2h, 1d or plain seconds; none for no bound (1h)
  --max-sitemaps N      sitemaps in all, robots.txt not counted (100,000)
  --max-sitemaps-per-site N
                        sitemaps per source (20,000)
  --max-entries N       URLs in all (100,000,000)
  --max-total-bytes SIZE
                        body bytes in all: 500M, 20G (16G)

exit status: 0 when a source was read (even in part) or found unchanged since the last run, and
when stdout is closed early (| head); 1 when no source could be read or the records could not be
written; 2 for a usage error (an unusable state file or -o file included); 130 when interrupted
(Ctrl-C), 143 on SIGTERM.
""",
    ("tree",): """\
usage: sitemap-reader tree [OPTIONS] [SOURCE ...]

Read the sources as dump does, then print their sitemap hierarchy: one line per document
(robots.txt, index, sitemap) with its format, URL or child counts, URLs dropped, lastmod and
status, and its problems below it; with --changes, how many of its URLs are new, modified or
removed (the changes stay for the next dump --changes).

positional arguments:
  SOURCE                a site root (https://example.com/: its robots.txt, then well-known paths),
                        a robots.txt, sitemap or index URL, a local file (a path or a file: URL; a
                        robots.txt has its Sitemap: lines followed), or - for stdin

options:
  -h, --help            show this help message and exit
  --sites FILE          also read the sites listed in FILE (- for stdin): one a line, blank lines
                        and # comments skipped. All are read in one run, sharing its per-host
                        limit; its budgets count them all, so a long list may need --deadline none
                        and a larger --max-sitemaps
  --base-url URL        read local files as if fetched from URL: relative locs resolve against it
                        (--resolve-relative), --scope judges their entries by it, and their
                        records name it as their sitemap
  --scope {strict,host,off}
                        strict: the sitemaps.org location rule plus robots.txt vouching (default);
                        host: same host only; off: keep everything
  --robots {ignore,obey,report}
                        obey: leave out the page URLs the site's robots.txt disallows for the user
                        agent (counted as 'robots'), and do not fetch a sitemap it disallows;
                        report: keep and fetch them, and say what it disallows (check's default);
                        ignore: keep them (the default of the other commands). With obey or
                        report, a sitemap given directly has its site's robots.txt read too
  --max-depth N         nested index depth (10)
  --concurrency N       requests in flight, all hosts (16)
  --per-host N          requests in flight to one host (4)
  --delay DURATION      the least time between the starts of two requests to one host: 0.5s, 2s,
                        1m or plain seconds (0)
  --obey-crawl-delay    wait at least robots.txt's Crawl-delay (of the group naming the user
                        agent, else *) between the requests to its host
  --max-delay DURATION  the cap of a Crawl-delay, and of a 429 or 503's Retry-After that slows its
                        host for the rest of the run (30s)
  --timeout DURATION    per request, body included: 30s, 2m or plain seconds (300)
  --follow REGEX        fetch a sitemap an index names only if its URL matches REGEX (Python
                        re.search; repeatable: any may match); the sources, and the sitemaps a
                        robots.txt names, are always read
  --skip REGEX          do not fetch a sitemap an index names whose URL matches REGEX (repeatable;
                        never a source); it is reported skipped, and with --state its URLs are
                        kept, not taken as removed
  --allow-private       let documents send the reader to loopback, private and link-local
                        addresses (the SSRF guard; the sources' own hosts are always allowed)
  --user-agent UA       the User-Agent header
  --header 'NAME: VALUE'
                        send this header with every request (robots.txt, probes, sitemaps,
                        redirect hops); repeatable. Authorization, Cookie and Proxy-Authorization
                        are not sent on after a redirect to another host, and are masked in
                        messages
  --proxy URL           send every request through this http proxy, for http and https targets
                        (http://[user:password@]host:port); the SSRF guard still judges the
                        targets
  --trust-env           use HTTP_PROXY, HTTPS_PROXY, NO_PROXY and .netrc as curl does (off: a run
                        does not change with the environment); --proxy wins over them
  --no-probe            do not try well-known sitemap paths when robots.txt names none
  --resolve-relative    resolve relative <loc> values against the sitemap URL (a local file's:
                        --base-url) instead of dropping them
  --workers N           processes that parse the sitemaps an index names: a number, 'auto' (one a
                        core when there are several) or 0 for none, all parsed in the main process
                        (0)
  --parse-threads N     threads that parse sitemaps in the main process: a number, 0 for none, or
                        'auto' (one a core where dump writes its lines from the compiled core's
                        records; none elsewhere: records built for Python hold the GIL, so threads
                        gain little) (auto)
  -q, --quiet           no problems, no summary
  --no-progress         no progress display
  --state [FILE]        remember what was read in FILE (SQLite; its directory is created) and next
                        time fetch and print only what changed. --state alone uses
                        $XDG_STATE_HOME/sitemap-reader/state.sqlite (~/.local/state/... by
                        default); a directory gets state.sqlite inside it; a URL after --state is
                        a SOURCE
  --all                 with --state: read and print everything, changed or not (and record it)
  --max-age AGE         with --state: ask again (conditionally) for a sitemap whose index lastmod
                        is unchanged once its last check is older than AGE: 12h, 7d, 2w or plain
                        seconds (7d)
  --changes             with --state: only what changed since the last dump --changes: dump prints
                        each URL with "change": new, modified or removed; tree counts them per
                        sitemap and leaves them to the next dump
  --trust-lastmod {always,auto,never}
                        with --state: when a sitemap whose index lastmod did not move is skipped:
                        always, never, or auto (default): unless its source's lastmods were judged
                        untrusted
  --shrink-guard SHARE  with --changes: a sitemap or source listing fewer than SHARE of the URLs
                        of its last complete read holds its removals back until a later run sees
                        the same; 0 or off: no guard (0.5)
  --recheck N           with --state: per source, ask again (conditionally) N of the sitemaps that
                        their index lastmod would skip, the longest unchecked first, to catch an
                        index whose lastmods lie; 0: none (default: up to 4 that answer 304, the
                        others within 2% of the site's bytes a run on average, at least one every
                        5 runs)
  --wait DURATION       with --state: when another run holds the state file, wait up to DURATION
                        for it to end instead of exiting 2 at once: 30m, 2h, 1d or plain seconds

limits of one document:
  the protocol's; a document past one is reported

  --max-bytes SIZE      decompressed bytes: 500k, 100M; a larger one is cut (50M)
  --max-urls N          entries; more are reported, and read (50,000)
  --cut-at-max-urls     stop reading a document at --max-urls entries (by default all are read)

budgets of the run:
  reaching one stops new work; what was read is kept

  --deadline DURATION   the whole run: 30m, 2h, 1d or plain seconds; none for no bound (1h)
  --max-sitemaps N      sitemaps in all, robots.txt not counted (100,000)
  --max-sitemaps-per-site N
                        sitemaps per source (20,000)
  --max-entries N       URLs in all (100,000,000)
  --max-total-bytes SIZE
                        body bytes in all: 500M, 20G (16G)

exit status: 0 when a source was read (even in part) or found unchanged since the last run, and
when stdout is closed early (| head); 1 when no source could be read or the records could not be
written; 2 for a usage error (an unusable state file or -o file included); 130 when interrupted
(Ctrl-C), 143 on SIGTERM.
""",
    ("check",): """\
usage: sitemap-reader check [OPTIONS] [SOURCE ...]
       sitemap-reader check --explain CODE | --codes [--format json]

Read the sources as dump does and report each finding with its code, severity, document and line.
--codes lists the codes, --explain CODE tells one.

positional arguments:
  SOURCE                a site root (https://example.com/: its robots.txt, then well-known paths),
                        a robots.txt, sitemap or index URL, a local file (a path or a file: URL; a
                        robots.txt has its Sitemap: lines followed), or - for stdin

options:
  -h, --help            show this help message and exit
  --sites FILE          also read the sites listed in FILE (- for stdin): one a line, blank lines
                        and # comments skipped. All are read in one run, sharing its per-host
                        limit; its budgets count them all, so a long list may need --deadline none
                        and a larger --max-sitemaps
  --base-url URL        read local files as if fetched from URL: relative locs resolve against it
                        (--resolve-relative), --scope judges their entries by it, and their
                        records name it as their sitemap
  --format {text,json}  text (default): findings grouped by document, then a summary; json: one
                        object a finding, then one with the summary
  --explain CODE        tell what CODE (P301, or its name too-many-urls) means, how to fix it and
                        an example; no source is read
  --codes               list every code with its severity, name and summary (--format json: one
                        object a code); no source is read
  --report FILE.html    also write a self-contained HTML page: the sitemap tree, the findings and
                        charts
  --fail-on {error,warning,never}
                        exit 1 when a finding of this severity or worse is found (default: error)
  --slow DURATION       report responses slower than this (5)
  --sample N            also fetch a uniform random sample of at most N listed pages (politely, as
                        the walk fetches) and report those that redirect, answer 4xx or 5xx, are
                        marked noindex or name another URL as canonical, with the share of all
                        listed URLs each stands for (default: 0, no page is fetched)
  --seed SEED           the seed of --sample's draw: the same seed and sitemaps draw the same
                        pages (default: 0)
  --state [FILE]        use the state file FILE (as dump --state does) for its lastmod trust
                        verdicts (V406); everything is read again
  --scope {strict,host,off}
                        strict: the sitemaps.org location rule plus robots.txt vouching (default);
                        host: same host only; off: keep everything
  --robots {ignore,obey,report}
                        obey: leave out the page URLs the site's robots.txt disallows for the user
                        agent (counted as 'robots'), and do not fetch a sitemap it disallows;
                        report: keep and fetch them, and say what it disallows (check's default);
                        ignore: keep them (the default of the other commands). With obey or
                        report, a sitemap given directly has its site's robots.txt read too
  --max-depth N         nested index depth (10)
  --concurrency N       requests in flight, all hosts (16)
  --per-host N          requests in flight to one host (4)
  --delay DURATION      the least time between the starts of two requests to one host: 0.5s, 2s,
                        1m or plain seconds (0)
  --obey-crawl-delay    wait at least robots.txt's Crawl-delay (of the group naming the user
                        agent, else *) between the requests to its host
  --max-delay DURATION  the cap of a Crawl-delay, and of a 429 or 503's Retry-After that slows its
                        host for the rest of the run (30s)
  --timeout DURATION    per request, body included: 30s, 2m or plain seconds (300)
  --follow REGEX        fetch a sitemap an index names only if its URL matches REGEX (Python
                        re.search; repeatable: any may match); the sources, and the sitemaps a
                        robots.txt names, are always read
  --skip REGEX          do not fetch a sitemap an index names whose URL matches REGEX (repeatable;
                        never a source); it is reported skipped, and with --state its URLs are
                        kept, not taken as removed
  --allow-private       let documents send the reader to loopback, private and link-local
                        addresses (the SSRF guard; the sources' own hosts are always allowed)
  --user-agent UA       the User-Agent header
  --header 'NAME: VALUE'
                        send this header with every request (robots.txt, probes, sitemaps,
                        redirect hops); repeatable. Authorization, Cookie and Proxy-Authorization
                        are not sent on after a redirect to another host, and are masked in
                        messages
  --proxy URL           send every request through this http proxy, for http and https targets
                        (http://[user:password@]host:port); the SSRF guard still judges the
                        targets
  --trust-env           use HTTP_PROXY, HTTPS_PROXY, NO_PROXY and .netrc as curl does (off: a run
                        does not change with the environment); --proxy wins over them
  --no-probe            do not try well-known sitemap paths when robots.txt names none
  --resolve-relative    resolve relative <loc> values against the sitemap URL (a local file's:
                        --base-url) instead of dropping them
  --workers N           processes that parse the sitemaps an index names: a number, 'auto' (one a
                        core when there are several) or 0 for none, all parsed in the main process
                        (0)
  --parse-threads N     threads that parse sitemaps in the main process: a number, 0 for none, or
                        'auto' (one a core where dump writes its lines from the compiled core's
                        records; none elsewhere: records built for Python hold the GIL, so threads
                        gain little) (auto)
  -q, --quiet           no problems, no summary
  --no-progress         no progress display

limits of one document:
  the protocol's; a document past one is reported

  --max-bytes SIZE      decompressed bytes: 500k, 100M; a larger one is cut (50M)
  --max-urls N          entries; more are reported, and read (50,000)
  --cut-at-max-urls     stop reading a document at --max-urls entries (by default all are read)

budgets of the run:
  reaching one stops new work; what was read is kept

  --deadline DURATION   the whole run: 30m, 2h, 1d or plain seconds; none for no bound (1h)
  --max-sitemaps N      sitemaps in all, robots.txt not counted (100,000)
  --max-sitemaps-per-site N
                        sitemaps per source (20,000)
  --max-entries N       URLs in all (100,000,000)
  --max-total-bytes SIZE
                        body bytes in all: 500M, 20G (16G)

exit status: 0 when no finding reaches --fail-on; 1 when one does; 2 for a usage error (an
unusable state file included); 130 when interrupted (Ctrl-C), 143 on SIGTERM.
""",
    ("state",): """\
usage: sitemap-reader state [-h] ACTION ...

Inspect a state file, the SQLite file --state keeps between runs.

options:
  -h, --help  show this help message and exit

actions:
  ACTION
    show      list what a state file holds
""",
    ("state", "show"): """\
usage: sitemap-reader state show [-h] [--format {text,jsonl}] [FILE]

List the documents a state file holds, with their counts, lastmod, validators and when they were
read.

positional arguments:
  FILE                  the state file (default: $XDG_STATE_HOME/sitemap-reader/state.sqlite
                        (~/.local/state/... by default); a directory: its state.sqlite)

options:
  -h, --help            show this help message and exit
  --format {text,jsonl}
                        text (default): a summary line, then one line per document; jsonl: one
                        JSON object per document

exit status: 0 when the file was listed, and when stdout is closed early (| head); 1 when there is
no state file there; 2 for a usage error or a file that is no state file; 130 when interrupted
(Ctrl-C).
""",
}
