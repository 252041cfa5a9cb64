//! Checks of [`crate::Outbox`]: alerts committed with their run, claimed
//! once, digested once, and exactly those of committed runs.

use std::collections::HashMap;

use jiff::{SignedDuration, Timestamp};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use signals_core::{ItemSnapshot, ItemState};

use super::*;
use crate::{Backend, RepoKey, RunCommit};

/// A run of `observed` with the messages of rules `pending` (sent on their
/// own) and `held` (for a digest), as the collector makes them.
pub(super) fn alerting_run(
    store: &dyn Backend,
    key: RepoKey,
    at: Timestamp,
    observed: Vec<ItemSnapshot>,
    rules: &[(&str, bool)],
) -> RunCommit {
    use signals_core::notify::{Rule, RuleRef, RunInput, messages};
    let mut run = run_of(store, key, at, observed, 1);
    let rules: Vec<Rule> = rules.iter().map(|(n, _)| Rule::any(n)).collect();
    let refs: Vec<RuleRef<'_>> = rules
        .iter()
        .zip([false, true])
        .map(|(rule, held)| RuleRef { rule, held })
        .collect();
    let weights = signals_core::importance::Weights::default();
    run.messages = messages(
        &refs,
        &RunInput {
            group: &group(),
            repo: &tracked(),
            repo_url: "https://github.com/o/n",
            collected_at: at,
            first_run: false,
            events: &run.events,
            snapshots: &run.snapshots,
            weights: &weights,
            link: None,
        },
    );
    run
}

pub fn alerts_commit_with_their_run_and_are_claimed_once(make: Factory<'_>) {
    use crate::outbox::{MessageState, Settle};
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let t1 = ts("2026-11-20T10:00:00Z");
    let run = alerting_run(
        &*store,
        key,
        t1,
        vec![issue("1"), issue("2")],
        &[("now", false)],
    );
    assert_eq!(run.messages.len(), 1);
    store.commit_run(key, &run).unwrap();
    let pending = store.outbox_messages(MessageState::Pending, None).unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].payload, run.messages[0].payload);
    assert_eq!(pending[0].delivery, run.messages[0].delivery);
    assert_eq!(pending[0].created_at, t1);

    // A refused run (out of order) leaves no message behind.
    let late = alerting_run(&*store, key, t1, vec![issue("3")], &[("now", false)]);
    assert!(!late.messages.is_empty());
    assert!(store.commit_run(key, &late).is_err());
    assert_eq!(
        store
            .outbox_messages(MessageState::Pending, None)
            .unwrap()
            .len(),
        1
    );

    // One claim at a time; an expired claim frees the message, which
    // keeps its delivery id and body.
    let claim = SignedDuration::from_secs(60);
    let now = ts("2026-11-20T10:00:01Z");
    let first = store.outbox_claim(now, claim).unwrap().unwrap();
    assert_eq!(first.delivery, pending[0].delivery);
    assert!(store.outbox_claim(now, claim).unwrap().is_none());
    let later = now + SignedDuration::from_secs(61);
    let again = store.outbox_claim(later, claim).unwrap().unwrap();
    assert_eq!(
        (&again.delivery, &again.payload),
        (&first.delivery, &first.payload)
    );

    // A failed attempt waits for its backoff.
    let next = later + SignedDuration::from_secs(5);
    store
        .outbox_settle(
            again.id,
            later,
            &Settle::Retry {
                next,
                error: "HTTP 500".into(),
            },
        )
        .unwrap();
    assert_eq!(store.outbox_next_due().unwrap(), Some(next));
    assert!(store.outbox_claim(later, claim).unwrap().is_none());
    let status = store.outbox_status().unwrap();
    assert_eq!(
        (status[0].pending, status[0].last_error.as_deref()),
        (1, Some("HTTP 500"))
    );
    let third = store.outbox_claim(next, claim).unwrap().unwrap();
    assert_eq!(third.attempts, 1);
    store
        .outbox_settle(third.id, next, &Settle::Delivered)
        .unwrap();
    assert!(store.outbox_claim(next + claim, claim).unwrap().is_none());
    assert_eq!(store.outbox_next_due().unwrap(), None);

    // A given-up message is kept, failed, with its error.
    let t2 = ts("2026-11-21T10:00:00Z");
    let mut two = issue("2");
    two.state = ItemState::Closed;
    let run2 = alerting_run(&*store, key, t2, vec![two], &[("now", false)]);
    store.commit_run(key, &run2).unwrap();
    let m = store.outbox_claim(t2, claim).unwrap().unwrap();
    assert_ne!(m.delivery, first.delivery);
    store
        .outbox_settle(
            m.id,
            t2,
            &Settle::Failed {
                error: "gave up after 24h: HTTP 404".into(),
            },
        )
        .unwrap();
    let status = store.outbox_status().unwrap();
    assert_eq!(status.len(), 1);
    assert_eq!(
        (
            status[0].rule.as_str(),
            status[0].pending,
            status[0].delivered,
            status[0].failed
        ),
        ("now", 0, 1, 1)
    );
    assert_eq!(
        status[0].last_error.as_deref(),
        Some("gave up after 24h: HTTP 404")
    );
}

