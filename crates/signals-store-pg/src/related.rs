//! Related items on PostgreSQL: the reads and the one write of
//! [`RelatedStore`] over `related_profiles`, `related_texts`, `related_lists` and
//! `related_state` (migration 0022), and `related_gone` (0023), whose
//! marks a run's commit writes ([`mark_gone`]); each write is one
//! statement over arrays, in one transaction.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use signals_store::related::{
    Applied, GoneMark, Pending, RelatedEntry, RelatedStore, RelatedUpdate, StoredProfile,
    StoredVector,
};
use signals_store::{Linked, RepoKey, Result};

use postgres::error::SqlState;

use crate::PgStore;

/// A pending item from its row: repository, id, latest snapshot, marked
/// gone.
fn pending(r: &postgres::Row) -> Pending {
    Pending {
        item: Linked {
            repo: RepoKey::from_raw(r.get(0)),
            id: r.get(1),
        },
        latest: r.get(2),
        gone: r.get(3),
    }
}

/// An entry's columns from `at`: other repository, other id, score,
/// shared words, open.
fn entry_at(r: &postgres::Row, at: usize) -> RelatedEntry {
    let shared: String = r.get(at + 3);
    RelatedEntry {
        item: Linked {
            repo: RepoKey::from_raw(r.get(at)),
            id: r.get(at + 1),
        },
        score: r.get(at + 2),
        shared: shared
            .split('\n')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect(),
        open: r.get::<_, Option<bool>>(at + 4).unwrap_or(false),
    }
}

/// The rows of the lists an update writes, a column each.
#[derive(Default)]
struct ListRows<'a> {
    repo: Vec<i64>,
    item: Vec<&'a str>,
    rank: Vec<i64>,
    other_repo: Vec<i64>,
    other: Vec<&'a str>,
    score: Vec<f64>,
    shared: Vec<String>,
}

/// Marks the items `gone` of repository `repo` as no longer listed by
/// the host, at their latest snapshot (the one the run just wrote), in the
/// run's transaction `tx`, in one statement; a mark of an earlier time is
/// replaced. Nothing is written when none is gone (a store opened before
/// 0023 commits runs that find none).
pub(crate) fn mark_gone(
    tx: &mut postgres::Transaction<'_>,
    repo: RepoKey,
    gone: &[String],
) -> std::result::Result<(), postgres::Error> {
    if gone.is_empty() {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO related_gone (repo, item_id, snapshot)
         SELECT repo, item_id, latest FROM items WHERE repo = $1 AND item_id = ANY($2)
         ON CONFLICT (repo, item_id) DO UPDATE SET snapshot = excluded.snapshot",
        &[&repo.raw(), &gone],
    )?;
    Ok(())
}

/// The gone marks of `update`: those its `through` passed are cleared
/// (the catch-up read them, or their items were listed again and read
/// since), and a copy's are written as they are.
fn write_gone(
    tx: &mut postgres::Transaction<'_>,
    update: &RelatedUpdate,
) -> std::result::Result<(), postgres::Error> {
    let t_repo: Vec<i64> = update.through.iter().map(|(r, _)| r.raw()).collect();
    let t_through: Vec<i64> = update.through.iter().map(|(_, t)| *t).collect();
    if !t_repo.is_empty() {
        tx.execute(
            "DELETE FROM related_gone m
             USING unnest($1::bigint[], $2::bigint[]) AS t (repo, through)
             WHERE m.repo = t.repo AND m.snapshot <= t.through",
            &[&t_repo, &t_through],
        )?;
    }
    if update.gone.is_empty() {
        return Ok(());
    }
    let g_repo: Vec<i64> = update.gone.iter().map(|m| m.item.repo.raw()).collect();
    let g_id: Vec<&str> = update.gone.iter().map(|m| m.item.id.as_str()).collect();
    let g_snapshot: Vec<i64> = update.gone.iter().map(|m| m.snapshot).collect();
    tx.execute(
        "INSERT INTO related_gone (repo, item_id, snapshot)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[])
         ON CONFLICT (repo, item_id) DO UPDATE SET snapshot = excluded.snapshot",
        &[&g_repo, &g_id, &g_snapshot],
    )?;
    Ok(())
}

