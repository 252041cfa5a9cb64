//! Alerts, end to end with the real binary: the outbox filled
//! through the store API the way `collect` fills it, then `signals notify`
//! delivering to a loopback receiver this file starts (which checks
//! signatures and can answer 500, 429 with `Retry-After`, or hang), to a
//! real SMTP server (Debian's aiosmtpd) and, on PostgreSQL, by three
//! processes sharing one outbox. Also `collect` calling it, and SIGKILL
//! at random moments losing nothing.

use signals_store::Outbox;
use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use sha2::Sha256;
use signals_core::notify::{Rule, RuleRef};
use signals_testhost::TestHost;

use crate::receiver::{Answer, Receiver, commit_alerting, fill};
use crate::support::{TempDir, config, run, show, signals_bin};
use crate::synth;

/// A SQLite store at `dir/signals.db` filled by [`fill`].
fn sqlite(dir: &Path, repos: usize, runs: usize, rules: &[(&str, bool)]) -> Vec<String> {
    let mut store = signals_store_sqlite::Store::open(dir.join("signals.db")).unwrap();
    fill(&mut store, repos, runs, rules)
}

fn write_config(dir: &Path, store: &str, rules: &str) {
    std::fs::write(
        dir.join("signals.toml"),
        format!(
            "store = \"{store}\"\n\n[[groups]]\nid = \"g\"\nname = \"Synthetic\"\nrepos = [\"o/r0\"]\n\n{rules}"
        ),
    )
    .unwrap();
}

fn verify(secret: &str, body: &[u8], signature: &str) -> bool {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body);
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    signature == format!("sha256={hex}")
}

