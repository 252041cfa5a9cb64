//! The outbox of alerts on SQLite (`0004_outbox.sql`): one process owns
//! the store, so a claim is a short `BEGIN IMMEDIATE` transaction.

use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use rusqlite::{OptionalExtension, TransactionBehavior, params};
use signals_core::notify::Outgoing;
use signals_store::outbox::{
    MESSAGE_COLUMNS, MessageRow, MessageState, Outbox, OutboxMessage, RuleOutbox, Settle, body_of,
    message_from, ms_ts, rule_counts, ts_ms,
};
use signals_store::{RepoKey, Result};

use crate::Store;
use crate::error::DbContext;

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
                repo.raw(),
                run,
                state.as_str(),
                ts_ms(at),
                body_of(path, m)?
            ])
            .doing(path, "storing an alert message")?;
    }
    Ok(())
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
