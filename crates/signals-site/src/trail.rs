//! The observation trail as pages show it: the order of its entries
//! (runs chronologically; within a run `changed` before `discovered`, by
//! item kind and number, then the lifecycle judged after the run), each
//! said in words, a run's many `discovered` entries folded into one group.
//!
//! Views are built from a slice of the ordered trail at a time (a page of
//! it), each entry carrying what the words need beyond the event itself,
//! so no page needs the whole trail in memory. The lifecycle's changes
//! are not stored as events: a source gives the items' events alone, and
//! [`LifecyclePlaces`] places the few changes among them, as the API's
//! trail does newest first (`signals_core::lifecycle::trail`).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use jiff::Timestamp;
use serde::Serialize;
use signals_core::dataset::SignalDoc;
use signals_core::lifecycle::trail::{LIFECYCLE_KIND, TrailEntry, change_detail, interleave};
use signals_core::lifecycle::verdict::StateChange;
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

/// A lifecycle change on the trail: no item, so no link.
#[derive(Serialize)]
pub(crate) struct LifecycleEntryView {
    /// 1-based position in the whole trail (in page order).
    n: usize,
    kind: &'static str,
    /// `Lifecycle: stable → declining`, `Lifecycle judged: stable`.
    words: String,
    at: TimeView,
}

/// A row of the trail list: one entry, a lifecycle change, or a run's
/// folded `discovered` entries.
#[derive(Serialize)]
pub(crate) struct TrailRowView<'a> {
    entry: Option<TrailEntryView<'a>>,
    lifecycle: Option<LifecycleEntryView>,
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

/// The words for a lifecycle change: `Lifecycle: stable → declining`,
/// or `Lifecycle judged: stable` for the first judgement.
pub(crate) fn lifecycle_words(change: &StateChange) -> String {
    match change.from {
        Some(_) => format!("Lifecycle: {}", change_detail(change)),
        None => format!("Lifecycle judged: {}", change.to.as_str()),
    }
}

fn lifecycle_entry(change: &StateChange, n: usize) -> LifecycleEntryView {
    LifecycleEntryView {
        n,
        kind: LIFECYCLE_KIND,
        words: lifecycle_words(change),
        at: TimeView::of(change.at),
    }
}

/// An entry of the trail as pages list it: an item's event, or a
/// lifecycle change.
pub(crate) type Entry = TrailEntry<TrailItem>;

/// The item event of `e`, when it is `discovered`.
fn discovered(e: &Entry) -> Option<&TrailEvent> {
    match e {
        TrailEntry::Item(item) if item.event.kind == EventKind::Discovered => Some(&item.event),
        _ => None,
    }
}

/// Rows for `entries`, the entries of the ordered trail from position
/// `start` (0-based) on, with every run's `discovered` entries folded when
/// there are more than [`TRAIL_FOLD_MIN`] of them in view.
pub(crate) fn trail_rows(entries: &[Entry], start: usize) -> Vec<TrailRowView<'_>> {
    let mut rows: Vec<TrailRowView<'_>> = Vec::new();
    let end = entries.len();
    let mut i = 0;
    while i < end {
        let first = discovered(&entries[i]);
        let mut j = i;
        if let Some(first) = first {
            while j < end && discovered(&entries[j]).is_some_and(|e| e.at == first.at) {
                j += 1;
            }
        }
        if let Some(first) = first.filter(|_| j - i > TRAIL_FOLD_MIN) {
            let items = entries[i..j].iter().filter_map(|e| match e {
                TrailEntry::Item(item) => Some(item),
                TrailEntry::Lifecycle(_) => None,
            });
            rows.push(TrailRowView {
                entry: None,
                lifecycle: None,
                group: Some(TrailGroupView {
                    n: start + i + 1,
                    count: j - i,
                    at: TimeView::of(first.at),
                    entries: items
                        .zip(start + i + 1..)
                        .map(|(item, n)| entry(item, n))
                        .collect(),
                }),
            });
            i = j;
        } else {
            let (entry, lifecycle) = match &entries[i] {
                TrailEntry::Item(item) => (Some(entry(item, start + i + 1)), None),
                TrailEntry::Lifecycle(c) => (None, Some(lifecycle_entry(c, start + i + 1))),
            };
            rows.push(TrailRowView {
                entry,
                lifecycle,
                group: None,
            });
            i += 1;
        }
    }
    rows
}

/// A repository's lifecycle changes placed in its oldest-first trail:
/// each after the items' events of the run that judged it (the judgement
/// follows the run's commit), so before those of every later run. The
/// changes are few (one per change of state), so each keeps its place in
/// the whole trail; a page of the trail is then its items' events, read
/// from the source by position among the items' events alone, with the
/// changes of the page put in their places.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LifecyclePlaces {
    /// Each change, oldest first, with its place (0-based) in the whole
    /// trail.
    places: Vec<(usize, StateChange)>,
    /// The whole trail's entries, the changes included.
    total: usize,
}

impl LifecyclePlaces {
    /// The places of `changes` (oldest first) in a trail of `items` items'
    /// events, where `through(at)` is how many of them are of runs at or
    /// before `at` (runs are in chronological order, so these are the
    /// first ones).
    pub(crate) fn new(
        changes: &[StateChange],
        items: usize,
        mut through: impl FnMut(Timestamp) -> usize,
    ) -> LifecyclePlaces {
        let places = changes
            .iter()
            .enumerate()
            .map(|(older, c)| (through(c.at).min(items) + older, c.clone()))
            .collect();
        LifecyclePlaces {
            places,
            total: items + changes.len(),
        }
    }

