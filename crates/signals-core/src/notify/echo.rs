//! The `echo` alert event: a new issue, pull request or discussion tells
//! a story already told in another repository of its group (a related
//! item, `crate::related`, in another repository). It fires once per
//! item, at the run that discovers it (never on a repository's first
//! run), as a message of its own per rule (its delivery id names
//! `echo`); each signal carries its related items of other repositories
//! (`related`) with their scores and shared words.

use crate::dataset::{Changed, RelatedDoc, fmt_collected, signal_of};
use crate::hostile::http_url;
use crate::importance::score;
use crate::model::ItemSnapshot;

use super::{MAX_SIGNALS, RuleRef, RunInput, Trigger, delivery_id, rank};
use super::{MessageKind, MessageSignal, Outgoing};

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
    if run.first_run || echoed.is_empty() {
        return Vec::new();
    }
    let collected = fmt_collected(run.collected_at);
    let repo_url = http_url(run.repo_url, "");
    let mut out = Vec::new();
    for r in rules {
        let rule = r.rule;
        if !rule.events.contains(&Trigger::Echo) || !rule.covers(run.group, run.repo) {
            continue;
        }
        let mut signals: Vec<MessageSignal> = echoed
            .iter()
            .filter_map(|e| {
                let importance = score(&e.item, run.collected_at, run.weights).total;
                rule.selects(run.repo, &e.item, importance).then(|| {
                    let mut signal =
                        signal_of(&run.group.id, run.repo, &e.item, &repo_url, Changed::No);
                    signal.related = e.others.clone();
                    MessageSignal {
                        signal,
                        importance,
                        event: Trigger::Echo,
                        fields: vec![],
                    }
                })
            })
            .collect();
        if signals.is_empty() {
            continue;
        }
        rank(&mut signals);
        let more = signals.len().saturating_sub(MAX_SIGNALS) as u64;
        signals.truncate(MAX_SIGNALS);
        out.push(Outgoing {
            delivery: delivery_id(&[&rule.name, &run.group.id, &run.repo.id, &collected, "echo"]),
            rule: rule.name.clone(),
            held: r.held,
            payload: super::message::run_payload(
                &rule.name,
                MessageKind::Alert,
                run,
                signals,
                more,
            ),
        });
    }
    out
}
