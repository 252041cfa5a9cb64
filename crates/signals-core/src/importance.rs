//! Importance scoring: a non-negative integer per signal, computed by a
//! documented rule (docs/importance.md) from the signal's own fields and the
//! collection time, with the terms that made it kept for explanation.
//!
//! The rule is a sum of terms: a base per kind, a bonus while open, a penalty
//! for draft pull requests, diminishing-returns terms for reactions and
//! comments, one term per weighted label, and a recency term that halves every
//! `half_life_hours`. Each term is monotone in what it measures, and the total
//! is `max(0, round(sum))`, which is monotone too; that is what makes the
//! promises in docs/importance.md hold (they are checked by the property tests
//! below). Pure: no I/O, no clock; `now` is a parameter.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::model::{ItemDetail, ItemSnapshot, ItemState, Severity};

/// One term of a score: a named contribution, with a short human reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Term {
    /// Stable machine name of the term, such as `comments` or `label:bug`.
    pub name: String,
    /// Points it contributed (may be negative), before rounding the total.
    pub points: f64,
    /// Why, in words: "12 comments", "label regression", "closed".
    pub why: String,
}

/// A score and its explanation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// The sum of the terms' points, rounded, and never below 0.
    pub total: u32,
    /// The terms, in the rule's order.
    pub terms: Vec<Term>,
}

impl Score {
    /// Builds a score from its terms: total = max(0, round(sum of points)).
    pub fn from_terms(terms: Vec<Term>) -> Score {
        let sum: f64 = terms.iter().map(|t| t.points).sum();
        let total = if sum.is_finite() && sum > 0.0 {
            sum.round().min(u32::MAX as f64) as u32
        } else {
            0
        };
        Score { total, terms }
    }
}

/// The weights of the rule. Sits under `[importance]` in signals.toml; every
/// key is optional and defaults to the value documented in docs/importance.md.
///
/// Call [`Weights::validate`] after loading: a negative weight on a term that
/// must only ever raise the score would break the rule's promises.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Weights {
    /// Base points of an issue.
    pub issue: f64,
    /// Base points of a pull request.
    pub pull_request: f64,
    /// Base points of a stable release.
    pub release: f64,
    /// Base points of a prerelease.
    pub prerelease: f64,
    /// Base points of a discussion.
    pub discussion: f64,
    /// Points for a discussion whose answer is marked (usually negative:
    /// the question is settled).
    pub answered: f64,
    /// Base points of a security advisory.
    pub advisory: f64,
    /// Points for an advisory of critical severity. Must be >= 0.
    pub severity_critical: f64,
    /// Points for an advisory of high severity. Must be >= 0.
    pub severity_high: f64,
    /// Points for an advisory of medium severity. Must be >= 0.
    pub severity_medium: f64,
    /// Points for an advisory of low severity. Must be >= 0.
    pub severity_low: f64,
    /// Bonus while the item is open. Must be >= 0.
    pub open: f64,
    /// Points for a draft pull request (usually negative: not ready yet).
    pub draft: f64,
    /// Points per doubling of reactions: `reactions × log2(1 + n)`. Must be >= 0.
    pub reactions: f64,
    /// Points per doubling of comments: `comments × log2(1 + n)`. Must be >= 0.
    pub comments: f64,
    /// Points for activity right now; halves every `half_life_hours`. Must be >= 0.
    pub recency: f64,
    /// Half-life of the recency term, in hours. Must be > 0.
    pub half_life_hours: f64,
    /// Points per doubling of the other repositories of its group that
    /// tell an item's story (its related items, `crate::related`):
    /// `echo × log2(1 + n)` ([`echoed`]). Must be >= 0.
    pub echo: f64,
    /// Points per label, matched case-insensitively with `-`, `_` and runs of
    /// spaces treated alike (`High_Priority` matches `high-priority`).
    /// Negative weights lower the score (`duplicate`, `invalid`, `stale`).
    pub labels: BTreeMap<String, f64>,
}

impl Default for Weights {
    fn default() -> Weights {
        let labels = [
            ("regression", 8.0),
            ("high-priority", 6.0),
            ("bug", 4.0),
            ("has repro", 3.0),
            ("duplicate", -8.0),
            ("invalid", -8.0),
            ("stale", -5.0),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        Weights {
            issue: 5.0,
            pull_request: 6.0,
            release: 12.0,
            prerelease: 6.0,
            discussion: 4.0,
            answered: -2.0,
            advisory: 10.0,
            severity_critical: 16.0,
            severity_high: 10.0,
            severity_medium: 5.0,
            severity_low: 2.0,
            open: 4.0,
            draft: -2.0,
            reactions: 3.0,
            comments: 2.5,
            recency: 10.0,
            half_life_hours: 72.0,
            echo: 3.0,
            labels,
        }
    }
}

/// A weight that cannot be used, named by its key under `[importance]`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "importance.{key} = {value}: {problem}; fix it in the [importance] section of the configuration or remove it to use the default"
)]
pub struct WeightsError {
    /// The key, such as `reactions` or `labels."has repro"`.
    pub key: String,
    /// The rejected value, as written.
    pub value: String,
    /// What is wrong with it.
    pub problem: String,
}

