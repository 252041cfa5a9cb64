//! A site for hundreds of repositories. A store of
//! 1,000 repositories in one group (and 3 in another) is generated through
//! the store API, the real binary exports it, and the pages are checked:
//! their sizes, the group page's first screen, the ranked tables and the
//! paged lists (every repository once, in the documented order), every
//! relative link, and, in headless Chromium with scripts off, that the
//! pages read the same without JavaScript.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;

use jiff::Timestamp;
use signals_core::Group;
use signals_store::RunWrites;
use signals_store_sqlite::Store;

use crate::browser::{Server, find_chromium};
use crate::support::{TempDir, read_json, run, show};
use crate::synth;

const BIG: usize = 1000;
const SMALL: usize = 3;
const GROUP_PAGE_LIMIT: usize = 300 * 1024;

fn at() -> Timestamp {
    "2026-11-20T10:00:00Z".parse().unwrap()
}

/// Repositories `0..BIG` in group `g` and `BIG..BIG + SMALL` in group
/// `small`, with 1 to 13 items each, so their recent activity differs.
fn populate(store: &mut Store) {
    let small = Group {
        id: "small".into(),
        name: "A small group".into(),
    };
    for n in 0..BIG + SMALL {
        let group = if n < BIG {
            synth::group()
        } else {
            small.clone()
        };
        let key = store.ensure_repository(&group, &synth::tracked(n)).unwrap();
        let items = 1 + (n * 7) % 13;
        // Opened within the last weeks, so they count as recent activity.
        let observed = (1..=items)
            .map(|k| {
                let mut i = synth::item(n, k, 120, at());
                i.created_at = at() - jiff::SignedDuration::from_hours(24 * (k as i64 % 20));
                i
            })
            .collect();
        synth::commit(store, key, n, at(), observed);
    }
}

