//! A repository's lifecycle in the store: the role ([`LifecycleStore`])
//! and the row decoding both backends share. A judgement is written
//! just after the run it follows has committed, with the alert messages
//! it calls for, as one row of that run (its record as JSON): it reads
//! what the run committed, as the word index does (docs/decisions.md).

use std::path::Path;

use jiff::Timestamp;
use signals_core::lifecycle::State;
use signals_core::lifecycle::contributors::Voice;
use signals_core::lifecycle::verdict::{Record, StateChange};
use signals_core::model::Merge;

use crate::codec::{from_json, stamp_parse, ts_parse};
use crate::comments::kind_from;
use crate::{RepoKey, Result};

/// A comment or review as both stores read it for the maintainers:
/// (kind, author, association, bot, state, created seconds).
pub type VoiceRow = (i64, String, Option<String>, bool, Option<String>, i64);

/// Decodes [`VoiceRow`]s.
pub fn voices_from(path: &Path, rows: Vec<VoiceRow>) -> Result<Vec<Voice>> {
    rows.into_iter()
        .map(|(kind, author, association, bot, state, created)| {
            Ok(Voice {
                kind: kind_from(path, kind)?,
                author,
                association,
                bot,
                state,
                at: stamp_parse(path, "comments.created_s", created, 0)?,
            })
        })
        .collect()
}

/// A merge as both stores read it: (pull request key, merger, bot,
/// merged seconds).
pub type MergeRow = (String, String, bool, i64);

/// Decodes [`MergeRow`]s.
pub fn merges_from(path: &Path, rows: Vec<MergeRow>) -> Result<Vec<Merge>> {
    rows.into_iter()
        .map(|(item_key, merged_by, bot, merged)| {
            Ok(Merge {
                item_key,
                merged_by,
                bot,
                merged_at: stamp_parse(path, "merges.merged_s", merged, 0)?,
            })
        })
        .collect()
}

/// Decodes a stored record.
pub fn record_from(path: &Path, record: &str) -> Result<Record> {
    from_json(path, "lifecycle.record", record)
}

/// Decodes rows of (run instant, state) in run order into the changes
/// they hold: each row whose state differs from the row before.
pub fn changes_from(path: &Path, rows: Vec<(String, String)>) -> Result<Vec<StateChange>> {
    let mut out: Vec<StateChange> = Vec::new();
    let mut before: Option<State> = None;
    for (at, state) in rows {
        let to = State::parse(&state).ok_or_else(|| crate::StoreError::Corrupt {
            path: path.to_path_buf(),
            what: format!("lifecycle.state {state:?} is not a state"),
        })?;
        if before != Some(to) {
            out.push(StateChange {
                at: ts_parse(path, "runs.collected_at", &at)?,
                from: before,
                to,
            });
        }
        before = Some(to);
    }
    Ok(out)
}

/// A repository's lifecycle: one write, and reads that are each one
/// indexed query.
pub trait LifecycleStore {
    /// Keeps `record`, judged after `repo`'s run at `at` (the run must be
    /// committed, and have no judgement yet), with the alert `messages`
    /// it calls for; all or nothing.
    fn record_lifecycle(
        &self,
        repo: RepoKey,
        at: Timestamp,
        record: &Record,
        messages: &[signals_core::notify::Outgoing],
    ) -> Result<()>;

    /// The latest judgement of `repo`, if any run judged it.
    fn lifecycle(&self, repo: RepoKey) -> Result<Option<Record>>;

    /// Every change of `repo`'s judged state, oldest first: its trail's
    /// lifecycle events.
    fn lifecycle_changes(&self, repo: RepoKey) -> Result<Vec<StateChange>>;

    /// The comments and reviews of `repo` written at or after `since`,
    /// with their authors' associations: what the active maintainers and
    /// the dependency are counted from.
    fn voices_since(&self, repo: RepoKey, since: Timestamp) -> Result<Vec<Voice>>;

    /// Keeps who merged which pull request of `repo`, as a run read them
    /// (before its commit, as its comments are): one row per pull
    /// request, the last reading standing.
    fn store_merges(&self, repo: RepoKey, merges: &[Merge]) -> Result<()>;

    /// The merges of `repo` at or after `since`, oldest first (ties by
    /// pull request): a maintainer who merged is active.
    fn merges_since(&self, repo: RepoKey, since: Timestamp) -> Result<Vec<Merge>>;
}
