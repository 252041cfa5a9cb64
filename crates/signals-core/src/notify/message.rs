//! The messages a committed run leaves in the outbox: at most one per
//! rule ([`messages`]), each a [`Payload`] of its matching signals ranked
//! by importance, under a stable delivery id; a repository's first run
//! gives a summary instead.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::dataset::{Changed, SignalDoc, fmt_collected, signal_of};
use crate::diff::Observation;
use crate::hostile::http_url;
use crate::importance::{Weights, score};
use crate::model::{Group, ItemSnapshot, TrackedRepo};
use crate::run::ItemEvent;

use super::{Initial, Rule, Trigger};

/// Signals one message lists; the rest are counted in [`Payload::more`].
pub const MAX_SIGNALS: usize = 20;

/// What a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageKind {
    /// The matching events of one repository run.
    Alert,
    /// A repository's first run: its top items, once.
    Summary,
    /// An email digest: the top signals since the last digest.
    Digest,
}

/// `group` of a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupRef {
    /// Slug.
    pub id: String,
    /// Display name.
    pub name: String,
}

/// `repository` of a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoRef {
    /// Slug within its group.
    pub id: String,
    /// `<owner>/<name>`.
    pub repo: String,
    /// Display name.
    pub name: String,
}

/// One signal of a message: its v3 fields, with the importance at the
/// run's instant, the trigger that matched and the changed field names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSignal {
    /// The v3 signal.
    pub signal: SignalDoc,
    /// Importance at the run's instant (docs/importance.md).
    pub importance: u32,
    /// What happened (`discovered`, `closed`, ...).
    pub event: Trigger,
    /// The tracked fields that changed (empty when discovered).
    pub fields: Vec<String>,
}

/// What a message says, kept in the outbox as JSON and rendered by each
/// channel at sending, so a retry sends the very same body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Payload {
    /// The rule's name.
    pub rule: String,
    /// Alert, summary or digest.
    pub kind: MessageKind,
    /// The repository's group (`None` in a digest, whose signals span
    /// groups).
    pub group: Option<GroupRef>,
    /// The repository (`None` in a digest).
    pub repository: Option<RepoRef>,
    /// The run's instant (a digest's: when it was made), with milliseconds.
    pub collected_at: String,
    /// The signals, most important first.
    pub signals: Vec<MessageSignal>,
    /// Matching signals left out of `signals`.
    pub more: u64,
    /// The repository's page, when the site's `base_url` is configured.
    pub link: Option<String>,
    /// The change of the repository's lifecycle state, in a `lifecycle`
    /// alert (whose `signals` are empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<crate::lifecycle::verdict::LifecycleNote>,
}

/// A message a run calls for, before the store numbers it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// The stable delivery id, sent as `X-Signals-Delivery`.
    pub delivery: String,
    /// The rule's name.
    pub rule: String,
    /// Held for an email digest rather than sent on its own.
    pub held: bool,
    /// What it says.
    pub payload: Payload,
}

/// A delivery id: 32 hex digits of SHA-256 over what makes the message
/// unique (rule, group, repository, the run's instant). The same run and
/// rule always give the same id, in any store.
pub fn delivery_id(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0]);
    }
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A rule and whether its messages wait for a digest.
#[derive(Debug, Clone, Copy)]
pub struct RuleRef<'a> {
    /// The filter.
    pub rule: &'a Rule,
    /// Held for a digest (email with `digest = ...`).
    pub held: bool,
}

/// One committed run, as alerts see it.
#[derive(Debug, Clone, Copy)]
pub struct RunInput<'a> {
    /// The group.
    pub group: &'a Group,
    /// The repository as configured.
    pub repo: &'a TrackedRepo,
    /// The repository's web URL (stands in for non-http item URLs).
    pub repo_url: &'a str,
    /// The run's instant.
    pub collected_at: Timestamp,
    /// True for the repository's first successful run.
    pub first_run: bool,
    /// The run's events.
    pub events: &'a [ItemEvent],
    /// The run's new snapshots by signal id (every event's item has one).
    pub snapshots: &'a [(String, ItemSnapshot)],
    /// Importance weights.
    pub weights: &'a Weights,
    /// The repository's page, when known.
    pub link: Option<&'a str>,
}

