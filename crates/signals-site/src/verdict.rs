//! A repository's verdict as the site shows it: `verdict.json`
//! (`schemas/verdict-v1.schema.json`), the lifecycle box at the top of its
//! first page, and its state and dependency in its group's table. The
//! verdict comes in ready-made from `signals_core::lifecycle::verdict`;
//! this module only writes and words it.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use signals_core::lifecycle::Reason;
use signals_core::lifecycle::verdict::Verdict;

use crate::error::SiteError;
use crate::views::TimeView;

/// The verdict's file name, beside `dataset.json`.
pub const VERDICT_FILE: &str = "verdict.json";

/// `verdict.json` of the repository `what` names (in errors),
/// pretty-printed as `dataset.json` is.
pub(crate) fn verdict_json(verdict: &Verdict, what: &str) -> Result<String, SiteError> {
    let mut json = serde_json::to_string_pretty(verdict).map_err(|source| SiteError::Json {
        repository: what.to_string(),
        source,
    })?;
    json.push('\n');
    Ok(json)
}

/// What the group page shows of a repository's verdict: its state (with
/// its rank in rule order, to sort by) and who carries it. Kept with the
/// repository's row of the side-by-side table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LifecycleCell {
    /// `active`, `stable`, ...
    pub state: String,
    /// 1 (archived) to 6 (active).
    pub rank: u8,
    /// The dependency: how many people did half the maintainers' work.
    pub dependency: u64,
    /// Their logins, most work first.
    pub carried_by: Vec<String>,
}

impl LifecycleCell {
    /// The cell of `v`.
    pub fn of(v: &Verdict) -> LifecycleCell {
        LifecycleCell {
            state: v.state.as_str().to_string(),
            rank: v.state.rank(),
            dependency: v.contributors.dependency.count,
            carried_by: v.contributors.dependency.logins.clone(),
        }
    }

    /// The dependency in words: `2: a, b`, or `none` without maintainers.
    pub(crate) fn dependency_text(&self) -> String {
        match self.dependency {
            0 => "none".to_string(),
            n => format!("{n}: {}", self.carried_by.join(", ")),
        }
    }
}

/// The lifecycle box of a repository's first page.
#[derive(Debug, Serialize)]
pub(crate) struct VerdictView {
    /// `active`, `stable`, ...
    pub state: &'static str,
    pub since: TimeView,
    /// Each reason in words.
    pub reasons: Vec<String>,
    /// Who carries it, in words; empty when no maintainer spoke.
    pub carriers: String,
    /// Its changes of state, newest first, in words.
    pub changes: Vec<String>,
}

impl VerdictView {
    pub(crate) fn of(v: &Verdict) -> VerdictView {
        VerdictView {
            state: v.state.as_str(),
            since: TimeView::parse(&v.since),
            reasons: v.reasons.iter().map(reason_text).collect(),
            carriers: carriers_text(v),
            changes: v
                .changes
                .iter()
                .rev()
                .map(|c| match c.from {
                    Some(from) => format!(
                        "{}: {} → {}",
                        c.at.get(..10).unwrap_or(&c.at),
                        from.as_str(),
                        c.to.as_str()
                    ),
                    None => format!(
                        "{}: first judged {}",
                        c.at.get(..10).unwrap_or(&c.at),
                        c.to.as_str()
                    ),
                })
                .collect(),
        }
    }
}

fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "none".to_string(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() != 0.0 => format!("{f:.1}"),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// A reason in words, with its threshold.
pub(crate) fn reason_text(r: &Reason) -> String {
    let (v, t) = (shown(&r.value), shown(&r.threshold));
    match r.rule.as_str() {
        "archived" => "archived on the host".to_string(),
        "declared" => format!("declared {v} in the configuration"),
        "judged" => format!("the rules alone say {v}"),
        "commitsLastYear" => format!("{v} commits in the last year"),
        "daysSincePush" => format!("last push {v} days ago (quiet from {t})"),
        "daysSinceRelease" if r.value.is_null() => "no release published".to_string(),
        "daysSinceRelease" => format!("last release {v} days ago (limit {t})"),
        "waiting" => format!("{v} open items wait for a first answer"),
        "commitsRecentWeeks" => format!("{v} commits in the recent weeks (threshold {t})"),
        "commitsWeeksBefore" => format!("{v} commits in the weeks before (at least {t} to judge)"),
        "answersRecentDays" => format!("{v} answers by maintainers lately"),
        rule => format!("{rule}: {v} (threshold {t})"),
    }
}

/// The dependency in words: `2 people (a, b) wrote half of 3
/// maintainers' comments and reviews`.
pub(crate) fn carriers_text(v: &Verdict) -> String {
    let c = &v.contributors;
    if c.active_maintainers.is_empty() {
        return String::new();
    }
    let n = c.active_maintainers.len();
    let who = if c.dependency.count == 1 {
        "1 person".to_string()
    } else {
        format!("{} people", c.dependency.count)
    };
    format!(
        "{who} ({}) wrote half of the comments and reviews of {n} active maintainer{}",
        c.dependency.logins.join(", "),
        if n == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reasons_are_worded_with_their_thresholds() {
        let r = |rule: &str, value: Value, threshold: Value| Reason {
            rule: rule.into(),
            value,
            threshold,
        };
        assert_eq!(
            reason_text(&r("commitsRecentWeeks", json!(3), json!(13))),
            "3 commits in the recent weeks (threshold 13)"
        );
        assert_eq!(
            reason_text(&r("daysSinceRelease", Value::Null, json!(365))),
            "no release published"
        );
        assert_eq!(
            reason_text(&r("commitsRecentWeeks", json!(3), json!(20.5))),
            "3 commits in the recent weeks (threshold 20.5)"
        );
        assert_eq!(
            reason_text(&r("new", json!(1), json!(2))),
            "new: 1 (threshold 2)"
        );
    }
}
