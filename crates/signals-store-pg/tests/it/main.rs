//! The PostgreSQL store's one integration test binary, against a real
//! server (signals-testpg): the store suite and what only this backend has
//! (`suite.rs`), the kept totals' migration (`totals.rs`), the word index's
//! split blocks' migration (`search_split.rs`), the lifecycle's
//! (`lifecycle.rs`), advisories' and downloads' (`advisories.rs`), and concurrent
//! writers (`concurrency.rs`), skipped without
//! PostgreSQL unless SIGNALS_REQUIRE_POSTGRES=1; and the crate's dependency
//! tree (`tree.rs`).

mod advisories;
mod concurrency;
mod lifecycle;
mod references;
mod related;
mod search_split;
mod suite;
mod totals;
mod tree;

/// A server for the tests: a throwaway cluster, or `None` (skip) without
/// PostgreSQL.
fn cluster() -> Option<signals_testpg::Cluster> {
    signals_testpg::Cluster::start().unwrap_or_else(|e| panic!("{e}"))
}
