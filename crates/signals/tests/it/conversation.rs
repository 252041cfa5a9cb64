//! Comments, reviews and first responses end to end: the real
//! `signals` against a loopback GitHub whose items have comments by their
//! authors, bots, maintainers and ignored users, and reviews with and
//! without comments; what each run asks (a first run, a quiet run that
//! costs no rate limit, a run after changes), and each item's first
//! response against the definition.

use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_core::first_response::first_response;
use signals_store::suite::WholeReads;
use signals_store::{CommentStore, Reads};
use signals_store_sqlite::Store;
use signals_testhost::{RecordedRequest, Scenario, TestHost, synthetic};

use crate::support::{TempDir, config, count_comments, run, show};

const TOKEN: (&str, &str) = ("GITHUB_TOKEN", "tok");

fn fmt(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Six synthetic items created five days ago (#1 and #5 closed, #3 and
/// #6 pull requests; #2 by user1, #3 by user2, #4 by user3, #6 by user5).
fn start() -> Timestamp {
    let start = Timestamp::now() - SignedDuration::from_hours(24 * 5);
    // The items are opened a minute apart and the trends test reads the
    // week they were opened in: keep them in one UTC week (weeks start on
    // Mondays), whatever the hour the test runs at.
    let civil = start.to_zoned(jiff::tz::TimeZone::UTC);
    let late_sunday = civil.weekday() == jiff::civil::Weekday::Sunday
        && civil.hour() == 23
        && civil.minute() >= 50;
    match late_sunday {
        true => start - SignedDuration::from_hours(1),
        false => start,
    }
}

fn comment(id: u64, number: u64, pull: bool, login: &str, kind: &str, at: Timestamp) -> Value {
    let path = if pull { "pull" } else { "issues" };
    json!({
        "id": id,
        "html_url": format!("https://github.com/o/n/{path}/{number}#issuecomment-{id}"),
        "issue_url": format!("https://api.github.com/repos/o/n/issues/{number}"),
        "user": { "login": login, "type": kind },
        "author_association": "NONE",
        "created_at": fmt(at), "updated_at": fmt(at),
        "body": format!("comment {id} by {login}"),
    })
}

fn review_comment(id: u64, number: u64, login: &str, at: Timestamp) -> Value {
    json!({
        "id": id,
        "pull_request_url": format!("https://api.github.com/repos/o/n/pulls/{number}"),
        "html_url": format!("https://github.com/o/n/pull/{number}#discussion_r{id}"),
        "user": { "login": login, "type": "User" },
        "author_association": "MEMBER",
        "created_at": fmt(at), "updated_at": fmt(at), "body": "nit",
    })
}

fn review(id: u64, login: &str, state: &str, at: Timestamp) -> Value {
    let submitted = (state != "PENDING").then(|| fmt(at));
    json!({
        "databaseId": id, "state": state, "body": "",
        "submittedAt": submitted, "createdAt": fmt(at), "updatedAt": fmt(at),
        "authorAssociation": "MEMBER",
        "author": { "login": login, "__typename": "User" },
    })
}

fn created(scenario: &Scenario, number: u64) -> Timestamp {
    let data = &scenario.repos["o/n"];
    data.issues[number as usize - 1]["created_at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

fn scenario() -> Scenario {
    let mut s = synthetic("o/n", 6, start());
    let h = |n: u64, hours: i64| created(&s, n) + SignedDuration::from_hours(hours);
    let comments = vec![
        // #2: its author, two bots, an ignored user, then a maintainer.
        comment(1, 2, false, "user1", "User", h(2, 1)),
        comment(2, 2, false, "dependabot[bot]", "User", h(2, 2)),
        comment(3, 2, false, "ci", "Bot", h(2, 3)),
        comment(4, 2, false, "Triager", "User", h(2, 4)),
        comment(5, 2, false, "maint", "User", h(2, 5)),
        // #4: only its author.
        comment(6, 4, false, "user3", "User", h(4, 1)),
        // #6: a maintainer after a review comment.
        comment(7, 6, true, "maint", "User", h(6, 3)),
    ];
    let review_comments = vec![
        review_comment(20, 3, "erin", h(3, 8)),
        review_comment(21, 6, "erin", h(6, 2)),
    ];
    // #3: a pending review, then an approval without a comment.
    let reviews = [(
        "3".to_string(),
        vec![
            review(30, "carol", "PENDING", h(3, 1)),
            review(31, "dave", "APPROVED", h(3, 6)),
        ],
    )];
    let data = s.repos.get_mut("o/n").unwrap();
    data.comments = comments;
    data.review_comments = review_comments;
    data.reviews = reviews.into_iter().collect();
    count_comments(&mut s);
    s
}

fn setup(host: &TestHost) -> TempDir {
    let dir = TempDir::new("conversation");
    let text = config(&host.api_url(), &["o/n"], "").replace(
        "name = \"Group\"\n",
        "name = \"Group\"\nignore_users = [\"triager\"]\n",
    );
    std::fs::write(dir.path().join("signals.toml"), text).unwrap();
    dir
}

fn collect(dir: &Path) {
    let out = run(dir, &["collect"], &[TOKEN]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

/// What a run cost: the requests that were not answered 304.
fn spent(requests: &[RecordedRequest]) -> usize {
    requests.iter().filter(|r| r.status != Some(304)).count()
}

fn first_responses(dir: &Path) -> Vec<(String, Option<(String, f64)>)> {
    let store = Store::open(dir.join("signals.db")).unwrap();
    let key = store.repositories().unwrap()[0].key;
    let replies = store.replies(key).unwrap();
    let ignore = vec!["triager".to_string()];
    let mut out: Vec<_> = store
        .latest_snapshots(key)
        .unwrap()
        .into_iter()
        .filter(|(id, _)| !id.contains(":release:"))
        .map(|(id, item)| {
            let mine: Vec<_> = replies
                .iter()
                .filter(|(i, _)| *i == id)
                .map(|(_, r)| r.clone())
                .collect();
            let first = first_response(&item.author, item.created_at, &mine, &ignore);
            (item.key.clone(), first.map(|f| (f.by, f.hours)))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn comments_and_reviews_cost_no_request_per_item_and_quiet_runs_nothing() {
    let host = TestHost::start(scenario()).unwrap();
    let dir = setup(&host);

    // First run: the item's five requests (the advisories among them; the
    // open pull requests are counted from the store), the two comment
    // lists, one GraphQL query for the two pull requests, and the day's
    // commits per week.
    collect(dir.path());
    let first = host.requests();
    let posts: Vec<_> = first.iter().filter(|r| r.method == "POST").collect();
    assert_eq!(posts.len(), 1, "{first:#?}");
    assert_eq!(first.len(), 5 + 2 + 1 + 1, "{first:#?}");
    assert!(
        first
            .iter()
            .any(|r| r.path.contains("/issues/comments?since="))
    );
    assert!(
        first
            .iter()
            .any(|r| r.path.contains("/pulls/comments?since="))
    );

    let got = first_responses(dir.path());
    let want = vec![
        ("1".to_string(), None),
        ("2".to_string(), Some(("maint".to_string(), 5.0))),
        ("3".to_string(), Some(("dave".to_string(), 6.0))),
        ("4".to_string(), None),
        ("5".to_string(), None),
        ("6".to_string(), Some(("erin".to_string(), 2.0))),
    ];
    assert_eq!(got, want);

    // The next run asks from the window's day (the first reached back 90
    // days), and nothing changed: no GraphQL query.
    host.clear_requests();
    collect(dir.path());
    assert!(host.requests().iter().all(|r| r.method == "GET"));
    // A quiet run on the same day: every list answers 304, no GraphQL
    // query: it costs none of the rate limit.
    host.clear_requests();
    collect(dir.path());
    let quiet = host.requests();
    assert!(quiet.iter().all(|r| r.method == "GET"), "{quiet:#?}");
    assert_eq!(spent(&quiet), 0, "{quiet:#?}");

    // After changes: a maintainer answers #4, #3 gets a review comment
    // (#3 updated), #6 nothing new.
    // After the previous run began (times are whole seconds).
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let now = Timestamp::now();
    let mut changed = scenario();
    let data = changed.repos.get_mut("o/n").unwrap();
    data.comments
        .push(comment(8, 4, false, "maint", "User", now));
    for n in [3usize, 4] {
        data.issues[n - 1]["updated_at"] = json!(fmt(now));
    }
    data.reviews
        .get_mut("3")
        .unwrap()
        .push(review(32, "maint", "COMMENTED", now));
    count_comments(&mut changed);
    host.set_scenario(changed);
    host.clear_requests();
    collect(dir.path());
    let after = host.requests();
    assert_eq!(after.iter().filter(|r| r.method == "POST").count(), 1);
    let comments_200: Vec<_> = after
        .iter()
        .filter(|r| r.path.contains("comments?") && r.status == Some(200))
        .collect();
    assert_eq!(comments_200.len(), 1, "{after:#?}");
    let got = first_responses(dir.path());
    assert_eq!(got[3].1.as_ref().map(|(by, _)| by.as_str()), Some("maint"));
    assert_eq!(got[2], want[2]);
}

#[test]
fn first_responses_reach_the_dataset_and_trends_and_documents_stay_valid() {
    let host = TestHost::start(scenario()).unwrap();
    let dir = setup(&host);
    collect(dir.path());
    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let site = dir.path().join("site/g/n");
    let (dataset, trends) = (site.join("dataset.json"), site.join("trends.json"));
    let out = run(
        dir.path(),
        &[
            "validate",
            dataset.to_str().unwrap(),
            trends.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    let doc = crate::support::read_json(&dataset);
    let mut got: Vec<(String, Value)> = doc["dataset"]["signals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_string(),
                s["firstResponse"].clone(),
            )
        })
        .collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    let by = |id: &str| got.iter().find(|(i, _)| i.ends_with(id)).unwrap().1.clone();
    assert_eq!(by(":issue:2")["by"], "maint");
    assert_eq!(by(":issue:2")["hours"], 5.0);
    assert_eq!(by(":pull_request:3")["by"], "dave");
    assert_eq!(by(":pull_request:6")["hours"], 2.0);
    assert!(by(":issue:4").is_null());
    // Every signal has the field, releases too.
    assert!(
        doc["dataset"]["signals"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s.get("firstResponse").is_some())
    );

    // #4 waits: open, five days old, answered by its author only. It is
    // listed on the repository's page and the group's digest.
    for page in [
        site.join("index.html"),
        dir.path().join("site/g/index.html"),
    ] {
        let html = std::fs::read_to_string(&page).unwrap();
        let (_, list) = html
            .split_once("Waiting for a reply</h2>")
            .unwrap_or_else(|| panic!("no waiting list in {}", page.display()));
        let list = list.split("</section>").next().unwrap();
        assert!(list.contains("Synthetic item 4"), "{list}");
        assert_eq!(list.matches("<li>").count(), 1, "{list}");
    }

    // The week the items were opened: responses in 2, 5 and 6 hours of
    // the 6 items opened.
    let trends = crate::support::read_json(&trends);
    let week = trends["weeks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| {
            w["issuesOpened"].as_u64().unwrap_or(0) + w["pullsOpened"].as_u64().unwrap_or(0) > 0
        })
        .unwrap()
        .clone();
    assert_eq!(week["firstResponseMedianHours"], 5.0, "{week}");
    assert_eq!(week["firstResponseP90Hours"], 6.0, "{week}");
    assert_eq!(week["answeredWithin2Days"], 0.5, "{week}");
}

/// The `waiting` event fires once per item, at the first run
/// after it crosses `waiting_days` unanswered; an answered item never does.
#[test]
fn the_waiting_alert_fires_once_when_an_item_crosses_waiting_days() {
    use crate::receiver::{Answer, Receiver};

    let rx = Receiver::start(|_, _| Answer::Ok);
    // Items #2 (an issue) and #3 (a pull request) cross one day 10 seconds
    // from now; #3 gets an answer before it.
    let start = Timestamp::now() - SignedDuration::from_hours(24) + SignedDuration::from_secs(10);
    let mut s = synthetic("o/n", 3, start);
    let data = s.repos.get_mut("o/n").unwrap();
    for n in [1usize, 2] {
        data.issues[n]["created_at"] = json!(fmt(start));
        data.issues[n]["updated_at"] = json!(fmt(start));
    }
    data.comments = vec![comment(
        1,
        3,
        true,
        "maint",
        "User",
        start + SignedDuration::from_secs(1),
    )];
    count_comments(&mut s);
    let host = TestHost::start(s).unwrap();
    let dir = TempDir::new("conversation-waiting");
    let rules = format!(
        "waiting_days = 1\n\n[[notify]]\nname = \"waiting\"\nkind = \"webhook\"\nurl = \"{}/w\"\nevents = [\"waiting\"]\ninitial = \"none\"\n",
        rx.url
    );
    std::fs::write(
        dir.path().join("signals.toml"),
        config(&host.api_url(), &["o/n"], &rules),
    )
    .unwrap();
    collect(dir.path());
    assert!(rx.hits().is_empty());
    // Before the crossing: nothing yet.
    collect(dir.path());
    assert!(rx.hits().is_empty(), "{:?}", rx.hits());
    while Timestamp::now() < start + SignedDuration::from_hours(24) + SignedDuration::from_secs(1) {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    collect(dir.path());
    let hits = rx.hits();
    assert_eq!(hits.len(), 1, "{hits:?}");
    let v: Value = serde_json::from_slice(&hits[0].body).unwrap();
    let ids: Vec<&str> = v["signals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["github:o/n:issue:2"], "{v}");
    assert_eq!(v["signals"][0]["event"], "waiting");
    // Once: the next run sends nothing more.
    collect(dir.path());
    assert_eq!(rx.hits().len(), 1);
}

/// `serve`'s pages come from its private export (`export --serve-site`),
/// which reads the configuration's `ignore_users` and `waiting_days` as
/// `signals export` does: the ignored triager's comment is no first
/// response there either, and an item five days old does not wait when
/// `waiting_days` is 6.
#[test]
fn serve_pages_follow_the_configured_ignore_users_and_waiting_days() {
    use crate::serve::{raw, serve_with};

    let host = TestHost::start(scenario()).unwrap();
    let dir = setup(&host);
    let path = dir.path().join("signals.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("waiting_days = 6\n{text}")).unwrap();
    collect(dir.path());

    let served = serve_with(dir.path(), &[], &[]);
    let (status, body) = raw(served.port, "GET", "/g/n/dataset.json");
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let doc: Value = serde_json::from_slice(&body).unwrap();
    let first = |suffix: &str| {
        doc["dataset"]["signals"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"].as_str().unwrap().ends_with(suffix))
            .unwrap()["firstResponse"]
            .clone()
    };
    let answered = first(":issue:2");
    assert_eq!(answered["by"], "maint", "{answered}");
    assert_eq!(answered["hours"], 5.0, "{answered}");

    let (status, page) = raw(served.port, "GET", "/g/n/");
    assert_eq!(status, 200);
    let page = String::from_utf8_lossy(&page);
    let waiting = page
        .split_once("Waiting for a reply</h2>")
        .map_or("", |(_, list)| {
            list.split("</section>").next().unwrap_or("")
        });
    assert!(!waiting.contains("Synthetic item 4"), "{waiting}");
}
