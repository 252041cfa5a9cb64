//! The conversation at scale, on the real binary against the
//! loopback test host: `cargo bench -p signals --bench conversation`
//! (10,000 items with 30,000 comments, reviews and review comments, and
//! 1,000 discussions); `-- <items>` runs a smaller repository with 3
//! comments per item and a tenth as many discussions.
//!
//! The scenario: one synthetic GitHub repository with discussions on, its
//! items updated over the last weeks, 3 comments on every item (the first
//! by its author), an approving review on every pull request and a review
//! comment on every fourth, and its discussions; a token, so reviews and
//! discussions are read through GraphQL. Run 1 is a first run (items
//! backfilled, comments back 90 days, every discussion); then 100 changes
//! come: 50 items get a comment from a maintainer (and so an update) and
//! 50 discussions change; run 2 sees those; run 3 the same day with
//! nothing changed. For each: REST requests, their 304 answers and the
//! requests that spent rate limit; GraphQL requests and points, as
//! `collect --json` counts them and as the host saw them (they must agree,
//! or this program panics); the wall time. Then the store's bytes per
//! comment: the comments table and its index, and the texts only comments
//! use, over the comments. Last, rounds of 10 and 250 small repositories with
//! discussions: a first round, a quiet one (their discussions asked by
//! heads, 100 repositories a GraphQL point), and one with a single
//! discussion changed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_testhost::{
    Scenario, TestHost, discussion, synthetic, synthetic_discussions, with_comments,
};

const REPO: &str = "bench/talk";
const COMMENTS_PER_ITEM: usize = 3;
/// Items commented on, and discussions changed, between runs 1 and 2.
const CHANGED: usize = 50;

fn main() {
    let items: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    let now = Timestamp::now();
    let start = now - SignedDuration::from_hours(24 * 30);
    let mut scenario = synthetic(REPO, items, start);
    with_comments(&mut scenario, COMMENTS_PER_ITEM);
    let discussions = (items / 10) as u64;
    {
        let data = scenario.repos.get_mut(REPO).expect("the repository");
        data.repo["has_discussions"] = true.into();
        data.discussions = Some(synthetic_discussions(REPO, discussions, start));
    }
    let data = &scenario.repos[REPO];
    let comments = data.comments.len()
        + data.review_comments.len()
        + data.reviews.values().map(Vec::len).sum::<usize>();
    let host = TestHost::start(scenario.clone()).expect("the test host starts");
    let dir = workdir(items);
    std::fs::write(
        dir.join("signals.toml"),
        format!(
            "store = \"signals.db\"\nout = \"site\"\nbackfill_days = 60\n\n[host]\napi_url = \"{}\"\n\n[[groups]]\nid = \"bench\"\nname = \"Bench\"\n\n[[groups.repos]]\nrepo = \"{REPO}\"\n",
            host.base_url()
        ),
    )
    .unwrap();

    println!(
        "\n{items} items, {comments} comments, reviews and review comments, {discussions} discussions\n\n| run | REST requests | 304 answers | rate limit spent | GraphQL requests | GraphQL points | wall time |\n|---|---|---|---|---|---|---|"
    );
    row(&dir, &host, "1: first run");
    change(&mut scenario, items, now);
    host.set_scenario(scenario.clone());
    row(&dir, &host, "2: after 100 changes");
    row(&dir, &host, "3: nothing changed");

    let (rows, bytes) = comment_bytes(&dir.join("signals.db"));
    println!(
        "\nStore: {rows} comment rows, {bytes} bytes in the comments table, its index and the texts only comments use: {:.0} bytes per comment.",
        bytes as f64 / rows.max(1) as f64
    );
    std::fs::remove_dir_all(&dir).ok();
    for repos in ROUNDS {
        round_of_many(repos, start, now);
    }
}

/// The sizes of the rounds measured by [`round_of_many`].
const ROUNDS: [usize; 2] = [10, 250];

/// A round of `repos` small repositories with discussions on one host
/// (3 issues and 5 discussions each): a first round, then two quiet ones
/// (the first of them sends new URLs: its windows no longer reach back to
/// the backfill), then one where a single discussion changed. The quiet repositories are
/// asked by their heads, 100 a query.
fn round_of_many(repos: usize, start: Timestamp, now: Timestamp) {
    let signals_testhost::Synthetic {
        mut scenario,
        names,
    } = signals_testhost::synthetic_many("round", repos, 3, start);
    for (name, data) in scenario.repos.iter_mut() {
        for issue in &mut data.issues {
            if let Some(entry) = issue.as_object_mut() {
                entry.remove("pull_request");
            }
        }
        data.pulls.clear();
        data.repo["has_discussions"] = true.into();
        data.discussions = Some(synthetic_discussions(name, 5, start));
    }
    let host = TestHost::start(scenario.clone()).expect("the test host starts");
    let dir = workdir(repos + 1);
    let list: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    std::fs::write(
        dir.join("signals.toml"),
        format!(
            "store = \"signals.db\"\nout = \"site\"\nbackfill_days = 60\n\n[host]\napi_url = \"{}\"\n\n[[groups]]\nid = \"bench\"\nname = \"Bench\"\nrepos = [{}]\n",
            host.base_url(),
            list.join(", ")
        ),
    )
    .unwrap();
    println!(
        "\nA round of {repos} repositories with discussions (3 issues, 5 discussions each)\n\n| run | REST requests | 304 answers | rate limit spent | GraphQL requests | GraphQL points | wall time |\n|---|---|---|---|---|---|---|"
    );
    row(&dir, &host, "1: first round");
    // The windows' URLs move on from the first round's backfill once.
    row(&dir, &host, "2: nothing changed, second round");
    row(&dir, &host, "3: nothing changed");
    let changed = &names[repos / 2];
    let data = scenario.repos.get_mut(changed.as_str()).unwrap();
    data.discussions.as_mut().unwrap()[0] =
        discussion(changed, 1, now - SignedDuration::from_mins(5), "Ideas");
    host.set_scenario(scenario);
    row(&dir, &host, "4: one discussion changed");
    std::fs::remove_dir_all(&dir).ok();
}

