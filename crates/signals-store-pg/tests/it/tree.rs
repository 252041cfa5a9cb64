//! The PostgreSQL store builds without SQLite. Its dependency
//! tree, normal and dev, as `cargo tree` resolves it for this machine,
//! holds no SQLite binding, so a PostgreSQL-only build compiles none.

use std::process::Command;

/// The packages of `cargo tree -p <package> -e <edges>`, by name.
fn tree(package: &str, edges: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "-p", package, "-e", edges, "--prefix", "none"])
        .args(["--format", "{p}", "--manifest-path"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn issue_29_no_sqlite_in_the_postgresql_store_tree() {
    let pg = tree("signals-store-pg", "normal,dev");
    assert!(pg.contains(&"postgres".to_string()), "{pg:?}");
    for sqlite in ["rusqlite", "libsqlite3-sys", "signals-store-sqlite"] {
        assert!(!pg.contains(&sqlite.to_string()), "{sqlite} in {pg:?}");
    }
}

#[test]
fn issue_29_the_store_traits_depend_on_no_database() {
    let store = tree("signals-store", "normal");
    assert!(store.contains(&"signals-core".to_string()), "{store:?}");
    for db in ["rusqlite", "libsqlite3-sys", "postgres", "tokio-postgres"] {
        assert!(!store.contains(&db.to_string()), "{db} in {store:?}");
    }
}
