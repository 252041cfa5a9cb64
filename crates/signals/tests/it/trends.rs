//! Trends end to end: a test host repository whose items have
//! known creation, close and merge times (weeks at their edges: Monday
//! 00:00:00 exactly, Sunday 23:59:59; a reopened issue; pull requests
//! merged and closed unmerged; stable and pre-releases), collected twice
//! by the real binary and exported. Every number of `trends.json` is
//! compared with one computed here, independently, from the scenario.

use jiff::{SignedDuration, Timestamp, ToSpan};
use serde_json::{Value, json};
use signals_testhost::{Scenario, TestHost, synthetic};

use crate::support::{TempDir, config, read_json, run, show};

const WEEK: i64 = 7 * 24 * 3600;

/// An item of the scenario: what the host says of it.
#[derive(Clone)]
struct Spec {
    number: u64,
    pull: bool,
    created: Timestamp,
    closed: Option<Timestamp>,
    merged: bool,
    reactions: u64,
}

impl Spec {
    fn updated(&self) -> Timestamp {
        self.closed.unwrap_or(self.created) + SignedDuration::from_secs(60)
    }
}

/// This week's Monday 00:00 UTC, computed without the code under test.
fn this_monday(now: Timestamp) -> Timestamp {
    let date = now.to_zoned(jiff::tz::TimeZone::UTC).date();
    let mut monday = date;
    while monday.weekday() != jiff::civil::Weekday::Monday {
        monday = monday.checked_sub(1.day()).unwrap();
    }
    monday
        .to_zoned(jiff::tz::TimeZone::UTC)
        .unwrap()
        .timestamp()
}

fn specs(m0: Timestamp) -> Vec<Spec> {
    let at = |secs: i64| m0 + SignedDuration::from_secs(secs);
    let issue = |number, created, closed| Spec {
        number,
        pull: false,
        created,
        closed,
        merged: false,
        reactions: 0,
    };
    let pull = |number, created, closed, merged| Spec {
        number,
        pull: true,
        created,
        closed,
        merged,
        reactions: 0,
    };
    vec![
        // Opened on a Monday at 00:00:00 exactly, closed on that week's
        // Sunday at 23:59:59: both in the same week.
        issue(1, at(-3 * WEEK), Some(at(-2 * WEEK - 1))),
        issue(2, at(-2 * WEEK), None),
        issue(3, at(-10 * WEEK + 3 * 86_400), Some(at(-WEEK + 2 * 3600))),
        pull(4, at(-5 * WEEK), Some(at(-4 * WEEK - 1)), true),
        pull(5, at(-4 * WEEK), Some(at(-4 * WEEK)), false),
        pull(6, at(-WEEK + 5 * 3600), None, false),
        // Reopened before the second run (see `reopen`).
        issue(7, at(-6 * WEEK), Some(at(-3 * WEEK + 86_400))),
        issue(8, at(-20 * WEEK + 7), Some(at(-12 * WEEK + 11))),
        // Older than the 26 weeks, still open: in every backlog.
        issue(9, at(-40 * WEEK), None),
        issue(10, at(-WEEK - 3600), Some(at(-WEEK - 60))),
        pull(11, at(-30 * WEEK), Some(at(-25 * WEEK + 5)), true),
    ]
}

fn ts(t: Timestamp) -> String {
    format!("{:.0}", t)
}

/// The scenario: the specs as GitHub issue-list entries, two releases.
fn scenario(specs: &[Spec], m0: Timestamp, stars: u64) -> Scenario {
    let mut s = synthetic("o/t", 1, m0 - SignedDuration::from_secs(50 * WEEK));
    let data = s.repos.get_mut("o/t").unwrap();
    data.repo["stargazers_count"] = json!(stars);
    data.issues = specs
        .iter()
        .map(|spec| {
            let n = spec.number;
            let mut e = json!({
                "url": format!("https://api.github.com/repos/o/t/issues/{n}"),
                "html_url": format!("https://github.com/o/t/issues/{n}"),
                "id": 1_000 + n,
                "number": n,
                "title": format!("Item {n}"),
                "user": { "login": "someone" },
                "labels": [],
                "state": if spec.closed.is_some() { "closed" } else { "open" },
                "comments": 0,
                "created_at": ts(spec.created),
                "updated_at": ts(spec.updated()),
                "closed_at": spec.closed.map(ts),
                "body": format!("Body {n}"),
                "reactions": { "total_count": spec.reactions },
            });
            if spec.pull {
                e["pull_request"] = json!({
                    "merged_at": if spec.merged { json!(spec.closed.map(ts)) } else { Value::Null },
                });
            }
            e
        })
        .collect();
    let release = |tag: &str, prerelease: bool, at: Timestamp| {
        json!({
            "url": format!("https://api.github.com/repos/o/t/releases/{tag}"),
            "html_url": format!("https://github.com/o/t/releases/tag/{tag}"),
            "id": 9_000 + at.as_second() % 1000,
            "tag_name": tag,
            "name": tag,
            "draft": false,
            "prerelease": prerelease,
            "created_at": ts(at),
            "published_at": ts(at),
            "author": { "login": "maintainer" },
            "body": "Notes",
        })
    };
    data.releases = vec![
        release("v2.0.0-rc1", true, m0 - SignedDuration::from_secs(WEEK)),
        release(
            "v1.1.0",
            false,
            m0 - SignedDuration::from_secs(2 * WEEK - 86_400),
        ),
    ];
    data.milestones = vec![];
    s
}

