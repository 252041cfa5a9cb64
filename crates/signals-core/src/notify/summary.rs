//! A repository's first-run summaries made a part of the run at a time:
//! a run committed from its stage sees its events a
//! chunk at a time, and each rule's summary keeps only its top
//! [`MAX_SIGNALS`] signals and the count of the rest, so memory stays
//! that of a chunk. The messages are those [`super::messages`] makes of
//! the whole run at once.

use super::message::{run_payload, scored, signal};
use super::{Initial, MAX_SIGNALS, MessageKind, MessageSignal, Outgoing, RuleRef, RunInput};
use super::{Trigger, delivery_id, rank};

/// One rule's summary so far: its most important signals (at most
/// [`MAX_SIGNALS`] after each part) and how many it selected in all.
struct Top<'r> {
    rule: RuleRef<'r>,
    kept: Vec<MessageSignal>,
    selected: u64,
}

/// The summaries of a repository's first run, fed a part of its events
/// at a time ([`Summaries::add`]) and made once it is whole
/// ([`Summaries::finish`]).
pub struct Summaries<'r> {
    tops: Vec<Top<'r>>,
}

impl<'r> Summaries<'r> {
    /// The summaries `rules` make of a first run of `run`'s repository
    /// (its group and repository; its events are not read): one per rule
    /// that covers it and wants one (`initial` other than `none`).
    pub fn new(rules: &[RuleRef<'r>], run: &RunInput<'_>) -> Summaries<'r> {
        let tops = rules
            .iter()
            .filter(|r| r.rule.initial != Initial::None && r.rule.covers(run.group, run.repo))
            .map(|r| Top {
                rule: *r,
                kept: Vec::new(),
                selected: 0,
            })
            .collect();
        Summaries { tops }
    }

    /// Adds a part of the run: `part`'s events, with their new snapshots.
    pub fn add(&mut self, part: &RunInput<'_>) {
        if self.tops.is_empty() {
            return;
        }
        let scored = scored(part);
        for top in &mut self.tops {
            let rule = top.rule.rule;
            // Once 20 are kept, the last of them (the least important) is
            // the bar a signal must pass to be kept; one that does not is
            // only counted, and its signal never made.
            let bar = match top.kept.len() {
                MAX_SIGNALS => top.kept.last().map(|s| (s.importance, s.signal.id.clone())),
                _ => None,
            };
            for (item, imp) in &scored {
                if !rule.selects(part.repo, item, *imp) {
                    continue;
                }
                top.selected += 1;
                let passes = bar.as_ref().is_none_or(|(importance, id)| {
                    *imp > *importance
                        || (*imp == *importance
                            && item.id(&part.repo.source).as_bytes() < id.as_bytes())
                });
                if passes {
                    top.kept
                        .push(signal(part, item, *imp, Trigger::Discovered, vec![]));
                }
            }
            if top.kept.len() >= MAX_SIGNALS {
                rank(&mut top.kept);
                top.kept.truncate(MAX_SIGNALS);
            }
        }
    }

    /// The messages, at most one per rule, in the rules' order: as
    /// [`super::messages`] makes them of the whole first run (`run` gives
    /// the repository, the instant and the link; its events are not read).
    pub fn finish(self, run: &RunInput<'_>) -> Vec<Outgoing> {
        let collected = crate::dataset::fmt_collected(run.collected_at);
        self.tops
            .into_iter()
            .filter(|top| top.selected > 0)
            .map(|mut top| {
                let rule = top.rule.rule;
                rank(&mut top.kept);
                top.kept.truncate(MAX_SIGNALS);
                let more = top.selected.saturating_sub(MAX_SIGNALS as u64);
                Outgoing {
                    delivery: delivery_id(&[&rule.name, &run.group.id, &run.repo.id, &collected]),
                    rule: rule.name.clone(),
                    held: top.rule.held,
                    payload: run_payload(&rule.name, MessageKind::Summary, run, top.kept, more),
                }
            })
            .collect()
    }
}
