//! A real PostgreSQL server for tests and benchmarks, never a mock.
//!
//! [`Cluster::start`] runs Debian's (or any) PostgreSQL server binaries:
//! `initdb` into a new temporary folder, then `pg_ctl start` listening on
//! 127.0.0.1 only, on a free port, with trust authentication (loopback
//! only, throwaway data) and `fsync=off` (the data dies with the test).
//! Dropping the [`Cluster`] stops the server and removes the folder, so no
//! service is left running.
//!
//! The server refuses to run as root, and CI runs as root: then every server
//! command runs as the `postgres` user (`runuser -u postgres`), which owns
//! the folder. Without PostgreSQL installed, `start` answers `Ok(None)` with
//! a notice (the tests skip), unless `SIGNALS_REQUIRE_POSTGRES=1` (CI), where
//! it is an error.

#![deny(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// A running throwaway PostgreSQL server.
#[derive(Debug)]
pub struct Cluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    as_postgres: bool,
}

/// The folder of the server binaries: the newest
/// `/usr/lib/postgresql/<N>/bin` with `initdb` and `pg_ctl`, else the one
/// of `initdb` on `PATH`.
fn server_bin() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let n: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            (bin.join("initdb").is_file() && bin.join("pg_ctl").is_file()).then_some((n, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .find(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file())
    })
}

fn required() -> bool {
    std::env::var("SIGNALS_REQUIRE_POSTGRES").is_ok_and(|v| !v.is_empty() && v != "0")
}

fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| format!("cannot find a free loopback port: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("cannot find a free loopback port: {e}"))
}

fn describe(what: &str, out: &Output) -> String {
    format!(
        "{what} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr).trim(),
        String::from_utf8_lossy(&out.stdout).trim()
    )
}

impl Cluster {
    /// Starts a fresh cluster (see the crate documentation). `Ok(None)`
    /// when PostgreSQL is not installed and not required.
    pub fn start() -> Result<Option<Cluster>, String> {
        let Some(bin) = server_bin() else {
            if required() {
                return Err("PostgreSQL is not installed (no initdb and pg_ctl under \
                            /usr/lib/postgresql/*/bin or on PATH), and \
                            SIGNALS_REQUIRE_POSTGRES is set: apt-get install postgresql"
                    .into());
            }
            eprintln!(
                "skipping: PostgreSQL is not installed (apt-get install postgresql); \
                 set SIGNALS_REQUIRE_POSTGRES=1 to fail instead"
            );
            return Ok(None);
        };
        // SAFETY: geteuid has no preconditions.
        let as_postgres = unsafe { libc::geteuid() } == 0;
        let port = free_port()?;
        let dir = std::env::temp_dir().join(format!(
            "signals-pg-{}-{port}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let cluster = Cluster {
            bin,
            dir,
            port,
            as_postgres,
        };
        if as_postgres {
            chown_to_postgres(&cluster.dir)?;
        }
        let data = cluster.dir.join("data");
        let out = cluster
            .server_command("initdb")
            .arg("-D")
            .arg(&data)
            .args(["-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"])
            .output()
            .map_err(|e| format!("cannot run initdb: {e}"))?;
        if !out.status.success() {
            return Err(describe("initdb", &out));
        }
        let options = format!(
            "-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} \
             -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
             -c max_connections=200",
            cluster.dir.display()
        );
        let out = cluster
            .server_command("pg_ctl")
            .arg("-D")
            .arg(&data)
            .arg("-o")
            .arg(options)
            .arg("-l")
            .arg(cluster.dir.join("server.log"))
            .args(["-w", "-t", "60", "start"])
            .output()
            .map_err(|e| format!("cannot run pg_ctl: {e}"))?;
        if !out.status.success() {
            let log = std::fs::read_to_string(cluster.dir.join("server.log")).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(10).collect();
            return Err(format!(
                "{}; server log: {}",
                describe("pg_ctl start", &out),
                tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
            ));
        }
        Ok(Some(cluster))
    }

    /// A server binary as the user that may run it.
    fn server_command(&self, name: &str) -> Command {
        let program = self.bin.join(name);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        }
    }

    /// Creates an empty database and returns its URL,
    /// `postgres://postgres@127.0.0.1:<port>/<name>`.
    pub fn create_database(&self, name: &str) -> Result<String, String> {
        let createdb = self.bin.join("createdb");
        let mut command = if createdb.is_file() {
            Command::new(createdb)
        } else {
            Command::new("createdb")
        };
        let out = command
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
            ])
            .arg(name)
            .output()
            .map_err(|e| format!("cannot run createdb: {e}"))?;
        if !out.status.success() {
            return Err(describe(&format!("createdb {name}"), &out));
        }
        Ok(self.url(name))
    }

    /// The URL of database `name` on this server.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// The port the server listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of the `postgres` database (for admin queries).
    pub fn admin_url(&self) -> String {
        self.url("postgres")
    }

    /// The server's folder (data and log).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

fn chown_to_postgres(dir: &Path) -> Result<(), String> {
    let name = c"postgres";
    // SAFETY: getpwnam reads a NUL-terminated name; the result is checked
    // for null before use and read at once.
    let (uid, gid) = unsafe {
        let pw = libc::getpwnam(name.as_ptr());
        if pw.is_null() {
            return Err(
                "running as root, but there is no `postgres` user to run the \
                        server as (apt-get install postgresql creates it)"
                    .into(),
            );
        }
        ((*pw).pw_uid, (*pw).pw_gid)
    };
    std::os::unix::fs::chown(dir, Some(uid), Some(gid))
        .map_err(|e| format!("cannot give {} to postgres: {e}", dir.display()))
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        for mode in ["fast", "immediate"] {
            let stopped = self
                .server_command("pg_ctl")
                .arg("-D")
                .arg(&data)
                .args(["-m", mode, "-w", "-t", "30", "stop"])
                .output()
                .is_ok_and(|o| o.status.success());
            if stopped {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_starts_serves_databases_and_goes_away() {
        let Some(cluster) = Cluster::start().unwrap() else {
            return;
        };
        let a = cluster.create_database("a").unwrap();
        let b = cluster.create_database("b").unwrap();
        assert_ne!(a, b);
        assert!(cluster.create_database("a").is_err(), "a exists already");
        let dir = cluster.dir().to_path_buf();
        let pid_file = dir.join("data/postmaster.pid");
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let port = cluster.port();
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
        drop(cluster);
        assert!(!dir.exists(), "the folder is removed");
        // Gone, or a zombie waiting for a parent that does not reap (PID 1
        // of some containers): either way, no longer running.
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let running = state
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'));
        assert!(!running, "the server process {pid} still runs: {state}");
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
    }
}