/// Week counts computed from the specs, as the issue defines them.
fn expected_weeks(
    specs: &[Spec],
    releases: &[(bool, Timestamp)],
    m0: Timestamp,
    instant: Timestamp,
    (coverage, read_from): (Timestamp, Timestamp),
) -> Vec<Value> {
    let seen: Vec<&Spec> = specs.iter().filter(|s| s.updated() >= coverage).collect();
    (0..26)
        .map(|w| {
            let start = m0 - SignedDuration::from_secs((25 - w) * WEEK);
            let end = if w == 25 {
                instant + SignedDuration::from_nanos(1)
            } else {
                start + SignedDuration::from_secs(WEEK)
            };
            let within = |t: Timestamp| start <= t && t < end && t <= instant;
            let count = |f: &dyn Fn(&&Spec) -> bool| seen.iter().filter(|s| f(s)).count() as u64;
            let mut hours: Vec<f64> = seen
                .iter()
                .filter(|s| !s.pull && s.closed.is_some_and(within))
                .map(|s| (s.closed.unwrap() - s.created).get_seconds() as f64 / 3600.0)
                .collect();
            hours.sort_by(f64::total_cmp);
            let median = match hours.len() {
                0 => Value::Null,
                n if n % 2 == 1 => json!((hours[n / 2] * 10.0).round() / 10.0),
                n => json!(((hours[n / 2 - 1] + hours[n / 2]) / 2.0 * 10.0).round() / 10.0),
            };
            let open_at_end = |pull: bool| {
                if end <= coverage {
                    return Value::Null;
                }
                json!(count(&|s| s.pull == pull
                    && s.created < end
                    && s.closed.is_none_or(|c| c >= end)))
            };
            let mut week = json!({
                "start": start.to_zoned(jiff::tz::TimeZone::UTC).date().to_string(),
                "issuesOpened": count(&|s| !s.pull && within(s.created)),
                "issuesClosed": count(&|s| !s.pull && s.closed.is_some_and(within)),
                "pullsOpened": count(&|s| s.pull && within(s.created)),
                "pullsMerged": count(&|s| s.pull && s.merged && s.closed.is_some_and(within)),
                "pullsClosedUnmerged": count(&|s| s.pull && !s.merged && s.closed.is_some_and(within)),
                "releases": releases.iter().filter(|(stable, at)| *stable && *at >= coverage && within(*at)).count(),
                "openIssuesAtEnd": open_at_end(false),
                "openPullsAtEnd": open_at_end(true),
                "medianHoursToClose": median,
            });
            // The scenario has no comments, so nothing opened got a first
            // response; a pull request opened before the oldest comments
            // read (the first run less 90 days) may have had a review, so
            // its first response is not known.
            let opened = week["issuesOpened"].as_u64().unwrap() + week["pullsOpened"].as_u64().unwrap();
            let unknown = count(&|s| s.pull && within(s.created) && s.created < read_from);
            week["firstResponseMedianHours"] = Value::Null;
            week["firstResponseP90Hours"] = Value::Null;
            week["answeredWithin2Days"] = if opened > unknown { json!(0.0) } else { Value::Null };
            week["firstResponseUnknown"] = json!(unknown);
            // Its releases carry no assets: no downloads.
            week["downloads"] = json!(0);
            if start < coverage {
                week["partial"] = json!(true);
            }
            week
        })
        .collect()
}

fn collect(dir: &std::path::Path) {
    let out = run(dir, &["collect", "--quiet"], &[]);
    assert!(out.status.success(), "{}", show(&out));
}

