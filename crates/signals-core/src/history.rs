//! An item's history: every stored snapshot of it, as observations with the
//! old and new value of each field that changed (state open → closed,
//! labels added and removed, reactions 3 → 7, a line count for the body).
//!
//! Built from the store's distinct snapshots of one item, oldest first
//! (`snapshot_history`): the first is the `discovered` observation, each
//! next one a `changed` observation of the tracked fields that differ
//! ([`crate::diff::changed_fields`], the same rule as the trail's), or, when
//! only untracked fields moved (a URL, the merge time), an update without a
//! trail event.

use std::collections::HashMap;

use jiff::Timestamp;
use serde::Serialize;

use crate::diff::{TrackedField, changed_fields};
use crate::model::{EventKind, ItemDetail, ItemSnapshot};

/// The history of one item, oldest observation first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemHistory {
    /// The signal id.
    pub id: String,
    /// The latest title.
    pub title: String,
    /// The item on its host.
    pub url: String,
    /// Every observation that stored a snapshot.
    pub observations: Vec<HistoryEntry>,
}

/// One observation: a run that stored a new snapshot of the item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryEntry {
    /// The instant of the run.
    pub at: Timestamp,
    /// `discovered`, `changed`, or `None` when only untracked fields moved
    /// (no trail event).
    pub kind: Option<EventKind>,
    /// The tracked fields that changed, in the trail's order.
    pub fields: Vec<String>,
    /// What changed, field by field (for `discovered`: the initial state,
    /// labels and counts, as changes from nothing).
    pub changes: Vec<Change>,
}

/// One field's change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "field", rename_all = "camelCase")]
pub enum Change {
    /// The title, old and new.
    Title {
        /// Before.
        old: String,
        /// After.
        new: String,
    },
    /// The body: lines added and removed (as sets of lines counted with
    /// their repeats, not a minimal diff), and the lengths in characters.
    #[serde(rename_all = "camelCase")]
    Text {
        /// Lines in the new body that the old one did not have.
        lines_added: u64,
        /// Lines of the old body the new one does not have.
        lines_removed: u64,
        /// Characters before.
        old_chars: u64,
        /// Characters after.
        new_chars: u64,
    },
    /// Open or closed (`old` is empty in a first observation).
    State {
        /// Before.
        old: String,
        /// After.
        new: String,
    },
    /// Labels added and removed.
    Labels {
        /// Added, in the new order.
        added: Vec<String>,
        /// Removed, in the old order.
        removed: Vec<String>,
    },
    /// Assignees added and removed.
    Assignees {
        /// Added.
        added: Vec<String>,
        /// Removed.
        removed: Vec<String>,
    },
    /// Reactions, old and new.
    Reactions {
        /// Before.
        old: u64,
        /// After.
        new: u64,
    },
    /// Comments, old and new.
    Comments {
        /// Before.
        old: u64,
        /// After.
        new: u64,
    },
    /// The host's update time.
    UpdatedAt {
        /// Before.
        old: Timestamp,
        /// After.
        new: Timestamp,
    },
    /// A pull request's draft flag.
    Draft {
        /// Before.
        old: bool,
        /// After.
        new: bool,
    },
    /// A pull request's merged flag.
    Merged {
        /// Before.
        old: bool,
        /// After.
        new: bool,
    },
    /// An advisory's severity, its CVSS score or its CVE id (`name`
    /// says which: `severity`, `cvssScore`, `cveId`); empty where none.
    Advisory {
        /// `severity`, `cvssScore` or `cveId`.
        name: String,
        /// Before.
        old: String,
        /// After.
        new: String,
    },
}