/// How long a catch-up waits for another catch-up of its group
/// ([`RelatedStore::related_enter`]): longer than the full build of a
/// group of 100,000 items (docs/performance/related.md), short enough
/// that a stopped worker holds no other up for long.
const ENTER_WITHIN_MS: u64 = 60_000;

/// Whether a repository of `update.expected` has moved its `through`
/// since the update was read, after taking the group's lock: one
/// catch-up of a group writes at a time, the lock is held to the commit,
/// and the check sees what the one before it committed.
fn moved(
    tx: &mut postgres::Transaction<'_>,
    update: &RelatedUpdate,
) -> std::result::Result<bool, postgres::Error> {
    let e_repo: Vec<i64> = update.expected.iter().map(|(r, _)| r.raw()).collect();
    let e_through: Vec<i64> = update.expected.iter().map(|(_, t)| *t).collect();
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtext('signals.related'), hashtext($1))",
        &[&update.group],
    )?;
    let moved: i64 = tx
        .query_one(
            "SELECT count(*) FROM unnest($1::bigint[], $2::bigint[]) AS e (repo, through)
             LEFT JOIN related_state s ON s.repo = e.repo
             WHERE coalesce(s.through, 0) <> e.through",
            &[&e_repo, &e_through],
        )?
        .get(0);
    Ok(moved > 0)
}

impl RelatedStore for PgStore {
    fn related_through(&self, repo: RepoKey) -> Result<i64> {
        let rows = self.query(
            "reading how far related items have read",
            "SELECT through FROM related_state WHERE repo = $1",
            &[&repo.raw()],
        )?;
        Ok(rows.first().map(|r| r.get(0)).unwrap_or(0))
    }

    fn related_throughs(&self, group: &str) -> Result<Vec<(RepoKey, i64)>> {
        let rows = self.query(
            "reading how far a group's related items have read",
            "SELECT g.key, coalesce(s.through, 0) FROM repositories g
             LEFT JOIN related_state s ON s.repo = g.key
             WHERE g.group_id = $1 ORDER BY g.key",
            &[&group],
        )?;
        Ok(rows
            .iter()
            .map(|r| (RepoKey::from_raw(r.get(0)), r.get(1)))
            .collect())
    }

    fn related_pending(&self, group: &str, after: i64, limit: usize) -> Result<Vec<Pending>> {
        let rows = self.query(
            "reading the items related items have not read",
            "SELECT i.repo, i.item_id, i.latest, m.snapshot IS NOT NULL FROM repositories g
             LEFT JOIN related_state s ON s.repo = g.key
             JOIN items i ON i.repo = g.key AND i.latest > coalesce(s.through, 0)
             LEFT JOIN related_gone m
                 ON m.repo = i.repo AND m.item_id = i.item_id AND m.snapshot = i.latest
             WHERE g.group_id = $1 AND i.latest > $2
                 AND i.kind IN ('issue', 'pull_request', 'discussion')
             ORDER BY i.latest LIMIT $3",
            &[&group, &after, &(limit as i64)],
        )?;
        Ok(rows.iter().map(pending).collect())
    }

    fn related_pending_in(&self, repo: RepoKey, after: i64, limit: usize) -> Result<Vec<Pending>> {
        // One lower bound, so the read is a range of `items_by_latest`.
        let rows = self.query(
            "reading the items related items have not read",
            "SELECT i.repo, i.item_id, i.latest, m.snapshot IS NOT NULL FROM items i
             LEFT JOIN related_gone m
                 ON m.repo = i.repo AND m.item_id = i.item_id AND m.snapshot = i.latest
             WHERE i.repo = $1
                 AND i.latest > greatest($2,
                     coalesce((SELECT through FROM related_state WHERE repo = $1), 0))
                 AND i.kind IN ('issue', 'pull_request', 'discussion')
             ORDER BY i.latest LIMIT $3",
            &[&repo.raw(), &after, &(limit as i64)],
        )?;
        Ok(rows.iter().map(pending).collect())
    }

