//! The outbox of alerts (issue 19): the messages a run's `[[notify]]` rules
//! call for, committed in the run's own transaction (`commit_run`), then
//! claimed, delivered and settled by `signals notify`.
//!
//! A message is `held` (waiting for an email digest), `pending`,
//! `delivered`, `failed` (given up after the bounded time) or `digested`
//! (folded into a digest, which is a message of its own). A claim is a
//! lease (`claimed_until`): a sender that dies leaves its message to the
//! next one once the claim expires, which sends the same delivery id and
//! body again. Times here are milliseconds since the Unix epoch, so they
//! compare as numbers in both backends.
//!
//! The types and the row decoding are shared with the PostgreSQL store;
//! the SQL of each backend is its own.

use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use rusqlite::{OptionalExtension, TransactionBehavior, params};
use signals_core::notify::{Outgoing, Payload};

use crate::codec::{from_json, to_json};
use crate::error::{DbContext, Result, StoreError};
use crate::{RepoKey, Store};

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

/// Writes a run's messages inside its commit transaction.
pub(crate) fn store_messages(
    tx: &rusqlite::Transaction<'_>,
    path: &Path,
    repo: RepoKey,
    run: i64,
    at: Timestamp,
    messages: &[Outgoing],
) -> Result<()> {
    if messages.is_empty() {
        return Ok(());
    }
    let mut insert = tx
        .prepare_cached(
            "INSERT INTO outbox (delivery, rule, repo, run, state, created_ms, next_ms, body)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7)",
        )
        .doing(path, "preparing to store alert messages")?;
    for m in messages {
        let state = if m.held {
            MessageState::Held
        } else {
            MessageState::Pending
        };
        insert
            .execute(params![
                m.delivery,
                m.rule,
                repo.0,
                run,
                state.as_str(),
                ts_ms(at),
                body_of(path, m)?
            ])
            .doing(path, "storing an alert message")?;
    }
    Ok(())
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

impl Store {
    fn messages(
        &self,
        doing: &'static str,
        sql: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<OutboxMessage>> {
        let path = self.path.clone();
        let mut stmt = self.conn.prepare_cached(sql).doing(&path, doing)?;
        let rows = stmt
            .query_map(args, |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                ))
            })
            .doing(&path, doing)?
            .collect::<std::result::Result<Vec<MessageRow>, _>>()
            .doing(&path, doing)?;
        rows.into_iter().map(|r| message_from(&path, r)).collect()
    }
}

