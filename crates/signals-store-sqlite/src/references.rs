//! References on SQLite: what a run's commit writes to
//! `item_keys`, `item_refs` and `reference_marks`, the reads of
//! [`ReferenceReads`], and migration 0012's Rust step, which fills them
//! from the stored bodies.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use rusqlite::{OptionalExtension, Transaction, params};
use signals_core::references::{BODY, of_text};
use signals_store::references::{Linked, Links, ReferenceReads, SharedItem};
use signals_store::{RepoKey, Result, RunCommit, StoreError, head_title_url};

use crate::Store;
use crate::error::DbContext;

/// Writes what `refs` say of the run's items: each (item, text) pair's
/// keys replaced where they changed, each item's own key set where it
/// changed, and a mark of run `run` for every repository whose items
/// gained or lost a link by it. Indexed reads and writes per entry.
pub(crate) fn store_references(
    tx: &Transaction<'_>,
    path: &Path,
    repo: i64,
    run: i64,
    commit: &RunCommit,
) -> Result<()> {
    let doing = "storing an item's references";
    let mut moved: BTreeSet<String> = BTreeSet::new();
    for r in &commit.references {
        let Some((item, _)) = crate::snapshots::item_row(tx, path, repo, &r.item_id)? else {
            return Err(StoreError::InvalidRun {
                repo: commit.context.repository.to_string(),
                at: commit.record.collected_at,
                problem: format!(
                    "its references of {} name an item with no snapshot; pass the \
                     item's snapshot with the run",
                    r.item_id
                ),
            });
        };
        if let Some(own) = &r.own {
            let old: Option<String> = tx
                .prepare_cached("SELECT key FROM item_keys WHERE item = ?1")
                .doing(path, doing)?
                .query_row([item], |row| row.get(0))
                .optional()
                .doing(path, doing)?;
            if old.as_deref() != Some(own) {
                tx.prepare_cached(
                    "INSERT INTO item_keys (item, key) VALUES (?1, ?2)
                     ON CONFLICT (item) DO UPDATE SET key = excluded.key",
                )
                .doing(path, doing)?
                .execute(params![item, own])
                .doing(path, doing)?;
                mark_naming(tx, path, own, run)?;
                if let Some(old) = old {
                    mark_naming(tx, path, &old, run)?;
                }
            }
        }
        let old: BTreeSet<String> = tx
            .prepare_cached("SELECT target FROM item_refs WHERE item = ?1 AND via = ?2")
            .doing(path, doing)?
            .query_map(params![item, r.text], |row| row.get(0))
            .doing(path, doing)?
            .collect::<rusqlite::Result<_>>()
            .doing(path, doing)?;
        let new: BTreeSet<String> = r.targets.iter().cloned().collect();
        for gone in old.difference(&new) {
            tx.prepare_cached("DELETE FROM item_refs WHERE item = ?1 AND via = ?2 AND target = ?3")
                .doing(path, doing)?
                .execute(params![item, r.text, gone])
                .doing(path, doing)?;
            moved.insert(gone.clone());
        }
        for added in new.difference(&old) {
            tx.prepare_cached(
                "INSERT INTO item_refs (item, via, target, repo) VALUES (?1, ?2, ?3, ?4)",
            )
            .doing(path, doing)?
            .execute(params![item, r.text, added, repo])
            .doing(path, doing)?;
            moved.insert(added.clone());
        }
    }
    for key in &moved {
        tx.prepare_cached(
            "INSERT INTO reference_marks (repo, run)
             SELECT DISTINCT i.repo, ?2 FROM item_keys k JOIN items i ON i.id = k.item
             WHERE k.key = ?1
             ON CONFLICT DO NOTHING",
        )
        .doing(path, doing)?
        .execute(params![key, run])
        .doing(path, doing)?;
    }
    Ok(())
}

/// Marks the repositories of the items whose texts name `key`.
fn mark_naming(tx: &Transaction<'_>, path: &Path, key: &str, run: i64) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO reference_marks (repo, run)
         SELECT DISTINCT repo, ?2 FROM item_refs WHERE target = ?1
         ON CONFLICT DO NOTHING",
    )
    .doing(path, "marking the repositories naming an item")?
    .execute(params![key, run])
    .doing(path, "marking the repositories naming an item")?;
    Ok(())
}