impl Change {
    /// A one-line summary: `state open → closed`, `labels +bug −wontfix`,
    /// `text +12 −3 lines`.
    pub fn summary(&self) -> String {
        let list = |added: &[String], removed: &[String]| {
            added
                .iter()
                .map(|a| format!("+{a}"))
                .chain(removed.iter().map(|r| format!("−{r}")))
                .collect::<Vec<_>>()
                .join(" ")
        };
        match self {
            Change::Title { old, new } => format!("title {old:?} → {new:?}"),
            Change::Text {
                lines_added,
                lines_removed,
                old_chars,
                new_chars,
            } => format!(
                "text +{lines_added} −{lines_removed} lines ({old_chars} → {new_chars} characters)"
            ),
            Change::State { old, new } if old.is_empty() => format!("state {new}"),
            Change::State { old, new } => format!("state {old} → {new}"),
            Change::Labels { added, removed } => format!("labels {}", list(added, removed)),
            Change::Assignees { added, removed } => {
                format!("assignees {}", list(added, removed))
            }
            Change::Reactions { old, new } => format!("reactions {old} → {new}"),
            Change::Comments { old, new } => format!("comments {old} → {new}"),
            Change::UpdatedAt { old, new } => {
                format!("updated {} → {}", human_time(*old), human_time(*new))
            }
            Change::Draft { old, new } => format!("draft {old} → {new}"),
            Change::Merged { old, new } => format!("merged {old} → {new}"),
            Change::Advisory { name, old, new } => {
                let none = |v: &str| {
                    if v.is_empty() {
                        "none".to_string()
                    } else {
                        v.to_string()
                    }
                };
                format!("{name} {} → {}", none(old), none(new))
            }
        }
    }
}

impl HistoryEntry {
    /// One line per change, as the history page and the API's `summary`
    /// show them. A discovery's changes are the item's first values, so
    /// they read as values (`comments 10`, `labels bug`), never as a
    /// change from nothing (`comments 0 → 10`).
    pub fn summaries(&self) -> Vec<String> {
        let discovered = self.kind == Some(EventKind::Discovered);
        self.changes
            .iter()
            .map(|c| match c {
                Change::Labels { added, .. } if discovered => {
                    format!("labels {}", added.join(", "))
                }
                Change::Assignees { added, .. } if discovered => {
                    format!("assignees {}", added.join(", "))
                }
                Change::Reactions { new, .. } if discovered => format!("reactions {new}"),
                Change::Comments { new, .. } if discovered => format!("comments {new}"),
                other => other.summary(),
            })
            .collect()
    }
}

/// "2021-11-01 00:00 UTC": the one way the site writes a time for people.
fn human_time(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%d %H:%M UTC").to_string()
}

/// The history of item `id` from its distinct snapshots, oldest first, each
/// with the instant of the run that stored it. `None` when there is none.
pub fn history(id: &str, snapshots: &[(Timestamp, ItemSnapshot)]) -> Option<ItemHistory> {
    let (_, latest) = snapshots.last()?;
    let mut observations = Vec::with_capacity(snapshots.len());
    let mut previous: Option<&ItemSnapshot> = None;
    for (at, snapshot) in snapshots {
        observations.push(match previous {
            None => HistoryEntry {
                at: *at,
                kind: Some(EventKind::Discovered),
                fields: Vec::new(),
                changes: initial(snapshot),
            },
            Some(old) => {
                let fields = changed_fields(old, snapshot);
                HistoryEntry {
                    at: *at,
                    kind: (!fields.is_empty()).then_some(EventKind::Changed),
                    changes: fields
                        .iter()
                        .flat_map(|f| changes(*f, old, snapshot))
                        .collect(),
                    fields: fields.iter().map(|f| f.as_str().to_string()).collect(),
                }
            }
        });
        previous = Some(snapshot);
    }
    Some(ItemHistory {
        id: id.to_string(),
        title: latest.title.clone(),
        url: latest.url.clone(),
        observations,
    })
}

/// What a first snapshot shows: its state, labels, assignees and counts.
fn initial(s: &ItemSnapshot) -> Vec<Change> {
    let mut out = vec![Change::State {
        old: String::new(),
        new: s.state.as_str().to_string(),
    }];
    if !s.labels.is_empty() {
        out.push(Change::Labels {
            added: s.labels.clone(),
            removed: vec![],
        });
    }
    if !s.assignees.is_empty() {
        out.push(Change::Assignees {
            added: s.assignees.clone(),
            removed: vec![],
        });
    }
    if s.metrics.reactions > 0 {
        out.push(Change::Reactions {
            old: 0,
            new: s.metrics.reactions,
        });
    }
    if s.metrics.comments > 0 {
        out.push(Change::Comments {
            old: 0,
            new: s.metrics.comments,
        });
    }
    out
}

