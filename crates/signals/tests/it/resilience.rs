//! Workers that never fall over, with the real binary, a
//! loopback test host whose repositories share texts as real ones do, and
//! a real throwaway PostgreSQL: no deadlock when four workers start
//! together on an empty database, PostgreSQL restarted under a round, a
//! worker stopped past its lease, and a purge while workers commit.
//!
//! Without PostgreSQL installed these tests skip with a notice (CI sets
//! SIGNALS_REQUIRE_POSTGRES=1, so there they run).

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use signals_testhost::{Scenario, TestHost, synthetic_shared};

use crate::support::{TempDir, run, show};
use crate::workers::{
    cluster, config, observed, reference, runs_per_repo, stop, wait_for_round, worker,
};

/// `o/r000` .. : 40 items each, authors and bodies shared across them.
fn shared(repos: usize) -> (Scenario, Vec<String>) {
    let start: Timestamp = "2026-10-01T00:00:00Z".parse().unwrap();
    let synthetic = synthetic_shared("o", repos, 40, 8, start);
    (synthetic.scenario, synthetic.names)
}

/// A throwaway cluster with an empty database, a test host serving
/// `repos` repositories of shared texts `latency_ms` late, and a folder
/// whose `signals.toml` points at both. `None` without PostgreSQL.
struct Rig {
    cluster: signals_testpg::Cluster,
    url: String,
    host: TestHost,
    dir: TempDir,
    repos: Vec<String>,
}

fn rig(name: &str, repos: usize, latency_ms: u64) -> Option<Rig> {
    let cluster = cluster()?;
    let url = cluster.create_database(name).unwrap();
    let (scenario, repos) = shared(repos);
    let host = TestHost::start(scenario).unwrap();
    host.set_latency(Duration::from_millis(latency_ms));
    let dir = TempDir::new(&format!("resilience-{name}"));
    std::fs::write(
        dir.path().join("signals.toml"),
        config(&url, &host.api_url(), &repos),
    )
    .unwrap();
    Some(Rig {
        cluster,
        url,
        host,
        dir,
        repos,
    })
}

/// Worker processes; those a failing test did not stop are killed when it
/// unwinds, so no worker outlives its test.
struct Fleet(Vec<Child>);

impl Fleet {
    fn start(dir: &std::path::Path, n: usize, lease: &str) -> Fleet {
        Fleet(
            (0..n)
                .map(|i| worker(dir, &format!("token-{i}"), lease))
                .collect(),
        )
    }

    /// Every worker still runs (none exited on an error).
    fn all_alive(&mut self) {
        for w in &mut self.0 {
            let id = w.id();
            let exited = w.try_wait().unwrap();
            assert!(exited.is_none(), "worker {id} exited: {exited:?}");
        }
    }

    /// Stops them all with SIGTERM; what each logged.
    fn stop(mut self) -> Vec<String> {
        std::mem::take(&mut self.0).into_iter().map(stop).collect()
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        for w in &mut self.0 {
            let _ = w.kill();
            let _ = w.wait();
        }
    }
}

/// Stops the one worker of `sleeper` (SIGSTOP) past its lease, starts
/// another (token-b, `lease`) that must finish the round of 3
/// repositories, then wakes the first (SIGCONT): it must still run, write
/// nothing, and log that its lease expired. Returns its log.
fn stall_then_wake(mut sleeper: Fleet, dir: &std::path::Path, url: &str, lease: &str) -> String {
    let pid = sleeper.0[0].id() as i32;
    // SAFETY: signals to a live child.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    std::thread::sleep(Duration::from_secs(3));
    let other = Fleet(vec![worker(dir, "token-b", lease)]);
    wait_for_round(url, 3);
    let before = runs_per_repo(url);
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    std::thread::sleep(Duration::from_secs(3));
    sleeper.all_alive();
    let log = sleeper.stop().remove(0);
    other.stop();
    assert!(
        log.contains("expired before its run was committed"),
        "{log}"
    );
    assert_eq!(runs_per_repo(url), before);
    assert_whole(url);
    log
}

/// No run is partial (its events are its changedCount), no item was
/// discovered twice, and no run of a repository was recorded twice.
fn assert_whole(url: &str) {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let count =
        |c: &mut postgres::Client, sql: &str| -> i64 { c.query_one(sql, &[]).unwrap().get(0) };
    assert_eq!(
        count(
            &mut c,
            "SELECT count(*) FROM runs u
             WHERE u.changed_count <> (SELECT count(*) FROM events e WHERE e.run = u.id)"
        ),
        0,
        "a partial run"
    );
    assert_eq!(
        count(
            &mut c,
            "SELECT count(*) FROM (SELECT e.item FROM events e
             WHERE e.kind = 0 GROUP BY e.item HAVING count(*) > 1) d"
        ),
        0,
        "an item discovered twice"
    );
    assert!(
        runs_per_repo(url).values().all(|c| *c == 1),
        "{:?}",
        runs_per_repo(url)
    );
}