#[test]
fn trends_json_equals_an_independent_count_of_the_scenario() {
    let now = Timestamp::now();
    let m0 = this_monday(now);
    let first = specs(m0);
    let host = TestHost::start(scenario(&first, m0, 100)).unwrap();
    let releases = [
        (false, m0 - SignedDuration::from_secs(WEEK)),
        (true, m0 - SignedDuration::from_secs(2 * WEEK - 86_400)),
    ];

    // Two stores: one that saw everything (backfill far back), one whose
    // coverage starts 100 days ago, so its early weeks are partial.
    for (name, backfill) in [("full", 36_500), ("recent", 100)] {
        let dir = TempDir::new(&format!("trends-{name}"));
        let text = config(&host.api_url(), &["o/t"], "").replace(
            "backfill_days = 36500",
            &format!("backfill_days = {backfill}"),
        );
        std::fs::write(dir.path().join("signals.toml"), text).unwrap();
        host.set_scenario(scenario(&first, m0, 100));
        collect(dir.path());

        // The second run: issue #7 reopened (open, no close time), items 2
        // and 3 gained reactions, more stars.
        let mut second = first.clone();
        let reopened = second.iter_mut().find(|s| s.number == 7).unwrap();
        reopened.closed = None;
        reopened.created = m0 - SignedDuration::from_secs(6 * WEEK);
        second.iter_mut().find(|s| s.number == 2).unwrap().reactions = 5;
        second.iter_mut().find(|s| s.number == 3).unwrap().reactions = 9;
        let mut scenario2 = scenario(&second, m0, 140);
        // The reopened issue was updated now, so the `since` query returns it.
        let recent = ts(Timestamp::now());
        for e in scenario2.repos.get_mut("o/t").unwrap().issues.iter_mut() {
            if [2, 3, 7].contains(&e["number"].as_u64().unwrap()) {
                e["updated_at"] = json!(recent);
            }
        }
        host.set_scenario(scenario2);
        std::thread::sleep(std::time::Duration::from_millis(1100));
        collect(dir.path());
        let out = run(dir.path(), &["export", "--quiet"], &[]);
        assert!(out.status.success(), "{}", show(&out));

        let path = dir.path().join("site/g/t/trends.json");
        let trends = read_json(&path);
        let out = run(dir.path(), &["validate", path.to_str().unwrap()], &[]);
        assert!(out.status.success(), "{}", show(&out));
        let instant: Timestamp = trends["instant"].as_str().unwrap().parse().unwrap();
        let coverage: Timestamp = trends["coverageStart"].as_str().unwrap().parse().unwrap();
        if backfill == 100 {
            assert!(
                coverage > m0 - SignedDuration::from_secs(26 * WEEK),
                "{coverage}"
            );
        }
        assert_eq!(trends["schemaVersion"], 1);
        assert_eq!(trends["repository"], "o/t");
        let dataset = read_json(&dir.path().join("site/g/t/dataset.json"));
        let first_run: Timestamp = dataset["dataset"]["runs"][0]["collectedAt"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let read_from = first_run - SignedDuration::from_hours(24 * 90);
        let expected = expected_weeks(&second, &releases, m0, instant, (coverage, read_from));
        let weeks = trends["weeks"].as_array().unwrap();
        assert_eq!(weeks.len(), 26);
        for (w, (got, want)) in weeks.iter().zip(&expected).enumerate() {
            // The weeks' contributors are recounted by `contributors.rs`.
            let mut got = got.clone();
            for key in [
                "newContributors",
                "returningContributors",
                "contributorsSource",
            ] {
                assert!(got.as_object_mut().unwrap().remove(key).is_some(), "{key}");
            }
            assert_eq!(&got, want, "{name}: week {w}");
        }
        // The reopened issue is closed in no week; issue #1 (Monday 00:00
        // to Sunday 23:59:59) opened and closed in week 22.
        assert_eq!(weeks[22]["issuesOpened"], 1, "{name}");
        if backfill == 36_500 {
            assert_eq!(weeks[22]["issuesClosed"], 1);
            let partial = weeks.iter().filter(|w| w.get("partial").is_some()).count();
            assert_eq!(partial, 0);
        } else {
            assert!(weeks[0]["partial"] == true && weeks[0]["openIssuesAtEnd"].is_null());
        }

        // Both runs fell on one day: one context point, the second run's.
        let context = trends["context"].as_array().unwrap();
        assert_eq!(context.len(), 1, "{name}");
        assert_eq!(context[0]["stars"], 140);

        // Rising: item 3 grew by 9, item 2 by 5 (first seen within the 7
        // days, so from their first snapshot); nothing else grew.
        let rising: Vec<(String, u64, u64)> = trends["rising"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["id"].as_str().unwrap().to_string(),
                    r["from"].as_u64().unwrap(),
                    r["to"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            rising,
            vec![
                ("github:o/t:issue:3".to_string(), 0, 9),
                ("github:o/t:issue:2".to_string(), 0, 5),
            ],
            "{name}"
        );
    }
}