/// The items each of `?2` (a JSON array of ids) names, within the group
/// of its repository: one statement for a page of items.
const REFERENCES: &str = "SELECT DISTINCT si.item_id, ti.item_id, ti.repo
    FROM json_each(?2) w
    CROSS JOIN items si ON si.repo = ?1 AND si.item_id = w.value
    JOIN repositories sp ON sp.key = si.repo
    JOIN item_refs r ON r.item = si.id
    JOIN item_keys k ON k.key = r.target
    JOIN items ti ON ti.id = k.item
    JOIN repositories tp ON tp.key = ti.repo
    WHERE tp.group_id = sp.group_id AND ti.id <> si.id
    ORDER BY 1, 2";

/// The items naming each of `?2`, within the group of its repository.
const REFERENCED_BY: &str = "SELECT DISTINCT si.item_id, fi.item_id, fi.repo
    FROM json_each(?2) w
    CROSS JOIN items si ON si.repo = ?1 AND si.item_id = w.value
    JOIN repositories sp ON sp.key = si.repo
    JOIN item_keys k ON k.item = si.id
    JOIN item_refs r ON r.target = k.key
    JOIN items fi ON fi.id = r.item
    JOIN repositories fp ON fp.key = fi.repo
    WHERE fp.group_id = sp.group_id AND fi.id <> si.id
    ORDER BY 1, 2";

impl ReferenceReads for Store {
    fn links_of(&self, repo: RepoKey, ids: &[String]) -> Result<HashMap<String, Links>> {
        let (path, doing) = (self.path(), "reading the references of items");
        let mut out: HashMap<String, Links> = HashMap::new();
        if ids.is_empty() {
            return Ok(out);
        }
        let asked = crate::read::ids_json(path, ids)?;
        for (sql, outgoing) in [(REFERENCES, true), (REFERENCED_BY, false)] {
            let mut stmt = self.conn.prepare_cached(sql).doing(path, doing)?;
            let rows = stmt
                .query_map(params![repo.raw(), asked], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        Linked {
                            id: r.get(1)?,
                            repo: RepoKey::from_raw(r.get(2)?),
                        },
                    ))
                })
                .doing(path, doing)?;
            for row in rows {
                let (id, linked) = row.doing(path, doing)?;
                let links = out.entry(id).or_default();
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
        let (path, doing) = (self.path(), "reading the items a group shares");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT ti.item_id, ti.repo, group_concat(DISTINCT r.repo)
                 FROM repositories fp
                 JOIN item_refs r ON r.repo = fp.key
                 JOIN item_keys k ON k.key = r.target
                 JOIN items ti ON ti.id = k.item
                 JOIN repositories tp ON tp.key = ti.repo
                 WHERE fp.group_id = ?1 AND tp.group_id = ?1 AND r.repo <> ti.repo
                 GROUP BY ti.id
                 HAVING count(DISTINCT r.repo) >= ?2
                 ORDER BY count(DISTINCT r.repo) DESC, ti.item_id
                 LIMIT ?3",
            )
            .doing(path, doing)?;
        let rows = stmt
            .query_map(params![group, min_repos as i64, limit as i64], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .doing(path, doing)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .doing(path, doing)?;
        rows.into_iter()
            .map(|(id, repo, from)| {
                let mut from: Vec<RepoKey> = from
                    .split(',')
                    .map(|k| {
                        k.parse()
                            .map(RepoKey::from_raw)
                            .map_err(|_| StoreError::Corrupt {
                                path: path.to_path_buf(),
                                what: format!("item_refs.repo {k:?} is not a repository key"),
                            })
                    })
                    .collect::<Result<_>>()?;
                from.sort();
                Ok(SharedItem {
                    item: Linked {
                        id,
                        repo: RepoKey::from_raw(repo),
                    },
                    from,
                })
            })
            .collect()
    }

    fn references_mark(&self, repo: RepoKey) -> Result<i64> {
        let (path, doing) = (self.path(), "reading a repository's reference mark");
        self.conn
            .prepare_cached("SELECT coalesce(max(run), 0) FROM reference_marks WHERE repo = ?1")
            .doing(path, doing)?
            .query_row([repo.raw()], |r| r.get(0))
            .doing(path, doing)
    }
}

