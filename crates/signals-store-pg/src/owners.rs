//! Whole owners on PostgreSQL (`signals_store::Owners`; the types and row
//! decoding are `signals_store::owners`'s), with this backend's SQL
//! (`0006_owners.sql`, `0008_owner_host_id.sql`). Several workers share an
//! owner: a claim is one upsert whose condition reads the server's clock,
//! so of workers claiming at once one gets it and the others wait for its
//! row lock, then find it claimed.

use jiff::{SignedDuration, Timestamp};
use signals_core::RequestStats;
use signals_core::owners::Known;
use signals_store::Result;
use signals_store::codec::ts_text;
use signals_store::owners::{
    OWNER_COLUMNS, OWNER_REPO_COLUMNS, OWNER_REPO_ORDER, OwnerRef, OwnerRepo, OwnerRepoRow,
    OwnerStatus, Owners, attach_repos, listing_counts, owner_repo_from, owner_repo_values,
    owner_status_from,
};

use crate::PgStore;

/// The server's time as the stores write timestamps.
const NOW_TEXT: &str = r#"to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')"#;

fn repo_row(r: &postgres::Row, from: usize) -> OwnerRepoRow {
    (
        r.get(from),
        r.get(from + 1),
        r.get(from + 2),
        r.get(from + 3),
        r.get(from + 4),
        r.get(from + 5),
        r.get(from + 6),
        r.get(from + 7),
        r.get(from + 8),
        r.get(from + 9),
    )
}

impl Owners for PgStore {
    /// By the server's clock, shared by every worker, not the caller's
    /// `at`.
    fn owner_claim(
        &mut self,
        owner: OwnerRef<'_>,
        _at: Timestamp,
        every: SignedDuration,
    ) -> Result<bool> {
        let err = self.err("claiming an owner's listing");
        let every_ms = every.as_millis().clamp(0, i64::MAX as i128) as i64;
        let sql = format!(
            "INSERT INTO owners (group_id, host, owner, claimed_at) VALUES ($1, $2, $3, {NOW_TEXT})
             ON CONFLICT (group_id, host, owner) DO UPDATE SET claimed_at = excluded.claimed_at
             WHERE owners.claimed_at IS NULL
                OR owners.claimed_at::timestamptz <= now() - $4::bigint * interval '1 millisecond'
             RETURNING 1"
        );
        self.retrying(|client, _| {
            let mut tx = client.transaction().map_err(&err)?;
            tx.execute(
                "INSERT INTO groups (id, name) VALUES ($1, $2)
                 ON CONFLICT (id) DO UPDATE SET name = excluded.name
                 WHERE groups.name IS DISTINCT FROM excluded.name",
                &[&owner.group.id, &owner.group.name],
            )
            .map_err(&err)?;
            let claimed = tx
                .query_opt(
                    &sql,
                    &[&owner.group.id, &owner.host, &owner.owner, &every_ms],
                )
                .map_err(&err)?
                .is_some();
            tx.commit().map_err(&err)?;
            Ok(claimed)
        })
    }

    fn owner_repos(&self, group_id: &str) -> Result<Vec<OwnerRepo>> {
        let path = self.path();
        self.query(
            "reading an owner's repositories",
            &format!(
                "SELECT {OWNER_REPO_COLUMNS} FROM owner_repos WHERE group_id = $1
                 ORDER BY {OWNER_REPO_ORDER}"
            ),
            &[&group_id],
        )?
        .iter()
        .map(|r| owner_repo_from(&path, repo_row(r, 0)))
        .collect()
    }

    fn owner_listed(
        &mut self,
        owner: OwnerRef<'_>,
        at: Timestamp,
        repos: &[Known],
        stats: &RequestStats,
    ) -> Result<()> {
        let [requests, not_modified, bytes] = listing_counts(stats)?;
        let err = self.err("recording an owner's listing");
        let at = ts_text(at);
        let updated = self.retrying(|client, _| {
            let mut tx = client.transaction().map_err(&err)?;
            let key: [&(dyn postgres::types::ToSql + Sync); 3] =
                [&owner.group.id, &owner.host, &owner.owner];
            let updated = tx
                .execute(
                    "UPDATE owners SET listed_at = $4, listings = listings + 1,
                        last_requests = $5, last_not_modified = $6,
                        requests = requests + $5, not_modified = not_modified + $6,
                        bytes_received = bytes_received + $7, failed_at = NULL, last_error = NULL
                     WHERE group_id = $1 AND host = $2 AND owner = $3",
                    &[
                        &owner.group.id,
                        &owner.host,
                        &owner.owner,
                        &at,
                        &requests,
                        &not_modified,
                        &bytes,
                    ],
                )
                .map_err(&err)?;
            if updated == 0 {
                return Ok(false);
            }
            tx.execute(
                "DELETE FROM owner_repos WHERE group_id = $1 AND host = $2 AND owner = $3",
                &key,
            )
            .map_err(&err)?;
            let insert = format!(
                "INSERT INTO owner_repos (group_id, {OWNER_REPO_COLUMNS})
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
            );
            for k in repos {
                let (full_name, repo_id, state, since, first_seen, host_id, tracked_as, renamed) =
                    owner_repo_values(k);
                tx.execute(
                    &insert,
                    &[
                        &owner.group.id,
                        &owner.host,
                        &owner.owner,
                        &full_name,
                        &repo_id,
                        &state,
                        &since,
                        &first_seen,
                        &host_id,
                        &tracked_as,
                        &renamed,
                    ],
                )
                .map_err(&err)?;
            }
            tx.commit().map_err(&err)?;
            Ok(true)
        })?;
        if !updated {
            return Err(self.corrupt(format!(
                "owner {} of group {} was listed without being claimed",
                owner.owner, owner.group.id
            )));
        }
        Ok(())
    }

    fn owner_failed(&mut self, owner: OwnerRef<'_>, at: Timestamp, message: &str) -> Result<()> {
        self.execute(
            "recording a failed listing",
            "UPDATE owners SET failed_at = $4, last_error = $5
             WHERE group_id = $1 AND host = $2 AND owner = $3",
            &[
                &owner.group.id,
                &owner.host,
                &owner.owner,
                &ts_text(at),
                &message,
            ],
        )?;
        Ok(())
    }

    fn owners_status(&self) -> Result<Vec<OwnerStatus>> {
        let path = self.path();
        let mut owners = self
            .query(
                "reading the owners",
                &format!("SELECT {OWNER_COLUMNS} FROM owners ORDER BY group_id, host, owner"),
                &[],
            )?
            .iter()
            .map(|r| {
                owner_status_from(
                    &path,
                    (
                        r.get(0),
                        r.get(1),
                        r.get(2),
                        r.get(3),
                        r.get(4),
                        r.get(5),
                        r.get(6),
                        r.get(7),
                        r.get(8),
                        r.get(9),
                        r.get(10),
                        r.get(11),
                        r.get(12),
                    ),
                )
            })
            .collect::<Result<Vec<_>>>()?;
        let repos = self
            .query(
                "reading the owners' repositories",
                &format!(
                    "SELECT group_id, {OWNER_REPO_COLUMNS} FROM owner_repos
                     ORDER BY group_id, {OWNER_REPO_ORDER}"
                ),
                &[],
            )?
            .iter()
            .map(|r| owner_repo_from(&path, repo_row(r, 1)).map(|o| (r.get::<_, String>(0), o)))
            .collect::<Result<Vec<_>>>()?;
        attach_repos(&mut owners, repos);
        Ok(owners)
    }
}
