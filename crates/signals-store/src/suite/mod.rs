//! The store test suite, run against every backend (SQLite in
//! `signals-store-sqlite`'s `tests/it`, PostgreSQL in `signals-store-pg`'s),
//! so the two cannot drift. Each check takes a factory of fresh, empty
//! stores; the checks are grouped by the role they exercise, one module
//! each. [`WholeReads`] reads what only tests read, from the roles.
//!
//! Built with the `suite` feature, which the backend crates and the binary
//! enable for their tests only; not part of the store's API for the
//! binary.

#![allow(missing_docs)]

mod comments;
mod dump;
mod histories;
mod http;
mod lifecycle;
mod outbox;
mod owners;
mod paged;
mod reads;
mod references;
mod related;
mod search;
mod staging;
mod stream;
mod totals;
mod trends;
mod whole;
mod writes;

use jiff::{SignedDuration, Timestamp};
use signals_core::run::account;
use signals_core::{
    Group, ItemDetail, ItemSnapshot, ItemState, Metrics, News, RepoContext, RepoName, RunRecord,
    Source, TrackedRepo,
};

use crate::{Backend, RepoKey, RequestStats, RunCommit};

pub use comments::*;
pub use dump::*;
pub use histories::*;
pub use http::*;
pub use lifecycle::*;
pub use outbox::*;
pub use owners::*;
pub use paged::*;
pub use reads::*;
pub use references::*;
pub use related::*;
pub use search::*;
pub use staging::*;
pub use stream::*;
pub use totals::*;
pub use trends::*;
pub use whole::WholeReads;
pub use writes::*;

/// Makes a fresh, empty store.
pub type Factory<'a> = &'a mut dyn FnMut() -> Box<dyn Backend>;

