//! How good the related items are, measured against known answers: the
//! stories planted on the test host, or the duplicates a host marks.
//!
//! Every item measured has a story (items of the same story are the same
//! report in other words) or none (an item that only shares common
//! words). **Recall@5** is the share of ordered pairs of one story where
//! the second is among the first's five best; **precision** the share of
//! related pairs (above the threshold) whose two items tell one story.

use std::collections::HashMap;

use super::corpus::{Neighbour, SHOWN};

/// Recall and precision of lists against stories.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quality {
    /// Ordered pairs of one story.
    pub pairs: usize,
    /// Of those, found among the first's five best.
    pub found: usize,
    /// Related pairs listed, from the items measured.
    pub listed: usize,
    /// Of those, of one story.
    pub right: usize,
}

impl Quality {
    /// `found / pairs` (1 when there is no pair).
    pub fn recall(&self) -> f64 {
        ratio(self.found, self.pairs)
    }

    /// `right / listed` (1 when nothing is listed).
    pub fn precision(&self) -> f64 {
        ratio(self.right, self.listed)
    }
}

/// The quality of lists at each threshold as a Markdown table, the known
/// pairs named `known` (`planted`, `marked`): what the benchmark and
/// `signals duplicates` print.
pub fn table(known: &str, rows: &[(f64, Quality)]) -> String {
    let mut out = format!(
        "| threshold | recall@5 | precision | pairs found / {known} | right / listed |\n\
         |---|---|---|---|---|\n"
    );
    for (t, q) in rows {
        out.push_str(&format!(
            "| {t:.2} | {:.3} | {:.3} | {} / {} | {} / {} |\n",
            q.recall(),
            q.precision(),
            q.found,
            q.pairs,
            q.right,
            q.listed
        ));
    }
    out
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

/// The quality of `lists` (each item's related items, best first) at
/// score `threshold` or more, over the items of `stories` (an item's
/// story, or `None`); items not in `stories` are not measured.
pub fn measure(
    lists: &HashMap<String, Vec<Neighbour>>,
    stories: &HashMap<String, Option<u32>>,
    threshold: f64,
) -> Quality {
    let mut members: HashMap<u32, Vec<&str>> = HashMap::new();
    for (id, story) in stories {
        if let Some(s) = story {
            members.entry(*s).or_default().push(id);
        }
    }
    let mut q = Quality {
        pairs: 0,
        found: 0,
        listed: 0,
        right: 0,
    };
    let empty = Vec::new();
    for (id, story) in stories {
        let list: Vec<&Neighbour> = lists
            .get(id)
            .unwrap_or(&empty)
            .iter()
            .filter(|n| n.score >= threshold)
            .collect();
        for n in &list {
            q.listed += 1;
            if story.is_some() && stories.get(&n.id).copied().flatten() == *story {
                q.right += 1;
            }
        }
        let Some(s) = story else { continue };
        for other in &members[s] {
            if other == id {
                continue;
            }
            q.pairs += 1;
            if list.iter().take(SHOWN).any(|n| n.id == *other) {
                q.found += 1;
            }
        }
    }
    q
}
