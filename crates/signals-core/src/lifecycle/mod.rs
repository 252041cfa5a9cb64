//! Is a repository alive: its lifecycle [`State`], decided by ordered
//! rules over what a run knows of it ([`Facts`]), each decision with the
//! [`Reason`]s that made it. Pure: the facts are gathered by the
//! collection (the host's archived flag and commits per week, the store's
//! releases, open items and replies), the thresholds come from the
//! configuration ([`Thresholds`], `[lifecycle]`).
//!
//! The rules, first match wins (docs/decisions/lifecycle.md):
//! 1. `archived`: the host says so;
//! 2. `abandoned`: no commit and no release for `idle_days`, while open
//!    items opened in that time wait for a first answer;
//! 3. `inert`: the same quiet, and nothing waits;
//! 4. `declining`: the commits of the last `recent_weeks` weeks are under
//!    `declining_ratio` of those of the weeks before (when those were at
//!    least `declining_min_commits`);
//! 5. `stable`: under `active_commits` commits in the last `recent_weeks`
//!    weeks, but a release within `release_days` and answers still come
//!    (some in the last `answer_days` days, or nothing waits);
//! 6. `active`: everything else.
//!
//! A declared state (`lifecycle = "stable"` on a group or repository)
//! replaces every state but `archived` ([`declare`]).

pub mod contributors;
pub mod trail;
pub mod verdict;

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A lifecycle state, in the order its rules are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Read-only on the host.
    Archived,
    /// Quiet for a year while people still ask and nobody answers.
    Abandoned,
    /// Quiet for a year, and nothing waits.
    Inert,
    /// Commits falling to under half of what they were.
    Declining,
    /// Little activity, but releases and answers still come.
    Stable,
    /// Alive.
    Active,
}

impl State {
    /// Every state, in rule order.
    pub const ALL: [State; 6] = [
        State::Archived,
        State::Abandoned,
        State::Inert,
        State::Declining,
        State::Stable,
        State::Active,
    ];

    /// The name written in the configuration, documents and alerts.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Archived => "archived",
            State::Abandoned => "abandoned",
            State::Inert => "inert",
            State::Declining => "declining",
            State::Stable => "stable",
            State::Active => "active",
        }
    }

    /// Parses a name.
    pub fn parse(s: &str) -> Option<State> {
        State::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// Its place in rule order, 1 to 6: what a table sorts by.
    pub fn rank(self) -> u8 {
        self as u8 + 1
    }
}

/// Every threshold of the rules; the defaults are those of
/// `signals.example.toml`'s `[lifecycle]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    /// Days without a commit and without a release that make a repository
    /// quiet (abandoned or inert); also how far back open items count as
    /// waiting. Default 365.
    pub idle_days: u32,
    /// The weeks `declining` and `stable` look at, compared with as many
    /// weeks before. Default 13.
    pub recent_weeks: u32,
    /// Declining when the recent weeks' commits are under this share of
    /// the weeks before. Default 0.5.
    pub declining_ratio: f64,
    /// The commits the weeks before must reach for `declining` to be
    /// judged at all, so a repository going from 2 commits to 0 is not
    /// said to decline. Default 4.
    pub declining_min_commits: u64,
    /// Commits in the recent weeks from which a repository is active,
    /// whatever its releases. Default 13 (one a week).
    pub active_commits: u64,
    /// `stable` needs a release within this many days. Default 365.
    pub release_days: u32,
    /// `stable` needs answers within this many days; the active
    /// maintainers and the dependency look as far back. Default 90.
    pub answer_days: u32,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            idle_days: 365,
            recent_weeks: 13,
            declining_ratio: 0.5,
            declining_min_commits: 4,
            active_commits: 13,
            release_days: 365,
            answer_days: 90,
        }
    }
}

/// What the rules read of one repository at one instant.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Facts {
    /// Archived on the host.
    pub archived: bool,
    /// Commits per week, oldest first, the last week last (GitHub's
    /// participation statistics: 52 weeks); `None` where the host gives
    /// none, and the rules that need them fall back or are left out.
    pub commits: Option<Vec<u64>>,
    /// The host's last push, when it says.
    pub pushed_at: Option<Timestamp>,
    /// The newest published release.
    pub last_release: Option<Timestamp>,
    /// Open issues and pull requests opened within `idle_days` that no one
    /// but their author (bots and `ignore_users` left out) answered.
    pub waiting: u64,
    /// Replies (comments, reviews) by people other than the items'
    /// authors in the last `answer_days` days.
    pub answers: u64,
}

/// One reason of a decision: the rule, the value it read and the
/// threshold it compared it with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reason {
    /// The rule's name (`archived`, `declared`, `commitsLastYear`, ...;
    /// docs/api.md lists them).
    pub rule: String,
    /// What it read.
    pub value: Value,
    /// What it compared it with (`null` where nothing is compared).
    pub threshold: Value,
}

fn reason(rule: &str, value: Value, threshold: Value) -> Reason {
    Reason {
        rule: rule.to_string(),
        value,
        threshold,
    }
}

/// A state with its reasons, never empty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    /// The state.
    pub state: State,
    /// Why, in the order the rules read them.
    pub reasons: Vec<Reason>,
}

fn days(d: u32) -> SignedDuration {
    SignedDuration::from_hours(i64::from(d) * 24)
}

