//! A repository's collection health on its pages: a notice in
//! the repository's header and a flag on the index when its collection is
//! failing or its data is stale, so nobody reads old data as current; and
//! when its owner's listing left it out (`orgs`: gone, archived, a fork,
//! excluded), a notice saying so and since when instead, for it is then
//! not collected on purpose and its history stays readable.
//!
//! Pages are static and re-rendered only when what they show changes, so
//! they state instants ("no successful run since ..."), never an age
//! that would change with every export; `signals status`, the API and the
//! metrics give the live age.
//!
//! The note itself ([`HealthNote`]) is a plain value of the repository
//! head (`head.rs`), kept in manifests and digests; this module only puts
//! it in words (a `HealthView`, `views.rs`).

use signals_core::health::{HealthState, STALE_AFTER_INTERVALS};
use signals_core::owners::State;

use crate::head::{HealthNote, LeftOutNote};
use crate::views::{HealthView, TimeView};

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
    if let Some(left) = note
        .left_out
        .as_ref()
        .filter(|_| note.state == HealthState::LeftOut.as_str())
    {
        return Some(left_out_view(note, left));
    }
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
        badge: state.to_string(),
        label,
        title: text.clone(),
        text,
        left_since: None,
        tail: String::new(),
        since: note.last_success.map(TimeView::of),
        error_at: note.last_error.as_ref().map(|(at, _)| TimeView::of(*at)),
        error: note.last_error.as_ref().map(|(_, m)| m.clone()),
    })
}

/// The notice of a repository its owner's listing left out: why, since
/// when, and that its history stays; no error, for nothing failed.
fn left_out_view(note: &HealthNote, left: &LeftOutNote) -> HealthView {
    const KEPT: &str = "no longer collected, its history is kept.";
    let owner = &left.owner;
    let reason = State::parse(&left.reason);
    let (label, text, tail) = match reason {
        Some(State::Gone) => (
            "Gone:",
            format!(
                "no longer listed by its owner {owner} (deleted, made private, transferred \
                 or renamed) since"
            ),
            format!("; {KEPT}"),
        ),
        Some(State::Archived) => (
            "No longer collected:",
            "archived on the host since".to_string(),
            format!(
                "; the group leaves archived repositories of {owner} out \
                 (`include_archived`), so it is {KEPT}"
            ),
        ),
        Some(State::Fork) => (
            "No longer collected:",
            "left out as a fork since".to_string(),
            format!("; the group leaves forks of {owner} out (`include_forks`), so it is {KEPT}"),
        ),
        // `excluded`, and any reason a newer version may write.
        _ => (
            "No longer collected:",
            format!("left out of {owner}'s repositories by the group's `exclude` or `repos` since"),
            format!("; {KEPT}"),
        ),
    };
    let since = TimeView::of(left.since);
    HealthView {
        state: "left-out",
        badge: reason.map_or("left out", State::as_str).to_string(),
        label,
        title: format!("{label} {text} {}{tail}", since.human),
        text,
        left_since: Some(since),
        tail,
        since: note.last_success.map(TimeView::of),
        error_at: None,
        error: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;
    use signals_core::health::{LastError, LeftOut, assess};

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

    #[test]
    fn a_repository_left_out_by_its_owner_says_why_and_since_when_never_stale() {
        let hour = jiff::SignedDuration::from_hours(1);
        let run = Some(ts("2026-11-24T00:00:00Z"));
        let error = LastError {
            at: ts("2026-11-24T00:30:00Z"),
            kind: "not_found".into(),
            message: "GET /repos/org/c: 404".into(),
        };
        let judged = |reason: State| {
            HealthNote::of(&assess(
                run,
                1,
                Some(error.clone()),
                None,
                Some(LeftOut {
                    reason,
                    since: ts("2026-11-24T01:00:00Z"),
                    owner: "org".into(),
                    host: "github".into(),
                }),
                hour,
                ts("2026-11-30T00:00:00Z"),
            ))
        };
        let gone = judged(State::Gone);
        assert_eq!(gone.state, "left_out");
        assert!(gone.flagged());
        let v = view(&gone).unwrap();
        assert_eq!(
            (v.state, v.badge.as_str(), v.label),
            ("left-out", "gone", "Gone:")
        );
        assert_eq!(
            v.text,
            "no longer listed by its owner org (deleted, made private, transferred or renamed) since"
        );
        assert_eq!(v.left_since.as_ref().unwrap().human, "2026-11-24 01:00 UTC");
        assert_eq!(v.tail, "; no longer collected, its history is kept.");
        assert_eq!(
            v.title,
            "Gone: no longer listed by its owner org (deleted, made private, transferred or \
             renamed) since 2026-11-24 01:00 UTC; no longer collected, its history is kept."
        );
        // Nothing failed: no error is shown, the last run is.
        assert_eq!((v.error, v.error_at), (None, None));
        assert!(v.since.is_some());

        for (reason, badge, says) in [
            (State::Archived, "archived", "(`include_archived`)"),
            (State::Fork, "fork", "(`include_forks`)"),
            (State::Excluded, "excluded", ""),
        ] {
            let v = view(&judged(reason)).unwrap();
            assert_eq!((v.badge.as_str(), v.label), (badge, "No longer collected:"));
            assert!(
                v.title.contains(says) && v.title.contains("since 2026-11-24 01:00 UTC"),
                "{}",
                v.title
            );
            assert!(
                !v.title.contains("stale") && !v.title.contains("fail"),
                "{}",
                v.title
            );
        }
        // A note written by an older version (no reason) shows nothing new.
        let old = HealthNote {
            left_out: None,
            ..gone
        };
        assert!(view(&old).is_none());
    }
}
