//! A repository's health: whether its data is current, shown
//! where people look (`signals status`, the pages, the API, metrics) so
//! that a silent gap is seen. Pure: the caller supplies what the store
//! holds, the collection interval and the instant to judge at.
//!
//! A repository its owner's listing left out (`orgs`: gone, archived, a
//! fork, excluded) is no longer collected on purpose: it is
//! [`HealthState::LeftOut`], never stale or failing, however old its
//! last run; nothing is wrong with the collection.

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use crate::owners::State;

/// Data is stale when no run succeeded for more than this many collection
/// intervals.
pub const STALE_AFTER_INTERVALS: i32 = 3;

/// The latest failed attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LastError {
    /// When it failed.
    #[serde(serialize_with = "ser_at")]
    pub at: Timestamp,
    /// The failure's kind (`http`, `not_found`, `store`, ...).
    pub kind: String,
    /// What failed.
    pub message: String,
}

/// How a repository's collection stands, in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HealthState {
    /// The latest attempt succeeded and it is recent.
    Ok,
    /// The latest attempts failed, but the data is not stale yet.
    Failing,
    /// No successful run for more than [`STALE_AFTER_INTERVALS`]
    /// intervals, or failures and never a success: the data is not current.
    Stale,
    /// Not attempted yet.
    New,
    /// Found through an owner (`orgs`) whose listing no longer holds it,
    /// or that the group's filter now leaves out, and collected by nothing
    /// since: not collected on purpose, its history kept (see
    /// [`Health::left_out`]).
    LeftOut,
}

impl HealthState {
    /// `ok`, `failing`, `stale`, `new` or `left_out`.
    pub fn as_str(self) -> &'static str {
        match self {
            HealthState::Ok => "ok",
            HealthState::Failing => "failing",
            HealthState::Stale => "stale",
            HealthState::New => "new",
            HealthState::LeftOut => "left_out",
        }
    }
}

/// Why, since when and by which owner a repository found through an owner
/// is no longer collected: its row in the owner's listing, as the store
/// holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeftOut {
    /// `gone` (no longer listed: deleted, made private, transferred or
    /// renamed), `archived`, `fork` or `excluded`; never `tracked`.
    #[serde(serialize_with = "ser_state")]
    pub reason: State,
    /// When it took that state (the listing that left it out).
    #[serde(serialize_with = "ser_at")]
    pub since: Timestamp,
    /// The owner whose listing it was found through.
    pub owner: String,
    /// The configured host (its `name`) of that owner.
    pub host: String,
}

/// A repository's health at an instant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// The state, in one word.
    pub state: HealthState,
    /// The latest successful run.
    #[serde(serialize_with = "ser_opt")]
    pub last_success: Option<Timestamp>,
    /// Seconds from the latest successful run to the instant judged at.
    pub last_success_age_secs: Option<i64>,
    /// Failed attempts since the latest successful run.
    pub failures_in_row: u64,
    /// The latest failure, when it came after the latest success.
    pub last_error: Option<LastError>,
    /// Whether the data is stale (see [`HealthState::Stale`]).
    pub stale: bool,
    /// The collection interval it was judged against, in seconds.
    pub interval_secs: i64,
    /// The latest reconcile (a run that listed every item).
    #[serde(serialize_with = "ser_opt")]
    pub last_reconcile: Option<Timestamp>,
    /// Set when the state is [`HealthState::LeftOut`]: why and since when.
    pub left_out: Option<LeftOut>,
}

fn ser_state<S: serde::Serializer>(state: &State, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(state.as_str())
}

fn ser_at<S: serde::Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&crate::dataset::fmt_collected(*t))
}

fn ser_opt<S: serde::Serializer>(t: &Option<Timestamp>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.serialize_str(&crate::dataset::fmt_collected(*t)),
        None => s.serialize_none(),
    }
}

