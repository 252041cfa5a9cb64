//! The demo site's pages in headless Chromium at the widths people use, and
//! reached by the addresses people type:
//!
//! - at 360, 1024, 1280 and 1920 px no page scrolls sideways (a wide table
//!   scrolls in its own box) and no chart's axis label is cut by its chart;
//! - a repository's and a group's page reached without the folder's slash
//!   resolve their links and their filter's data in the folder, through
//!   `serve` (which redirects) and through a static server that does not
//!   redirect (the test's own, `browser::Server`, which answers `/g/r` with
//!   the folder's `index.html`).
//!
//! The measuring pages are the test's own, written into a copy of the
//! site (same origin as the pages they frame, so their script can read
//! the frames); the site's CSP forbids script on its own pages. Without
//! Chromium the tests print a skip notice and pass, as `browser.rs`'s do.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::browser::{Chromium, Dom, Server, VIRTUAL_TIME, chromium_or_skip, demo_repositories};
use crate::serve::{exchange, serve_with};
use crate::support::{self, TempDir};

/// The widths the site must fit, in CSS pixels: a small phone, a small
/// laptop, a common desktop, a wide screen.
const WIDTHS: [u32; 4] = [360, 1024, 1280, 1920];

/// The demo, rendered into `dir/demo`; returns its site folder.
fn demo(dir: &TempDir) -> PathBuf {
    let out = support::run(dir.path(), &["demo", "--out", "demo"], &[]);
    assert!(out.status.success(), "demo failed: {}", support::show(&out));
    dir.path().join("demo").join("site")
}

