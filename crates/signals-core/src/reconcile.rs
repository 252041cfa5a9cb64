//! The periodic reconcile: a run that lists every item of its
//! repository, not only those updated since its `since`, to find what the
//! `since` query cannot see: reactions (which do not bump `updated_at` on
//! GitHub) and items the host no longer lists (deleted, transferred,
//! hidden as spam).
//!
//! Pure: when a repository is due, and what an item the host no longer
//! lists becomes.

use jiff::{SignedDuration, Timestamp};

use crate::{ItemSnapshot, ItemState};

/// The offset of a repository's reconciles within each period, from its
/// key (FNV-1a of `group/repo`): repositories spread over the period
/// instead of all falling in one hour.
pub fn phase(key: &str, period: SignedDuration) -> SignedDuration {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let secs = period.as_secs().max(1) as u64;
    SignedDuration::from_secs((hash % secs) as i64)
}

/// The number of the period `t` falls in, counted from the Unix epoch
/// shifted by the repository's phase.
fn period_of(t: Timestamp, phase: SignedDuration, period: SignedDuration) -> i64 {
    let secs = t.as_second() - phase.as_secs();
    secs.div_euclid(period.as_secs().max(1))
}

/// Whether a repository is due for a reconcile at `now`: every `days`
/// days (0 never), at its own phase (see [`phase`]), once the period it
/// was last reconciled in (or first collected in, when never) has passed.
/// A repository never collected is not due: its first run has nothing to
/// reconcile.
pub fn due(
    key: &str,
    days: u32,
    first_run: Option<Timestamp>,
    last_reconcile: Option<Timestamp>,
    now: Timestamp,
) -> bool {
    if days == 0 {
        return false;
    }
    let Some(anchor) = last_reconcile.or(first_run) else {
        return false;
    };
    let period = SignedDuration::from_hours(24 * i64::from(days));
    let phase = phase(key, period);
    period_of(now, phase, period) > period_of(anchor, phase, period)
}

/// An item the host no longer lists, as the store keeps it from the
/// reconcile at `at` on: closed at that instant, all else as last seen.
/// Its event names `state`; the reason (deleted, transferred, hidden)
/// cannot be told from a list, so none is invented.
pub fn gone(last: &ItemSnapshot, at: Timestamp) -> ItemSnapshot {
    let mut item = last.clone();
    item.state = ItemState::Closed;
    item.closed_at = Some(at);
    item
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{Observation, TrackedField, observe};

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn off_or_never_collected_is_never_due() {
        let now = ts("2026-11-24T00:00:00Z");
        assert!(!due("g/r", 0, Some(ts("2020-01-01T00:00:00Z")), None, now));
        assert!(!due("g/r", 7, None, None, now));
    }

    #[test]
    fn due_once_per_period_at_the_repositorys_own_phase() {
        let period = SignedDuration::from_hours(24 * 7);
        let start = ts("2026-11-01T00:00:00Z");
        // Walk hourly over five weeks: reconciling whenever due gives one
        // reconcile per period, each at the same offset into the period.
        let mut last = None;
        let mut done = Vec::new();
        let mut t = start;
        while t < start + SignedDuration::from_hours(24 * 35) {
            if due("g/r", 7, Some(start), last, t) {
                done.push(t);
                last = Some(t);
            }
            t += SignedDuration::from_hours(1);
        }
        assert!((4..=5).contains(&done.len()), "{done:?}");
        for pair in done.windows(2) {
            assert_eq!(pair[1].duration_since(pair[0]), period, "{done:?}");
        }
        let phase = phase("g/r", period);
        for t in &done {
            let into = (t.as_second() - phase.as_secs()).rem_euclid(period.as_secs());
            assert!(into < 3600, "{t} is {into} s into its period");
        }
    }

    #[test]
    fn repositories_spread_over_the_period() {
        let period = SignedDuration::from_hours(24 * 7);
        let days: std::collections::BTreeSet<i64> = (0..200)
            .map(|i| phase(&format!("group/repo{i}"), period).as_hours() / 24)
            .collect();
        assert_eq!(days.len(), 7, "{days:?}");
    }

    #[test]
    fn a_gone_item_is_closed_at_the_reconcile_and_its_event_names_state() {
        let last = crate::diff::tests::issue("1");
        assert_eq!(last.state, ItemState::Open);
        let at = ts("2026-11-24T10:00:00Z");
        let now = gone(&last, at);
        assert_eq!(now.state, ItemState::Closed);
        assert_eq!(now.closed_at, Some(at));
        assert_eq!(now.updated_at, last.updated_at);
        match observe(Some(&last), &now) {
            Some(Observation::Changed(fields)) => assert!(fields.contains(&TrackedField::State)),
            other => panic!("{other:?}"),
        }
    }
}
