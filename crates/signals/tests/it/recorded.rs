//! Answers real servers sent, collected on the default configuration: the
//! comment lists, review comments and reviews GitHub answered to
//! octokit.rb's and github3.py's test suites (MIT and BSD-3-Clause; the
//! files, their sources and licenses are listed in
//! `crates/signals-github/tests/data/SOURCES.md`), served unchanged but
//! for their times by the loopback host, with the items recorded with
//! them.
//!
//! - octokit/octokit.rb: the repository-wide `issues/comments` (its first
//!   page) and `pulls/comments` answers. No recording lists the issues
//!   and pull requests they are on, so the host lists no item: every
//!   comment the run reads is on an item it did not list, which a first
//!   run on the defaults meets on any active repository.
//! - sigmavirus24/github3.py: issue #187 and pull request #235 as
//!   `issues/{n}` answered them, with their comments and review comments
//!   (the per-item lists hold the objects the repository-wide lists hold);
//!   pull request #671 as `pulls/671` answered it, whose issue-list entry is
//!   made in this test from that object (no recording of it in issue form
//!   exists), with its reviews. Reviews are recorded from REST only: the
//!   host serves them as the GraphQL nodes the collector asks, field for
//!   field.
//!
//! The recordings are years old and the default windows read only recent
//! activity (items a day back on a first run, comments 90 days), so the
//! test moves every timestamp of a recorded conversation by one offset:
//! the octokit.rb lists so that their newest comment falls three days
//! before now; each github3.py item with its answers so that its last
//! update falls an hour before now. A github3.py item was updated (closed)
//! months after its conversation, so one offset for the whole repository
//! would leave all but one of them outside the windows, and a later one
//! would put items in the future. Distances within a conversation, which
//! first responses measure, are kept; the data files are not changed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use jiff::{SignedDuration, Timestamp};
use serde_json::{Map, Value, json};
use signals_store::{CommentStore, Reads};
use signals_store_sqlite::Store;
use signals_testhost::{RepoData, Scenario, TestHost};

use crate::support::{TempDir, read_json, run, show};

const TOKEN: (&str, &str) = ("GITHUB_TOKEN", "tok");
const OCTOKIT: &str = "octokit/octokit.rb";
const GITHUB3: &str = "sigmavirus24/github3.py";

/// The defaults' windows of a first run: items, then comments.
const ITEMS_BACK: SignedDuration = SignedDuration::from_hours(24);
const COMMENTS_BACK: SignedDuration = SignedDuration::from_hours(24 * 90);

fn recorded(file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../signals-github/tests/data")
        .join(file);
    read_json(&path)
}

fn list(file: &str) -> Vec<Value> {
    match recorded(file) {
        Value::Array(entries) => entries,
        other => panic!("{file} is no list: {other}"),
    }
}