/// Judges a repository at `now`: `last_success` is its latest successful
/// run, `failures_in_row` the failed attempts after it (all of them when
/// there is none), `last_failure` the latest failed attempt (ignored when
/// it is older than the latest success), `left_out` its owner's listing
/// row when that row is not `tracked`.
///
/// A left-out repository is [`HealthState::LeftOut`] and never stale,
/// unless a run succeeded after it was left out: then something else
/// collects it (the group's `repos` lists it, under the same id) and it is
/// judged as any other.
pub fn assess(
    last_success: Option<Timestamp>,
    failures_in_row: u64,
    last_failure: Option<LastError>,
    last_reconcile: Option<Timestamp>,
    left_out: Option<LeftOut>,
    interval: SignedDuration,
    now: Timestamp,
) -> Health {
    let left_out = left_out
        .filter(|l| l.reason != State::Tracked && last_success.is_none_or(|t| t <= l.since));
    let limit = interval * STALE_AFTER_INTERVALS;
    let stale = left_out.is_none()
        && match last_success {
            Some(t) => now.duration_since(t) > limit,
            None => failures_in_row > 0,
        };
    let last_error =
        last_failure.filter(|f| failures_in_row > 0 && last_success.is_none_or(|t| f.at > t));
    let state = if left_out.is_some() {
        HealthState::LeftOut
    } else if stale {
        HealthState::Stale
    } else if failures_in_row > 0 {
        HealthState::Failing
    } else if last_success.is_none() {
        HealthState::New
    } else {
        HealthState::Ok
    };
    Health {
        state,
        last_success,
        last_success_age_secs: last_success.map(|t| now.duration_since(t).as_secs()),
        failures_in_row,
        last_error,
        stale,
        interval_secs: interval.as_secs(),
        last_reconcile,
        left_out,
    }
}

