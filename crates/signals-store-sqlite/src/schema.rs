//! The schema of a SQLite store: its numbered migrations, applied in
//! order in one transaction when the store opens and tracked by `PRAGMA
//! user_version`. A migration may add a Rust step for what SQL cannot do
//! (0002's hashing, `0008_compact`'s parsing). Never edit or reorder a
//! migration once merged: a store made by an older version is brought up
//! to date, and one made by a newer version is refused.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};
use signals_store::{Result, StoreError};

use crate::Store;
use crate::error::DbContext;
use crate::snapshots;

/// One numbered migration: SQL, then optionally Rust code for what SQL
/// cannot do (hashing), in the same transaction.
#[derive(Clone, Copy)]
pub(crate) struct Migration {
    name: &'static str,
    sql: &'static str,
    then: Option<fn(&rusqlite::Transaction<'_>, &Path) -> Result<()>>,
}

/// The migrations, in order. The schema version of a store is the number of
/// migrations applied to it. Never edit or reorder an entry once merged.
pub(crate) const MIGRATIONS: &[Migration] = &[
    Migration {
        name: "0001_init",
        sql: include_str!("../migrations/0001_init.sql"),
        then: None,
    },
    Migration {
        name: "0002_bodies",
        sql: include_str!("../migrations/0002_bodies.sql"),
        then: Some(snapshots::migrate_0002),
    },
    Migration {
        name: "0003_closed_at",
        sql: include_str!("../migrations/0003_closed_at.sql"),
        then: None,
    },
    Migration {
        name: "0004_outbox",
        sql: include_str!("../migrations/0004_outbox.sql"),
        then: None,
    },
    Migration {
        name: "0005_text_search",
        sql: include_str!("../migrations/0005_text_search.sql"),
        then: None,
    },
    Migration {
        name: "0006_reconcile",
        sql: include_str!("../migrations/0006_reconcile.sql"),
        then: None,
    },
    Migration {
        name: "0007_owners",
        sql: include_str!("../migrations/0007_owners.sql"),
        then: None,
    },
    Migration {
        name: "0008_compact",
        sql: include_str!("../migrations/0008_compact.sql"),
        then: Some(snapshots::migrate_compact),
    },
    Migration {
        name: "0009_owner_host_id",
        sql: include_str!("../migrations/0009_owner_host_id.sql"),
        then: None,
    },
    Migration {
        name: "0010_discussions",
        sql: include_str!("../migrations/0010_discussions.sql"),
        then: None,
    },
    Migration {
        name: "0011_comments",
        sql: include_str!("../migrations/0011_comments.sql"),
        then: None,
    },
    Migration {
        name: "0012_references",
        sql: include_str!("../migrations/0012_references.sql"),
        then: Some(crate::references::migrate_0012),
    },
    Migration {
        name: "0013_open_pulls",
        sql: include_str!("../migrations/0013_open_pulls.sql"),
        then: None,
    },
    Migration {
        name: "0014_word_index",
        sql: include_str!("../migrations/0014_word_index.sql"),
        then: None,
    },
    Migration {
        name: "0015_run_stage",
        sql: include_str!("../migrations/0015_run_stage.sql"),
        then: None,
    },
    Migration {
        name: "0016_reconciled_runs",
        sql: include_str!("../migrations/0016_reconciled_runs.sql"),
        then: None,
    },
    Migration {
        name: "0017_repo_totals",
        sql: include_str!("../migrations/0017_repo_totals.sql"),
        then: Some(crate::totals::recount),
    },
    Migration {
        name: "0018_split_postings",
        sql: include_str!("../migrations/0018_split_postings.sql"),
        then: Some(crate::search::migrate_0018),
    },
    Migration {
        name: "0019_lifecycle",
        sql: include_str!("../migrations/0019_lifecycle.sql"),
        then: None,
    },
    Migration {
        name: "0020_advisories_downloads",
        sql: include_str!("../migrations/0020_advisories_downloads.sql"),
        then: None,
    },
    Migration {
        name: "0021_merges",
        sql: include_str!("../migrations/0021_merges.sql"),
        then: None,
    },
    Migration {
        name: "0022_related",
        sql: include_str!("../migrations/0022_related.sql"),
        then: None,
    },
    Migration {
        name: "0023_related_gone",
        sql: include_str!("../migrations/0023_related_gone.sql"),
        then: None,
    },
];

impl Store {
    /// Applies the migrations this store lacks, all in one transaction.
    pub(crate) fn migrate(&mut self) -> Result<()> {
        self.migrate_with(MIGRATIONS)
    }

