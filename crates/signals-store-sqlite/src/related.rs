//! Related items on SQLite: the reads and the one write of
//! [`RelatedStore`] over `related_profiles`, `related_texts`, `related_lists` and
//! `related_state` (migration 0022), and `related_gone` (0023), whose
//! marks a run's commit writes ([`mark_gone`]).

use std::collections::{BTreeSet, HashMap};

use rusqlite::{OptionalExtension, TransactionBehavior, params};
use std::path::Path;

use rusqlite::Transaction;
use signals_store::related::{
    Applied, GoneMark, Pending, RelatedEntry, RelatedStore, RelatedUpdate, StoredProfile,
    StoredVector,
};
use signals_store::{Linked, RepoKey, Result};

use crate::Store;
use crate::error::DbContext;

/// Marks the items `gone` of repository `repo` as no longer listed by
/// the host, at their latest snapshot (the one the run just wrote), in the
/// run's transaction `tx`; a mark of an earlier time is replaced. Nothing
/// is written when none is gone (a store opened before 0023 commits
/// runs that find none).
pub(crate) fn mark_gone(
    tx: &Transaction<'_>,
    path: &Path,
    repo: RepoKey,
    gone: &[String],
) -> Result<()> {
    let doing = "marking the items the host no longer lists";
    for id in gone {
        tx.prepare_cached(
            "INSERT INTO related_gone (repo, item_id, snapshot)
             SELECT repo, item_id, latest FROM items WHERE repo = ?1 AND item_id = ?2
             ON CONFLICT (repo, item_id) DO UPDATE SET snapshot = excluded.snapshot",
        )
        .doing(path, doing)?
        .execute(params![repo.raw(), id])
        .doing(path, doing)?;
    }
    Ok(())
}

/// The gone marks of `update`: those its `through` passed are cleared
/// (the catch-up read them, or their items were listed again and read
/// since), and a copy's are written as they are.
fn write_gone(tx: &Transaction<'_>, path: &Path, update: &RelatedUpdate) -> Result<()> {
    let doing = "writing related items";
    for (repo, through) in &update.through {
        tx.prepare_cached("DELETE FROM related_gone WHERE repo = ?1 AND snapshot <= ?2")
            .doing(path, doing)?
            .execute(params![repo.raw(), through])
            .doing(path, doing)?;
    }
    for m in &update.gone {
        tx.prepare_cached(
            "INSERT OR REPLACE INTO related_gone (repo, item_id, snapshot)
             VALUES (?1, ?2, ?3)",
        )
        .doing(path, doing)?
        .execute(params![m.item.repo.raw(), m.item.id, m.snapshot])
        .doing(path, doing)?;
    }
    Ok(())
}

/// An entry's columns from `at`: other repository, other id, score,
/// shared words, open.
fn entry_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<RelatedEntry> {
    let shared: String = r.get(at + 3)?;
    Ok(RelatedEntry {
        item: Linked {
            repo: RepoKey::from_raw(r.get(at)?),
            id: r.get(at + 1)?,
        },
        score: r.get(at + 2)?,
        shared: shared
            .split('\n')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect(),
        open: r.get::<_, Option<bool>>(at + 4)?.unwrap_or(false),
    })
}

/// A pending item from its row: repository, id, latest snapshot, marked
/// gone.
fn pending(r: &rusqlite::Row<'_>) -> rusqlite::Result<Pending> {
    Ok(Pending {
        item: Linked {
            repo: RepoKey::from_raw(r.get(0)?),
            id: r.get(1)?,
        },
        latest: r.get(2)?,
        gone: r.get(3)?,
    })
}

impl RelatedStore for Store {
    fn related_through(&self, repo: RepoKey) -> Result<i64> {
        let (path, doing) = (self.path(), "reading how far related items have read");
        Ok(self
            .conn
            .prepare_cached("SELECT through FROM related_state WHERE repo = ?1")
            .doing(path, doing)?
            .query_row([repo.raw()], |r| r.get(0))
            .optional()
            .doing(path, doing)?
            .unwrap_or(0))
    }

