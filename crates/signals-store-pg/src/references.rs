//! References on PostgreSQL: what a run's commit writes to
//! `item_keys`, `item_refs` and `reference_marks` (the SQLite store's
//! `references.rs` does the same), the reads of [`ReferenceReads`] (a
//! page of ids in one statement each way), and migration 0011's Rust
//! step, which fills them from the stored bodies.
//!
//! Marks are only ever inserted, each under its own new key (the
//! committing run's id), so two commits never wait on each other there.

use std::collections::{BTreeSet, HashMap};

use postgres::Transaction;
use signals_core::references::{BODY, of_text};
use signals_store::references::{Linked, Links, ReferenceReads, SharedItem};
use signals_store::{RepoKey, Result, RunCommit, StoreError, head_title_url};

use crate::PgStore;

impl PgStore {
    /// Writes what the run's references say: each (item, text) pair's
    /// keys replaced where they changed, each item's own key set where it
    /// changed, a mark of run `run` for every repository whose items
    /// gained or lost a link by it.
    pub(crate) fn store_references(
        &self,
        tx: &mut Transaction<'_>,
        repo: i64,
        run: i64,
        commit: &RunCommit,
    ) -> Result<()> {
        let err = self.err("storing an item's references");
        let mut moved: BTreeSet<String> = BTreeSet::new();
        let mut named: BTreeSet<String> = BTreeSet::new();
        for r in &commit.references {
            let select = self
                .prep(tx, "SELECT id FROM items WHERE repo = $1 AND item_id = $2")
                .map_err(&err)?;
            let item: i64 = tx
                .query_opt(&select, &[&repo, &r.item_id])
                .map_err(&err)?
                .ok_or_else(|| StoreError::InvalidRun {
                    repo: commit.context.repository.to_string(),
                    at: commit.record.collected_at,
                    problem: format!(
                        "its references of {} name an item with no snapshot; pass the \
                         item's snapshot with the run",
                        r.item_id
                    ),
                })?
                .get(0);
            if let Some(own) = &r.own {
                let select = self
                    .prep(tx, "SELECT key FROM item_keys WHERE item = $1")
                    .map_err(&err)?;
                let old: Option<String> = tx
                    .query_opt(&select, &[&item])
                    .map_err(&err)?
                    .map(|row| row.get(0));
                if old.as_deref() != Some(own) {
                    let upsert = self
                        .prep(
                            tx,
                            "INSERT INTO item_keys (item, key) VALUES ($1, $2)
                             ON CONFLICT (item) DO UPDATE SET key = excluded.key",
                        )
                        .map_err(&err)?;
                    tx.execute(&upsert, &[&item, own]).map_err(&err)?;
                    named.insert(own.clone());
                    named.extend(old);
                }
            }
            let select = self
                .prep(
                    tx,
                    "SELECT target FROM item_refs WHERE item = $1 AND via = $2",
                )
                .map_err(&err)?;
            let old: BTreeSet<String> = tx
                .query(&select, &[&item, &r.text])
                .map_err(&err)?
                .iter()
                .map(|row| row.get(0))
                .collect();
            let new: BTreeSet<String> = r.targets.iter().cloned().collect();
            let gone: Vec<&String> = old.difference(&new).collect();
            let added: Vec<&String> = new.difference(&old).collect();
            if !gone.is_empty() {
                let delete = self
                    .prep(
                        tx,
                        "DELETE FROM item_refs WHERE item = $1 AND via = $2 AND target = ANY($3)",
                    )
                    .map_err(&err)?;
                tx.execute(&delete, &[&item, &r.text, &gone])
                    .map_err(&err)?;
            }
            if !added.is_empty() {
                let insert = self
                    .prep(
                        tx,
                        "INSERT INTO item_refs (item, via, target, repo)
                         SELECT $1, $2, t, $4 FROM unnest($3::text[]) AS t",
                    )
                    .map_err(&err)?;
                tx.execute(&insert, &[&item, &r.text, &added, &repo])
                    .map_err(&err)?;
            }
            moved.extend(gone.into_iter().chain(added).cloned());
        }
        if moved.is_empty() && named.is_empty() {
            return Ok(());
        }
        let (moved, named): (Vec<String>, Vec<String>) =
            (moved.into_iter().collect(), named.into_iter().collect());
        tx.execute(
            "INSERT INTO reference_marks (repo, run)
             SELECT DISTINCT i.repo, $3::bigint FROM item_keys k JOIN items i ON i.id = k.item
             WHERE k.key = ANY($1)
             UNION
             SELECT DISTINCT r.repo, $3::bigint FROM item_refs r WHERE r.target = ANY($2)
             ORDER BY 1
             ON CONFLICT DO NOTHING",
            &[&moved, &named, &run],
        )
        .map_err(&err)?;
        Ok(())
    }
}

// Both reads find the page's items first, by their keys, as a set the
// planner cannot fold into the join (`MATERIALIZED`), and join from that
// set of at most a page of rows. Left to plan the whole join, on a store
// whose tables had not been analyzed yet (right after a first
// collection), the planner started from the other end: every item of the
// group, then their references, about 4 ms a statement at 10,000 items,
// growing with every item stored.

/// The page's items: `s` (id, signal id, group) of the signal ids `$2` of
/// repository `$1`, the set both reads start from.
macro_rules! page_items {
    () => {
        "WITH s AS MATERIALIZED (
        SELECT si.id, si.item_id, sp.group_id
        FROM items si JOIN repositories sp ON sp.key = si.repo
        WHERE si.repo = $1 AND si.item_id = ANY($2))
    "
    };
}