fn read(site: &Path, rel: &str) -> String {
    std::fs::read_to_string(site.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// A repository's recent activity recomputed from its `trends.json`: items
/// opened plus closed or merged over its last 4 weeks.
fn activity_from_trends(site: &Path, group: &str, id: &str) -> u64 {
    let t = read_json(&site.join(group).join(id).join("trends.json"));
    let weeks = t["weeks"].as_array().unwrap();
    weeks[weeks.len().saturating_sub(signals_site::RECENT_WEEKS)..]
        .iter()
        .map(|w| {
            [
                "issuesOpened",
                "issuesClosed",
                "pullsOpened",
                "pullsMerged",
                "pullsClosedUnmerged",
            ]
            .iter()
            .map(|f| w[f].as_u64().unwrap())
            .sum::<u64>()
        })
        .sum()
}

/// The rows of a ranked table (`data-activity` rows): each repository's
/// page link and activity, in page order.
fn rows(html: &str) -> Vec<(String, u64)> {
    html.split("<tr data-activity=\"")
        .skip(1)
        .map(|part| {
            let activity = part.split('"').next().unwrap().parse().unwrap();
            let href = part
                .split("<a href=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            (href.to_string(), activity)
        })
        .collect()
}

/// Every page of a paged list, from `<dir>repos-1.html` on, following the
/// pager; their rows in order.
fn whole_list(site: &Path, dir: &str) -> (usize, Vec<(String, u64)>) {
    let mut all = Vec::new();
    let mut page = 1;
    loop {
        let html = read(site, &format!("{dir}repos-{page}.html"));
        assert!(html.len() <= GROUP_PAGE_LIMIT, "{dir}repos-{page}.html");
        let rows = rows(&html);
        assert!(
            rows.len() <= signals_site::LIST_PAGE_SIZE,
            "{dir}repos-{page}.html"
        );
        all.extend(rows);
        if !html.contains(&format!("rel=\"next\" href=\"repos-{}.html\"", page + 1)) {
            return (page, all);
        }
        page += 1;
    }
}

/// Every relative link of `rel` resolves: to a file of the site, and a
/// fragment to an id of the page it names.
fn links_resolve(site: &Path, rel: &str) -> usize {
    let html = read(site, rel);
    let base = Path::new(rel).parent().unwrap();
    let mut count = 0;
    for part in html.split("href=\"").skip(1) {
        let href = part.split('"').next().unwrap();
        if href.starts_with("http") {
            continue;
        }
        let (path, fragment) = href.split_once('#').unwrap_or((href, ""));
        let target = if path.is_empty() {
            rel.to_string()
        } else {
            base.join(path).to_str().unwrap().to_string()
        };
        assert!(
            site.join(&target).is_file(),
            "{rel} links to {href}, which is missing"
        );
        if !fragment.is_empty() {
            let fragment = percent_decoded(fragment);
            let page = read(site, &target);
            assert!(
                page.contains(&format!("id=\"{fragment}\"")),
                "{rel} links to {href}, which has no such id"
            );
        }
        count += 1;
    }
    count
}

/// A fragment as the browser matches it against ids.
fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = (bytes[i] == b'%')
            .then(|| s.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `(activity, name)` of each row is in the documented order: the most
/// active first, ties by name.
fn assert_ranked(what: &str, rows: &[(String, u64)], names: &BTreeMap<String, String>) {
    for pair in rows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(
            a.1 > b.1 || (a.1 == b.1 && names[&a.0] <= names[&b.0]),
            "{what}: {a:?} before {b:?}"
        );
    }
}

#[test]
fn a_group_of_1000_repositories_reads_well_with_and_without_javascript() {
    let tmp = TempDir::new("sites-1000");
    let dir = tmp.path();
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    populate(&mut store);
    drop(store);
    let out = run(
        dir,
        &["export", "--store", "signals.db", "--out", "site"],
        &[],
    );
    assert!(out.status.success(), "{}", show(&out));
    let site = std::fs::canonicalize(dir.join("site")).unwrap();

    // Each repository's name and recent activity, from its own files.
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut activity: BTreeMap<String, u64> = BTreeMap::new();
    for n in 0..BIG + SMALL {
        let g = if n < BIG { "g" } else { "small" };
        let id = format!("r{n}");
        for prefix in ["", "../"] {
            names.insert(
                format!("{prefix}{g}/{id}/index.html"),
                format!("Repository {n}"),
            );
        }
        activity.insert(id.clone(), activity_from_trends(&site, g, &id));
    }
    let distinct: BTreeSet<u64> = activity.values().copied().collect();
    assert!(
        distinct.len() > 3,
        "the test needs activity that differs: {distinct:?}"
    );
    let names_in_group: BTreeMap<String, String> = names
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("../g/")?.to_string(), v.clone())))
        .collect();

    // Sizes.
    let group = read(&site, "g/index.html");
    let index = read(&site, "index.html");
    assert!(
        group.len() <= GROUP_PAGE_LIMIT,
        "g/index.html is {} bytes",
        group.len()
    );
    assert!(
        index.len() <= GROUP_PAGE_LIMIT,
        "index.html is {} bytes",
        index.len()
    );

    // The group page's first screen: what changed, rising, top signals,
    // before any table of repositories.
    let pos = |needle: &str| {
        group
            .find(needle)
            .unwrap_or_else(|| panic!("no {needle} on the group page"))
    };
    let first_table = group.find("<table").unwrap();
    let order = [
        pos("id=\"changed-h\""),
        pos("id=\"rising-h\""),
        pos("id=\"signals-h\""),
        pos("id=\"trends-h\""),
        pos("id=\"news-h\""),
    ];
    assert!(order.is_sorted(), "group page sections at {order:?}");
    assert!(order[2] < first_table, "a table before the top signals");
    assert!(
        group.contains(&format!("in {BIG} of {BIG} repositories")),
        "what changed"
    );
    assert!(
        group.contains(&format!("{BIG} repositories · ")),
        "the group's count"
    );

    // The side-by-side table: the 25 most active, as the list's first 25.
    let (pages, list) = whole_list(&site, "g/");
    assert_eq!(pages, BIG.div_ceil(signals_site::LIST_PAGE_SIZE));
    assert_eq!(list.len(), BIG);
    let once: BTreeSet<&String> = list.iter().map(|(h, _)| h).collect();
    assert_eq!(once.len(), BIG, "every repository once");
    for (href, a) in &list {
        let id = href.split('/').nth(2).unwrap();
        assert_eq!(activity[id], *a, "{href}: its activity");
    }
    let list_in_group: Vec<(String, u64)> = list
        .iter()
        .map(|(h, a)| (h.strip_prefix("../g/").unwrap().to_string(), *a))
        .collect();
    assert_ranked("g/repos-*.html", &list_in_group, &names_in_group);
    let table = &group[pos("class=\"multiples\"")..];
    let table = &table[..table.find("</table>").unwrap()];
    let side: Vec<&str> = table
        .split("<th scope=\"row\"><a href=\"")
        .skip(1)
        .map(|p| p.split('"').next().unwrap())
        .collect();
    let top: Vec<&str> = list_in_group[..signals_site::TOP_REPOS]
        .iter()
        .map(|(h, _)| h.as_str())
        .collect();
    assert_eq!(side, top, "the side-by-side table is the list's top");
    assert!(
        group.contains("href=\"repos-1.html\""),
        "the link to the full list"
    );

    // The index: groups in a row each, the site's most active, the list.
    assert!(index.contains("id=\"g-g\"") && index.contains("id=\"g-small\""));
    let index_top = rows(&index);
    let (_, site_list) = whole_list(&site, "");
    assert_eq!(site_list.len(), BIG + SMALL);
    assert_eq!(index_top[..], site_list[..signals_site::TOP_REPOS]);
    assert_ranked("repos-*.html", &site_list, &names);
    // The small group reads as before: its 3 repositories, one page.
    let (small_pages, small_list) = whole_list(&site, "small/");
    assert_eq!((small_pages, small_list.len()), (1, SMALL));
    assert!(!read(&site, "small/repos-1.html").contains("rel=\"next\""));
    assert_eq!(
        read(&site, "small/index.html")
            .matches("<tr><th scope=\"row\"><a href=\"r10")
            .count(),
        SMALL
    );

    // Links.
    let mut pages_checked = vec![
        "index.html".to_string(),
        "g/index.html".into(),
        "small/index.html".into(),
    ];
    pages_checked.extend((1..=pages).map(|p| format!("g/repos-{p}.html")));
    pages_checked.extend(
        (1..=site_list.len().div_ceil(signals_site::LIST_PAGE_SIZE))
            .map(|p| format!("repos-{p}.html")),
    );
    for page in &pages_checked {
        assert!(links_resolve(&site, page) > 0, "{page} links to nothing");
    }

    without_javascript(&tmp, &site, &top);
}

