//! The demo (`signals demo`): the whole pipeline, offline, on three hosts.
//!
//! It starts three loopback servers serving answers real hosts sent, as
//! other projects recorded them for their tests (`demo/SOURCES.md`): a
//! GitHub one (api.github.com, two repositories), a GitLab one (gitlab.com)
//! and a Forgejo one (gitea.com). It collects them with the real clients
//! into a fresh store at a first instant, swaps in the second instant's
//! data (the first with documented edits: a closed state, a new reaction
//! or comment, an item held back from the first instant), collects again,
//! and exports the site. No signal is invented: every title the demo shows
//! is in a recorded file. Nothing bypasses the HTTP path; the only
//! differences from `collect` are the fixed instants (the recorded items
//! were last updated between 2013 and 2021) and the built-in configuration.
//!
//! The demo is judged at its own clock: its pages at its last run, and the
//! `signals.toml` it writes beside its store sets `clock` to that instant,
//! so `status`, `serve` and `metrics` run with it find the demo fresh
//! rather than stale for years.

use std::path::{Path, PathBuf};

use anyhow::Context;
use jiff::Timestamp;
use serde_json::{Value, json};
use signals_testhost::{Flavor, RepoData, Scenario, TestHost};

use crate::collect::{Progress, Reconcile, Window};
use crate::config::Config;
use crate::hosts::Requests;

/// The first instant's recorded GitHub responses.
const INSTANT1: &str = include_str!("../demo/instant1.json");
/// The second instant's edits of the GitHub data, and the items held back
/// from the first.
const CHANGES: &str = include_str!("../demo/changes.json");

/// gitlab.com's answers for the project `gitea/test_repo`, as recorded
/// (`demo/SOURCES.md`).
const GITLAB_RECORDED: [(&str, &str); 5] = [
    ("project", include_str!("../demo/gitlab/project.json")),
    ("issues", include_str!("../demo/gitlab/issues.json")),
    (
        "merge_request_2",
        include_str!("../demo/gitlab/merge_request_2.json"),
    ),
    ("milestones", include_str!("../demo/gitlab/milestones.json")),
    ("releases", include_str!("../demo/gitlab/releases.json")),
];

/// gitea.com's answers for the repository `gitea/test_repo`, as recorded
/// (excerpts: `demo/SOURCES.md`).
const GITEA_RECORDED: [(&str, &str); 5] = [
    ("repo", include_str!("../demo/gitea/repo.json")),
    ("issues", include_str!("../demo/gitea/issues.json")),
    ("pulls", include_str!("../demo/gitea/pulls.json")),
    ("milestones", include_str!("../demo/gitea/milestones.json")),
    ("releases", include_str!("../demo/gitea/releases.json")),
];

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
name = "gitea"
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
repo = "gitea/test_repo"
id = "test-repo-gitlab"
host = "gitlab"
name = "test_repo on gitlab.com"
keywords = ["migration"]

[[groups.repos]]
repo = "gitea/test_repo"
id = "test-repo-gitea"
host = "gitea"
name = "test_repo on gitea.com"
keywords = ["migration"]
"#;

/// The recorded repository on gitlab.com and on gitea.com.
const RECORDED_REPO: &str = "gitea/test_repo";
/// When the second instant's edits happened (between the two runs).
const EDITED_AT: &str = "2021-11-01T12:00:00Z";

/// The two instants of the demo's runs.
pub const INSTANTS: [&str; 2] = ["2021-11-01T00:00:00Z", "2021-11-02T00:00:00Z"];

/// The years the recorded items were last updated in, first and last (a
/// test reads them back from the demo's datasets).
pub const RECORDED_YEARS: (i16, i16) = (2013, 2021);

/// The first line of the configuration the demo writes beside its store:
/// a file that starts otherwise is not the demo's, and is left alone.
const CONFIG_HEADER: &str = "# Written by `signals demo`";

/// Which of the demo's two [`INSTANTS`] a recorded host answers for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Day {
    /// The first instant: the recordings, less what they hold back.
    First,
    /// The second instant, a day later: the recordings with their edits.
    Second,
}