    pub(crate) fn migrate_with(&mut self, migrations: &[Migration]) -> Result<()> {
        let result = self.migrate_to(migrations);
        self.keeps_totals = self.schema_version()? >= crate::totals::SINCE_VERSION;
        result
    }

    fn migrate_to(&mut self, migrations: &[Migration]) -> Result<()> {
        if self.schema_version()? >= migrations.len() as i64 {
            return Ok(());
        }
        let path = self.path.clone();
        // A migration may rebuild a table that others reference (0002 does),
        // which SQLite allows only with foreign keys off; they are checked
        // before the commit instead, and switched back on whatever happens.
        // The pragma is a no-op inside a transaction, so it is set here.
        self.conn
            .pragma_update(None, "foreign_keys", false)
            .doing(&path, "preparing the schema migration")?;
        let result = Self::apply(&mut self.conn, &path, migrations);
        self.conn
            .pragma_update(None, "foreign_keys", true)
            .doing(&path, "enabling foreign keys")?;
        result
    }

    fn apply(conn: &mut Connection, path: &Path, migrations: &[Migration]) -> Result<()> {
        let path = path.to_path_buf();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .doing(&path, "starting the schema migration")?;
        // Another process may have migrated between the check and the lock.
        let version: i64 = tx
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .doing(&path, "reading the schema version")?;
        let start = usize::try_from(version).unwrap_or(0);
        for (i, m) in migrations.iter().enumerate().skip(start) {
            tx.execute_batch(m.sql)
                .doing(&path, "applying a schema migration")?;
            if let Some(then) = m.then {
                then(&tx, &path)?;
            }
            let broken: Option<String> = tx
                .query_row(
                    "SELECT \"table\" FROM pragma_foreign_key_check LIMIT 1",
                    [],
                    |r| r.get(0),
                )
                .optional()
                .doing(&path, "checking the migrated foreign keys")?;
            if let Some(table) = broken {
                return Err(StoreError::Corrupt {
                    path: path.clone(),
                    what: format!(
                        "migration {} left rows of {table} pointing at missing rows; \
                         the store was left as it was",
                        m.name
                    ),
                });
            }
            tx.pragma_update(None, "user_version", (i + 1) as i64)
                .doing(&path, "recording the schema version")?;
        }
        tx.commit().doing(&path, "committing the schema migration")
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use rusqlite::Connection;
    use signals_store::{Owners, Reads, RepoKey};

    use super::*;
    use crate::tests::temp_dir;

    /// An in-memory store migrated up to, and not including, `migration`.
    fn in_memory_before(migration: &str) -> Store {
        let mut store = Store {
            conn: Connection::open_in_memory().unwrap(),
            path: PathBuf::from(":memory:"),
            keeps_totals: false,
        };
        let before = MIGRATIONS.iter().position(|m| m.name == migration).unwrap();
        store.migrate_with(&MIGRATIONS[..before]).unwrap();
        store
    }

    fn tables(store: &Store) -> Vec<String> {
        let mut stmt = store
            .conn
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            .unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    /// WAL is there so `signals status` and the export can read while a
    /// collection holds the write lock.

    #[test]
    fn fresh_store_is_migrated_and_reopening_is_idempotent() {
        let dir = temp_dir("migrate");
        let path = dir.join("signals.db");
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        let first = tables(&store);
        assert!(first.contains(&"runs".to_string()), "{first:?}");
        assert!(first.contains(&"http_cache".to_string()), "{first:?}");
        drop(store);
        let again = Store::open(&path).unwrap();
        assert_eq!(again.schema_version().unwrap(), MIGRATIONS.len() as i64);
        assert_eq!(tables(&again), first);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_failing_migration_changes_nothing() {
        let mut store = Store::open_in_memory().unwrap();
        let test = |sql| Migration {
            name: "9999_test",
            sql,
            then: None,
        };
        let current = MIGRATIONS.len() as i64;
        let with = |extra: Migration| {
            let mut all = MIGRATIONS.to_vec();
            all.push(extra);
            all
        };
        let broken = with(test(
            "CREATE TABLE extra (x INTEGER); SELECT no_such_function();",
        ));
        let err = store.migrate_with(&broken).unwrap_err();
        assert!(
            err.to_string().contains("applying a schema migration"),
            "{err}"
        );
        assert_eq!(store.schema_version().unwrap(), current);
        assert!(!tables(&store).contains(&"extra".to_string()));
        let fine = with(test("CREATE TABLE extra (x INTEGER);"));
        store.migrate_with(&fine).unwrap();
        assert_eq!(store.schema_version().unwrap(), current + 1);
        assert!(tables(&store).contains(&"extra".to_string()));
    }

    /// Migration 0002 moves every snapshot of a store made by the
    /// 0001 schema into the content-addressed layout; every item's history
    /// and the whole trail read back exactly as before.
    #[test]
    fn migration_0002_keeps_every_history_exactly() {
        use signals_core::{ItemDetail, ItemSnapshot, ItemState, Metrics, RepoName, TrailEvent};

        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().unwrap();
        let mut store = Store {
            conn,
            path,
            keeps_totals: false,
        };
        store.migrate_with(&MIGRATIONS[..1]).unwrap();
        assert_eq!(store.schema_version().unwrap(), 1);

        // A deterministic mix: two repositories (one tracked in two groups,
        // so item ids repeat across repositories), issues, pull requests and
        // releases, bodies shared between items, metrics-only changes, body
        // edits, label and state changes, and one snapshot equal to the one
        // before it (history is moved as it is, not deduplicated).
        let mut rng: u64 = 0x5eed;
        let mut next = |n: u64| {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 33) % n
        };
        store
            .conn
            .execute_batch(
                "INSERT INTO groups VALUES ('g', 'G'), ('h', 'H');
                 INSERT INTO repositories (key, group_id, repo_id, source, full_name, display_name)
                 VALUES (1, 'g', 'n', 'github', 'o/n', 'N'), (2, 'h', 'n', 'github', 'o/n', 'N'),
                        (3, 'g', 'm', 'github', 'o/m', 'M');",
            )
            .unwrap();
        let base: jiff::Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let mut latest: std::collections::HashMap<(i64, String), ItemSnapshot> = Default::default();
        let mut snapshot_id = 0i64;
        for run in 1..=12i64 {
            let repo = 1 + (run % 3);
            let at = base + jiff::SignedDuration::from_hours(run);
            store
                .conn
                .execute(
                    "INSERT INTO runs (id, repo, collected_at, since, observed_count,
                        changed_count, requests, not_modified, bytes_received, retries, context, news)
                     VALUES (?1, ?2, ?3, ?3, 40, 0, 0, 0, 0, 0, '{}', '{}')",
                    rusqlite::params![run, repo, at.to_string()],
                )
                .unwrap();
            let name = if repo == 3 { "o/m" } else { "o/n" };
            for k in 0..(5 + next(20)) {
                let key = k.to_string();
                let detail = match k % 3 {
                    0 => ItemDetail::issue(),
                    1 => ItemDetail::PullRequest {
                        draft: next(2) == 0,
                        merged: next(2) == 0,
                        merged_at: (next(2) == 0).then_some(at),
                        association: None,
                    },
                    _ => ItemDetail::Release {
                        prerelease: next(2) == 0,
                        published_at: base,
                    },
                };
                let id = format!(
                    "github:{name}:{}:{key}",
                    match k % 3 {
                        0 => "issue",
                        1 => "pull_request",
                        _ => "release",
                    }
                );
                let mut s = latest
                    .get(&(repo, id.clone()))
                    .cloned()
                    .unwrap_or(ItemSnapshot {
                        repo: RepoName::parse(name).unwrap(),
                        key: key.clone(),
                        title: format!("item {k}"),
                        text: format!("shared body {}", next(3)).repeat(1 + next(50) as usize),
                        url: format!("https://github.com/{name}/issues/{k}"),
                        created_at: base,
                        updated_at: base,
                        metrics: Metrics::default(),
                        labels: vec![],
                        author: "a".into(),
                        state: ItemState::Open,
                        closed_at: None,
                        assignees: vec![],
                        detail: detail.clone(),
                    });
                match next(6) {
                    0 => s.metrics.reactions += 1 + next(5),
                    1 => s.text.push_str(" edited"),
                    2 => s.labels.push(format!("l{}", next(4))),
                    3 => s.state = ItemState::Closed,
                    4 => s.title = format!("renamed {}", next(100)),
                    _ => {} // the same snapshot again
                }
                s.detail = detail;
                s.updated_at = at;
                snapshot_id += 1;
                store
                    .conn
                    .execute(
                        "INSERT INTO snapshots (id, repo, item_id, kind, item_key, updated_at,
                                                title, url, content, run)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                        rusqlite::params![
                            snapshot_id,
                            repo,
                            id,
                            s.kind().as_str(),
                            key,
                            at.to_string(),
                            s.title,
                            s.url,
                            serde_json::to_string(&s).unwrap(),
                            run
                        ],
                    )
                    .unwrap();
                if next(2) == 0 {
                    store
                        .conn
                        .execute(
                            "INSERT INTO events (run, item_id, kind, detail, fields, snapshot)
                             VALUES (?1, ?2, 'changed', 'metrics', '[\"metrics\"]', ?3)",
                            rusqlite::params![run, id, snapshot_id],
                        )
                        .unwrap();
                }
                latest.insert((repo, id), s);
            }
        }

        // Histories and trails as the 0001 layout gives them.
        let v1_history = |store: &Store, repo: i64, id: &str| -> Vec<(String, ItemSnapshot)> {
            let mut stmt = store
                .conn
                .prepare(
                    "SELECT r.collected_at, s.content FROM snapshots s JOIN runs r ON r.id = s.run
                     WHERE s.repo = ?1 AND s.item_id = ?2 ORDER BY s.id",
                )
                .unwrap();
            stmt.query_map(rusqlite::params![repo, id], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .unwrap()
            .map(|r| {
                let (at, c) = r.unwrap();
                (at, serde_json::from_str(&c).unwrap())
            })
            .collect()
        };
        let items: Vec<(i64, String)> = latest.keys().cloned().collect();
        let before: Vec<_> = items
            .iter()
            .map(|(repo, id)| v1_history(&store, *repo, id))
            .collect();
        let v1_trail = |store: &Store, repo: i64| -> Vec<(String, String, String, String)> {
            let mut stmt = store
                .conn
                .prepare(
                    "SELECT r.collected_at, e.item_id, s.title, s.url FROM events e
                     JOIN runs r ON r.id = e.run JOIN snapshots s ON s.id = e.snapshot
                     WHERE r.repo = ?1 ORDER BY r.id, e.item_id",
                )
                .unwrap();
            stmt.query_map([repo], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let trails_before: Vec<_> = (1..=3).map(|r| v1_trail(&store, r)).collect();
        assert!(before.iter().map(Vec::len).sum::<usize>() > 100);

        store.migrate().unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);

        for ((repo, id), before) in items.iter().zip(before) {
            let after: Vec<(String, ItemSnapshot)> = store
                .snapshot_history(RepoKey::from_raw(*repo), id)
                .unwrap()
                .into_iter()
                .map(|(at, s)| (at.to_string(), s))
                .collect();
            assert_eq!(after, before, "history of {id} in repository {repo}");
        }
        for (repo, before) in (1..=3).zip(trails_before) {
            let after: Vec<_> = store
                .trail(RepoKey::from_raw(repo))
                .unwrap()
                .into_iter()
                .map(
                    |TrailEvent {
                         at,
                         item_id,
                         title,
                         url,
                         ..
                     }| { (at.to_string(), item_id, title, url) },
                )
                .collect();
            assert_eq!(after, before, "trail of repository {repo}");
        }
        // Every item's newest snapshot is its `latest`, and bodies shared
        // between items and snapshots are stored once.
        for ((repo, id), want) in &latest {
            let got = store
                .latest_snapshots_for(RepoKey::from_raw(*repo), std::slice::from_ref(id))
                .unwrap();
            assert_eq!(got.get(id), Some(want), "{id}");
        }
        let (texts, snapshots): (i64, i64) = store
            .conn
            .query_row(
                "SELECT (SELECT count(*) FROM texts WHERE id IN (SELECT body FROM snapshots)),
                        (SELECT count(*) FROM snapshots)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert!(
            texts < snapshots,
            "{texts} bodies for {snapshots} snapshots"
        );
        assert_eq!(snapshots, snapshot_id);
    }

    /// 0009_owner_host_id: the rows of an owner stored before are kept,
    /// without a host id until the next listing names them; a rename onto
    /// a gone repository's name then fits beside it.
    #[test]
    fn migration_0009_keeps_the_owners_rows() {
        use signals_core::owners::State;

        let conn = Connection::open_in_memory().unwrap();
        let mut store = Store {
            conn,
            path: PathBuf::from(":memory:"),
            keeps_totals: false,
        };
        store.migrate_with(&MIGRATIONS[..8]).unwrap();
        store
            .conn
            .execute_batch(
                "INSERT INTO groups VALUES ('g', 'G');
                 INSERT INTO owners (group_id, host, owner, listings) VALUES ('g', 'github', 'org', 2);
                 INSERT INTO owner_repos VALUES
                    ('g', 'github', 'org', 'org/a', 'a', 'tracked',
                     '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
                    ('g', 'github', 'org', 'org/b', 'b', 'gone',
                     '2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z');",
            )
            .unwrap();
        store.migrate_with(MIGRATIONS).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        let rows = store.owner_repos("g").unwrap();
        let got: Vec<_> = rows
            .iter()
            .map(|r| {
                let k = &r.known;
                (
                    k.full_name.to_string(),
                    k.repo_id.as_str(),
                    k.state,
                    k.host_id,
                    k.tracked_as.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("org/a".to_string(), "a", State::Tracked, None, None),
                ("org/b".to_string(), "b", State::Gone, None, None),
            ]
        );
        assert_eq!(rows[1].known.first_seen.to_string(), "2026-01-01T00:00:00Z");
        // Two rows may now share a name: a renamed repository and a gone one.
        store
            .conn
            .execute(
                "UPDATE owner_repos SET full_name = 'org/b', host_id = 7, tracked_as = 'org/a'
                 WHERE repo_id = 'a'",
                [],
            )
            .unwrap();
        assert_eq!(store.owner_repos("g").unwrap().len(), 2);
        // A negative host id is refused by the schema, not read back.
        assert!(
            store
                .conn
                .execute(
                    "UPDATE owner_repos SET host_id = -1 WHERE repo_id = 'b'",
                    []
                )
                .is_err()
        );
    }

    /// 0011_comments: a store from before, with runs and texts, takes
    /// comments once migrated, and a purge then takes them with it.
    #[test]
    fn migration_0011_adds_comments_to_a_store_from_before() {
        use signals_core::model::{Comment, CommentKind, ItemKind};
        use signals_store::suite::{group, issue, run_of, tracked, ts};
        use signals_store::{CommentStore, RunWrites};

        let mut store = in_memory_before("0011_comments");
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let mut run = run_of(&store, key, ts("2026-11-01T10:00:00Z"), vec![issue("1")], 1);
        // The references' tables come after the comments'.
        run.references.clear();
        store.commit_run(key, &run).unwrap();
        store.migrate_with(MIGRATIONS).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        let comment = Comment {
            kind: CommentKind::Comment,
            host_id: "1".into(),
            item_kind: ItemKind::Issue,
            item_key: "1".into(),
            author: "m".into(),
            association: None,
            bot: false,
            state: None,
            created_at: ts("2026-11-01T11:00:00Z"),
            updated_at: ts("2026-11-01T11:00:00Z"),
            body: "issue 1 body".into(),
        };
        store.store_comments(key, &[("i".into(), comment)]).unwrap();
        assert_eq!(store.replies(key).unwrap().len(), 1);
        store.purge_repository(key).unwrap();
        assert!(store.comment_texts(key).unwrap().is_empty());
    }

    /// 0019_lifecycle: a store from before, with runs, opens with no
    /// lifecycle, and keeps the next judging run's.
    #[test]
    fn migration_0019_adds_the_lifecycle_to_a_store_from_before() {
        use signals_store::RunWrites;
        use signals_store::suite::{group, issue, lifecycle_after_migration, run_of, tracked, ts};

        let mut store = in_memory_before("0019_lifecycle");
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let run = run_of(&store, key, ts("2026-11-01T10:00:00Z"), vec![issue("1")], 1);
        store.commit_run(key, &run).unwrap();
        store.migrate_with(MIGRATIONS).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        lifecycle_after_migration(&mut store, key);
    }

    /// 0020_advisories_downloads: a store from before, with an issue,
    /// takes advisories (the items table rebuilt, its rows and index kept)
    /// and download counts.
    #[test]
    fn migration_0020_adds_advisories_and_downloads_to_a_store_from_before() {
        use signals_store::suite::{
            a_migrated_store_takes_advisories_and_downloads, group, issue, run_of, tracked, ts,
        };
        use signals_store::{Reads, RunWrites};

        let mut store = in_memory_before("0020_advisories_downloads");
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let run = run_of(&store, key, ts("2026-11-01T10:00:00Z"), vec![issue("1")], 1);
        store.commit_run(key, &run).unwrap();
        store.migrate_with(MIGRATIONS).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        let index: i64 = store
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'items_by_latest'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(index, 1, "the items' index is back");
        assert_eq!(store.open_item_ids(key).unwrap().len(), 1);
        a_migrated_store_takes_advisories_and_downloads(&mut store, key);
    }

    #[test]
    fn migration_0014_indexes_a_store_from_before_and_drops_the_trigrams() {
        use signals_core::search::{Query, evaluate};
        use signals_store::search::{Postings, catch_up};
        use signals_store::suite::{group, issue, run_of, tracked, ts};
        use signals_store::{RunWrites, SearchIndex};

        let mut store = in_memory_before("0014_word_index");
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let mut crash = issue("1");
        crash.text = "It crashes on start".into();
        let run = run_of(
            &store,
            key,
            ts("2026-11-01T10:00:00Z"),
            vec![crash, issue("2")],
            1,
        );
        store.commit_run(key, &run).unwrap();
        store.migrate_with(MIGRATIONS).unwrap();
        let trigrams: i64 = store
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name LIKE 'texts_trigrams%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(trigrams, 0, "the trigram index and its triggers are gone");
        assert_eq!(
            store.search_state(key).unwrap().through,
            0,
            "not indexed yet"
        );
        assert_eq!(catch_up(&mut store, key).unwrap(), 2);
        let query = Query::parse("crashes").unwrap();
        let stats = store.search_state(key).unwrap().stats;
        let hits = evaluate(
            &query,
            stats,
            &mut Postings {
                store: &store,
                repo: key,
            },
        )
        .unwrap();
        assert_eq!(hits.len(), 1);
    }
}