/// The changes behind one tracked field.
fn changes(field: TrackedField, a: &ItemSnapshot, b: &ItemSnapshot) -> Vec<Change> {
    match field {
        TrackedField::Title => vec![Change::Title {
            old: a.title.clone(),
            new: b.title.clone(),
        }],
        TrackedField::Text => {
            let (lines_added, lines_removed) = line_delta(&a.text, &b.text);
            vec![Change::Text {
                lines_added,
                lines_removed,
                old_chars: a.text.chars().count() as u64,
                new_chars: b.text.chars().count() as u64,
            }]
        }
        TrackedField::State => vec![Change::State {
            old: a.state.as_str().to_string(),
            new: b.state.as_str().to_string(),
        }],
        TrackedField::Labels => {
            let (added, removed) = set_delta(&a.labels, &b.labels);
            vec![Change::Labels { added, removed }]
        }
        TrackedField::Assignees => {
            let (added, removed) = set_delta(&a.assignees, &b.assignees);
            vec![Change::Assignees { added, removed }]
        }
        TrackedField::Metrics => {
            let mut out = Vec::new();
            if a.metrics.reactions != b.metrics.reactions {
                out.push(Change::Reactions {
                    old: a.metrics.reactions,
                    new: b.metrics.reactions,
                });
            }
            if a.metrics.comments != b.metrics.comments {
                out.push(Change::Comments {
                    old: a.metrics.comments,
                    new: b.metrics.comments,
                });
            }
            out
        }
        TrackedField::UpdatedAt => vec![Change::UpdatedAt {
            old: a.updated_at,
            new: b.updated_at,
        }],
        TrackedField::Draft => vec![Change::Draft {
            old: is_draft(a),
            new: is_draft(b),
        }],
        TrackedField::Merged => vec![Change::Merged {
            old: is_merged(a),
            new: is_merged(b),
        }],
        TrackedField::Severity | TrackedField::CvssScore | TrackedField::CveId => {
            vec![Change::Advisory {
                name: field.as_str().to_string(),
                old: advisory_value(field, a),
                new: advisory_value(field, b),
            }]
        }
    }
}

/// An advisory's severity, CVSS score or CVE id as text; empty where it
/// has none, and for other kinds.
fn advisory_value(field: TrackedField, s: &ItemSnapshot) -> String {
    let ItemDetail::Advisory {
        severity,
        cvss_score,
        cve_id,
        ..
    } = &s.detail
    else {
        return String::new();
    };
    match field {
        TrackedField::Severity => severity.map(|v| v.as_str().to_string()),
        TrackedField::CvssScore => cvss_score.map(|v| format!("{:.1}", v.value())),
        TrackedField::CveId => cve_id.clone(),
        _ => None,
    }
    .unwrap_or_default()
}

/// A pull request's draft flag; false for other kinds.
fn is_draft(s: &ItemSnapshot) -> bool {
    matches!(s.detail, ItemDetail::PullRequest { draft: true, .. })
}

/// A pull request's merged flag; false for other kinds.
fn is_merged(s: &ItemSnapshot) -> bool {
    matches!(s.detail, ItemDetail::PullRequest { merged: true, .. })
}

/// Added and removed elements (labels are sets; a reorder alone changes
/// neither list).
fn set_delta(old: &[String], new: &[String]) -> (Vec<String>, Vec<String>) {
    let added = new.iter().filter(|n| !old.contains(n)).cloned().collect();
    let removed = old.iter().filter(|o| !new.contains(o)).cloned().collect();
    (added, removed)
}