impl Weights {
    /// Checks that the weights keep the rule's promises: the weights of terms
    /// that may only raise a score (`open`, `reactions`, `comments`,
    /// `recency`) are finite and >= 0, `half_life_hours` is finite and > 0,
    /// every other weight is finite, and no two label keys mean the same
    /// label.
    pub fn validate(&self) -> Result<(), WeightsError> {
        let non_negative = [
            ("open", self.open),
            ("reactions", self.reactions),
            ("comments", self.comments),
            ("recency", self.recency),
            ("echo", self.echo),
            ("severity_critical", self.severity_critical),
            ("severity_high", self.severity_high),
            ("severity_medium", self.severity_medium),
            ("severity_low", self.severity_low),
        ];
        for (key, value) in non_negative {
            if !value.is_finite() || value < 0.0 {
                return Err(WeightsError {
                    key: key.to_string(),
                    value: value.to_string(),
                    problem: "must be a finite number >= 0, or more activity could lower a score"
                        .to_string(),
                });
            }
        }
        if !self.half_life_hours.is_finite() || self.half_life_hours <= 0.0 {
            return Err(WeightsError {
                key: "half_life_hours".to_string(),
                value: self.half_life_hours.to_string(),
                problem: "must be a finite number of hours > 0".to_string(),
            });
        }
        let any_sign = [
            ("issue", self.issue),
            ("pull_request", self.pull_request),
            ("release", self.release),
            ("prerelease", self.prerelease),
            ("discussion", self.discussion),
            ("answered", self.answered),
            ("advisory", self.advisory),
            ("draft", self.draft),
        ];
        for (key, value) in any_sign {
            if !value.is_finite() {
                return Err(WeightsError {
                    key: key.to_string(),
                    value: value.to_string(),
                    problem: "must be a finite number".to_string(),
                });
            }
        }
        let mut seen: BTreeMap<String, &str> = BTreeMap::new();
        for (label, &value) in &self.labels {
            let key = format!("labels.{label:?}");
            if !value.is_finite() {
                return Err(WeightsError {
                    key,
                    value: value.to_string(),
                    problem: "must be a finite number".to_string(),
                });
            }
            let norm = normalize_label(label);
            if norm.is_empty() {
                return Err(WeightsError {
                    key,
                    value: value.to_string(),
                    problem: "the label name is empty".to_string(),
                });
            }
            if let Some(other) = seen.insert(norm, label) {
                return Err(WeightsError {
                    key,
                    value: value.to_string(),
                    problem: format!("names the same label as labels.{other:?}"),
                });
            }
        }
        Ok(())
    }

    /// The points of an advisory's severity.
    pub fn severity(&self, severity: Severity) -> f64 {
        match severity {
            Severity::Critical => self.severity_critical,
            Severity::High => self.severity_high,
            Severity::Medium => self.severity_medium,
            Severity::Low => self.severity_low,
        }
    }

    /// The weight of a label, matched as [`Weights::labels`] describes.
    pub fn label_weight(&self, label: &str) -> Option<f64> {
        let norm = normalize_label(label);
        self.labels
            .iter()
            .find(|(k, _)| normalize_label(k) == norm)
            .map(|(_, &v)| v)
    }
}

