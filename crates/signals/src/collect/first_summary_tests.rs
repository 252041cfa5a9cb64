//! A repository's first run with `[[notify]]` rules goes through its stage
//! (issue 27, part 2), its summaries made a chunk at a time: the same
//! messages, store and outcome as the run that holds every item.

use std::path::{Path, PathBuf};

use jiff::{SignedDuration, Timestamp};
use signals_core::notify::MessageKind;
use std::collections::BTreeMap;

use signals_core::ItemSnapshot;
use signals_store::suite::WholeReads;
use signals_store::{MessageState, Outbox, RunWrites};
use signals_testhost::{TestHost, synthetic};

use super::pipeline::{self, Alerts, Reconcile, RunOutcome, Window};
use crate::config::Config;

const REPO: &str = "o/big";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "signals-first-summary-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn config(api_url: &str) -> Config {
    let text = format!(
        r#"store = "signals.db"
backfill_days = 36500
base_url = "https://signals.example/"

[host]
api_url = "{api_url}"

[[groups]]
id = "g"
name = "Group"

[[groups.repos]]
repo = "{REPO}"
keywords = ["regression"]

[[notify]]
name = "all"
kind = "webhook"
url = "http://127.0.0.1:9/all"
include_bots = true

[[notify]]
name = "bugs"
kind = "webhook"
url = "http://127.0.0.1:9/bugs"
labels = ["bug"]

[[notify]]
name = "quiet"
kind = "webhook"
url = "http://127.0.0.1:9/quiet"
initial = "none"
"#
    );
    Config::parse(&text, Path::new("<test>")).unwrap()
}

/// A message in the outbox: its delivery id, rule and payload.
type Message = (String, String, signals_core::notify::Payload);

/// One first run into a new store in `dir`, held or through its stage;
/// its outcome, messages (delivery id, rule, payload) and latest
/// snapshots.
fn first_run(
    dir: &Path,
    config: &Config,
    staged: bool,
    at: Timestamp,
) -> (RunOutcome, Vec<Message>, BTreeMap<String, ItemSnapshot>) {
    let (group, repo) = config.select(None, None)[0];
    let mut client = crate::hosts::build(&config.hosts[0], |_| None, false)
        .unwrap()
        .client;
    let mut store = signals_store_sqlite::Store::open(dir.join("signals.db")).unwrap();
    let key = store.ensure_repository(group, repo).unwrap();
    let discussions_off = Vec::new();
    let window = Window {
        window: SignedDuration::from_hours(24),
        backfill: Some(SignedDuration::from_hours(36500 * 24)),
        comments_backfill: SignedDuration::from_hours(24 * 30),
        alerts: Alerts::of(config),
        reconcile: Reconcile::default(),
        discussions_off: &discussions_off,
    };
    let plan = pipeline::plan(&store, key, (group, repo), at, &window).unwrap();
    assert!(plan.first_run && super::staged::applies(&plan));
    let target = (group, repo, &repo.repo);
    let when = (at, window, "test");
    let outcome = if staged {
        super::staged::run(&mut client, (&mut store, key), target, when, &plan)
    } else {
        pipeline::held(&mut client, (&mut store, key), target, when, &plan)
    }
    .unwrap();
    let messages = store
        .outbox_messages(MessageState::Pending, None)
        .unwrap()
        .into_iter()
        .map(|m| (m.delivery, m.rule, m.payload))
        .collect();
    let items = store.latest_snapshots(key).unwrap();
    (outcome, messages, items)
}

#[test]
fn a_staged_first_run_sends_the_summaries_of_a_held_one() {
    let at = Timestamp::now();
    // 1,300 items: three chunks of the stage.
    let host = TestHost::start(synthetic(
        REPO,
        1300,
        at - SignedDuration::from_hours(24 * 30),
    ))
    .unwrap();
    let config = config(&host.api_url());
    let dirs = [scratch("held"), scratch("staged")];
    let held = first_run(&dirs[0], &config, false, at);
    let staged = first_run(&dirs[1], &config, true, at);
    for dir in &dirs {
        let _ = std::fs::remove_dir_all(dir);
    }
    assert!(held.2.len() > 1300);
    assert!(held.2 == staged.2, "the same items stored");
    assert_eq!(
        format!("{:?}", held.0.run),
        format!("{:?}", staged.0.run),
        "the same run recorded"
    );
    assert_eq!(held.0.discovered, staged.0.discovered);
    // Two summaries ("quiet" sends none), each of the 20 most important
    // of hundreds, in the same order and words.
    let rules: Vec<&str> = held.1.iter().map(|(_, r, _)| r.as_str()).collect();
    assert_eq!(rules, ["all", "bugs"]);
    for (_, _, payload) in &held.1 {
        assert_eq!(payload.kind, MessageKind::Summary);
        assert_eq!(payload.signals.len(), signals_core::notify::MAX_SIGNALS);
        assert!(payload.more > 200, "{}", payload.more);
    }
    assert_eq!(held.1, staged.1);
}