/// Every kind of page of the site: the index and its list, each group's
/// page and list, each repository's first page, a trail and a history.
fn every_kind_of_page(site: &Path) -> Vec<String> {
    let repos = demo_repositories(site);
    let mut pages = vec!["/index.html".to_string(), "/repos-1.html".to_string()];
    let groups: BTreeSet<&String> = repos.iter().map(|(g, _)| g).collect();
    for g in groups {
        pages.push(format!("/{g}/index.html"));
        pages.push(format!("/{g}/repos-1.html"));
    }
    for (g, r) in &repos {
        pages.push(format!("/{g}/{r}/index.html"));
    }
    let (g, r) = &repos[0];
    pages.push(format!("/{g}/{r}/trail.html"));
    let history = std::fs::read_dir(site.join(g).join(r).join("history"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .min()
        .expect("the demo's first repository has history pages");
    pages.push(format!("/{g}/{r}/history/{history}"));
    pages
}

/// A page of the test's own that frames `pages`, each `width` px wide, and
/// once they have loaded and their scripts have run, measures each: the
/// page's width against the viewport's, and every label of every chart
/// against its chart's box. The result goes into `<pre id="result">`.
fn fit_probe(pages: &[String], width: u32) -> String {
    let frames: String = pages
        .iter()
        .map(|p| {
            format!(
                "<iframe src=\"{p}\" data-page=\"{p}\" \
                 style=\"border:0;display:block;width:{width}px;height:700px\"></iframe>\n"
            )
        })
        .collect();
    format!(
        r#"<!doctype html><html><head><title>fit</title></head><body style="margin:0">
{frames}<pre id="result">no result</pre>
<script>
function measure() {{
  const out = [];
  for (const f of document.querySelectorAll('iframe')) {{
    const win = f.contentWindow, doc = f.contentDocument;
    const clipped = [];
    for (const svg of doc.querySelectorAll('svg.chart')) {{
      const box = svg.getBoundingClientRect();
      for (const t of svg.querySelectorAll('text')) {{
        const r = t.getBoundingClientRect();
        if (r.left < box.left - 0.5 || r.right > box.right + 0.5 ||
            r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {{
          clipped.push(t.textContent + ' in ' + (svg.getAttribute('aria-labelledby') || 'a chart') +
            ': ' + [r.left, r.right].map(Math.round) + ' against ' + [box.left, box.right].map(Math.round));
        }}
      }}
    }}
    out.push({{ page: f.dataset.page, scroll: doc.documentElement.scrollWidth, inner: win.innerWidth,
      charts: doc.querySelectorAll('svg.chart').length, styled: doc.styleSheets.length, clipped }});
  }}
  document.getElementById('result').textContent = JSON.stringify(out);
}}
window.addEventListener('load', () => setTimeout(measure, 2000));
</script></body></html>"#
    )
}

/// Loads `probe` (a path of `server`) and returns its JSON result.
fn probe_result(browser: &Chromium, scratch: &TempDir, server: &Server, probe: &str) -> Value {
    let run = browser.run(
        scratch,
        &["--dump-dom", VIRTUAL_TIME, "--window-size=2000,900"],
        &server.url(probe),
    );
    let dom = Dom::parse(&run.stdout);
    let text = dom
        .elements()
        .find(|&e| dom.attr(e, "id") == Some("result"))
        .map(|e| dom.text(e))
        .unwrap_or_default();
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{probe} gave no result ({e}): {text:?}\n{}", run.stdout))
}

#[test]
fn no_page_scrolls_sideways_and_no_chart_label_is_cut_from_360_to_1920_px() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = TempDir::new("pages-fit");
    let site = demo(&dir);
    let pages = every_kind_of_page(&site);
    let server = Server::start(&site);
    let mut failures = Vec::new();
    let mut charts = 0;
    for width in WIDTHS {
        let probe = format!("__fit-{width}.html");
        std::fs::write(site.join(&probe), fit_probe(&pages, width)).unwrap();
        let result = probe_result(&browser, &dir, &server, &format!("/{probe}"));
        let measured = result.as_array().unwrap();
        assert_eq!(measured.len(), pages.len(), "{result}");
        for m in measured {
            let page = m["page"].as_str().unwrap();
            let (scroll, inner) = (m["scroll"].as_u64().unwrap(), m["inner"].as_u64().unwrap());
            assert_eq!(
                inner,
                u64::from(width),
                "{page}: the frame is not {width} px wide"
            );
            assert!(
                m["styled"].as_u64().unwrap() > 0,
                "{page}: no stylesheet at {width} px"
            );
            if scroll > inner {
                failures.push(format!(
                    "{page} at {width} px: the page is {scroll} px wide and scrolls sideways"
                ));
            }
            for c in m["clipped"].as_array().unwrap() {
                failures.push(format!("{page} at {width} px: a cut label: {c}"));
            }
            charts += m["charts"].as_u64().unwrap();
        }
    }
    assert!(
        failures.is_empty(),
        "pages that do not fit:\n{}",
        failures.join("\n")
    );
    // Each repository's first page has its charts, at every width: the
    // label check above looked at them.
    assert!(
        charts >= 5 * 5 * WIDTHS.len() as u64,
        "only {charts} charts measured"
    );
    let failed: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|(path, status)| *status != 200 && path != "/favicon.ico")
        .collect();
    assert!(failed.is_empty(), "requests not answered: {failed:?}");
}

/// A page of the test's own that frames `pages` (paths with their query)
/// and, once their scripts have run, lists for each the address every
/// link, stylesheet and script resolved to, its filter's status line, the
/// order its sort menu shows, and whether its stylesheet was applied.
fn links_probe(pages: &[&str]) -> String {
    let frames: String = pages
        .iter()
        .map(|p| format!("<iframe src=\"{p}\" data-page=\"{p}\"></iframe>\n"))
        .collect();
    format!(
        r#"<!doctype html><html><head><title>links</title></head><body>
{frames}<pre id="result">no result</pre>
<script>
function measure() {{
  const out = [];
  for (const f of document.querySelectorAll('iframe')) {{
    const doc = f.contentDocument;
    const urls = Array.from(doc.querySelectorAll('a[href], link[href], script[src]'))
      .map(e => e.href || e.src)
      .filter(u => u.startsWith(location.origin + '/'))
      .map(u => u.slice(location.origin.length).split('#')[0].split('?')[0]);
    const status = doc.querySelector('.filter-status');
    const sort = doc.querySelector('select[name=sort]');
    out.push({{ page: f.dataset.page, urls, status: status ? status.textContent : null,
      sort: sort ? sort.options[sort.selectedIndex].textContent : null,
      styled: doc.styleSheets.length > 0 && doc.styleSheets[0].cssRules.length > 0 }});
  }}
  document.getElementById('result').textContent = JSON.stringify(out);
}}
window.addEventListener('load', () => setTimeout(measure, 3000));
</script></body></html>"#
    )
}

/// A word the texts of the demo's [`REPO`] hold, to filter by.
const Q: &str = "cassette";
/// The demo's repository the address tests open, and its group.
const REPO: (&str, &str) = ("python-github-tooling", "betamax");

#[test]
fn pages_reached_without_their_slash_resolve_links_and_data_on_a_static_server() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = TempDir::new("pages-no-slash");
    let site = demo(&dir);
    let (g, r) = REPO;
    let server = Server::start(&site);
    let repo_bare = format!("/{g}/{r}?q={Q}");
    let repo_full = format!("/{g}/{r}/index.html?q={Q}");
    let group_bare = format!("/{g}?q={Q}");
    let group_full = format!("/{g}/index.html?q={Q}");
    let pages = [
        repo_bare.as_str(),
        repo_full.as_str(),
        group_bare.as_str(),
        group_full.as_str(),
    ];
    std::fs::write(site.join("__links.html"), links_probe(&pages)).unwrap();
    let result = probe_result(&browser, &dir, &server, "/__links.html");
    let by_page = |p: &str| -> &Value {
        result
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["page"] == p)
            .unwrap_or_else(|| panic!("no result for {p}: {result}"))
    };
    for (bare, full) in [(&repo_bare, &repo_full), (&group_bare, &group_full)] {
        let (b, f) = (by_page(bare), by_page(full));
        assert_eq!(b["styled"], true, "{bare}: the stylesheet did not load");
        // Every address on the page names a file of the site.
        let missing: Vec<&str> = b["urls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u.as_str().unwrap())
            .filter(|u| !names_a_file(&site, u))
            .collect();
        assert!(
            b["urls"].as_array().unwrap().len() > 10 && missing.is_empty(),
            "{bare}: links that resolve to no file: {missing:?}"
        );
        // The same addresses, and the same filter's answer, as the page
        // reached by its full address: its own data, not its parent's.
        assert_eq!(
            b["urls"], f["urls"],
            "{bare} and {full} resolve differently"
        );
        let status = b["status"].as_str().unwrap_or_default();
        assert!(
            status.contains("match"),
            "{bare}: the filter says {status:?}"
        );
        assert_eq!(
            b["status"], f["status"],
            "{bare} and {full} filter differently"
        );
        // The sort menu names the order the count says.
        let sort = b["sort"].as_str().unwrap_or_default();
        assert!(
            sort.starts_with("by ") && status.contains(&format!(", {sort}")),
            "{bare}: the sort menu says {sort:?}, the count {status:?}"
        );
    }
    // A text query on a repository's page is answered from its word index,
    // ranked by relevance.
    let sort = by_page(&repo_bare)["sort"].as_str().unwrap_or_default();
    assert_eq!(sort, "by relevance", "{repo_bare}");
    let failed: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|(path, status)| *status != 200 && path != "/favicon.ico")
        .collect();
    assert!(failed.is_empty(), "requests not answered: {failed:?}");
}

