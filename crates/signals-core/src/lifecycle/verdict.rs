//! What a run keeps of a repository's lifecycle ([`Record`], stored as
//! JSON with the run that judged it), when the host's weekly commits are
//! asked again ([`ask_commits`]), and the verdict document a group reads
//! ([`Verdict`]: `verdict.json` and `GET /api/repos/{group}/{repo}/verdict`,
//! `schemas/verdict-v1.schema.json`).

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::contributors::Carriers;
use super::{Judgement, Reason, State, declare};
use crate::advisories::OpenAdvisories;
use crate::dataset::fmt_collected;

/// The `schemaVersion` of a verdict document.
pub const VERDICT_SCHEMA_VERSION: u32 = 1;

/// What the host answered for a repository's commits per week.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "lowercase")]
pub enum Commits {
    /// The weeks, oldest first.
    Weeks {
        /// Commits per week.
        weeks: Vec<u64>,
    },
    /// The host is computing them (GitHub's 202): asked again at the next
    /// run.
    Pending,
    /// The host has none for this repository (an empty repository), or
    /// gives none at all.
    None,
}

/// The commits as last asked, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Asked {
    /// When the host was asked.
    pub at: Timestamp,
    /// What it answered.
    pub commits: Commits,
}

/// What a run keeps of its repository's lifecycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The judged state (declarations are applied when read, per group).
    pub state: State,
    /// Since when the judged state holds: the instant of the first run
    /// that judged it, in its latest stretch.
    pub since: Timestamp,
    /// Why.
    pub reasons: Vec<Reason>,
    /// Who carries the repository.
    pub carriers: Carriers,
    /// The host's commits per week, when it gives them.
    pub asked: Option<Asked>,
    /// When it was judged: the instant of its run.
    pub judged_at: Timestamp,
}

impl Record {
    /// The record of `judged` at `now`, after `previous`: the state's
    /// `since` stays while it is the same.
    pub fn after(
        previous: Option<&Record>,
        judged: Judgement,
        now: Timestamp,
        carriers: Carriers,
        asked: Option<Asked>,
    ) -> Record {
        let since = previous
            .filter(|p| p.state == judged.state)
            .map_or(now, |p| p.since);
        Record {
            state: judged.state,
            since,
            reasons: judged.reasons,
            carriers,
            asked,
            judged_at: now,
        }
    }

    /// The state it changed from, when `previous` held another.
    pub fn changed_from(&self, previous: Option<&Record>) -> Option<State> {
        previous.map(|p| p.state).filter(|s| *s != self.state)
    }
}

/// The UTC day of `t`, as a number of days since the epoch.
fn day(t: Timestamp) -> i64 {
    t.as_second().div_euclid(86_400)
}

/// Whether a run at `now` asks the host for the commits again, after
/// they were last `asked` (`None`: never): at most once a UTC day, and at
/// the next run while the host was computing them.
pub fn ask_commits(asked: Option<&Asked>, now: Timestamp) -> bool {
    match asked {
        None => true,
        Some(a) => matches!(a.commits, Commits::Pending) || day(a.at) < day(now),
    }
}

/// What a run saw that decides whether it judges: its instant, and
/// whether the host says the repository is archived.
#[derive(Debug, Clone, Copy)]
pub struct Seen {
    /// The run's instant.
    pub now: Timestamp,
    /// Archived on the host.
    pub archived: bool,
}

/// Whether a run that `seen` judges the repository again, after
/// `previous` (`None`: never judged): at most once a UTC day, again at
/// once when it was archived or unarchived since, and whenever its
/// commits are asked (a pending answer is asked at the next run).
pub fn judge_due(previous: Option<&Record>, seen: Seen) -> bool {
    let Seen { now, archived } = seen;
    match previous {
        None => true,
        Some(p) => {
            day(p.judged_at) < day(now)
                || (p.state == State::Archived) != archived
                || p.asked.as_ref().is_some_and(|a| ask_commits(Some(a), now))
        }
    }
}