/// A check of the suite.
pub type Check = fn(Factory<'_>);

/// Every check, by name.
pub const CHECKS: &[(&str, Check)] = &[
    (
        "comments_upsert_and_read_back_by_repository",
        comments_upsert_and_read_back_by_repository,
    ),
    ("commit_run_round_trips", commit_run_round_trips),
    (
        "history_keeps_every_distinct_snapshot",
        history_keeps_every_distinct_snapshot,
    ),
    (
        "a_refused_commit_leaves_the_store_as_before",
        a_refused_commit_leaves_the_store_as_before,
    ),
    (
        "failures_are_recorded_alone_and_status_shows_them",
        failures_are_recorded_alone_and_status_shows_them,
    ),
    (
        "ensure_repository_keeps_its_key_and_updates_display_fields",
        ensure_repository_keeps_its_key_and_updates_display_fields,
    ),
    (
        "the_http_cache_and_rate_limits_round_trip",
        the_http_cache_and_rate_limits_round_trip,
    ),
    (
        "purge_deletes_one_repository_and_its_texts",
        purge_deletes_one_repository_and_its_texts,
    ),
    (
        "dump_and_load_copy_everything",
        dump_and_load_copy_everything,
    ),
    (
        "changed_counts_add_up_to_the_events",
        changed_counts_add_up_to_the_events,
    ),
    (
        "exported_documents_equal_the_reference_rebuilt_from_full_snapshots",
        exported_documents_equal_the_reference_rebuilt_from_full_snapshots,
    ),
    ("close_times_round_trip", close_times_round_trip),
    (
        "trend_reads_return_the_runs_and_growth_since_a_time",
        trend_reads_return_the_runs_and_growth_since_a_time,
    ),
    (
        "download_counts_are_stored_when_they_move",
        download_counts_are_stored_when_they_move,
    ),
    (
        "advisories_read_back_with_their_latest_snapshot",
        advisories_read_back_with_their_latest_snapshot,
    ),
    (
        "alerts_commit_with_their_run_and_are_claimed_once",
        alerts_commit_with_their_run_and_are_claimed_once,
    ),
    (
        "digests_fold_held_alerts_once_and_purge_takes_them",
        digests_fold_held_alerts_once_and_purge_takes_them,
    ),
    (
        "the_outbox_holds_exactly_the_messages_of_committed_runs",
        the_outbox_holds_exactly_the_messages_of_committed_runs,
    ),
    (
        "status_totals_count_items_events_requests_and_failures_in_a_row",
        status_totals_count_items_events_requests_and_failures_in_a_row,
    ),
    (
        "status_totals_equal_a_recount_after_every_kind_of_write",
        status_totals_equal_a_recount_after_every_kind_of_write,
    ),
    (
        "paged_reads_equal_the_whole_view",
        paged_reads_equal_the_whole_view,
    ),
    (
        "batched_reads_equal_the_whole_view",
        batched_reads_equal_the_whole_view,
    ),
    (
        "reconcile_marks_and_open_items_plan_a_reconcile",
        reconcile_marks_and_open_items_plan_a_reconcile,
    ),
    (
        "the_kept_count_of_open_pulls_is_written_by_runs",
        the_kept_count_of_open_pulls_is_written_by_runs,
    ),
    (
        "owners_keep_their_repositories_and_are_claimed_once_per_interval",
        owners_keep_their_repositories_and_are_claimed_once_per_interval,
    ),
    (
        "compact_rows_keep_every_value_and_the_trail_order",
        compact_rows_keep_every_value_and_the_trail_order,
    ),
    (
        "references_link_items_within_their_group",
        references_link_items_within_their_group,
    ),
    (
        "the_word_index_follows_the_latest_snapshots",
        the_word_index_follows_the_latest_snapshots,
    ),
    (
        "a_prefix_reads_the_lists_of_its_terms_at_once",
        a_prefix_reads_the_lists_of_its_terms_at_once,
    ),
    (
        "a_stage_keeps_the_last_sighting_and_reads_back_in_chunks",
        a_stage_keeps_the_last_sighting_and_reads_back_in_chunks,
    ),
    (
        "a_stage_belongs_to_one_run_and_a_new_one_discards_it",
        a_stage_belongs_to_one_run_and_a_new_one_discards_it,
    ),
    (
        "a_stage_is_invisible_to_reads_and_purge_takes_it",
        a_stage_is_invisible_to_reads_and_purge_takes_it,
    ),
    (
        "a_staged_commit_stores_what_a_held_one_does",
        a_staged_commit_stores_what_a_held_one_does,
    ),
    (
        "a_staged_commit_is_all_or_nothing",
        a_staged_commit_is_all_or_nothing,
    ),
    (
        "replies_of_items_are_their_share_of_the_replies",
        replies_of_items_are_their_share_of_the_replies,
    ),
    (
        "lifecycle_is_kept_with_its_run_and_read_back",
        lifecycle_is_kept_with_its_run_and_read_back,
    ),
    (
        "voices_are_read_from_an_instant_with_associations",
        voices_are_read_from_an_instant_with_associations,
    ),
    (
        "merges_are_kept_once_per_pull_and_read_from_an_instant",
        merges_are_kept_once_per_pull_and_read_from_an_instant,
    ),
    (
        "related_items_round_trip_within_their_group",
        related_items_round_trip_within_their_group,
    ),
    (
        "related_updates_from_a_moved_through_are_not_written",
        related_updates_from_a_moved_through_are_not_written,
    ),
    (
        "gone_items_are_marked_by_their_run_until_a_catch_up_passes_them",
        gone_items_are_marked_by_their_run_until_a_catch_up_passes_them,
    ),
];

/// Runs every check, naming each on stderr first (so a failure names its
/// check).
pub fn run_all(make: Factory<'_>) {
    for (name, check) in CHECKS {
        eprintln!("store suite: {name}");
        check(make);
    }
}

/// Property-test cases: the default, or `SIGNALS_SUITE_CASES` (a backend
/// whose fresh stores are slow may run fewer).
fn cases(default: u32) -> u32 {
    std::env::var("SIGNALS_SUITE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub fn ts(s: &str) -> Timestamp {
    s.parse().unwrap()
}

pub fn group() -> Group {
    Group {
        id: "engines".into(),
        name: "Inference engines".into(),
    }
}

pub fn tracked() -> TrackedRepo {
    TrackedRepo {
        id: "n".into(),
        source: Source::Github.into(),
        repo: RepoName::parse("o/n").unwrap(),
        name: "N".into(),
        keywords: vec!["n".into(), "engine".into()],
    }
}

pub fn context(stars: u64) -> RepoContext {
    RepoContext {
        repository: RepoName::parse("o/n").unwrap(),
        url: "https://github.com/o/n".into(),
        description: "an engine".into(),
        homepage: String::new(),
        language: "Rust".into(),
        topics: vec!["llm".into()],
        default_branch: "main".into(),
        stars,
        forks: 2,
        open_issues: 3,
        archived: false,
        license: Some("MIT".into()),
        pushed_at: None,
        created_at: None,
    }
}

pub fn issue(key: &str) -> ItemSnapshot {
    ItemSnapshot {
        repo: RepoName::parse("o/n").unwrap(),
        key: key.to_string(),
        title: format!("issue {key}"),
        text: "body".into(),
        url: format!("https://github.com/o/n/issues/{key}"),
        created_at: ts("2026-11-01T00:00:00Z"),
        updated_at: ts("2026-11-20T00:00:00Z"),
        metrics: Metrics {
            reactions: 1,
            comments: 2,
        },
        labels: vec!["bug".into()],
        author: "alice".into(),
        state: ItemState::Open,
        closed_at: None,
        assignees: vec![],
        detail: ItemDetail::issue(),
    }
}

pub fn id(s: &ItemSnapshot) -> String {
    s.id(Source::Github)
}

/// Builds the commit of a run the way the collector does: account the
/// observed items against the store's latest snapshots.
pub fn run_of(
    store: &dyn Backend,
    key: RepoKey,
    at: Timestamp,
    observed: Vec<ItemSnapshot>,
    stars: u64,
) -> RunCommit {
    let ids: Vec<String> = observed.iter().map(id).collect();
    let previous = store.latest_snapshots_for(key, &ids).unwrap();
    let delta = account(Source::Github, observed, &previous);
    let references = signals_core::references::of_snapshots(&delta.snapshots);
    RunCommit {
        record: RunRecord {
            collected_at: at,
            since: at - SignedDuration::from_hours(24),
            observed_count: delta.observed_count,
            changed_count: delta.changed_count(),
        },
        context: context(stars),
        news: News::default(),
        snapshots: delta.snapshots,
        events: delta.events,
        references,
        stats: RequestStats {
            requests: 4,
            not_modified: 1,
            bytes_received: 12_345,
            retries: 0,
        },
        renamed_to: None,
        messages: vec![],
        reconciled: false,
        open_pulls: Default::default(),
        downloads: Vec::new(),
        gone: Vec::new(),
    }
}