/// The 100 changes between runs 1 and 2: [`CHANGED`] items, spread over
/// the repository, get a maintainer's comment (which updates them), and
/// as many discussions get a comment.
fn change(scenario: &mut Scenario, items: usize, now: Timestamp) {
    let data = scenario.repos.get_mut(REPO).unwrap();
    let recent = (Timestamp::now() - SignedDuration::from_secs(1))
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let step = (items / CHANGED).max(1);
    let mut id = 9_000_000_000u64;
    for i in (0..items).step_by(step).take(CHANGED) {
        let entry = &mut data.issues[i];
        entry["updated_at"] = json!(recent);
        let number = entry["number"].as_u64().unwrap();
        let path = if entry.get("pull_request").is_some() {
            "pull"
        } else {
            "issues"
        };
        id += 1;
        data.comments.push(json!({
            "id": id,
            "html_url": format!("https://github.com/{REPO}/{path}/{number}#issuecomment-{id}"),
            "user": { "login": "maintainer", "type": "User" },
            "author_association": "MEMBER",
            "created_at": recent, "updated_at": recent, "body": "A new answer.",
        }));
    }
    let all = data.discussions.as_mut().expect("discussions");
    let step = (all.len() / CHANGED).max(1);
    for (i, d) in all.iter_mut().enumerate().filter(|(i, _)| i % step == 0) {
        let category = d["category"]["name"]
            .as_str()
            .unwrap_or("Ideas")
            .to_string();
        let comments = d["comments"]["totalCount"].as_u64().unwrap_or(0);
        *d = discussion(
            REPO,
            i as u64 + 1,
            now - SignedDuration::from_mins(5),
            &category,
        );
        d["comments"]["totalCount"] = (comments + 1).into();
    }
}

/// One `collect --json`: its row of the table.
fn row(dir: &Path, host: &TestHost, label: &str) {
    host.clear_requests();
    let started = Instant::now();
    let out = signals(dir, &["collect", "--json"]);
    let wall = started.elapsed();
    assert!(out.status.success(), "collect failed: {out:?}");
    let summary: Value = serde_json::from_slice(&out.stdout).expect("collect --json prints JSON");
    let n = |v: &Value| v.as_u64().expect("a count");
    let sent = host.requests();
    let (posts, gets): (Vec<_>, Vec<_>) = sent.iter().partition(|r| r.method == "POST");
    let not_modified = gets.iter().filter(|r| r.status == Some(304)).count();
    let points: u64 = posts
        .iter()
        .filter_map(|r| serde_json::from_slice::<Value>(&r.body).ok())
        .filter_map(|b| b["data"]["rateLimit"]["cost"].as_u64())
        .sum();
    assert_eq!(
        n(&summary["requests"]),
        gets.len() as u64,
        "REST counts agree"
    );
    assert_eq!(
        n(&summary["graphqlRequests"]),
        posts.len() as u64,
        "GraphQL counts agree"
    );
    assert_eq!(n(&summary["graphqlPoints"]), points, "points agree");
    if std::env::var_os("BENCH_VERBOSE").is_some() {
        for r in sent.iter().filter(|r| r.status != Some(304)) {
            eprintln!("{label}: {} {} {:?}", r.method, r.path, r.status);
        }
    }
    println!(
        "| {label} | {} | {not_modified} | {} | {} | {points} | {} |",
        gets.len(),
        gets.len() - not_modified,
        posts.len(),
        secs(wall)
    );
}

/// The comment rows, and the bytes of the comments table, its index, and
/// the texts no snapshot uses (SQLite's `dbstat`, and the texts' lengths
/// plus their 32-byte hash and row overhead).
fn comment_bytes(db: &Path) -> (u64, u64) {
    let conn = rusqlite::Connection::open(db).expect("the store opens");
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM comments", [], |r| r.get(0))
        .unwrap();
    let pages: i64 = conn
        .query_row(
            "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN ('comments', 'comments_by_item')",
            [],
            |r| r.get(0),
        )
        .expect("SQLite with dbstat");
    let texts: i64 = conn
        .query_row(
            "SELECT coalesce(sum(length(CAST(text AS BLOB)) + 32 + 8), 0) FROM texts
             WHERE id IN (SELECT body FROM comments)
               AND id NOT IN (SELECT body FROM snapshots)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    (rows as u64, (pages + texts) as u64)
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// Runs the `signals` under test in `dir` with a token, and no other
/// `SIGNALS_*` or `GITHUB_*` variable from the caller's environment.
fn signals(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_signals"));
    cmd.current_dir(dir).args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("SIGNALS_") || k.starts_with("GITHUB_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("GITHUB_TOKEN", "bench-token");
    cmd.output().expect("the signals binary runs")
}

fn workdir(items: usize) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("bench-conversation-{items}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
