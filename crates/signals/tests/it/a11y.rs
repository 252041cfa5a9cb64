//! Accessibility of the exported site: the real binary renders
//! the offline demo, and `tools/a11y/axe.mjs` runs axe-core (tags wcag2a,
//! wcag2aa, wcag21a, wcag21aa, best-practice) in Debian's headless Chromium
//! on every kind of page: the index, each group digest, each repository's
//! page, a later page, each trail, item histories and the importance page;
//! each in light and in dark, and a page with the filter also with the
//! filter open and showing results. Any violation, of any impact, fails.
//!
//! The test installs nothing. It needs `node`, the packages of
//! `tools/a11y/package-lock.json` (`npm ci` there, with
//! `PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1`: the browser is Debian's) and
//! chromium (found as `browser.rs` finds it). Without one of them it prints
//! "skipped: ..." and passes, unless `SIGNALS_REQUIRE_A11Y=1` (set by
//! `.ci/run`, which runs `npm ci`), where it fails.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::browser::{demo_repositories, find_chromium};
use crate::support::{self, TempDir};

/// Longest the whole axe run may take before it is killed, a guard against
/// a hung browser, not a speed check: about 60 checks, each a page load and
/// an axe pass, took a few minutes on an idle two-core machine and over 20
/// minutes at a load average of 20.
const AXE_DEADLINE: Duration = Duration::from_secs(45 * 60);

/// The packages `axe.mjs` imports, as `npm ci` lays them out.
const PACKAGES: [&str; 3] = ["playwright-core", "@axe-core/playwright", "axe-core"];

#[test]
fn demo_site_has_no_axe_violations() {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/a11y");
    let Some((node, chromium)) = prerequisites(&tools) else {
        return;
    };

    let dir = TempDir::new("a11y");
    let out = support::run(dir.path(), &["demo", "--out", "out"], &[]);
    assert!(out.status.success(), "demo failed: {}", support::show(&out));
    let site = dir.path().join("out").join("site");
    let pages = pages_to_check(&site);

    let report = run_axe(&node, &tools, &chromium, &site, &pages, &dir);
    assert_eq!(
        report["failures"].as_array().map_or(0, Vec::len),
        0,
        "the axe run could not load some pages: {:#}",
        report["failures"]
    );

    // Which modes each page was checked in, and every violation.
    let mut modes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut violations = Vec::new();
    for check in report["checked"].as_array().expect("checked: a list") {
        let page = check["page"].as_str().unwrap().to_string();
        let mode = check["mode"].as_str().unwrap().to_string();
        for v in check["violations"].as_array().unwrap() {
            let targets: Vec<String> = v["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["target"].to_string())
                .collect();
            violations.push(format!(
                "{page} [{mode}]: {} ({}): {}; {}",
                v["id"].as_str().unwrap_or("?"),
                v["impact"].as_str().unwrap_or("?"),
                v["help"].as_str().unwrap_or(""),
                targets.join(", ")
            ));
        }
        modes.entry(page).or_default().insert(mode);
    }

    // Every page asked for was checked in both schemes; every page with the
    // filter, with it open too.
    for (path, kind) in &pages {
        let seen = modes.get(path).cloned().unwrap_or_default();
        let mut want: BTreeSet<String> = ["light", "dark"].map(String::from).into();
        if matches!(kind, Kind::Group | Kind::Repository | Kind::LaterPage) {
            want.extend(["light+filter", "dark+filter"].map(String::from));
        }
        assert!(
            want.is_subset(&seen),
            "{path} ({kind:?}) was checked in {seen:?}, not in all of {want:?}"
        );
    }
    assert!(
        violations.is_empty(),
        "axe found {} violations (tags {}):\n{}",
        violations.len(),
        report["tags"],
        violations.join("\n")
    );
    let checks = report["checked"].as_array().map_or(0, Vec::len);
    let _ = writeln!(
        std::io::stderr(),
        "a11y: axe-core {} found no violation in {checks} checks of {} pages",
        report["axe"].as_str().unwrap_or("?"),
        pages.len()
    );
}

/// The kinds of page the site has; each must be checked at least once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Index,
    Importance,
    Group,
    Repository,
    LaterPage,
    Trail,
    History,
}

