//! The store as a trait: what the binary asks of a store, whichever
//! database holds it.
//!
//! Two implementations exist: [`Store`] (SQLite, the embedded default, in
//! this crate) and `PgStore` (PostgreSQL, in `signals-store-pg`, for several
//! workers on several machines). Both keep the same schema shape
//! (content-addressed texts, one row per distinct snapshot, events, runs),
//! each with its own numbered migrations, and the same store test suite
//! ([`crate::suite`]) runs against both, so they cannot drift.
//!
//! Reads take `&self`, writes `&mut self`. The HTTP cache and the rate
//! limits take `&self`: the host client writes them while a run reads.

use std::collections::{BTreeMap, HashMap, HashSet};

use jiff::Timestamp;
use signals_core::trends::Rising;
use signals_core::{Group, ItemSnapshot, RepoContext, RunRecord, TrackedRepo, TrailEvent};

use signals_core::notify::Outgoing;

use crate::dump::{Record, TableCounts};
use crate::outbox::{MessageState, OutboxMessage, RuleOutbox, Settle};
use crate::owners::{OwnerRef, OwnerRepo, OwnerStatus};
use crate::{
    CachedResponse, LatestItem, RateLimit, RepoKey, RepoOutline, RepoSummary, RepoView, Result,
    RunCommit, Status, Store, TextIds, TrailKey,
};

/// A store of repositories, runs, snapshots, events, failures and HTTP
/// state. See the crate documentation for what each method keeps.
pub trait Backend {
    /// The store for messages: its file, or its PostgreSQL address without
    /// any password.
    fn describe(&self) -> String;
    /// The schema version (the number of this backend's migrations applied).
    fn schema_version(&self) -> Result<i64>;

    /// Registers a configured repository or updates its display fields;
    /// the key is stable for the (group id, repository id) pair.
    fn ensure_repository(&mut self, group: &Group, repo: &TrackedRepo) -> Result<RepoKey>;
    /// Records a successful run and everything it observed, all or nothing.
    fn commit_run(&mut self, repo: RepoKey, run: &RunCommit) -> Result<()>;
    /// Records a failed attempt; nothing else is written.
    fn record_failure(
        &mut self,
        repo: RepoKey,
        at: Timestamp,
        kind: &str,
        message: &str,
    ) -> Result<()>;
    /// Deletes a repository and its history; returns the runs deleted.
    fn purge_repository(&mut self, repo: RepoKey) -> Result<u64>;

