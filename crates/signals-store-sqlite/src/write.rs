//! The write side on SQLite: registering repositories, committing a run,
//! recording a failed attempt, purging a repository.
//!
//! A run is committed all or nothing in one `BEGIN IMMEDIATE` transaction;
//! any error (a refused run, a constraint, a full disk) drops the
//! transaction, which rolls it back, so the store is exactly as before.

use jiff::Timestamp;
use rusqlite::{TransactionBehavior, params};
use signals_core::{Group, TrackedRepo};
use signals_store::codec::{to_json, ts_text};
use signals_store::{RepoKey, Result, RunCommit, RunWrites, StoreError, check_commit};

use crate::Store;
use crate::error::DbContext;
use crate::run_rows::{finish_run, insert_run, invalid, last_run, store_events};
use crate::snapshots;

impl RunWrites for Store {
    fn ensure_repository(&mut self, group: &Group, repo: &TrackedRepo) -> Result<RepoKey> {
        let path = self.path.clone();
        let keywords = to_json(&path, "repository keywords", &repo.keywords)?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .doing(&path, "registering a repository")?;
        tx.execute(
            "INSERT INTO groups (id, name) VALUES (?1, ?2)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name",
            params![group.id, group.name],
        )
        .doing(&path, "registering a group")?;
        let key: i64 = tx
            .query_row(
                "INSERT INTO repositories
                    (group_id, repo_id, source, full_name, display_name, keywords)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (group_id, repo_id) DO UPDATE SET
                    source = excluded.source,
                    display_name = excluded.display_name,
                    keywords = excluded.keywords,
                    -- A rename seen on the host is about the old configured
                    -- name; it no longer applies once the configuration changes.
                    host_name = CASE WHEN full_name = excluded.full_name
                                     THEN host_name ELSE NULL END,
                    full_name = excluded.full_name
                 RETURNING key",
                params![
                    group.id,
                    repo.id,
                    repo.source.as_str(),
                    repo.repo.to_string(),
                    repo.name,
                    keywords
                ],
                |r| r.get(0),
            )
            .doing(&path, "registering a repository")?;
        tx.commit().doing(&path, "registering a repository")?;
        Ok(RepoKey::from_raw(key))
    }

    /// One `BEGIN IMMEDIATE` transaction; on a full disk, the space its
    /// rolled-back pages took in the WAL is given back.
    fn commit_run(&mut self, repo: RepoKey, run: &RunCommit) -> Result<()> {
        let result = self.commit_run_once(repo, run);
        self.give_back(result)
    }

    fn record_failure(
        &mut self,
        repo: RepoKey,
        at: Timestamp,
        kind: &str,
        message: &str,
    ) -> Result<()> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .doing(&path, "recording a failed attempt")?;
        let updated = tx
            .execute(
                "UPDATE repositories SET missing = ?2, last_error = ?3 WHERE key = ?1",
                params![repo.raw(), kind == "not_found", message],
            )
            .doing(&path, "recording a failed attempt")?;
        if updated == 0 {
            return Err(StoreError::UnknownRepository { path, key: repo });
        }
        tx.execute(
            "INSERT INTO failures (repo, at, kind, message) VALUES (?1, ?2, ?3, ?4)",
            params![repo.raw(), ts_text(at), kind, message],
        )
        .doing(&path, "recording a failed attempt")?;
        if self.keeps_totals {
            crate::totals::add_failure(&tx, &path, repo, &ts_text(at))?;
        }
        tx.commit().doing(&path, "recording a failed attempt")
    }

    fn purge_repository(&mut self, repo: RepoKey) -> Result<u64> {
        let path = self.path.clone();
        let doing = "deleting a repository";
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .doing(&path, doing)?;
        tx.execute(
            "DELETE FROM events WHERE run IN (SELECT id FROM runs WHERE repo = ?1)",
            params![repo.raw()],
        )
        .doing(&path, doing)?;
        tx.execute(
            "DELETE FROM snapshots WHERE item IN (SELECT id FROM items WHERE repo = ?1)",
            params![repo.raw()],
        )
        .doing(&path, doing)?;
        tx.execute(
            "DELETE FROM item_keys WHERE item IN (SELECT id FROM items WHERE repo = ?1)",
            params![repo.raw()],
        )
        .doing(&path, doing)?;
        crate::staging::discard(&tx, &path, repo)?;
        // The lists naming its items lose them: their repositories' marks
        // move, so the export renders them again.
        tx.execute(
            "INSERT INTO related_state (repo, through, mark)
             SELECT DISTINCT repo, 0, 1 FROM related_lists WHERE other_repo = ?1 AND repo <> ?1
             ON CONFLICT (repo) DO UPDATE SET mark = mark + 1",
            params![repo.raw()],
        )
        .doing(&path, doing)?;
        tx.execute(
            "DELETE FROM related_lists WHERE other_repo = ?1",
            params![repo.raw()],
        )
        .doing(&path, doing)?;
        for table in [
            "lifecycle",
            "asset_downloads",
            "merges",
            "item_refs",
            "reference_marks",
            "repo_totals",
            "items",
            "failures",
            "comments",
            "search_postings",
            "search_docs",
            "search_state",
            "search_dirty",
            "related_profiles",
            "related_texts",
            "related_lists",
            "related_state",
            "related_gone",
        ] {
            tx.execute(
                &format!("DELETE FROM {table} WHERE repo = ?1"),
                params![repo.raw()],
            )
            .doing(&path, doing)?;
        }
        // Texts are shared by content between repositories; those no
        // snapshot uses any more go too. This scans `texts`, which a purge,
        // rare and asked for by hand, can afford.
        tx.execute(
            "DELETE FROM texts WHERE id NOT IN (SELECT head FROM snapshots)
                                 AND id NOT IN (SELECT body FROM snapshots)
                                 AND id NOT IN (SELECT labels FROM snapshots)
                                 AND id NOT IN (SELECT assignees FROM snapshots)
                                 AND id NOT IN (SELECT detail FROM snapshots)
                                 AND id NOT IN (SELECT body FROM comments)",
            [],
        )
        .doing(&path, doing)?;
        let runs = tx
            .execute("DELETE FROM runs WHERE repo = ?1", params![repo.raw()])
            .doing(&path, doing)?;
        let deleted = tx
            .execute(
                "DELETE FROM repositories WHERE key = ?1",
                params![repo.raw()],
            )
            .doing(&path, doing)?;
        if deleted == 0 {
            return Err(StoreError::UnknownRepository { path, key: repo });
        }
        tx.commit().doing(&path, doing)?;
        Ok(runs as u64)
    }
}