/// Does the demo and returns what to print.
pub fn demo(out: &Path, requests: Requests) -> anyhow::Result<String> {
    let store_path = fresh_store(out)?;
    let first = github_instant(Day::First)?;
    let github = TestHost::start(first).context("cannot start the loopback server on 127.0.0.1")?;
    // The demo collects without a token, so the host grants GitHub's
    // unauthenticated budget.
    github.set_rate_limit(60);
    let gitlab = TestHost::start(recorded_gitlab(Day::First)?)
        .context("cannot start the loopback server on 127.0.0.1")?;
    let forgejo = TestHost::start(recorded_gitea(Day::First)?)
        .context("cannot start the loopback server on 127.0.0.1")?;

    let mut config = Config::parse(DEMO_CONFIG, Path::new("<demo>"))?;
    for (host, server) in config.hosts.iter_mut().zip([&github, &gitlab, &forgejo]) {
        host.api_url = server.api_url();
        host.token_env = Vec::new();
    }
    let targets: Vec<_> = config
        .select(None, None)
        .into_iter()
        .map(|(group, repo)| crate::collect::Target {
            group,
            repo,
            host: config.host_of(group, repo),
            through_owner: None,
        })
        .collect();
    let mut hosts = config
        .hosts
        .iter()
        .map(|h| crate::hosts::build(h, |_| None, requests))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut store = signals_store_sqlite::Store::open(&store_path)?;
    let discussions_off = crate::collect::discussions_off(&config);
    // The demo's two runs are a day apart: none is a reconcile.
    let window = Window::of(&config, Reconcile::default(), &discussions_off);

    let mut lines = Vec::new();
    for (i, instant) in INSTANTS.iter().enumerate() {
        if i == 1 {
            github.set_scenario(github_instant(Day::Second)?);
            gitlab.set_scenario(recorded_gitlab(Day::Second)?);
            forgejo.set_scenario(recorded_gitea(Day::Second)?);
        }
        let at: Timestamp = instant.parse().expect("fixed instants parse");
        let mut summary = crate::collect::collect_all(
            &mut hosts,
            &mut store,
            &targets,
            &mut || at,
            window,
            Progress::Hidden,
        )?;
        summary.store = store_path.clone();
        summary.print_failures();
        if summary.exit_code() != crate::exit::OK {
            anyhow::bail!("the demo's run {} failed: {}", i + 1, summary.line());
        }
        lines.push(format!("run {} at {instant}: {}", i + 1, summary.line()));
    }
    // The rate limits the loopback hosts granted are no one's budget: they
    // are not saved, so `status` shows none for the demo's store.

    let site = out.join("site");
    // Health is judged at the demo's last instant, as if exported right
    // after its last run.
    let judge = crate::export::Judge {
        interval: config.interval,
        now: INSTANTS[INSTANTS.len() - 1]
            .parse()
            .expect("fixed instants parse"),
    };
    crate::export::index_all(&mut store)?;
    let report = crate::export::export(&store, &site, &config.importance, judge)?;
    check_datasets(&config, &site)?;
    let demo_config = write_config(out)?;
    let (first, last) = RECORDED_YEARS;
    let program = program(&std::env::current_exe().unwrap_or_default());
    lines.push(format!(
        "store: {} (open it with sqlite3)\nsite: {} repositories, {} files, datasets valid\nopen {}\n\
         The demo's data are recordings, not live: what api.github.com, gitlab.com and gitea.com \
         answered, as other projects recorded them for their tests (items last updated {first} to \
         {last}), collected at two fixed instants, {} and {}. Health is judged at the demo's own \
         clock, its last run (`clock` in {}), so the demo is fresh.\n\
         Next steps:\n\
         Its runs and health:\n  {program} --config {} status\n\
         Its datasets against the schema:\n  {program} validate {}\n\
         Browse it, with item histories and a JSON API:\n  {program} --config {} serve",
        store_path.display(),
        report.repositories,
        report.files,
        site.join("index.html").display(),
        INSTANTS[0],
        INSTANTS[1],
        demo_config.display(),
        demo_config.display(),
        site.join("*").join("*").join("dataset.json").display(),
        demo_config.display(),
    ));
    if program != "signals" {
        lines.push(
            "(`cargo install --path crates/signals` puts `signals` on your PATH)".to_string(),
        );
    }
    Ok(lines.join("\n"))
}

