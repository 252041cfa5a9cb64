//! What `signals serve` reads, each costing what it returns or
//! streaming what it reads, instead of reading a repository whole: the
//! latest heads of a repository one at a time (without bodies), the items changed in the latest run, and one
//! page of the trail ([`PagedReads`]).
//!
//! The trail is paged by run: each run's `changed_count` is the number of
//! events it recorded (an invariant of commits), so the runs covering a
//! page are found from the runs alone ([`trail_plan`], both backends), and
//! only that page's events are read, by the events' primary key `(run,
//! pos)` (`pos` numbers a run's events in signal id order).
//!
//! Text search is the word index's (`crate::search`).

use std::collections::HashSet;

use signals_core::{ItemSnapshot, TrailEvent};

use crate::{RepoKey, Result};

/// One run's share of a trail page: the run's row id, how many of its
/// events (newest item id first) to skip, and how many to take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrailSlice {
    /// `runs.id`.
    pub run: i64,
    /// Events of the run to skip, in descending item id order.
    pub skip: u64,
    /// Events of the run to take after those.
    pub take: u64,
}

/// A page of a repository's trail ([`PagedReads::trail_page`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrailPage {
    /// How many events the whole trail holds.
    pub total: u64,
    /// The page's events, newest first.
    pub events: Vec<TrailEvent>,
}

/// What [`trail_plan`] finds: the trail's total and the slices of runs
/// that make a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrailPlan {
    /// How many events the whole trail holds.
    pub total: u64,
    /// The page's events, run by run, newest first.
    pub slices: Vec<TrailSlice>,
}

/// Which events of which runs make the trail page `offset..offset+limit`,
/// newest first, given every run's `(id, changed_count)` newest first; and
/// the trail's total.
pub fn trail_plan(runs: &[(i64, u64)], offset: u64, limit: u64) -> TrailPlan {
    let total = runs.iter().map(|(_, n)| n).sum();
    let mut slices = Vec::new();
    let end = offset.saturating_add(limit);
    let mut start_of_run = 0u64;
    for &(run, count) in runs {
        let end_of_run = start_of_run + count;
        if count > 0 && end_of_run > offset && start_of_run < end {
            let skip = offset.saturating_sub(start_of_run);
            let take = end.min(end_of_run) - (start_of_run + skip);
            slices.push(TrailSlice { run, skip, take });
        }
        if end_of_run >= end {
            break;
        }
        start_of_run = end_of_run;
    }
    TrailPlan { total, slices }
}

/// What `signals serve` reads, each costing what it returns or
/// streaming what it reads: the latest heads one at a time, the items
/// changed in the latest run, one page of the trail.
pub trait PagedReads {
    /// The latest snapshot of every item of `repo`, in signal id order
    /// (byte order), each without its body (`text` is empty), handed to
    /// `each` one at a time: memory does not grow with the repository.
    fn each_latest_head(
        &self,
        repo: RepoKey,
        each: &mut dyn FnMut(String, ItemSnapshot) -> Result<()>,
    ) -> Result<()>;

    /// The ids of the items with a `changed` event in the repository's
    /// latest run.
    fn changed_in_latest(&self, repo: RepoKey) -> Result<HashSet<String>>;

    /// The trail's total and its events `offset..offset + limit`, newest
    /// first (latest run first, then item ids in descending order: the
    /// reverse of the trail's order), reading only those.
    fn trail_page(&self, repo: RepoKey, offset: u64, limit: u64) -> Result<TrailPage>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trail_plans_cover_exactly_the_page() {
        let runs = [(9, 3), (8, 0), (7, 5), (6, 2)];
        assert_eq!(trail_plan(&runs, 0, 100).total, 10);
        let all: Vec<(i64, u64)> = (0..10)
            .flat_map(|offset| {
                let slices = trail_plan(&runs, offset, 1).slices;
                assert_eq!(slices.len(), 1, "{offset}");
                slices.into_iter().map(|s| (s.run, s.skip))
            })
            .collect();
        assert_eq!(
            all,
            [
                (9, 0),
                (9, 1),
                (9, 2),
                (7, 0),
                (7, 1),
                (7, 2),
                (7, 3),
                (7, 4),
                (6, 0),
                (6, 1)
            ]
        );
        assert_eq!(
            trail_plan(&runs, 2, 4).slices,
            [
                TrailSlice {
                    run: 9,
                    skip: 2,
                    take: 1
                },
                TrailSlice {
                    run: 7,
                    skip: 0,
                    take: 3
                }
            ]
        );
        assert!(trail_plan(&runs, 10, 5).slices.is_empty());
        assert!(trail_plan(&[], 0, 5).slices.is_empty());
    }
}
