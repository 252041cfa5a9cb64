//! The repository head: what every page of a repository shows besides its
//! signals and trail entries, as the caller hands it over (the document's
//! head, the counts, trends, news and how its collection stands).
//!
//! A streamed export builds a [`RepoHead`] without ever holding the
//! repository's signals; a whole repository in memory gives one too
//! (`RepoPage::head`). A leaf: plain values and no rendering, so every
//! page can take a head without depending on another page. Its folder is
//! checked where files are written (`RepoHead::dir`, in `files.rs`).

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use signals_core::News;
use signals_core::dataset::Document;
use signals_core::health::{Health, HealthState};
use signals_core::lifecycle::verdict::StateChange;
use signals_core::trends::Trends;

/// What every page of a repository shows besides its signals and trail
/// entries: the document's head (its `signals` are never read here), the
/// counts, the trends, news and health.
#[derive(Debug, Clone, Copy)]
pub struct RepoHead<'a> {
    /// The v3 document; only its head is read (group, repository,
    /// context, news, runs), so its `signals` may be empty.
    pub document: &'a Document,
    /// Number of signals.
    pub signals: usize,
    /// Number of items first seen in the latest run.
    pub new: usize,
    /// Number of the items' events in the trail (its lifecycle changes
    /// are besides).
    pub trail_total: usize,
    /// Its lifecycle's changes, oldest first (the first judgement
    /// included): entries of its trail, each after its run's events.
    pub lifecycle: &'a [StateChange],
    /// Its trends.
    pub trends: &'a Trends,
    /// News of the latest run.
    pub news: &'a News,
    /// SPDX identifier of the license, when known.
    pub license: Option<&'a str>,
    /// Number of observation events (M in the header).
    pub event_count: u64,
    /// When the repository was last collected.
    pub collected_at: Timestamp,
    /// How its collection stands.
    pub health: &'a HealthNote,
    /// Its verdict in this group, once a run judged it.
    pub verdict: Option<&'a signals_core::lifecycle::verdict::Verdict>,
}

/// Why and since when an owner's listing left a repository out, as the
/// pages show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOutNote {
    /// `gone`, `archived`, `fork` or `excluded`.
    pub reason: String,
    /// When it took that state.
    pub since: Timestamp,
    /// The owner whose listing it was found through.
    pub owner: String,
}

/// What the pages show of a repository's health; kept in the manifest's
/// summaries for the index (a manifest from before it reads as healthy).
/// `health.rs` turns it into the notice a page shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthNote {
    /// `failing`, `stale` or `left_out` when the pages flag it; anything
    /// else shows nothing.
    pub state: String,
    /// The latest successful run.
    pub last_success: Option<Timestamp>,
    /// Failed attempts after it.
    pub failures_in_row: u64,
    /// The latest failure after it: when, and what failed.
    pub last_error: Option<(Timestamp, String)>,
    /// The collection interval it was judged against, in seconds.
    pub interval_secs: i64,
    /// The latest reconcile (a run that listed every item).
    #[serde(default)]
    pub last_reconcile: Option<Timestamp>,
    /// Set when `state` is `left_out`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_out: Option<LeftOutNote>,
}

impl HealthNote {
    /// The note for a repository judged by `signals_core::health::assess`.
    pub fn of(health: &Health) -> HealthNote {
        HealthNote {
            state: health.state.as_str().to_string(),
            last_success: health.last_success,
            failures_in_row: health.failures_in_row,
            last_error: health
                .last_error
                .as_ref()
                .map(|e| (e.at, e.message.clone())),
            interval_secs: health.interval_secs,
            last_reconcile: health.last_reconcile,
            left_out: health.left_out.as_ref().map(|l| LeftOutNote {
                reason: l.reason.as_str().to_string(),
                since: l.since,
                owner: l.owner.clone(),
            }),
        }
    }

    /// True when the pages show a notice for it (failing, stale or left
    /// out): what the export's data key holds of it.
    pub fn flagged(&self) -> bool {
        [
            HealthState::Failing,
            HealthState::Stale,
            HealthState::LeftOut,
        ]
        .iter()
        .any(|s| s.as_str() == self.state)
    }
}