fn fmt(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A time as GitHub writes them (`2014-05-02T20:29:46Z`); other strings,
/// bodies included, are none.
fn timestamp(s: &str) -> Option<Timestamp> {
    let shaped = s.len() == 20 && s.as_bytes()[10] == b'T' && s.ends_with('Z');
    shaped.then(|| s.parse().ok()).flatten()
}

fn at(v: &Value, field: &str) -> Timestamp {
    v[field]
        .as_str()
        .and_then(timestamp)
        .unwrap_or_else(|| panic!("no time `{field}` in {v}"))
}

/// Every time in `v`, moved by `by`.
fn shift(v: &mut Value, by: SignedDuration) {
    match v {
        Value::String(s) => {
            if let Some(t) = timestamp(s) {
                *s = fmt(t + by);
            }
        }
        Value::Array(entries) => entries.iter_mut().for_each(|e| shift(e, by)),
        Value::Object(fields) => fields.values_mut().for_each(|e| shift(e, by)),
        _ => {}
    }
}

/// Recorded items and their answers, moved in time together.
#[derive(Default)]
struct Conversation {
    /// Issue-list entries.
    items: Vec<Value>,
    /// Pull-request objects (`pulls/{n}`).
    pulls: Vec<Value>,
    comments: Vec<Value>,
    review_comments: Vec<Value>,
    /// REST reviews by pull request number.
    reviews: BTreeMap<u64, Vec<Value>>,
}

impl Conversation {
    /// The newest instant it records: an item's last update, a comment's
    /// creation or edit, a review's submission.
    fn newest(&self) -> Timestamp {
        let items = self.items.iter().map(|i| at(i, "updated_at"));
        let comments = self
            .comments
            .iter()
            .chain(&self.review_comments)
            .flat_map(|c| [at(c, "created_at"), at(c, "updated_at")]);
        let reviews = self
            .reviews
            .values()
            .flatten()
            .map(|r| at(r, "submitted_at"));
        items.chain(comments).chain(reviews).max().unwrap()
    }

    /// The same, every time moved so that the newest falls at `to`.
    fn ending_at(mut self, to: Timestamp) -> Conversation {
        let by = to.duration_since(self.newest());
        let all = self.items.iter_mut().chain(&mut self.pulls);
        let all = all
            .chain(&mut self.comments)
            .chain(&mut self.review_comments);
        all.chain(self.reviews.values_mut().flatten())
            .for_each(|v| shift(v, by));
        self
    }

    fn join(mut self, other: Conversation) -> Conversation {
        self.items.extend(other.items);
        self.pulls.extend(other.pulls);
        self.comments.extend(other.comments);
        self.review_comments.extend(other.review_comments);
        self.reviews.extend(other.reviews);
        self
    }

    /// What the host serves: the REST reviews as GraphQL review nodes.
    fn serve(&self, repo: Value) -> RepoData {
        let reviews = self
            .reviews
            .iter()
            .map(|(n, rs)| (n.to_string(), rs.iter().map(review_node).collect()))
            .collect();
        RepoData {
            repo,
            issues: self.items.clone(),
            pulls: self.pulls.clone(),
            comments: self.comments.clone(),
            review_comments: self.review_comments.clone(),
            reviews,
            ..RepoData::default()
        }
    }
}

/// A REST review as the GraphQL node the collector asks, field for field.
fn review_node(r: &Value) -> Value {
    json!({
        "databaseId": r["id"], "state": r["state"], "body": r["body"],
        "submittedAt": r["submitted_at"], "authorAssociation": r["author_association"],
        "author": { "login": r["user"]["login"], "__typename": r["user"]["type"] },
    })
}

/// The issue-list entry of the pull request `pull` (a `pulls/{n}`
/// answer): the fields the two objects share, and `pull_request` with
/// its URLs and merge time, as GitHub lists a pull request among issues.
fn issue_entry(pull: &Value) -> Value {
    let mut entry = Map::new();
    for key in [
        "number",
        "title",
        "user",
        "labels",
        "state",
        "locked",
        "assignee",
        "assignees",
        "milestone",
        "comments",
        "created_at",
        "updated_at",
        "closed_at",
        "author_association",
        "body",
        "html_url",
    ] {
        entry.insert(key.into(), pull[key].clone());
    }
    let mut pull_request = Map::new();
    for key in ["url", "html_url", "diff_url", "patch_url", "merged_at"] {
        pull_request.insert(key.into(), pull[key].clone());
    }
    entry.insert("pull_request".into(), Value::Object(pull_request));
    Value::Object(entry)
}

/// octokit.rb's repository-wide lists, their newest comment three days
/// before `now`: of 60 comments, those edited in the 90 days before it
/// are read, on items no recording lists.
fn octokit(now: Timestamp) -> Conversation {
    Conversation {
        comments: list("issues_comments.octokit_octokit.rb.json"),
        review_comments: list("pulls_comments.octokit_octokit.rb.json"),
        ..Conversation::default()
    }
    .ending_at(now - SignedDuration::from_hours(72))
}

/// github3.py's three recorded conversations, each item last updated an
/// hour before `now`, when it was closed: #187's comments fall eleven
/// months before, #235's replies 84 days before, #671's reviews nine
/// months before (its issue comments were not recorded).
fn github3(now: Timestamp) -> Conversation {
    let end = now - SignedDuration::from_hours(1);
    let issue = Conversation {
        items: vec![recorded("issue.sigmavirus24_github3.py.187.json")],
        comments: list("issue_comments.sigmavirus24_github3.py.187.json"),
        ..Conversation::default()
    };
    let pull = Conversation {
        items: vec![recorded("issue.sigmavirus24_github3.py.235.json")],
        pulls: vec![recorded("pull.sigmavirus24_github3.py.235.json")],
        comments: list("issue_comments.sigmavirus24_github3.py.235.json"),
        review_comments: list("pull_comments.sigmavirus24_github3.py.235.json"),
        ..Conversation::default()
    };
    let reviewed = recorded("pull.sigmavirus24_github3.py.671.json");
    let reviewed = Conversation {
        items: vec![issue_entry(&reviewed)],
        pulls: vec![reviewed],
        reviews: BTreeMap::from([(671, list("pull_reviews.sigmavirus24_github3.py.671.json"))]),
        ..Conversation::default()
    };
    issue
        .ending_at(end)
        .join(pull.ending_at(end))
        .join(reviewed.ending_at(end))
}

/// A reply as docs/decisions.md ("Comments and first responses") reads
/// it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Reply {
    /// Its item's signal id.
    item: String,
    author: String,
    at: Timestamp,
    bot: bool,
    /// An issue comment, which the item's `comments` counts.
    counted: bool,
    body: String,
}

