//! `signals demo`: the whole pipeline, offline.
//!
//! It starts a loopback server that serves recorded GitHub responses of two
//! repositories (`demo/SOURCES.md`), collects them with the real client into
//! a fresh store at a first instant, swaps in the second instant's data,
//! collects again, and exports the site. Nothing bypasses the HTTP path; the
//! only differences from `collect` are the fixed instants (the recordings are
//! from 2017 to 2021) and the built-in configuration.

use std::path::Path;

use anyhow::Context;
use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use signals_testhost::{Scenario, TestHost};

use crate::config::{Config, HostConfig};
use crate::pipeline::Window;

/// The first instant's recorded responses.
const INSTANT1: &str = include_str!("../../demo/instant1.json");
/// The second instant's simulated changes.
const CHANGES: &str = include_str!("../../demo/changes.json");

/// The demo's configuration; the host URL is replaced by the loopback one.
const DEMO_CONFIG: &str = r#"
backfill_days = 3650

[[groups]]
id = "python-github-tooling"
name = "Python GitHub tooling"

[[groups.repos]]
repo = "sigmavirus24/github3.py"
name = "github3.py"
keywords = ["github3.py", "github api"]

[[groups.repos]]
repo = "betamaxpy/betamax"
name = "Betamax"
keywords = ["betamax", "vcr"]
"#;

/// The two instants of the demo's runs.
pub const INSTANTS: [&str; 2] = ["2021-11-01T00:00:00Z", "2021-11-02T00:00:00Z"];

/// Runs the demo into `out` (its store and its site); returns the exit code.
pub fn run(out: &Path, verbose: bool) -> anyhow::Result<u8> {
    let report = demo(out, verbose)?;
    println!("{report}");
    Ok(crate::exit::OK)
}

/// Does the demo and returns what to print.
pub fn demo(out: &Path, verbose: bool) -> anyhow::Result<String> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let store_path = out.join("signals.db");
    // The demo's instants are fixed, so a store from an earlier demo would
    // refuse them as out of order: start afresh (only the demo's own files).
    for suffix in ["", "-wal", "-shm"] {
        let p = out.join(format!("signals.db{suffix}"));
        if p.exists() {
            std::fs::remove_file(&p)
                .with_context(|| format!("cannot remove the old demo store {}", p.display()))?;
        }
    }

    let first = Scenario::parse(INSTANT1.as_bytes())
        .context("the bundled demo data (instant 1) is broken")?;
    let host = TestHost::start(first).context("cannot start the loopback server on 127.0.0.1")?;
    // The demo collects without a token, so the host grants GitHub's
    // unauthenticated budget.
    host.set_rate_limit(60);

    let mut config = Config::parse(DEMO_CONFIG, Path::new("<demo>"))?;
    config.hosts = vec![HostConfig {
        api_url: host.base_url().to_string(),
        token_env: Vec::new(),
        ..HostConfig::default()
    }];
    let targets: Vec<_> = config
        .select(None, None)
        .into_iter()
        .map(|(g, r)| (g, r, config.host_of(g, r)))
        .collect();
    let mut hosts = vec![crate::hosts::build(&config.hosts[0], |_| None, verbose)?];
    let mut store = signals_store::Store::open(&store_path)?;
    let window = Window {
        window: SignedDuration::from_hours(config.window_hours),
        backfill: config
            .backfill_days
            .map(|d| SignedDuration::from_hours(d * 24)),
    };

    let mut lines = Vec::new();
    for (i, instant) in INSTANTS.iter().enumerate() {
        if i == 1 {
            host.set_scenario(second_instant()?);
        }
        let at: Timestamp = instant.parse().expect("fixed instants parse");
        let mut summary = super::collect::collect_all(
            &mut hosts,
            &mut store,
            &targets,
            &mut || at,
            window,
            false,
        )?;
        summary.store = store_path.clone();
        summary.print_failures();
        if summary.exit_code() != crate::exit::OK {
            anyhow::bail!("the demo's run {} failed: {}", i + 1, summary.line());
        }
        lines.push(format!("run {} at {instant}: {}", i + 1, summary.line()));
    }
    super::collect::save_rate_limits(&hosts, &store);

    let site = out.join("site");
    let report = super::export::export(&store, &site, &config.importance)?;
    let mut problems = 0;
    for group in &config.groups {
        for repo in &group.repos {
            let path = site
                .join(&group.group.id)
                .join(&repo.id)
                .join("dataset.json");
            let bytes = std::fs::read(&path)
                .with_context(|| format!("cannot read back {}", path.display()))?;
            for p in crate::validate::check(&bytes) {
                eprintln!("{}: {p}", path.display());
                problems += 1;
            }
        }
    }
    if problems > 0 {
        anyhow::bail!("the demo's datasets have {problems} problems (printed above)");
    }
    lines.push(format!(
        "store: {} (open it with sqlite3)\nsite: {} repositories, {} files, datasets valid\nopen {}",
        store_path.display(),
        report.repositories,
        report.files,
        site.join("index.html").display()
    ));
    Ok(lines.join("\n"))
}

/// The second instant: the first with `changes.json` applied. Issues replace
/// the entry with the same number or are added; releases go in front; `repo`
/// fields override.
fn second_instant() -> anyhow::Result<Scenario> {
    let mut data: Value = serde_json::from_str(INSTANT1).context("demo instant 1 is not JSON")?;
    let changes: Value = serde_json::from_str(CHANGES).context("demo changes are not JSON")?;
    apply_changes(&mut data, &changes).context("demo changes do not fit instant 1")?;
    Ok(Scenario::parse(&serde_json::to_vec(&data)?)?)
}

fn apply_changes(data: &mut Value, changes: &Value) -> anyhow::Result<()> {
    let repos = changes["repos"]
        .as_object()
        .context("changes.repos is not an object")?;
    for (name, change) in repos {
        let target = data["repos"]
            .get_mut(name)
            .with_context(|| format!("no repository {name} in instant 1"))?;
        if let Some(fields) = change.get("repo").and_then(Value::as_object) {
            let repo = target["repo"]
                .as_object_mut()
                .context("repo is not an object")?;
            for (k, v) in fields {
                repo.insert(k.clone(), v.clone());
            }
        }
        if let Some(issues) = change.get("issues").and_then(Value::as_array) {
            let list = target["issues"]
                .as_array_mut()
                .context("issues is not an array")?;
            for issue in issues {
                match list.iter_mut().find(|i| i["number"] == issue["number"]) {
                    Some(slot) => *slot = issue.clone(),
                    None => list.push(issue.clone()),
                }
            }
        }
        if let Some(releases) = change.get("releases").and_then(Value::as_array) {
            let list = target["releases"]
                .as_array_mut()
                .context("releases is not an array")?;
            for (i, r) in releases.iter().enumerate() {
                list.insert(i, r.clone());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_apply_to_instant_one() {
        let s = second_instant().unwrap();
        let github3 = &s.repos["sigmavirus24/github3.py"];
        assert_eq!(github3.releases.len(), 4);
        assert_eq!(github3.releases[0]["tag_name"], "v3.0.0");
        let betamax = &s.repos["betamaxpy/betamax"];
        assert_eq!(betamax.issues.len(), 151);
        assert!(betamax.issues.iter().any(|i| i["number"] == 151));
    }
}
