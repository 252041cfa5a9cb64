//! Run accounting: the window a run asks for, and what its observations add
//! to the store (events and new snapshots).
//!
//! The rules are DECISIONS.md's "Runs and observation events": `since` is
//! `collectedAt` minus the window, widened back to the previous successful run
//! so no update is lost; `changedCount` is the number of events the run
//! records, so it never exceeds `observedCount`.

use std::collections::{BTreeMap, HashMap};

use jiff::{SignedDuration, Timestamp};

use crate::diff::{Observation, observe};
use crate::model::ItemSnapshot;

/// The default window: 24 hours.
pub const DEFAULT_WINDOW: SignedDuration = SignedDuration::from_hours(24);

/// The lower bound of `updatedAt` a run asks the host for.
///
/// - `collected_at - window`;
/// - widened to `collected_at - backfill` when a backfill is given (a first
///   run that should reach further back);
/// - widened to the previous successful run's `collected_at` when that run is
///   older than the window, so nothing updated between the runs is missed.
pub fn plan_since(
    collected_at: Timestamp,
    window: SignedDuration,
    previous_success: Option<Timestamp>,
    backfill: Option<SignedDuration>,
) -> Timestamp {
    let mut since = collected_at
        .saturating_sub(window)
        .unwrap_or(Timestamp::MIN);
    if let Some(backfill) = backfill {
        since = since.min(
            collected_at
                .saturating_sub(backfill)
                .unwrap_or(Timestamp::MIN),
        );
    }
    if let Some(previous) = previous_success {
        since = since.min(previous);
    }
    since
}

/// Rounds a `since` down to the start of its UTC day: the bound a run puts
/// in its request URL.
///
/// Every run of the same UTC day then sends the same URL, so when nothing
/// changed the host answers `304 Not Modified` to the conditional request,
/// which costs no rate-limit budget on GitHub. Rounding down only widens
/// what the host returns (by less than a day); the run keeps the items
/// updated at or after its own `since` and records that `since`.
pub fn stable_since(since: Timestamp) -> Timestamp {
    let day = since.as_second().div_euclid(86_400) * 86_400;
    Timestamp::from_second(day).unwrap_or(since)
}

/// How far before the previous run's instant a later run reads again.
///
/// A host stamps its items and comments in whole seconds, shows an update
/// some time after its timestamp (replicas lag) and keeps a clock of its
/// own; a run that read strictly from the previous run's instant would
/// lose a reply written in the same second as that run, or one that
/// became visible just after it. Ten minutes, as discussions' watermark
/// ([`crate::WATERMARK_MARGIN`]): what is read again is upserted by the
/// host's id, or found unchanged, and costs no request, since every list
/// is asked from the start of its UTC day ([`stable_since`]).
pub const REREAD_MARGIN: SignedDuration = crate::WATERMARK_MARGIN;

/// The oldest `updatedAt` a later run reads again: the previous run's
/// instant at the host's granularity (whole seconds), less
/// [`REREAD_MARGIN`].
pub fn reread_from(previous: Timestamp) -> Timestamp {
    let whole = Timestamp::from_second(previous.as_second()).unwrap_or(previous);
    whole.saturating_sub(REREAD_MARGIN).unwrap_or(whole)
}

/// One observation event a run records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemEvent {
    /// Signal id of the item.
    pub item_id: String,
    /// Discovered, or changed with its fields.
    pub observation: Observation,
}

/// What a run adds to the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunDelta {
    /// Distinct items the host returned for the window.
    pub observed_count: u64,
    /// Events, ordered by item id.
    pub events: Vec<ItemEvent>,
    /// Snapshots that differ from the stored ones in any field (tracked or
    /// not), ordered by item id; each is kept as a new version.
    pub snapshots: Vec<(String, ItemSnapshot)>,
}

impl RunDelta {
    /// The run's `changedCount`: the number of events it records.
    pub fn changed_count(&self) -> u64 {
        self.events.len() as u64
    }
}