/// Items read per batch by [`migrate_0012`].
const BACKFILL_BATCH: i64 = 1000;

/// Migration 0012's Rust step: each item's latest body parsed, its keys
/// and own key stored (a batch of items at a time, so memory stays
/// flat). No marks: every repository is rendered after an upgrade.
pub(crate) fn migrate_0012(tx: &Transaction<'_>, path: &Path) -> Result<()> {
    let doing = "filling in the references of stored items";
    let mut after = 0i64;
    loop {
        let batch: Vec<(i64, i64, String, String, String)> = tx
            .prepare(
                "SELECT i.id, i.repo, i.item_id, h.text, b.text FROM items i
                 JOIN snapshots s ON s.id = i.latest
                 JOIN texts h ON h.id = s.head JOIN texts b ON b.id = s.body
                 WHERE i.id > ?1 ORDER BY i.id LIMIT ?2",
            )
            .doing(path, doing)?
            .query_map(params![after, BACKFILL_BATCH], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .doing(path, doing)?
            .collect::<rusqlite::Result<_>>()
            .doing(path, doing)?;
        let Some(last) = batch.last() else {
            return Ok(());
        };
        after = last.0;
        for (item, repo, item_id, head, body) in batch {
            let url = head_title_url(path, &head)?.url;
            let refs = of_text(&item_id, &url, BODY, &body);
            if let Some(own) = &refs.own {
                tx.execute(
                    "INSERT INTO item_keys (item, key) VALUES (?1, ?2)",
                    params![item, own],
                )
                .doing(path, doing)?;
            }
            for target in &refs.targets {
                tx.execute(
                    "INSERT INTO item_refs (item, via, target, repo) VALUES (?1, ?2, ?3, ?4)",
                    params![item, BODY, target, repo],
                )
                .doing(path, doing)?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use signals_store::suite::{commit_referencing_items, links_of_items};

    use crate::Store;
    use crate::schema::MIGRATIONS;

    /// A store from before 0012 gets the references of its stored bodies
    /// when it is opened: the same links its runs would have written.
    #[test]
    fn migration_0012_fills_in_the_references_of_stored_bodies() {
        let dir = crate::tests::temp_dir("refs0012");
        let path = dir.join("signals.db");
        let mut store = Store::open(&path).unwrap();
        let items = commit_referencing_items(&mut store);
        let expected = links_of_items(&store, &items);
        assert_eq!(expected[0].references.len(), 2, "{expected:?}");
        assert_eq!(expected[0].referenced_by.len(), 1, "{expected:?}");
        // The store as the version before 0012 left it (and before 0013,
        // 0014 to 0017, 0019 to 0021).
        store
            .conn
            .execute_batch(
                "DROP TABLE lifecycle; DROP INDEX comments_by_time;
                 DROP TABLE repo_totals;
                 DROP TABLE item_keys; DROP TABLE item_refs; DROP TABLE reference_marks;
                 ALTER TABLE repositories DROP COLUMN open_pulls;
                 ALTER TABLE repositories DROP COLUMN open_pulls_differed;
                 DROP TABLE search_postings; DROP TABLE search_docs; DROP TABLE search_state;
                 DROP TABLE search_dirty;
                 DROP INDEX items_by_latest;
                 DROP TABLE run_stage_items; DROP TABLE run_stages;
                 DROP INDEX runs_reconciled;
                 DROP TABLE asset_downloads; DROP TABLE merges;
                 DROP TABLE related_profiles; DROP TABLE related_texts; DROP TABLE related_lists;
                 DROP TABLE related_state; DROP TABLE related_gone;
                 PRAGMA user_version = 11;",
            )
            .unwrap();
        drop(store);
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        assert_eq!(links_of_items(&store, &items), expected);
        let _ = std::fs::remove_dir_all(dir);
    }
}