fn id(repo: &str, kind: &str, number: impl std::fmt::Display) -> String {
    format!("github:{repo}:{kind}:{number}")
}

/// The signal id of an issue-list entry.
fn item_id(repo: &str, item: &Value) -> String {
    let kind = match item.get("pull_request") {
        Some(_) => "pull_request",
        None => "issue",
    };
    id(repo, kind, &item["number"])
}

fn reply(item: String, entry: &Value, at: Timestamp, counted: bool) -> Reply {
    let by = &entry["user"];
    let author = by["login"].as_str().unwrap_or_default().to_string();
    Reply {
        bot: by["type"] == "Bot" || author.ends_with("[bot]"),
        item,
        author,
        at,
        counted,
        body: entry["body"].as_str().unwrap_or_default().to_string(),
    }
}

/// True when `body` names an item as `#N` or `owner/name#N` do.
fn names_an_item(body: &str) -> bool {
    body.as_bytes()
        .windows(2)
        .any(|w| w[0] == b'#' && w[1].is_ascii_digit())
}

/// The replies a first run at `now` reads of `c`: the comments and
/// review comments edited in the comment window (the lists are asked
/// since its start), and every review of a pull request it lists (reviews
/// are asked by pull request, not by date).
fn read(repo: &str, c: &Conversation, now: Timestamp) -> Vec<Reply> {
    let from = now - COMMENTS_BACK;
    let mut out = Vec::new();
    for comment in c.comments.iter().filter(|x| at(x, "updated_at") >= from) {
        // The web URL tells an issue from a pull request: `issue_url` names
        // both as issues.
        let web = comment["html_url"].as_str().unwrap();
        let (path, _) = web.split_once('#').unwrap();
        let (kind, number) = path.rsplit_once('/').unwrap();
        let kind = match kind.ends_with("/pull") {
            true => "pull_request",
            false => "issue",
        };
        let item = id(repo, kind, number);
        out.push(reply(item, comment, at(comment, "created_at"), true));
    }
    for comment in c
        .review_comments
        .iter()
        .filter(|x| at(x, "updated_at") >= from)
    {
        let api = comment["pull_request_url"].as_str().unwrap();
        let item = id(repo, "pull_request", api.rsplit('/').next().unwrap());
        out.push(reply(item, comment, at(comment, "created_at"), false));
    }
    let listed = listed(repo, c, now);
    for (number, reviews) in &c.reviews {
        let item = id(repo, "pull_request", number);
        if listed.contains(&item) {
            let submitted = reviews.iter().filter(|r| r["state"].is_string());
            out.extend(submitted.map(|r| reply(item.clone(), r, at(r, "submitted_at"), false)));
        }
    }
    out.sort();
    out
}