/// Whether the site path `path` names a file of `site`, or a folder with
/// its `index.html`.
fn names_a_file(site: &Path, path: &str) -> bool {
    let file = site.join(path.trim_start_matches('/'));
    file.is_file() || (path.ends_with('/') && file.join("index.html").is_file())
}

#[test]
fn serve_redirects_a_folder_without_its_slash_and_the_page_finds_its_own_data() {
    let dir = TempDir::new("serve-no-slash");
    let site = demo(&dir);
    let (g, r) = REPO;
    assert!(site.join(g).join(r).join("index.html").is_file());
    let s = serve_with(dir.path(), &["--store", "demo/signals.db"], &[]);
    // Until its first export of the site is done, serve answers 503 with
    // `retry-after`: wait for it, a bounded time.
    let end = std::time::Instant::now() + std::time::Duration::from_secs(180);
    while exchange(s.port, "GET", &format!("/{g}/{r}/"), "")
        .0
        .to_ascii_lowercase()
        .starts_with("http/1.1 503")
    {
        assert!(std::time::Instant::now() < end, "the site was never ready");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    for (asked, to) in [
        (
            format!("/{g}/{r}?q={Q}&sort=updated"),
            format!("/{g}/{r}/?q={Q}&sort=updated"),
        ),
        (format!("/{g}/{r}"), format!("/{g}/{r}/")),
        (format!("/{g}"), format!("/{g}/")),
    ] {
        let (head, _) = exchange(s.port, "GET", &asked, "");
        let head = head.to_ascii_lowercase();
        assert!(head.starts_with("http/1.1 308"), "{asked}: {head}");
        assert!(
            head.contains(&format!("\r\nlocation: {}\r\n", to.to_ascii_lowercase())),
            "{asked} should move to {to}: {head}"
        );
    }
    // Files and folders with their slash are answered as they are.
    for page in [
        format!("/{g}/{r}/"),
        format!("/{g}/{r}/index.html"),
        format!("/{g}/"),
    ] {
        let (head, _) = exchange(s.port, "GET", &page, "");
        assert!(head.starts_with("HTTP/1.1 200"), "{page}: {head}");
    }

    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let status_of = |target: &str| -> (String, Vec<String>) {
        let run = browser.run(
            &dir,
            &["--dump-dom", VIRTUAL_TIME],
            &format!("http://127.0.0.1:{}{target}", s.port),
        );
        let dom = Dom::parse(&run.stdout);
        let status = dom
            .elements()
            .find(|&e| dom.attr(e, "class") == Some("filter-status"))
            .map(|e| dom.text(e))
            .unwrap_or_default();
        (status, run.console)
    };
    for (bare, full) in [
        (
            format!("/{g}/{r}?q={Q}"),
            format!("/{g}/{r}/index.html?q={Q}"),
        ),
        (format!("/{g}?q={Q}"), format!("/{g}/index.html?q={Q}")),
    ] {
        let (b, console) = status_of(&bare);
        assert!(console.is_empty(), "{bare}: {}", console.join("\n"));
        assert!(b.contains("match"), "{bare}: the filter says {b:?}");
        let (f, _) = status_of(&full);
        assert_eq!(b, f, "{bare} and {full} filter differently");
    }
}
