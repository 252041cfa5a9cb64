//! A repository's lifecycle changes as events of its observation trail,
//! derived from its judgements (`StateChange`, nothing stored twice): a
//! change comes after the items' events of the run that judged it (the
//! judgement follows the run's commit), so in the newest-first trail it
//! comes first of its run. The first judgement is an event too, as it is
//! the first of a verdict's `changes`.
//!
//! [`layout`] places a page of the newest-first trail: which of the
//! items' events the store is asked for (an offset and a limit over
//! them alone) and where the changes fall among them; [`TrailLayout::merge`]
//! puts them together.

use jiff::Timestamp;

use super::verdict::StateChange;

/// The `kind` of a lifecycle event on the trail.
pub const LIFECYCLE_KIND: &str = "lifecycle";

/// The `detail` of a change: `stable → declining`, or the state alone for
/// the first judgement.
pub fn change_detail(change: &StateChange) -> String {
    match change.from {
        Some(from) => format!("{} → {}", from.as_str(), change.to.as_str()),
        None => change.to.as_str().to_string(),
    }
}

/// One run, newest first: its instant and how many item events it
/// recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunEvents {
    /// The run's instant.
    pub at: Timestamp,
    /// Its item events (`changed_count`).
    pub events: u64,
}

/// A page of the newest-first trail with the lifecycle changes in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrailLayout {
    /// The whole trail's events, the changes included.
    pub total: u64,
    /// The first of the items' events the page holds, counted among the
    /// items' events alone.
    pub item_offset: u64,
    /// How many of the items' events it holds at most.
    pub item_limit: u64,
    /// The page's changes: each its place in the page and the change.
    pub changes: Vec<(u64, StateChange)>,
    /// The page's length at most.
    pub limit: u64,
}

/// One entry of a trail page: an item's event or a lifecycle change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrailEntry<E> {
    /// An item's event, as the store reads it.
    Item(E),
    /// A change of the judged state.
    Lifecycle(StateChange),
}

/// Where the page `offset..offset + limit` of the newest-first trail falls,
/// given every run newest first and the changes (oldest first, as the
/// store reads them).
pub fn layout(runs: &[RunEvents], changes: &[StateChange], offset: u64, limit: u64) -> TrailLayout {
    let items: u64 = runs.iter().map(|r| r.events).sum();
    // Each change's place in the whole trail: the items' events of the
    // runs after it, and the changes after it.
    let mut places = Vec::with_capacity(changes.len());
    for (newer, change) in changes.iter().rev().enumerate() {
        let after: u64 = runs
            .iter()
            .take_while(|r| r.at > change.at)
            .map(|r| r.events)
            .sum();
        places.push((after + newer as u64, change.clone()));
    }
    let end = offset.saturating_add(limit);
    let before = places.iter().filter(|(p, _)| *p < offset).count() as u64;
    let in_page: Vec<(u64, StateChange)> = places
        .into_iter()
        .filter(|(p, _)| *p >= offset && *p < end)
        .map(|(p, c)| (p - offset, c))
        .collect();
    TrailLayout {
        total: items + changes.len() as u64,
        item_offset: offset - before,
        item_limit: limit - in_page.len() as u64,
        changes: in_page,
        limit,
    }
}

impl TrailLayout {
    /// The page: `items` (the store's events at `item_offset`, at most
    /// `item_limit`, newest first) with the changes in their places.
    pub fn merge<E>(&self, items: Vec<E>) -> Vec<TrailEntry<E>> {
        interleave(0..self.limit, &self.changes, items)
    }
}

/// The entries at `places`: each change of `changes` (with its place,
/// ascending) at its place, `items` in order in the others, until the
/// items run out. The API's newest-first pages and the site's oldest-first
/// ones both put their changes in place with it.
pub fn interleave<P, E>(
    places: impl Iterator<Item = P>,
    changes: &[(P, StateChange)],
    items: Vec<E>,
) -> Vec<TrailEntry<E>>
where
    P: PartialEq,
{
    let mut items = items.into_iter();
    let mut changes = changes.iter().peekable();
    let mut out = Vec::new();
    for place in places {
        match changes.peek() {
            Some((p, c)) if *p == place => {
                out.push(TrailEntry::Lifecycle(c.clone()));
                changes.next();
            }
            _ => match items.next() {
                Some(e) => out.push(TrailEntry::Item(e)),
                None => break,
            },
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::State;

    fn at(h: i64) -> Timestamp {
        Timestamp::UNIX_EPOCH + jiff::SignedDuration::from_hours(h)
    }

    /// The whole newest-first trail, one page at a time of `limit`.
    fn paged(runs: &[RunEvents], changes: &[StateChange], limit: u64) -> Vec<String> {
        let all: Vec<String> = runs
            .iter()
            .flat_map(|r| {
                (0..r.events)
                    .rev()
                    .map(move |i| format!("{}:{i}", r.at.as_second() / 3600))
            })
            .collect();
        let mut out = Vec::new();
        let mut offset = 0;
        loop {
            let l = layout(runs, changes, offset, limit);
            let items: Vec<String> = all
                .iter()
                .skip(l.item_offset as usize)
                .take(l.item_limit as usize)
                .cloned()
                .collect();
            let page = l.merge(items);
            assert!(page.len() as u64 <= limit);
            if page.is_empty() {
                assert_eq!(out.len() as u64, l.total);
                return out;
            }
            for e in page {
                out.push(match e {
                    TrailEntry::Item(s) => s,
                    TrailEntry::Lifecycle(c) => {
                        format!("{}:{}", c.at.as_second() / 3600, change_detail(&c))
                    }
                });
            }
            offset += limit;
        }
    }

    #[test]
    fn changes_come_first_of_their_run_newest_first_on_every_page_size() {
        // Runs at hours 3, 2, 1 (newest first) with 2, 0 and 3 events; the
        // first judgement at hour 1, a change at hour 2.
        let runs = [
            RunEvents {
                at: at(3),
                events: 2,
            },
            RunEvents {
                at: at(2),
                events: 0,
            },
            RunEvents {
                at: at(1),
                events: 3,
            },
        ];
        let changes = [
            StateChange {
                at: at(1),
                from: None,
                to: State::Active,
            },
            StateChange {
                at: at(2),
                from: Some(State::Active),
                to: State::Archived,
            },
        ];
        let whole = [
            "3:1",
            "3:0",
            "2:active → archived",
            "1:active",
            "1:2",
            "1:1",
            "1:0",
        ];
        for limit in 1..=8 {
            assert_eq!(paged(&runs, &changes, limit), whole, "pages of {limit}");
        }
        assert_eq!(change_detail(&changes[0]), "active");
        // Without changes, the items' own paging.
        let l = layout(&runs, &[], 1, 2);
        assert_eq!((l.total, l.item_offset, l.item_limit), (5, 1, 2));
    }
}