/// The messages `rules` call for after a run: at most one per rule.
pub fn messages(rules: &[RuleRef<'_>], run: &RunInput<'_>) -> Vec<Outgoing> {
    let scored = scored_events(run);
    let collected = fmt_collected(run.collected_at);
    let mut out = Vec::new();
    for r in rules {
        let rule = r.rule;
        if !rule.covers(run.group, run.repo) {
            continue;
        }
        let (kind, mut signals) = if run.first_run {
            if rule.initial == Initial::None {
                continue;
            }
            let s: Vec<MessageSignal> = scored
                .iter()
                .filter(|(_, item, imp)| rule.selects(run.repo, item, *imp))
                .map(|(_, item, imp)| signal(run, item, *imp, Trigger::Discovered, vec![]))
                .collect();
            (MessageKind::Summary, s)
        } else {
            let s: Vec<MessageSignal> = scored
                .iter()
                .filter_map(|(e, item, imp)| {
                    let t = rule.matches(run.repo, &e.observation, item, *imp)?;
                    let fields = match &e.observation {
                        Observation::Discovered => vec![],
                        Observation::Changed(f) => {
                            f.iter().map(|f| f.as_str().to_string()).collect()
                        }
                    };
                    Some(signal(run, item, *imp, t, fields))
                })
                .collect();
            (MessageKind::Alert, s)
        };
        if signals.is_empty() {
            continue;
        }
        rank(&mut signals);
        let more = signals.len().saturating_sub(MAX_SIGNALS) as u64;
        signals.truncate(MAX_SIGNALS);
        out.push(Outgoing {
            delivery: delivery_id(&[&rule.name, &run.group.id, &run.repo.id, &collected]),
            rule: rule.name.clone(),
            held: r.held,
            payload: run_payload(&rule.name, kind, run, signals, more),
        });
    }
    out
}

/// The payload of a rule's message about one repository's run: its
/// `signals` (and how many `more` were left out).
pub(super) fn run_payload(
    rule: &str,
    kind: MessageKind,
    run: &RunInput<'_>,
    signals: Vec<MessageSignal>,
    more: u64,
) -> Payload {
    Payload {
        rule: rule.to_string(),
        kind,
        group: Some(GroupRef {
            id: run.group.id.clone(),
            name: run.group.name.clone(),
        }),
        repository: Some(RepoRef {
            id: run.repo.id.clone(),
            repo: run.repo.repo.to_string(),
            name: run.repo.name.clone(),
        }),
        collected_at: fmt_collected(run.collected_at),
        signals,
        more,
        link: run.link.map(str::to_string),
        lifecycle: None,
    }
}

pub(super) fn signal(
    run: &RunInput<'_>,
    item: &ItemSnapshot,
    importance: u32,
    event: Trigger,
    fields: Vec<String>,
) -> MessageSignal {
    let repo_url = http_url(run.repo_url, "");
    MessageSignal {
        signal: signal_of(
            &run.group.id,
            run.repo,
            item,
            &repo_url,
            Changed::from(event != Trigger::Discovered && event != Trigger::Released),
        ),
        importance,
        event,
        fields,
    }
}

/// Most important first, then by signal id (byte order), so equal scores
/// always list the same way.
pub fn rank(signals: &mut [MessageSignal]) {
    signals.sort_by(|a, b| {
        b.importance
            .cmp(&a.importance)
            .then_with(|| a.signal.id.as_bytes().cmp(b.signal.id.as_bytes()))
    });
}

/// The events of `run` whose item has a new snapshot, with that snapshot
/// and its importance at the run's instant.
pub(super) fn scored<'a>(run: &RunInput<'a>) -> Vec<(&'a ItemSnapshot, u32)> {
    scored_events(run)
        .into_iter()
        .map(|(_, item, imp)| (item, imp))
        .collect()
}

/// As [`scored`], with each event.
fn scored_events<'a>(run: &RunInput<'a>) -> Vec<(&'a ItemEvent, &'a ItemSnapshot, u32)> {
    let snapshots = run.snapshots;
    let snapshot = |id: &str| {
        snapshots
            .binary_search_by(|(i, _)| i.as_str().cmp(id))
            .ok()
            .map(|i| &snapshots[i].1)
            .or_else(|| snapshots.iter().find(|(i, _)| i == id).map(|(_, s)| s))
    };
    run.events
        .iter()
        .filter_map(|e| {
            let item = snapshot(&e.item_id)?;
            Some((e, item, score(item, run.collected_at, run.weights).total))
        })
        .collect()
}