/// The pages to check, as site paths: every page of every kind except the
/// item histories (one template, 129 pages in the demo), of which each
/// repository gives one: the first that lists changes, else its first.
fn pages_to_check(site: &Path) -> Vec<(String, Kind)> {
    let mut pages = vec![
        ("/index.html".to_string(), Kind::Index),
        ("/importance.html".to_string(), Kind::Importance),
    ];
    let repos = demo_repositories(site);
    let groups: BTreeSet<&str> = repos.iter().map(|(g, _)| g.as_str()).collect();
    for g in groups {
        pages.push((format!("/{g}/index.html"), Kind::Group));
    }
    for (g, r) in &repos {
        let base = site.join(g).join(r);
        pages.push((format!("/{g}/{r}/index.html"), Kind::Repository));
        pages.push((format!("/{g}/{r}/trail.html"), Kind::Trail));
        for name in sorted_files(&base) {
            if (name.starts_with("page-") || name.starts_with("trail-")) && name.ends_with(".html")
            {
                let kind = if name.starts_with("page-") {
                    Kind::LaterPage
                } else {
                    Kind::Trail
                };
                pages.push((format!("/{g}/{r}/{name}"), kind));
            }
        }
        let histories = sorted_files(&base.join("history"));
        let with_changes = histories.iter().find(|name| {
            std::fs::read_to_string(base.join("history").join(name))
                .is_ok_and(|html| html.contains("class=\"changes\""))
        });
        if let Some(name) = with_changes.or(histories.first()) {
            pages.push((format!("/{g}/{r}/history/{name}"), Kind::History));
        }
    }
    let kinds: BTreeSet<Kind> = pages.iter().map(|(_, k)| *k).collect();
    let all = BTreeSet::from([
        Kind::Index,
        Kind::Importance,
        Kind::Group,
        Kind::Repository,
        Kind::LaterPage,
        Kind::Trail,
        Kind::History,
    ]);
    assert_eq!(
        kinds, all,
        "the demo site should have every kind of page to check: {pages:?}"
    );
    pages
}

/// The names of the files in `dir`, sorted; none when it does not exist.
fn sorted_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.path().is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// `node` and chromium, with the packages installed; `None` (after a
/// notice) when one is missing and the check is not required.
fn prerequisites(tools: &Path) -> Option<(PathBuf, PathBuf)> {
    let required = std::env::var("SIGNALS_REQUIRE_A11Y").as_deref() == Ok("1");
    let missing = |what: String| -> Option<(PathBuf, PathBuf)> {
        if required {
            panic!("{what}, and SIGNALS_REQUIRE_A11Y=1");
        }
        // Straight to stderr: the test harness captures `eprintln!`, and this
        // notice must be seen even when the test passes.
        let _ = writeln!(
            std::io::stderr(),
            "skipped: the accessibility check: {what} (set SIGNALS_REQUIRE_A11Y=1 to make this a failure)"
        );
        None
    };
    let Some(node) = on_path("node") else {
        return missing("node not found on PATH (Debian: apt-get install nodejs)".into());
    };
    if let Some(absent) = PACKAGES.iter().find(|p| {
        !tools
            .join("node_modules")
            .join(p)
            .join("package.json")
            .is_file()
    }) {
        return missing(format!(
            "{absent} is not installed in {}: run `PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci` there",
            tools.display()
        ));
    }
    let Some(chromium) = find_chromium() else {
        return missing(
            "chromium not found (looked at /usr/bin/chromium and on PATH; Debian: apt-get install chromium)"
                .into(),
        );
    };
    Some((node, chromium.0))
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Runs `axe.mjs` on `pages` of `site` and returns its report; fails the
/// test when it cannot run or takes longer than [`AXE_DEADLINE`].
fn run_axe(
    node: &Path,
    tools: &Path,
    chromium: &Path,
    site: &Path,
    pages: &[(String, Kind)],
    scratch: &TempDir,
) -> Value {
    use std::os::unix::process::CommandExt;
    // Files, not pipes: the report can be large, and nothing is read
    // while the run goes on.
    let (out_path, err_path) = (
        scratch.path().join("axe.json"),
        scratch.path().join("axe.err"),
    );
    let mut child = Command::new(node)
        .arg(tools.join("axe.mjs"))
        .arg("--chromium")
        .arg(chromium)
        .arg(site)
        .args(pages.iter().map(|(p, _)| p))
        .env("TMPDIR", scratch.path())
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).unwrap())
        .stderr(File::create(&err_path).unwrap())
        // Its own process group, so a timeout ends the browser too.
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", node.display()));
    let deadline = Instant::now() + AXE_DEADLINE;
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
                "the axe run did not finish within {AXE_DEADLINE:?}; its stderr:\n{}",
                std::fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    assert!(status.success(), "the axe run failed: {status}\n{stderr}");
    let stdout = std::fs::read(&out_path).unwrap();
    serde_json::from_slice(&stdout)
        .unwrap_or_else(|e| panic!("the axe run's report is not JSON ({e}); its stderr:\n{stderr}"))
}
