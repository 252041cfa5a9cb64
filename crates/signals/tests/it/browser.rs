//! The demo site as a reader's browser sees it: the real binary renders the
//! demo, a loopback HTTP server started here serves it, and headless
//! Chromium loads every repository page. The DOM after load is checked
//! against `dataset.json`; every console message (a CSP violation, a blocked
//! resource, a script error) fails the test, and so does any request the
//! server could not answer. Screenshots (desktop and phone, light and dark)
//! are left under `<target>/browser-screenshots/` for people to look at.
//!
//! Chromium is found at `/usr/bin/chromium` or on `PATH`. Without it the test
//! prints "skipped: chromium not found" and passes, unless
//! `SIGNALS_REQUIRE_BROWSER=1` (set in CI), where a missing browser fails.
//!
//! No heavy dependency: `--dump-dom` gives the DOM after load, a small
//! parser below reads Chromium's serialization (always quoted attributes and
//! explicit end tags), and `--enable-logging=stderr` gives console messages.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{self, TempDir};

/// Headless Chromium runs the page's timers and fetches within this much
/// virtual time before it dumps or shoots, so the filter script has loaded
/// its index.
pub(crate) const VIRTUAL_TIME: &str = "--virtual-time-budget=10000";

/// Longest a single Chromium run may take before it is killed.
const CHROMIUM_DEADLINE: Duration = Duration::from_secs(90);

/// Signal cards per page and trail events on a repository's first page, as
/// the site promises them.
const PAGE_SIZE: usize = signals_site::PAGE_SIZE;
const TRAIL_PREVIEW: usize = signals_site::TRAIL_PREVIEW;
const TRAIL_PAGE_SIZE: usize = signals_site::TRAIL_PAGE_SIZE;

#[test]
fn demo_site_in_headless_chromium() {
    let Some(browser) = find_chromium() else {
        if std::env::var("SIGNALS_REQUIRE_BROWSER").as_deref() == Ok("1") {
            panic!(
                "chromium not found (looked at /usr/bin/chromium and for chromium or \
                 chromium-browser on PATH) and SIGNALS_REQUIRE_BROWSER=1; install it \
                 (Debian: apt-get install chromium)"
            );
        }
        // Straight to stderr: the test harness captures `eprintln!`, and this
        // notice must be seen even when the test passes.
        let _ = writeln!(
            std::io::stderr(),
            "skipped: chromium not found (install it, or set SIGNALS_REQUIRE_BROWSER=1 to make this a failure)"
        );
        return;
    };

    let dir = TempDir::new("browser");
    let out = support::run(dir.path(), &["demo", "--out", "out"], &[]);
    assert!(out.status.success(), "demo failed: {}", support::show(&out));
    let site = dir.path().join("out").join("site");
    let server = Server::start(&site);
    let shots = screenshot_dir();
    let mut console = Vec::new();

    // First, that this Chromium reports console messages the way `run`
    // reads them: otherwise "no console errors" below would prove nothing.
    let canary = browser.run(&dir, &["--dump-dom"], &server.url("/__canary.html"));
    assert!(
        canary
            .console
            .iter()
            .any(|l| l.contains("Content Security Policy")),
        "the canary page's CSP violation was not seen in Chromium's log; the console \
         check cannot work with this Chromium. Its stderr:\n{}",
        canary.stderr
    );

    let repos = demo_repositories(&site);
    assert!(
        repos.len() >= 2,
        "the demo should render at least two repositories: {repos:?}"
    );
    let mut kinds_seen = BTreeSet::new();
    for (group, repo) in &repos {
        let base = format!("/{group}/{repo}/");
        let dataset = support::read_json(&site.join(group).join(repo).join("dataset.json"));
        let expect = Expected::from_dataset(&dataset);
        let label = format!("{group}/{repo}");
        // The trail's entries: the observation events and the lifecycle's
        // changes, the verdict's `changes`.
        let verdict = site.join(group).join(repo).join("verdict.json");
        let entries = expect.events
            + if verdict.is_file() {
                support::read_json(&verdict)["changes"]
                    .as_array()
                    .map_or(0, Vec::len)
            } else {
                0
            };

        // The first page: header, counter, cards, trail preview.
        let run = browser.run(
            &dir,
            &["--dump-dom"],
            &server.url(&format!("{base}index.html")),
        );
        console.extend(run.console.clone());
        let dom = Dom::parse(&run.stdout);
        check_header(&label, &dom, &expect);
        let first_cards = check_cards(&label, &dom, &expect, 1);
        for kind in check_trail(&label, &dom, entries.min(TRAIL_PREVIEW)) {
            kinds_seen.insert(kind);
        }

        // The other pages: together they list every signal exactly once,
        // still by importance.
        let mut listed = first_cards;
        let pages = expect.signals.len().div_ceil(PAGE_SIZE).max(1);
        for page in 2..=pages {
            let run = browser.run(
                &dir,
                &["--dump-dom"],
                &server.url(&format!("{base}page-{page}.html")),
            );
            console.extend(run.console.clone());
            let dom = Dom::parse(&run.stdout);
            check_header(&format!("{label} page {page}"), &dom, &expect);
            let cards = check_cards(&format!("{label} page {page}"), &dom, &expect, page);
            if let (Some(last), Some(next)) = (listed.last(), cards.first()) {
                assert!(
                    last.1 >= next.1,
                    "{label}: page {page} starts with importance {} after {} on the page before",
                    next.1,
                    last.1
                );
            }
            listed.extend(cards);
        }
        let ids: Vec<&str> = listed.iter().map(|(id, _)| id.as_str()).collect();
        let unique: BTreeSet<&str> = ids.iter().copied().collect();
        assert_eq!(
            unique.len(),
            ids.len(),
            "{label}: a signal is listed twice across pages"
        );
        let all: BTreeSet<&str> = expect.signals.keys().map(String::as_str).collect();
        assert_eq!(
            unique, all,
            "{label}: the pages do not list exactly the dataset's signals"
        );

        // The full trail's first page.
        let run = browser.run(
            &dir,
            &["--dump-dom"],
            &server.url(&format!("{base}trail.html")),
        );
        console.extend(run.console.clone());
        let dom = Dom::parse(&run.stdout);
        check_header(&format!("{label} trail"), &dom, &expect);
        for kind in check_trail(
            &format!("{label} trail"),
            &dom,
            entries.min(TRAIL_PAGE_SIZE),
        ) {
            kinds_seen.insert(kind);
        }

        // The first card near the top, and readable text everywhere.
        console.extend(check_layout_and_contrast(
            &browser,
            &dir,
            &server,
            &format!("{base}index.html"),
            true,
        ));
        console.extend(check_layout_and_contrast(
            &browser,
            &dir,
            &server,
            &format!("{base}trail.html"),
            false,
        ));

        // Filter and search, with and without JavaScript.
        console.extend(check_filters(
            &browser, &dir, &server, &shots, &label, &base, &dataset,
        ));

        let name = format!("{group}-{repo}");
        console.extend(browser.screenshots(
            &dir,
            &shots,
            &name,
            &server.url(&format!("{base}index.html")),
        ));
    }
    assert_eq!(
        kinds_seen,
        BTreeSet::from(["changed", "discovered", "lifecycle"].map(String::from)),
        "the demo's two runs should show both discovered and changed events, \
         and the lifecycle judged"
    );

    // The index links every repository.
    let run = browser.run(&dir, &["--dump-dom"], &server.url("/index.html"));
    console.extend(run.console.clone());
    let dom = Dom::parse(&run.stdout);
    let hrefs: BTreeSet<&str> = dom
        .elements()
        .filter(|&e| dom.name(e) == "a")
        .filter_map(|e| dom.attr(e, "href"))
        .collect();
    for (group, repo) in &repos {
        let href = format!("{group}/{repo}/index.html");
        assert!(
            hrefs.contains(href.as_str()),
            "the index does not link {href}: {hrefs:?}"
        );
    }
    // ... and every group digest, whose filters work too.
    let groups: BTreeSet<&str> = repos.iter().map(|(g, _)| g.as_str()).collect();
    for group in &groups {
        let href = format!("{group}/index.html");
        assert!(
            hrefs.contains(href.as_str()),
            "the index does not link the group page {href}"
        );
        console.extend(check_group(
            &browser, &dir, &server, &shots, &site, group, &repos,
        ));
    }
    console.extend(browser.screenshots(&dir, &shots, "index", &server.url("/index.html")));
    for page in ["/index.html", "/importance.html"] {
        console.extend(check_layout_and_contrast(
            &browser, &dir, &server, page, false,
        ));
    }

    assert_clean(&console, &server);
    assert!(
        server
            .requests()
            .iter()
            .any(|(p, s)| p == "/style.css" && *s == 200),
        "no page loaded the stylesheet"
    );
}