/// What `schemas/notify-v1.schema.json` finds wrong with a webhook body.
fn schema_errors(body: &[u8]) -> Vec<String> {
    let schema: Value =
        serde_json::from_str(include_str!("../../../../schemas/notify-v1.schema.json")).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let doc: Value = serde_json::from_slice(body).unwrap();
    validator
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn status_alerts(dir: &Path) -> Value {
    let out = run(dir, &["status", "--json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["alerts"].clone()
}

#[test]
fn a_failing_receiver_gets_the_same_id_and_body_signed_each_time_with_backoff() {
    // The first message fails 3 times, the second is answered 429 with
    // Retry-After: 2 once; both then succeed.
    let first = Arc::new(Mutex::new(None::<String>));
    let f = first.clone();
    let rx = Receiver::start(move |hit, seen| {
        let mut first = f.lock().unwrap();
        let is_first = first.get_or_insert_with(|| hit.delivery.clone()) == &hit.delivery;
        match (is_first, seen) {
            (true, 0..=2) => Answer::Status(500),
            (false, 0) => Answer::RetryAfter(2),
            _ => Answer::Ok,
        }
    });
    let dir = TempDir::new("notify-retry");
    let ids = sqlite(dir.path(), 1, 2, &[("hook", false)]);
    assert_eq!(ids.len(), 2);
    write_config(
        dir.path(),
        "signals.db",
        &format!(
            "[[notify]]\nname = \"hook\"\nkind = \"webhook\"\nurl = \"{}/T0/SECRET-PATH-x9\"\nsecret_env = \"HOOK_SECRET\"\n",
            rx.url
        ),
    );
    let out = run(
        dir.path(),
        &["notify", "--wait", "60s"],
        &[
            ("HOOK_SECRET", "s3cret"),
            ("SIGNALS_NOTIFY_RETRY_BASE", "300ms"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(!show(&out).contains("SECRET-PATH"), "{}", show(&out));
    let by = rx.by_delivery();
    assert_eq!(
        by.keys().cloned().collect::<BTreeSet<_>>(),
        ids.iter().cloned().collect()
    );
    for (id, hits) in &by {
        for h in hits {
            assert_eq!(h.body, hits[0].body, "a retry of {id} changed its body");
            assert!(
                verify("s3cret", &h.body, h.signature.as_deref().unwrap()),
                "bad signature"
            );
            assert_eq!(h.event.as_deref(), Some("alert"));
            assert_eq!(h.path, "/T0/SECRET-PATH-x9");
            assert_eq!(schema_errors(&h.body), Vec::<String>::new());
            let v: Value = serde_json::from_slice(&h.body).unwrap();
            assert_eq!(v["delivery"], id.as_str());
            assert_eq!(v["rule"], "hook");
            assert_eq!(v["signals"].as_array().unwrap().len(), 3);
        }
    }
    let flaky = by
        .values()
        .find(|h| h.len() == 4)
        .expect("4 attempts of the first");
    // Backoff: 300 ms doubled per attempt, jittered to half at least.
    for (n, pair) in flaky.windows(2).enumerate() {
        let gap = pair[1].at - pair[0].at;
        let least = Duration::from_millis(150 << n);
        assert!(
            gap >= least,
            "attempt {} came after {gap:?}, before {least:?}",
            n + 2
        );
    }
    let limited = by
        .values()
        .find(|h| h.len() == 2)
        .expect("2 attempts of the second");
    assert!(
        limited[1].at - limited[0].at >= Duration::from_secs(2),
        "Retry-After not waited"
    );
    let alerts = status_alerts(dir.path());
    assert_eq!(alerts[0]["rule"], "hook");
    assert_eq!(alerts[0]["delivered"], 2);
    assert_eq!(alerts[0]["pending"], 0);
}

#[test]
fn a_hanging_receiver_times_out_and_an_unreachable_one_is_given_up_and_shown() {
    let rx = Receiver::start(|_, seen| {
        if seen == 0 {
            Answer::Hang(Duration::from_secs(5))
        } else {
            Answer::Ok
        }
    });
    let dir = TempDir::new("notify-hang");
    sqlite(dir.path(), 1, 1, &[("hook", false), ("dead", false)]);
    // `dead` posts to a port nobody listens on (the receiver's, once
    // dropped); its URL carries a secret path that must not show.
    let dead_url = {
        let gone = Receiver::start(|_, _| Answer::Ok);
        format!("{}/services/T0/B0/SECRETSECRET", gone.url)
    };
    write_config(
        dir.path(),
        "signals.db",
        &format!(
            "[[notify]]\nname = \"hook\"\nkind = \"webhook\"\nurl = \"{}/h\"\n\n[[notify]]\nname = \"dead\"\nkind = \"slack\"\nurl_env = \"DEAD_URL\"\n",
            rx.url
        ),
    );
    let env = [
        ("DEAD_URL", dead_url.as_str()),
        ("SIGNALS_NOTIFY_RETRY_BASE", "200ms"),
    ];
    // The hung attempt times out and is retried; the dead receiver's
    // message stays pending (its run is 2 hours old, within the bound).
    let out = run(
        dir.path(),
        &["notify", "--wait", "3s", "--timeout", "1s"],
        &env,
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(!show(&out).contains("SECRETSECRET"), "{}", show(&out));
    // With a bound of an hour it is given up at its next attempt.
    let out = run(
        dir.path(),
        &["notify", "--give-up", "1h", "--timeout", "1s"],
        &env,
    );
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(!show(&out).contains("SECRETSECRET"), "{}", show(&out));
    let hits = rx.by_delivery();
    assert_eq!(hits.len(), 1);
    assert_eq!(
        hits.values().next().unwrap().len(),
        2,
        "hung once, then delivered"
    );
    let alerts = status_alerts(dir.path());
    let rule = |name: &str| {
        alerts
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["rule"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(
        (
            rule("hook")["delivered"].as_u64(),
            rule("hook")["failed"].as_u64()
        ),
        (Some(1), Some(0))
    );
    let dead = rule("dead");
    assert_eq!(dead["failed"], 1);
    let error = dead["lastError"].as_str().unwrap();
    assert!(
        error.contains("could not deliver to http://127.0.0.1:"),
        "{error}"
    );
    assert!(!error.contains("SECRET"), "{error}");
    let table = run(dir.path(), &["status"], &[]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("alert rule") && text.contains("dead"),
        "{text}"
    );
    assert!(!text.contains("SECRET"), "{text}");
}

#[test]
fn sigkill_during_fifty_deliveries_loses_nothing_and_repeats_keep_their_id() {
    let rx = Receiver::start(|_, _| {
        // Slow enough that a process lives through a few deliveries only.
        std::thread::sleep(Duration::from_millis(fastrand::u64(20..60)));
        Answer::Ok
    });
    let dir = TempDir::new("notify-kill");
    let ids = sqlite(dir.path(), 25, 2, &[("hook", false)]);
    assert_eq!(ids.len(), 50);
    write_config(
        dir.path(),
        "signals.db",
        &format!(
            "[[notify]]\nname = \"hook\"\nkind = \"webhook\"\nurl = \"{}/h\"\n",
            rx.url
        ),
    );
    let spawn = || {
        Command::new(signals_bin())
            .current_dir(dir.path())
            .args(["notify", "--wait", "0s", "--quiet"])
            .env("SIGNALS_NOTIFY_CLAIM", "1s")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    // SIGKILL at random moments: while claiming, sending, or settling.
    let mut kills = 0;
    for _ in 0..200 {
        if kills == 12 {
            break;
        }
        let mut child = spawn();
        std::thread::sleep(Duration::from_millis(fastrand::u64(5..150)));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        let _ = child.wait();
    }
    eprintln!(
        "{kills} kills; {} of 50 delivered before the last run",
        rx.by_delivery().len()
    );
    // Then run to the end (expired claims come due after 1 s).
    for _ in 0..20 {
        let out = run(
            dir.path(),
            &["notify", "--wait", "3s"],
            &[("SIGNALS_NOTIFY_CLAIM", "1s")],
        );
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        if status_alerts(dir.path())[0]["pending"] == 0 {
            break;
        }
    }
    assert!(kills >= 10, "only {kills} kills");
    let by = rx.by_delivery();
    assert_eq!(
        by.keys().cloned().collect::<BTreeSet<_>>(),
        ids.iter().cloned().collect()
    );
    for hits in by.values() {
        assert!(
            hits.iter().all(|h| h.body == hits[0].body),
            "a repeat changed its body"
        );
    }
    let alerts = status_alerts(dir.path());
    assert_eq!(
        (
            alerts[0]["delivered"].as_u64(),
            alerts[0]["pending"].as_u64()
        ),
        (Some(50), Some(0))
    );
}

#[test]
fn three_notify_processes_on_postgres_deliver_each_message_once() {
    let Some(cluster) = crate::workers::cluster() else {
        return;
    };
    let url = cluster.create_database("outbox").unwrap();
    let rx = Receiver::start(|_, _| {
        std::thread::sleep(Duration::from_millis(5));
        Answer::Ok
    });
    let ids = {
        let mut store = signals_store_pg::PgStore::open(&url).unwrap();
        fill(&mut store, 20, 3, &[("hook", false)])
    };
    assert_eq!(ids.len(), 60);
    let dir = TempDir::new("notify-pg");
    write_config(
        dir.path(),
        &url,
        &format!(
            "[[notify]]\nname = \"hook\"\nkind = \"webhook\"\nurl = \"{}/h\"\n",
            rx.url
        ),
    );
    let children: Vec<_> = (0..3)
        .map(|_| {
            Command::new(signals_bin())
                .current_dir(dir.path())
                .args(["notify", "--wait", "0s"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut delivered = 0;
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let line = String::from_utf8_lossy(&out.stdout).to_string();
        delivered += line
            .split_whitespace()
            .nth(1)
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no count in {line:?}"));
    }
    let by = rx.by_delivery();
    assert_eq!(
        by.keys().cloned().collect::<BTreeSet<_>>(),
        ids.iter().cloned().collect()
    );
    assert!(
        by.values().all(|h| h.len() == 1),
        "a message was delivered twice"
    );
    assert_eq!(delivered, 60);
}

/// A Python with Debian's aiosmtpd, or `None` (the test then skips with a
/// notice, unless `SIGNALS_REQUIRE_SMTP=1`).
fn aiosmtpd() -> Option<PathBuf> {
    for python in ["/usr/bin/python3", "python3"] {
        let ok = Command::new(python)
            .args(["-c", "import aiosmtpd"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return Some(PathBuf::from(python));
        }
    }
    if std::env::var("SIGNALS_REQUIRE_SMTP").as_deref() == Ok("1") {
        panic!(
            "SIGNALS_REQUIRE_SMTP=1 but no python3 with aiosmtpd: apt-get install python3-aiosmtpd"
        );
    }
    // Straight to stderr: the test harness captures `eprintln!`, and this
    // notice must be seen even when the test passes.
    let _ = writeln!(
        std::io::stderr(),
        "notice: skipping the SMTP test: no python3 with aiosmtpd (apt-get install python3-aiosmtpd)"
    );
    None
}

/// A real SMTP server on a free loopback port writing to a Maildir, with
/// STARTTLS by a self-signed certificate for `localhost`.
struct Smtp {
    child: std::process::Child,
    port: u16,
    maildir: PathBuf,
    cert: PathBuf,
}

impl Smtp {
    fn start(python: &Path, dir: &Path) -> Smtp {
        let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
        let made = Command::new("openssl")
            .args([
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=localhost",
            ])
            .args([
                "-addext",
                "subjectAltName=DNS:localhost",
                "-addext",
                "basicConstraints=critical,CA:FALSE",
            ])
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("openssl runs");
        assert!(made.success(), "openssl could not make a certificate");
        let maildir = dir.join("maildir");
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let mut child = Command::new(python)
                .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
                .arg("--tlscert")
                .arg(&cert)
                .arg("--tlskey")
                .arg(&key)
                .args(["-c", "aiosmtpd.handlers.Mailbox"])
                .arg(&maildir)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(20) {
                if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return Smtp {
                        child,
                        port,
                        maildir,
                        cert,
                    };
                }
                if child.try_wait().unwrap().is_some() {
                    break; // the port was taken meanwhile: another one
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        panic!("aiosmtpd did not start");
    }

    /// The messages received, parsed by Python's own email package:
    /// subject, content type, and each part's type and decoded text.
    fn received(&self, python: &Path) -> Vec<Value> {
        let script = r#"
import email, email.policy, json, mailbox, sys
out = []
for key, msg in sorted(mailbox.Maildir(sys.argv[1], factory=None, create=False).items()):
    m = email.message_from_bytes(msg.as_bytes(), policy=email.policy.default)
    out.append({
        "subject": str(m["subject"]), "to": str(m["to"]), "messageId": str(m["message-id"]),
        "type": m.get_content_type(),
        "parts": [{"type": p.get_content_type(), "text": p.get_content()}
                  for p in m.walk() if not p.is_multipart()],
    })
print(json.dumps(out))
"#;
        let out = Command::new(python)
            .args(["-c", script])
            .arg(&self.maildir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }
}

impl Drop for Smtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_digest_goes_through_a_real_smtp_server_with_starttls() {
    let Some(python) = aiosmtpd() else { return };
    let dir = TempDir::new("notify-smtp");
    let smtp = Smtp::start(&python, dir.path());
    // Three repositories, two runs each, all held for the digest; one
    // item's title is hostile.
    let mut store = signals_store_sqlite::Store::open(dir.path().join("signals.db")).unwrap();
    fill(&mut store, 3, 2, &[("morning", true)]);
    let nasty = "</title><script>alert(1)</script>\u{202e}\"'& Ünïcödé — Bcc: x@evil.example";
    let at = Timestamp::now() - SignedDuration::from_mins(30);
    let mut item = synth::item(0, 99, 64, at);
    item.title = nasty.into();
    item.metrics.reactions = 500; // the top signal
    let rule = Rule::any("morning");
    let held = [RuleRef {
        rule: &rule,
        held: true,
    }];
    commit_alerting(&mut store, 0, at, vec![item], &held, None);
    drop(store);
    write_config(
        dir.path(),
        "signals.db",
        &format!(
            "[[notify]]\nname = \"morning\"\nkind = \"email\"\nsmtp_host = \"localhost\"\nsmtp_port = {}\nsmtp_ca_file = \"{}\"\nfrom = \"signals@example.org\"\nto = [\"me@example.org\"]\ndigest = \"daily 08:00\"\ntimezone = \"Europe/Berlin\"\ntop = 5\n",
            smtp.port,
            smtp.cert.display()
        ),
    );
    let held = signals_store_sqlite::Store::open(dir.path().join("signals.db"))
        .unwrap()
        .outbox_messages(signals_store::MessageState::Held, Some("morning"))
        .unwrap();
    assert_eq!(held.len(), 7);
    let dry = run(dir.path(), &["notify", "--dry-run"], &[]);
    assert_eq!(dry.status.code(), Some(0), "{}", show(&dry));
    assert!(
        String::from_utf8_lossy(&dry.stdout).contains("held for the digest"),
        "{}",
        show(&dry)
    );
    assert!(smtp.received(&python).is_empty(), "a dry run sent mail");
    let out = run(dir.path(), &["notify", "--send-digests"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let mail = smtp.received(&python);
    assert_eq!(mail.len(), 1, "{}", show(&out));
    let m = &mail[0];
    assert_eq!(m["type"], "multipart/alternative");
    let subject = m["subject"].as_str().unwrap();
    assert!(
        subject.contains("Ünïcödé") && subject.contains("<script>"),
        "{subject}"
    );
    assert!(!subject.contains('\n'));
    let parts = m["parts"].as_array().unwrap();
    let types: Vec<&str> = parts.iter().map(|p| p["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["text/plain", "text/html"]);
    let html = parts[1]["text"].as_str().unwrap();
    assert!(!html.contains("<script>"), "{html}");
    // The digest holds the top 5 of the 19 signals held, ranked here
    // from the held messages as stored: by importance, then id.
    let text = parts[0]["text"].as_str().unwrap();
    let listed: BTreeSet<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("https://"))
        .collect();
    let mut expected: Vec<(u32, String, String)> = held
        .iter()
        .flat_map(|m| m.payload.signals.iter())
        .map(|s| (s.importance, s.signal.id.clone(), s.signal.url.clone()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let top: BTreeSet<&str> = expected.iter().take(5).map(|e| e.2.as_str()).collect();
    assert_eq!(listed, top, "{text}");
    assert!(text.contains("Ünïcödé"), "{text}");
    // Nothing is held any more; the digest is delivered, once.
    let again = run(dir.path(), &["notify", "--send-digests"], &[]);
    assert_eq!(again.status.code(), Some(0), "{}", show(&again));
    assert_eq!(smtp.received(&python).len(), 1);
}

#[test]
fn collect_sends_a_first_run_summary_then_alerts_unless_no_notify() {
    let rx = Receiver::start(|_, _| Answer::Ok);
    let start = Timestamp::now() - SignedDuration::from_hours(2);
    let host = TestHost::start(signals_testhost::synthetic("o/r0", 5, start)).unwrap();
    let dir = TempDir::new("notify-collect");
    let rules = format!(
        "base_url = \"https://signals.example/\"\n\n[[notify]]\nname = \"all\"\nkind = \"webhook\"\nurl = \"{0}/all\"\ninclude_bots = true\n\n[[notify]]\nname = \"quiet-start\"\nkind = \"webhook\"\nurl = \"{0}/quiet\"\ninitial = \"none\"\nevents = [\"discovered\"]\n",
        rx.url
    );
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &["o/r0"], &rules),
    )
    .unwrap();
    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let hits = rx.hits();
    assert_eq!(
        hits.len(),
        1,
        "one summary, nothing for initial = none: {hits:?}"
    );
    assert_eq!(hits[0].path, "/all");
    assert_eq!(hits[0].event.as_deref(), Some("summary"));
    assert_eq!(schema_errors(&hits[0].body), Vec::<String>::new());
    let summary: Value = serde_json::from_slice(&hits[0].body).unwrap();
    assert_eq!(summary["kind"], "summary");
    assert!(!summary["signals"].as_array().unwrap().is_empty());

    // Three new items: one alert per rule, held back by --no-notify.
    host.set_scenario(signals_testhost::synthetic("o/r0", 8, start));
    let out = run(dir.path(), &["collect", "--no-notify"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(rx.hits().len(), 1);
    let out = run(dir.path(), &["notify"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let hits = rx.hits();
    assert_eq!(hits.len(), 3, "{hits:?}");
    for h in &hits[1..] {
        let v: Value = serde_json::from_slice(&h.body).unwrap();
        assert_eq!(v["kind"], "alert");
        let ids: BTreeSet<&str> = v["signals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap())
            .collect();
        let want: BTreeSet<&str> = [
            "github:o/r0:pull_request:6",
            "github:o/r0:issue:7",
            "github:o/r0:issue:8",
        ]
        .into();
        assert!(ids.is_subset(&want) && !ids.is_empty(), "{ids:?}");
        assert_eq!(v["link"], "https://signals.example/g/r0/index.html");
        assert!(
            v["signals"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["event"] == "discovered")
        );
    }
}

#[test]
fn messages_held_by_a_rule_that_no_longer_digests_are_sent_at_once() {
    let rx = Receiver::start(|_, _| Answer::Ok);
    let dir = TempDir::new("notify-undigest");
    // Held for a digest, then the rule became an immediate webhook.
    sqlite(dir.path(), 2, 2, &[("was-mail", true)]);
    write_config(
        dir.path(),
        "signals.db",
        &format!(
            "[[notify]]\nname = \"was-mail\"\nkind = \"webhook\"\nurl = \"{}/h\"\n",
            rx.url
        ),
    );
    let out = run(dir.path(), &["notify"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let hits = rx.hits();
    assert_eq!(hits.len(), 1, "{}", show(&out));
    assert_eq!(hits[0].event.as_deref(), Some("digest"));
    let v: Value = serde_json::from_slice(&hits[0].body).unwrap();
    // 2 repositories × 2 runs × 3 new items each.
    assert_eq!(v["signals"].as_array().unwrap().len(), 12);
    let alerts = status_alerts(dir.path());
    assert_eq!(
        (alerts[0]["held"].as_u64(), alerts[0]["delivered"].as_u64()),
        (Some(0), Some(1))
    );
}