/// Whole days from `t` to `now` (0 when `t` is later).
fn days_since(t: Timestamp, now: Timestamp) -> i64 {
    (now.duration_since(t).as_secs() / 86_400).max(0)
}

/// The sum of the last `n` weeks of `weeks`, and of the `n` before them.
pub fn recent_and_before(weeks: &[u64], n: usize) -> (u64, u64) {
    let len = weeks.len();
    let recent = weeks[len.saturating_sub(n)..].iter().sum();
    let before = weeks[len.saturating_sub(2 * n)..len.saturating_sub(n)]
        .iter()
        .sum();
    (recent, before)
}

/// Whether the repository made no commit in `idle_days`, with the reason:
/// by its weekly commits where the host gives them, else by its last
/// push; `None` when neither is known (the quiet rules are left out).
fn no_commits(facts: &Facts, t: &Thresholds, now: Timestamp) -> Option<(bool, Reason)> {
    if let Some(weeks) = &facts.commits {
        let n = (t.idle_days as usize).div_ceil(7);
        let total: u64 = weeks[weeks.len().saturating_sub(n)..].iter().sum();
        return Some((
            total == 0,
            reason("commitsLastYear", json!(total), json!(0)),
        ));
    }
    let pushed = facts.pushed_at?;
    let ago = days_since(pushed, now);
    Some((
        ago >= i64::from(t.idle_days),
        reason("daysSincePush", json!(ago), json!(t.idle_days)),
    ))
}

/// The release rule's reason: days since the newest release (`null`
/// without one) against `limit`; true when within it.
fn released_within(facts: &Facts, limit: u32, now: Timestamp) -> (bool, Reason) {
    let within = facts.last_release.is_some_and(|r| r + days(limit) > now);
    let value = facts
        .last_release
        .map_or(Value::Null, |r| json!(days_since(r, now)));
    (within, reason("daysSinceRelease", value, json!(limit)))
}

/// The repository's state at `now` by the rules, with their reasons.
pub fn judge(facts: &Facts, t: &Thresholds, now: Timestamp) -> Judgement {
    if facts.archived {
        return Judgement {
            state: State::Archived,
            reasons: vec![reason("archived", json!(true), json!(true))],
        };
    }
    if let Some(quiet) = quiet(facts, t, now) {
        return quiet;
    }
    let n = t.recent_weeks as usize;
    let recent = facts.commits.as_deref().map(|w| recent_and_before(w, n));
    if let Some((recent, before)) = recent {
        let limit = t.declining_ratio * before as f64;
        if before >= t.declining_min_commits && (recent as f64) < limit {
            return Judgement {
                state: State::Declining,
                reasons: vec![
                    reason("commitsRecentWeeks", json!(recent), json!(limit)),
                    reason(
                        "commitsWeeksBefore",
                        json!(before),
                        json!(t.declining_min_commits),
                    ),
                ],
            };
        }
    }
    // Little activity: few commits; where the host gives no commits, no
    // push within the recent weeks.
    let (little, activity) = match recent {
        Some((recent, _)) => (
            recent < t.active_commits,
            reason("commitsRecentWeeks", json!(recent), json!(t.active_commits)),
        ),
        None => {
            let ago = facts.pushed_at.map(|p| days_since(p, now));
            let limit = i64::from(t.recent_weeks) * 7;
            (
                ago.is_some_and(|a| a >= limit),
                reason("daysSincePush", json!(ago), json!(limit)),
            )
        }
    };
    let (released, release) = released_within(facts, t.release_days, now);
    let answered = facts.answers > 0 || facts.waiting == 0;
    let answers = reason("answersRecentDays", json!(facts.answers), json!(1));
    if little && released && answered {
        return Judgement {
            state: State::Stable,
            reasons: vec![activity, release, answers],
        };
    }
    Judgement {
        state: State::Active,
        reasons: vec![activity, release, answers],
    }
}

/// Rules 2 and 3: no commit and no release for `idle_days`; abandoned
/// when items opened in that time wait, else inert.
fn quiet(facts: &Facts, t: &Thresholds, now: Timestamp) -> Option<Judgement> {
    let (none, commits) = no_commits(facts, t, now)?;
    let (released, release) = released_within(facts, t.idle_days, now);
    if !none || released {
        return None;
    }
    let state = match facts.waiting {
        0 => State::Inert,
        _ => State::Abandoned,
    };
    let waiting = reason("waiting", json!(facts.waiting), json!(1));
    Some(Judgement {
        state,
        reasons: vec![commits, release, waiting],
    })
}

/// `judged` with a declared state: the declared state, its reason
/// (`"rule": "declared"`) first and the judged state's after it, unless
/// the repository is archived, which no declaration overrides.
pub fn declare(judged: Judgement, declared: Option<State>) -> Judgement {
    let Some(declared) = declared else {
        return judged;
    };
    if judged.state == State::Archived {
        return judged;
    }
    let mut reasons = vec![
        reason("declared", json!(declared.as_str()), Value::Null),
        reason("judged", json!(judged.state.as_str()), Value::Null),
    ];
    reasons.extend(judged.reasons);
    Judgement {
        state: declared,
        reasons,
    }
}

#[cfg(test)]
mod tests;