/// What the pages of one repository must show, from its `dataset.json`.
struct Expected {
    /// Signal id → its URL.
    signals: BTreeMap<String, String>,
    /// Observation events: the sum of `changedCount` over the runs.
    events: usize,
}

impl Expected {
    fn from_dataset(doc: &Value) -> Expected {
        let d = &doc["dataset"];
        let signals = d["signals"]
            .as_array()
            .expect("dataset.signals is an array")
            .iter()
            .map(|s| {
                (
                    s["id"].as_str().expect("signal id").to_string(),
                    s["url"].as_str().expect("signal url").to_string(),
                )
            })
            .collect();
        let events = d["runs"]
            .as_array()
            .expect("dataset.runs is an array")
            .iter()
            .map(|r| r["changedCount"].as_u64().expect("run changedCount") as usize)
            .sum();
        Expected { signals, events }
    }
}

/// The header line `<N> signals · <M> observation events`, on every page.
fn check_header(label: &str, dom: &Dom, expect: &Expected) {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let line = format!(
        "{} · {}",
        plural(expect.signals.len(), "signal", "signals"),
        plural(expect.events, "observation event", "observation events")
    );
    assert!(
        dom.elements().any(|e| dom.text(e).trim() == line),
        "{label}: no element reads {line:?}"
    );
}

/// The cards of page `page`: how many, in importance order, each with its
/// "Original evidence" link to the signal's URL, and the `<k> shown`
/// counter. Returns (id, importance) in page order.
fn check_cards(label: &str, dom: &Dom, expect: &Expected, page: usize) -> Vec<(String, u32)> {
    let total = expect.signals.len();
    let want = total.saturating_sub((page - 1) * PAGE_SIZE).min(PAGE_SIZE);
    let cards: Vec<usize> = dom
        .elements()
        .filter(|&e| dom.attr(e, "data-signal-id").is_some())
        .collect();
    assert_eq!(
        cards.len(),
        want,
        "{label}: cards shown (dataset has {total} signals)"
    );

    // The counter is the element whose text starts `<k> shown`; card text
    // may say "shown" too, but not at the start of an element.
    let shown: Vec<String> = dom
        .elements()
        .filter_map(|e| {
            let text = dom.text(e);
            let (k, rest) = text.split_once(' ')?;
            let counter =
                k.parse::<usize>().is_ok() && (rest == "shown" || rest.starts_with("shown "));
            counter.then(|| k.to_string())
        })
        .collect();
    assert_eq!(
        shown,
        [want.to_string()],
        "{label}: the `<k> shown` counter"
    );

    let mut listed = Vec::new();
    for &card in &cards {
        let id = dom.attr(card, "data-signal-id").unwrap().to_string();
        let importance: u32 = dom
            .attr(card, "data-importance")
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{label}: card {id} has no numeric data-importance"));
        let url = expect
            .signals
            .get(&id)
            .unwrap_or_else(|| panic!("{label}: card {id} is not a signal of the dataset"));
        let evidence: Vec<&str> = dom
            .descendants(card)
            .filter(|&e| dom.name(e) == "a" && dom.text(e).trim() == "Original evidence")
            .filter_map(|e| dom.attr(e, "href"))
            .collect();
        assert!(
            url.starts_with("https://") || url.starts_with("http://"),
            "{label}: the demo signal {id} has a non-http URL {url:?}"
        );
        assert_eq!(
            evidence,
            [url.as_str()],
            "{label}: the Original evidence link of {id}"
        );
        listed.push((id, importance));
    }
    for pair in listed.windows(2) {
        assert!(
            pair[0].1 >= pair[1].1,
            "{label}: card {} (importance {}) comes before {} (importance {})",
            pair[0].0,
            pair[0].1,
            pair[1].0,
            pair[1].1
        );
    }
    listed
}

