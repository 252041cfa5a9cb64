//! First collections as the repository grows (issue 27, part 2): the
//! release `signals collect` of one synthetic GitHub repository of `n`
//! issues and pull requests, from the loopback test host (served by this
//! process), under `/usr/bin/time` for its wall time and peak RSS; then
//! a normal incremental run of the same repository (nothing in its
//! window), whose peak RSS should not depend on the repository's size,
//! and a reconcile (`collect --reconcile`: every item listed again and
//! compared with the store), which goes through its stage as the first
//! run does.
//! With `SIGNALS_SCALE_FIRST_NOTIFY=1` the configuration has a
//! `[[notify]]` rule (a webhook, not sent to: `collect --no-notify` only
//! leaves the first run's summary in the outbox), whose summary ranks
//! every item. With `SIGNALS_SCALE_FIRST_COMMENTS=<n>` every item has `n`
//! comments (pull requests a review too, every fourth a review comment)
//! and the run has a token, so reviews are read: a first run reads the
//! comments of the last 90 days (`comments_backfill_days`' default), or,
//! with `SIGNALS_SCALE_FIRST_COMMENT_DAYS=1`, of the last day.

use std::path::Path;
use std::process::Command;

use jiff::{SignedDuration, Timestamp};
use signals_testhost::{TestHost, synthetic, with_comments};

/// Wall time, peak RSS and requests of one first collection, and the
/// wall time and peak RSS of the incremental run after it.
pub struct FirstRun {
    pub items: usize,
    pub wall: f64,
    pub rss_kib: u64,
    pub requests: usize,
    pub next_wall: f64,
    pub next_rss_kib: u64,
    pub reconcile_wall: f64,
    pub reconcile_rss_kib: u64,
}

/// The repository a first run meets, and what its configuration asks.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shape {
    /// A `[[notify]]` rule, whose summary ranks every item.
    pub notify: bool,
    /// Comments on every item (0: none, and no token).
    pub comments_per_item: usize,
    /// `comments_backfill_days`, when set.
    pub comment_days: Option<u32>,
}

impl Shape {
    /// The shape the environment asks for (see the module documentation).
    pub fn from_env() -> Shape {
        let number = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
        Shape {
            notify: std::env::var("SIGNALS_SCALE_FIRST_NOTIFY").is_ok_and(|v| v == "1"),
            comments_per_item: number("SIGNALS_SCALE_FIRST_COMMENTS").unwrap_or(0),
            comment_days: std::env::var("SIGNALS_SCALE_FIRST_COMMENT_DAYS")
                .ok()
                .and_then(|v| v.parse().ok()),
        }
    }
}

/// Which `collect` a timed run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Normal,
    Reconcile,
}