    fn related_throughs(&self, group: &str) -> Result<Vec<(RepoKey, i64)>> {
        let (path, doing) = (
            self.path(),
            "reading how far a group's related items have read",
        );
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT g.key, coalesce(s.through, 0) FROM repositories g
                 LEFT JOIN related_state s ON s.repo = g.key
                 WHERE g.group_id = ?1 ORDER BY g.key",
            )
            .doing(path, doing)?;
        let rows = stmt
            .query_map([group], |r| Ok((RepoKey::from_raw(r.get(0)?), r.get(1)?)))
            .doing(path, doing)?;
        rows.collect::<rusqlite::Result<_>>().doing(path, doing)
    }

    fn related_pending(&self, group: &str, after: i64, limit: usize) -> Result<Vec<Pending>> {
        let (path, doing) = (self.path(), "reading the items related items have not read");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT i.repo, i.item_id, i.latest, m.snapshot IS NOT NULL FROM repositories g
                 LEFT JOIN related_state s ON s.repo = g.key
                 JOIN items i ON i.repo = g.key AND i.latest > coalesce(s.through, 0)
                 LEFT JOIN related_gone m
                     ON m.repo = i.repo AND m.item_id = i.item_id AND m.snapshot = i.latest
                 WHERE g.group_id = ?1 AND i.latest > ?2
                     AND i.kind IN ('issue', 'pull_request', 'discussion')
                 ORDER BY i.latest LIMIT ?3",
            )
            .doing(path, doing)?;
        let rows = stmt
            .query_map(params![group, after, limit as i64], pending)
            .doing(path, doing)?;
        rows.collect::<rusqlite::Result<_>>().doing(path, doing)
    }

    fn related_pending_in(&self, repo: RepoKey, after: i64, limit: usize) -> Result<Vec<Pending>> {
        let (path, doing) = (self.path(), "reading the items related items have not read");
        // One lower bound, so the read is a range of `items_by_latest`.
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT i.repo, i.item_id, i.latest, m.snapshot IS NOT NULL FROM items i
                 LEFT JOIN related_gone m
                     ON m.repo = i.repo AND m.item_id = i.item_id AND m.snapshot = i.latest
                 WHERE i.repo = ?1
                     AND i.latest > max(?2,
                         coalesce((SELECT through FROM related_state WHERE repo = ?1), 0))
                     AND i.kind IN ('issue', 'pull_request', 'discussion')
                 ORDER BY i.latest LIMIT ?3",
            )
            .doing(path, doing)?;
        let rows = stmt
            .query_map(params![repo.raw(), after, limit as i64], pending)
            .doing(path, doing)?;
        rows.collect::<rusqlite::Result<_>>().doing(path, doing)
    }

    fn related_gone(&self, group: &str) -> Result<Vec<GoneMark>> {
        let (path, doing) = (self.path(), "reading the items marked gone");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT m.repo, m.item_id, m.snapshot
                 FROM repositories g JOIN related_gone m ON m.repo = g.key
                 WHERE g.group_id = ?1 ORDER BY m.repo, m.item_id",
            )
            .doing(path, doing)?;
        let rows = stmt
            .query_map([group], |r| {
                Ok(GoneMark {
                    item: Linked {
                        repo: RepoKey::from_raw(r.get(0)?),
                        id: r.get(1)?,
                    },
                    snapshot: r.get(2)?,
                })
            })
            .doing(path, doing)?;
        rows.collect::<rusqlite::Result<_>>().doing(path, doing)
    }

    fn related_vectors(&self, group: &str) -> Result<Vec<StoredVector>> {
        let (path, doing) = (self.path(), "reading a group's similarity vectors");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT p.repo, p.item_id, p.open, p.vector
                 FROM repositories g JOIN related_profiles p ON p.repo = g.key
                 WHERE g.group_id = ?1",
            )
            .doing(path, doing)?;
        let rows = stmt
            .query_map([group], |r| {
                Ok(StoredVector {
                    item: Linked {
                        repo: RepoKey::from_raw(r.get(0)?),
                        id: r.get(1)?,
                    },
                    open: r.get(2)?,
                    vector: r.get(3)?,
                })
            })
            .doing(path, doing)?;
        rows.collect::<rusqlite::Result<_>>().doing(path, doing)
    }

    fn related_profiles_of(&self, items: &[Linked]) -> Result<Vec<StoredProfile>> {
        let (path, doing) = (self.path(), "reading items' similarity profiles");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT p.open, t.profile, p.vector FROM related_profiles p
                 JOIN related_texts t ON t.repo = p.repo AND t.item_id = p.item_id
                 WHERE p.repo = ?1 AND p.item_id = ?2",
            )
            .doing(path, doing)?;
        let mut out = Vec::new();
        for item in items {
            let row = stmt
                .query_row(params![item.repo.raw(), item.id], |r| {
                    Ok(StoredProfile {
                        item: item.clone(),
                        open: r.get(0)?,
                        profile: r.get(1)?,
                        vector: r.get(2)?,
                    })
                })
                .optional()
                .doing(path, doing)?;
            out.extend(row);
        }
        Ok(out)
    }

    fn related_listing(&self, group: &str, items: &[Linked]) -> Result<Vec<Linked>> {
        let (path, doing) = (self.path(), "reading the lists naming items");
        let mut out = BTreeSet::new();
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT l.repo, l.item_id FROM related_lists l
                 JOIN repositories g ON g.key = l.repo
                 WHERE l.other_repo = ?1 AND l.other_id = ?2 AND g.group_id = ?3",
            )
            .doing(path, doing)?;
        for item in items {
            let rows = stmt
                .query_map(params![item.repo.raw(), item.id, group], |r| {
                    Ok(Linked {
                        repo: RepoKey::from_raw(r.get(0)?),
                        id: r.get(1)?,
                    })
                })
                .doing(path, doing)?;
            for row in rows {
                out.insert(row.doing(path, doing)?);
            }
        }
        Ok(out.into_iter().collect())
    }

    /// Holds nothing. The only lock that spans processes on SQLite is the
    /// file's write lock, and holding it over a catch-up's reads and
    /// computing would keep every other process's runs from committing
    /// for as long; one process writes a SQLite store at a time in
    /// practice (a collection, an export), so two catch-ups of a group
    /// at once are rare, and [`RelatedStore::related_apply`]'s check
    /// keeps them apart.
    fn related_enter(&self, _group: &str) -> Result<()> {
        Ok(())
    }

    /// Holds nothing ([`Store::related_enter`]).
    fn related_leave(&self, _group: &str) -> Result<()> {
        Ok(())
    }

    fn related_apply(&mut self, update: &RelatedUpdate) -> Result<Applied> {
        let doing = "writing related items";
        let path = self.path.clone();
        // Immediate: the write lock is taken before `through` is checked,
        // so no other catch-up commits between the check and the writes.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .doing(&path, doing)?;
        for (repo, expected) in &update.expected {
            let now: i64 = tx
                .prepare_cached("SELECT through FROM related_state WHERE repo = ?1")
                .doing(&path, doing)?
                .query_row([repo.raw()], |r| r.get(0))
                .optional()
                .doing(&path, doing)?
                .unwrap_or(0);
            if now != *expected {
                return Ok(Applied::Moved);
            }
        }
        for p in &update.profiles {
            tx.prepare_cached(
                "INSERT OR REPLACE INTO related_profiles (repo, item_id, open, vector)
                 VALUES (?1, ?2, ?3, ?4)",
            )
            .doing(&path, doing)?
            .execute(params![p.item.repo.raw(), p.item.id, p.open, p.vector])
            .doing(&path, doing)?;
            tx.prepare_cached(
                "INSERT OR REPLACE INTO related_texts (repo, item_id, profile)
                 VALUES (?1, ?2, ?3)",
            )
            .doing(&path, doing)?
            .execute(params![p.item.repo.raw(), p.item.id, p.profile])
            .doing(&path, doing)?;
        }
        for item in &update.removed {
            for sql in [
                "DELETE FROM related_profiles WHERE repo = ?1 AND item_id = ?2",
                "DELETE FROM related_texts WHERE repo = ?1 AND item_id = ?2",
            ] {
                tx.prepare_cached(sql)
                    .doing(&path, doing)?
                    .execute(params![item.repo.raw(), item.id])
                    .doing(&path, doing)?;
            }
        }
        let mut marked = BTreeSet::new();
        for (item, list) in &update.lists {
            marked.insert(item.repo.raw());
            tx.prepare_cached("DELETE FROM related_lists WHERE repo = ?1 AND item_id = ?2")
                .doing(&path, doing)?
                .execute(params![item.repo.raw(), item.id])
                .doing(&path, doing)?;
            for (rank, e) in list.iter().enumerate() {
                tx.prepare_cached(
                    "INSERT INTO related_lists
                         (repo, item_id, rank, other_repo, other_id, score, shared)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )
                .doing(&path, doing)?
                .execute(params![
                    item.repo.raw(),
                    item.id,
                    rank as i64,
                    e.item.repo.raw(),
                    e.item.id,
                    e.score,
                    e.shared.join("\n")
                ])
                .doing(&path, doing)?;
            }
        }
        let through: HashMap<i64, i64> =
            update.through.iter().map(|(r, t)| (r.raw(), *t)).collect();
        let repos: BTreeSet<i64> = marked.iter().chain(through.keys()).copied().collect();
        for repo in repos {
            tx.prepare_cached(
                "INSERT INTO related_state (repo, through, mark) VALUES (?1, ?2, ?3)
                 ON CONFLICT (repo) DO UPDATE SET
                     through = max(through, excluded.through),
                     mark = mark + excluded.mark",
            )
            .doing(&path, doing)?
            .execute(params![
                repo,
                through.get(&repo).copied().unwrap_or(0),
                i64::from(marked.contains(&repo))
            ])
            .doing(&path, doing)?;
        }
        write_gone(&tx, &path, update)?;
        for (repo, mark) in &update.marks {
            tx.prepare_cached(
                "INSERT INTO related_state (repo, through, mark) VALUES (?1, 0, ?2)
                 ON CONFLICT (repo) DO UPDATE SET mark = excluded.mark",
            )
            .doing(&path, doing)?
            .execute(params![repo.raw(), mark])
            .doing(&path, doing)?;
        }
        tx.commit().doing(&path, doing)?;
        Ok(Applied::Written)
    }

    fn related_of(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, Vec<RelatedEntry>>> {
        let (path, doing) = (self.path(), "reading items' related items");
        let mut out: HashMap<String, Vec<RelatedEntry>> = HashMap::new();
        if ids.is_empty() {
            return Ok(out);
        }
        let asked = crate::read::ids_json(path, ids)?;
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT l.item_id, l.other_repo, l.other_id, l.score, l.shared, p.open
                 FROM json_each(?2) w
                 CROSS JOIN related_lists l ON l.repo = ?1 AND l.item_id = w.value
                 LEFT JOIN related_profiles p
                     ON p.repo = l.other_repo AND p.item_id = l.other_id
                 ORDER BY l.item_id, l.rank",
            )
            .doing(path, doing)?;
        let rows = stmt
            .query_map(params![repo.raw(), asked], |r| {
                Ok((r.get::<_, String>(0)?, entry_at(r, 1)?))
            })
            .doing(path, doing)?;
        for row in rows {
            let (id, entry) = row.doing(path, doing)?;
            out.entry(id).or_default().push(entry);
        }
        Ok(out)
    }

    fn related_across(&self, group: &str) -> Result<Vec<(Linked, Vec<RelatedEntry>)>> {
        let (path, doing) = (self.path(), "reading a group's related items");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT l.repo, l.item_id, l.other_repo, l.other_id, l.score, l.shared, p.open
                 FROM repositories g
                 JOIN related_lists l ON l.repo = g.key
                 LEFT JOIN related_profiles p
                     ON p.repo = l.other_repo AND p.item_id = l.other_id
                 WHERE g.group_id = ?1 AND l.other_repo <> l.repo
                 ORDER BY l.repo, l.item_id, l.rank",
            )
            .doing(path, doing)?;
        let rows = stmt
            .query_map([group], |r| {
                Ok((
                    Linked {
                        repo: RepoKey::from_raw(r.get(0)?),
                        id: r.get(1)?,
                    },
                    entry_at(r, 2)?,
                ))
            })
            .doing(path, doing)?;
        let mut out: Vec<(Linked, Vec<RelatedEntry>)> = Vec::new();
        for row in rows {
            let (item, entry) = row.doing(path, doing)?;
            match out.last_mut() {
                Some((last, list)) if *last == item => list.push(entry),
                _ => out.push((item, vec![entry])),
            }
        }
        Ok(out)
    }

    fn related_mark(&self, repo: RepoKey) -> Result<i64> {
        let (path, doing) = (self.path(), "reading a repository's related mark");
        Ok(self
            .conn
            .prepare_cached("SELECT mark FROM related_state WHERE repo = ?1")
            .doing(path, doing)?
            .query_row([repo.raw()], |r| r.get(0))
            .optional()
            .doing(path, doing)?
            .unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use signals_store::suite::{group, issue, run_of, tracked, ts};
    use signals_store::{RelatedStore, RunWrites};

    use crate::Store;

    /// A store from before related items opens, migrates, and has every
    /// issue pending for its first catch-up.
    #[test]
    fn a_store_from_before_related_items_migrates_with_everything_pending() {
        let dir = crate::tests::temp_dir("related0022");
        let path = dir.join("signals.db");
        let key = {
            let mut before = Store::open_before(&path, 21).unwrap();
            let key = before.ensure_repository(&group(), &tracked()).unwrap();
            let run = run_of(
                &before,
                key,
                ts("2026-11-20T10:00:00Z"),
                vec![issue("1")],
                1,
            );
            before.commit_run(key, &run).unwrap();
            key
        };
        let store = Store::open(&path).unwrap();
        assert_eq!(store.related_through(key).unwrap(), 0);
        let pending = store.related_pending(&group().id, 0, 10).unwrap();
        assert_eq!(pending.len(), 1);
        assert!(store.related_vectors(&group().id).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }

    /// A store from before gone marks (0022) opens and migrates with no
    /// mark, and the next reconcile's commit marks what it found gone.
    #[test]
    fn a_store_from_before_gone_marks_migrates_and_marks_the_next_gone_items() {
        let dir = crate::tests::temp_dir("related0023");
        let path = dir.join("signals.db");
        let one = issue("1");
        let key = {
            let mut before = Store::open_before(&path, 22).unwrap();
            assert_eq!(before.schema_version().unwrap(), 22);
            let key = before.ensure_repository(&group(), &tracked()).unwrap();
            let at = ts("2026-11-20T10:00:00Z");
            let run = run_of(&before, key, at, vec![one.clone(), issue("2")], 1);
            before.commit_run(key, &run).unwrap();
            key
        };
        let mut store = Store::open(&path).unwrap();
        assert_eq!(
            store.schema_version().unwrap(),
            crate::schema::MIGRATIONS.len() as i64
        );
        signals_store::suite::a_migrated_store_marks_the_next_gone_items(&mut store, key, &one);
        let _ = std::fs::remove_dir_all(dir);
    }
}