/// A query-string value, percent-encoded.
pub(crate) fn query_value(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The script's results on a filtered page: the ids shown and the status
/// line.
pub(crate) fn filter_results(dom: &Dom) -> (Vec<String>, String) {
    let ids = dom
        .elements()
        .filter_map(|e| dom.attr(e, "data-result-id"))
        .map(str::to_string)
        .collect();
    let status = dom
        .elements()
        .find(|&e| dom.attr(e, "class") == Some("filter-status"))
        .map(|e| dom.text(e))
        .unwrap_or_default();
    (ids, status)
}

/// The filters of one repository's first page:
/// - `?state=open&label=L` (L the dataset's most used label among open
///   items) shows exactly the dataset's open signals labelled L, with their
///   count, so the URL restores the filter;
/// - `?q=<a title>` finds that signal;
/// - with JavaScript disabled the page is the plain paged page, whatever
///   the query, and reads the same as the scripted page minus the filter
///   form;
/// - screenshots of the filtered view.
fn check_filters(
    browser: &Chromium,
    scratch: &TempDir,
    server: &Server,
    shots: &Path,
    label: &str,
    base: &str,
    dataset: &Value,
) -> Vec<String> {
    let mut console = Vec::new();
    let signals = dataset["dataset"]["signals"].as_array().unwrap();
    let expect = Expected::from_dataset(dataset);
    let open = |s: &&Value| s["state"] == "open" && s["kind"] != "release";
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for s in signals.iter().filter(open) {
        for l in s["labels"].as_array().unwrap() {
            *counts.entry(l.as_str().unwrap()).or_default() += 1;
        }
    }
    let wanted_label = counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(l, _)| l.to_string());

    if let Some(l) = &wanted_label {
        let want: BTreeSet<String> = signals
            .iter()
            .filter(open)
            .filter(|s| {
                s["labels"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|x| x == l.as_str())
            })
            .map(|s| s["id"].as_str().unwrap().to_string())
            .collect();
        let query = format!("?state=open&label={}", query_value(l));
        let url = server.url(&format!("{base}index.html{query}"));
        let run = browser.run(scratch, &["--dump-dom", VIRTUAL_TIME], &url);
        console.extend(run.console.clone());
        let dom = Dom::parse(&run.stdout);
        let (ids, status) = filter_results(&dom);
        let n = want.len();
        let says = format!(
            "{n} {} of {}",
            if n == 1 {
                "signal matches"
            } else {
                "signals match"
            },
            signals.len()
        );
        assert!(
            status.starts_with(&says),
            "{label} {query}: status {status:?}, expected it to start {says:?}"
        );
        assert!(n <= 100, "{label}: pick a rarer label for this test");
        let got: BTreeSet<String> = ids.iter().cloned().collect();
        assert_eq!(
            got.len(),
            ids.len(),
            "{label} {query}: a result shown twice"
        );
        assert_eq!(
            got, want,
            "{label} {query}: results differ from the dataset"
        );
        // The plain list and its pager are hidden while a filter is on.
        let hidden_list = dom
            .elements()
            .any(|e| dom.attr(e, "class") == Some("cards") && dom.attr(e, "hidden").is_some());
        assert!(
            hidden_list,
            "{label} {query}: the paged list is still shown"
        );

        // Screenshots of the filtered view.
        console.extend(browser.screenshots(
            scratch,
            shots,
            &format!("{}-filtered", label.replace('/', "-")),
            &url,
        ));

        // Without JavaScript the same URL is the plain first page.
        let (off_dom, c) =
            browser.dom_without_script(scratch, server, &format!("{base}index.html{query}"));
        console.extend(c);
        check_cards(
            &format!("{label} {query} without JavaScript"),
            &off_dom,
            &expect,
            1,
        );
        assert!(
            !off_dom
                .elements()
                .any(|e| dom_class_has(&off_dom, e, "filters")),
            "{label}: a filter form without JavaScript"
        );
        // And it reads exactly as the scripted page minus the filter UI.
        let on = browser.run(
            scratch,
            &["--dump-dom", VIRTUAL_TIME],
            &server.url(&format!("{base}index.html")),
        );
        console.extend(on.console.clone());
        let on_dom = Dom::parse(&on.stdout);
        assert!(
            on_dom
                .elements()
                .any(|e| dom_class_has(&on_dom, e, "filters")),
            "{label}: the script added no filter form"
        );
        let skip = |d: &Dom, e: usize| {
            ["filters", "filter-results", "filter-more"]
                .iter()
                .any(|c| dom_class_has(d, e, c))
        };
        assert_eq!(
            off_dom.text_skipping(off_dom.root(), skip),
            on_dom.text_skipping(on_dom.root(), skip),
            "{label}: the page without JavaScript differs from the page with it"
        );
    }

    // Text search finds a known title.
    let target = signals
        .iter()
        .rev()
        .find(|s| s["title"].as_str().unwrap().trim().len() >= 8)
        .expect("a signal with a title");
    let title = target["title"].as_str().unwrap().trim();
    let query = format!("?q={}", query_value(title));
    let run = browser.run(
        scratch,
        &["--dump-dom", VIRTUAL_TIME],
        &server.url(&format!("{base}index.html{query}")),
    );
    console.extend(run.console.clone());
    let (ids, status) = filter_results(&Dom::parse(&run.stdout));
    assert!(
        ids.iter().any(|id| target["id"] == id.as_str()),
        "{label}: searching {title:?} did not find {}; status {status:?}, results {ids:?}",
        target["id"]
    );
    console
}

/// A group digest page: its cards are the group's best signals by
/// importance, each a signal of one of the group's datasets; `?kind=issue`
/// leaves exactly the issues among them; readable in light and dark.
fn check_group(
    browser: &Chromium,
    scratch: &TempDir,
    server: &Server,
    shots: &Path,
    site: &Path,
    group: &str,
    repos: &[(String, String)],
) -> Vec<String> {
    let mut console = Vec::new();
    let mut kinds: BTreeMap<String, String> = BTreeMap::new();
    for (g, r) in repos.iter().filter(|(g, _)| g == group) {
        let doc = support::read_json(&site.join(g).join(r).join("dataset.json"));
        for s in doc["dataset"]["signals"].as_array().unwrap() {
            kinds.insert(
                s["id"].as_str().unwrap().to_string(),
                s["kind"].as_str().unwrap().to_string(),
            );
        }
    }
    let run = browser.run(
        scratch,
        &["--dump-dom"],
        &server.url(&format!("/{group}/index.html")),
    );
    console.extend(run.console.clone());
    let dom = Dom::parse(&run.stdout);
    let cards: Vec<(String, u32)> = dom
        .elements()
        .filter_map(|e| {
            let id = dom.attr(e, "data-digest-id")?;
            Some((
                id.to_string(),
                dom.attr(e, "data-importance")?.parse().ok()?,
            ))
        })
        .collect();
    assert_eq!(
        cards.len(),
        kinds.len().min(signals_site::DIGEST_SIGNALS),
        "{group}: cards on the group page"
    );
    for pair in cards.windows(2) {
        assert!(
            pair[0].1 >= pair[1].1,
            "{group}: cards out of importance order"
        );
    }
    for (id, _) in &cards {
        assert!(
            kinds.contains_key(id),
            "{group}: card {id} is in no dataset of the group"
        );
    }
    let url = server.url(&format!("/{group}/index.html?kind=issue"));
    let run = browser.run(scratch, &["--dump-dom", VIRTUAL_TIME], &url);
    console.extend(run.console.clone());
    let (ids, status) = filter_results(&Dom::parse(&run.stdout));
    // The group's filters cover every signal of its repositories (their
    // own indexes, merged by the script), not only the cards shown.
    let want: BTreeSet<&str> = kinds
        .iter()
        .filter(|(_, kind)| kind.as_str() == "issue")
        .map(|(id, _)| id.as_str())
        .collect();
    let got: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    assert!(got.is_subset(&want), "{group} ?kind=issue: {got:?}");
    assert_eq!(
        got.len(),
        want.len().min(100),
        "{group} ?kind=issue: status {status:?}"
    );
    let count = format!("{} signal", want.len());
    assert!(
        status.starts_with(&count),
        "{group} ?kind=issue: status {status:?}, want {count}"
    );
    console.extend(browser.screenshots(scratch, shots, &format!("group-{group}-issues"), &url));
    console.extend(check_layout_and_contrast(
        browser,
        scratch,
        server,
        &format!("/{group}/index.html"),
        false,
    ));
    console
}

/// Signals of the large repository of [`filter_of_a_large_repository`].
const LARGE: usize = 20_000;