    /// The latest successful run of a repository.
    fn last_successful_run(&self, repo: RepoKey) -> Result<Option<RunRecord>>;
    /// What plans a repository's next reconcile (issue 20): the instants of
    /// its first run and of its latest reconcile run.
    fn reconcile_marks(&self, repo: RepoKey) -> Result<(Option<Timestamp>, Option<Timestamp>)>;
    /// The signal ids of the items of a repository whose latest snapshot is
    /// open (a reconcile looks for those the host no longer lists).
    fn open_item_ids(&self, repo: RepoKey) -> Result<Vec<String>>;
    /// The latest snapshot of every item of a repository, by signal id.
    fn latest_snapshots(&self, repo: RepoKey) -> Result<BTreeMap<String, ItemSnapshot>>;
    /// The latest snapshot of each of `ids` the store has.
    fn latest_snapshots_for(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, ItemSnapshot>>;
    /// Every distinct snapshot of one item, oldest first, with the instant
    /// of the run that saw it.
    fn snapshot_history(
        &self,
        repo: RepoKey,
        item_id: &str,
    ) -> Result<Vec<(Timestamp, ItemSnapshot)>>;
    /// Every repository, by group id then repository id (byte order).
    fn repositories(&self) -> Result<Vec<RepoSummary>>;
    /// What the dataset and the page of one repository are built from;
    /// `None` before its first successful run.
    fn repository_view(&self, repo: RepoKey) -> Result<Option<RepoView>>;
    /// What `signals status` shows.
    fn status(&self) -> Result<Status>;
    /// A repository without its items and trail (runs, latest context and
    /// news); `None` before its first successful run.
    fn repository_outline(&self, repo: RepoKey) -> Result<Option<RepoOutline>>;
    /// At most `limit` latest snapshots of `repo`'s items, bodies
    /// included, in signal id order (byte order) after the id `after`
    /// (from the first when `None`), each with its event of the latest
    /// run: what `signals export` streams the dataset from, a batch at a
    /// time (issue 17).
    fn latest_items_after(
        &self,
        repo: RepoKey,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<LatestItem>>;
    /// At most `limit` events of `repo`'s trail in its order (run, then
    /// item id) after the event `after` (a run's row id and an item id),
    /// each with its run's row id; titles and URLs are left empty.
    fn trail_keys_after(
        &self,
        repo: RepoKey,
        after: Option<(i64, &str)>,
        limit: usize,
    ) -> Result<Vec<(i64, TrailEvent)>>;
    /// The trail events of `keys` (from [`Backend::trail_keys_after`]),
    /// whole, in the order of `keys`.
    fn trail_events(&self, repo: RepoKey, keys: &[TrailKey]) -> Result<Vec<TrailEvent>>;
    /// The latest snapshot of every item of `repo`, in signal id order,
    /// without its body (`text` empty), one at a time, with its texts' ids.
    fn each_latest_head(
        &self,
        repo: RepoKey,
        each: &mut dyn FnMut(String, ItemSnapshot, TextIds) -> Result<()>,
    ) -> Result<()>;
    /// The ids of the texts that may contain `q` (lower-cased),
    /// case-insensitively: a superset of those that do, from a text index;
    /// `None` when the store cannot narrow the search (no index, or a
    /// query it cannot use: see [`crate::searchable`]).
    fn texts_matching(&self, q: &str) -> Result<Option<HashSet<i64>>>;
    /// The ids of the items with a `changed` event in the latest run.
    fn changed_in_latest(&self, repo: RepoKey) -> Result<HashSet<String>>;
    /// The trail's total and its events `offset..offset + limit`, newest
    /// first (the reverse of `RepoView::trail`), reading only those.
    fn trail_page(&self, repo: RepoKey, offset: u64, limit: u64) -> Result<(u64, Vec<TrailEvent>)>;
    /// The instant and context of each run of `repo` since `since`, oldest
    /// first (trends' stars and forks).
    fn run_contexts(
        &self,
        repo: RepoKey,
        since: Timestamp,
    ) -> Result<Vec<(Timestamp, RepoContext)>>;
    /// The items of `repo` observed in a run after `from` that grew, with
    /// reactions plus comments then (or when first seen) and now (trends'
    /// rising: an item that did not grow cannot rise).
    fn growth_since(&self, repo: RepoKey, from: Timestamp) -> Result<Vec<Rising>>;

    /// The cached response for `url` and a token fingerprint.
    fn cache_get(&self, url: &str, fingerprint: &str) -> Result<Option<CachedResponse>>;
    /// Stores (replaces) a cached response.
    fn cache_put(
        &self,
        url: &str,
        fingerprint: &str,
        response: &CachedResponse,
        stored_at: Timestamp,
    ) -> Result<()>;
    /// Marks a cached response as used at `at`.
    fn cache_touch(&self, url: &str, fingerprint: &str, at: Timestamp) -> Result<()>;
    /// Deletes cached responses unused since `before`; returns how many.
    fn cache_prune(&self, before: Timestamp) -> Result<usize>;
    /// Records the rate limit last reported for a key (a token fingerprint,
    /// prefixed by the host name when several hosts are configured).
    fn rate_limit_put(&self, key: &str, limit: &RateLimit, seen_at: Timestamp) -> Result<()>;
    /// The rate limit last seen for a key, and when.
    fn rate_limit_get(&self, key: &str) -> Result<Option<(RateLimit, Timestamp)>>;
    /// Every rate limit last seen, by key.
    fn rate_limits(&self) -> Result<Vec<(String, RateLimit, Timestamp)>>;

    /// True when other processes share this store's HTTP state while it is
    /// open (PostgreSQL): then the client shares rate limits after every
    /// answer and sends on a token only while holding [`Backend::lock_token`].
    fn shares_http_state(&self) -> bool {
        false
    }
    /// Waits until no other process of this store sends on the token of
    /// `key`, and keeps them from doing so until [`Backend::unlock_token`].
    /// A no-op where one process owns the store (SQLite, under the
    /// collection lock).
    fn lock_token(&self, key: &str) -> Result<()> {
        let _ = key;
        Ok(())
    }
    /// Releases [`Backend::lock_token`].
    fn unlock_token(&self, key: &str) -> Result<()> {
        let _ = key;
        Ok(())
    }

    /// Every stored row, table by table in an order that loads (a table's
    /// references come before it), rows in id order: for `signals migrate`.
    fn dump(&self, sink: &mut dyn FnMut(Record) -> Result<()>) -> Result<()>;
    /// Loads rows from [`Backend::dump`] into this store, which must be
    /// empty, keeping every id; all or nothing.
    fn load(&mut self, records: &mut dyn Iterator<Item = Result<Record>>) -> Result<()>;
    /// The number of rows of each table, to verify a copy.
    fn table_counts(&self) -> Result<TableCounts>;

    /// Claims the oldest pending alert due at `now` that no live claim
    /// holds, for `claim` (`crate::outbox`); on PostgreSQL one worker
    /// claims each (`SKIP LOCKED`).
    fn outbox_claim(
        &mut self,
        now: Timestamp,
        claim: jiff::SignedDuration,
    ) -> Result<Option<OutboxMessage>>;
    /// Records how an attempt to send a claimed message ended.
    fn outbox_settle(&mut self, id: i64, at: Timestamp, outcome: &Settle) -> Result<()>;
    /// When the next pending message is due (its claim included).
    fn outbox_next_due(&self) -> Result<Option<Timestamp>>;
    /// Messages in a state, oldest first; of one rule when `rule` is set.
    fn outbox_messages(
        &self,
        state: MessageState,
        rule: Option<&str>,
    ) -> Result<Vec<OutboxMessage>>;
    /// Folds held messages into a new pending digest, all or nothing;
    /// false when one of them is no longer held.
    fn outbox_digest(&mut self, parts: &[i64], digest: &Outgoing, at: Timestamp) -> Result<bool>;
    /// When a rule's last digest was made.
    fn outbox_last_digest(&self, rule: &str) -> Result<Option<Timestamp>>;
    /// Each rule's messages by state and its last error (`signals status`).
    fn outbox_status(&self) -> Result<Vec<RuleOutbox>>;

    /// Takes on the listing of an owner's repositories (`crate::owners`):
    /// true unless it was listed less than `every` ago (on PostgreSQL by
    /// the server's clock, so of several workers one lists it).
    fn owner_claim(
        &mut self,
        owner: OwnerRef<'_>,
        at: Timestamp,
        every: jiff::SignedDuration,
    ) -> Result<bool>;
    /// The repositories found through the owners of a group.
    fn owner_repos(&self, group_id: &str) -> Result<Vec<OwnerRepo>>;
    /// Records a successful listing: the owner's repositories (all of
    /// them, gone ones included) and its cost, all or nothing.
    fn owner_listed(
        &mut self,
        owner: OwnerRef<'_>,
        at: Timestamp,
        repos: &[signals_core::owners::Known],
        stats: &crate::RequestStats,
    ) -> Result<()>;
    /// Records a failed listing; the owner's repositories stay as they were.
    fn owner_failed(&mut self, owner: OwnerRef<'_>, at: Timestamp, message: &str) -> Result<()>;
    /// Every owner with its repositories (`signals status`).
    fn owners_status(&self) -> Result<Vec<OwnerStatus>>;
}

impl Backend for Store {
    fn describe(&self) -> String {
        self.path().display().to_string()
    }
    fn schema_version(&self) -> Result<i64> {
        Store::schema_version(self)
    }
    fn ensure_repository(&mut self, group: &Group, repo: &TrackedRepo) -> Result<RepoKey> {
        Store::ensure_repository(self, group, repo)
    }
    fn commit_run(&mut self, repo: RepoKey, run: &RunCommit) -> Result<()> {
        Store::commit_run(self, repo, run)
    }
    fn record_failure(
        &mut self,
        repo: RepoKey,
        at: Timestamp,
        kind: &str,
        message: &str,
    ) -> Result<()> {
        Store::record_failure(self, repo, at, kind, message)
    }
    fn purge_repository(&mut self, repo: RepoKey) -> Result<u64> {
        Store::purge_repository(self, repo)
    }
    fn last_successful_run(&self, repo: RepoKey) -> Result<Option<RunRecord>> {
        Store::last_successful_run(self, repo)
    }
    fn reconcile_marks(&self, repo: RepoKey) -> Result<(Option<Timestamp>, Option<Timestamp>)> {
        Store::reconcile_marks(self, repo)
    }
    fn open_item_ids(&self, repo: RepoKey) -> Result<Vec<String>> {
        Store::open_item_ids(self, repo)
    }
    fn latest_snapshots(&self, repo: RepoKey) -> Result<BTreeMap<String, ItemSnapshot>> {
        Store::latest_snapshots(self, repo)
    }
    fn latest_snapshots_for(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, ItemSnapshot>> {
        Store::latest_snapshots_for(self, repo, ids)
    }
    fn snapshot_history(
        &self,
        repo: RepoKey,
        item_id: &str,
    ) -> Result<Vec<(Timestamp, ItemSnapshot)>> {
        Store::snapshot_history(self, repo, item_id)
    }
    fn repositories(&self) -> Result<Vec<RepoSummary>> {
        Store::repositories(self)
    }
    fn repository_view(&self, repo: RepoKey) -> Result<Option<RepoView>> {
        Store::repository_view(self, repo)
    }
    fn status(&self) -> Result<Status> {
        Store::status(self)
    }
    fn repository_outline(&self, repo: RepoKey) -> Result<Option<RepoOutline>> {
        Store::repository_outline(self, repo)
    }
    fn latest_items_after(
        &self,
        repo: RepoKey,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<LatestItem>> {
        Store::latest_items_after(self, repo, after, limit)
    }
    fn trail_keys_after(
        &self,
        repo: RepoKey,
        after: Option<(i64, &str)>,
        limit: usize,
    ) -> Result<Vec<(i64, TrailEvent)>> {
        Store::trail_keys_after(self, repo, after, limit)
    }
    fn trail_events(&self, repo: RepoKey, keys: &[TrailKey]) -> Result<Vec<TrailEvent>> {
        Store::trail_events(self, repo, keys)
    }
    fn each_latest_head(
        &self,
        repo: RepoKey,
        each: &mut dyn FnMut(String, ItemSnapshot, TextIds) -> Result<()>,
    ) -> Result<()> {
        Store::each_latest_head(self, repo, each)
    }
    fn texts_matching(&self, q: &str) -> Result<Option<HashSet<i64>>> {
        Store::texts_matching(self, q)
    }
    fn changed_in_latest(&self, repo: RepoKey) -> Result<HashSet<String>> {
        Store::changed_in_latest(self, repo)
    }
    fn trail_page(&self, repo: RepoKey, offset: u64, limit: u64) -> Result<(u64, Vec<TrailEvent>)> {
        Store::trail_page(self, repo, offset, limit)
    }
    fn run_contexts(
        &self,
        repo: RepoKey,
        since: Timestamp,
    ) -> Result<Vec<(Timestamp, RepoContext)>> {
        Store::run_contexts(self, repo, since)
    }
    fn growth_since(&self, repo: RepoKey, from: Timestamp) -> Result<Vec<Rising>> {
        Store::growth_since(self, repo, from)
    }
    fn cache_get(&self, url: &str, fingerprint: &str) -> Result<Option<CachedResponse>> {
        Store::cache_get(self, url, fingerprint)
    }
    fn cache_put(
        &self,
        url: &str,
        fingerprint: &str,
        response: &CachedResponse,
        stored_at: Timestamp,
    ) -> Result<()> {
        Store::cache_put(self, url, fingerprint, response, stored_at)
    }
    fn cache_touch(&self, url: &str, fingerprint: &str, at: Timestamp) -> Result<()> {
        Store::cache_touch(self, url, fingerprint, at)
    }
    fn cache_prune(&self, before: Timestamp) -> Result<usize> {
        Store::cache_prune(self, before)
    }
    fn rate_limit_put(&self, key: &str, limit: &RateLimit, seen_at: Timestamp) -> Result<()> {
        Store::rate_limit_put(self, key, limit, seen_at)
    }
    fn rate_limit_get(&self, key: &str) -> Result<Option<(RateLimit, Timestamp)>> {
        Store::rate_limit_get(self, key)
    }
    fn rate_limits(&self) -> Result<Vec<(String, RateLimit, Timestamp)>> {
        Store::rate_limits(self)
    }
    fn dump(&self, sink: &mut dyn FnMut(Record) -> Result<()>) -> Result<()> {
        Store::dump(self, sink)
    }
    fn load(&mut self, records: &mut dyn Iterator<Item = Result<Record>>) -> Result<()> {
        Store::load(self, records)
    }
    fn table_counts(&self) -> Result<TableCounts> {
        Store::table_counts(self)
    }
    fn outbox_claim(
        &mut self,
        now: Timestamp,
        claim: jiff::SignedDuration,
    ) -> Result<Option<OutboxMessage>> {
        Store::outbox_claim(self, now, claim)
    }
    fn outbox_settle(&mut self, id: i64, at: Timestamp, outcome: &Settle) -> Result<()> {
        Store::outbox_settle(self, id, at, outcome)
    }
    fn outbox_next_due(&self) -> Result<Option<Timestamp>> {
        Store::outbox_next_due(self)
    }
    fn outbox_messages(
        &self,
        state: MessageState,
        rule: Option<&str>,
    ) -> Result<Vec<OutboxMessage>> {
        Store::outbox_messages(self, state, rule)
    }
    fn outbox_digest(&mut self, parts: &[i64], digest: &Outgoing, at: Timestamp) -> Result<bool> {
        Store::outbox_digest(self, parts, digest, at)
    }
    fn outbox_last_digest(&self, rule: &str) -> Result<Option<Timestamp>> {
        Store::outbox_last_digest(self, rule)
    }
    fn outbox_status(&self) -> Result<Vec<RuleOutbox>> {
        Store::outbox_status(self)
    }
    fn owner_claim(
        &mut self,
        owner: OwnerRef<'_>,
        at: Timestamp,
        every: jiff::SignedDuration,
    ) -> Result<bool> {
        Store::owner_claim(self, owner, at, every)
    }
    fn owner_repos(&self, group_id: &str) -> Result<Vec<OwnerRepo>> {
        Store::owner_repos(self, group_id)
    }
    fn owner_listed(
        &mut self,
        owner: OwnerRef<'_>,
        at: Timestamp,
        repos: &[signals_core::owners::Known],
        stats: &crate::RequestStats,
    ) -> Result<()> {
        Store::owner_listed(self, owner, at, repos, stats)
    }
    fn owner_failed(&mut self, owner: OwnerRef<'_>, at: Timestamp, message: &str) -> Result<()> {
        Store::owner_failed(self, owner, at, message)
    }
    fn owners_status(&self) -> Result<Vec<OwnerStatus>> {
        Store::owners_status(self)
    }
}
