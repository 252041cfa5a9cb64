//! The texts of runs on PostgreSQL: each distinct text stored once, by
//! its hash, inserted before the run's transaction in one fixed order
//! (ARCHITECTURE.md, "Texts under concurrent commits").

use std::collections::{BTreeMap, HashMap};

use postgres::{Client, GenericClient, Transaction};
use signals_store::{Parts, RepoKey, Result};

use crate::PgStore;

impl PgStore {
    /// Stores the run's texts not stored yet, as a statement of their own.
    /// A worker writes them only while its lease holds, so a worker that
    /// stalled past it leaves nothing behind.
    pub(crate) fn insert_texts(&self, repo: RepoKey, texts: &Texts<'_>) -> Result<()> {
        let err = self.err("storing texts");
        let lease = self
            .lease
            .borrow()
            .clone()
            .filter(|(leased, _, _)| *leased == repo.raw())
            .map(|(leased, worker, _)| (leased, worker));
        self.retrying(|client, _| texts.insert_missing(client, lease.as_ref()).map_err(&err))
    }
}

/// The distinct texts of a run, by hash (so always in one order).
///
/// Two commits that share texts cannot deadlock on them: each inserts its
/// new texts in one statement, in hash order, as its own short transaction
/// before the run's; a commit's transaction then only reads their ids
/// (inserting again, in the same order and statement, only a text a purge
/// deleted in between). Inserts that wait on each other's uncommitted rows
/// all take them in ascending hash order, so no two wait in a cycle.
pub(crate) struct Texts<'a>(BTreeMap<[u8; 32], &'a str>);

impl<'a> Texts<'a> {
    pub(crate) fn of(parts: impl Iterator<Item = &'a Parts>) -> Texts<'a> {
        Texts(
            parts
                .flat_map(|p| p.texts())
                .map(|t| (Parts::hash(t), t))
                .collect(),
        )
    }

    /// Inserts those of `texts` not stored yet, in hash order, in one
    /// statement; returns the ids it inserted by hash.
    fn insert<C: GenericClient>(
        client: &mut C,
        texts: &[(&[u8; 32], &str)],
    ) -> std::result::Result<Vec<([u8; 32], i64)>, postgres::Error> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let hashes: Vec<&[u8]> = texts.iter().map(|(h, _)| h.as_slice()).collect();
        let bodies: Vec<&str> = texts.iter().map(|(_, t)| *t).collect();
        let rows = client.query(
            "INSERT INTO texts (hash, text)
             SELECT u.hash, u.text FROM unnest($1::bytea[], $2::text[]) AS u(hash, text)
             WHERE NOT EXISTS (SELECT 1 FROM texts t WHERE t.hash = u.hash)
             ORDER BY u.hash
             ON CONFLICT (hash) DO NOTHING
             RETURNING hash, id",
            &[&hashes, &bodies],
        )?;
        Ok(rows.iter().map(|r| (hash_of(r.get(0)), r.get(1))).collect())
    }

    /// Stores the texts not stored yet, as one statement of its own; with a
    /// lease (repository, worker), only while it is still held.
    fn insert_missing(
        &self,
        client: &mut Client,
        lease: Option<&(i64, String)>,
    ) -> std::result::Result<(), postgres::Error> {
        if let Some((repo, worker)) = lease {
            let held = client.query_opt(
                "SELECT 1 FROM leases WHERE repo = $1 AND worker = $2 AND lease_until > now()",
                &[repo, worker],
            )?;
            if held.is_none() {
                // The commit will be refused (`LeaseLost`).
                return Ok(());
            }
        }
        let all: Vec<_> = self.0.iter().map(|(h, t)| (h, *t)).collect();
        Texts::insert(client, &all).map(drop)
    }

    /// The ids of all the texts, inside the run's transaction; a text a
    /// purge removed since [`Texts::insert_missing`] is stored again.
    pub(crate) fn resolve(
        &self,
        tx: &mut Transaction<'_>,
    ) -> std::result::Result<HashMap<[u8; 32], i64>, postgres::Error> {
        if self.0.is_empty() {
            return Ok(HashMap::new());
        }
        let hashes: Vec<&[u8]> = self.0.keys().map(|h| h.as_slice()).collect();
        let mut ids: HashMap<[u8; 32], i64> = tx
            .query(
                "SELECT hash, id FROM texts WHERE hash = ANY($1)",
                &[&hashes],
            )?
            .iter()
            .map(|r| (hash_of(r.get(0)), r.get(1)))
            .collect();
        let missing: Vec<_> = self
            .0
            .iter()
            .filter(|(h, _)| !ids.contains_key(*h))
            .map(|(h, t)| (h, *t))
            .collect();
        ids.extend(Texts::insert(tx, &missing)?);
        // A text another commit inserted meanwhile was skipped by the insert
        // (it waited for that commit): read its id now that it is there.
        let late: Vec<&[u8]> = missing
            .iter()
            .filter(|(h, _)| !ids.contains_key(*h))
            .map(|(h, _)| h.as_slice())
            .collect();
        if !late.is_empty() {
            for r in tx.query("SELECT hash, id FROM texts WHERE hash = ANY($1)", &[&late])? {
                ids.insert(hash_of(r.get(0)), r.get(1));
            }
        }
        Ok(ids)
    }
}

fn hash_of(bytes: &[u8]) -> [u8; 32] {
    let mut hash = [0; 32];
    let n = bytes.len().min(32);
    hash[..n].copy_from_slice(&bytes[..n]);
    hash
}