/// The filter of a repository of [`LARGE`] signals, generated
/// through the store API (`synth.rs`) and exported by the real binary.
/// Results equal the sets computed from `dataset.json`: a narrow filter
/// (every match shown), a broad one sorted by update time (its count, and
/// the newest 100 shown), and a text query whose words only a body holds,
/// which reads every text part. A filter without text reads the core index
/// and its first text part, not the others. The group page's filter merges
/// the repository's index too.
/// Chromium, or `None` after a skip notice; without it under
/// `SIGNALS_REQUIRE_BROWSER=1` (CI), the test fails instead.
pub(crate) fn chromium_or_skip() -> Option<Chromium> {
    let found = find_chromium();
    if found.is_none() {
        assert!(
            std::env::var("SIGNALS_REQUIRE_BROWSER").as_deref() != Ok("1"),
            "chromium not found and SIGNALS_REQUIRE_BROWSER=1"
        );
        let _ = writeln!(std::io::stderr(), "skipped: chromium not found");
    }
    found
}

#[test]
fn filter_of_a_large_repository_in_headless_chromium() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = TempDir::new("browser-large");
    let t1: jiff::Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let t2 = t1 + jiff::SignedDuration::from_hours(1);
    {
        let mut store = signals_store_sqlite::Store::open(dir.path().join("signals.db")).unwrap();
        let keys = crate::synth::populate(&mut store, 1, LARGE, 300, t1);
        crate::synth::bump(&mut store, keys[0], 0, LARGE / 50, 300, t1, t2);
    }
    let out = support::run(
        dir.path(),
        &["export", "--store", "signals.db", "--out", "site"],
        &[],
    );
    assert!(
        out.status.success(),
        "export failed: {}",
        support::show(&out)
    );
    let site = dir.path().join("site");
    let dataset = support::read_json(&site.join("g/r0/dataset.json"));
    let signals = dataset["dataset"]["signals"].as_array().unwrap();
    assert_eq!(signals.len(), LARGE);
    let server = Server::start(&site);
    let mut console = Vec::new();
    let str_of = |s: &Value, k: &str| s[k].as_str().unwrap().to_string();
    let has_label = |s: &Value, l: &str| s["labels"].as_array().unwrap().iter().any(|x| x == l);
    let id_set = |it: &mut dyn Iterator<Item = &Value>| -> BTreeSet<String> {
        it.map(|s| str_of(s, "id")).collect()
    };
    // What one Chromium load fetched of the index.
    let fetched = |from: usize| -> BTreeSet<String> {
        server.requests()[from..]
            .iter()
            .filter(|(p, _)| p.ends_with(".json"))
            .map(|(p, _)| p.rsplit('/').next().unwrap().to_string())
            .collect()
    };

    // A narrow filter: open pull requests of one author with one label,
    // the largest such set of at most 100 (all shown).
    let mut sets: BTreeMap<(String, String), usize> = BTreeMap::new();
    for s in signals
        .iter()
        .filter(|s| s["kind"] == "pull_request" && s["state"] == "open")
    {
        for l in s["labels"].as_array().unwrap() {
            *sets
                .entry((l.as_str().unwrap().to_string(), str_of(s, "author")))
                .or_default() += 1;
        }
    }
    let ((label, author), _) = sets
        .into_iter()
        .filter(|(_, n)| *n <= 100)
        .max_by_key(|(_, n)| *n)
        .expect("a label and author with at most 100 open pull requests");
    let want = id_set(&mut signals.iter().filter(|s| {
        s["kind"] == "pull_request"
            && s["state"] == "open"
            && s["author"] == author.as_str()
            && has_label(s, &label)
    }));
    let query = format!(
        "?kind=pull_request&state=open&label={}&author={}",
        query_value(&label),
        query_value(&author)
    );
    let before = server.requests().len();
    let run = browser.run(
        &dir,
        &["--dump-dom", VIRTUAL_TIME],
        &server.url(&format!("/g/r0/index.html{query}")),
    );
    console.extend(run.console);
    let (ids, status) = filter_results(&Dom::parse(&run.stdout));
    let got: BTreeSet<String> = ids.iter().cloned().collect();
    assert_eq!(got.len(), ids.len(), "{query}: a result shown twice");
    assert_eq!(got, want, "{query}: results differ from the dataset");
    let says = format!("{} signals match of {LARGE}", want.len());
    assert!(status.starts_with(&says), "{query}: status {status:?}");
    assert_eq!(
        fetched(before),
        BTreeSet::from([
            "signals.json".to_string(),
            "signals-text-1.json".to_string()
        ]),
        "{query}: a filter without text reads the core index and its first text part only"
    );

    // A broad filter, newest first: its count, and the 100 shown are the
    // newest of the matches.
    let broad: Vec<&Value> = signals
        .iter()
        .filter(|s| s["state"] == "open" && s["kind"] == "issue")
        .collect();
    let query = "?state=open&kind=issue&sort=updated";
    let run = browser.run(
        &dir,
        &["--dump-dom", VIRTUAL_TIME],
        &server.url(&format!("/g/r0/index.html{query}")),
    );
    console.extend(run.console);
    let (ids, status) = filter_results(&Dom::parse(&run.stdout));
    let says = format!(
        "{} signals match of {LARGE} · first 100 shown, newest first",
        broad.len()
    );
    assert!(
        status.starts_with(&says),
        "{query}: status {status:?}, want {says:?}"
    );
    let shown: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    assert_eq!(shown.len(), 100, "{query}");
    let updated = |s: &&Value| s["updatedAt"].as_str().unwrap().to_string();
    let oldest_shown = broad
        .iter()
        .filter(|s| shown.contains(s["id"].as_str().unwrap()))
        .map(updated)
        .min();
    let newest_left = broad
        .iter()
        .filter(|s| !shown.contains(s["id"].as_str().unwrap()))
        .map(updated)
        .max();
    assert_eq!(
        broad
            .iter()
            .filter(|s| shown.contains(s["id"].as_str().unwrap()))
            .count(),
        100,
        "{query}: a result that does not match"
    );
    assert!(oldest_shown >= newest_left, "{query}: not the newest shown");

    // A text query whose words only a body holds (the excerpt's first
    // words, "Item <k> of"): every text part is read.
    let target = signals
        .iter()
        .max_by_key(|s| {
            s["id"]
                .as_str()
                .unwrap()
                .rsplit(':')
                .next()
                .unwrap()
                .parse::<u64>()
                .unwrap_or(0)
        })
        .unwrap();
    let words: Vec<&str> = target["text"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .take(3)
        .collect();
    let terms: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let want = id_set(&mut signals.iter().filter(|s| {
        // The excerpt is the text's first 280 characters; these texts are
        // plain, so their first 200 are in it.
        let text: String = s["text"].as_str().unwrap().chars().take(200).collect();
        let key = s["id"].as_str().unwrap().rsplit(':').next().unwrap();
        let hay = format!("{}\n{text}\n#{key}", s["title"].as_str().unwrap()).to_lowercase();
        terms.iter().all(|t| hay.contains(t.as_str()))
    }));
    assert!(!want.is_empty() && want.len() <= 100, "{words:?}: {want:?}");
    assert!(
        !target["title"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains(&terms[2]),
        "the query's last word should be in the text only"
    );
    let query = format!("?q={}", query_value(&words.join(" ")));
    let before = server.requests().len();
    let run = browser.run(
        &dir,
        &["--dump-dom", VIRTUAL_TIME],
        &server.url(&format!("/g/r0/index.html{query}")),
    );
    console.extend(run.console);
    let (ids, status) = filter_results(&Dom::parse(&run.stdout));
    let got: BTreeSet<String> = ids.iter().cloned().collect();
    assert_eq!(
        got, want,
        "{query}: results differ from the dataset; status {status:?}"
    );
    assert!(
        status.starts_with(&format!("{} signal", want.len())) && !status.contains("reading"),
        "{query}: status {status:?}"
    );
    // Answered from the word index: neither the filter index
    // nor its text parts are read.
    let read = fetched(before);
    assert!(
        read.contains("search.json")
            && !read.contains("signals.json")
            && !read.iter().any(|f| f.starts_with("signals-text-")),
        "{query}: read {read:?}"
    );

    // The group page merges the repository's index.
    let issues = signals.iter().filter(|s| s["kind"] == "issue").count();
    let run = browser.run(
        &dir,
        &["--dump-dom", VIRTUAL_TIME],
        &server.url("/g/index.html?kind=issue"),
    );
    console.extend(run.console);
    let (ids, status) = filter_results(&Dom::parse(&run.stdout));
    assert!(
        status.starts_with(&format!("{issues} signals match of {LARGE}")),
        "group ?kind=issue: status {status:?}"
    );
    assert_eq!(ids.len(), 100);

    assert_clean(&console, &server);
}

/// Asserts that the browser's console stayed empty and that the server
/// answered every request the pages made.
pub(crate) fn assert_clean(console: &[String], server: &Server) {
    assert!(
        console.is_empty(),
        "the browser console is not clean:\n{}",
        console.join("\n")
    );
    let failed: Vec<String> = server
        .requests()
        .into_iter()
        // Chromium asks for a favicon on its own; the site has none.
        .filter(|(path, status)| *status != 200 && path != "/favicon.ico")
        .map(|(path, status)| format!("{status} {path}"))
        .collect();
    assert!(
        failed.is_empty(),
        "requests the site could not answer: {failed:?}"
    );
}

/// Whether element `e` has class `class`.
fn dom_class_has(dom: &Dom, e: usize, class: &str) -> bool {
    dom.attr(e, "class")
        .is_some_and(|c| c.split_whitespace().any(|x| x == class))
}

/// The trail entries: `want` of them, each `discovered`, `changed` or
/// `lifecycle`. Returns the kinds seen.
fn check_trail(label: &str, dom: &Dom, want: usize) -> BTreeSet<String> {
    let kinds: Vec<&str> = dom
        .elements()
        .filter_map(|e| dom.attr(e, "data-event-kind"))
        .collect();
    assert_eq!(kinds.len(), want, "{label}: trail entries");
    for kind in &kinds {
        assert!(
            matches!(*kind, "discovered" | "changed" | "lifecycle"),
            "{label}: trail entry of kind {kind:?}"
        );
    }
    kinds.into_iter().map(str::to_string).collect()
}

/// `(group, repository)` of every rendered repository, from the folders.
pub(crate) fn demo_repositories(site: &Path) -> Vec<(String, String)> {
    let mut repos = Vec::new();
    for group in std::fs::read_dir(site).unwrap() {
        let group = group.unwrap().path();
        if !group.is_dir() {
            continue;
        }
        for repo in std::fs::read_dir(&group).unwrap() {
            let repo = repo.unwrap().path();
            if repo.join("index.html").is_file() {
                let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
                repos.push((name(&group), name(&repo)));
            }
        }
    }
    repos.sort();
    repos
}

/// `<target>/browser-screenshots`, beside the build, kept after the test.
fn screenshot_dir() -> PathBuf {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let dir = tmp.parent().unwrap_or(&tmp).join("browser-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Debian's chromium, or one on `PATH` (also used by `a11y.rs`).
pub(crate) fn find_chromium() -> Option<Chromium> {
    let fixed = PathBuf::from("/usr/bin/chromium");
    if fixed.is_file() {
        return Some(Chromium(fixed));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| [d.join("chromium"), d.join("chromium-browser")])
        .find(|p| p.is_file())
        .map(Chromium)
}

/// A headless Chromium executable.
pub(crate) struct Chromium(pub(crate) PathBuf);

/// What one Chromium run left.
pub(crate) struct Run {
    pub(crate) stdout: String,
    stderr: String,
    /// Console messages of the page (`...:CONSOLE...] "message", source: ...`).
    pub(crate) console: Vec<String>,
}

impl Chromium {
    /// Loads `url` once with `extra` flags, in a fresh profile, and waits at
    /// most [`CHROMIUM_DEADLINE`]; a hung browser is killed with its whole
    /// process group and fails the test.
    pub(crate) fn run(&self, scratch: &TempDir, extra: &[&str], url: &str) -> Run {
        use std::os::unix::process::CommandExt;
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let work = scratch.path().join(format!("chromium-{n}"));
        let profile = work.join("profile");
        std::fs::create_dir_all(&profile).unwrap();
        // Files, not pipes: a large DOM cannot fill a pipe and stall the browser.
        let (out_path, err_path) = (work.join("stdout"), work.join("stderr"));
        let mut child = Command::new(&self.0)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
                "--no-proxy-server",
                "--hide-scrollbars",
                "--enable-logging=stderr",
                "--v=0",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(extra)
            .arg(url)
            .stdin(Stdio::null())
            .stdout(File::create(&out_path).unwrap())
            .stderr(File::create(&err_path).unwrap())
            // Its own process group, so a timeout can end the renderers too.
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.0.display()));
        let deadline = Instant::now() + CHROMIUM_DEADLINE;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", child.id())])
                    .status();
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "chromium did not finish loading {url} within {CHROMIUM_DEADLINE:?}; stderr:\n{}",
                    std::fs::read_to_string(&err_path).unwrap_or_default()
                );
            }
            thread::sleep(Duration::from_millis(50));
        };
        let stdout = std::fs::read_to_string(&out_path).unwrap();
        let stderr = std::fs::read_to_string(&err_path).unwrap();
        assert!(
            status.success(),
            "chromium failed on {url}: {status}\n{stderr}"
        );
        let console = stderr
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(str::to_string)
            .collect();
        Run {
            stdout,
            stderr,
            console,
        }
    }

    /// Desktop, phone and dark phone screenshots of `url` as
    /// `<dir>/<name>-{desktop,phone,phone-dark}.png`; returns the console
    /// messages of these loads.
    fn screenshots(&self, scratch: &TempDir, dir: &Path, name: &str, url: &str) -> Vec<String> {
        let mut console = Vec::new();
        for (suffix, (width, height), dark) in [
            ("desktop", (1280, 1800), false),
            ("desktop-dark", (1280, 1800), true),
            ("phone", (390, 1600), false),
            ("phone-dark", (390, 1600), true),
        ] {
            let path = dir.join(format!("{name}-{suffix}.png"));
            let _ = std::fs::remove_file(&path);
            let mut flags = vec![
                format!("--screenshot={}", path.display()),
                format!("--window-size={width},{height}"),
                // Lets the filter script fetch its index before the shot.
                VIRTUAL_TIME.to_string(),
            ];
            if dark {
                flags.push("--force-dark-mode".to_string());
            }
            let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
            console.extend(self.run(scratch, &flags, url).console);
            let png = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("no screenshot {}: {e}", path.display()));
            assert_eq!(
                png_size(&png),
                Some((width, height)),
                "screenshot {} has the wrong size",
                path.display()
            );
        }
        console
    }
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return None;
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Some((be(&png[16..20]), be(&png[20..24])))
}

