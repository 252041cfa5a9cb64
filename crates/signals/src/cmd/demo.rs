//! `signals demo`: the whole pipeline, offline, on three hosts.
//!
//! It starts three loopback servers: a GitHub one serving recorded
//! responses of two repositories (`demo/SOURCES.md`), a GitLab one and a
//! Forgejo one serving synthetic projects in each API's documented shapes.
//! It collects them with the real clients into a fresh store at a first
//! instant, swaps in the second instant's data, collects again, and exports
//! the site. A second group holds one repository of each host. Nothing bypasses the HTTP path; the
//! only differences from `collect` are the fixed instants (the recordings are
//! from 2017 to 2021) and the built-in configuration.

use std::path::Path;

use anyhow::Context;
use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use signals_testhost::{Flavor, Scenario, TestHost, synthetic_forgejo, synthetic_gitlab};

use crate::config::Config;
use crate::pipeline::Window;

/// The first instant's recorded responses.
const INSTANT1: &str = include_str!("../../demo/instant1.json");
/// The second instant's simulated changes.
const CHANGES: &str = include_str!("../../demo/changes.json");

/// The demo's configuration; the host URL is replaced by the loopback one.
const DEMO_CONFIG: &str = r#"
backfill_days = 3650

[[hosts]]
name = "github"
kind = "github"

[[hosts]]
name = "gitlab"
kind = "gitlab"

[[hosts]]
name = "forgejo"
kind = "forgejo"

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

[[groups]]
id = "one-theme-three-hosts"
name = "One theme, three hosts"

[[groups.repos]]
repo = "sigmavirus24/github3.py"
host = "github"
name = "github3.py on GitHub"
keywords = ["github3.py"]

[[groups.repos]]
repo = "demo-group/http/recorder"
host = "gitlab"
name = "recorder on GitLab"
keywords = ["recorder"]

[[groups.repos]]
repo = "demo/cassettes"
host = "forgejo"
name = "cassettes on Forgejo"
keywords = ["cassettes"]
"#;

/// The synthetic GitLab project and Forgejo repository of the demo.
const GITLAB_PROJECT: &str = "demo-group/http/recorder";
const FORGEJO_REPO: &str = "demo/cassettes";
/// When their synthetic items begin (before the first instant).
const SYNTHETIC_START: &str = "2021-10-25T00:00:00Z";
/// How many items each has.
const SYNTHETIC_ITEMS: usize = 30;

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
    let github = TestHost::start(first).context("cannot start the loopback server on 127.0.0.1")?;
    // The demo collects without a token, so the host grants GitHub's
    // unauthenticated budget.
    github.set_rate_limit(60);
    let gitlab = TestHost::start(other_host(Flavor::Gitlab, false))
        .context("cannot start the loopback server on 127.0.0.1")?;
    let forgejo = TestHost::start(other_host(Flavor::Forgejo, false))
        .context("cannot start the loopback server on 127.0.0.1")?;

    let mut config = Config::parse(DEMO_CONFIG, Path::new("<demo>"))?;
    for (host, server) in config.hosts.iter_mut().zip([&github, &gitlab, &forgejo]) {
        host.api_url = server.api_url();
        host.token_env = Vec::new();
    }
    let targets: Vec<_> = config
        .select(None, None)
        .into_iter()
        .map(|(g, r)| (g, r, config.host_of(g, r)))
        .collect();
    let mut hosts = config
        .hosts
        .iter()
        .map(|h| crate::hosts::build(h, |_| None, verbose))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut store = signals_store::Store::open(&store_path)?;
    let window = Window {
        window: SignedDuration::from_hours(config.window_hours),
        backfill: config
            .backfill_days
            .map(|d| SignedDuration::from_hours(d * 24)),
        alerts: crate::pipeline::Alerts::of(&config),
        // The demo's two runs are a day apart: none is a reconcile.
        reconcile: crate::pipeline::Reconcile::default(),
    };

    let mut lines = Vec::new();
    for (i, instant) in INSTANTS.iter().enumerate() {
        if i == 1 {
            github.set_scenario(second_instant()?);
            gitlab.set_scenario(other_host(Flavor::Gitlab, true));
            forgejo.set_scenario(other_host(Flavor::Forgejo, true));
        }
        let at: Timestamp = instant.parse().expect("fixed instants parse");
        let mut summary = crate::collection::collect_all(
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
    crate::collection::save_rate_limits(&hosts, &store);

    let site = out.join("site");
    // Health is judged at the demo's last instant, as if exported right
    // after its last run.
    let judge = super::export::Judge {
        interval: config.interval,
        now: INSTANTS[INSTANTS.len() - 1]
            .parse()
            .expect("fixed instants parse"),
    };
    let report = super::export::export(&store, &site, &config.importance, judge)?;
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
        "store: {} (open it with sqlite3)\nsite: {} repositories, {} files, datasets valid\nopen {}\nor browse it, with item histories and a JSON API: signals serve --store {}",
        store_path.display(),
        report.repositories,
        report.files,
        site.join("index.html").display(),
        store_path.display()
    ));
    Ok(lines.join("\n"))
}

/// The synthetic GitLab or Forgejo data at the first instant, or at the
/// second (`changed`): between the instants one issue is retitled, one pull
/// or merge request gets comments, and one issue is opened.
fn other_host(flavor: Flavor, changed: bool) -> Scenario {
    let start: Timestamp = SYNTHETIC_START.parse().expect("a fixed instant");
    let mut scenario = match flavor {
        Flavor::Gitlab => synthetic_gitlab(GITLAB_PROJECT, SYNTHETIC_ITEMS, start),
        _ => synthetic_forgejo(FORGEJO_REPO, SYNTHETIC_ITEMS, start),
    };
    if !changed {
        return scenario;
    }
    let at = serde_json::json!("2021-11-01T12:00:00Z");
    let (key, comments) = match flavor {
        Flavor::Gitlab => ("iid", "user_notes_count"),
        _ => ("number", "comments"),
    };
    let Some(data) = scenario.repos.values_mut().next() else {
        return scenario;
    };
    if let Some(issue) = data.issues.get_mut(1) {
        issue["title"] = serde_json::json!("Record redirects as well as responses");
        issue["updated_at"] = at.clone();
    }
    let pr = match flavor {
        Flavor::Gitlab => data.merge_requests.get_mut(0),
        _ => data.issues.get_mut(2),
    };
    if let Some(pr) = pr {
        pr[comments] = serde_json::json!(12);
        pr["updated_at"] = at.clone();
    }
    if let Some(mut fresh) = data.issues.first().cloned() {
        fresh[key] = serde_json::json!(100);
        fresh["title"] = serde_json::json!("Cassettes recorded on Windows have CRLF bodies");
        fresh["created_at"] = at.clone();
        fresh["updated_at"] = at;
        data.issues.push(fresh);
    }
    scenario
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
