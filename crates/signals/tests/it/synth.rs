//! Synthetic stores, generated through the store API (no HTTP): the scale
//! tests and the scale benchmark (`benches/scale.rs` includes this file)
//! build repositories of any size the way a collector would, with
//! `signals_core::run::account` deciding events and snapshots.

#![allow(dead_code)] // each user takes what it needs

use jiff::{SignedDuration, Timestamp};
use signals_core::run::account;
use signals_core::{
    Group, ItemDetail, ItemSnapshot, ItemState, Metrics, News, RepoContext, RepoName, RequestStats,
    RunRecord, Source, TrackedRepo,
};
use signals_store::{Reads, RepoKey, RunCommit, RunWrites};
use signals_store_sqlite::Store;

/// The group every synthetic repository belongs to.
pub fn group() -> Group {
    Group {
        id: "g".into(),
        name: "Synthetic".into(),
    }
}

/// Repository number `n`: `o/r<n>`, id `r<n>`.
pub fn tracked(n: usize) -> TrackedRepo {
    TrackedRepo {
        id: format!("r{n}"),
        source: Source::Github.into(),
        repo: RepoName::parse(&format!("o/r{n}")).unwrap(),
        name: format!("Repository {n}"),
        keywords: vec![],
    }
}

/// Item `k` of repository `n`: issues and pull requests, with a body of
/// about `body_len` bytes that differs between items.
pub fn item(n: usize, k: usize, body_len: usize, at: Timestamp) -> ItemSnapshot {
    let repo = RepoName::parse(&format!("o/r{n}")).unwrap();
    let mut text = format!("Item {k} of repository {n}. ");
    while text.len() < body_len {
        text.push_str("Steps to reproduce: run the thing, watch it fail, read the log. ");
    }
    text.truncate(body_len.max(16));
    ItemSnapshot {
        url: format!("https://github.com/{repo}/issues/{k}"),
        repo,
        key: k.to_string(),
        title: format!("Synthetic item {k}: something to look at"),
        text,
        created_at: at - SignedDuration::from_hours(24 * 30),
        updated_at: at - SignedDuration::from_secs(k as i64 % 80_000),
        metrics: Metrics {
            reactions: (k % 7) as u64,
            comments: (k % 13) as u64,
        },
        labels: match k % 4 {
            0 => vec!["bug".into()],
            1 => vec!["enhancement".into(), "area:api".into()],
            _ => vec![],
        },
        author: format!("user{}", k % 50),
        state: if k.is_multiple_of(5) {
            ItemState::Closed
        } else {
            ItemState::Open
        },
        closed_at: k
            .is_multiple_of(5)
            .then(|| at - SignedDuration::from_hours(24 * (k as i64 % 30))),
        assignees: vec![],
        detail: if k.is_multiple_of(3) {
            ItemDetail::PullRequest {
                draft: false,
                merged: false,
                merged_at: None,
                association: None,
            }
        } else {
            ItemDetail::issue()
        },
    }
}

pub fn context(n: usize) -> RepoContext {
    RepoContext {
        repository: RepoName::parse(&format!("o/r{n}")).unwrap(),
        url: format!("https://github.com/o/r{n}"),
        description: format!("Synthetic repository {n}"),
        homepage: String::new(),
        language: "Rust".into(),
        topics: vec![],
        default_branch: "main".into(),
        stars: 100,
        forks: 10,
        open_issues: 5,
        archived: false,
        license: None,
        pushed_at: None,
        created_at: None,
    }
}

/// Commits a run of repository `n` at `at` that observed `observed`, the
/// way the pipeline does (previous snapshots of the observed items only).
pub fn commit<S: Reads + RunWrites + signals_store::SearchIndex + ?Sized>(
    store: &mut S,
    key: RepoKey,
    n: usize,
    at: Timestamp,
    observed: Vec<ItemSnapshot>,
) {
    let ids: Vec<String> = observed.iter().map(|i| i.id(Source::Github)).collect();
    let previous = store.latest_snapshots_for(key, &ids).unwrap();
    let delta = account(Source::Github, observed, &previous);
    store
        .commit_run(
            key,
            &RunCommit {
                record: RunRecord {
                    collected_at: at,
                    since: at - SignedDuration::from_hours(24),
                    observed_count: delta.observed_count,
                    changed_count: delta.changed_count(),
                },
                context: context(n),
                news: News::default(),
                snapshots: delta.snapshots,
                events: delta.events,
                references: vec![],
                stats: RequestStats::default(),
                renamed_to: None,
                messages: vec![],
                reconciled: false,
                open_pulls: Default::default(),
                downloads: Vec::new(),
                gone: Vec::new(),
            },
        )
        .unwrap();
    // The word index reads what the run committed, as after a collection.
    signals_store::search::catch_up(store, key).unwrap();
}

/// Adds repositories `0..repos` with `items` items each, one first run
/// each at `at`. Returns their keys.
pub fn populate(
    store: &mut Store,
    repos: usize,
    items: usize,
    body_len: usize,
    at: Timestamp,
) -> Vec<RepoKey> {
    (0..repos)
        .map(|n| {
            let key = store.ensure_repository(&group(), &tracked(n)).unwrap();
            let observed = (1..=items).map(|k| item(n, k, body_len, at)).collect();
            commit(store, key, n, at, observed);
            key
        })
        .collect()
}

/// A later run of repository `n` in which items `1..=changed` gained a
/// reaction (and so a newer `updatedAt`).
pub fn bump(
    store: &mut Store,
    key: RepoKey,
    n: usize,
    changed: usize,
    body_len: usize,
    first: Timestamp,
    at: Timestamp,
) {
    let observed = (1..=changed)
        .map(|k| {
            let mut i = item(n, k, body_len, first);
            let previous = store
                .latest_snapshots_for(key, &[i.id(Source::Github)])
                .unwrap();
            if let Some(p) = previous.into_values().next() {
                i.metrics = p.metrics;
            }
            i.metrics.reactions += 1;
            i.updated_at = at;
            i
        })
        .collect();
    commit(store, key, n, at, observed);
}
