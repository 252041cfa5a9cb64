//! The alerts of an event that is not an observation's (`waiting`,
//! `echo`): per rule that names the event and covers the repository, the
//! run's items of that event the rule selects, ranked and capped, in one
//! message of their own whose delivery id names the event.

use crate::dataset::{Changed, RelatedDoc, fmt_collected, signal_of};
use crate::hostile::http_url;
use crate::importance::score;
use crate::model::ItemSnapshot;

use super::{MAX_SIGNALS, RuleRef, RunInput, Trigger, delivery_id, rank};
use super::{MessageKind, MessageSignal, Outgoing};

/// One item of the event, with what its signal carries besides itself.
pub(super) struct Candidate<'a> {
    /// The item, as the run saw it.
    pub item: &'a ItemSnapshot,
    /// Its related items, for a signal that shows them (empty otherwise).
    pub related: &'a [RelatedDoc],
}

/// The messages of `event` for `candidates`: none on a repository's first
/// run (its summary stands for everything), at most one per rule.
pub(super) fn event_messages(
    rules: &[RuleRef<'_>],
    run: &RunInput<'_>,
    event: Trigger,
    candidates: &[Candidate<'_>],
) -> Vec<Outgoing> {
    if run.first_run || candidates.is_empty() {
        return Vec::new();
    }
    let collected = fmt_collected(run.collected_at);
    let repo_url = http_url(run.repo_url, "");
    let mut out = Vec::new();
    for r in rules {
        let rule = r.rule;
        if !rule.events.contains(&event) || !rule.covers(run.group, run.repo) {
            continue;
        }
        let mut signals: Vec<MessageSignal> = candidates
            .iter()
            .filter_map(|c| {
                let importance = score(c.item, run.collected_at, run.weights).total;
                rule.selects(run.repo, c.item, importance).then(|| {
                    let mut signal =
                        signal_of(&run.group.id, run.repo, c.item, &repo_url, Changed::No);
                    signal.related = c.related.to_vec();
                    MessageSignal {
                        signal,
                        importance,
                        event,
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
        let parts = [
            rule.name.as_str(),
            &run.group.id,
            &run.repo.id,
            &collected,
            event.as_str(),
        ];
        out.push(Outgoing {
            delivery: delivery_id(&parts),
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