    fn related_gone(&self, group: &str) -> Result<Vec<GoneMark>> {
        let rows = self.query(
            "reading the items marked gone",
            "SELECT m.repo, m.item_id, m.snapshot
             FROM repositories g JOIN related_gone m ON m.repo = g.key
             WHERE g.group_id = $1 ORDER BY m.repo, m.item_id",
            &[&group],
        )?;
        Ok(rows
            .iter()
            .map(|r| GoneMark {
                item: Linked {
                    repo: RepoKey::from_raw(r.get(0)),
                    id: r.get(1),
                },
                snapshot: r.get(2),
            })
            .collect())
    }

    fn related_vectors(&self, group: &str) -> Result<Vec<StoredVector>> {
        let rows = self.query(
            "reading a group's similarity vectors",
            "SELECT p.repo, p.item_id, p.open, p.vector
             FROM repositories g JOIN related_profiles p ON p.repo = g.key
             WHERE g.group_id = $1",
            &[&group],
        )?;
        Ok(rows
            .iter()
            .map(|r| StoredVector {
                item: Linked {
                    repo: RepoKey::from_raw(r.get(0)),
                    id: r.get(1),
                },
                open: r.get(2),
                vector: r.get(3),
            })
            .collect())
    }

    fn related_profiles_of(&self, items: &[Linked]) -> Result<Vec<StoredProfile>> {
        let repos: Vec<i64> = items.iter().map(|i| i.repo.raw()).collect();
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        let rows = self.query(
            "reading items' similarity profiles",
            "SELECT p.repo, p.item_id, p.open, t.profile, p.vector
             FROM unnest($1::bigint[], $2::text[]) AS w (repo, id)
             JOIN related_profiles p ON p.repo = w.repo AND p.item_id = w.id
             JOIN related_texts t ON t.repo = w.repo AND t.item_id = w.id",
            &[&repos, &ids],
        )?;
        Ok(rows
            .iter()
            .map(|r| StoredProfile {
                item: Linked {
                    repo: RepoKey::from_raw(r.get(0)),
                    id: r.get(1),
                },
                open: r.get(2),
                profile: r.get(3),
                vector: r.get(4),
            })
            .collect())
    }

    fn related_listing(&self, group: &str, items: &[Linked]) -> Result<Vec<Linked>> {
        let repos: Vec<i64> = items.iter().map(|i| i.repo.raw()).collect();
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        let rows = self.query(
            "reading the lists naming items",
            "SELECT l.repo, l.item_id
             FROM unnest($1::bigint[], $2::text[]) AS w (repo, id)
             JOIN related_lists l ON l.other_repo = w.repo AND l.other_id = w.id
             JOIN repositories g ON g.key = l.repo
             WHERE g.group_id = $3",
            &[&repos, &ids, &group],
        )?;
        // Sorted and distinct as Rust orders them, as on SQLite.
        let items: BTreeSet<Linked> = rows
            .iter()
            .map(|r| Linked {
                repo: RepoKey::from_raw(r.get(0)),
                id: r.get(1),
            })
            .collect();
        Ok(items.into_iter().collect())
    }

    /// The group's advisory lock, the one [`RelatedStore::related_apply`]
    /// takes for its transaction, held by the session instead, so a
    /// worker killed meanwhile leaves it with its connection. A wait past
    /// [`ENTER_WITHIN_MS`] (a worker stopped, not killed, while it held the
    /// group) goes on alongside, with a notice.
    fn related_enter(&self, group: &str) -> Result<()> {
        let err = self.err("waiting for another catch-up of a group's related items");
        self.retrying(|client, _| {
            client
                .batch_execute(&format!("SET lock_timeout = '{ENTER_WITHIN_MS}ms'"))
                .map_err(&err)?;
            let entered = client.execute(
                "SELECT pg_advisory_lock(hashtext('signals.related'), hashtext($1))",
                &[&group],
            );
            client.batch_execute("RESET lock_timeout").map_err(&err)?;
            match entered {
                Ok(_) => Ok(()),
                Err(e) if e.code() == Some(&SqlState::LOCK_NOT_AVAILABLE) => {
                    self.notice(format!(
                        "another catch-up of the related items of group {group} has held it \
                         for over {} s; this one goes on alongside",
                        ENTER_WITHIN_MS / 1000
                    ));
                    Ok(())
                }
                Err(e) => Err(err(e)),
            }
        })
    }