/// `signals collect --quiet` in `dir` under `/usr/bin/time` (with
/// `--no-notify` when the shape notifies: the bench measures the run, not
/// sending its summary to a webhook no one listens at; with `--reconcile`
/// for a reconcile; with a token when there are comments, so reviews are
/// read): wall seconds and peak RSS in KiB.
fn timed_collect(dir: &Path, shape: Shape, kind: Kind) -> (f64, u64) {
    let mut cmd = Command::new("/usr/bin/time");
    cmd.current_dir(dir)
        .args(["-f", "%e %M", env!("CARGO_BIN_EXE_signals")])
        .args(["collect", "--quiet"])
        .args(shape.notify.then_some("--no-notify"))
        .args((kind == Kind::Reconcile).then_some("--reconcile"));
    match shape.comments_per_item {
        0 => cmd.env_remove("GITHUB_TOKEN"),
        _ => cmd.env("GITHUB_TOKEN", "bench-token"),
    };
    let out = cmd
        .output()
        .expect("/usr/bin/time runs (Debian package `time`)");
    assert!(out.status.success(), "collect failed: {out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut parts = stderr.lines().last().unwrap_or_default().split_whitespace();
    let wall = parts
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or(f64::NAN);
    (wall, parts.next().and_then(|m| m.parse().ok()).unwrap_or(0))
}

/// The `[[notify]]` rule of `SIGNALS_SCALE_FIRST_NOTIFY=1`.
const RULE: &str = "\n[[notify]]\nname = \"all\"\nkind = \"webhook\"\nurl = \"http://127.0.0.1:9/all\"\ninclude_bots = true\n";

/// A first collection of `items` into a fresh store under `base`, of a
/// repository and configuration of `shape`.
pub fn first_run(base: &Path, items: usize, shape: Shape) -> FirstRun {
    let repo = "bench/first";
    let start = Timestamp::now() - SignedDuration::from_hours(24 * 200);
    let mut scenario = synthetic(repo, items, start);
    if shape.comments_per_item > 0 {
        with_comments(&mut scenario, shape.comments_per_item);
    }
    let host = TestHost::start(scenario).expect("the test host starts");
    let notify = shape.notify;
    let comment_days = shape
        .comment_days
        .map(|d| format!("comments_backfill_days = {d}\n"))
        .unwrap_or_default();
    let dir = base.join(format!("first-{items}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("signals.toml"),
        format!(
            "store = \"signals.db\"\nout = \"site\"\nbackfill_days = 3650\n{comment_days}\n[host]\napi_url = \"{}\"\n\n[[groups]]\nid = \"g\"\nname = \"G\"\n\n[[groups.repos]]\nrepo = \"{repo}\"\n{}",
            host.api_url(),
            if notify { RULE } else { "" }
        ),
    )
    .unwrap();
    let (wall, rss_kib) = timed_collect(&dir, shape, Kind::Normal);
    let requests = host.request_count();
    if notify {
        use signals_store::Outbox;
        let store = signals_store_sqlite::Store::open(dir.join("signals.db")).unwrap();
        let summaries = store
            .outbox_messages(signals_store::MessageState::Pending, None)
            .unwrap();
        assert_eq!(summaries.len(), 1, "the first run left its summary");
    }
    let (next_wall, next_rss_kib) = timed_collect(&dir, shape, Kind::Normal);
    let (reconcile_wall, reconcile_rss_kib) = timed_collect(&dir, shape, Kind::Reconcile);
    let run = FirstRun {
        items,
        wall,
        rss_kib,
        requests,
        next_wall,
        next_rss_kib,
        reconcile_wall,
        reconcile_rss_kib,
    };
    let _ = std::fs::remove_dir_all(&dir);
    run
}

/// The table: one first collection per size, and each size's peak RSS
/// against the smallest's.
pub fn first_runs_table(base: &Path, sizes: &[usize]) {
    let shape = Shape::from_env();
    println!(
        "## First collections (one repository, release `signals collect`{}{})\n",
        if shape.notify {
            ", a `[[notify]]` rule"
        } else {
            ""
        },
        match (shape.comments_per_item, shape.comment_days) {
            (0, _) => String::new(),
            (n, None) => format!(", {n} comments an item, read back 90 days"),
            (n, Some(d)) => format!(", {n} comments an item, read back {d} days"),
        }
    );
    println!(
        "| items | requests | wall | peak RSS | RSS against the smallest | next run: wall | next run: peak RSS | reconcile: wall | reconcile: peak RSS |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut smallest = None;
    for &n in sizes {
        let run = first_run(base, n, shape);
        let base_rss = *smallest.get_or_insert(run.rss_kib);
        println!(
            "| {} | {} | {:.2} s | {:.1} MiB | {:.2}× | {:.2} s | {:.1} MiB | {:.2} s | {:.1} MiB |",
            run.items,
            run.requests,
            run.wall,
            run.rss_kib as f64 / 1024.0,
            run.rss_kib as f64 / base_rss.max(1) as f64,
            run.next_wall,
            run.next_rss_kib as f64 / 1024.0,
            run.reconcile_wall,
            run.reconcile_rss_kib as f64 / 1024.0
        );
    }
    println!();
}