#[test]
fn four_workers_on_shared_texts_start_together_and_finish_the_round() {
    let Some(Rig {
        cluster,
        url,
        host,
        dir,
        repos,
    }) = rig("shared", 16, 50)
    else {
        return;
    };
    let mut workers = Fleet::start(dir.path(), 4, "1m");
    wait_for_round(&url, 16);
    std::thread::sleep(Duration::from_millis(500));
    workers.all_alive();
    let logs = workers.stop();
    assert_whole(&url);
    let log = cluster.log();
    assert_eq!(log.matches("deadlock detected").count(), 0, "{log}");
    for l in &logs {
        assert!(!l.contains("error"), "{l}");
    }
    let pg = signals_store_pg::PgStore::open(&url).unwrap();
    assert_eq!(observed(&pg), reference(&host, &repos));
}

#[test]
fn postgres_restarted_three_times_under_a_round_costs_waiting_and_no_data() {
    // Slow answers, so the round lasts through three restarts.
    let Some(Rig {
        cluster,
        url,
        host,
        dir,
        repos,
    }) = rig("restarts", 32, 150)
    else {
        return;
    };
    let mut workers = Fleet::start(dir.path(), 4, "1m");
    let mut rng = fastrand::Rng::with_seed(15);
    for n in 0..3 {
        std::thread::sleep(Duration::from_millis(rng.u64(300..1500)));
        let done: i64 = runs_per_repo(&url).values().sum();
        assert!(
            done < 32,
            "restart {n} came after the round ended ({done} runs): the test would prove nothing"
        );
        cluster.restart().unwrap();
    }
    wait_for_round(&url, 32);
    std::thread::sleep(Duration::from_millis(500));
    workers.all_alive();
    let logs = workers.stop();
    // Each worker lost its connection three times and said so.
    let reconnects = logs
        .iter()
        .map(|l| l.matches("reconnected").count())
        .sum::<usize>();
    assert!(reconnects >= 4, "{logs:#?}");
    assert_whole(&url);
    let pg = signals_store_pg::PgStore::open(&url).unwrap();
    assert_eq!(observed(&pg), reference(&host, &repos));
}

#[test]
fn a_worker_stopped_past_its_lease_writes_nothing_when_it_wakes() {
    let Some(Rig {
        cluster: _cluster,
        url,
        host,
        dir,
        repos,
    }) = rig("stalled", 3, 300)
    else {
        return;
    };
    let sleeper = Fleet(vec![worker(dir.path(), "token-a", "2s")]);
    let pid = sleeper.0[0].id() as i32;
    // Wait until it holds a lease, in the middle of a run.
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let held: i64 = postgres::Client::connect(&url, postgres::NoTls)
            .and_then(|mut c| {
                c.query_one(
                    "SELECT count(*) FROM leases WHERE worker LIKE $1 AND lease_until > now()",
                    &[&format!("%:{pid}:%")],
                )
            })
            .map(|r| r.get(0))
            .unwrap_or(0);
        if held > 0 {
            break;
        }
        assert!(Instant::now() < end, "the worker never took a lease");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Past its lease, another worker takes the repository and the round;
    // woken, it finishes its run, is refused, logs it and goes on.
    stall_then_wake(sleeper, dir.path(), &url, "2s");
    let pg = signals_store_pg::PgStore::open(&url).unwrap();
    assert_eq!(observed(&pg), reference(&host, &repos));
}

/// Regression (seen in CI): a worker stopped in the middle of its
/// commit transaction held its repository's row lock, and another worker
/// starting meanwhile waited on it for ever while registering the
/// repositories. The server now ends a transaction left idle
/// (`IDLE_IN_TRANSACTION`), and registering an unchanged repository takes
/// no lock: the other worker finishes the round; the stalled one, woken,
/// reconnects, is refused and writes nothing.
#[test]
fn issue_15_a_worker_stopped_inside_its_commit_holds_up_no_other_worker() {
    let Some(Rig {
        cluster: _cluster,
        url,
        host,
        dir,
        repos,
    }) = rig("midcommit", 3, 0)
    else {
        return;
    };
    drop(signals_store_pg::PgStore::open(&url).unwrap());
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    // Every run's insert takes a second, so the test can stop a worker
    // while the server works on its commit.
    admin
        .batch_execute(
            "CREATE FUNCTION slow_runs() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN PERFORM pg_sleep(1); RETURN NEW; END $$;
             CREATE TRIGGER slow_runs BEFORE INSERT ON runs
               FOR EACH ROW EXECUTE FUNCTION slow_runs();",
        )
        .unwrap();
    let sleeper = Fleet(vec![worker(dir.path(), "token-a", "2s")]);
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let committing: i64 = admin
            .query_one(
                "SELECT count(*) FROM pg_stat_activity
                 WHERE state = 'active' AND query LIKE 'INSERT INTO runs%'",
                &[],
            )
            .unwrap()
            .get(0);
        if committing > 0 {
            break;
        }
        assert!(Instant::now() < end, "the worker never committed");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Its transaction sits idle with its locks while it sleeps; woken, it
    // finds its connection closed by the server.
    let log = stall_then_wake(sleeper, dir.path(), &url, "1m");
    assert!(log.contains("reconnected"), "{log}");
    let pg = signals_store_pg::PgStore::open(&url).unwrap();
    assert_eq!(observed(&pg), reference(&host, &repos));
}