/// A static file server on 127.0.0.1 for one folder, with a log of every
/// request and the status it got. Each connection gets its own thread:
/// Chromium opens connections ahead of need and may leave one idle.
pub(crate) struct Server {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<(String, u16)>>>,
    stop: Arc<AtomicBool>,
}

/// A page that breaks its own CSP, to prove console messages are seen.
const CANARY: &str = "<!doctype html><html><head><meta http-equiv=\"Content-Security-Policy\" \
    content=\"default-src 'none'\"><title>canary</title><style>p{color:red}</style></head>\
    <body><p>canary</p></body></html>";

/// A page of the test's own (not of the site) that loads a site page in a
/// frame of the given viewport size and measures it with script, which the
/// site's CSP forbids on its own pages: the top of the first card, and the
/// contrast of every text (computed colour over the composited background,
/// WCAG formula) with every `<details>` opened. The result goes into
/// `<pre id="result">` as JSON, read back from `--dump-dom`; the frame's
/// `load` runs before the page's, so the dump sees it.
const PROBE: &str = r#"<!doctype html><html><head><title>probe</title></head><body style="margin:0">
<iframe id="f" src="PAGE" style="border:0;width:WIDTHpx;height:HEIGHTpx;display:block" onload="probe()"></iframe>
<pre id="result">no result</pre>
<script>
function parse(c) {
  const m = c.match(/rgba?\(([^)]+)\)/);
  if (!m) return null;
  const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
}
function over(top, bottom) {
  const a = top[3];
  return [0, 1, 2].map(i => top[i] * a + bottom[i] * (1 - a)).concat([1]);
}
function lum(c) {
  const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
}
function ratio(a, b) {
  const x = lum(a), y = lum(b);
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}
function probe() {
  const f = document.getElementById('f');
  const win = f.contentWindow, doc = f.contentDocument;
  const dark = win.matchMedia('(prefers-color-scheme: dark)').matches;
  const canvas = dark ? [18, 18, 18, 1] : [255, 255, 255, 1];
  const bgOf = el => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(win.getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let base = canvas;
    for (let i = layers.length - 1; i >= 0; i--) base = over(layers[i], base);
    return base;
  };
  const card = doc.querySelector('[data-signal-id]');
  const top = card ? card.getBoundingClientRect().top + win.scrollY : -1;
  doc.querySelectorAll('details').forEach(d => d.open = true);
  const fails = [];
  let checked = 0;
  for (const el of doc.body.querySelectorAll('*')) {
    if (el.tagName === 'PROGRESS') continue;
    if (!Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    if (!el.getClientRects().length) continue;
    const cs = win.getComputedStyle(el);
    if (cs.visibility === 'hidden') continue;
    const bg = bgOf(el);
    const fg = over(parse(cs.color), bg);
    const r = ratio(fg, bg);
    checked++;
    if (r < 4.5) fails.push(el.tagName.toLowerCase() + '.' + el.className + ' ' +
      JSON.stringify(el.textContent.trim().slice(0, 40)) + ' ' + r.toFixed(2) + ':1, ' + cs.color + ' on rgb(' + bg.slice(0, 3).map(Math.round) + ')');
  }
  // Charts: drawn at a size, and titled.
  const charts = Array.from(doc.querySelectorAll('svg.chart, svg.spark')).map(svg => {
    const r = svg.getBoundingClientRect();
    const t = svg.querySelector('title');
    return [svg.getAttribute('class'), r.width, r.height, t ? t.textContent.trim().length : 0];
  });
  document.getElementById('result').textContent = JSON.stringify({ top, checked, fails, dark, charts });
}
</script></body></html>"#;

/// A page of the test's own that loads a site page in a frame sandboxed
/// without `allow-scripts` (so the site's script cannot run, as in a browser
/// with JavaScript off) and copies the frame's DOM into `<pre id="result">`.
/// `--dump-dom` itself needs script, so it cannot show a page without it.
const NOJS: &str = r#"<!doctype html><html><head><title>nojs</title></head><body>
<iframe id="f" sandbox="allow-same-origin" src="PAGE" onload="copy()"></iframe>
<pre id="result">no result</pre>
<script>
function copy() {
  document.getElementById('result').textContent =
    document.getElementById('f').contentDocument.documentElement.outerHTML;
}
</script></body></html>"#;

impl Chromium {
    /// The DOM of `page` (a site path with its query) with scripts off.
    pub(crate) fn dom_without_script(
        &self,
        scratch: &TempDir,
        server: &Server,
        page: &str,
    ) -> (Dom, Vec<String>) {
        let run = self.run(
            scratch,
            &["--dump-dom"],
            &server.url(&format!("/__nojs.html?page={page}")),
        );
        let outer = Dom::parse(&run.stdout);
        let html = outer
            .elements()
            .find(|&e| outer.attr(e, "id") == Some("result"))
            .map(|e| outer.raw_text(e))
            .unwrap_or_default();
        assert!(
            html.starts_with("<html"),
            "no DOM of {page} without script: {html:.200}"
        );
        // The one message this setup causes by design.
        let console = run
            .console
            .into_iter()
            .filter(|l| !(l.contains("Blocked script execution") && l.contains("sandboxed")))
            .collect();
        (Dom::parse(&html), console)
    }
}

/// What the probe measured on one page.
#[derive(Debug)]
struct Probe {
    /// Top of the first card in the page, CSS pixels (-1: no card).
    top: f64,
    /// Elements with text whose contrast was measured.
    checked: u64,
    /// Those below 4.5:1.
    fails: Vec<String>,
    /// Whether the page saw `prefers-color-scheme: dark`.
    dark: bool,
    /// Each chart and sparkline: its class, drawn width and height, and
    /// the length of its title.
    charts: Vec<(String, f64, f64, u64)>,
}

impl Chromium {
    /// Measures `page` (a site path) in a `width`×`height` viewport.
    fn probe(
        &self,
        scratch: &TempDir,
        server: &Server,
        page: &str,
        (width, height): (u32, u32),
        dark: bool,
    ) -> (Probe, Vec<String>) {
        let url = server.url(&format!("/__probe.html?page={page}&w={width}&h={height}"));
        let size = format!("--window-size={},{}", width + 40, height + 400);
        let mut flags = vec!["--dump-dom", size.as_str()];
        if dark {
            flags.push("--force-dark-mode");
        }
        let run = self.run(scratch, &flags, &url);
        let dom = Dom::parse(&run.stdout);
        let text = dom
            .elements()
            .find(|&e| dom.attr(e, "id") == Some("result"))
            .map(|e| dom.text(e))
            .unwrap_or_default();
        let v: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("the probe of {page} gave no result ({e}): {text:?}"));
        let probe = Probe {
            top: v["top"].as_f64().unwrap(),
            checked: v["checked"].as_u64().unwrap(),
            fails: v["fails"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap().to_string())
                .collect(),
            dark: v["dark"].as_bool().unwrap(),
            charts: v["charts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    (
                        c[0].as_str().unwrap_or("").to_string(),
                        c[1].as_f64().unwrap_or(0.0),
                        c[2].as_f64().unwrap_or(0.0),
                        c[3].as_u64().unwrap_or(0),
                    )
                })
                .collect(),
        };
        (probe, run.console)
    }
}

