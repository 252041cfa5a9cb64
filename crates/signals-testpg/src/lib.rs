//! A real PostgreSQL server for tests and benchmarks, never a mock.
//!
//! [`Cluster::start`] runs Debian's (or any) PostgreSQL server binaries:
//! `initdb` into a new temporary folder, then `pg_ctl start` listening on
//! 127.0.0.1 only, on a free port, with trust authentication (loopback
//! only, throwaway data) and `fsync=off` (the data dies with the test).
//! Dropping the [`Cluster`] stops the server and removes the folder, so no
//! service is left running, and nothing depends on a cluster the system
//! may have started (Debian's `postgresql` service is neither used nor
//! needed).
//!
//! The server refuses to run as root, and CI runs as root: then every server
//! command runs as the `postgres` user (`runuser -u postgres`), which owns
//! the folder. Without PostgreSQL installed, `start` answers `Ok(None)` with
//! a notice (the tests skip), unless `SIGNALS_REQUIRE_POSTGRES=1` (CI), where
//! it is an error.
//!
//! Errors are plain `String`s, not a typed enum: a caller (a test or a
//! benchmark) can only show them, and each says which command failed, how,
//! and what it printed.
//!
//! No PostgreSQL client library here: databases are created with the
//! server's own `createdb`, so this crate depends on nothing but `libc`.

#![deny(missing_docs)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The variable that turns a missing PostgreSQL from a skip into an error.
pub const REQUIRE_VAR: &str = "SIGNALS_REQUIRE_POSTGRES";

/// How many times `start` tries a new port when the one it picked was taken
/// between the check and the server's bind (another test, another cluster).
const PORT_ATTEMPTS: usize = 3;

/// What a caller may ask of a cluster beyond the defaults of
/// [`Cluster::start`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Loads `pg_stat_statements` at start (`shared_preload_libraries`,
    /// which only a start can set), tracking top-level statements: a
    /// benchmark or test then runs `CREATE EXTENSION pg_stat_statements`
    /// in its database and reads the `pg_stat_statements` view. Debian's
    /// `postgresql` package ships the module.
    pub stat_statements: bool,
}

/// A running throwaway PostgreSQL server.
#[derive(Debug)]
pub struct Cluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    as_postgres: bool,
}

/// The folder of the server binaries: the newest
/// `/usr/lib/postgresql/<N>/bin` with `initdb` and `pg_ctl` (Debian's
/// layout, several majors side by side), else the first folder on `PATH`
/// holding both.
fn server_bin() -> Option<PathBuf> {
    find_server(
        Path::new("/usr/lib/postgresql"),
        std::env::var_os("PATH").as_deref(),
    )
}