#[test]
fn a_purge_while_three_workers_commit_loses_nothing_of_the_others() {
    let Some(Rig {
        cluster: _cluster,
        url,
        host,
        dir,
        repos,
    }) = rig("purge", 13, 60)
    else {
        return;
    };
    // The repository to purge is collected first: its texts are the
    // others' texts too.
    let out = run(
        dir.path(),
        &["collect", "--quiet", "--repo", &repos[0]],
        &[("GITHUB_TOKEN", "t")],
    );
    assert!(out.status.success(), "{}", show(&out));
    let mut workers = Fleet::start(dir.path(), 3, "1m");
    let end = Instant::now() + Duration::from_secs(60);
    while runs_per_repo(&url).values().sum::<i64>() < 3 {
        assert!(Instant::now() < end, "the workers did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = run(dir.path(), &["repos", "remove", &repos[0], "--purge"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let others = &repos[1..];
    wait_for_round(&url, others.len());
    std::thread::sleep(Duration::from_millis(300));
    workers.all_alive();
    for log in workers.stop() {
        assert!(!log.contains("failed"), "{log}");
    }
    assert_whole(&url);
    let pg = signals_store_pg::PgStore::open(&url).unwrap();
    assert_eq!(observed(&pg), reference(&host, others));
}

/// A real store error on one repository's commit (a trigger refuses its
/// run): that repository fails and says why in `status`; the round goes
/// on with the others and exits 3, and a looping worker keeps running.
#[test]
fn a_store_error_on_one_repository_fails_only_that_repository() {
    let Some(Rig {
        cluster: _cluster,
        url,
        host: _host,
        dir,
        repos: _repos,
    }) = rig("refused", 4, 0)
    else {
        return;
    };
    drop(signals_store_pg::PgStore::open(&url).unwrap());
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(
            "CREATE FUNCTION refuse_r001() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
               IF NEW.repo = (SELECT key FROM repositories WHERE repo_id = 'r001') THEN
                 RAISE EXCEPTION 'refused by the test''s trigger';
               END IF;
               RETURN NEW;
             END $$;
             CREATE TRIGGER refuse_r001 BEFORE INSERT ON runs
               FOR EACH ROW EXECUTE FUNCTION refuse_r001();",
        )
        .unwrap();

    let out = run(
        dir.path(),
        &["collect", "--quiet"],
        &[("GITHUB_TOKEN", "t")],
    );
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("failed: o/r001"), "{stderr}");
    let runs = runs_per_repo(&url);
    assert_eq!(runs["g/r001"], 0, "{runs:?}");
    assert_eq!(runs.values().sum::<i64>(), 3, "{runs:?}");

    let out = run(dir.path(), &["status", "--json"], &[]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r001 = status["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["repository"] == "r001")
        .unwrap();
    assert_eq!(r001["lastFailure"]["kind"], "store", "{r001}");
    assert!(
        r001["lastFailure"]["message"]
            .as_str()
            .unwrap()
            .contains("refused by the test's trigger"),
        "{r001}"
    );

    // A looping worker meets the same refusal and goes on running.
    let mut workers = Fleet(vec![
        Command::new(crate::support::signals_bin())
            .current_dir(dir.path())
            .args(["collect", "--loop", "--interval", "1s"])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("GITHUB_TOKEN", "t")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    ]);
    let end = Instant::now() + Duration::from_secs(60);
    while runs_per_repo(&url).values().sum::<i64>() < 6 {
        assert!(Instant::now() < end, "the looping worker collected nothing");
        std::thread::sleep(Duration::from_millis(100));
    }
    workers.all_alive();
    workers.stop();
    assert_eq!(runs_per_repo(&url)["g/r001"], 0);
}