/// A change of the judged state, as a repository's trail shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateChange {
    /// The instant of the run that judged the new state.
    pub at: Timestamp,
    /// The state before (`None` for the first judgement).
    pub from: Option<State>,
    /// The new state.
    pub to: State,
}

/// A change of state in a verdict document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeDoc {
    /// The instant of the run that judged it, with milliseconds.
    pub at: String,
    /// The state before; `null` for the first judgement.
    pub from: Option<State>,
    /// The new state.
    pub to: State,
}

/// A change of state, as an alert tells it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LifecycleNote {
    /// The state before.
    pub from: State,
    /// The state now.
    pub to: State,
    /// Why, as the verdict gives them.
    pub reasons: Vec<Reason>,
}

/// The verdict on one repository in one group.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// Always [`VERDICT_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The group's id.
    pub group: String,
    /// `owner/name`.
    pub repository: String,
    /// The state, the group's declaration applied.
    pub state: State,
    /// Since when the judged state holds, with milliseconds.
    pub since: String,
    /// Why, never empty.
    pub reasons: Vec<Reason>,
    /// Who carries it.
    pub contributors: Carriers,
    /// Its open security advisories.
    pub advisories: AdvisoriesDoc,
    /// Its release assets' downloads.
    pub downloads: DownloadsDoc,
    /// Every change of the judged state, oldest first: the lifecycle's
    /// part of the repository's trail.
    pub changes: Vec<ChangeDoc>,
}

/// A verdict's security advisories: the open ones by severity
/// (`crate::advisories::open_advisories`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AdvisoriesDoc {
    /// Open (published, not withdrawn) advisories by severity.
    pub open: OpenAdvisories,
}

/// A verdict's downloads (`crate::downloads::last_4_weeks`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DownloadsDoc {
    /// The downloads of the release assets seen added in the 4 weeks
    /// before the latest run; 0 where the host counts none.
    #[serde(rename = "last4Weeks")]
    pub last_4_weeks: u64,
}

/// What a verdict is read for: the group and repository, the state the
/// group or repository declares, and what the store measured of it.
#[derive(Debug, Clone, Copy)]
pub struct About<'a> {
    /// The group's id.
    pub group: &'a str,
    /// `owner/name`.
    pub repository: &'a str,
    /// The declared state (`lifecycle = "..."`), the repository's over
    /// its group's.
    pub declared: Option<State>,
    /// The changes of its judged state, oldest first.
    pub changes: &'a [StateChange],
    /// Its open advisories by severity.
    pub advisories: OpenAdvisories,
    /// Its downloads of the last 4 weeks.
    pub downloads_last_4_weeks: u64,
}

