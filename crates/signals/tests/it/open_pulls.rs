//! The open pull request count from the store, with the
//! real binary against the loopback test host: once the store holds a
//! repository's whole history, runs count the open pull requests locally
//! (no `pulls?state=open&per_page=1` request) and equal the host's after
//! opens, closes, merges and reopens; a reconcile checks the count against
//! the host's, and one that finds a difference records it and switches the
//! repository to asking.

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_store::{PullsKept, Reads};
use signals_testhost::{Scenario, TestHost, synthetic};

use crate::support::{TempDir, read_json, run, show};

const REPO: &str = "o/r";
const COUNT_PATH: &str = "/pulls?state=open&per_page=1";

/// Open issues and open pull requests of the scenario's issues list.
fn open_counts(s: &Scenario) -> (u64, u64) {
    let issues = &s.repos[REPO].issues;
    let open = |pull: bool| {
        issues
            .iter()
            .filter(|i| i["state"] == "open" && i.get("pull_request").is_some() == pull)
            .count() as u64
    };
    (open(false), open(true))
}

/// `open_issues_count` as GitHub counts it: issues and pull requests.
fn recount(s: &mut Scenario) {
    let (issues, pulls) = open_counts(s);
    s.repos.get_mut(REPO).unwrap().repo["open_issues_count"] = (issues + pulls).into();
}

