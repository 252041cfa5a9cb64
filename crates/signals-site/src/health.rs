//! A repository's collection health on its pages (issue 20): a notice in
//! the repository's header and a flag on the index when its collection is
//! failing or its data is stale, so nobody reads old data as current.
//!
//! Pages are static and re-rendered only when what they show changes, so
//! they state instants ("no successful run since ..."), never an age
//! that would change with every export; `signals status`, the API and the
//! metrics give the live age.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use signals_core::health::{Health, HealthState, STALE_AFTER_INTERVALS};

use crate::render::TimeView;

/// What the pages show of a repository's health; kept in the manifest's
/// summaries for the index (a manifest from before it reads as healthy).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthNote {
    /// `failing` or `stale` when the pages flag it; anything else shows
    /// nothing.
    pub state: String,
    /// The latest successful run.
    pub last_success: Option<Timestamp>,
    /// Failed attempts after it.
    pub failures_in_row: u64,
    /// The latest failure after it: when, and what failed.
    pub last_error: Option<(Timestamp, String)>,
    /// The collection interval it was judged against, in seconds.
    pub interval_secs: i64,
    /// The latest reconcile (a run that listed every item).
    #[serde(default)]
    pub last_reconcile: Option<Timestamp>,
}

impl HealthNote {
    /// The note for a repository judged by `signals_core::health::assess`.
    pub fn of(health: &Health) -> HealthNote {
        HealthNote {
            state: health.state.as_str().to_string(),
            last_success: health.last_success,
            failures_in_row: health.failures_in_row,
            last_error: health
                .last_error
                .as_ref()
                .map(|e| (e.at, e.message.clone())),
            interval_secs: health.interval_secs,
            last_reconcile: health.last_reconcile,
        }
    }
}

/// The notice a page shows, when there is one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct HealthView {
    /// `failing` or `stale` (a CSS class).
    state: &'static str,
    /// `Stale data` or `Collection failing`.
    label: &'static str,
    /// The sentence after the label.
    text: String,
    /// The latest successful run.
    since: Option<TimeView>,
    /// The latest error: when and what.
    error_at: Option<TimeView>,
    error: Option<String>,
}

/// `3600` as `1 h`, `90` as `90 s`.
fn interval_text(secs: i64) -> String {
    match secs {
        s if s > 0 && s % 86_400 == 0 => format!("{} d", s / 86_400),
        s if s > 0 && s % 3600 == 0 => format!("{} h", s / 3600),
        s if s > 0 && s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

fn attempts(n: u64) -> String {
    if n == 1 {
        "1 attempt has failed".to_string()
    } else {
        format!("{n} attempts have failed")
    }
}

/// The notice for `note`; `None` for a healthy (or new) repository.
pub(crate) fn view(note: &HealthNote) -> Option<HealthView> {
    let (state, label, text) = match note.state.as_str() {
        s if s == HealthState::Stale.as_str() => (
            "stale",
            "Stale data:",
            format!(
                "no successful collection for more than {STALE_AFTER_INTERVALS} intervals of {} \
                 ({} since); what this page shows may no longer be current.",
                interval_text(note.interval_secs),
                attempts(note.failures_in_row)
            ),
        ),
        s if s == HealthState::Failing.as_str() => (
            "failing",
            "Collection failing:",
            format!(
                "{} since the last successful run; this page shows the data of that run.",
                attempts(note.failures_in_row)
            ),
        ),
        _ => return None,
    };
    Some(HealthView {
        state,
        label,
        text,
        since: note.last_success.map(TimeView::of),
        error_at: note.last_error.as_ref().map(|(at, _)| TimeView::of(*at)),
        error: note.last_error.as_ref().map(|(_, m)| m.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use signals_core::health::{LastError, assess};

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn a_healthy_repository_shows_nothing_a_failing_or_stale_one_says_so() {
        let hour = jiff::SignedDuration::from_hours(1);
        let run = Some(ts("2026-11-24T00:00:00Z"));
        let ok = HealthNote::of(&assess(
            run,
            0,
            None,
            None,
            hour,
            ts("2026-11-24T01:00:00Z"),
        ));
        assert!(view(&ok).is_none());
        assert!(view(&HealthNote::default()).is_none());

        let error = LastError {
            at: ts("2026-11-24T05:00:00Z"),
            kind: "http".into(),
            message: "GET /repos/o/n: 502".into(),
        };
        let stale = HealthNote::of(&assess(
            run,
            4,
            Some(error),
            None,
            hour,
            ts("2026-11-24T05:00:00Z"),
        ));
        let v = view(&stale).unwrap();
        assert_eq!(v.state, "stale");
        assert!(
            v.text.contains("more than 3 intervals of 1 h"),
            "{}",
            v.text
        );
        assert!(v.text.contains("4 attempts have failed"), "{}", v.text);
        assert_eq!(v.error.as_deref(), Some("GET /repos/o/n: 502"));

        let failing = HealthNote {
            state: "failing".into(),
            failures_in_row: 1,
            ..stale
        };
        let v = view(&failing).unwrap();
        assert_eq!(v.label, "Collection failing:");
        assert!(v.text.starts_with("1 attempt has failed"), "{}", v.text);
    }
}