/// The items a first run at `now` lists: those updated in its window.
fn listed(repo: &str, c: &Conversation, now: Timestamp) -> BTreeSet<String> {
    c.items
        .iter()
        .filter(|i| at(i, "updated_at") >= now - ITEMS_BACK)
        .map(|i| item_id(repo, i))
        .collect()
}

/// The first response the definition gives `item` from `replies`:
/// `(state, by, hours)`.
fn first_response(
    repo: &str,
    item: &Value,
    replies: &[Reply],
    now: Timestamp,
) -> (&'static str, Option<(String, f64)>) {
    let id = item_id(repo, item);
    let mine: Vec<&Reply> = replies.iter().filter(|r| r.item == id).collect();
    let created = at(item, "created_at");
    let counted = mine.iter().filter(|r| r.counted).count() as u64;
    let unread = item["comments"].as_u64().unwrap() > counted;
    let pull = item.get("pull_request").is_some();
    if unread || (pull && created < now - COMMENTS_BACK) {
        return ("unknown", None);
    }
    let author = item["user"]["login"].as_str().unwrap();
    let first = mine
        .iter()
        .filter(|r| !r.bot && !r.author.eq_ignore_ascii_case(author))
        .min_by(|a, b| (a.at, &a.author).cmp(&(b.at, &b.author)));
    match first {
        None => ("none", None),
        Some(r) => {
            let seconds = r.at.duration_since(created).as_secs_f64().max(0.0);
            let hours = (seconds / 36.0).round() / 100.0;
            ("answered", Some((r.author.clone(), hours)))
        }
    }
}

/// No time the expectations rest on lies within half an hour of a
/// window's edge, or of the start of the edge's UTC day (where the lists
/// are asked from), so they do not depend on the run's exact instant.
fn clear_of_the_edges(c: &Conversation, now: Timestamp) {
    let day = |t: Timestamp| -> Timestamp {
        t.strftime("%Y-%m-%dT00:00:00Z")
            .to_string()
            .parse()
            .unwrap()
    };
    let edges = [now - ITEMS_BACK, now - COMMENTS_BACK];
    let edges = edges.into_iter().flat_map(|e| [e, day(e)]);
    let times = c
        .items
        .iter()
        .flat_map(|i| [at(i, "updated_at"), at(i, "created_at")]);
    let times: Vec<Timestamp> = times
        .chain(
            c.comments
                .iter()
                .chain(&c.review_comments)
                .map(|x| at(x, "updated_at")),
        )
        .collect();
    for edge in edges {
        for &t in &times {
            let apart = t.duration_since(edge).abs();
            assert!(apart > SignedDuration::from_mins(30), "{t} is near {edge}");
        }
    }
}

/// A configuration with only a host, a token and a group.
fn defaults(api_url: &str) -> String {
    format!(
        "store = \"signals.db\"\nout = \"site\"\n\n[host]\napi_url = \"{api_url}\"\n\n\
         [[groups]]\nid = \"g\"\nname = \"Group\"\nrepos = [\"{OCTOKIT}\", \"{GITHUB3}\"]\n"
    )
}

