//! A collection and its record: what one run of one repository produced
//! ([`Collected`]), what is kept of the run ([`RunRecord`]), and the
//! observation trail it leaves ([`TrailEvent`]).

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::{ItemSnapshot, Milestone, RepoContext};

/// Everything one collection of one repository produced, before it is
/// compared with the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collected {
    /// The repository itself.
    pub context: RepoContext,
    /// All published (non-draft) releases the host listed, newest first.
    /// News is computed from all of them; only those published in the window
    /// become observed items.
    pub releases: Vec<ItemSnapshot>,
    /// Open milestones.
    pub milestones: Vec<Milestone>,
    /// Issues and pull requests updated at or after `since`.
    pub items: Vec<ItemSnapshot>,
    /// The repository's published security advisories the host listed
    /// (withdrawn ones too), every one observed at each run: the list is
    /// short and read whole.
    pub advisories: Vec<ItemSnapshot>,
    /// The download counts of the listed releases' assets.
    pub downloads: Vec<AssetCount>,
}

/// A release asset's download count as one run read it, keyed by the
/// host's id of the asset: an asset replaced under the same name is
/// another asset.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AssetCount {
    /// The host's id of the asset, as text.
    pub asset: String,
    /// Its downloads so far, as the host counts them.
    pub count: u64,
}

/// One recorded collection run of one repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The instant of the run.
    pub collected_at: Timestamp,
    /// The lower bound of `updatedAt` asked of the host.
    pub since: Timestamp,
    /// Items the host returned for the window (after de-duplication).
    pub observed_count: u64,
    /// Observation events the run recorded (discovered or changed items).
    pub changed_count: u64,
}

/// The kind of an observation event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// First time the item was seen.
    Discovered,
    /// One or more tracked fields differ from the previous snapshot.
    Changed,
}

impl EventKind {
    /// `discovered` or `changed`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Discovered => "discovered",
            EventKind::Changed => "changed",
        }
    }
}

/// One entry of the observation trail, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrailEvent {
    /// When the run that recorded it collected.
    pub at: Timestamp,
    /// The signal id of the item concerned.
    pub item_id: String,
    /// The item's title at that snapshot.
    pub title: String,
    /// The item's web URL.
    pub url: String,
    /// Discovered or changed.
    pub kind: EventKind,
    /// `initial snapshot`, or the changed field names joined by `, `.
    pub detail: String,
}