/// Lines added and removed between two texts, as multisets of lines:
/// linear in the texts' length, whatever their size (a minimal diff would be
/// quadratic on a large body).
fn line_delta(old: &str, new: &str) -> (u64, u64) {
    let mut counts: HashMap<&str, i64> = HashMap::new();
    for line in old.lines() {
        *counts.entry(line).or_insert(0) -= 1;
    }
    for line in new.lines() {
        *counts.entry(line).or_insert(0) += 1;
    }
    counts.values().fold((0, 0), |(added, removed), &n| {
        if n > 0 {
            (added + n as u64, removed)
        } else {
            (added, removed + (-n) as u64)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ItemState, Metrics, RepoName};

    fn snap() -> ItemSnapshot {
        let at: Timestamp = "2026-11-01T00:00:00Z".parse().unwrap();
        ItemSnapshot {
            repo: RepoName::parse("o/n").unwrap(),
            key: "7".into(),
            title: "Crash on start".into(),
            text: "line one\nline two\n".into(),
            url: "https://github.com/o/n/issues/7".into(),
            created_at: at,
            updated_at: at,
            metrics: Metrics {
                reactions: 3,
                comments: 1,
            },
            labels: vec!["bug".into(), "wontfix".into()],
            author: "a".into(),
            state: ItemState::Open,
            closed_at: None,
            assignees: vec![],
            detail: ItemDetail::issue(),
        }
    }

    #[test]
    fn each_observation_says_what_changed_old_and_new() {
        let t1: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
        let t2: Timestamp = "2026-11-21T10:00:00Z".parse().unwrap();
        let t3: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
        let a = snap();
        let mut b = a.clone();
        b.state = ItemState::Closed;
        b.labels = vec!["bug".into(), "regression".into()];
        b.metrics.reactions = 7;
        b.text = "line one\nline 2\nline three\n".into();
        b.updated_at = t2;
        let mut c = b.clone();
        c.url = "https://github.com/o/n/issues/7#moved".into();
        let h = history("github:o/n:issue:7", &[(t1, a), (t2, b), (t3, c)]).unwrap();
        assert_eq!(h.observations.len(), 3);
        assert_eq!(h.observations[0].kind, Some(EventKind::Discovered));
        assert!(h.observations[0].changes.contains(&Change::Labels {
            added: vec!["bug".into(), "wontfix".into()],
            removed: vec![]
        }));
        let second = &h.observations[1];
        assert_eq!(second.kind, Some(EventKind::Changed));
        assert_eq!(
            second.fields,
            ["text", "state", "labels", "metrics", "updatedAt"]
        );
        let summaries: Vec<String> = second.changes.iter().map(Change::summary).collect();
        assert_eq!(
            summaries,
            [
                "text +2 −1 lines (18 → 27 characters)",
                "state open → closed",
                "labels +regression −wontfix",
                "reactions 3 → 7",
                "updated 2026-11-01 00:00 UTC → 2026-11-21 10:00 UTC",
            ]
        );
        // Only the URL moved: a stored snapshot, no trail event.
        assert_eq!(h.observations[2].kind, None);
        assert!(h.observations[2].changes.is_empty());
        assert_eq!(h.url, "https://github.com/o/n/issues/7#moved");
        assert_eq!(history("x", &[]), None);
    }

    #[test]
    fn a_discovery_reads_as_first_values_not_as_changes_from_nothing() {
        let t1: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
        let t2: Timestamp = "2026-11-21T10:00:00Z".parse().unwrap();
        let mut a = snap();
        a.metrics.comments = 10;
        a.assignees = vec!["ann".into(), "bo".into()];
        let mut b = a.clone();
        b.metrics.comments = 12;
        let h = history("github:o/n:issue:7", &[(t1, a), (t2, b)]).unwrap();
        assert_eq!(
            h.observations[0].summaries(),
            [
                "state open",
                "labels bug, wontfix",
                "assignees ann, bo",
                "reactions 3",
                "comments 10",
            ]
        );
        // A later change still reads as one.
        assert_eq!(h.observations[1].summaries(), ["comments 10 → 12"]);
    }

    #[test]
    fn line_counts_are_multisets_and_linear() {
        assert_eq!(line_delta("", ""), (0, 0));
        assert_eq!(line_delta("a\na\nb", "a\nb\nb"), (1, 1));
        let big: String = (0..100_000).map(|i| format!("line {i}\n")).collect();
        let edited = big.replacen("line 5\n", "line five\n", 1);
        assert_eq!(line_delta(&big, &edited), (1, 1));
    }

    /// One step of an item's life: which fields move (bit 5 moves only an
    /// untracked one, the author).
    fn step(s: &ItemSnapshot, mask: u8, n: u64) -> ItemSnapshot {
        let mut s = s.clone();
        if mask & 1 != 0 {
            s.title = format!("title {n}");
        }
        if mask & 2 != 0 {
            s.text.push_str(&format!("line {n}\n"));
        }
        if mask & 4 != 0 {
            s.state = match s.state {
                ItemState::Open => ItemState::Closed,
                ItemState::Closed => ItemState::Open,
            };
        }
        if mask & 8 != 0 {
            s.labels = vec![format!("l{}", n % 3)];
        }
        if mask & 16 != 0 {
            s.metrics.comments += n;
        }
        if mask & 32 != 0 {
            s.author = format!("a{n}");
        }
        if mask & 64 != 0 {
            s.assignees = vec![format!("p{}", n % 2)];
        }
        s
    }

    proptest::proptest! {
        /// The history says what the runs recorded: one `discovered` or
        /// `changed` observation per event, in order, with the event's
        /// fields; an observation without a kind for each snapshot that
        /// made no event; and changes that name exactly the fields.
        #[test]
        fn history_matches_the_events_runs_record(masks in proptest::collection::vec(0u8..128, 0..12)) {
            use crate::model::Source;
            let id = snap().id(Source::Github);
            let mut current = snap();
            let mut stored: Vec<(Timestamp, ItemSnapshot)> = Vec::new();
            let mut events = Vec::new();
            let mut silent = 0;
            for (i, mask) in std::iter::once(0u8).chain(masks).enumerate() {
                if i > 0 {
                    current = step(&current, mask, i as u64);
                }
                let at = Timestamp::from_second(1_800_000_000 + i as i64 * 3600).unwrap();
                let previous: HashMap<String, ItemSnapshot> =
                    stored.last().map(|(_, s)| (id.clone(), s.clone())).into_iter().collect();
                let delta = crate::run::account(Source::Github, vec![current.clone()], &previous);
                if delta.events.is_empty() && !delta.snapshots.is_empty() {
                    silent += 1;
                }
                events.extend(delta.events.into_iter().map(|e| (at, e.observation)));
                stored.extend(delta.snapshots.into_iter().map(|(_, s)| (at, s)));
            }
            let h = history(&id, &stored).unwrap();
            proptest::prop_assert_eq!(h.observations.len(), stored.len());
            proptest::prop_assert_eq!(h.observations.iter().filter(|o| o.kind.is_none()).count(), silent);
            let recorded: Vec<_> = h
                .observations
                .iter()
                .filter(|o| o.kind.is_some())
                .map(|o| (o.at, o.kind, o.fields.join(", ")))
                .collect();
            let want: Vec<_> = events
                .iter()
                .map(|(at, obs)| (*at, Some(obs.kind()), match obs {
                    crate::diff::Observation::Discovered => String::new(),
                    crate::diff::Observation::Changed(_) => obs.detail(),
                }))
                .collect();
            proptest::prop_assert_eq!(recorded, want);
            for o in h.observations.iter().skip(1) {
                let mut named: Vec<&str> = o
                    .changes
                    .iter()
                    .map(|c| match c {
                        Change::Reactions { .. } | Change::Comments { .. } => "metrics",
                        Change::Title { .. } => "title",
                        Change::Text { .. } => "text",
                        Change::State { .. } => "state",
                        Change::Labels { .. } => "labels",
                        Change::Assignees { .. } => "assignees",
                        Change::UpdatedAt { .. } => "updatedAt",
                        Change::Draft { .. } => "draft",
                        Change::Merged { .. } => "merged",
                        Change::Advisory { name, .. } => name.as_str(),
                    })
                    .collect();
                named.dedup();
                proptest::prop_assert_eq!(named, o.fields.iter().map(String::as_str).collect::<Vec<_>>());
            }
        }

        /// Line counts: the difference is the change in line count, the
        /// reverse edit swaps them, and nothing changed counts nothing.
        #[test]
        fn line_counts_balance(
            old in proptest::collection::vec(0u8..5, 0..40),
            new in proptest::collection::vec(0u8..5, 0..40),
        ) {
            let text = |v: &[u8]| v.iter().map(|x| format!("line {x}\n")).collect::<String>();
            let (a, b) = (text(&old), text(&new));
            let (added, removed) = line_delta(&a, &b);
            proptest::prop_assert_eq!(added as i64 - removed as i64, new.len() as i64 - old.len() as i64);
            proptest::prop_assert_eq!(line_delta(&b, &a), (removed, added));
            proptest::prop_assert_eq!(line_delta(&a, &a), (0, 0));
        }
    }

    #[test]
    fn the_json_names_each_field() {
        let change = Change::Reactions { old: 3, new: 7 };
        assert_eq!(
            serde_json::to_value(&change).unwrap(),
            serde_json::json!({"field": "reactions", "old": 3, "new": 7})
        );
        let text = Change::Text {
            lines_added: 1,
            lines_removed: 0,
            old_chars: 1,
            new_chars: 2,
        };
        assert_eq!(
            serde_json::to_value(&text).unwrap(),
            serde_json::json!({"field": "text", "linesAdded": 1, "linesRemoved": 0, "oldChars": 1, "newChars": 2})
        );
    }
}