/// Exports, validates every dataset, and gives their signals by id.
fn exported(dir: &Path) -> BTreeMap<String, Value> {
    let out = run(dir, &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let mut signals = BTreeMap::new();
    let datasets: Vec<PathBuf> = std::fs::read_dir(dir.join("site/g"))
        .unwrap()
        .map(|e| e.unwrap().path().join("dataset.json"))
        .filter(|p| p.exists())
        .collect();
    assert_eq!(datasets.len(), 2, "{datasets:?}");
    for dataset in datasets {
        let out = run(dir, &["validate", dataset.to_str().unwrap()], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let doc = read_json(&dataset);
        for s in doc["dataset"]["signals"].as_array().unwrap() {
            signals.insert(s["id"].as_str().unwrap().to_string(), s.clone());
        }
    }
    signals
}

/// What the store holds of `repo`'s replies, as the expectations name
/// them.
fn stored(dir: &Path, repo: &str) -> Vec<(String, String, Timestamp)> {
    let store = Store::open(dir.join("signals.db")).unwrap();
    let summary = store.repositories().unwrap();
    let key = summary
        .iter()
        .find(|r| r.repo.repo.to_string() == repo)
        .unwrap_or_else(|| panic!("{repo} is not in the store"))
        .key;
    let mut out: Vec<_> = store
        .replies(key)
        .unwrap()
        .into_iter()
        .map(|(item, r)| (item, r.author, r.at))
        .collect();
    out.sort();
    out
}

#[test]
fn recorded_answers_are_collected_on_the_defaults() {
    let now = Timestamp::now();
    let recorded_repos = [
        (OCTOKIT, octokit(now), "repo.octokit_octokit.rb.json"),
        (GITHUB3, github3(now), "repo.sigmavirus24_github3.py.json"),
    ];
    let mut scenario = Scenario::default();
    for (name, c, repo) in &recorded_repos {
        clear_of_the_edges(c, now);
        scenario
            .repos
            .insert(name.to_string(), c.serve(recorded(repo)));
    }
    let host = TestHost::start(scenario).unwrap();
    let dir = TempDir::new("recorded");
    std::fs::write(dir.path().join("signals.toml"), defaults(&host.api_url())).unwrap();

    let out = run(dir.path(), &["collect", "--json"], &[TOKEN]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();

    // Every reply read is kept, those on items the run did not list too,
    // which wait for their item and are counted.
    let mut waited = 0;
    for (name, c, _) in &recorded_repos {
        let replies = read(name, c, now);
        let listed = listed(name, c, now);
        let waiting = replies.iter().filter(|r| !listed.contains(&r.item)).count();
        waited += waiting;
        let repo = summary["repositories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["repo"] == *name)
            .unwrap_or_else(|| panic!("{name} is not in {summary}"));
        assert_eq!(repo["status"], "collected", "{summary}");
        assert_eq!(repo["newCount"], listed.len(), "{summary}");
        assert_eq!(repo["commentsWaiting"], waiting, "{summary}");
        let expected: Vec<_> = replies
            .iter()
            .map(|r| (r.item.clone(), r.author.clone(), r.at))
            .collect();
        assert_eq!(stored(dir.path(), name), expected, "{name}");
    }
    assert!(waited > 0, "no recorded reply waits for its item");

    // Each listed item's first response is the definition's, from the
    // recorded replies the defaults read: known where every reply was
    // read, not known where its count says some never were.
    let signals = exported(dir.path());
    let mut states = BTreeSet::new();
    for (name, c, _) in &recorded_repos {
        let replies = read(name, c, now);
        for item in &c.items {
            let (state, first) = first_response(name, item, &replies, now);
            states.insert(state);
            let signal = &signals[&item_id(name, item)];
            assert_eq!(signal["firstResponseState"], state, "{signal}");
            match first {
                None => assert_eq!(signal["firstResponse"], Value::Null, "{signal}"),
                Some((by, hours)) => {
                    assert_eq!(signal["firstResponse"]["by"], by, "{signal}");
                    assert_eq!(signal["firstResponse"]["hours"], hours, "{signal}");
                }
            }
        }
    }
    assert!(
        states.contains("answered") && states.contains("unknown"),
        "{states:?}"
    );

    // No recorded reply the defaults read names an item (octokit.rb's
    // only one that does, on #162, is older than the window), and no
    // recorded item names one the store holds (#671 names #666): no
    // reference comes of them, nor of the replies that wait.
    for (name, c, _) in &recorded_repos {
        let naming: Vec<_> = read(name, c, now)
            .into_iter()
            .filter(|r| names_an_item(&r.body))
            .collect();
        assert!(naming.is_empty(), "{naming:?}");
    }
    for signal in signals.values() {
        let none = signal["references"].as_array().is_none_or(Vec::is_empty);
        assert!(none, "{signal}");
    }
}