impl Outbox for Store {
    fn outbox_claim(
        &mut self,
        now: Timestamp,
        claim: SignedDuration,
    ) -> Result<Option<OutboxMessage>> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .doing(&path, "claiming an alert message")?;
        let id: Option<i64> = tx
            .query_row(
                "SELECT id FROM outbox
                 WHERE state = 'pending' AND next_ms <= ?1
                   AND (claimed_ms IS NULL OR claimed_ms <= ?1)
                 ORDER BY next_ms, id LIMIT 1",
                [ts_ms(now)],
                |r| r.get(0),
            )
            .optional()
            .doing(&path, "claiming an alert message")?;
        let Some(id) = id else {
            return Ok(None);
        };
        let until = now.saturating_add(claim).unwrap_or(now);
        tx.execute(
            "UPDATE outbox SET claimed_ms = ?2 WHERE id = ?1",
            params![id, ts_ms(until)],
        )
        .doing(&path, "claiming an alert message")?;
        tx.commit().doing(&path, "claiming an alert message")?;
        let sql = format!("SELECT {MESSAGE_COLUMNS} FROM outbox WHERE id = ?1");
        Ok(self
            .messages("reading a claimed alert message", &sql, &[&id])?
            .pop())
    }

    fn outbox_settle(&mut self, id: i64, at: Timestamp, outcome: &Settle) -> Result<()> {
        let path = self.path.clone();
        let (state, next, error) = match outcome {
            Settle::Delivered => (MessageState::Delivered, at, None),
            Settle::Retry { next, error } => (MessageState::Pending, *next, Some(error.as_str())),
            Settle::Failed { error } => (MessageState::Failed, at, Some(error.as_str())),
        };
        self.conn
            .execute(
                "UPDATE outbox SET state = ?2, next_ms = ?3, claimed_ms = NULL,
                        attempts = attempts + 1, last_error = ?4, tried_ms = ?5
                 WHERE id = ?1 AND state = 'pending'",
                params![id, state.as_str(), ts_ms(next), error, ts_ms(at)],
            )
            .doing(&path, "recording an alert's delivery")?;
        Ok(())
    }

    fn outbox_next_due(&self) -> Result<Option<Timestamp>> {
        let path = self.path.clone();
        let ms: Option<i64> = self
            .conn
            .query_row(
                "SELECT min(max(next_ms, COALESCE(claimed_ms, 0))) FROM outbox
                 WHERE state = 'pending'",
                [],
                |r| r.get(0),
            )
            .doing(&path, "reading when the next alert is due")?;
        Ok(ms.and_then(ms_ts))
    }

    fn outbox_messages(
        &self,
        state: MessageState,
        rule: Option<&str>,
    ) -> Result<Vec<OutboxMessage>> {
        let sql = format!(
            "SELECT {MESSAGE_COLUMNS} FROM outbox
             WHERE state = ?1 AND (?2 IS NULL OR rule = ?2) ORDER BY id"
        );
        self.messages("reading alert messages", &sql, &[&state.as_str(), &rule])
    }

    fn outbox_digest(&mut self, parts: &[i64], digest: &Outgoing, at: Timestamp) -> Result<bool> {
        let path = self.path.clone();
        let body = body_of(&path, digest)?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .doing(&path, "making a digest")?;
        let id: i64 = tx
            .query_row(
                "INSERT INTO outbox (delivery, rule, state, created_ms, next_ms, body)
                 VALUES (?1, ?2, 'pending', ?3, ?3, ?4) RETURNING id",
                params![digest.delivery, digest.rule, ts_ms(at), body],
                |r| r.get(0),
            )
            .doing(&path, "making a digest")?;
        for part in parts {
            let n = tx
                .execute(
                    "UPDATE outbox SET state = 'digested', digest = ?2
                     WHERE id = ?1 AND state = 'held'",
                    params![part, id],
                )
                .doing(&path, "making a digest")?;
            if n == 0 {
                return Ok(false);
            }
        }
        tx.commit().doing(&path, "making a digest")?;
        Ok(true)
    }

    fn outbox_last_digest(&self, rule: &str) -> Result<Option<Timestamp>> {
        let path = self.path.clone();
        let ms: Option<i64> = self
            .conn
            .query_row(
                "SELECT max(created_ms) FROM outbox WHERE rule = ?1 AND repo IS NULL",
                [rule],
                |r| r.get(0),
            )
            .doing(&path, "reading the last digest")?;
        Ok(ms.and_then(ms_ts))
    }

    fn outbox_status(&self) -> Result<Vec<RuleOutbox>> {
        let path = self.path.clone();
        let doing = "reading the outbox";
        let mut stmt = self
            .conn
            .prepare("SELECT rule, state, count(*) FROM outbox GROUP BY rule, state")
            .doing(&path, doing)?;
        let counts = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .doing(&path, doing)?
            .collect::<std::result::Result<Vec<_>, _>>()
            .doing(&path, doing)?;
        let mut stmt = self
            .conn
            .prepare(
                "SELECT o.rule, o.last_error FROM outbox o
                 WHERE o.id = (SELECT id FROM outbox WHERE rule = o.rule
                               AND last_error IS NOT NULL ORDER BY tried_ms DESC, id DESC LIMIT 1)",
            )
            .doing(&path, doing)?;
        let errors = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .doing(&path, doing)?
            .collect::<std::result::Result<Vec<_>, _>>()
            .doing(&path, doing)?;
        Ok(rule_counts(counts, errors))
    }
}