pub fn digests_fold_held_alerts_once_and_purge_takes_them(make: Factory<'_>) {
    use crate::outbox::MessageState;
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let t1 = ts("2026-11-20T10:00:00Z");
    let t2 = ts("2026-11-21T10:00:00Z");
    let run = alerting_run(
        &*store,
        key,
        t1,
        vec![issue("1")],
        &[("a", false), ("mail", true)],
    );
    store.commit_run(key, &run).unwrap();
    let mut one = issue("1");
    one.metrics.comments = 9;
    let run = alerting_run(
        &*store,
        key,
        t2,
        vec![one, issue("2")],
        &[("a", false), ("mail", true)],
    );
    store.commit_run(key, &run).unwrap();
    let held = store
        .outbox_messages(MessageState::Held, Some("mail"))
        .unwrap();
    assert_eq!(held.len(), 2);
    assert!(
        store
            .outbox_messages(MessageState::Held, Some("a"))
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.outbox_last_digest("mail").unwrap(), None);

    let at = ts("2026-11-22T08:00:00Z");
    let payloads: Vec<_> = held.iter().map(|m| m.payload.clone()).collect();
    let digest = signals_core::notify::digest("mail", &payloads, 10, at).unwrap();
    let ids: Vec<i64> = held.iter().map(|m| m.id).collect();
    assert!(store.outbox_digest(&ids, &digest, at).unwrap());
    assert!(
        store
            .outbox_messages(MessageState::Held, None)
            .unwrap()
            .is_empty()
    );
    // Twice is refused and writes nothing.
    let again =
        signals_core::notify::digest("mail", &payloads, 10, at + SignedDuration::from_secs(1))
            .unwrap();
    assert!(!store.outbox_digest(&ids, &again, at).unwrap());
    let pending = store
        .outbox_messages(MessageState::Pending, Some("mail"))
        .unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].payload, digest.payload);
    // Two items, issue #1 once (as last seen, with 9 comments).
    assert_eq!(pending[0].payload.signals.len(), 2);
    assert!(
        pending[0]
            .payload
            .signals
            .iter()
            .any(|s| s.signal.metrics.comments == 9)
    );
    assert_eq!(store.outbox_last_digest("mail").unwrap(), Some(at));

    // Purging the repository takes its messages; the digest stays.
    store.purge_repository(key).unwrap();
    let left: Vec<_> = store
        .outbox_status()
        .unwrap()
        .into_iter()
        .map(|r| (r.rule, r.pending, r.held))
        .collect();
    assert_eq!(left, vec![("mail".to_string(), 1, 0)]);
}