/// Compares a run's observed items with the previous snapshots.
///
/// `observed` may hold the same item twice: paging through a list sorted by
/// update time while items are being updated shows a moved item again on a
/// later page. The copy with the newest `updated_at` wins (the later one on a
/// tie), and the item counts once.
///
/// `previous` maps signal ids to the latest stored snapshot; items missing
/// from it are discovered.
pub fn account(
    source: impl std::fmt::Display + Copy,
    observed: Vec<ItemSnapshot>,
    previous: &HashMap<String, ItemSnapshot>,
) -> RunDelta {
    let mut latest: BTreeMap<String, ItemSnapshot> = BTreeMap::new();
    for item in observed {
        let id = item.id(source);
        match latest.get(&id) {
            Some(seen) if seen.updated_at > item.updated_at => {}
            _ => {
                latest.insert(id, item);
            }
        }
    }
    let observed_count = latest.len() as u64;
    let mut events = Vec::new();
    let mut snapshots = Vec::new();
    for (id, item) in latest {
        let prev = previous.get(&id);
        if let Some(observation) = observe(prev, &item) {
            events.push(ItemEvent {
                item_id: id.clone(),
                observation,
            });
        }
        if prev != Some(&item) {
            snapshots.push((id, item));
        }
    }
    RunDelta {
        observed_count,
        events,
        snapshots,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::tests::issue;
    use crate::model::{ItemState, Source};
    use proptest::prelude::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn since_is_window_before_collection() {
        let at = ts("2026-11-21T12:00:00.250Z");
        assert_eq!(
            plan_since(at, DEFAULT_WINDOW, None, None),
            ts("2026-11-20T12:00:00.250Z")
        );
    }

    #[test]
    fn since_widens_to_an_older_previous_run() {
        let at = ts("2026-11-21T12:00:00Z");
        let prev = ts("2026-11-19T06:00:00Z");
        assert_eq!(plan_since(at, DEFAULT_WINDOW, Some(prev), None), prev);
        // A recent previous run does not narrow the window.
        let recent = ts("2026-11-21T11:00:00Z");
        assert_eq!(
            plan_since(at, DEFAULT_WINDOW, Some(recent), None),
            ts("2026-11-20T12:00:00Z")
        );
    }

    #[test]
    fn a_later_run_reads_again_from_the_whole_second_less_the_margin() {
        let previous: Timestamp = "2026-11-01T12:00:12.3Z".parse().unwrap();
        let from = reread_from(previous);
        assert_eq!(from, "2026-11-01T11:50:12Z".parse::<Timestamp>().unwrap());
        // A reply written after the run but stamped in its second is read.
        let stamped: Timestamp = "2026-11-01T12:00:12Z".parse().unwrap();
        assert!(stamped >= from && stamped < previous);
    }

    #[test]
    fn stable_since_is_the_utc_day_start() {
        assert_eq!(
            stable_since(ts("2026-11-20T13:45:10.5Z")),
            ts("2026-11-20T00:00:00Z")
        );
        assert_eq!(
            stable_since(ts("2026-11-20T00:00:00Z")),
            ts("2026-11-20T00:00:00Z")
        );
        assert_eq!(
            stable_since(ts("1969-12-31T23:00:00Z")),
            ts("1969-12-31T00:00:00Z")
        );
    }

    #[test]
    fn backfill_reaches_further_back() {
        let at = ts("2026-11-21T12:00:00Z");
        let backfill = SignedDuration::from_hours(24 * 365);
        assert_eq!(
            plan_since(at, DEFAULT_WINDOW, None, Some(backfill)),
            ts("2025-11-21T12:00:00Z")
        );
    }

    #[test]
    fn duplicates_count_once_and_newest_wins() {
        let a = issue("1");
        let mut a2 = a.clone();
        a2.updated_at = ts("2030-01-01T00:00:00Z");
        a2.state = ItemState::Closed;
        let delta = account(
            Source::Github,
            vec![a.clone(), a2.clone(), a],
            &HashMap::new(),
        );
        assert_eq!(delta.observed_count, 1);
        assert_eq!(
            delta.snapshots,
            vec![("github:o/n:issue:1".to_string(), a2)]
        );
    }

    #[test]
    fn untracked_change_keeps_a_snapshot_but_records_no_event() {
        let a = issue("1");
        let mut b = a.clone();
        b.url = "https://example.com/moved".into();
        let prev = HashMap::from([(a.id(Source::Github), a)]);
        let delta = account(Source::Github, vec![b], &prev);
        assert_eq!(delta.events, vec![]);
        assert_eq!(delta.snapshots.len(), 1);
    }

    proptest! {
        /// changedCount <= observedCount, and applying the same observation
        /// twice records no event the second time.
        #[test]
        fn accounting_invariants(
            keys in proptest::collection::vec(0u32..40, 0..60),
            known in proptest::collection::vec(0u32..40, 0..40),
            bump in proptest::collection::vec(any::<bool>(), 60),
        ) {
            let observed: Vec<_> = keys.iter().zip(&bump).map(|(k, b)| {
                let mut s = issue(&k.to_string());
                if *b { s.metrics.comments += 1; }
                s
            }).collect();
            let previous: HashMap<_, _> = known.iter()
                .map(|k| { let s = issue(&k.to_string()); (s.id(Source::Github), s) })
                .collect();
            let delta = account(Source::Github, observed.clone(), &previous);
            prop_assert!(delta.changed_count() <= delta.observed_count);

            // Store what the run produced, then apply the same observation again.
            let mut after = previous.clone();
            for (id, s) in &delta.snapshots { after.insert(id.clone(), s.clone()); }
            let again = account(Source::Github, observed, &after);
            prop_assert_eq!(again.changed_count(), 0);
            prop_assert!(again.snapshots.is_empty());
            prop_assert_eq!(again.observed_count, delta.observed_count);
        }
    }
}