/// How to run this very program again, as printed in the demo's hints:
/// from a clone's `target/debug` or `target/release`, through cargo with
/// the same profile (nothing is on the PATH after `cargo run`); installed,
/// by its name.
fn program(exe: &Path) -> String {
    let dir: Vec<&str> = exe
        .parent()
        .into_iter()
        .flat_map(|p| p.iter())
        .filter_map(|c| c.to_str())
        .collect();
    match dir.as_slice() {
        [.., "target", "debug"] | [.., "target", "debug", "deps"] => "cargo run --".to_string(),
        [.., "target", "release"] | [.., "target", "release", "deps"] => {
            "cargo run --release --".to_string()
        }
        _ => "signals".to_string(),
    }
}

/// Writes `out/signals.toml`, the configuration of the demo's store: the
/// store and site beside it, and `clock` at the demo's last run, so what
/// reads the store through it judges health at the demo's clock. A file of
/// that name that the demo did not write is left alone (an error).
fn write_config(out: &Path) -> anyhow::Result<PathBuf> {
    let path = out.join("signals.toml");
    if let Ok(old) = std::fs::read_to_string(&path)
        && !old.starts_with(CONFIG_HEADER)
    {
        anyhow::bail!(
            "{} exists and was not written by the demo: move it, or give the demo another --out",
            path.display()
        );
    }
    let text = format!(
        "{CONFIG_HEADER}: the configuration of the demo's store.\n\
         # Its data are recordings, collected at fixed instants; `clock` judges their\n\
         # health at the demo's last run instead of now. It tracks nothing: the demo\n\
         # collects with its own built-in configuration.\n\
         store = \"signals.db\"\nout = \"site\"\nclock = \"{}\"\n",
        INSTANTS[INSTANTS.len() - 1]
    );
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// The path of the demo's store in `out`, with no store of an earlier demo
/// left there: the demo's instants are fixed, so such a store would refuse
/// them as out of order (only the demo's own files are removed).
fn fresh_store(out: &Path) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for suffix in ["", "-wal", "-shm"] {
        let p = out.join(format!("signals.db{suffix}"));
        if p.exists() {
            std::fs::remove_file(&p)
                .with_context(|| format!("cannot remove the old demo store {}", p.display()))?;
        }
    }
    Ok(out.join("signals.db"))
}

/// Checks every exported dataset against the schema and its invariants,
/// printing each problem.
fn check_datasets(config: &Config, site: &Path) -> anyhow::Result<()> {
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
    Ok(())
}

/// Parses one bundled file, naming it when it is broken.
fn parse(name: &str, text: &str) -> anyhow::Result<Value> {
    serde_json::from_str(text).with_context(|| format!("the bundled demo file {name} is broken"))
}

/// The number (`number` or GitLab's `iid`) of a recorded item.
fn number_of(item: &Value) -> Option<u64> {
    item.get("number")
        .or_else(|| item.get("iid"))
        .and_then(Value::as_u64)
}

/// Finds a recorded item by number, for an edit.
fn item_mut<'a>(list: &'a mut [Value], n: u64, what: &str) -> anyhow::Result<&'a mut Value> {
    list.iter_mut()
        .find(|i| number_of(i) == Some(n))
        .with_context(|| format!("the demo's {what} has no item {n} to edit"))
}