/// [`server_bin`] over any root and `PATH` value.
fn find_server(root: &Path, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let n: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            has_server(&bin).then_some((n, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    path.and_then(|path| std::env::split_paths(path).find(|d| has_server(d)))
}

fn has_server(dir: &Path) -> bool {
    dir.join("initdb").is_file() && dir.join("pg_ctl").is_file()
}

/// Whether a missing PostgreSQL is an error: the variable is set to
/// anything but empty or `0`.
fn required() -> bool {
    std::env::var(REQUIRE_VAR).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// What `start` answers without server binaries: a skip with a notice
/// written to `notice` (standard error, but in the test of this very
/// notice, which must not print it where PostgreSQL is installed), or an
/// error when PostgreSQL is required.
fn not_installed(required: bool, notice: &mut dyn Write) -> Result<Option<Cluster>, String> {
    if required {
        return Err(format!(
            "PostgreSQL is not installed (no initdb and pg_ctl under \
             /usr/lib/postgresql/*/bin or on PATH), and {REQUIRE_VAR} is set: \
             apt-get install postgresql"
        ));
    }
    // Straight to stderr: the test harness captures `eprintln!`, and this
    // notice must be seen even when the test passes.
    let _ = writeln!(
        notice,
        "skipping: PostgreSQL is not installed (apt-get install postgresql); \
         set {REQUIRE_VAR}=1 to fail instead"
    );
    Ok(None)
}

fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| format!("cannot find a free loopback port: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("cannot find a free loopback port: {e}"))
}

/// `<what> failed (exit status: N): <stderr> <stdout>`.
fn describe(what: &str, out: &Output) -> String {
    let text = |b: &[u8]| String::from_utf8_lossy(b).trim().to_string();
    let printed = [text(&out.stderr), text(&out.stdout)]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" | ");
    format!("{what} failed ({}): {printed}", out.status)
}

/// The last `n` lines of a file, joined with ` | ` (empty if unreadable).
fn tail(path: &Path, n: usize) -> String {
    let log = std::fs::read_to_string(path).unwrap_or_default();
    let mut lines: Vec<&str> = log.lines().rev().take(n).collect();
    lines.reverse();
    lines.join(" | ")
}

/// A database name `create_database` accepts: what fits in a URL path
/// unescaped and in PostgreSQL's 63-byte identifiers.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl Cluster {
    /// Starts a fresh cluster: `initdb` into a new temporary folder, then
    /// `pg_ctl start` on a free 127.0.0.1 port (`listen_addresses` is
    /// 127.0.0.1 only, the Unix socket is in the folder, `fsync=off`,
    /// `max_connections=200`).
    ///
    /// `Ok(None)`, with one notice line on stderr, when PostgreSQL's server
    /// binaries are not installed and `SIGNALS_REQUIRE_POSTGRES` is unset or
    /// `0`; `Err` when it is set, or when a step fails (the message names
    /// the command, its exit status, what it printed and the server log's
    /// last lines).
    pub fn start() -> Result<Option<Cluster>, String> {
        Cluster::start_with(&Options::default())
    }

    /// [`Cluster::start`] with `options` (the server's extra settings).
    pub fn start_with(options: &Options) -> Result<Option<Cluster>, String> {
        let Some(bin) = server_bin() else {
            return not_installed(required(), &mut std::io::stderr());
        };
        // SAFETY: geteuid has no preconditions.
        let as_postgres = unsafe { libc::geteuid() } == 0;
        let mut last = String::new();
        for _ in 0..PORT_ATTEMPTS {
            match Cluster::start_once(&bin, as_postgres, free_port()?, options) {
                Ok(cluster) => return Ok(Some(cluster)),
                // The port was free when picked but taken before the server
                // bound it: try another one.
                Err((e, true)) => last = e,
                Err((e, false)) => return Err(e),
            }
        }
        Err(last)
    }

    /// One attempt on `port`; the error's flag says whether the port was
    /// taken.
    fn start_once(
        bin: &Path,
        as_postgres: bool,
        port: u16,
        options: &Options,
    ) -> Result<Cluster, (String, bool)> {
        let fail = |e: String| (e, false);
        let dir = std::env::temp_dir().join(format!(
            "signals-pg-{}-{port}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| fail(format!("cannot create {}: {e}", dir.display())))?;
        // From here on, dropping `cluster` (on any error) stops whatever
        // started and removes the folder.
        let cluster = Cluster {
            bin: bin.to_path_buf(),
            dir,
            port,
            as_postgres,
        };
        if as_postgres {
            chown_to_postgres(&cluster.dir).map_err(fail)?;
        }
        let data = cluster.data();
        let out = cluster
            .server_command("initdb")
            .arg("-D")
            .arg(&data)
            .args(["-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"])
            .output()
            .map_err(|e| fail(cluster.cannot_run("initdb", &e)))?;
        if !out.status.success() {
            return Err(fail(describe("initdb", &out)));
        }
        // Settings for a throwaway server: durability off (the data dies with
        // the test), enough connections for several workers with pools.
        let mut settings = format!(
            "-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} \
             -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
             -c max_connections=200",
            cluster.dir.display()
        );
        if options.stat_statements {
            settings.push_str(
                " -c shared_preload_libraries=pg_stat_statements \
                 -c pg_stat_statements.track=top -c pg_stat_statements.max=10000",
            );
        }
        let log = cluster.dir.join("server.log");
        let out = cluster
            .server_command("pg_ctl")
            .arg("-D")
            .arg(&data)
            .arg("-o")
            .arg(settings)
            .arg("-l")
            .arg(&log)
            .args(["-w", "-t", "60", "start"])
            // The server inherits pg_ctl's descriptors: with pipes, `output`
            // would wait for the server to exit. Its own output goes to the
            // log; pg_ctl's stderr, which the error needs, to a file.
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::File::create(cluster.dir.join("pg_ctl.err"))
                    .map(Stdio::from)
                    .unwrap_or_else(|_| Stdio::null()),
            )
            .status()
            .map_err(|e| fail(cluster.cannot_run("pg_ctl", &e)))?;
        if !out.success() {
            let server_log = tail(&log, 10);
            let taken = server_log.contains("could not bind")
                || server_log.contains("Address already in use");
            return Err((
                format!(
                    "pg_ctl start on port {port} failed ({out}): {}; server log: {server_log}",
                    tail(&cluster.dir.join("pg_ctl.err"), 10),
                ),
                taken,
            ));
        }
        Ok(cluster)
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn cannot_run(&self, name: &str, e: &std::io::Error) -> String {
        if self.as_postgres {
            format!(
                "cannot run {} as postgres through runuser (util-linux): {e}",
                self.bin.join(name).display()
            )
        } else {
            format!("cannot run {}: {e}", self.bin.join(name).display())
        }
    }

    /// A server binary as the user that may run it, from the cluster's
    /// folder (the `postgres` user may not enter the caller's).
    fn server_command(&self, name: &str) -> Command {
        let program = self.bin.join(name);
        let mut c = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        };
        c.current_dir(&self.dir);
        c
    }

    /// A client binary (`createdb`, `psql`) of the same installation when
    /// it has one, else the one on `PATH`.
    fn client_command(&self, name: &str) -> Command {
        let program = self.bin.join(name);
        if program.is_file() {
            Command::new(program)
        } else {
            Command::new(name)
        }
    }

    /// Creates a new empty database and returns its URL,
    /// `postgres://postgres@127.0.0.1:<port>/<name>` (trust authentication
    /// on loopback, no password). `name` is ASCII letters, digits, `_` and
    /// `-`, at most 63 bytes; an existing name is an error.
    pub fn create_database(&self, name: &str) -> Result<String, String> {
        if !valid_name(name) {
            return Err(format!(
                "cannot create database {name:?}: use 1 to 63 ASCII letters, digits, _ or -"
            ));
        }
        let out = self
            .client_command("createdb")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(["-U", "postgres", "--", name])
            .env_remove("PGSERVICE")
            .env_remove("PGOPTIONS")
            .stdin(Stdio::null())
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

    /// The server's folder (data, socket and log).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Restarts the server as an upgrade or a failover would
    /// (`pg_ctl restart -m fast`): every session is ended, its open
    /// transaction rolled back, and new connections are refused until the
    /// server is back on the same port. Returns once it accepts
    /// connections again.
    pub fn restart(&self) -> Result<(), String> {
        let log = self.dir.join("server.log");
        let status = self
            .server_command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .arg("-l")
            .arg(&log)
            .args(["-m", "fast", "-w", "-t", "60", "restart"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::File::create(self.dir.join("pg_ctl.err"))
                    .map(Stdio::from)
                    .unwrap_or_else(|_| Stdio::null()),
            )
            .status()
            .map_err(|e| self.cannot_run("pg_ctl", &e))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!(
                "pg_ctl restart failed ({status}): {}; server log: {}",
                tail(&self.dir.join("pg_ctl.err"), 10),
                tail(&log, 10)
            ))
        }
    }

    /// The server's log so far (empty if it cannot be read): what tests
    /// count errors in, such as `deadlock detected`.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }

    /// The server's process id, from `postmaster.pid`.
    pub fn pid(&self) -> Option<i32> {
        std::fs::read_to_string(self.data().join("postmaster.pid"))
            .ok()?
            .lines()
            .next()?
            .trim()
            .parse()
            .ok()
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

/// Whether process `pid` still runs: it exists and is not a zombie (a
/// zombie waits for a parent that does not reap, as PID 1 of some
/// containers; it holds no port and no file).
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
        // Without /proc, ask the kernel: signal 0 only checks.
        // SAFETY: kill with signal 0 sends nothing.
        .unwrap_or_else(|| unsafe { libc::kill(pid, 0) } == 0)
}

impl Drop for Cluster {
    /// Stops the server (`pg_ctl stop -m fast`, then `-m immediate`, then
    /// SIGKILL if it still runs) and removes the folder.
    fn drop(&mut self) {
        let pid = self.pid();
        let data = self.data();
        for mode in ["fast", "immediate"] {
            if pid.is_none_or(|p| !running(p)) {
                break;
            }
            let stopped = self
                .server_command("pg_ctl")
                .arg("-D")
                .arg(&data)
                .args(["-m", mode, "-w", "-t", "20", "stop"])
                .stdin(Stdio::null())
                .output()
                .is_ok_and(|o| o.status.success());
            if stopped {
                break;
            }
        }
        if let Some(pid) = pid.filter(|&p| running(p)) {
            // SAFETY: pid is the postmaster's, read from its own pid file.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            let until = Instant::now() + Duration::from_secs(5);
            while running(pid) && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `sql` with psql on `url`, returning its unaligned output.
    fn psql(cluster: &Cluster, url: &str, sql: &str) -> String {
        let out = cluster
            .client_command("psql")
            .args(["-X", "-tA", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
            .output()
            .expect("psql runs");
        assert!(out.status.success(), "{}", describe("psql", &out));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    #[test]
    fn a_cluster_starts_serves_databases_and_goes_away() {
        let Some(cluster) = Cluster::start().unwrap() else {
            return;
        };
        let a = cluster.create_database("a").unwrap();
        let b = cluster.create_database("b_2").unwrap();
        assert_eq!(
            a,
            format!("postgres://postgres@127.0.0.1:{}/a", cluster.port())
        );
        assert_ne!(a, b);
        let err = cluster.create_database("a").unwrap_err();
        assert!(
            err.contains("createdb a failed") && err.contains("exists"),
            "{err}"
        );

        // Both databases answer, and each is its own.
        psql(
            &cluster,
            &a,
            "create table t (x int); insert into t values (1)",
        );
        assert_eq!(psql(&cluster, &a, "select count(*) from t"), "1");
        assert_eq!(psql(&cluster, &b, "select 1"), "1");
        assert_eq!(
            psql(
                &cluster,
                &b,
                "select count(*) from pg_tables where tablename = 't'"
            ),
            "0"
        );
        let admin = cluster.admin_url();
        assert_eq!(
            psql(
                &cluster,
                &admin,
                "select string_agg(datname, ',' order by datname) from pg_database \
                 where datname in ('a', 'b_2')"
            ),
            "a,b_2"
        );
        // The settings the crate promises.
        assert_eq!(psql(&cluster, &admin, "show fsync"), "off");
        assert_eq!(psql(&cluster, &admin, "show listen_addresses"), "127.0.0.1");
        let max: u32 = psql(&cluster, &admin, "show max_connections")
            .parse()
            .unwrap();
        assert!(max >= 100, "max_connections {max}");

        let dir = cluster.dir().to_path_buf();
        let pid = cluster.pid().expect("postmaster.pid names the server");
        assert!(running(pid));
        let port = cluster.port();
        drop(cluster);
        assert!(!dir.exists(), "the folder is removed");
        assert!(!running(pid), "the server process {pid} still runs");
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
    }

    #[test]
    fn a_cluster_may_load_pg_stat_statements() {
        let options = Options {
            stat_statements: true,
        };
        let Some(cluster) = Cluster::start_with(&options).unwrap() else {
            return;
        };
        let url = cluster.create_database("s").unwrap();
        assert_eq!(
            psql(&cluster, &url, "show shared_preload_libraries"),
            "pg_stat_statements"
        );
        psql(&cluster, &url, "create extension pg_stat_statements");
        psql(&cluster, &url, "select 40 + 2 as counted_once");
        let calls = psql(
            &cluster,
            &url,
            "select calls from pg_stat_statements where query like '%counted_once%'",
        );
        assert_eq!(calls, "1");
        // Without the option, the module is not loaded.
        let plain = Cluster::start().unwrap().expect("installed, as just seen");
        assert_eq!(
            psql(&plain, &plain.admin_url(), "show shared_preload_libraries"),
            ""
        );
    }

    #[test]
    fn two_clusters_run_side_by_side() {
        let Some(one) = Cluster::start().unwrap() else {
            return;
        };
        let two = Cluster::start().unwrap().expect("installed, as just seen");
        assert_ne!(one.port(), two.port());
        assert_ne!(one.dir(), two.dir());
        let url = two.create_database("x").unwrap();
        drop(one);
        // Stopping one leaves the other serving.
        assert_eq!(psql(&two, &url, "select 2"), "2");
    }

    /// A scratch folder under the temporary folder, removed on drop.
    struct Scratch(PathBuf);
    impl Scratch {
        fn new(tag: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!(
                "signals-testpg-{tag}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }
    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Writes an executable shell script.
    fn script(path: &Path, body: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn the_newest_complete_server_folder_wins_then_path() {
        let s = Scratch::new("find");
        let root = s.0.join("lib");
        for (v, names) in [
            ("13", &["initdb", "pg_ctl"][..]),
            ("15", &["initdb", "pg_ctl"]),
            ("16", &["initdb"]),
            ("x", &["initdb", "pg_ctl"]),
        ] {
            for n in names {
                script(&root.join(v).join("bin").join(n), "exit 0");
            }
        }
        let on_path = s.0.join("path-bin");
        script(&on_path.join("initdb"), "exit 0");
        script(&on_path.join("pg_ctl"), "exit 0");
        let path = std::env::join_paths([s.0.join("empty"), on_path.clone()]).unwrap();
        assert_eq!(
            find_server(&root, Some(&path)),
            Some(root.join("15").join("bin"))
        );
        assert_eq!(find_server(&s.0.join("none"), Some(&path)), Some(on_path));
        assert_eq!(find_server(&s.0.join("none"), None), None);
    }

    #[test]
    fn without_postgresql_start_skips_unless_required() {
        let mut notice = Vec::new();
        assert!(not_installed(false, &mut notice).unwrap().is_none());
        let notice = String::from_utf8(notice).unwrap();
        assert!(
            notice.starts_with("skipping: PostgreSQL is not installed")
                && notice.contains(REQUIRE_VAR),
            "{notice}"
        );
        let mut notice = Vec::new();
        let err = not_installed(true, &mut notice).unwrap_err();
        assert!(notice.is_empty(), "no skip notice when it is an error");
        assert!(
            err.contains("apt-get install postgresql") && err.contains(REQUIRE_VAR),
            "{err}"
        );
    }

    #[test]
    fn a_failing_initdb_is_reported_with_its_status_and_stderr() {
        let s = Scratch::new("initdb");
        let bin = s.0.join("bin");
        // Reachable by the postgres user too, when the test runs as root.
        script(
            &bin.join("initdb"),
            "echo 'initdb: broken on purpose' >&2; exit 7",
        );
        script(&bin.join("pg_ctl"), "exit 0");
        // SAFETY: geteuid has no preconditions.
        let as_postgres = unsafe { libc::geteuid() } == 0;
        let (err, port_taken) =
            Cluster::start_once(&bin, as_postgres, 1, &Options::default()).unwrap_err();
        assert!(!port_taken);
        assert!(
            err.starts_with("initdb failed (exit status: 7)") && err.contains("broken on purpose"),
            "{err}"
        );
    }

    #[test]
    fn a_port_taken_meanwhile_is_told_apart_from_other_failures() {
        let Some(bin) = server_bin() else { return };
        // SAFETY: geteuid has no preconditions.
        let as_postgres = unsafe { libc::geteuid() } == 0;
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = taken.local_addr().unwrap().port();
        let (err, port_taken) =
            Cluster::start_once(&bin, as_postgres, port, &Options::default()).unwrap_err();
        assert!(port_taken, "{err}");
        assert!(
            err.starts_with(&format!("pg_ctl start on port {port} failed")),
            "{err}"
        );
    }

    #[test]
    fn bad_database_names_are_refused_before_any_command() {
        for name in ["", "a/b", "a?b", "a b", "é", &"x".repeat(64)] {
            assert!(!valid_name(name), "{name:?}");
        }
        for name in ["a", "run_1", "w-2", &"x".repeat(63)] {
            assert!(valid_name(name), "{name:?}");
        }
    }

    #[test]
    fn a_failed_command_is_described_with_its_status_and_output() {
        let out = Command::new("sh")
            .args(["-c", "echo oops >&2; echo said; exit 3"])
            .output()
            .unwrap();
        let text = describe("thing", &out);
        assert!(text.starts_with("thing failed (exit status: 3)"), "{text}");
        assert!(text.contains("oops") && text.contains("said"), "{text}");
    }
}
