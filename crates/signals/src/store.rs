//! Which store the configuration names, opened: a path is a SQLite file
//! (`signals_store_sqlite`), a `postgres://` address is a PostgreSQL
//! database (`signals_store_pg`, docs/scale-out.md). The commands use
//! either through [`signals_store::Backend`]; only `collect` asks which,
//! because on PostgreSQL it leases repositories.

use std::ops::{Deref, DerefMut};
use std::path::Path;

use anyhow::Context;
use signals_store::Backend;
use signals_store_pg::PgStore;
use signals_store_sqlite::Store;

/// An open store of either kind.
pub enum Opened {
    /// The embedded default.
    Sqlite(Store),
    /// The scale-out store shared by several workers.
    Postgres(Box<PgStore>),
}

impl Deref for Opened {
    type Target = dyn Backend;
    fn deref(&self) -> &(dyn Backend + 'static) {
        match self {
            Opened::Sqlite(s) => s,
            Opened::Postgres(s) => &**s,
        }
    }
}

impl DerefMut for Opened {
    fn deref_mut(&mut self) -> &mut (dyn Backend + 'static) {
        match self {
            Opened::Sqlite(s) => s,
            Opened::Postgres(s) => &mut **s,
        }
    }
}

/// True when the configured store is a PostgreSQL address.
pub fn is_postgres(store: &Path) -> bool {
    store.to_str().is_some_and(signals_store_pg::is_postgres)
}

/// What [`open`] does when the SQLite file is not there yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IfMissing {
    /// Create it (`collect`, the target of `migrate`).
    Create,
    /// Refuse it: a read would find nothing.
    Refuse,
}

/// Opens the store, its SQLite file created or refused as `if_missing`
/// says. A PostgreSQL database must exist; its tables are created when
/// missing.
pub fn open(store: &Path, if_missing: IfMissing) -> anyhow::Result<Opened> {
    if let Some(url) = store.to_str().filter(|s| signals_store_pg::is_postgres(s)) {
        return Ok(Opened::Postgres(Box::new(PgStore::open(url)?)));
    }
    if if_missing == IfMissing::Refuse && !store.exists() {
        anyhow::bail!(
            "no store at {}: run `signals collect` first, or pass --store (or set SIGNALS_STORE)",
            store.display()
        );
    }
    let opened =
        Store::open(store).with_context(|| format!("cannot open the store {}", store.display()))?;
    Ok(Opened::Sqlite(opened))
}

/// The store for messages: the path, or the address without password.
pub fn shown(store: &Path) -> String {
    match store.to_str() {
        Some(s) if signals_store_pg::is_postgres(s) => signals_store_pg::address::redact(s),
        _ => store.display().to_string(),
    }
}
