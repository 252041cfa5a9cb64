//! Importance scoring: a non-negative integer per signal, computed by a
//! documented rule (docs/importance.md) from the signal's own fields and the
//! collection time, with the terms that made it kept for explanation.

use serde::{Deserialize, Serialize};

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
