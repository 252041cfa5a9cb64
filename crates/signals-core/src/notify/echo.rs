//! The `echo` alert event: a new issue, pull request or discussion tells
//! a story already told in another repository of its group (a related
//! item, `crate::related`, in another repository). It fires once per
//! item, at the run that discovers it (never on a repository's first
//! run), as a message of its own per rule (its delivery id names
//! `echo`); each signal carries its related items of other repositories
//! (`related`) with their scores and shared words.

use crate::dataset::RelatedDoc;
use crate::model::ItemSnapshot;

use super::one_event::{Candidate, event_messages};
use super::{Outgoing, RuleRef, RunInput, Trigger};

/// A new item and its related items in other repositories of its group.
#[derive(Debug, Clone, PartialEq)]
pub struct Echoed {
    /// The new item, as this run saw it.
    pub item: ItemSnapshot,
    /// Its related items in other repositories, best first.
    pub others: Vec<RelatedDoc>,
}

/// The `echo` messages of a run: per rule that asks for `echo` and covers
/// the repository, the `echoed` items it selects, at most one message per
/// rule.
pub fn echo_messages(
    rules: &[RuleRef<'_>],
    run: &RunInput<'_>,
    echoed: &[Echoed],
) -> Vec<Outgoing> {
    let candidates: Vec<Candidate<'_>> = echoed
        .iter()
        .map(|e| Candidate {
            item: &e.item,
            related: &e.others,
        })
        .collect();
    event_messages(rules, run, Trigger::Echo, &candidates)
}