/// Lowercase, `-` and `_` as spaces, runs of whitespace collapsed, trimmed.
fn normalize_label(label: &str) -> String {
    label
        .to_lowercase()
        .replace(['-', '_'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Scores one item at collection time `now`.
///
/// Terms, in this order (zero-point terms other than the base are left out):
/// `kind`, `severity` (advisories), `open`, `draft`, `answered`, `reactions`, `comments`, `label:<name>` (each
/// weighted label once, in the item's order), `recency`. An `updated_at`
/// after `now` counts as "now".
///
/// Expects weights that passed [`Weights::validate`]; with others the
/// promises of docs/importance.md may not hold.
pub fn score(item: &ItemSnapshot, now: Timestamp, weights: &Weights) -> Score {
    let mut terms = Vec::new();
    let mut push = |name: &str, points: f64, why: String| {
        terms.push(Term {
            name: name.to_string(),
            points,
            why,
        })
    };

    let (base, kind) = match item.detail {
        ItemDetail::Issue { .. } => (weights.issue, "issue"),
        ItemDetail::PullRequest { .. } => (weights.pull_request, "pull request"),
        ItemDetail::Release {
            prerelease: false, ..
        } => (weights.release, "release"),
        ItemDetail::Release {
            prerelease: true, ..
        } => (weights.prerelease, "prerelease"),
        ItemDetail::Discussion { .. } => (weights.discussion, "discussion"),
        ItemDetail::Advisory { .. } => (weights.advisory, "security advisory"),
    };
    push("kind", base, kind.to_string());
    if let ItemDetail::Advisory {
        severity: Some(severity),
        ..
    } = item.detail
    {
        let points = weights.severity(severity);
        if points != 0.0 {
            push(
                "severity",
                points,
                format!("{} severity", severity.as_str()),
            );
        }
    }

    if item.state == ItemState::Open && weights.open != 0.0 {
        push("open", weights.open, "open".to_string());
    }
    if let ItemDetail::PullRequest { draft: true, .. } = item.detail
        && weights.draft != 0.0
    {
        push("draft", weights.draft, "draft pull request".to_string());
    }
    if let ItemDetail::Discussion { answered: true, .. } = item.detail
        && weights.answered != 0.0
    {
        push(
            "answered",
            weights.answered,
            "answered discussion".to_string(),
        );
    }

    let counts = [
        ("reactions", item.metrics.reactions, weights.reactions),
        ("comments", item.metrics.comments, weights.comments),
    ];
    for (name, n, weight) in counts {
        if n > 0 && weight != 0.0 {
            let unit = if n == 1 {
                name.trim_end_matches('s')
            } else {
                name
            };
            push(
                name,
                weight * (1.0 + n as f64).log2(),
                format!("{n} {unit}"),
            );
        }
    }

    let mut seen = Vec::new();
    for label in &item.labels {
        let norm = normalize_label(label);
        if seen.contains(&norm) {
            continue;
        }
        seen.push(norm);
        if let Some(w) = weights.label_weight(label)
            && w != 0.0
        {
            push(&format!("label:{label}"), w, format!("label {label}"));
        }
    }

    let age_seconds = now
        .as_second()
        .saturating_sub(item.updated_at.as_second())
        .max(0);
    let age_hours = age_seconds as f64 / 3600.0;
    let recency = weights.recency * (-age_hours / weights.half_life_hours).exp2();
    if recency > 0.0 {
        push(
            "recency",
            recency,
            format!("updated {} before collection", human_age(age_seconds)),
        );
    }

    Score::from_terms(terms)
}

/// `s` with the echo term: the item's story is told in `repos` other
/// repositories of its group (its related items there). No term when
/// there is none; the term never lowers a score.
pub fn echoed(mut s: Score, repos: usize, weights: &Weights) -> Score {
    if repos == 0 {
        return s;
    }
    let points = weights.echo * (1.0 + repos as f64).log2();
    let why = match repos {
        1 => "told in 1 other repository of the group".to_string(),
        n => format!("told in {n} other repositories of the group"),
    };
    s.terms.push(Term {
        name: "echo".to_string(),
        points,
        why,
    });
    Score::from_terms(s.terms)
}

/// "5 minutes", "3 hours", "12 days": coarse, for explanations.
fn human_age(seconds: i64) -> String {
    let (n, unit) = match seconds {
        s if s < 120 => (s, "second"),
        s if s < 3600 => (s / 60, "minute"),
        s if s < 2 * 86_400 => (s / 3600, "hour"),
        s => (s / 86_400, "day"),
    };
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

/// What decides where a signal goes on a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankKey<'a> {
    /// The score's total.
    pub importance: u32,
    /// When the item was last updated.
    pub updated_at: Timestamp,
    /// The signal id.
    pub id: &'a str,
}

impl Ord for RankKey<'_> {
    /// Page order: importance descending, then `updated_at` descending
    /// (newest first), then id ascending by byte.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .importance
            .cmp(&self.importance)
            .then(other.updated_at.cmp(&self.updated_at))
            .then(self.id.as_bytes().cmp(other.id.as_bytes()))
    }
}

impl PartialOrd for RankKey<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Sorts `items` into page order by their [`RankKey`].
pub fn rank<T>(items: &mut [T], key: impl for<'x> Fn(&'x T) -> RankKey<'x>) {
    items.sort_by(|a, b| key(a).cmp(&key(b)));
}

#[cfg(test)]
mod tests;