    /// Unlocks the group; after a lost connection there is nothing to
    /// unlock, which PostgreSQL answers with a warning, not an error.
    fn related_leave(&self, group: &str) -> Result<()> {
        let err = self.err("letting other catch-ups of a group's related items in");
        self.retrying(|client, _| {
            client
                .execute(
                    "SELECT pg_advisory_unlock(hashtext('signals.related'), hashtext($1))",
                    &[&group],
                )
                .map_err(&err)?;
            Ok(())
        })
    }

    fn related_apply(&mut self, update: &RelatedUpdate) -> Result<Applied> {
        let err = self.err("writing related items");
        let p_repo: Vec<i64> = update.profiles.iter().map(|p| p.item.repo.raw()).collect();
        let p_id: Vec<&str> = update.profiles.iter().map(|p| p.item.id.as_str()).collect();
        let p_open: Vec<bool> = update.profiles.iter().map(|p| p.open).collect();
        let p_text: Vec<&str> = update.profiles.iter().map(|p| p.profile.as_str()).collect();
        let p_vector: Vec<&[u8]> = update
            .profiles
            .iter()
            .map(|p| p.vector.as_slice())
            .collect();
        let m_repo: Vec<i64> = update.marks.iter().map(|(r, _)| r.raw()).collect();
        let m_mark: Vec<i64> = update.marks.iter().map(|(_, m)| *m).collect();
        let r_repo: Vec<i64> = update.removed.iter().map(|i| i.repo.raw()).collect();
        let r_id: Vec<&str> = update.removed.iter().map(|i| i.id.as_str()).collect();
        let l_repo: Vec<i64> = update.lists.iter().map(|(i, _)| i.repo.raw()).collect();
        let l_id: Vec<&str> = update.lists.iter().map(|(i, _)| i.id.as_str()).collect();
        let mut rows = ListRows::default();
        for (item, list) in &update.lists {
            for (rank, e) in list.iter().enumerate() {
                rows.repo.push(item.repo.raw());
                rows.item.push(&item.id);
                rows.rank.push(rank as i64);
                rows.other_repo.push(e.item.repo.raw());
                rows.other.push(&e.item.id);
                rows.score.push(e.score);
                rows.shared.push(e.shared.join("\n"));
            }
        }
        let mut state: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
        for (repo, through) in &update.through {
            state.entry(repo.raw()).or_default().0 = *through;
        }
        for repo in l_repo.iter().collect::<BTreeSet<_>>() {
            state.entry(*repo).or_default().1 = 1;
        }
        let s_repo: Vec<i64> = state.keys().copied().collect();
        let s_through: Vec<i64> = state.values().map(|v| v.0).collect();
        let s_mark: Vec<i64> = state.values().map(|v| v.1).collect();
        self.retrying(|client, _| {
            let mut tx = client.transaction().map_err(&err)?;
            let moved = moved(&mut tx, update).map_err(&err)?;
            if moved {
                tx.rollback().map_err(&err)?;
                return Ok(Applied::Moved);
            }
            tx.execute(
                "INSERT INTO related_profiles (repo, item_id, open, vector)
                 SELECT * FROM unnest($1::bigint[], $2::text[], $3::boolean[], $4::bytea[])
                 ON CONFLICT (repo, item_id) DO UPDATE
                 SET open = excluded.open, vector = excluded.vector",
                &[&p_repo, &p_id, &p_open, &p_vector],
            )
            .map_err(&err)?;
            tx.execute(
                "INSERT INTO related_texts (repo, item_id, profile)
                 SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])
                 ON CONFLICT (repo, item_id) DO UPDATE SET profile = excluded.profile",
                &[&p_repo, &p_id, &p_text],
            )
            .map_err(&err)?;
            for table in ["related_profiles", "related_texts"] {
                tx.execute(
                    &format!(
                        "DELETE FROM {table} p
                         USING unnest($1::bigint[], $2::text[]) AS w (repo, id)
                         WHERE p.repo = w.repo AND p.item_id = w.id"
                    ),
                    &[&r_repo, &r_id],
                )
                .map_err(&err)?;
            }
            tx.execute(
                "DELETE FROM related_lists l
                 USING unnest($1::bigint[], $2::text[]) AS w (repo, id)
                 WHERE l.repo = w.repo AND l.item_id = w.id",
                &[&l_repo, &l_id],
            )
            .map_err(&err)?;
            tx.execute(
                "INSERT INTO related_lists
                     (repo, item_id, rank, other_repo, other_id, score, shared)
                 SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[],
                                      $5::text[], $6::float8[], $7::text[])",
                &[
                    &rows.repo,
                    &rows.item,
                    &rows.rank,
                    &rows.other_repo,
                    &rows.other,
                    &rows.score,
                    &rows.shared,
                ],
            )
            .map_err(&err)?;
            tx.execute(
                "INSERT INTO related_state (repo, through, mark)
                 SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])
                 ON CONFLICT (repo) DO UPDATE SET
                     through = greatest(related_state.through, excluded.through),
                     mark = related_state.mark + excluded.mark",
                &[&s_repo, &s_through, &s_mark],
            )
            .map_err(&err)?;
            write_gone(&mut tx, update).map_err(&err)?;
            tx.execute(
                "INSERT INTO related_state (repo, through, mark)
                 SELECT repo, 0, mark FROM unnest($1::bigint[], $2::bigint[]) AS m (repo, mark)
                 ON CONFLICT (repo) DO UPDATE SET mark = excluded.mark",
                &[&m_repo, &m_mark],
            )
            .map_err(&err)?;
            tx.commit().map_err(&err)?;
            Ok(Applied::Written)
        })
    }

    fn related_of(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, Vec<RelatedEntry>>> {
        let rows = self.query(
            "reading items' related items",
            "SELECT l.item_id, l.other_repo, l.other_id, l.score, l.shared, p.open
             FROM related_lists l
             LEFT JOIN related_profiles p ON p.repo = l.other_repo AND p.item_id = l.other_id
             WHERE l.repo = $1 AND l.item_id = ANY($2)
             ORDER BY l.item_id, l.rank",
            &[&repo.raw(), &ids],
        )?;
        let mut out: HashMap<String, Vec<RelatedEntry>> = HashMap::new();
        for r in &rows {
            out.entry(r.get(0)).or_default().push(entry_at(r, 1));
        }
        Ok(out)
    }

    fn related_across(&self, group: &str) -> Result<Vec<(Linked, Vec<RelatedEntry>)>> {
        let rows = self.query(
            "reading a group's related items",
            "SELECT l.repo, l.item_id, l.other_repo, l.other_id, l.score, l.shared, p.open
             FROM repositories g
             JOIN related_lists l ON l.repo = g.key
             LEFT JOIN related_profiles p ON p.repo = l.other_repo AND p.item_id = l.other_id
             WHERE g.group_id = $1 AND l.other_repo <> l.repo
             ORDER BY l.repo, l.item_id COLLATE \"C\", l.rank",
            &[&group],
        )?;
        let mut out: Vec<(Linked, Vec<RelatedEntry>)> = Vec::new();
        for r in &rows {
            let item = Linked {
                repo: RepoKey::from_raw(r.get(0)),
                id: r.get(1),
            };
            let entry = entry_at(r, 2);
            match out.last_mut() {
                Some((last, list)) if *last == item => list.push(entry),
                _ => out.push((item, vec![entry])),
            }
        }
        Ok(out)
    }

    fn related_mark(&self, repo: RepoKey) -> Result<i64> {
        let rows = self.query(
            "reading a repository's related mark",
            "SELECT mark FROM related_state WHERE repo = $1",
            &[&repo.raw()],
        )?;
        Ok(rows.first().map(|r| r.get(0)).unwrap_or(0))
    }
}