/// gitlab.com's `gitea/test_repo` at the first instant, or at the second,
/// which is the first with these edits (`demo/SOURCES.md`):
/// issue #1 gets one more upvote, merge request !2 ("do not merge this
/// PR") is closed, and issue #2, held back from the first instant, appears.
fn recorded_gitlab(day: Day) -> anyhow::Result<Scenario> {
    let [project, issues, mr, milestones, releases] =
        GITLAB_RECORDED.map(|(name, text)| parse(&format!("gitlab/{name}.json"), text));
    let mut issues: Vec<Value> = serde_json::from_value(issues?)?;
    let mut merge_requests = vec![mr?];
    if day == Day::Second {
        let at = json!(EDITED_AT);
        let one = item_mut(&mut issues, 1, "GitLab issue list")?;
        one["upvotes"] = json!(one["upvotes"].as_u64().unwrap_or(0) + 1);
        one["updated_at"] = at.clone();
        let mr = item_mut(&mut merge_requests, 2, "GitLab merge requests")?;
        mr["state"] = json!("closed");
        mr["closed_at"] = at.clone();
        mr["updated_at"] = at.clone();
        item_mut(&mut issues, 2, "GitLab issue list")?["updated_at"] = at;
    } else {
        issues.retain(|i| number_of(i) != Some(2));
    }
    let data = RepoData {
        repo: project?,
        releases: serde_json::from_value(releases?)?,
        milestones: serde_json::from_value(milestones?)?,
        issues,
        merge_requests,
        pulls: Vec::new(),
        ..RepoData::default()
    };
    Ok(scenario(Flavor::Gitlab, data))
}

/// gitea.com's `gitea/test_repo` at the first instant, or at the second:
/// issue #9 is closed, pull request #13 gets one more comment, and issue
/// #10, held back from the first instant, appears. Its pull requests are
/// recorded from `/pulls`; they are served in the shape the issue list
/// gives pull requests (`pull_request: {merged, merged_at, draft}`).
fn recorded_gitea(day: Day) -> anyhow::Result<Scenario> {
    let [repo, issues, pulls, milestones, releases] =
        GITEA_RECORDED.map(|(name, text)| parse(&format!("gitea/{name}.json"), text));
    let mut issues: Vec<Value> = serde_json::from_value(issues?)?;
    let pulls: Vec<Value> = serde_json::from_value(pulls?)?;
    issues.extend(pulls.iter().map(pull_as_issue_entry));
    if day == Day::Second {
        let at = json!(EDITED_AT);
        let nine = item_mut(&mut issues, 9, "Gitea issue list")?;
        nine["state"] = json!("closed");
        nine["closed_at"] = at.clone();
        nine["updated_at"] = at.clone();
        let thirteen = item_mut(&mut issues, 13, "Gitea issue list")?;
        thirteen["comments"] = json!(thirteen["comments"].as_u64().unwrap_or(0) + 1);
        thirteen["updated_at"] = at.clone();
        item_mut(&mut issues, 10, "Gitea issue list")?["updated_at"] = at;
    } else {
        issues.retain(|i| number_of(i) != Some(10));
    }
    let data = RepoData {
        repo: repo?,
        releases: serde_json::from_value(releases?)?,
        milestones: serde_json::from_value(milestones?)?,
        issues,
        merge_requests: Vec::new(),
        pulls: Vec::new(),
        ..RepoData::default()
    };
    Ok(scenario(Flavor::Forgejo, data))
}

/// A recorded `/pulls` entry in the shape `/issues` lists a pull request
/// in: the same fields, with `pull_request` saying whether it was merged.
fn pull_as_issue_entry(pull: &Value) -> Value {
    let mut entry = pull.clone();
    entry["pull_request"] = json!({
        "merged": pull["merged"],
        "merged_at": pull["merged_at"],
        "draft": pull["draft"],
        "html_url": pull["html_url"],
    });
    entry
}

fn scenario(flavor: Flavor, data: RepoData) -> Scenario {
    Scenario {
        flavor,
        repos: [(RECORDED_REPO.to_string(), data)].into(),
        ..Scenario::default()
    }
}

/// The GitHub data at the first instant (the recordings, less the items
/// `changes.json` holds back), or at the second (`changes.json` applied:
/// its issue entries replace the entry with the same number or are added;
/// `repo` fields override).
fn github_instant(day: Day) -> anyhow::Result<Scenario> {
    let mut data = parse("instant1.json", INSTANT1)?;
    let changes = parse("changes.json", CHANGES)?;
    if day == Day::Second {
        apply_changes(&mut data, &changes).context("demo changes do not fit instant 1")?;
    } else {
        hold_back(&mut data, &changes)?;
    }
    Ok(Scenario::parse(&serde_json::to_vec(&data)?)?)
}

