//! What a store of Repo Signals is, whichever database holds it: the
//! roles a store plays (traits), the values they speak, the codec of
//! column values and the row decoding both backends share, and the store
//! test suite.
//!
//! Two backends implement every role, each in its own crate:
//! `signals-store-sqlite` (`Store`, one file, the embedded default) and
//! `signals-store-pg` (`PgStore`, PostgreSQL, for several workers on
//! several machines). Both keep the same schema shape (content-addressed
//! texts, one row per distinct snapshot, events, runs), each with its own
//! numbered migrations, and the same suite ([`suite`], feature `suite`)
//! runs against both, so they cannot drift.
//!
//! This crate has no database dependency and holds no query: each backend
//! writes its own. It names only what the portable dump carries, the same
//! in both schemas ([`dump::Table`]: tables, columns, the order of rows),
//! and decodes a snapshot's row ([`RawParts`]) for both. Its API speaks
//! signals-core types and plain values, never a database binding's types.
//!
//! # Roles
//!
//! Each role is a trait, implemented by each backend in the module that
//! holds its SQL (the same file name in each crate), and [`Backend`] is
//! all of them, what the binary holds:
//!
//! - [`RunWrites`] (`write.rs`): register a repository, commit a run, record
//!   a failure, purge.
//! - [`Reads`] (`read.rs`): what a run plans from, the repositories,
//!   `signals status`, an item's history.
//! - [`StreamReads`] (`stream.rs`): what `signals export` streams in
//!   batches.
//! - [`PagedReads`] (`paged.rs`): what `signals serve` reads a page at a
//!   time.
//! - [`TrendReads`] (`trends.rs`): the runs' contexts and items' growth.
//! - [`HttpState`] (`http.rs`): the HTTP cache, rate limits, token locks.
//! - [`Dump`] (`dump.rs`): every row out and in, for `signals migrate`.
//! - [`Outbox`] (`outbox.rs`): alerts claimed, settled, digested.
//! - [`Owners`] (`owners.rs`): owners' listings and their repositories.
//! - [`ReferenceReads`] (`references.rs`): links between items of a group.
//! - [`CommentStore`] (`comments.rs`): comments and reviews.
//! - [`SearchIndex`] (`search.rs`): the word index.
//! - [`RelatedStore`] (`related.rs`): related items' profiles and lists.
//! - [`RunStaging`] (`staging.rs`): a run's items as its pages arrive,
//!   invisible until its commit.
//!
//! Reads take `&self`, writes `&mut self`. Adding a read means one method
//! on one role here and its implementation in the same module of each
//! backend. What only tests read is not a role: [`suite::WholeReads`]
//! builds it from the roles.
//!
//! A caller that uses one role takes that role (`&dyn Outbox`,
//! `&dyn HttpState`), and a `&dyn Backend` coerces to it. [`Backend`] is
//! the bound of a caller that plays several roles at once (a run plans,
//! stages, commits and keeps its HTTP state; export streams, pages and
//! links), since `dyn` cannot name a sum of traits.

#![deny(missing_docs)]

pub mod codec;
pub mod comments;
pub mod dump;
mod error;
pub mod events;
mod http;
pub mod lifecycle;
pub mod outbox;
pub mod owners;
mod paged;
mod read;
pub mod references;
pub mod related;
pub mod search;
mod snapshots;
pub mod staging;
mod stream;
#[cfg(feature = "suite")]
pub mod suite;
mod trends;
mod write;

use std::fmt;

pub use comments::CommentStore;
pub use dump::Dump;
pub use error::{DbError, Result, StoreError};
pub use http::{CachedResponse, HttpState, RateLimit, SeenLimit, check_cacheable};
pub use lifecycle::LifecycleStore;
pub use outbox::{MessageState, Outbox, OutboxMessage, RuleOutbox, Settle};
pub use owners::{OwnerRef, OwnerRepo, OwnerStatus, Owners};
pub use paged::{PagedReads, TrailPage, TrailPlan, TrailSlice, trail_plan};
pub use read::{
    Failure, Reads, ReconcileMarks, RepoStatus, RepoSummary, RepoTotals, RepoView, RunRow,
    RunStatus, Status, SummaryRow, TotalsRow, TrailRow, discussions_off_from, run_record_from,
    summary_from, totals_from, trail_event_from,
};
pub use references::{Linked, Links, ReferenceReads, SharedItem};
pub use related::{
    Applied, RelatedEntry, RelatedStore, RelatedUpdate, StoredProfile, StoredVector,
};
pub use search::{SearchIndex, SearchState, SearchUpdate};
pub use signals_core::lifecycle::verdict::StateChange;
pub use snapshots::{Parts, RawParts, TitleUrl, head_title_url, state_code};
pub use staging::{RunStaging, Staged, StagedPart, StagedParts};
pub use stream::{LatestItem, RepoOutline, StreamReads, TrailKey};
pub use trends::{
    ContextRow, GrowthRow, SightingRow, TrendReads, contexts_from, growth_from, sightings_from,
};
pub use write::{
    KeptPulls, PullsKept, RequestStats, RunCommit, RunWrites, check_commit, check_staged_commit,
};

/// A store of repositories, runs, snapshots, events, failures, HTTP state,
/// alerts and owners: every role at once, what the binary holds (as
/// `Box<dyn Backend>` or `impl Backend`). Implemented for any type that
/// plays every role.
pub trait Backend:
    RunWrites
    + Reads
    + StreamReads
    + PagedReads
    + TrendReads
    + HttpState
    + Dump
    + Outbox
    + Owners
    + ReferenceReads
    + CommentStore
    + SearchIndex
    + RelatedStore
    + RunStaging
    + LifecycleStore
{
}

impl<T> Backend for T where
    T: RunWrites
        + Reads
        + StreamReads
        + PagedReads
        + TrendReads
        + HttpState
        + Dump
        + Outbox
        + Owners
        + ReferenceReads
        + CommentStore
        + SearchIndex
        + RelatedStore
        + RunStaging
        + LifecycleStore
        + ?Sized
{
}

/// The stable key of a tracked repository in a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RepoKey(i64);

impl RepoKey {
    /// The key as the database stores it (for backends).
    pub fn from_raw(key: i64) -> RepoKey {
        RepoKey(key)
    }

    /// The number the database stores.
    pub fn raw(self) -> i64 {
        self.0
    }
}

impl fmt::Display for RepoKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