/// A duration as people say it, to the largest whole unit: `just now`,
/// `5 minutes ago`, `3 hours ago`, `2 days ago`.
pub fn ago(secs: i64) -> String {
    let secs = secs.max(0);
    let (n, unit) = match secs {
        0..60 => return "just now".to_string(),
        60..3600 => (secs / 60, "minute"),
        3600..86_400 => (secs / 3600, "hour"),
        _ => (secs / 86_400, "day"),
    };
    format!("{n} {unit}{} ago", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn failure(at: &str) -> LastError {
        LastError {
            at: ts(at),
            kind: "http".into(),
            message: "500".into(),
        }
    }

    const HOUR: SignedDuration = SignedDuration::from_hours(1);

    #[test]
    fn stale_after_three_intervals_without_success_not_before() {
        let run = ts("2026-11-24T00:00:00Z");
        let at_limit = assess(
            Some(run),
            0,
            None,
            None,
            None,
            HOUR,
            ts("2026-11-24T03:00:00Z"),
        );
        assert_eq!(at_limit.state, HealthState::Ok);
        assert!(!at_limit.stale);
        assert_eq!(at_limit.last_success_age_secs, Some(3 * 3600));
        let past = assess(
            Some(run),
            0,
            None,
            None,
            None,
            HOUR,
            ts("2026-11-24T03:00:01Z"),
        );
        assert_eq!(past.state, HealthState::Stale);
        assert!(past.stale);
    }

    #[test]
    fn failures_after_the_success_make_it_failing_then_stale() {
        let run = ts("2026-11-24T00:00:00Z");
        let h = assess(
            Some(run),
            2,
            Some(failure("2026-11-24T02:00:00Z")),
            None,
            None,
            HOUR,
            ts("2026-11-24T02:00:00Z"),
        );
        assert_eq!(h.state, HealthState::Failing);
        assert_eq!(h.last_error.as_ref().unwrap().message, "500");
        let h = assess(
            Some(run),
            3,
            Some(failure("2026-11-24T04:00:00Z")),
            None,
            None,
            HOUR,
            ts("2026-11-24T04:00:00Z"),
        );
        assert_eq!(h.state, HealthState::Stale);
        assert_eq!(h.failures_in_row, 3);
    }

    #[test]
    fn an_old_failure_before_the_success_is_not_shown() {
        let h = assess(
            Some(ts("2026-11-24T01:00:00Z")),
            0,
            Some(failure("2026-11-24T00:00:00Z")),
            None,
            None,
            HOUR,
            ts("2026-11-24T01:30:00Z"),
        );
        assert_eq!(h.state, HealthState::Ok);
        assert_eq!(h.last_error, None);
    }

    #[test]
    fn never_collected_is_new_and_never_succeeded_is_stale() {
        let now = ts("2026-11-24T00:00:00Z");
        assert_eq!(
            assess(None, 0, None, None, None, HOUR, now).state,
            HealthState::New
        );
        let h = assess(
            None,
            1,
            Some(failure("2026-11-23T23:00:00Z")),
            None,
            None,
            HOUR,
            now,
        );
        assert_eq!(h.state, HealthState::Stale);
        assert!(h.last_error.is_some());
    }

    fn left(reason: State, since: &str) -> Option<LeftOut> {
        Some(LeftOut {
            reason,
            since: ts(since),
            owner: "org".into(),
            host: "github".into(),
        })
    }

    #[test]
    fn a_repository_its_owner_no_longer_lists_is_left_out_never_stale() {
        let run = ts("2026-11-24T00:00:00Z");
        // Gone an hour after its last run, judged days later: left out,
        // not stale, with why and since when.
        let gone = left(State::Gone, "2026-11-24T01:00:00Z");
        let h = assess(
            Some(run),
            0,
            None,
            None,
            gone.clone(),
            HOUR,
            ts("2026-11-27T00:00:00Z"),
        );
        assert_eq!(h.state, HealthState::LeftOut);
        assert!(!h.stale);
        assert_eq!(h.left_out, gone);
        assert_eq!(h.last_success, Some(run));
        // Failures before it left do not make it failing either.
        let h = assess(
            Some(run),
            2,
            Some(failure("2026-11-24T00:30:00Z")),
            None,
            left(State::Archived, "2026-11-24T01:00:00Z"),
            HOUR,
            ts("2026-11-24T00:45:00Z"),
        );
        assert_eq!(h.state, HealthState::LeftOut);
        // Left out before any run (failed ones only): left out, not stale.
        let h = assess(
            None,
            1,
            Some(failure("2026-11-23T23:00:00Z")),
            None,
            left(State::Fork, "2026-11-24T00:00:00Z"),
            HOUR,
            ts("2026-11-25T00:00:00Z"),
        );
        assert_eq!(h.state, HealthState::LeftOut);
        assert!(!h.stale);
    }

    #[test]
    fn a_left_out_repository_collected_since_is_judged_as_any_other() {
        // Excluded from the owner's listing at 01:00 because the group's
        // `repos` lists it: its runs go on, so it can go stale.
        let excluded = left(State::Excluded, "2026-11-24T01:00:00Z");
        let run = ts("2026-11-24T02:00:00Z");
        let h = assess(
            Some(run),
            0,
            None,
            None,
            excluded.clone(),
            HOUR,
            ts("2026-11-24T02:30:00Z"),
        );
        assert_eq!((h.state, h.left_out), (HealthState::Ok, None));
        let h = assess(
            Some(run),
            0,
            None,
            None,
            excluded,
            HOUR,
            ts("2026-11-24T06:00:00Z"),
        );
        assert_eq!(h.state, HealthState::Stale);
        // A `tracked` row is no reason at all.
        let h = assess(
            Some(run),
            0,
            None,
            None,
            left(State::Tracked, "2026-11-24T03:00:00Z"),
            HOUR,
            ts("2026-11-24T06:00:00Z"),
        );
        assert_eq!((h.state, h.left_out), (HealthState::Stale, None));
    }

    #[test]
    fn left_out_serializes_its_reason_and_since() {
        let h = assess(
            Some(ts("2026-11-24T00:00:00Z")),
            0,
            None,
            None,
            left(State::Gone, "2026-11-24T01:00:00Z"),
            HOUR,
            ts("2026-11-28T00:00:00Z"),
        );
        let v = serde_json::to_value(&h).unwrap();
        assert_eq!(v["state"], "left_out");
        assert_eq!(v["stale"], false);
        assert_eq!(
            v["leftOut"],
            serde_json::json!({"reason": "gone", "since": "2026-11-24T01:00:00.000Z",
                               "owner": "org", "host": "github"})
        );
    }

    #[test]
    fn ago_names_the_largest_whole_unit() {
        assert_eq!(ago(-5), "just now");
        assert_eq!(ago(59), "just now");
        assert_eq!(ago(60), "1 minute ago");
        assert_eq!(ago(7199), "1 hour ago");
        assert_eq!(ago(7200), "2 hours ago");
        assert_eq!(ago(3 * 86_400 + 5), "3 days ago");
    }
}
