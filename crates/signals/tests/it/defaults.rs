//! The defaults as a new user meets them: a configuration with only a
//! host, a token and a group, every window at its default (`window_hours`
//! 24, no `backfill_days`, `comments_backfill_days` 90, `waiting_days` 2,
//! `reconcile_days` 7, discussions on), against a host whose items and
//! comments spread over the last year, as a live repository's do. Its
//! history is longer than every default window, so a first run meets
//! comments on items it never listed, and a review comment on a pull
//! request the host no longer lists.

use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_testhost::{Scenario, TestHost, synthetic};

use crate::support::{TempDir, read_json, run, show};

const TOKEN: (&str, &str) = ("GITHUB_TOKEN", "tok");

/// Items in the year: one a day, the last opened 23 hours ago.
const ITEMS: usize = 365;

/// An open issue opened four days ago, relabelled an hour ago, that
/// nobody answered: it waits, past the default `waiting_days` of 2.
const UNANSWERED: usize = 362;

fn fmt(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn day() -> SignedDuration {
    SignedDuration::from_hours(24)
}

/// A configuration with only a host, a token and a group.
fn defaults(api_url: &str) -> String {
    format!(
        "store = \"signals.db\"\nout = \"site\"\n\n[host]\napi_url = \"{api_url}\"\n\n\
         [[groups]]\nid = \"g\"\nname = \"Group\"\nrepos = [\"o/n\"]\n"
    )
}

fn comment(id: u64, number: u64, login: &str, at: Timestamp, body: &str) -> Value {
    json!({
        "id": id,
        "html_url": format!("https://github.com/o/n/issues/{number}#issuecomment-{id}"),
        "issue_url": format!("https://api.github.com/repos/o/n/issues/{number}"),
        "user": { "login": login, "type": "User" },
        "author_association": "MEMBER",
        "created_at": fmt(at), "updated_at": fmt(at),
        "body": body,
    })
}

/// Item `n` opened `366 - n` days ago (less an hour), answered two hours
/// later by a maintainer, whose comment names the newest item; the
/// newest item has no answer. A comment bumps its item's `updated_at`,
/// as on GitHub. A review comment names pull request #9999, which the
/// host does not list.
fn year(now: Timestamp) -> Scenario {
    let start = now - day() * (ITEMS as i32) + SignedDuration::from_hours(1);
    let mut s = synthetic("o/n", ITEMS, start);
    let data = s.repos.get_mut("o/n").unwrap();
    let mut comments = Vec::new();
    for (i, item) in data.issues.iter_mut().enumerate() {
        let number = i as u64 + 1;
        let created = start + day() * (i as i32);
        item["created_at"] = json!(fmt(created));
        item["updated_at"] = json!(fmt(created + SignedDuration::from_hours(1)));
        if item["closed_at"].is_string() {
            item["closed_at"] = json!(fmt(created + SignedDuration::from_hours(1)));
        }
        if let Some(merged) = item["pull_request"].get_mut("merged_at")
            && merged.is_string()
        {
            *merged = json!(fmt(created + SignedDuration::from_hours(1)));
        }
        if number == UNANSWERED as u64 {
            item["updated_at"] = json!(fmt(now - SignedDuration::from_hours(1)));
        }
        if number == ITEMS as u64 || number == UNANSWERED as u64 {
            item["comments"] = json!(0);
            continue;
        }
        let answered = created + SignedDuration::from_hours(2);
        comments.push(comment(
            number,
            number,
            "maint",
            answered,
            &format!("Thanks, see #{ITEMS}"),
        ));
        item["comments"] = json!(1);
        item["updated_at"] = json!(fmt(answered));
    }
    data.comments = comments;
    data.review_comments = vec![json!({
        "id": 77,
        "pull_request_url": "https://api.github.com/repos/o/n/pulls/9999",
        "html_url": "https://github.com/o/n/pull/9999#discussion_r77",
        "user": { "login": "erin", "type": "User" },
        "author_association": "MEMBER",
        "created_at": fmt(now - day() * 3), "updated_at": fmt(now - day() * 3),
        "body": "nit, as in #1",
    })];
    s
}

fn collect_json(dir: &Path) -> Value {
    let out = run(dir, &["collect", "--json"], &[TOKEN]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", show(&out)))
}

fn export(dir: &Path) -> Value {
    let out = run(dir, &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let dataset = dir.join("site/g/n/dataset.json");
    let out = run(dir, &["validate", dataset.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    read_json(&dataset)
}

fn signal(doc: &Value, suffix: &str) -> Value {
    doc["dataset"]["signals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"].as_str().unwrap().ends_with(suffix))
        .unwrap_or_else(|| panic!("no signal {suffix}"))
        .clone()
}

#[test]
fn a_first_run_on_the_defaults_keeps_comments_on_items_it_did_not_list() {
    let now = Timestamp::now();
    let host = TestHost::start(year(now)).unwrap();
    let dir = TempDir::new("defaults");
    std::fs::write(dir.path().join("signals.toml"), defaults(&host.api_url())).unwrap();

    // The first run reads items back a day and comments back 90 days: the
    // comments of the 89 days before the last one are on items it did
    // not list, and the review comment on a pull request the host does not
    // list at all. The run is committed all the same, and says so.
    let first = collect_json(dir.path());
    let repo = &first["repositories"][0];
    assert_eq!(repo["status"], "collected", "{first}");
    assert_eq!(repo["newCount"], 2, "{first}");
    // The answers of items 276 to 364 (opened 89 days to a day ago), but
    // the unanswered one's, and the review comment.
    assert_eq!(repo["commentsWaiting"], 88 + 1, "{first}");

    // An issue answered 30 days ago is updated now: the next run sees it
    // for the first time, and its stored answer gives its first response
    // and its reference, without a request for it.
    let seen = ITEMS as u64 - 30;
    let mut changed = year(now);
    let data = changed.repos.get_mut("o/n").unwrap();
    data.issues[seen as usize - 1]["updated_at"] = json!(fmt(Timestamp::now()));
    data.issues[seen as usize - 1]["labels"] = json!([{ "name": "triaged" }]);
    host.set_scenario(changed.clone());
    let second = collect_json(dir.path());
    assert_eq!(second["repositories"][0]["newCount"], 1, "{second}");

    let doc = export(dir.path());
    let item = signal(&doc, &format!(":issue:{seen}"));
    assert_eq!(item["firstResponse"]["by"], "maint", "{item}");
    assert_eq!(item["firstResponse"]["hours"], 2.0, "{item}");
    // The unanswered item (#362) is known to have no answer, and waits.
    let unanswered = signal(&doc, &format!(":issue:{UNANSWERED}"));
    assert_eq!(unanswered["firstResponseState"], "none", "{unanswered}");
    let html = std::fs::read_to_string(dir.path().join("site/g/n/index.html")).unwrap();
    let (_, list) = html.split_once("Waiting for a reply</h2>").unwrap();
    let list = list.split("</section>").next().unwrap();
    assert!(
        list.contains(&format!("Synthetic item {UNANSWERED}")),
        "{list}"
    );
    assert_eq!(list.matches("<li").count(), 1, "{list}");
    let newest = format!("github:o/n:issue:{ITEMS}");
    assert!(
        item["references"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == &json!(newest)),
        "{item}"
    );
}

#[test]
fn a_reply_stamped_in_the_second_of_the_previous_run_is_read() {
    let now = Timestamp::now();
    let host = TestHost::start(year(now)).unwrap();
    let dir = TempDir::new("defaults-second");
    std::fs::write(dir.path().join("signals.toml"), defaults(&host.api_url())).unwrap();
    collect_json(dir.path());

    // The host stamps whole seconds, and shows a reply some time after its
    // stamp: a reply written during the next run's second, or visible only
    // after it ended, bears a time before that run's instant.
    let before = Timestamp::now();
    collect_json(dir.path());
    let stamped = Timestamp::from_second(before.as_second()).unwrap();
    let mut changed = year(now);
    let data = changed.repos.get_mut("o/n").unwrap();
    data.comments
        .push(comment(9_000, ITEMS as u64, "maint", stamped, "Looking"));
    data.issues[ITEMS - 1]["comments"] = json!(1);
    data.issues[ITEMS - 1]["updated_at"] = json!(fmt(stamped));
    host.set_scenario(changed);
    collect_json(dir.path());

    let doc = export(dir.path());
    let item = signal(&doc, &format!(":issue:{ITEMS}"));
    assert_eq!(item["firstResponse"]["by"], "maint", "{item}");
}

/// The README's "Point it at GitHub" block, run as written against a
/// loopback GitHub whose history is a year long: `signals init`, then
/// the editing of `signals.toml` (here: its groups replaced by one
/// tracking the host's repository; the host's address given by
/// `SIGNALS_API_URL`, as the README's list of variables allows), then
/// every command of the block, each of which must exit 0.
#[test]
fn the_readmes_point_it_at_github_commands_run_as_written() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let (_, section) = readme
        .split_once("## Point it at GitHub")
        .expect("the README has a section \"Point it at GitHub\"");
    let (_, block) = section.split_once("```sh\n").unwrap();
    let (block, _) = block.split_once("```").unwrap();

    let host = TestHost::start(year(Timestamp::now())).unwrap();
    let dir = TempDir::new("readme-github");
    let bin = crate::support::signals_bin();
    let bin = bin.to_str().unwrap();
    let env = [
        ("GITHUB_TOKEN", "tok"),
        ("SIGNALS_API_URL", &host.api_url()),
    ];
    let mut ran = Vec::new();
    for line in block.lines() {
        let command = line.split("  #").next().unwrap().trim();
        if command.is_empty() || command.starts_with("export ") {
            continue;
        }
        if command.starts_with("$EDITOR") {
            let path = dir.path().join("signals.toml");
            let text = std::fs::read_to_string(&path).unwrap();
            let (head, rest) = text.split_once("[[groups]]").unwrap();
            let (_, alerts) = rest.split_once("# Alerts").unwrap();
            let mine = "[[groups]]\nid = \"g\"\nname = \"Group\"\nrepos = [\"o/n\"]\n\n";
            std::fs::write(&path, format!("{head}{mine}# Alerts{alerts}")).unwrap();
            ran.push(command.to_string());
            continue;
        }
        let command = command.replacen("signals", bin, 1);
        if command.ends_with(" serve") {
            let served = format!(
                "env GITHUB_TOKEN=tok SIGNALS_API_URL={} {command}",
                env[1].1
            );
            crate::readme::run_serve(dir.path(), &served);
        } else {
            let mut sh = std::process::Command::new("sh");
            sh.arg("-c").arg(&command).current_dir(dir.path());
            for (k, v) in env {
                sh.env(k, v);
            }
            let out = sh.output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{command}: {}", show(&out));
        }
        ran.push(command);
    }
    assert!(ran.len() >= 8, "{ran:?}");
    let doc = read_json(&dir.path().join("site/g/n/dataset.json"));
    let unanswered = signal(&doc, &format!(":issue:{UNANSWERED}"));
    assert_eq!(unanswered["firstResponseState"], "none", "{unanswered}");
}