/// The pages as a browser with JavaScript off shows them: the group page
/// with its sections in order and its 25 rows, a list page with its rows
/// and pager, the index with its tables.
fn without_javascript(tmp: &TempDir, site: &Path, top: &[&str]) {
    let Some(browser) = find_chromium() else {
        if std::env::var_os("SIGNALS_REQUIRE_BROWSER").is_some() {
            panic!("chromium not found and SIGNALS_REQUIRE_BROWSER=1");
        }
        let _ = writeln!(std::io::stderr(), "skipped: chromium not found");
        return;
    };
    let server = Server::start(site);
    let (dom, console) = browser.dom_without_script(tmp, &server, "/g/index.html");
    assert!(console.is_empty(), "{console:?}");
    let ids: Vec<&str> = dom.elements().filter_map(|e| dom.attr(e, "id")).collect();
    let at = |id: &str| {
        ids.iter()
            .position(|x| *x == id)
            .unwrap_or_else(|| panic!("no #{id}: {ids:?}"))
    };
    assert!(
        at("changed-h") < at("rising-h")
            && at("rising-h") < at("signals-h")
            && at("signals-h") < at("trends-h")
    );
    let rows: Vec<String> = dom
        .elements()
        .filter(|&e| dom.name(e) == "th" && dom.attr(e, "scope") == Some("row"))
        .filter_map(|e| {
            let a = dom.descendants(e).find(|&a| dom.name(a) == "a")?;
            dom.attr(a, "href").map(str::to_string)
        })
        .take(top.len())
        .collect();
    assert_eq!(rows, top, "the side-by-side table without JavaScript");

    let (dom, console) = browser.dom_without_script(tmp, &server, "/g/repos-2.html");
    assert!(console.is_empty(), "{console:?}");
    let listed = dom
        .elements()
        .filter(|&e| dom.attr(e, "data-activity").is_some())
        .count();
    assert_eq!(listed, signals_site::LIST_PAGE_SIZE);
    let pager: Vec<&str> = dom
        .elements()
        .filter(|&e| dom.name(e) == "a")
        .filter_map(|e| dom.attr(e, "rel"))
        .collect();
    assert!(
        pager.contains(&"prev") && pager.contains(&"next"),
        "{pager:?}"
    );

    let (dom, console) = browser.dom_without_script(tmp, &server, "/index.html");
    assert!(console.is_empty(), "{console:?}");
    let listed = dom
        .elements()
        .filter(|&e| dom.attr(e, "data-activity").is_some())
        .count();
    assert_eq!(listed, signals_site::TOP_REPOS);
    let failed: Vec<(String, u16)> = server
        .requests()
        .into_iter()
        .filter(|(path, s)| *s >= 400 && path != "/favicon.ico")
        .collect();
    assert!(failed.is_empty(), "requests that failed: {failed:?}");
}