    /// The whole trail's entries, the changes included.
    pub(crate) fn total(&self) -> usize {
        self.total
    }

    /// How many changes come before place `p` of the whole trail.
    fn before(&self, p: usize) -> usize {
        self.places.partition_point(|(place, _)| *place < p)
    }

    /// The positions among the items' events alone of those the whole
    /// trail's `range` holds.
    pub(crate) fn items(&self, range: &Range<usize>) -> Range<usize> {
        range.start - self.before(range.start)..range.end - self.before(range.end)
    }

    /// The entries at `range` of the whole trail: `items` (the items'
    /// events at [`Self::items`] of it, in page order) with the changes
    /// of the range in their places.
    pub(crate) fn merge(&self, range: Range<usize>, items: Vec<TrailItem>) -> Vec<Entry> {
        let changes = &self.places[self.before(range.start)..];
        interleave(range, changes, items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use signals_core::lifecycle::State;

    fn at(h: i64) -> Timestamp {
        Timestamp::UNIX_EPOCH + jiff::SignedDuration::from_hours(h)
    }

    /// An item's event of the run at hour `h`.
    fn event(h: i64, kind: EventKind, key: u32) -> TrailItem {
        TrailItem {
            event: TrailEvent {
                at: at(h),
                item_id: format!("github:o/r:issue:{key}"),
                title: format!("Issue {key}"),
                url: format!("https://github.com/o/r/issues/{key}"),
                kind,
                detail: match kind {
                    EventKind::Discovered => "initial snapshot".to_string(),
                    EventKind::Changed => "labels".to_string(),
                },
            },
            latest_state: None,
        }
    }

    fn change(h: i64, from: Option<State>, to: State) -> StateChange {
        StateChange {
            at: at(h),
            from,
            to,
        }
    }

    /// An entry as `hour:key` or `hour:detail`.
    fn said(e: &Entry) -> String {
        match e {
            TrailEntry::Item(i) => format!(
                "{}:{}",
                i.event.at.as_second() / 3600,
                i.event.item_id.rsplit(':').next().unwrap()
            ),
            TrailEntry::Lifecycle(c) => format!("{}:{}", c.at.as_second() / 3600, change_detail(c)),
        }
    }

    #[test]
    fn lifecycle_changes_follow_their_runs_items_on_every_page_size() {
        // Runs at hours 1, 2, 3 with 3, 0 and 2 events: the first
        // judgement at hour 1, a change at hour 2 (a run without events)
        // and one at hour 3.
        let items = [
            event(1, EventKind::Discovered, 1),
            event(1, EventKind::Discovered, 2),
            event(1, EventKind::Discovered, 3),
            event(3, EventKind::Changed, 1),
            event(3, EventKind::Changed, 2),
        ];
        let changes = [
            change(1, None, State::Active),
            change(2, Some(State::Active), State::Declining),
            change(3, Some(State::Declining), State::Archived),
        ];
        let through = |t: Timestamp| items.partition_point(|i| i.event.at <= t);
        let places = LifecyclePlaces::new(&changes, items.len(), through);
        assert_eq!(places.total(), 8);
        let whole = [
            "1:1",
            "1:2",
            "1:3",
            "1:active",
            "2:active → declining",
            "3:1",
            "3:2",
            "3:declining → archived",
        ];
        for size in 1..=9 {
            let mut got = Vec::new();
            let mut start = 0;
            while start < places.total() {
                let range = start..(start + size).min(places.total());
                let wanted = places.items(&range);
                let page = places.merge(range.clone(), items[wanted].to_vec());
                assert_eq!(page.len(), range.len(), "pages of {size}");
                got.extend(page.iter().map(said));
                start += size;
            }
            assert_eq!(got, whole, "pages of {size}");
        }
        // Without changes, the items' own positions.
        let none = LifecyclePlaces::new(&[], items.len(), through);
        assert_eq!((none.total(), none.items(&(1..3))), (5, 1..3));
    }

    #[test]
    fn lifecycle_changes_are_said_in_words_and_end_a_fold() {
        assert_eq!(
            lifecycle_words(&change(1, None, State::Stable)),
            "Lifecycle judged: stable"
        );
        assert_eq!(
            lifecycle_words(&change(1, Some(State::Stable), State::Declining)),
            "Lifecycle: stable → declining"
        );
        let mut entries: Vec<Entry> = (1..=4)
            .map(|k| TrailEntry::Item(event(1, EventKind::Discovered, k)))
            .collect();
        entries.push(TrailEntry::Lifecycle(change(1, None, State::Stable)));
        entries.push(TrailEntry::Item(event(2, EventKind::Discovered, 5)));
        let rows = trail_rows(&entries, 10);
        assert_eq!(rows.len(), 3);
        let group = rows[0].group.as_ref().unwrap();
        assert_eq!((group.n, group.count, group.entries.len()), (11, 4, 4));
        let lifecycle = rows[1].lifecycle.as_ref().unwrap();
        assert_eq!((lifecycle.n, lifecycle.kind), (15, "lifecycle"));
        assert_eq!(lifecycle.words, "Lifecycle judged: stable");
        assert_eq!(rows[2].entry.as_ref().unwrap().n, 16);
    }

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
