//! The observation trail as pages show it: the order of its entries
//! (runs chronologically; within a run `changed` before `discovered`, by
//! item kind and number), each said in words, a run's many `discovered`
//! entries folded into one group.
//!
//! Views are built from a slice of the ordered trail at a time (a page of
//! it), each entry carrying what the words need beyond the event itself,
//! so no page needs the whole trail in memory.

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;
use serde::Serialize;
use signals_core::dataset::SignalDoc;
use signals_core::{EventKind, ItemKind, TrailEvent};

use crate::paths::{history_file, id_parts, item_number};
use crate::text::http_url;
use crate::views::{PagerView, TimeView};

/// A run's `discovered` entries are folded into one expandable group when
/// there are more than this many of them in view.
pub const TRAIL_FOLD_MIN: usize = 3;

/// One event of the ordered trail, with what its words need.
#[derive(Debug, Clone, PartialEq)]
pub struct TrailItem {
    /// The event.
    pub event: TrailEvent,
    /// The item's current state (`open`, `closed`) when this event is the
    /// item's latest change of state; `None` otherwise.
    pub latest_state: Option<String>,
}

/// One observation trail entry.
#[derive(Serialize)]
pub(crate) struct TrailEntryView<'a> {
    /// 1-based position in the whole trail (in page order).
    n: usize,
    kind: &'static str,
    /// The spec's detail: `initial snapshot`, or the changed field names.
    detail: &'a str,
    /// The change in words: `new comments or reactions, closed`.
    words: String,
    item_id: &'a str,
    /// The item's history page, relative to the repository's folder.
    history: String,
    /// `issue`, `pull request`, `release`.
    item_kind: &'static str,
    /// `#42`, or a release's tag.
    number: String,
    title: &'a str,
    url: Option<&'a str>,
    at: TimeView,
}

/// A row of the trail list: one entry, or a run's folded `discovered`
/// entries.
#[derive(Serialize)]
pub(crate) struct TrailRowView<'a> {
    entry: Option<TrailEntryView<'a>>,
    group: Option<TrailGroupView<'a>>,
}

/// A run's `discovered` entries, folded into one expandable group.
#[derive(Serialize)]
pub(crate) struct TrailGroupView<'a> {
    /// Number of the first entry.
    n: usize,
    count: usize,
    at: TimeView,
    entries: Vec<TrailEntryView<'a>>,
}

/// The trail block of a page: some entries and where the rest are.
#[derive(Serialize)]
pub(crate) struct TrailView<'a> {
    pub rows: Vec<TrailRowView<'a>>,
    /// Number of the first entry shown.
    pub start: usize,
    /// Entries shown.
    pub shown: usize,
    pub total: usize,
    pub pager: Option<PagerView>,
}

/// What orders an item's events within a run (see `ordered_trail`): its
/// kind (issues, pull requests, releases, then anything else), its key as
/// a number (the greatest when it is not one), then its key as text.
pub fn trail_key_parts(item_id: &str) -> (u8, u64, &str) {
    let (kind, key) = id_parts(item_id);
    (
        kind.map_or(3, |k| k as u8),
        key.parse::<u64>().unwrap_or(u64::MAX),
        key,
    )
}

/// The sort key of an event in page order (see [`ordered_trail`]).
pub(crate) fn trail_order_key(e: &TrailEvent) -> (Timestamp, bool, u8, u64, &str) {
    let (kind, number, key) = trail_key_parts(&e.item_id);
    (e.at, e.kind == EventKind::Discovered, kind, number, key)
}

/// The trail in page order: runs chronologically; within a run, `changed`
/// entries before `discovered` ones, each by item kind and then by number
/// as a number (2 before 10), tags as text. The store's order
/// within a run is by id as text, which reads as 1, 10, 100, 2.
pub(crate) fn ordered_trail(trail: &[TrailEvent]) -> Vec<&TrailEvent> {
    let mut out: Vec<&TrailEvent> = trail.iter().collect();
    out.sort_by(|a, b| trail_order_key(a).cmp(&trail_order_key(b)));
    out
}

/// The words for a change: the spec's field names said as a reader would.
/// `state` is said as `closed` or `reopened` for the item's latest state
/// change (the item's current state tells which), else as both.
pub(crate) fn change_words(detail: &str, latest_state_change: Option<&str>) -> String {
    let fields: Vec<&str> = detail.split(',').map(str::trim).collect();
    let mut words: Vec<&str> = fields
        .iter()
        .filter_map(|f| match *f {
            "title" => Some("retitled"),
            "text" => Some("edited"),
            "state" => Some(match latest_state_change {
                Some("closed") => "closed",
                Some("open") => "reopened",
                _ => "closed or reopened",
            }),
            "labels" => Some("relabelled"),
            "assignees" => Some("reassigned"),
            "metrics" => Some("new comments or reactions"),
            "draft" => Some("draft status changed"),
            "merged" => Some("merged"),
            _ => None,
        })
        .collect();
    if words.is_empty() {
        words.push(if fields.contains(&"updatedAt") {
            "new activity"
        } else {
            "changed"
        });
    }
    words.join(", ")
}