/// The verdict of `record` for `about`.
pub fn verdict(record: &Record, about: About<'_>) -> Verdict {
    let judged = declare(
        Judgement {
            state: record.state,
            reasons: record.reasons.clone(),
        },
        about.declared,
    );
    Verdict {
        schema_version: VERDICT_SCHEMA_VERSION,
        group: about.group.to_string(),
        repository: about.repository.to_string(),
        state: judged.state,
        since: fmt_collected(record.since),
        reasons: judged.reasons,
        contributors: record.carriers.clone(),
        advisories: AdvisoriesDoc {
            open: about.advisories,
        },
        downloads: DownloadsDoc {
            last_4_weeks: about.downloads_last_4_weeks,
        },
        changes: about
            .changes
            .iter()
            .map(|c| ChangeDoc {
                at: fmt_collected(c.at),
                from: c.from,
                to: c.to,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::{Facts, Thresholds, judge};

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn commits_are_asked_at_most_daily_and_again_after_a_pending_answer() {
        let now = at("2026-11-02T10:00:00Z");
        assert!(ask_commits(None, now));
        let weeks = Asked {
            at: at("2026-11-02T01:00:00Z"),
            commits: Commits::Weeks { weeks: vec![1; 52] },
        };
        assert!(!ask_commits(Some(&weeks), now));
        assert!(ask_commits(Some(&weeks), at("2026-11-03T00:00:00Z")));
        let pending = Asked {
            at: at("2026-11-02T09:00:00Z"),
            commits: Commits::Pending,
        };
        assert!(ask_commits(Some(&pending), now));
    }

    #[test]
    fn a_repository_is_judged_daily_and_at_once_when_archived() {
        let t = Thresholds::default();
        let at_ = at("2026-11-02T01:00:00Z");
        let facts = Facts::default();
        let record = Record::after(None, judge(&facts, &t, at_), at_, Carriers::default(), None);
        let seen = |s: &str, archived| Seen {
            now: at(s),
            archived,
        };
        assert!(judge_due(None, seen("2026-11-02T01:00:00Z", false)));
        assert!(!judge_due(
            Some(&record),
            seen("2026-11-02T23:00:00Z", false)
        ));
        assert!(judge_due(Some(&record), seen("2026-11-02T23:00:00Z", true)));
        assert!(judge_due(
            Some(&record),
            seen("2026-11-03T00:00:00Z", false)
        ));
        let pending = Record {
            asked: Some(Asked {
                at: at_,
                commits: Commits::Pending,
            }),
            ..record
        };
        assert!(judge_due(
            Some(&pending),
            seen("2026-11-02T02:00:00Z", false)
        ));
    }

    #[test]
    fn since_stays_while_the_state_does_and_a_change_is_told() {
        let t = Thresholds::default();
        let facts = Facts {
            commits: Some(vec![5; 52]),
            ..Facts::default()
        };
        let first_at = at("2026-11-01T00:00:00Z");
        let first = Record::after(
            None,
            judge(&facts, &t, first_at),
            first_at,
            Carriers::default(),
            None,
        );
        assert_eq!(first.state, State::Active);
        assert_eq!(first.changed_from(None), None);
        let later = at("2026-11-02T00:00:00Z");
        let same = Record::after(
            Some(&first),
            judge(&facts, &t, later),
            later,
            Carriers::default(),
            None,
        );
        assert_eq!(same.since, first_at);
        let archived = Facts {
            archived: true,
            ..facts
        };
        let next = Record::after(
            Some(&same),
            judge(&archived, &t, later),
            later,
            Carriers::default(),
            None,
        );
        assert_eq!(next.since, later);
        assert_eq!(next.changed_from(Some(&same)), Some(State::Active));
    }

    #[test]
    fn a_verdict_applies_its_groups_declaration() {
        let t = Thresholds::default();
        let now = at("2026-11-01T00:00:00Z");
        let facts = Facts {
            commits: Some(vec![5; 52]),
            ..Facts::default()
        };
        let record = Record::after(None, judge(&facts, &t, now), now, Carriers::default(), None);
        let about = About {
            group: "g",
            repository: "o/r",
            declared: None,
            changes: &[],
            advisories: OpenAdvisories {
                high: 1,
                ..OpenAdvisories::default()
            },
            downloads_last_4_weeks: 1234,
        };
        let judged = verdict(&record, about);
        assert_eq!(judged.state, State::Active);
        let doc = serde_json::to_value(&judged).unwrap();
        assert_eq!(doc["advisories"]["open"]["high"], 1);
        assert_eq!(doc["advisories"]["open"]["critical"], 0);
        assert_eq!(doc["downloads"]["last4Weeks"], 1234);
        let declared = verdict(
            &record,
            About {
                declared: Some(State::Stable),
                ..about
            },
        );
        assert_eq!(declared.state, State::Stable);
        assert_eq!(declared.reasons[0].rule, "declared");
        assert_eq!(declared.since, "2026-11-01T00:00:00.000Z");
    }
}
