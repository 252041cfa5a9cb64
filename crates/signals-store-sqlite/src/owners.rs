//! Whole owners on SQLite (`0007_owners.sql`, `0009_owner_host_id.sql`:
//! the host's id and the first-tracked name after a rename, keyed by
//! repository id).

use jiff::{SignedDuration, Timestamp};
use rusqlite::{OptionalExtension, TransactionBehavior, params};
use signals_core::RequestStats;
use signals_core::owners::Known;
use signals_store::codec::{ts_parse, ts_text};
use signals_store::owners::{
    OWNER_COLUMNS, OWNER_REPO_COLUMNS, OWNER_REPO_ORDER, OwnerRef, OwnerRepo, OwnerRepoRow,
    OwnerRow, OwnerStatus, Owners, attach_repos, listing_counts, owner_repo_from,
    owner_repo_values, owner_status_from,
};
use signals_store::{Result, StoreError};

use crate::Store;
use crate::error::DbContext;

/// An `owner_repos` row's [`OWNER_REPO_COLUMNS`] from column `from` on.
fn repo_row(r: &rusqlite::Row<'_>, from: usize) -> rusqlite::Result<OwnerRepoRow> {
    Ok((
        r.get(from)?,
        r.get(from + 1)?,
        r.get(from + 2)?,
        r.get(from + 3)?,
        r.get(from + 4)?,
        r.get(from + 5)?,
        r.get(from + 6)?,
        r.get(from + 7)?,
        r.get(from + 8)?,
        r.get(from + 9)?,
    ))
}

