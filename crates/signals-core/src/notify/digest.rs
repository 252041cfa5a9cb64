//! An email digest: the messages a rule held since its last digest, made
//! into one message of the most important signals across them.

use jiff::Timestamp;

use crate::dataset::fmt_collected;

use super::{MessageKind, MessageSignal, Outgoing, Payload, delivery_id, rank};

/// An email digest of the messages held for `rule` since the last one: the
/// `top` most important signals across them (an item seen in several runs
/// counts once, as last seen), ordered by group, repository, then
/// importance. `at` is the digest's instant. `None` when nothing is held.
pub fn digest(rule: &str, held: &[Payload], top: usize, at: Timestamp) -> Option<Outgoing> {
    let mut latest: std::collections::BTreeMap<&str, (&str, &MessageSignal)> =
        std::collections::BTreeMap::new();
    for p in held {
        for s in &p.signals {
            let seen = latest.get(s.signal.id.as_str());
            if seen.is_none_or(|(at, _)| *at <= p.collected_at.as_str()) {
                latest.insert(&s.signal.id, (&p.collected_at, s));
            }
        }
    }
    if latest.is_empty() {
        return None;
    }
    let mut all: Vec<MessageSignal> = latest.into_values().map(|(_, s)| s.clone()).collect();
    rank(&mut all);
    let more = all.len().saturating_sub(top) as u64;
    all.truncate(top);
    all.sort_by(|a, b| {
        (a.signal.group.as_str(), a.signal.project.as_str())
            .cmp(&(b.signal.group.as_str(), b.signal.project.as_str()))
            .then_with(|| b.importance.cmp(&a.importance))
            .then_with(|| a.signal.id.as_bytes().cmp(b.signal.id.as_bytes()))
    });
    let collected = fmt_collected(at);
    let first = held.iter().map(|p| p.collected_at.as_str()).min()?;
    Some(Outgoing {
        delivery: delivery_id(&["digest", rule, first, &collected]),
        rule: rule.to_string(),
        held: false,
        payload: Payload {
            rule: rule.to_string(),
            kind: MessageKind::Digest,
            group: None,
            repository: None,
            collected_at: collected,
            signals: all,
            more,
            link: None,
            lifecycle: None,
        },
    })
}