/// The first card within `screens` viewport heights, and every text at
/// 4.5:1 or more, in light and dark.
fn check_layout_and_contrast(
    browser: &Chromium,
    scratch: &TempDir,
    server: &Server,
    page: &str,
    has_cards: bool,
) -> Vec<String> {
    let mut console = Vec::new();
    for (label, size, screens, dark) in [
        ("desktop", (1280, 800), 1.0, false),
        ("phone", (390, 844), 2.0, false),
        ("phone, dark", (390, 844), 2.0, true),
    ] {
        let (probe, c) = browser.probe(scratch, server, page, size, dark);
        console.extend(c);
        // Shown with --nocapture: the figures the issue asks about.
        println!(
            "probe {page} ({label}): first card at {} px, {} texts measured",
            probe.top, probe.checked
        );
        assert_eq!(
            probe.dark, dark,
            "{page} ({label}): the colour scheme was not applied"
        );
        assert!(
            probe.checked > 10,
            "{page} ({label}): only {} texts measured",
            probe.checked
        );
        assert!(
            probe.fails.is_empty(),
            "{page} ({label}): texts below 4.5:1 contrast:\n{}",
            probe.fails.join("\n")
        );
        // Every chart is drawn at a size and titled; a repository's first
        // page has its five charts, the index and group pages sparklines.
        for (class, w, h, title) in &probe.charts {
            assert!(
                *w > 0.0 && *h > 0.0 && *title > 0,
                "{page} ({label}): an empty or untitled {class}: {w}x{h}, title of {title} characters"
            );
        }
        let want = if has_cards {
            5
        } else if page.ends_with("/index.html") && page.matches('/').count() <= 2 {
            1
        } else {
            0
        };
        assert!(
            probe.charts.len() >= want,
            "{page} ({label}): {} charts, expected at least {want}",
            probe.charts.len()
        );
        if has_cards {
            let limit = screens * size.1 as f64;
            assert!(
                probe.top >= 0.0 && probe.top < limit,
                "{page} ({label}): the first card starts at {} px, not within {screens} screen heights ({limit} px)",
                probe.top
            );
        }
    }
    console
}

