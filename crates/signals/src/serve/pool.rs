//! A small pool of store connections for `serve`'s blocking reads.
//!
//! The stores are blocking (rusqlite, the `postgres` crate), so every read
//! runs on tokio's blocking threads, each holding one connection of the
//! pool for its duration. The pool's size bounds both the reads running at
//! once and the blocking threads they use: a request that finds every
//! connection busy waits for one, without a thread. SQLite in WAL mode
//! lets the connections read at once; on PostgreSQL each is a session.

use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use tokio::sync::Semaphore;

use crate::store::Opened;

/// Store connections shared by the request handlers.
pub struct Pool {
    idle: Mutex<Vec<Opened>>,
    free: Semaphore,
}

impl Drop for Pool {
    /// Closes the connections on a thread of their own: the pool is
    /// dropped inside the server's runtime when it stops, and the
    /// PostgreSQL client closes its session by blocking on a runtime of its
    /// own, which tokio refuses inside another ("Cannot start a runtime
    /// from within a runtime", a panic on every stop of `serve` on
    /// PostgreSQL).
    fn drop(&mut self) {
        let idle = match self.idle.get_mut() {
            Ok(idle) => std::mem::take(idle),
            Err(poisoned) => std::mem::take(poisoned.into_inner()),
        };
        if idle.is_empty() {
            return;
        }
        let closing = std::thread::spawn(move || drop(idle));
        let _ = closing.join();
    }
}

impl Pool {
    /// Opens `size` connections to the configured store.
    pub fn open(store: &Path, size: usize) -> anyhow::Result<Pool> {
        let size = size.max(1);
        let mut idle = Vec::with_capacity(size);
        for _ in 0..size {
            let opened = crate::store::open(store, crate::store::IfMissing::Refuse)?;
            if let crate::store::Opened::Sqlite(s) = &opened {
                s.serve_reads()?;
            }
            idle.push(opened);
        }
        Ok(Pool {
            idle: Mutex::new(idle),
            free: Semaphore::new(size),
        })
    }

    /// Runs `read` with a connection on a blocking thread, waiting for a
    /// free connection first.
    pub async fn run<T, F>(self: &Arc<Self>, read: F) -> anyhow::Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Opened) -> T + Send + 'static,
    {
        let permit = self
            .free
            .acquire()
            .await
            .context("the store connections were closed")?;
        let connection = self
            .idle
            .lock()
            .map_err(|_| anyhow::anyhow!("the store connections were lost to a panic"))?
            .pop()
            .context("no store connection is free, though one should be")?;
        let pool = Arc::clone(self);
        let joined = tokio::task::spawn_blocking(move || {
            let answer = read(&connection);
            if let Ok(mut idle) = pool.idle.lock() {
                idle.push(connection);
            }
            answer
        })
        .await;
        match joined {
            Ok(answer) => {
                drop(permit);
                Ok(answer)
            }
            // The read panicked and took its connection with it: the pool
            // is one smaller from now on.
            Err(e) => {
                permit.forget();
                Err(anyhow::anyhow!("a store read failed: {e}"))
            }
        }
    }
}
