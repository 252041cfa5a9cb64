//! What happened to an item, in the words a rule's `events` use: an
//! observation (discovered, changed fields) and the item's new snapshot
//! become its [`Trigger`]s, most specific first.

use serde::{Deserialize, Serialize};

use crate::diff::{Observation, TrackedField};
use crate::model::{ItemDetail, ItemSnapshot, ItemState};

/// What happened to an item, as a rule's `events` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// First seen (not in a repository's first run).
    Discovered,
    /// Closed without being merged.
    Closed,
    /// Opened again.
    Reopened,
    /// A pull request merged.
    Merged,
    /// A new stable (not pre-) release.
    Released,
    /// A security advisory published, or its severity changed (not in a
    /// repository's first run, like `discovered`).
    Advisory,
    /// Any tracked change.
    Changed,
    /// An open issue or pull request crossed `waiting_days` without a
    /// first response; never an observation's trigger.
    Waiting,
    /// A new item has a related item in another repository of its group
    /// (`crate::notify::echo_messages`); never an observation's trigger.
    Echo,
    /// The repository's lifecycle state changed
    /// (`crate::lifecycle`); never an observation's trigger.
    Lifecycle,
}

impl Trigger {
    /// Every trigger, most specific first: the order in which an event's
    /// triggers are named (`event` of a signal).
    pub const ALL: [Trigger; 10] = [
        Trigger::Advisory,
        Trigger::Released,
        Trigger::Merged,
        Trigger::Closed,
        Trigger::Reopened,
        Trigger::Discovered,
        Trigger::Changed,
        Trigger::Waiting,
        Trigger::Echo,
        Trigger::Lifecycle,
    ];

    /// The name written in rules and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Discovered => "discovered",
            Trigger::Closed => "closed",
            Trigger::Reopened => "reopened",
            Trigger::Merged => "merged",
            Trigger::Released => "released",
            Trigger::Advisory => "advisory",
            Trigger::Changed => "changed",
            Trigger::Waiting => "waiting",
            Trigger::Echo => "echo",
            Trigger::Lifecycle => "lifecycle",
        }
    }

    /// Parses a name.
    pub fn parse(s: &str) -> Option<Trigger> {
        Trigger::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// What one observation of `item` amounts to, most specific first. A merge
/// is `merged` (and `changed`), not `closed`. An advisory is `advisory`
/// when first seen in force (published, not withdrawn) and when its
/// severity changes, and at no other change: once per publication or
/// severity change.
pub fn triggers(observation: &Observation, item: &ItemSnapshot) -> Vec<Trigger> {
    let merged = matches!(item.detail, ItemDetail::PullRequest { merged: true, .. });
    let advisory = matches!(item.detail, ItemDetail::Advisory { .. });
    let mut out = Vec::new();
    match observation {
        Observation::Discovered => {
            if advisory && crate::advisories::is_open_advisory(item) {
                out.push(Trigger::Advisory);
            }
            if matches!(
                item.detail,
                ItemDetail::Release {
                    prerelease: false,
                    ..
                }
            ) {
                out.push(Trigger::Released);
            }
            out.push(Trigger::Discovered);
        }
        Observation::Changed(fields) => {
            if advisory && fields.contains(&TrackedField::Severity) {
                out.push(Trigger::Advisory);
            }
            if fields.contains(&TrackedField::Merged) && merged {
                out.push(Trigger::Merged);
            }
            if fields.contains(&TrackedField::State) {
                match item.state {
                    ItemState::Closed if !merged => out.push(Trigger::Closed),
                    ItemState::Open => out.push(Trigger::Reopened),
                    ItemState::Closed => {}
                }
            }
            out.push(Trigger::Changed);
        }
    }
    out
}
