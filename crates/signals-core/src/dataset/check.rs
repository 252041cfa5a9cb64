//! What a JSON Schema cannot express about a v3 document (ordering,
//! equalities between fields, id structure), checked over any JSON.
//!
//! It reads a [`Value`], not a [`Document`](super::Document), so a
//! document written by an older export or by hand is checked as it is.
//! Values of the wrong type are skipped here (the schema reports them),
//! so a check never panics.

use std::collections::HashSet;

use jiff::{SignedDuration, Timestamp, tz::TimeZone};
use serde_json::Value;

/// One problem found in a document, located by a JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// RFC 6901 pointer to the offending value (`""` for the whole document).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {}", self.message)
    }
}

/// Checks the invariants a JSON Schema cannot express. Values of the wrong
/// type are skipped here (the schema reports them), so this never panics on
/// any JSON.
///
/// - signal ids are unique and sorted ascending by byte;
/// - a signal id is `<source>:<project>:<kind>:<key>` with its own fields
///   (and `<key>` = `tag` for a release);
/// - `timestamp` equals `updatedAt`;
/// - each signal's `group` and `project` are the dataset's;
/// - `changedCount <= observedCount`;
/// - `since` is at least 24 hours before `collectedAt`;
/// - runs are in collection order;
/// - `date` is the UTC date of the latest run.
///
/// Problems are listed in document order: the runs, the date, then each
/// signal in turn.
pub fn check_invariants(doc: &Value) -> Vec<Problem> {
    let mut problems = Problems::default();
    let dataset = &doc["dataset"];
    let runs = array(&dataset["runs"]);
    check_runs(runs, &mut problems);
    check_date(runs, &dataset["date"], &mut problems);
    let owner = Owner {
        group: dataset["group"]["id"].as_str(),
        project: dataset["repository"]["repo"].as_str(),
    };
    let mut order = IdOrder::default();
    for (i, s) in array(&dataset["signals"]).iter().enumerate() {
        let p = format!("/dataset/signals/{i}");
        let Some(id) = s["id"].as_str() else { continue };
        order.check(&p, id, &mut problems);
        check_id_structure(&p, id, s, &mut problems);
        check_signal_fields(&p, s, &owner, &mut problems);
    }
    problems.0
}

/// The problems found so far.
#[derive(Default)]
struct Problems(Vec<Problem>);

impl Problems {
    fn add(&mut self, pointer: String, message: String) {
        self.0.push(Problem { pointer, message });
    }
}

/// The elements of a JSON array; none for any other value.
fn array(v: &Value) -> &[Value] {
    v.as_array().map(Vec::as_slice).unwrap_or_default()
}

fn parse_ts(v: &Value) -> Option<Timestamp> {
    v.as_str()?.parse().ok()
}

/// Each run: `changedCount <= observedCount`, `since` a day or more
/// before `collectedAt`, and the runs in collection order.
fn check_runs(runs: &[Value], problems: &mut Problems) {
    let mut previous_at: Option<Timestamp> = None;
    for (i, run) in runs.iter().enumerate() {
        let p = format!("/dataset/runs/{i}");
        if let (Some(observed), Some(changed)) =
            (run["observedCount"].as_u64(), run["changedCount"].as_u64())
            && changed > observed
        {
            problems.add(
                format!("{p}/changedCount"),
                format!("changedCount {changed} is greater than observedCount {observed}"),
            );
        }
        let at = parse_ts(&run["collectedAt"]);
        if let (Some(at), Some(since)) = (at, parse_ts(&run["since"]))
            && at.duration_since(since) < SignedDuration::from_hours(24)
        {
            problems.add(
                format!("{p}/since"),
                "since must be at least 24 hours before collectedAt".to_string(),
            );
        }
        if let (Some(at), Some(prev)) = (at, previous_at)
            && at <= prev
        {
            problems.add(
                format!("{p}/collectedAt"),
                "runs must be in collection order (collectedAt ascending)".to_string(),
            );
        }
        previous_at = at.or(previous_at);
    }
}

/// `date` is the UTC date of the latest run.
fn check_date(runs: &[Value], date: &Value, problems: &mut Problems) {
    if let (Some(last), Some(date)) = (
        runs.last().and_then(|r| parse_ts(&r["collectedAt"])),
        date.as_str(),
    ) {
        let want = last.to_zoned(TimeZone::UTC).date().to_string();
        if date != want {
            problems.add(
                "/dataset/date".to_string(),
                format!("date {date:?} is not the UTC date of the latest run ({want})"),
            );
        }
    }
}

/// Signal ids seen so far: each must be new, and not sort before the last.
#[derive(Default)]
struct IdOrder<'a> {
    seen: HashSet<&'a str>,
    previous: Option<&'a str>,
}

impl<'a> IdOrder<'a> {
    fn check(&mut self, p: &str, id: &'a str, problems: &mut Problems) {
        if !self.seen.insert(id) {
            problems.add(format!("{p}/id"), format!("duplicate signal id {id:?}"));
        }
        if let Some(prev) = self.previous
            && prev.as_bytes() > id.as_bytes()
        {
            problems.add(
                format!("{p}/id"),
                format!("signals are not ordered by id: {prev:?} comes before {id:?}"),
            );
        }
        self.previous = Some(id);
    }
}

/// A signal id is `<source>:<project>:<kind>:<key>` of the signal's own
/// fields, with a key, which for a release is its tag.
fn check_id_structure(p: &str, id: &str, s: &Value, problems: &mut Problems) {
    let (Some(source), Some(proj), Some(kind)) = (
        s["source"].as_str(),
        s["project"].as_str(),
        s["kind"].as_str(),
    ) else {
        return;
    };
    let prefix = format!("{source}:{proj}:{kind}:");
    match id.strip_prefix(&prefix) {
        None => problems.add(
            format!("{p}/id"),
            format!("id {id:?} does not start with source:project:kind: ({prefix:?})"),
        ),
        Some("") => problems.add(format!("{p}/id"), format!("id {id:?} has an empty key")),
        Some(key) => {
            if kind == "release"
                && let Some(tag) = s["tag"].as_str()
                && tag != key
            {
                problems.add(
                    format!("{p}/id"),
                    format!("release id key {key:?} is not its tag {tag:?}"),
                );
            }
        }
    }
}

/// The dataset's group and repository, which each signal must name.
struct Owner<'a> {
    group: Option<&'a str>,
    project: Option<&'a str>,
}

/// `timestamp` equals `updatedAt`, and `group` and `project` are the
/// dataset's.
fn check_signal_fields(p: &str, s: &Value, owner: &Owner<'_>, problems: &mut Problems) {
    if let (Some(ts), Some(updated)) = (s["timestamp"].as_str(), s["updatedAt"].as_str())
        && ts != updated
    {
        problems.add(
            format!("{p}/timestamp"),
            format!("timestamp {ts:?} differs from updatedAt {updated:?}"),
        );
    }
    if let (Some(want), Some(got)) = (owner.group, s["group"].as_str())
        && want != got
    {
        problems.add(
            format!("{p}/group"),
            format!("group {got:?} is not the dataset's group {want:?}"),
        );
    }
    if let (Some(want), Some(got)) = (owner.project, s["project"].as_str())
        && want != got
    {
        problems.add(
            format!("{p}/project"),
            format!("project {got:?} is not the dataset's repository {want:?}"),
        );
    }
}