/// Over random runs (issues commented, closed, relabelled) and random
/// rules, some runs refused (out of order): the outbox holds exactly the
/// messages `signals_core::notify::messages` made for the committed runs,
/// one per (rule, run) that matched anything, each with its payload, in
/// the state its rule asks for. With core's property test (messages equal
/// a reference filter), the outbox equals the reference.
pub fn the_outbox_holds_exactly_the_messages_of_committed_runs(make: Factory<'_>) {
    use crate::outbox::MessageState;
    use signals_core::notify::{Outgoing, Rule, RuleRef, RunInput, Trigger, messages};
    let rules = || {
        (
            proptest::sample::subsequence(Trigger::ALL.to_vec(), 0..3),
            proptest::option::of(0u32..30),
            proptest::sample::subsequence(vec!["bug", "perf"], 0..2),
            any::<bool>(),
        )
            .prop_map(|(events, min, labels, held)| {
                let mut r = Rule::any("r");
                r.events = events;
                r.min_importance = min.map(f64::from);
                r.labels = labels.iter().map(|l| l.to_string()).collect();
                (r, held)
            })
    };
    let strategy = (
        proptest::collection::vec(rules(), 1..4),
        proptest::collection::vec(
            (
                proptest::collection::vec(
                    (0u8..8, any::<bool>(), any::<bool>(), any::<bool>()),
                    0..8,
                ),
                any::<bool>(),
            ),
            1..6,
        ),
    );
    let mut runner = TestRunner::new(Config {
        cases: cases(24),
        ..Config::default()
    });
    let make = std::cell::RefCell::new(make);
    let result = runner.run(&strategy, |(rules, runs)| {
        let rules: Vec<(Rule, bool)> = rules
            .into_iter()
            .enumerate()
            .map(|(i, (r, held))| {
                (
                    Rule {
                        name: format!("r{i}"),
                        ..r
                    },
                    held,
                )
            })
            .collect();
        let refs: Vec<RuleRef<'_>> = rules
            .iter()
            .map(|(rule, held)| RuleRef { rule, held: *held })
            .collect();
        let mut store = (make.borrow_mut())();
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let weights = signals_core::importance::Weights::default();
        let mut comments: HashMap<u8, u64> = HashMap::new();
        let mut expected: Vec<Outgoing> = Vec::new();
        let start = ts("2026-11-01T00:00:00Z");
        for (i, (run, refused)) in runs.iter().enumerate() {
            let observed: Vec<ItemSnapshot> = run
                .iter()
                .map(|&(k, comment, close, perf)| {
                    let c = comments.entry(k).or_insert(0);
                    if comment {
                        *c += 1;
                    }
                    let mut s = issue(&k.to_string());
                    s.metrics.comments = *c;
                    if close {
                        s.state = ItemState::Closed;
                    }
                    if perf {
                        s.labels = vec!["perf".into()];
                    }
                    s
                })
                .collect();
            let at = start + SignedDuration::from_hours(i as i64);
            // A refused run is one out of order: before the last commit.
            let at = if *refused && i > 0 {
                start - SignedDuration::from_hours(1)
            } else {
                at
            };
            let mut commit = run_of(&*store, key, at, observed, 1);
            commit.messages = messages(
                &refs,
                &RunInput {
                    group: &group(),
                    repo: &tracked(),
                    repo_url: "https://github.com/o/n",
                    collected_at: at,
                    first_run: i == 0,
                    events: &commit.events,
                    snapshots: &commit.snapshots,
                    weights: &weights,
                    link: None,
                },
            );
            if store.commit_run(key, &commit).is_ok() {
                expected.extend(commit.messages);
            }
        }
        let mut stored: Vec<(String, String, bool, String)> = Vec::new();
        for (state, held) in [(MessageState::Pending, false), (MessageState::Held, true)] {
            for m in store.outbox_messages(state, None).unwrap() {
                stored.push((
                    m.delivery,
                    m.rule,
                    held,
                    serde_json::to_string(&m.payload).unwrap(),
                ));
            }
        }
        stored.sort();
        let mut want: Vec<(String, String, bool, String)> = expected
            .into_iter()
            .map(|m| {
                (
                    m.delivery,
                    m.rule,
                    m.held,
                    serde_json::to_string(&m.payload).unwrap(),
                )
            })
            .collect();
        want.sort();
        prop_assert_eq!(stored, want);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
