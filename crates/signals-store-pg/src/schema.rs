//! The schema of a PostgreSQL store: its numbered migrations, applied in
//! order in one transaction when the store opens, under an advisory lock
//! (one worker migrates, the others wait and find it done), recorded in
//! `signals_schema`. A migration may add a Rust step for what SQL cannot
//! do exactly (`0007_compact`'s timestamps: `compact.rs`). A database
//! holding other tables is refused. Never edit or reorder a migration once
//! merged.

use signals_store::{Result, StoreError};

use crate::{PgStore, compact};

/// A migration's Rust step, run after its SQL in the same transaction, for
/// what SQL cannot do exactly (parsing timestamps).
pub(crate) type Step = fn(&PgStore, &mut postgres::Transaction<'_>) -> Result<()>;

/// The migrations, in order; the schema version is their number. Never edit
/// or reorder an entry once merged.
pub(crate) const MIGRATIONS: &[(&str, &str, Option<Step>)] = &[
    (
        "0001_init",
        include_str!("../migrations/0001_init.sql"),
        None,
    ),
    (
        "0002_closed_at",
        include_str!("../migrations/0002_closed_at.sql"),
        None,
    ),
    (
        "0003_outbox",
        include_str!("../migrations/0003_outbox.sql"),
        None,
    ),
    (
        "0004_text_search",
        include_str!("../migrations/0004_text_search.sql"),
        None,
    ),
    (
        "0005_reconcile",
        include_str!("../migrations/0005_reconcile.sql"),
        None,
    ),
    (
        "0006_owners",
        include_str!("../migrations/0006_owners.sql"),
        None,
    ),
    (
        "0007_compact",
        include_str!("../migrations/0007_compact.sql"),
        Some(compact::migrate),
    ),
    (
        "0008_owner_host_id",
        include_str!("../migrations/0008_owner_host_id.sql"),
        None,
    ),
    (
        "0009_discussions",
        include_str!("../migrations/0009_discussions.sql"),
        None,
    ),
    (
        "0010_comments",
        include_str!("../migrations/0010_comments.sql"),
        None,
    ),
    (
        "0011_references",
        include_str!("../migrations/0011_references.sql"),
        Some(crate::references::migrate),
    ),
    (
        "0012_open_pulls",
        include_str!("../migrations/0012_open_pulls.sql"),
        None,
    ),
    (
        "0013_word_index",
        include_str!("../migrations/0013_word_index.sql"),
        None,
    ),
    (
        "0014_due_leases",
        include_str!("../migrations/0014_due_leases.sql"),
        None,
    ),
    (
        "0015_run_stage",
        include_str!("../migrations/0015_run_stage.sql"),
        None,
    ),
    (
        "0016_reconciled_runs",
        include_str!("../migrations/0016_reconciled_runs.sql"),
        None,
    ),
    (
        "0017_repo_totals",
        include_str!("../migrations/0017_repo_totals.sql"),
        Some(crate::totals::recount),
    ),
    (
        "0018_split_postings",
        include_str!("../migrations/0018_split_postings.sql"),
        Some(crate::search::migrate_0018),
    ),
    (
        "0019_lifecycle",
        include_str!("../migrations/0019_lifecycle.sql"),
        None,
    ),
    (
        "0020_advisories_downloads",
        include_str!("../migrations/0020_advisories_downloads.sql"),
        None,
    ),
    (
        "0021_merges",
        include_str!("../migrations/0021_merges.sql"),
        None,
    ),
    (
        "0022_related",
        include_str!("../migrations/0022_related.sql"),
        None,
    ),
    (
        "0023_related_gone",
        include_str!("../migrations/0023_related_gone.sql"),
        None,
    ),
];

/// The advisory lock key that serializes migrations between workers that
/// open the store at once ("RSig" and 1).
const MIGRATION_LOCK: i64 = 0x5253_6967_0000_0001;

impl PgStore {
    /// Applies the migrations of `migrations` this store lacks; returns
    /// the schema version then.
    pub(crate) fn migrate(&self, migrations: &[(&str, &str, Option<Step>)]) -> Result<i64> {
        let doing = "bringing the schema up to date";
        let mut client = self.client.borrow_mut();
        let mut tx = client.transaction().map_err(self.err(doing))?;
        // One worker migrates; the others wait here, then find it done.
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .map_err(self.err(doing))?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS signals_schema (
                 version BIGINT PRIMARY KEY,
                 name    TEXT NOT NULL,
                 applied TIMESTAMPTZ NOT NULL DEFAULT now())",
        )
        .map_err(self.err(doing))?;
        let applied: i64 = tx
            .query_one("SELECT count(*) FROM signals_schema", &[])
            .map_err(self.err(doing))?
            .get(0);
        let supported = MIGRATIONS.len() as i64;
        if applied > supported {
            return Err(StoreError::TooNew {
                path: self.path(),
                found: applied,
                supported,
            });
        }
        if applied == 0 {
            // A database with other tables is another application's.
            let foreign: i64 = tx
                .query_one(
                    "SELECT count(*) FROM information_schema.tables
                     WHERE table_schema = current_schema() AND table_name <> 'signals_schema'",
                    &[],
                )
                .map_err(self.err(doing))?
                .get(0);
            if foreign > 0 {
                return Err(StoreError::NotAStore { path: self.path() });
            }
        }
        for (i, (name, sql, step)) in migrations.iter().enumerate().skip(applied as usize) {
            tx.batch_execute(sql).map_err(self.err(doing))?;
            if let Some(step) = step {
                step(self, &mut tx)?;
            }
            tx.execute(
                "INSERT INTO signals_schema (version, name) VALUES ($1, $2)",
                &[&(i as i64 + 1), name],
            )
            .map_err(self.err(doing))?;
        }
        tx.commit().map_err(self.err(doing))?;
        Ok(applied.max(migrations.len() as i64))
    }

    /// The number of migrations applied.
    pub fn schema_version(&self) -> Result<i64> {
        Ok(self
            .client
            .borrow_mut()
            .query_one("SELECT count(*) FROM signals_schema", &[])
            .map_err(self.err("reading the schema version"))?
            .get(0))
    }
}