impl Owners for Store {
    /// One process owns a SQLite store, so `collect` passes zero and lists
    /// every owner at each run.
    fn owner_claim(
        &mut self,
        owner: OwnerRef<'_>,
        at: Timestamp,
        every: SignedDuration,
    ) -> Result<bool> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .doing(&path, "claiming an owner's listing")?;
        tx.execute(
            "INSERT INTO groups (id, name) VALUES (?1, ?2)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name",
            params![owner.group.id, owner.group.name],
        )
        .doing(&path, "registering a group")?;
        let claimed: Option<Option<String>> = tx
            .query_row(
                "SELECT claimed_at FROM owners WHERE group_id = ?1 AND host = ?2 AND owner = ?3",
                params![owner.group.id, owner.host, owner.owner],
                |r| r.get(0),
            )
            .optional()
            .doing(&path, "claiming an owner's listing")?;
        let due = match claimed.flatten() {
            None => true,
            Some(t) => {
                let last = ts_parse(&path, "owners.claimed_at", &t)?;
                last.saturating_add(every).is_ok_and(|next| next <= at)
            }
        };
        if due {
            tx.execute(
                "INSERT INTO owners (group_id, host, owner, claimed_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (group_id, host, owner) DO UPDATE SET claimed_at = excluded.claimed_at",
                params![owner.group.id, owner.host, owner.owner, ts_text(at)],
            )
            .doing(&path, "claiming an owner's listing")?;
        }
        tx.commit().doing(&path, "claiming an owner's listing")?;
        Ok(due)
    }

    fn owner_repos(&self, group_id: &str) -> Result<Vec<OwnerRepo>> {
        let path = &self.path;
        let rows: Vec<OwnerRepoRow> = self
            .conn
            .prepare_cached(&format!(
                "SELECT {OWNER_REPO_COLUMNS} FROM owner_repos WHERE group_id = ?1
                 ORDER BY {OWNER_REPO_ORDER}"
            ))
            .and_then(|mut st| {
                st.query_map(params![group_id], |r| repo_row(r, 0))?
                    .collect()
            })
            .doing(path, "reading an owner's repositories")?;
        rows.into_iter()
            .map(|row| owner_repo_from(path, row))
            .collect()
    }

    fn owner_listed(
        &mut self,
        owner: OwnerRef<'_>,
        at: Timestamp,
        repos: &[Known],
        stats: &RequestStats,
    ) -> Result<()> {
        let path = self.path.clone();
        let [requests, not_modified, bytes] = listing_counts(stats)?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .doing(&path, "recording an owner's listing")?;
        let key = params![owner.group.id, owner.host, owner.owner];
        let updated = tx
            .execute(
                "UPDATE owners SET listed_at = ?4, listings = listings + 1,
                    last_requests = ?5, last_not_modified = ?6,
                    requests = requests + ?5, not_modified = not_modified + ?6,
                    bytes_received = bytes_received + ?7, failed_at = NULL, last_error = NULL
                 WHERE group_id = ?1 AND host = ?2 AND owner = ?3",
                params![
                    owner.group.id,
                    owner.host,
                    owner.owner,
                    ts_text(at),
                    requests,
                    not_modified,
                    bytes
                ],
            )
            .doing(&path, "recording an owner's listing")?;
        if updated == 0 {
            return Err(StoreError::Corrupt {
                path,
                what: format!(
                    "owner {} of group {} was listed without being claimed",
                    owner.owner, owner.group.id
                ),
            });
        }
        tx.execute(
            "DELETE FROM owner_repos WHERE group_id = ?1 AND host = ?2 AND owner = ?3",
            key,
        )
        .doing(&path, "recording an owner's listing")?;
        for k in repos {
            let (full_name, repo_id, state, since, first_seen, host_id, tracked_as, renamed_at) =
                owner_repo_values(k);
            tx.execute(
                &format!(
                    "INSERT INTO owner_repos (group_id, {OWNER_REPO_COLUMNS})
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
                ),
                params![
                    owner.group.id,
                    owner.host,
                    owner.owner,
                    full_name,
                    repo_id,
                    state,
                    since,
                    first_seen,
                    host_id,
                    tracked_as,
                    renamed_at
                ],
            )
            .doing(&path, "recording an owner's repositories")?;
        }
        tx.commit().doing(&path, "recording an owner's listing")
    }

    fn owner_failed(&mut self, owner: OwnerRef<'_>, at: Timestamp, message: &str) -> Result<()> {
        self.conn
            .execute(
                "UPDATE owners SET failed_at = ?4, last_error = ?5
                 WHERE group_id = ?1 AND host = ?2 AND owner = ?3",
                params![
                    owner.group.id,
                    owner.host,
                    owner.owner,
                    ts_text(at),
                    message
                ],
            )
            .doing(&self.path, "recording a failed listing")?;
        Ok(())
    }

    fn owners_status(&self) -> Result<Vec<OwnerStatus>> {
        let path = &self.path;
        let rows: Vec<OwnerRow> = self
            .conn
            .prepare(&format!(
                "SELECT {OWNER_COLUMNS} FROM owners ORDER BY group_id, host, owner"
            ))
            .and_then(|mut st| {
                st.query_map([], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                        r.get(8)?,
                        r.get(9)?,
                        r.get(10)?,
                        r.get(11)?,
                        r.get(12)?,
                    ))
                })?
                .collect()
            })
            .doing(path, "reading the owners")?;
        let mut owners = rows
            .into_iter()
            .map(|row| owner_status_from(path, row))
            .collect::<Result<Vec<_>>>()?;
        let repos: Vec<(String, OwnerRepoRow)> = self
            .conn
            .prepare(&format!(
                "SELECT group_id, {OWNER_REPO_COLUMNS} FROM owner_repos
                 ORDER BY group_id, {OWNER_REPO_ORDER}"
            ))
            .and_then(|mut st| {
                st.query_map([], |r| Ok((r.get(0)?, repo_row(r, 1)?)))?
                    .collect()
            })
            .doing(path, "reading the owners' repositories")?;
        let repos = repos
            .into_iter()
            .map(|(g, row)| owner_repo_from(path, row).map(|r| (g, r)))
            .collect::<Result<Vec<_>>>()?;
        attach_repos(&mut owners, repos);
        Ok(owners)
    }
}