impl Server {
    pub(crate) fn start(root: &Path) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (root, log2, stop2) = (root.to_path_buf(), log.clone(), stop.clone());
        thread::spawn(move || {
            for conn in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (root, log) = (root.clone(), log2.clone());
                thread::spawn(move || serve(&root, conn, &log));
            }
        });
        Server { addr, log, stop }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub(crate) fn requests(&self) -> Vec<(String, u16)> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.addr);
    }
}

/// Answers the requests of one connection (keep-alive), until it closes or
/// idles for five seconds.
fn serve(root: &Path, conn: TcpStream, log: &Mutex<Vec<(String, u16)>>) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
    let Ok(mut writer) = conn.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(conn);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        loop {
            let mut header = String::new();
            match reader.read_line(&mut header) {
                Ok(0) | Err(_) => return,
                Ok(_) if header.trim_end().is_empty() => break,
                Ok(_) => {}
            }
        }
        let mut parts = request_line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let path = target.split(['?', '#']).next().unwrap_or("").to_string();
        let (status, content_type, body) = if method != "GET" {
            (405, "text/plain; charset=utf-8", b"only GET".to_vec())
        } else if path == "/__canary.html" {
            (200, "text/html; charset=utf-8", CANARY.as_bytes().to_vec())
        } else if path == "/__nojs.html" {
            // Everything after `page=` is the page's path and query as sent.
            let page = target.split_once("?page=").map_or("", |(_, p)| p);
            let src = page.replace('&', "&amp;").replace('"', "&quot;");
            (
                200,
                "text/html; charset=utf-8",
                NOJS.replace("PAGE", &src).into_bytes(),
            )
        } else if path == "/__probe.html" {
            let query = target.split_once('?').map_or("", |(_, q)| q);
            let param = |name: &str| {
                query
                    .split('&')
                    .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
                    .unwrap_or("")
                    .to_string()
            };
            let page = param("page");
            let body = PROBE
                .replace("PAGE", &page)
                .replace("WIDTH", &param("w"))
                .replace("HEIGHT", &param("h"));
            (200, "text/html; charset=utf-8", body.into_bytes())
        } else {
            match file_for(root, &path).and_then(|p| Some((std::fs::read(&p).ok()?, p))) {
                Some((bytes, p)) => (200, content_type(&p), bytes),
                None => (404, "text/plain; charset=utf-8", b"not found".to_vec()),
            }
        };
        log.lock().unwrap().push((path, status));
        let head = format!(
            "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
             X-Content-Type-Options: nosniff\r\n\r\n",
            if status == 200 { "OK" } else { "Error" },
            body.len()
        );
        if writer
            .write_all(head.as_bytes())
            .and_then(|()| writer.write_all(&body))
            .is_err()
        {
            return;
        }
    }
}