/// The items each of `$2` (signal ids of repository `$1`) names, within
/// the group of its repository.
const REFERENCES: &str = concat!(
    page_items!(),
    "SELECT DISTINCT s.item_id, ti.item_id, ti.repo
    FROM s
    JOIN item_refs r ON r.item = s.id
    JOIN item_keys k ON k.key = r.target
    JOIN items ti ON ti.id = k.item
    JOIN repositories tp ON tp.key = ti.repo
    WHERE tp.group_id = s.group_id AND ti.id <> s.id
    ORDER BY 1, 2"
);

/// The items naming each of `$2`, within the group of its repository.
const REFERENCED_BY: &str = concat!(
    page_items!(),
    "SELECT DISTINCT s.item_id, fi.item_id, fi.repo
    FROM s
    JOIN item_keys k ON k.item = s.id
    JOIN item_refs r ON r.target = k.key
    JOIN items fi ON fi.id = r.item
    JOIN repositories fp ON fp.key = fi.repo
    WHERE fp.group_id = s.group_id AND fi.id <> s.id
    ORDER BY 1, 2"
);

impl ReferenceReads for PgStore {
    fn links_of(&self, repo: RepoKey, ids: &[String]) -> Result<HashMap<String, Links>> {
        let doing = "reading the references of items";
        let mut out: HashMap<String, Links> = HashMap::new();
        for (sql, outgoing) in [(REFERENCES, true), (REFERENCED_BY, false)] {
            for row in self.query(doing, sql, &[&repo.raw(), &ids])? {
                let linked = Linked {
                    id: row.get(1),
                    repo: RepoKey::from_raw(row.get(2)),
                };
                let links = out.entry(row.get(0)).or_default();
                if outgoing {
                    links.references.push(linked);
                } else {
                    links.referenced_by.push(linked);
                }
            }
        }
        Ok(out)
    }

    fn shared_items(&self, group: &str, min_repos: usize, limit: usize) -> Result<Vec<SharedItem>> {
        let rows = self.query(
            "reading the items a group shares",
            "SELECT ti.item_id, ti.repo, array_agg(DISTINCT r.repo ORDER BY r.repo)
             FROM repositories fp
             JOIN item_refs r ON r.repo = fp.key
             JOIN item_keys k ON k.key = r.target
             JOIN items ti ON ti.id = k.item
             JOIN repositories tp ON tp.key = ti.repo
             WHERE fp.group_id = $1 AND tp.group_id = $1 AND r.repo <> ti.repo
             GROUP BY ti.id, ti.item_id, ti.repo
             HAVING count(DISTINCT r.repo) >= $2
             ORDER BY count(DISTINCT r.repo) DESC, ti.item_id
             LIMIT $3",
            &[&group, &(min_repos as i64), &(limit as i64)],
        )?;
        Ok(rows
            .iter()
            .map(|r| SharedItem {
                item: Linked {
                    id: r.get(0),
                    repo: RepoKey::from_raw(r.get(1)),
                },
                from: r
                    .get::<_, Vec<i64>>(2)
                    .into_iter()
                    .map(RepoKey::from_raw)
                    .collect(),
            })
            .collect())
    }

    fn references_mark(&self, repo: RepoKey) -> Result<i64> {
        Ok(self
            .query_opt(
                "reading a repository's reference mark",
                "SELECT coalesce(max(run), 0) FROM reference_marks WHERE repo = $1",
                &[&repo.raw()],
            )?
            .map(|r| r.get(0))
            .unwrap_or(0))
    }
}

/// Items read per batch by [`migrate`].
const BACKFILL_BATCH: i64 = 1000;

/// Migration 0011's Rust step: each item's latest body parsed, its keys
/// and own key stored, a batch of items at a time (memory stays flat).
/// No marks: every repository is rendered after an upgrade.
pub(crate) fn migrate(store: &PgStore, tx: &mut Transaction<'_>) -> Result<()> {
    let err = store.err("filling in the references of stored items (0011)");
    let path = store.path();
    let mut after = 0i64;
    loop {
        let batch = tx
            .query(
                "SELECT i.id, i.repo, i.item_id, h.text, b.text FROM items i
                 JOIN snapshots s ON s.id = i.latest
                 JOIN texts h ON h.id = s.head JOIN texts b ON b.id = s.body
                 WHERE i.id > $1 ORDER BY i.id LIMIT $2",
                &[&after, &BACKFILL_BATCH],
            )
            .map_err(&err)?;
        let Some(last) = batch.last() else {
            return Ok(());
        };
        after = last.get(0);
        let (mut key_items, mut keys) = (Vec::<i64>::new(), Vec::<String>::new());
        let (mut ref_items, mut targets, mut repos) = (Vec::new(), Vec::new(), Vec::new());
        for row in &batch {
            let (item, repo): (i64, i64) = (row.get(0), row.get(1));
            let url = head_title_url(&path, row.get(3))?.url;
            let refs = of_text(row.get(2), &url, BODY, row.get(4));
            if let Some(own) = refs.own {
                key_items.push(item);
                keys.push(own);
            }
            for target in refs.targets {
                ref_items.push(item);
                targets.push(target);
                repos.push(repo);
            }
        }
        tx.execute(
            "INSERT INTO item_keys (item, key) SELECT * FROM unnest($1::bigint[], $2::text[])",
            &[&key_items, &keys],
        )
        .map_err(&err)?;
        tx.execute(
            "INSERT INTO item_refs (item, via, target, repo)
             SELECT u.item, $4, u.target, u.repo
             FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS u(item, target, repo)",
            &[&ref_items, &targets, &repos, &BODY],
        )
        .map_err(&err)?;
    }
}