impl Store {
    fn commit_run_once(&mut self, repo: RepoKey, run: &RunCommit) -> Result<()> {
        let path = self.path.clone();
        let at = run.record.collected_at;
        check_commit(run).map_err(|problem| invalid(run, problem))?;

        // Everything that can be prepared outside the lock is.
        let context = to_json(&path, "run context", &run.context)?;
        let news = to_json(&path, "run news", &run.news)?;

        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .doing(&path, "starting to commit a run")?;
        if let Some(last) = last_run(&tx, &path, repo)?
            && at <= last
        {
            return Err(StoreError::RunOutOfOrder {
                path,
                repo: run.context.repository.to_string(),
                at,
                last,
            });
        }
        let run_id = insert_run(&tx, &path, repo, run, &context, &news)?;
        // Only the observed items are touched: one indexed lookup per
        // snapshot and per event, whatever the size of the repository.
        let mut new_items = 0;
        for (id, snapshot) in &run.snapshots {
            new_items += u64::from(snapshots::store_snapshot(
                &tx,
                &path,
                repo.raw(),
                id,
                snapshot,
                run_id,
            )?);
        }
        let events = signals_store::events::positioned(&run.events);
        store_events(&tx, &path, repo, run_id, run, events)?;
        crate::references::store_references(&tx, &path, repo.raw(), run_id, run)?;
        finish_run(&tx, &path, repo, run_id, run)?;
        if self.keeps_totals {
            crate::totals::add_run(&tx, &path, repo, run, new_items)?;
        }
        tx.commit().doing(&path, "committing a run")
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use signals_core::run::ItemEvent;
    use signals_core::{ItemDetail, ItemState, Metrics, Observation, Source};
    use signals_core::{ItemSnapshot, News, RepoContext, RepoName, RunRecord};
    use signals_store::Reads;
    use signals_store::RequestStats;
    use signals_store::suite::WholeReads;

    fn repo() -> TrackedRepo {
        TrackedRepo {
            id: "n".into(),
            source: Source::Github.into(),
            repo: RepoName::parse("o/n").unwrap(),
            name: "N".into(),
            keywords: vec![],
        }
    }

    fn issue(key: &str) -> ItemSnapshot {
        let at: Timestamp = "2026-11-20T00:00:00Z".parse().unwrap();
        ItemSnapshot {
            repo: RepoName::parse("o/n").unwrap(),
            key: key.into(),
            title: format!("issue {key}"),
            text: String::new(),
            url: format!("https://github.com/o/n/issues/{key}"),
            created_at: at,
            updated_at: at,
            metrics: Metrics::default(),
            labels: vec![],
            author: "a".into(),
            state: ItemState::Open,
            closed_at: None,
            assignees: vec![],
            detail: ItemDetail::issue(),
        }
    }

    /// A run discovering `keys`.
    fn discovering(at: &str, keys: &[&str]) -> RunCommit {
        let at: Timestamp = at.parse().unwrap();
        let snapshots: Vec<(String, ItemSnapshot)> = keys
            .iter()
            .map(|k| (issue(k).id(Source::Github), issue(k)))
            .collect();
        RunCommit {
            record: RunRecord {
                collected_at: at,
                since: at - jiff::SignedDuration::from_hours(24),
                observed_count: keys.len() as u64,
                changed_count: keys.len() as u64,
            },
            context: RepoContext {
                repository: RepoName::parse("o/n").unwrap(),
                url: "https://github.com/o/n".into(),
                description: String::new(),
                homepage: String::new(),
                language: String::new(),
                topics: vec![],
                default_branch: "main".into(),
                stars: 0,
                forks: 0,
                open_issues: 0,
                archived: false,
                license: None,
                pushed_at: None,
                created_at: None,
            },
            news: News::default(),
            references: vec![],
            events: snapshots
                .iter()
                .map(|(id, _)| ItemEvent {
                    item_id: id.clone(),
                    observation: Observation::Discovered,
                })
                .collect(),
            snapshots,
            stats: RequestStats::default(),
            renamed_to: None,
            messages: vec![],
            reconciled: false,
            open_pulls: Default::default(),
            downloads: Vec::new(),
            gone: Vec::new(),
        }
    }

    /// Rows in every table that a run writes to.
    fn counts(store: &Store) -> Vec<(String, i64)> {
        [
            "runs",
            "snapshots",
            "events",
            "items",
            "failures",
            "repositories",
        ]
        .into_iter()
        .map(|t| {
            let n = store
                .conn
                .query_row(&format!("SELECT count(*) FROM {t}"), [], |r| r.get(0))
                .unwrap();
            (t.to_string(), n)
        })
        .collect()
    }

    fn store_with_one_run() -> (Store, RepoKey) {
        let mut store = Store::open_in_memory().unwrap();
        let group = Group {
            id: "g".into(),
            name: "G".into(),
        };
        let key = store.ensure_repository(&group, &repo()).unwrap();
        store
            .commit_run(key, &discovering("2026-11-20T10:00:00Z", &["1"]))
            .unwrap();
        (store, key)
    }

    #[test]
    fn a_database_error_at_the_last_step_rolls_back_the_whole_run() {
        let (mut store, key) = store_with_one_run();
        // Injected failure: the events are written last, after the run and
        // its snapshots.
        store
            .conn
            .execute_batch(
                "CREATE TEMP TRIGGER fail_events BEFORE INSERT ON events
                 BEGIN SELECT RAISE(ABORT, 'injected failure'); END;",
            )
            .unwrap();
        let before = counts(&store);
        let host_before = store.repositories().unwrap();
        let err = store
            .commit_run(key, &discovering("2026-11-21T10:00:00Z", &["2", "3"]))
            .unwrap_err();
        assert!(matches!(err, StoreError::Db { .. }), "{err:?}");
        assert!(
            err.to_string().contains("storing an observation event"),
            "{err}"
        );
        assert_eq!(counts(&store), before);
        assert_eq!(store.repositories().unwrap(), host_before);
        let view = store.repository_view(key).unwrap().unwrap();
        assert_eq!(view.items.len(), 1);

        store
            .conn
            .execute_batch("DROP TRIGGER fail_events")
            .unwrap();
        store
            .commit_run(key, &discovering("2026-11-21T10:00:00Z", &["2", "3"]))
            .unwrap();
        let after = counts(&store);
        assert_eq!(after[0], ("runs".to_string(), 2));
        assert_eq!(after[1], ("snapshots".to_string(), 3));
        assert_eq!(after[2], ("events".to_string(), 3));
        assert_eq!(after[3], ("items".to_string(), 3));
    }

    #[test]
    fn contradictory_commits_are_refused_before_writing() {
        let (mut store, key) = store_with_one_run();
        let before = counts(&store);
        let at = "2026-11-21T10:00:00Z";

        let mut twice = discovering(at, &["2"]);
        twice.snapshots.push(twice.snapshots[0].clone());
        let mut orphan_event = discovering(at, &["2"]);
        orphan_event.snapshots.clear();
        let mut more_changed = discovering(at, &["2"]);
        more_changed.record.observed_count = 0;
        let mut since_after = discovering(at, &["2"]);
        since_after.record.since = "2026-11-22T00:00:00Z".parse().unwrap();

        for (bad, needle) in [
            (twice, "two snapshots"),
            (orphan_event, "has no snapshot of that item"),
            (more_changed, "greater than observedCount"),
            (since_after, "is after collectedAt"),
        ] {
            let err = store.commit_run(key, &bad).unwrap_err();
            assert!(matches!(err, StoreError::InvalidRun { .. }), "{err:?}");
            assert!(err.to_string().contains(needle), "{err}");
        }
        assert_eq!(counts(&store), before);
    }

    #[test]
    fn failures_write_only_a_failure_row() {
        let (mut store, key) = store_with_one_run();
        let mut before = counts(&store);
        let at = "2026-11-21T10:00:00Z".parse().unwrap();
        store
            .record_failure(key, at, "rate_limited", "limit reached")
            .unwrap();
        before[4].1 += 1;
        assert_eq!(counts(&store), before);
        // Not a not_found: the repository is not marked missing.
        assert!(!store.repositories().unwrap()[0].missing);
    }

    /// A tmpfs of `size` bytes, unmounted on drop; `None` (with a notice)
    /// where it cannot be mounted (not root), unless
    /// `SIGNALS_REQUIRE_TMPFS=1`.
    struct Tmpfs(std::path::PathBuf);

    impl Tmpfs {
        fn mount(name: &str, size: u64) -> Option<Tmpfs> {
            use std::io::Write;
            let dir = crate::tests::temp_dir(name);
            let out = std::process::Command::new("mount")
                .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
                .arg(&dir)
                .output();
            let why = match out {
                Ok(o) if o.status.success() => return Some(Tmpfs(dir)),
                Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
                Err(e) => e.to_string(),
            };
            let required = std::env::var("SIGNALS_REQUIRE_TMPFS").is_ok_and(|v| v == "1");
            assert!(!required, "SIGNALS_REQUIRE_TMPFS=1 but no tmpfs: {why}");
            let _ = writeln!(
                std::io::stderr(),
                "skipped: {name}: a full disk is tried on a tmpfs, which cannot be mounted \
                 here ({why}); run as root"
            );
            None
        }
    }

    impl Drop for Tmpfs {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount")
                .arg("-l")
                .arg(&self.0)
                .output();
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Fills `dir` until the disk refuses, then frees `room` bytes.
    fn fill_leaving(dir: &Path, room: u64) {
        use std::io::Write;
        let path = dir.join("filler");
        let mut file = std::fs::File::create(&path).unwrap();
        let chunk = [0xa5u8; 4096];
        while file.write_all(&chunk).and_then(|()| file.flush()).is_ok() {}
        let len = std::fs::metadata(&path).unwrap().len();
        file.set_len(len.saturating_sub(room) / 4096 * 4096)
            .unwrap();
    }

    #[test]
    fn a_commit_on_a_full_disk_is_rolled_back_and_gives_back_its_wal() {
        // The failed run's WAL kept its 2.2 MB, so freeing what
        // had been missing was not enough for the next run.
        let Some(disk) = Tmpfs::mount("full-commit", 2 << 20) else {
            return;
        };
        let path = disk.0.join("s.db");
        let mut store = Store::open(&path).unwrap();
        let group = Group {
            id: "g".into(),
            name: "G".into(),
        };
        let key = store.ensure_repository(&group, &repo()).unwrap();
        store
            .commit_run(key, &discovering("2026-11-20T10:00:00Z", &["1"]))
            .unwrap();
        let before = counts(&store);
        fill_leaving(&disk.0, 128 << 10);

        // About 1 MB of item texts, every one different.
        let keys: Vec<String> = (2..500).map(|k| k.to_string()).collect();
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let mut big = discovering("2026-11-20T11:00:00Z", &keys);
        for (_, s) in &mut big.snapshots {
            s.text = format!("{} ", s.key).repeat(400);
        }
        let err = store.commit_run(key, &big).unwrap_err();
        assert!(err.is_disk_full(), "{err:?}");
        let msg = err.to_string();
        assert!(
            msg.contains("s.db") && msg.contains("free space on the disk that holds"),
            "{msg}"
        );
        // Nothing of it kept, the store whole, and its WAL pages given back.
        assert_eq!(counts(&store), before);
        let check: String = store
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
        let wal = std::fs::metadata(disk.0.join("s.db-wal")).map_or(0, |m| m.len());
        assert_eq!(wal, 0, "the WAL kept the failed commit's pages");
        // The room is there again for a run that fits.
        store
            .commit_run(key, &discovering("2026-11-20T12:00:00Z", &["600"]))
            .unwrap();
        drop(store);
    }
}