/// Removes from the first instant the items `changes.json` lists as
/// `held_back`: recorded items that appear only at the second instant.
fn hold_back(data: &mut Value, changes: &Value) -> anyhow::Result<()> {
    let repos = changes["repos"]
        .as_object()
        .context("changes.repos is not an object")?;
    for (name, change) in repos {
        let Some(held) = change.get("held_back").and_then(Value::as_array) else {
            continue;
        };
        let list = data["repos"][name]["issues"]
            .as_array_mut()
            .with_context(|| format!("no issues of {name} in instant 1"))?;
        list.retain(|i| !held.contains(&i["number"]));
    }
    Ok(())
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
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Load;

    #[test]
    fn issue_30_the_hint_runs_from_a_clone_or_installed() {
        for (exe, want) in [
            ("/src/repo-signals/target/debug/signals", "cargo run --"),
            (
                "/src/repo-signals/target/release/signals",
                "cargo run --release --",
            ),
            (
                "/src/repo-signals/target/debug/deps/it-0a1b",
                "cargo run --",
            ),
            ("/home/me/.cargo/bin/signals", "signals"),
            ("/usr/local/bin/signals", "signals"),
        ] {
            assert_eq!(program(Path::new(exe)), want, "{exe}");
        }
    }

    #[test]
    fn issue_30_the_demo_configuration_parses_with_its_clock() {
        let dir = std::env::temp_dir().join(format!("signals-demo-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = write_config(&dir).unwrap();
        let config = Config::load(&path).unwrap();
        assert_eq!(config.clock, Some(INSTANTS[1].parse().unwrap()));
        assert_eq!(config.store, dir.join("signals.db"));
        assert!(config.groups.is_empty());
        // Written again over its own file; never over someone else's.
        write_config(&dir).unwrap();
        std::fs::write(&path, "store = \"mine.db\"\n").unwrap();
        assert!(write_config(&dir).is_err());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "store = \"mine.db\"\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_second_instant_edits_recorded_items_and_adds_held_back_ones() {
        let first = github_instant(Day::First).unwrap();
        let second = github_instant(Day::Second).unwrap();
        let betamax = |s: &Scenario| s.repos["betamaxpy/betamax"].issues.clone();
        assert!(!betamax(&first).iter().any(|i| i["number"] == 143));
        assert!(betamax(&second).iter().any(|i| i["number"] == 143));
        assert_eq!(betamax(&second).len(), betamax(&first).len() + 1);
        // No release is added: the recorded one is the only one.
        let github3 = |s: &Scenario| s.repos["sigmavirus24/github3.py"].releases.len();
        assert_eq!((github3(&first), github3(&second)), (1, 1));

        for (first, second, held) in [
            (recorded_gitlab(Day::First), recorded_gitlab(Day::Second), 2),
            (recorded_gitea(Day::First), recorded_gitea(Day::Second), 10),
        ] {
            let (first, second) = (first.unwrap(), second.unwrap());
            let issues = |s: &Scenario| s.repos[RECORDED_REPO].issues.clone();
            assert!(!issues(&first).iter().any(|i| number_of(i) == Some(held)));
            assert!(issues(&second).iter().any(|i| number_of(i) == Some(held)));
            // Every edit moves `updated_at` to the edit's instant, and
            // nothing else is touched.
            let edited: Vec<u64> = issues(&second)
                .iter()
                .chain(&second.repos[RECORDED_REPO].merge_requests)
                .filter(|i| i["updated_at"] == EDITED_AT)
                .filter_map(number_of)
                .collect();
            assert_eq!(edited.len(), 3, "{edited:?}");
        }
        // Gitea's pull requests are served with their merge state.
        let gitea = recorded_gitea(Day::First).unwrap();
        let twelve = gitea.repos[RECORDED_REPO]
            .issues
            .iter()
            .find(|i| i["number"] == 12)
            .unwrap();
        assert_eq!(twelve["pull_request"]["merged"], true);
        assert_eq!(twelve["title"], "Dont Touch");
    }
}
