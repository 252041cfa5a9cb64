//! The kept totals of `signals status` (`repo_totals`): after
//! every kind of write (held and staged commits, failures in and out of
//! order, a purge of another repository), each repository's totals equal
//! a recount of what the check wrote, made here by hand.

use std::collections::BTreeSet;

use jiff::Timestamp;
use signals_core::{ItemSnapshot, RepoName, TrackedRepo};

use super::staging::{part_of, staged_of};
use super::{Factory, group, id, issue, run_of, tracked, ts};
use crate::{Backend, RepoKey, RepoTotals, RequestStats, RunCommit};

/// What the check wrote to one repository.
#[derive(Default)]
struct Written {
    /// Every item id a run observed.
    items: BTreeSet<String>,
    /// Each run's instant, changed count and requests, in commit order.
    runs: Vec<(Timestamp, u64, RequestStats)>,
    failures: Vec<Timestamp>,
}

impl Written {
    fn run(&mut self, observed: &[ItemSnapshot], run: &RunCommit) {
        self.items.extend(observed.iter().map(id));
        let record = &run.record;
        self.runs
            .push((record.collected_at, record.changed_count, run.stats));
    }

    /// The totals recounted: failures in a row are those after the last
    /// run, all of them before any.
    fn recount(&self) -> RepoTotals {
        let last = self.runs.last().map(|(at, _, _)| *at);
        let mut requests = RequestStats::default();
        for (_, _, s) in &self.runs {
            requests.requests += s.requests;
            requests.not_modified += s.not_modified;
            requests.bytes_received += s.bytes_received;
            requests.retries += s.retries;
        }
        RepoTotals {
            items: self.items.len() as u64,
            events: self.runs.iter().map(|(_, changed, _)| changed).sum(),
            failures: self.failures.len() as u64,
            failures_since_success: self
                .failures
                .iter()
                .filter(|f| last.is_none_or(|last| **f > last))
                .count() as u64,
            requests,
        }
    }
}

/// Asserts `status` shows `written`'s recount for `key`.
fn same(store: &dyn Backend, key: RepoKey, written: &Written, step: &str) {
    let status = store.status().unwrap();
    let repo = status
        .repositories
        .iter()
        .find(|r| r.summary.key == key)
        .unwrap_or_else(|| panic!("{step}: no status of {key:?}"));
    assert_eq!(repo.totals, written.recount(), "{step}");
    assert_eq!(repo.summary.run_count, written.runs.len() as u64, "{step}");
}

/// Requests that differ from run to run, so a sum that missed one shows.
fn stats(n: u64) -> RequestStats {
    RequestStats {
        requests: 10 * n + 1,
        not_modified: n,
        bytes_received: 1_000 * n + 7,
        retries: n % 2,
    }
}

fn held(
    store: &mut dyn Backend,
    key: RepoKey,
    at: &str,
    items: &[ItemSnapshot],
    n: u64,
) -> RunCommit {
    let mut run = run_of(store, key, ts(at), items.to_vec(), 5);
    run.stats = stats(n);
    store.commit_run(key, &run).unwrap();
    run
}

/// A run whose items are all staged, in pages of 2, committed in chunks
/// of 2.
fn staged(
    store: &mut dyn Backend,
    key: RepoKey,
    at: &str,
    items: &[ItemSnapshot],
    n: u64,
) -> RunCommit {
    let at = ts(at);
    let whole = run_of(store, key, at, items.to_vec(), 5);
    let mut run = run_of(store, key, at, vec![], 5);
    run.record = whole.record.clone();
    run.stats = stats(n);
    store.stage_start(key, at).unwrap();
    for page in items.chunks(2) {
        let page: Vec<(String, ItemSnapshot)> = page.iter().map(staged_of).collect();
        store.stage_items(key, at, &page).unwrap();
    }
    store
        .commit_staged(key, &run, 2, &mut |s, p| Ok(part_of(s, p)))
        .unwrap();
    run
}

fn fail(store: &mut dyn Backend, key: RepoKey, at: &str, written: &mut Written) {
    store.record_failure(key, ts(at), "http", "500").unwrap();
    written.failures.push(ts(at));
}

