//! The PostgreSQL store's one integration test binary, against a real
//! server (signals-testpg): the store suite and what only this backend has
//! (`suite.rs`), and concurrent writers (`concurrency.rs`). Skipped without
//! PostgreSQL unless SIGNALS_REQUIRE_POSTGRES=1.

mod concurrency;
mod suite;

/// A server for the tests: a throwaway cluster, or `None` (skip) without
/// PostgreSQL.
fn cluster() -> Option<signals_testpg::Cluster> {
    signals_testpg::Cluster::start().unwrap_or_else(|e| panic!("{e}"))
}
