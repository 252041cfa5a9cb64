//! The outbox of alerts: the messages a run's `[[notify]]` rules
//! call for, committed in the run's own transaction (`commit_run`), then
//! claimed, delivered and settled by `signals notify` ([`Outbox`]).
//!
//! A message is `held` (waiting for an email digest), `pending`,
//! `delivered`, `failed` (given up after the bounded time) or `digested`
//! (folded into a digest, which is a message of its own). A claim is a
//! lease (`claimed_until`): a sender that dies leaves its message to the
//! next one once the claim expires, which sends the same delivery id and
//! body again. Times here are milliseconds since the Unix epoch, so they
//! compare as numbers in both backends.
//!
//! The types and the row decoding are shared by both backends; the SQL of
//! each is its own.

use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use signals_core::notify::{Outgoing, Payload};

use crate::codec::{from_json, to_json};
use crate::{Result, StoreError};

/// Where a message is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageState {
    /// Waiting for its rule's email digest.
    Held,
    /// To be sent.
    Pending,
    /// Sent and accepted.
    Delivered,
    /// Given up after the bounded time; kept for `signals status`.
    Failed,
    /// Folded into a digest.
    Digested,
}

impl MessageState {
    /// The column value.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageState::Held => "held",
            MessageState::Pending => "pending",
            MessageState::Delivered => "delivered",
            MessageState::Failed => "failed",
            MessageState::Digested => "digested",
        }
    }

    /// Parses a column value.
    pub fn parse(s: &str) -> Option<MessageState> {
        [
            MessageState::Held,
            MessageState::Pending,
            MessageState::Delivered,
            MessageState::Failed,
            MessageState::Digested,
        ]
        .into_iter()
        .find(|m| m.as_str() == s)
    }
}

/// A message of the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct OutboxMessage {
    /// Its row id.
    pub id: i64,
    /// The stable delivery id (`X-Signals-Delivery`).
    pub delivery: String,
    /// The rule's name.
    pub rule: String,
    /// Where it is.
    pub state: MessageState,
    /// When its run committed (a digest: when it was made).
    pub created_at: Timestamp,
    /// Attempts so far.
    pub attempts: u32,
    /// The last attempt's error, if it failed.
    pub last_error: Option<String>,
    /// What it says.
    pub payload: Payload,
}

/// How an attempt to send a message ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settle {
    /// Accepted by the receiver.
    Delivered,
    /// Failed; to be tried again from `next` on.
    Retry {
        /// When it is due again.
        next: Timestamp,
        /// What went wrong (no secret in it).
        error: String,
    },
    /// Failed and given up.
    Failed {
        /// What went wrong last.
        error: String,
    },
}

/// The messages of one rule, for `signals status`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleOutbox {
    /// The rule's name.
    pub rule: String,
    /// Held for a digest.
    pub held: u64,
    /// To be sent.
    pub pending: u64,
    /// Sent.
    pub delivered: u64,
    /// Given up.
    pub failed: u64,
    /// The error of the rule's most recently failed attempt.
    pub last_error: Option<String>,
}

/// The raw columns of a message row: id, delivery, rule, state,
/// created_ms, attempts, last_error, body.
pub type MessageRow = (
    i64,
    String,
    String,
    String,
    i64,
    i64,
    Option<String>,
    String,
);

/// The columns [`MessageRow`] reads, in order.
pub const MESSAGE_COLUMNS: &str =
    "id, delivery, rule, state, created_ms, attempts, last_error, body";

/// Decodes a message row (both backends).
pub fn message_from(path: &Path, row: MessageRow) -> Result<OutboxMessage> {
    let (id, delivery, rule, state, created_ms, attempts, last_error, body) = row;
    let corrupt = |what: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        what,
    };
    Ok(OutboxMessage {
        id,
        state: MessageState::parse(&state)
            .ok_or_else(|| corrupt(format!("outbox.state {state:?} of message {id}")))?,
        created_at: ms_ts(created_ms)
            .ok_or_else(|| corrupt(format!("outbox.created_ms {created_ms} of message {id}")))?,
        attempts: u32::try_from(attempts)
            .map_err(|_| corrupt(format!("outbox.attempts {attempts} of message {id}")))?,
        payload: from_json(path, "outbox.body", &body)?,
        delivery,
        rule,
        last_error,
    })
}

/// Milliseconds since the epoch.
pub fn ts_ms(t: Timestamp) -> i64 {
    t.as_millisecond()
}

/// A timestamp from milliseconds since the epoch.
pub fn ms_ts(ms: i64) -> Option<Timestamp> {
    Timestamp::from_millisecond(ms).ok()
}

/// The body column of a message.
pub fn body_of(path: &Path, m: &Outgoing) -> Result<String> {
    to_json(path, "an alert message", &m.payload)
}

/// Folds per-state counts (rule, state, count) and each rule's last error
/// into [`RuleOutbox`]es, by rule name.
pub fn rule_counts(
    counts: Vec<(String, String, i64)>,
    errors: Vec<(String, Option<String>)>,
) -> Vec<RuleOutbox> {
    let mut rules: std::collections::BTreeMap<String, RuleOutbox> = Default::default();
    for (rule, state, n) in counts {
        let r = rules.entry(rule.clone()).or_insert_with(|| RuleOutbox {
            rule,
            ..RuleOutbox::default()
        });
        let n = n.max(0) as u64;
        match MessageState::parse(&state) {
            Some(MessageState::Held) => r.held += n,
            Some(MessageState::Pending) => r.pending += n,
            Some(MessageState::Delivered) => r.delivered += n,
            Some(MessageState::Failed) => r.failed += n,
            Some(MessageState::Digested) | None => {}
        }
    }
    for (rule, error) in errors {
        if let Some(r) = rules.get_mut(&rule) {
            r.last_error = error;
        }
    }
    rules.into_values().collect()
}

/// The outbox of alerts: claimed, settled, folded into digests and
/// counted for `signals status`. Messages are written by
/// [`crate::RunWrites::commit_run`], in the run's transaction.
pub trait Outbox {
    /// Claims the oldest pending message due at `now` that no live claim
    /// holds, for `claim`; `None` when there is none. Where several
    /// workers share a store, one of them claims each message.
    fn outbox_claim(
        &mut self,
        now: Timestamp,
        claim: SignedDuration,
    ) -> Result<Option<OutboxMessage>>;

    /// Records how an attempt to send a claimed message ended; the claim
    /// is released.
    fn outbox_settle(&mut self, id: i64, at: Timestamp, outcome: &Settle) -> Result<()>;

    /// When the next pending message is due (its claim included), if any
    /// is.
    fn outbox_next_due(&self) -> Result<Option<Timestamp>>;

    /// Messages in `state`, oldest first; of one rule when `rule` is set.
    fn outbox_messages(
        &self,
        state: MessageState,
        rule: Option<&str>,
    ) -> Result<Vec<OutboxMessage>>;

    /// Folds the held messages `parts` into `digest`, a new pending
    /// message, all or nothing. Returns false, writing nothing, when one of
    /// them is no longer held (another process digested it).
    fn outbox_digest(&mut self, parts: &[i64], digest: &Outgoing, at: Timestamp) -> Result<bool>;

    /// When the rule's last digest was made.
    fn outbox_last_digest(&self, rule: &str) -> Result<Option<Timestamp>>;

    /// Each rule's messages by state, and its last error (`signals
    /// status`).
    fn outbox_status(&self) -> Result<Vec<RuleOutbox>>;
}