pub fn status_totals_equal_a_recount_after_every_kind_of_write(make: Factory<'_>) {
    let mut store = make();
    let a = store.ensure_repository(&group(), &tracked()).unwrap();
    let other = TrackedRepo {
        id: "m".into(),
        repo: RepoName::parse("o/m").unwrap(),
        ..tracked()
    };
    let b = store.ensure_repository(&group(), &other).unwrap();
    let (mut wa, mut wb) = (Written::default(), Written::default());
    same(&*store, a, &wa, "nothing written");

    fail(&mut *store, a, "2026-11-20T10:00:00Z", &mut wa);
    same(&*store, a, &wa, "a failure before any run");
    let items = [issue("1"), issue("2")];
    let run = held(&mut *store, a, "2026-11-20T11:00:00Z", &items, 1);
    wa.run(&items, &run);
    same(&*store, a, &wa, "a held commit");
    fail(&mut *store, a, "2026-11-20T12:00:00.5Z", &mut wa);
    // A clock behind the run's: not after it.
    fail(&mut *store, a, "2026-11-20T10:30:00Z", &mut wa);
    same(&*store, a, &wa, "failures after and before the run");

    let items = [issue("1"), issue("2"), issue("3")];
    let run = held(&mut *store, b, "2026-11-20T11:00:00Z", &items, 2);
    wb.run(&items, &run);
    fail(&mut *store, b, "2026-11-20T12:00:00Z", &mut wb);
    same(&*store, b, &wb, "another repository");
    same(&*store, a, &wa, "another repository's writes");

    // A failure later than the next run: still after it.
    fail(&mut *store, a, "2026-11-20T15:00:00Z", &mut wa);
    let mut changed = issue("2");
    changed.metrics.reactions += 4;
    let items = [changed, issue("3"), issue("4"), issue("5"), issue("6")];
    let run = staged(&mut *store, a, "2026-11-20T14:00:00Z", &items, 3);
    wa.run(&items, &run);
    same(&*store, a, &wa, "a staged commit");

    store.purge_repository(b).unwrap();
    same(&*store, a, &wa, "a purge of another repository");
    assert!(
        store
            .status()
            .unwrap()
            .repositories
            .iter()
            .all(|r| r.summary.key != b),
        "the purged repository is gone"
    );

    let mut changed = issue("1");
    changed.title = "changed".into();
    let items = [changed, issue("7")];
    let run = held(&mut *store, a, "2026-11-20T16:00:00Z", &items, 4);
    wa.run(&items, &run);
    same(&*store, a, &wa, "a held commit after a staged one");
    let items = [issue("7")];
    let run = staged(&mut *store, a, "2026-11-20T17:00:00Z", &items, 5);
    wa.run(&items, &run);
    fail(&mut *store, a, "2026-11-20T17:00:00.25Z", &mut wa);
    same(
        &*store,
        a,
        &wa,
        "a staged commit of nothing new, then a failure",
    );
}

/// Each repository's totals from `status`, by key: items, runs,
/// changed, requests, not modified, bytes, retries, failures, failures
/// since the last run (for the migration tests of both backends).
pub fn status_totals(store: &dyn Backend) -> Vec<(i64, [i64; 9])> {
    let mut out: Vec<(i64, [i64; 9])> = store
        .status()
        .unwrap()
        .repositories
        .iter()
        .map(|r| {
            let t = r.totals;
            let n = |v: u64| v as i64;
            (
                r.summary.key.raw(),
                [
                    n(t.items),
                    n(r.summary.run_count),
                    n(t.events),
                    n(t.requests.requests),
                    n(t.requests.not_modified),
                    n(t.requests.bytes_received),
                    n(t.requests.retries),
                    n(t.failures),
                    n(t.failures_since_success),
                ],
            )
        })
        .collect();
    out.sort();
    out
}

/// Runs and failures on three repositories, for the migration tests: one with failures after
/// its last run (one by a clock behind it), one failing before any
/// run, one never collected.
pub fn totals_history(store: &mut dyn Backend) -> [RepoKey; 3] {
    let repo = |id: &str| TrackedRepo {
        id: id.into(),
        repo: RepoName::parse(&format!("o/{id}")).unwrap(),
        ..tracked()
    };
    let keys = ["a", "b", "c"].map(|id| store.ensure_repository(&group(), &repo(id)).unwrap());
    for (h, items) in [(10, vec!["1", "2"]), (11, vec!["2", "3"]), (12, vec!["4"])] {
        let at = ts(&format!("2026-11-20T{h}:00:00Z"));
        let mut items: Vec<_> = items.into_iter().map(issue).collect();
        items[0].metrics.reactions += h;
        let mut run = run_of(store, keys[0], at, items, 5);
        run.stats.requests = h;
        store.commit_run(keys[0], &run).unwrap();
    }
    for at in [
        "2026-11-20T12:00:00.5Z",
        "2026-11-20T09:00:00Z",
        "2026-11-20T13:00:00Z",
    ] {
        store
            .record_failure(keys[0], ts(at), "http", "502")
            .unwrap();
    }
    store
        .record_failure(keys[1], ts("2026-11-20T10:00:00Z"), "not_found", "gone")
        .unwrap();
    keys
}