/// Whether an event changed its item's state (`state` among its fields).
pub fn changes_state(e: &TrailEvent) -> bool {
    e.kind == EventKind::Changed && e.detail.split(',').any(|f| f.trim() == "state")
}

/// What the trail of a whole repository needs besides its events: each
/// item's current state, and which event is the item's latest state
/// change.
pub(crate) struct TrailContext<'a> {
    states: HashMap<&'a str, &'a str>,
    /// `(item id, run instant)` of each item's latest state change (an item
    /// has at most one event per run).
    latest_state_event: HashSet<(&'a str, Timestamp)>,
}

impl<'a> TrailContext<'a> {
    /// The context of `trail` (chronological), whose items' current
    /// states are `signals`'.
    pub(crate) fn new(signals: &'a [SignalDoc], trail: &'a [TrailEvent]) -> TrailContext<'a> {
        let states = signals
            .iter()
            .map(|s| (s.id.as_str(), s.state.as_str()))
            .collect();
        let mut seen = HashSet::new();
        let mut latest_state_event = HashSet::new();
        for e in trail.iter().rev() {
            if changes_state(e) && seen.insert(e.item_id.as_str()) {
                latest_state_event.insert((e.item_id.as_str(), e.at));
            }
        }
        TrailContext {
            states,
            latest_state_event,
        }
    }

    /// `e` with what its words need.
    pub(crate) fn item(&self, e: &TrailEvent) -> TrailItem {
        let latest_state = self
            .latest_state_event
            .contains(&(e.item_id.as_str(), e.at))
            .then(|| self.states.get(e.item_id.as_str()).map(|s| s.to_string()))
            .flatten();
        TrailItem {
            event: e.clone(),
            latest_state,
        }
    }
}

fn entry(item: &TrailItem, n: usize) -> TrailEntryView<'_> {
    let e = &item.event;
    let (kind, key) = id_parts(&e.item_id);
    let words = match e.kind {
        EventKind::Discovered => "first seen".to_string(),
        EventKind::Changed => change_words(&e.detail, item.latest_state.as_deref()),
    };
    TrailEntryView {
        n,
        kind: e.kind.as_str(),
        detail: &e.detail,
        words,
        item_id: &e.item_id,
        history: format!("history/{}", history_file(&e.item_id)),
        item_kind: kind.map_or("item", ItemKind::label),
        number: item_number(kind, key),
        title: &e.title,
        url: http_url(&e.url),
        at: TimeView::of(e.at),
    }
}

/// Rows for `items`, the entries of the ordered trail from position
/// `start` (0-based) on, with every run's `discovered` entries folded when
/// there are more than [`TRAIL_FOLD_MIN`] of them in view.
pub(crate) fn trail_rows(items: &[TrailItem], start: usize) -> Vec<TrailRowView<'_>> {
    let mut rows: Vec<TrailRowView<'_>> = Vec::new();
    let end = items.len();
    let mut i = 0;
    while i < end {
        let e = &items[i].event;
        let mut j = i;
        while j < end
            && items[j].event.kind == EventKind::Discovered
            && e.kind == EventKind::Discovered
            && items[j].event.at == e.at
        {
            j += 1;
        }
        if j - i > TRAIL_FOLD_MIN {
            rows.push(TrailRowView {
                entry: None,
                group: Some(TrailGroupView {
                    n: start + i + 1,
                    count: j - i,
                    at: TimeView::of(e.at),
                    entries: (i..j).map(|k| entry(&items[k], start + k + 1)).collect(),
                }),
            });
            i = j;
        } else {
            rows.push(TrailRowView {
                entry: Some(entry(&items[i], start + i + 1)),
                group: None,
            });
            i += 1;
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_said_in_words() {
        assert_eq!(
            change_words("updatedAt, metrics, text, state", Some("closed")),
            "new comments or reactions, edited, closed"
        );
        assert_eq!(change_words("state", Some("open")), "reopened");
        assert_eq!(change_words("state", None), "closed or reopened");
        assert_eq!(
            change_words("title, labels, assignees", None),
            "retitled, relabelled, reassigned"
        );
        assert_eq!(change_words("updatedAt", None), "new activity");
    }
}