fn now_text() -> String {
    Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The entry of pull request `number`.
fn pull(s: &mut Scenario, number: u64) -> &mut Value {
    s.repos
        .get_mut(REPO)
        .unwrap()
        .issues
        .iter_mut()
        .find(|i| i["number"] == number)
        .unwrap()
}

/// Pull request numbers by state in the synthetic repository of 30 items:
/// the first open one, the first closed and not merged.
fn pick(s: &Scenario, open: bool) -> Vec<u64> {
    s.repos[REPO]
        .issues
        .iter()
        .filter(|i| i.get("pull_request").is_some())
        .filter(|i| (i["state"] == "open") == open)
        .filter(|i| open || i["pull_request"]["merged_at"].is_null())
        .map(|i| i["number"].as_u64().unwrap())
        .collect()
}

struct Setup {
    dir: TempDir,
    host: TestHost,
    scenario: Scenario,
}

impl Setup {
    fn new(name: &str) -> Setup {
        let start = Timestamp::now() - SignedDuration::from_hours(72);
        let mut scenario = synthetic(REPO, 30, start);
        recount(&mut scenario);
        let host = TestHost::start(scenario.clone()).unwrap();
        let dir = TempDir::new(name);
        std::fs::write(
            dir.path().join("signals.toml"),
            crate::support::config(&host.api_url(), &[REPO], ""),
        )
        .unwrap();
        Setup {
            dir,
            host,
            scenario,
        }
    }

    /// Collects (with `args`), and returns how many count requests the
    /// run sent.
    fn collect(&self, args: &[&str]) -> usize {
        let before = self.host.requests().len();
        let mut all = vec!["collect", "--quiet"];
        all.extend_from_slice(args);
        let out = run(self.dir.path(), &all, &[]);
        assert!(out.status.success(), "{}", show(&out));
        self.host.requests()[before..]
            .iter()
            .filter(|r| r.path.contains(COUNT_PATH))
            .count()
    }

    fn kept(&self) -> PullsKept {
        let store = signals_store_sqlite::Store::open(self.dir.path().join("signals.db")).unwrap();
        let key = store.repositories().unwrap()[0].key;
        store.kept_pulls(key).unwrap()
    }

    /// The exported dataset's `openIssues`.
    fn open_issues(&self) -> u64 {
        let out = run(self.dir.path(), &["export", "--quiet"], &[]);
        assert!(out.status.success(), "{}", show(&out));
        let doc = read_json(&self.dir.path().join("site/g/r/dataset.json"));
        doc["dataset"]["context"]["openIssues"].as_u64().unwrap()
    }

    fn publish(&mut self) {
        recount(&mut self.scenario);
        self.host.set_scenario(self.scenario.clone());
    }
}

#[test]
fn the_local_open_pull_count_equals_the_hosts_after_opens_closes_merges_and_reopens() {
    let mut s = Setup::new("openpr-local");
    // The first run reaches the repository's creation: no count asked.
    assert_eq!(s.collect(&[]), 0);
    let (issues, pulls) = open_counts(&s.scenario);
    assert!(pulls >= 3, "{pulls}");
    assert_eq!(s.kept().count, Some(pulls));
    assert_eq!(s.open_issues(), issues);

    // On the host: one pull request opened, one closed, one merged, and
    // an issue closed, all updated now (a second after the run: the
    // host's times are whole seconds).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let at = now_text();
    let open = pick(&s.scenario, true);
    assert!(open.len() >= 2, "{open:?}");
    for (number, merged) in [(open[0], false), (open[1], true)] {
        let p = pull(&mut s.scenario, number);
        p["state"] = "closed".into();
        p["closed_at"] = at.clone().into();
        p["updated_at"] = at.clone().into();
        if merged {
            p["pull_request"]["merged_at"] = at.clone().into();
        }
    }
    let issue = s
        .scenario
        .repos
        .get_mut(REPO)
        .unwrap()
        .issues
        .iter_mut()
        .find(|i| i.get("pull_request").is_none() && i["state"] == "open")
        .unwrap();
    issue["state"] = "closed".into();
    issue["closed_at"] = at.clone().into();
    issue["updated_at"] = at.clone().into();
    let mut new = s.scenario.repos[REPO].issues[open[0] as usize - 1].clone();
    new["number"] = 31.into();
    new["id"] = 1_000_031.into();
    new["state"] = "open".into();
    new["closed_at"] = Value::Null;
    new["created_at"] = at.clone().into();
    new["updated_at"] = at.clone().into();
    s.scenario.repos.get_mut(REPO).unwrap().issues.push(new);
    s.publish();
    let (issues, pulls_now) = open_counts(&s.scenario);
    assert_eq!(pulls_now, pulls - 2 + 1);
    assert_eq!(s.collect(&[]), 0, "a run after changes counts locally");
    assert_eq!(s.kept().count, Some(pulls_now));
    assert_eq!(s.open_issues(), issues);

    // The closed one is reopened.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let at = now_text();
    let p = pull(&mut s.scenario, open[0]);
    p["state"] = "open".into();
    p["closed_at"] = Value::Null;
    p["updated_at"] = at.into();
    s.publish();
    let (issues, pulls_now) = open_counts(&s.scenario);
    assert_eq!(pulls_now, pulls);
    assert_eq!(s.collect(&[]), 0);
    assert_eq!(s.kept().count, Some(pulls_now));
    assert_eq!(s.open_issues(), issues);

    // A reconcile asks, and the counts agree: the count stays local.
    assert_eq!(s.collect(&["--reconcile"]), 1);
    assert_eq!(
        s.kept(),
        PullsKept {
            count: Some(pulls_now),
            differed: None
        }
    );
    assert_eq!(s.collect(&[]), 0);
    assert_eq!(s.open_issues(), issues);
}

#[test]
fn a_reconcile_that_finds_a_difference_switches_to_asking() {
    let mut s = Setup::new("openpr-differ");
    assert_eq!(s.collect(&[]), 0);
    let (issues, pulls) = open_counts(&s.scenario);
    assert_eq!(s.kept().count, Some(pulls));

    // The host's pulls list holds one open pull request more than its
    // issues list shows (what the issues list cannot see).
    let data = s.scenario.repos.get_mut(REPO).unwrap();
    let mut objects = data.pull_objects();
    let mut hidden = objects[0].clone();
    hidden["number"] = 99.into();
    hidden["state"] = "open".into();
    hidden["merged_at"] = Value::Null;
    objects.push(hidden);
    data.pulls = objects;
    s.publish();
    let host_pulls = pulls + 1;
    s.scenario.repos.get_mut(REPO).unwrap().repo["open_issues_count"] = json!(issues + host_pulls);
    s.host.set_scenario(s.scenario.clone());

    // A normal run trusts the store (and is off by the one it cannot see).
    assert_eq!(s.collect(&[]), 0);
    assert_eq!(s.open_issues(), issues + 1);
    // The reconcile asks, finds the difference, records it.
    assert_eq!(s.collect(&["--reconcile"]), 1);
    let kept = s.kept();
    assert_eq!(kept.count, None);
    let differed = kept.differed.expect("the difference is recorded");
    assert!(
        differed.starts_with(&format!("kept {pulls}, host {host_pulls} at ")),
        "{differed}"
    );
    assert_eq!(s.open_issues(), issues);
    // From then on every run whose lists changed asks.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let at = now_text();
    let number = pick(&s.scenario, true)[0];
    let p = pull(&mut s.scenario, number);
    p["title"] = "Renamed".into();
    p["updated_at"] = at.into();
    s.host.set_scenario(s.scenario.clone());
    assert_eq!(s.collect(&[]), 1);
    assert_eq!(s.kept().count, None);
    assert_eq!(s.open_issues(), issues);
}
