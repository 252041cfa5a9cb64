//! Generated histories of runs (proptest), committed the way the collector
//! does, and the reference they are checked against: counts add up, and
//! the documents a store gives equal those rebuilt from full snapshots.

use std::collections::{BTreeMap, HashMap, HashSet};

use jiff::{SignedDuration, Timestamp};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use signals_core::run::account;
use signals_core::{ItemSnapshot, ItemState, News, Observation, RunRecord, Source};

use super::*;
use crate::{Backend, RepoKey};

/// One step of a generated history: which items a run observes, and which
/// of them got a new comment since the last run.
fn observations() -> impl Strategy<Value = Vec<Vec<(u8, bool, bool)>>> {
    proptest::collection::vec(
        proptest::collection::vec((0u8..12, any::<bool>(), any::<bool>()), 0..10),
        1..8,
    )
}

/// Over any sequence of runs, the sum of changedCount equals the number
/// of stored observation events, and the store's latest snapshots are the
/// last ones observed.
pub fn changed_counts_add_up_to_the_events(make: Factory<'_>) {
    let mut runner = TestRunner::new(Config {
        cases: cases(48),
        ..Config::default()
    });
    let make = std::cell::RefCell::new(make);
    let result = runner.run(&observations(), |runs| {
        let mut store = (make.borrow_mut())();
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let mut model: HashMap<String, ItemSnapshot> = HashMap::new();
        let mut comments: HashMap<u8, u64> = HashMap::new();
        let start = ts("2026-11-01T00:00:00Z");
        for (i, run) in runs.iter().enumerate() {
            let observed: Vec<ItemSnapshot> = run
                .iter()
                .map(|&(k, comment, close)| {
                    let c = comments.entry(k).or_insert(0);
                    if comment {
                        *c += 1;
                    }
                    let mut s = issue(&k.to_string());
                    s.metrics.comments = *c;
                    if close {
                        s.state = ItemState::Closed;
                    }
                    s
                })
                .collect();
            let at = start + SignedDuration::from_millis(3_600_000 * i as i64 + 7);
            let commit = run_of(&*store, key, at, observed, 1);
            for (id, s) in &commit.snapshots {
                model.insert(id.clone(), s.clone());
            }
            store.commit_run(key, &commit).unwrap();
        }
        let view = store.repository_view(key).unwrap().unwrap();
        let sum: u64 = view.runs.iter().map(|r| r.changed_count).sum();
        prop_assert_eq!(sum, view.event_count);
        prop_assert_eq!(sum, view.trail.len() as u64);
        prop_assert!(
            view.runs
                .iter()
                .all(|r| r.changed_count <= r.observed_count)
        );
        prop_assert_eq!(view.runs.len(), runs.len());
        prop_assert_eq!(
            store
                .latest_snapshots(key)
                .unwrap()
                .into_iter()
                .collect::<HashMap<_, _>>(),
            model
        );
        // The trail is ordered by run, then by item id.
        let order: Vec<(Timestamp, String)> = view
            .trail
            .iter()
            .map(|e| (e.at, e.item_id.clone()))
            .collect();
        let mut sorted = order.clone();
        sorted.sort();
        prop_assert_eq!(order, sorted);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// One observation of a generated history: item, a new comment, closed, a
/// body among three (so bodies change, come back and are shared), a label
/// among two, a new reaction.
pub(super) type Step = (u8, bool, bool, u8, bool, bool);

pub(super) fn histories() -> impl Strategy<Value = Vec<Vec<Step>>> {
    proptest::collection::vec(
        proptest::collection::vec(
            (
                0u8..10,
                any::<bool>(),
                any::<bool>(),
                0u8..3,
                any::<bool>(),
                any::<bool>(),
            ),
            0..8,
        ),
        1..7,
    )
}

/// Commits a generated history, a run an hour from 2026-11-01: comments
/// counted per item, bodies among three, the `bug` label, closes.
pub(super) fn commit_histories(store: &mut dyn Backend, key: RepoKey, runs: &[Vec<Step>]) {
    let mut counts: HashMap<u8, u64> = HashMap::new();
    let start = ts("2026-11-01T00:00:00Z");
    for (i, run) in runs.iter().enumerate() {
        let at = start + SignedDuration::from_hours(i as i64);
        let observed: Vec<ItemSnapshot> = run
            .iter()
            .map(|&(k, comment, close, body, label, _)| {
                let c = counts.entry(k).or_insert(0);
                if comment {
                    *c += 1;
                }
                let mut s = issue(&k.to_string());
                s.metrics.comments = *c;
                s.text = ["body", "another body", ""][body as usize].to_string();
                if label {
                    s.labels.push("bug".into());
                }
                if close {
                    s.state = ItemState::Closed;
                }
                s
            })
            .collect();
        let commit = run_of(&*store, key, at, observed, 1);
        store.commit_run(key, &commit).unwrap();
    }
}

/// The reference path: the earlier whole-state design, kept here to check
/// the current one against. Every snapshot is kept whole, a run is accounted
/// against the whole latest state (not a per-item query of the store), and
/// the export's inputs are rebuilt from those full snapshots.
#[derive(Default)]
struct Reference {
    /// Every snapshot ever kept, whole, in run order.
    full: Vec<(usize, String, ItemSnapshot)>,
    runs: Vec<RunRecord>,
    /// (run instant, item id) of every event, in run then id order.
    trail: Vec<(Timestamp, String)>,
    changed_in_latest: HashSet<String>,
}

impl Reference {
    fn latest(&self) -> BTreeMap<String, ItemSnapshot> {
        let mut latest = BTreeMap::new();
        for (_, id, s) in &self.full {
            latest.insert(id.clone(), s.clone());
        }
        latest
    }

    fn run(&mut self, at: Timestamp, observed: Vec<ItemSnapshot>) {
        let previous: HashMap<String, ItemSnapshot> = self.latest().into_iter().collect();
        let delta = account(Source::Github, observed, &previous);
        let n = self.runs.len();
        self.runs.push(RunRecord {
            collected_at: at,
            since: at - SignedDuration::from_hours(24),
            observed_count: delta.observed_count,
            changed_count: delta.changed_count(),
        });
        self.changed_in_latest = delta
            .events
            .iter()
            .filter(|e| matches!(e.observation, Observation::Changed(_)))
            .map(|e| e.item_id.clone())
            .collect();
        for e in &delta.events {
            self.trail.push((at, e.item_id.clone()));
        }
        for (id, s) in delta.snapshots {
            self.full.push((n, id, s));
        }
    }
}

/// For any sequence of runs, the v3 document and the scores the export
/// computes from the store (content-addressed texts, runs that read only
/// the observed items' latest snapshots, importance at the dataset's
/// instant) equal those rebuilt from full snapshots by the reference path.
pub fn exported_documents_equal_the_reference_rebuilt_from_full_snapshots(make: Factory<'_>) {
    use signals_core::dataset::{DatasetInput, build};
    use signals_core::importance::{Weights, score};

    let mut runner = TestRunner::new(Config {
        cases: cases(40),
        ..Config::default()
    });
    let make = std::cell::RefCell::new(make);
    let result = runner.run(&histories(), |runs| {
        let mut store = (make.borrow_mut())();
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let mut reference = Reference::default();
        let mut counts: HashMap<u8, (u64, u64)> = HashMap::new();
        let bodies = ["body", "a longer body, with **markdown**", ""];
        let start = ts("2026-11-01T00:00:00Z");
        for (i, run) in runs.iter().enumerate() {
            let at = start + SignedDuration::from_millis(3_600_000 * i as i64 + 11);
            let observed: Vec<ItemSnapshot> = run
                .iter()
                .map(|&(k, comment, close, body, label, reaction)| {
                    let c = counts.entry(k).or_insert((0, 0));
                    if comment {
                        c.0 += 1;
                    }
                    if reaction {
                        c.1 += 1;
                    }
                    let mut s = issue(&k.to_string());
                    s.metrics.comments = c.0;
                    s.metrics.reactions = c.1;
                    s.text = bodies[body as usize].to_string();
                    if label {
                        s.labels.push("help wanted".into());
                    }
                    if close {
                        s.state = ItemState::Closed;
                    }
                    s.updated_at = at;
                    s
                })
                .collect();
            reference.run(at, observed.clone());
            let commit = run_of(&*store, key, at, observed, 7);
            store.commit_run(key, &commit).unwrap();
        }

        let view = store.repository_view(key).unwrap().unwrap();
        let items: Vec<ItemSnapshot> = view.items.values().cloned().collect();
        let exported = build(&DatasetInput {
            group: &view.summary.group,
            repo: &view.summary.repo,
            context: &view.context,
            news: &view.news,
            runs: &view.runs,
            items: &items,
            changed_in_latest: &view.changed_in_latest,
        })
        .unwrap();

        let latest = reference.latest();
        let reference_items: Vec<ItemSnapshot> = latest.values().cloned().collect();
        let rebuilt = build(&DatasetInput {
            group: &group(),
            repo: &tracked(),
            context: &context(7),
            news: &News::default(),
            runs: &reference.runs,
            items: &reference_items,
            changed_in_latest: &reference.changed_in_latest,
        })
        .unwrap();
        prop_assert_eq!(
            serde_json::to_value(&exported).unwrap(),
            serde_json::to_value(&rebuilt).unwrap()
        );

        let instant = view.runs.last().unwrap().collected_at;
        let weights = Weights::default();
        for (id, item) in &view.items {
            prop_assert_eq!(
                score(item, instant, &weights),
                score(&latest[id], instant, &weights)
            );
        }
        prop_assert_eq!(view.items.len(), latest.len());
        let trail: Vec<(Timestamp, String)> = view
            .trail
            .iter()
            .map(|e| (e.at, e.item_id.clone()))
            .collect();
        prop_assert_eq!(trail, reference.trail.clone());
        // Every kept snapshot of every item, back from the store whole.
        for id in latest.keys() {
            let history: Vec<ItemSnapshot> = store
                .snapshot_history(key, id)
                .unwrap()
                .into_iter()
                .map(|(_, s)| s)
                .collect();
            let expected: Vec<ItemSnapshot> = reference
                .full
                .iter()
                .filter(|(_, i, _)| i == id)
                .map(|(_, _, s)| s.clone())
                .collect();
            prop_assert_eq!(history, expected);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
