//! The store through its public API only: the shared store suite
//! (`signals_store::suite`, also run against PostgreSQL) on SQLite, and
//! what only a SQLite file has (reopening, the bytes of the file).

use std::path::PathBuf;

use signals_store::suite::{self, CHECKS, group, issue, run_of, tracked, ts};
use signals_store::{Backend, CachedResponse, HttpState, RateLimit, RunWrites, StoreError};
use signals_store_sqlite::Store;

#[test]
fn the_store_suite_passes_on_sqlite_in_memory() {
    suite::run_all(&mut || Box::new(Store::open_in_memory().unwrap()));
}

#[test]
fn the_store_suite_passes_on_sqlite_files() {
    let dir = temp_dir("suite");
    let mut n = 0;
    // Each fresh store is a new file, reopened once: what was written
    // survives closing the file.
    let mut make = || -> Box<dyn Backend> {
        n += 1;
        let path = dir.join(format!("s{n}.db"));
        drop(Store::open(&path).unwrap());
        Box::new(Store::open(&path).unwrap())
    };
    for (name, check) in CHECKS.iter().take(5) {
        eprintln!("store suite on files: {name}");
        check(&mut make);
    }
    let _ = std::fs::remove_dir_all(dir);
}
/// A fresh folder for one test's store file.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("signals-store-it-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A token that must never reach the file; the fingerprint is what the
/// caller derives from it.
const FAKE_TOKEN: &str = "ghp_FAKEtokenDoNotStore0123456789abcdefXYZ";

fn fingerprint(token: &str) -> String {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut h = DefaultHasher::new();
    token.hash(&mut h);
    format!("{:016x}", h.finish())
}

#[test]
fn the_store_file_never_contains_the_token() {
    let dir = temp_dir("token");
    let path = dir.join("signals.db");
    let mut store = Store::open(&path).unwrap();
    let fp = fingerprint(FAKE_TOKEN);
    let at = ts("2026-11-21T10:00:00Z");
    let response = CachedResponse {
        etag: Some("\"abc\"".into()),
        last_modified: Some("Sat, 21 Nov 2026 10:00:00 GMT".into()),
        link_next: Some("https://api.github.com/repos/o/n/issues?page=2".into()),
        body: b"[]".to_vec(),
    };
    store
        .cache_put(
            "https://api.github.com/repos/o/n/issues?page=1",
            &fp,
            &response,
            at,
        )
        .unwrap();
    // A careless caller putting the token in the URL is refused.
    let leaky = format!("https://api.github.com/repos/o/n?access_token={FAKE_TOKEN}");
    assert!(matches!(
        store.cache_put(&leaky, &fp, &response, at),
        Err(StoreError::CredentialsInUrl)
    ));
    let leaky = format!("https://x-access-token:{FAKE_TOKEN}@github.com/o/n");
    assert!(store.cache_put(&leaky, &fp, &response, at).is_err());
    store
        .rate_limit_put(
            &fp,
            &RateLimit {
                limit: 5000,
                remaining: 4999,
                reset: Some(at),
                used: None,
                resource: None,
            },
            at,
        )
        .unwrap();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let run = run_of(&store, key, at, vec![issue("1")], 1);
    store.commit_run(key, &run).unwrap();
    assert_eq!(
        store
            .cache_get("https://api.github.com/repos/o/n/issues?page=1", &fp)
            .unwrap(),
        Some(response)
    );
    drop(store);

    // The database and any WAL or shared-memory file beside it.
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        bytes.extend(std::fs::read(entry.unwrap().path()).unwrap());
    }
    let contains = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    assert!(
        !contains(FAKE_TOKEN.as_bytes()),
        "the token was written to the store"
    );
    // The search does see stored data: the fingerprint and the body are there.
    assert!(
        contains(fp.as_bytes()),
        "fingerprint not found in the files"
    );
    assert!(contains(b"Sat, 21 Nov 2026 10:00:00 GMT"));
    let _ = std::fs::remove_dir_all(dir);
}

/// Migration 0021: a store file from before the merges' table (20
/// migrations) opens, its runs stand, and a run's merges are kept.
#[test]
fn migration_0021_adds_the_merges_to_a_store_from_before() {
    let dir = temp_dir("merges0021");
    let path = dir.join("before.db");
    let key = {
        let mut store = Store::open_before(&path, 20).unwrap();
        assert_eq!(store.schema_version().unwrap(), 20);
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let run = run_of(&store, key, ts("2026-11-01T10:00:00Z"), vec![issue("1")], 1);
        store.commit_run(key, &run).unwrap();
        key
    };
    let mut store = Store::open(&path).unwrap();
    assert!(store.schema_version().unwrap() >= 21);
    suite::merges_after_migration(&mut store, key);
    let _ = std::fs::remove_dir_all(dir);
}
