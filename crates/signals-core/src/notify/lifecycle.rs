//! The `lifecycle` alert event: a repository's judged lifecycle state
//! changed (`crate::lifecycle`). It fires once, with the judgement that
//! found the change, as a message of its own per rule that asks for it
//! (its delivery id names `lifecycle`), sent at once even by a rule that
//! holds its messages for a digest, whose signals could not carry it.
//! Not where the group or repository declares a state other than
//! `archived`: its verdict there did not change.

use crate::dataset::fmt_collected;
use crate::lifecycle::State;
pub use crate::lifecycle::verdict::LifecycleNote;

use super::{MessageKind, Outgoing, RuleRef, RunInput, Trigger, delivery_id};

/// The `lifecycle` messages of a change: per rule that asks for
/// `lifecycle` and covers the repository, one message. `declared` is the
/// state the repository's group declares for it.
pub fn lifecycle_messages(
    rules: &[RuleRef<'_>],
    run: &RunInput<'_>,
    note: &LifecycleNote,
    declared: Option<State>,
) -> Vec<Outgoing> {
    if declared.is_some() && note.to != State::Archived {
        return Vec::new();
    }
    let collected = fmt_collected(run.collected_at);
    rules
        .iter()
        .filter(|r| {
            r.rule.events.contains(&Trigger::Lifecycle) && r.rule.covers(run.group, run.repo)
        })
        .map(|r| {
            let mut payload =
                super::message::run_payload(&r.rule.name, MessageKind::Alert, run, vec![], 0);
            payload.lifecycle = Some(note.clone());
            Outgoing {
                delivery: delivery_id(&[
                    &r.rule.name,
                    &run.group.id,
                    &run.repo.id,
                    &collected,
                    "lifecycle",
                ]),
                rule: r.rule.name.clone(),
                held: false,
                payload,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::importance::Weights;
    use crate::model::{Group, RepoName, Source, TrackedRepo};
    use crate::notify::Rule;

    #[test]
    fn a_change_sends_one_message_per_rule_that_asks_and_none_where_declared() {
        let group = Group {
            id: "g".into(),
            name: "G".into(),
        };
        let repo = TrackedRepo {
            id: "r".into(),
            source: Source::Github.into(),
            repo: RepoName::parse("o/r").unwrap(),
            name: "r".into(),
            keywords: vec![],
        };
        let weights = Weights::default();
        let run = RunInput {
            group: &group,
            repo: &repo,
            repo_url: "https://github.com/o/r",
            collected_at: "2026-11-01T00:00:00Z".parse().unwrap(),
            first_run: false,
            events: &[],
            snapshots: &[],
            weights: &weights,
            link: None,
        };
        let mut asks = Rule::any("asks");
        asks.events = vec![Trigger::Lifecycle];
        let mut other = Rule::any("other");
        other.events = vec![Trigger::Discovered];
        let rules = [
            RuleRef {
                rule: &asks,
                held: true,
            },
            RuleRef {
                rule: &other,
                held: false,
            },
        ];
        let note = LifecycleNote {
            from: State::Active,
            to: State::Declining,
            reasons: vec![],
        };
        let out = lifecycle_messages(&rules, &run, &note, None);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rule, "asks");
        assert!(!out[0].held);
        assert!(out[0].payload.signals.is_empty());
        assert_eq!(out[0].payload.lifecycle, Some(note.clone()));
        assert!(lifecycle_messages(&rules, &run, &note, Some(State::Stable)).is_empty());
        let archived = LifecycleNote {
            to: State::Archived,
            ..note
        };
        assert_eq!(
            lifecycle_messages(&rules, &run, &archived, Some(State::Stable)).len(),
            1
        );
    }
}