/// The file under `root` that `path` names; `None` for anything that could
/// leave the folder.
fn file_for(root: &Path, path: &str) -> Option<PathBuf> {
    let rel = path.strip_prefix('/')?;
    let mut file = root.to_path_buf();
    for segment in rel.split('/') {
        if segment.is_empty() || segment == "." || segment == ".." || segment.contains('\\') {
            return None;
        }
        file.push(segment);
    }
    if file.is_dir() {
        file.push("index.html");
    }
    file.is_file().then_some(file)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("json") => "application/json",
        Some("atom") => "application/atom+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

/// The DOM as Chromium serializes it (`--dump-dom`): a tree of elements and
/// text. Enough HTML for that output, not a general parser: Chromium always
/// quotes attribute values and closes every non-void element.
pub(crate) struct Dom {
    nodes: Vec<Node>,
}

struct Node {
    name: String,
    attrs: HashMap<String, String>,
    children: Vec<Child>,
}

enum Child {
    Element(usize),
    Text(String),
}

const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

impl Dom {
    pub(crate) fn parse(html: &str) -> Dom {
        let mut nodes = vec![Node {
            name: "#document".to_string(),
            attrs: HashMap::new(),
            children: Vec::new(),
        }];
        let mut open = vec![0usize];
        let mut rest = html;
        while !rest.is_empty() {
            let parent = *open.last().unwrap();
            if let Some(tail) = rest.strip_prefix("<!--") {
                rest = tail.find("-->").map_or("", |i| &tail[i + 3..]);
            } else if rest.starts_with("<!") {
                rest = rest.find('>').map_or("", |i| &rest[i + 1..]);
            } else if let Some(tail) = rest.strip_prefix("</") {
                let end = tail.find('>').unwrap_or(tail.len());
                let name = tail[..end].trim().to_ascii_lowercase();
                if let Some(at) = open.iter().rposition(|&n| nodes[n].name == name) {
                    open.truncate(at.max(1));
                }
                rest = tail.get(end + 1..).unwrap_or("");
            } else if rest.starts_with('<')
                && rest[1..].starts_with(|c: char| c.is_ascii_alphabetic())
            {
                let (name, attrs, self_closing, tail) = start_tag(&rest[1..]);
                let id = nodes.len();
                nodes.push(Node {
                    name: name.clone(),
                    attrs,
                    children: Vec::new(),
                });
                nodes[parent].children.push(Child::Element(id));
                rest = tail;
                if matches!(name.as_str(), "script" | "style") {
                    let close = format!("</{name}");
                    let end = rest.to_ascii_lowercase().find(&close).unwrap_or(rest.len());
                    nodes[id]
                        .children
                        .push(Child::Text(rest[..end].to_string()));
                    rest = &rest[end..];
                    open.push(id);
                } else if !self_closing && !VOID.contains(&name.as_str()) {
                    open.push(id);
                }
            } else {
                // A stray `<` is text; skip it before looking for the next tag.
                let skip = usize::from(rest.starts_with('<'));
                let end = rest[skip..].find('<').map_or(rest.len(), |i| i + skip);
                nodes[parent]
                    .children
                    .push(Child::Text(unescape(&rest[..end])));
                rest = &rest[end..];
            }
        }
        Dom { nodes }
    }

    fn root(&self) -> usize {
        0
    }

    pub(crate) fn elements(&self) -> impl Iterator<Item = usize> + '_ {
        1..self.nodes.len()
    }

    /// Every element inside `id`, in document order.
    pub(crate) fn descendants(&self, id: usize) -> impl Iterator<Item = usize> + '_ {
        let mut stack: Vec<usize> = self.element_children(id).rev().collect();
        std::iter::from_fn(move || {
            let next = stack.pop()?;
            stack.extend(self.element_children(next).rev());
            Some(next)
        })
    }

    fn element_children(&self, id: usize) -> impl DoubleEndedIterator<Item = usize> + '_ {
        self.nodes[id].children.iter().filter_map(|c| match c {
            Child::Element(e) => Some(*e),
            Child::Text(_) => None,
        })
    }

    pub(crate) fn name(&self, id: usize) -> &str {
        &self.nodes[id].name
    }

    pub(crate) fn attr(&self, id: usize, name: &str) -> Option<&str> {
        self.nodes[id].attrs.get(name).map(String::as_str)
    }

    /// The text content without the elements `skip` names, with runs of
    /// whitespace folded to one space.
    fn text_skipping(&self, id: usize, skip: impl Fn(&Dom, usize) -> bool) -> String {
        fn collect(dom: &Dom, id: usize, skip: &dyn Fn(&Dom, usize) -> bool, out: &mut String) {
            for child in &dom.nodes[id].children {
                match child {
                    Child::Element(e)
                        if skip(dom, *e)
                            || matches!(dom.nodes[*e].name.as_str(), "script" | "style") => {}
                    Child::Element(e) => collect(dom, *e, skip, out),
                    Child::Text(t) => out.push_str(t),
                }
            }
        }
        let mut raw = String::new();
        collect(self, id, &skip, &mut raw);
        raw.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The text content exactly as written (entities decoded).
    fn raw_text(&self, id: usize) -> String {
        let mut out = String::new();
        for child in &self.nodes[id].children {
            match child {
                Child::Element(e) => out.push_str(&self.raw_text(*e)),
                Child::Text(t) => out.push_str(t),
            }
        }
        out
    }

    /// The text content, with runs of whitespace folded to one space.
    pub(crate) fn text(&self, id: usize) -> String {
        fn collect(dom: &Dom, id: usize, out: &mut String) {
            for child in &dom.nodes[id].children {
                match child {
                    Child::Element(e)
                        if matches!(dom.nodes[*e].name.as_str(), "script" | "style") => {}
                    Child::Element(e) => collect(dom, *e, out),
                    Child::Text(t) => out.push_str(t),
                }
            }
        }
        let mut raw = String::new();
        collect(self, id, &mut raw);
        raw.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// Parses a start tag after its `<`: name, attributes, whether it ends in
/// `/>`, and the input after the `>`.
fn start_tag(input: &str) -> (String, HashMap<String, String>, bool, &str) {
    let name_end = input
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .unwrap_or(input.len());
    let name = input[..name_end].to_ascii_lowercase();
    let mut rest = &input[name_end..];
    let mut attrs = HashMap::new();
    loop {
        rest = rest.trim_start();
        if let Some(tail) = rest.strip_prefix("/>") {
            return (name, attrs, true, tail);
        }
        if let Some(tail) = rest.strip_prefix('>') {
            return (name, attrs, false, tail);
        }
        if rest.is_empty() {
            return (name, attrs, false, rest);
        }
        if let Some(tail) = rest.strip_prefix('/') {
            rest = tail;
            continue;
        }
        let key_end = rest
            .find(|c: char| c.is_whitespace() || c == '=' || c == '>' || c == '/')
            .unwrap_or(rest.len());
        let key = rest[..key_end].to_ascii_lowercase();
        rest = rest[key_end..].trim_start();
        let value = if let Some(tail) = rest.strip_prefix('=') {
            let tail = tail.trim_start();
            let (value, after) = match tail.chars().next() {
                Some(q @ ('"' | '\'')) => {
                    let end = tail[1..].find(q).map_or(tail.len(), |i| i + 1);
                    (&tail[1..end], tail.get(end + 1..).unwrap_or(""))
                }
                _ => {
                    let end = tail
                        .find(|c: char| c.is_whitespace() || c == '>')
                        .unwrap_or(tail.len());
                    (&tail[..end], &tail[end..])
                }
            };
            rest = after;
            unescape(value)
        } else {
            String::new()
        };
        attrs.insert(key, value);
    }
}

/// The character references Chromium's serializer writes, plus numeric ones.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find(';').filter(|&e| e <= 10);
        let decoded = end.and_then(|e| match &rest[1..e] {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some('\u{a0}'),
            num => num
                .strip_prefix("#x")
                .or_else(|| num.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| num.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        });
        match (decoded, end) {
            (Some(c), Some(e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn dom_parser_reads_chromium_serialization() {
    let dom = Dom::parse(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>a>b{}</style></head>\
         <body><ol><li data-signal-id=\"x:1\" data-importance=\"7\"><p>A &amp; B&nbsp;·</p>\
         <a href=\"https://e.test/?a=1&amp;b=2\">Original evidence</a><br></li>\
         <li data-signal-id=\"x:2\"></li></ol><!-- c --><p>50 shown</p></body></html>",
    );
    let cards: Vec<usize> = dom
        .elements()
        .filter(|&e| dom.attr(e, "data-signal-id").is_some())
        .collect();
    assert_eq!(cards.len(), 2);
    assert_eq!(dom.attr(cards[0], "data-importance"), Some("7"));
    let links: Vec<usize> = dom
        .descendants(cards[0])
        .filter(|&e| dom.name(e) == "a")
        .collect();
    assert_eq!(links.len(), 1);
    assert_eq!(dom.attr(links[0], "href"), Some("https://e.test/?a=1&b=2"));
    assert_eq!(
        dom.descendants(cards[1]).count(),
        0,
        "the <br> is void, the second card is a sibling"
    );
    // Text content, as in the DOM: no space where the markup has none.
    assert_eq!(dom.text(dom.root()), "A & B ·Original evidence50 shown");
}
