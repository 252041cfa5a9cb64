//! Health per repository and Prometheus metrics, with the real
//! binary against the loopback test host: a repository failing three
//! times in a row shows as failing, then stale once its last success is
//! more than three intervals old, with its last error, in `status --json`
//! and in `signals metrics`, whose text Prometheus' own `promtool` accepts.
//!
//! Without `promtool` (Debian's `prometheus` package) the exposition
//! check is skipped with a notice, unless SIGNALS_REQUIRE_PROMTOOL=1 (set
//! in CI), where that is a failure.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use signals_testhost::{Fault, TestHost};

use crate::support::{TempDir, run, show};
use crate::workers::{config, scenario};

const TOKEN: &str = "ghp_health_secret_0123456789";

fn repo<'a>(status: &'a Value, id: &str) -> &'a Value {
    status["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["repository"] == id)
        .unwrap()
}

/// The value of the sample `name{group="g",repository="<repo>"}`.
fn sample(text: &str, name: &str, repo: &str) -> f64 {
    let head = format!("{name}{{group=\"g\",repository=\"{repo}\"}} ");
    let line = text
        .lines()
        .find(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no {head} in\n{text}"));
    line[head.len()..].parse().unwrap()
}

/// `promtool check metrics` on `text`; `None` (with a notice) without it.
pub(crate) fn promtool(text: &str) -> Option<std::process::Output> {
    let Ok(mut child) = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        assert!(
            std::env::var("SIGNALS_REQUIRE_PROMTOOL").as_deref() != Ok("1"),
            "promtool not found and SIGNALS_REQUIRE_PROMTOOL=1; install it \
             (Debian: apt-get install prometheus)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "skipped: promtool not found (install Debian's prometheus package, or set \
             SIGNALS_REQUIRE_PROMTOOL=1 to make this a failure)"
        );
        return None;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    Some(child.wait_with_output().unwrap())
}

#[test]
fn a_repository_failing_three_times_shows_failing_then_stale_in_status_and_metrics() {
    let (scenario, repos) = scenario(2);
    let host = TestHost::start(scenario).unwrap();
    let dir = TempDir::new("health");
    let text = config("signals.db", &host.api_url(), &repos);
    std::fs::write(dir.path().join("signals.toml"), &text).unwrap();
    // The same, judged against a one-second interval.
    std::fs::write(
        dir.path().join("fast.toml"),
        format!("interval = \"1s\"\n{text}"),
    )
    .unwrap();
    let env = [("GITHUB_TOKEN", TOKEN)];

    let out = run(dir.path(), &["collect", "--quiet"], &env);
    assert!(out.status.success(), "{}", show(&out));
    // r01's only success is now more than three one-second intervals old.
    std::thread::sleep(Duration::from_millis(3200));
    for _ in 0..3 {
        host.inject_for("/repos/o/r01", Fault::Malformed);
        let out = run(dir.path(), &["collect", "--quiet"], &env);
        assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    }

    let status = |config: &str| -> Value {
        let out = run(dir.path(), &["--config", config, "status", "--json"], &[]);
        assert!(out.status.success(), "{}", show(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let hourly = status("signals.toml");
    let good = &repo(&hourly, "r00")["health"];
    assert_eq!(good["state"], "ok", "{good}");
    assert_eq!(good["failuresInRow"], 0);
    assert_eq!(good["lastError"], Value::Null);
    let bad = &repo(&hourly, "r01")["health"];
    assert_eq!(bad["state"], "failing", "{bad}");
    assert_eq!(bad["failuresInRow"], 3);
    assert_eq!(bad["stale"], false);
    assert_eq!(bad["lastError"]["kind"], "decode", "{bad}");
    assert!(bad["lastSuccess"].is_string());
    assert!(bad["lastSuccessAgeSecs"].as_i64().unwrap() >= 3);
    let totals = &repo(&hourly, "r00")["totals"];
    // Five issues and pull requests, and the one published release.
    assert_eq!(totals["items"], 6);
    assert_eq!(totals["failures"], 0);
    assert_eq!(repo(&hourly, "r01")["totals"]["failures"], 3);

    let fast = status("fast.toml");
    let bad = &repo(&fast, "r01")["health"];
    assert_eq!(bad["state"], "stale", "{bad}");
    assert_eq!(bad["stale"], true);
    assert_eq!(bad["intervalSecs"], 1);

    // The text status says it too.
    let out = run(dir.path(), &["--config", "fast.toml", "status"], &[]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("stale: 3 failed in a row"), "{said}");

    // Metrics: printed, and written whole for the textfile collector.
    let out = run(dir.path(), &["--config", "fast.toml", "metrics"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let metrics = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        sample(&metrics, "signals_repository_runs_total", "r00"),
        4.0
    );
    assert_eq!(
        sample(&metrics, "signals_repository_runs_total", "r01"),
        1.0
    );
    assert_eq!(
        sample(&metrics, "signals_repository_failures_total", "r01"),
        3.0
    );
    assert_eq!(
        sample(&metrics, "signals_repository_failures_in_row", "r01"),
        3.0
    );
    assert_eq!(
        sample(&metrics, "signals_repository_failures_in_row", "r00"),
        0.0
    );
    assert_eq!(sample(&metrics, "signals_repository_stale", "r01"), 1.0);
    assert_eq!(sample(&metrics, "signals_repository_items", "r00"), 6.0);
    // Each discovered once, nothing changed since.
    assert_eq!(
        sample(&metrics, "signals_repository_events_total", "r00"),
        6.0
    );
    let r01_success = repo(&fast, "r01")["lastRun"]["collectedAt"]
        .as_str()
        .unwrap()
        .parse::<jiff::Timestamp>()
        .unwrap();
    let stated = sample(
        &metrics,
        "signals_repository_last_success_timestamp_seconds",
        "r01",
    );
    assert!((stated - r01_success.as_millisecond() as f64 / 1000.0).abs() < 0.001);
    let requests: f64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("signals_http_requests_total "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(requests >= 5.0, "{metrics}");
    assert!(
        metrics.contains("signals_rate_limit_remaining{token=\""),
        "{metrics}"
    );
    assert!(!metrics.contains(TOKEN));

    let prom = dir.path().join("textfile").join("signals.prom");
    std::fs::create_dir_all(prom.parent().unwrap()).unwrap();
    let out = run(
        dir.path(),
        &["metrics", "--out", prom.to_str().unwrap()],
        &[],
    );
    assert!(out.status.success(), "{}", show(&out));
    let written = std::fs::read_to_string(&prom).unwrap();
    assert!(written.contains("# TYPE signals_repository_stale gauge"));
    let entries: Vec<_> = std::fs::read_dir(prom.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, vec![std::ffi::OsString::from("signals.prom")]);

    if let Some(checked) = promtool(&metrics) {
        assert!(
            checked.status.success(),
            "promtool refused the exposition: {}{}\n{metrics}",
            String::from_utf8_lossy(&checked.stdout),
            String::from_utf8_lossy(&checked.stderr)
        );
    }
}
