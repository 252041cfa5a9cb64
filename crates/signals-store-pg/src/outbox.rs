//! The outbox of alerts on PostgreSQL (`signals_store::Outbox`; the types
//! and row decoding are `signals_store::outbox`'s), with this backend's
//! SQL (`0003_outbox.sql`). Several workers share it: a claim picks its
//! row `FOR UPDATE SKIP LOCKED`, so each message is taken by one worker and
//! the others pass over it without waiting.
//!
//! Times are the senders' clocks in milliseconds, as the backoff that sets
//! `next_ms` is computed by the sender; workers' clocks are assumed kept
//! by NTP, as the order of runs already assumes.

use jiff::{SignedDuration, Timestamp};
use postgres::Transaction;
use signals_core::notify::Outgoing;
use signals_store::outbox::{
    MESSAGE_COLUMNS, MessageRow, MessageState, Outbox, OutboxMessage, RuleOutbox, Settle, body_of,
    message_from, ms_ts, rule_counts, ts_ms,
};
use signals_store::{RepoKey, Result};

use crate::PgStore;

fn row(r: &postgres::Row) -> MessageRow {
    (
        r.get(0),
        r.get(1),
        r.get(2),
        r.get(3),
        r.get(4),
        r.get(5),
        r.get(6),
        r.get(7),
    )
}

impl PgStore {
    /// Writes a run's messages inside its commit transaction.
    pub(crate) fn store_messages(
        &self,
        tx: &mut Transaction<'_>,
        repo: RepoKey,
        run: i64,
        at: Timestamp,
        messages: &[Outgoing],
    ) -> Result<()> {
        let path = self.path();
        for m in messages {
            let state = if m.held {
                MessageState::Held
            } else {
                MessageState::Pending
            };
            tx.execute(
                "INSERT INTO outbox (delivery, rule, repo, run, state, created_ms, next_ms, body)
                 VALUES ($1, $2, $3, $4, $5, $6, $6, $7)",
                &[
                    &m.delivery,
                    &m.rule,
                    &repo.raw(),
                    &run,
                    &state.as_str(),
                    &ts_ms(at),
                    &body_of(&path, m)?,
                ],
            )
            .map_err(self.err("storing an alert message"))?;
        }
        Ok(())
    }
}

impl Outbox for PgStore {
    fn outbox_claim(
        &mut self,
        now: Timestamp,
        claim: SignedDuration,
    ) -> Result<Option<OutboxMessage>> {
        let until = ts_ms(now.saturating_add(claim).unwrap_or(now));
        let sql = format!(
            "UPDATE outbox SET claimed_ms = $2 WHERE id = (
                 SELECT id FROM outbox
                 WHERE state = 'pending' AND next_ms <= $1
                   AND (claimed_ms IS NULL OR claimed_ms <= $1)
                 ORDER BY next_ms, id LIMIT 1
                 FOR UPDATE SKIP LOCKED)
             RETURNING {MESSAGE_COLUMNS}"
        );
        let found = self.query_opt("claiming an alert message", &sql, &[&ts_ms(now), &until])?;
        found
            .map(|r| message_from(&self.path(), row(&r)))
            .transpose()
    }

    fn outbox_settle(&mut self, id: i64, at: Timestamp, outcome: &Settle) -> Result<()> {
        let (state, next, error) = match outcome {
            Settle::Delivered => (MessageState::Delivered, at, None),
            Settle::Retry { next, error } => (MessageState::Pending, *next, Some(error.as_str())),
            Settle::Failed { error } => (MessageState::Failed, at, Some(error.as_str())),
        };
        self.execute(
            "recording an alert's delivery",
            "UPDATE outbox SET state = $2, next_ms = $3, claimed_ms = NULL,
                    attempts = attempts + 1, last_error = $4, tried_ms = $5
             WHERE id = $1 AND state = 'pending'",
            &[&id, &state.as_str(), &ts_ms(next), &error, &ts_ms(at)],
        )?;
        Ok(())
    }

    fn outbox_next_due(&self) -> Result<Option<Timestamp>> {
        let ms: Option<i64> = self
            .query_opt(
                "reading when the next alert is due",
                "SELECT min(greatest(next_ms, COALESCE(claimed_ms, 0))) FROM outbox
                 WHERE state = 'pending'",
                &[],
            )?
            .and_then(|r| r.get(0));
        Ok(ms.and_then(ms_ts))
    }

    fn outbox_messages(
        &self,
        state: MessageState,
        rule: Option<&str>,
    ) -> Result<Vec<OutboxMessage>> {
        let sql = format!(
            "SELECT {MESSAGE_COLUMNS} FROM outbox
             WHERE state = $1 AND ($2::text IS NULL OR rule = $2) ORDER BY id"
        );
        let path = self.path();
        self.query("reading alert messages", &sql, &[&state.as_str(), &rule])?
            .iter()
            .map(|r| message_from(&path, row(r)))
            .collect()
    }

    fn outbox_digest(&mut self, parts: &[i64], digest: &Outgoing, at: Timestamp) -> Result<bool> {
        let body = body_of(&self.path(), digest)?;
        let err = self.err("making a digest");
        self.retrying(|client, _| {
            let mut tx = client.transaction().map_err(&err)?;
            let id: i64 = tx
                .query_one(
                    "INSERT INTO outbox (delivery, rule, state, created_ms, next_ms, body)
                     VALUES ($1, $2, 'pending', $3, $3, $4)
                     RETURNING id",
                    &[&digest.delivery, &digest.rule, &ts_ms(at), &body],
                )
                .map_err(&err)?
                .get(0);
            let n = tx
                .execute(
                    "UPDATE outbox SET state = 'digested', digest = $2
                     WHERE id = ANY($1) AND state = 'held'",
                    &[&parts, &id],
                )
                .map_err(&err)?;
            if n != parts.len() as u64 {
                // Another worker digested some of them: leave it to it.
                return Ok(false);
            }
            tx.commit().map_err(&err)?;
            Ok(true)
        })
    }

    fn outbox_last_digest(&self, rule: &str) -> Result<Option<Timestamp>> {
        let ms: Option<i64> = self
            .query_opt(
                "reading the last digest",
                "SELECT max(created_ms) FROM outbox WHERE rule = $1 AND repo IS NULL",
                &[&rule],
            )?
            .and_then(|r| r.get(0));
        Ok(ms.and_then(ms_ts))
    }

    fn outbox_status(&self) -> Result<Vec<RuleOutbox>> {
        let doing = "reading the outbox";
        let counts = self
            .query(
                doing,
                "SELECT rule, state, count(*) FROM outbox GROUP BY rule, state",
                &[],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect();
        let errors = self
            .query(
                doing,
                "SELECT DISTINCT ON (rule) rule, last_error FROM outbox
                 WHERE last_error IS NOT NULL ORDER BY rule, tried_ms DESC, id DESC",
                &[],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        Ok(rule_counts(counts, errors))
    }
}
