//! Tests of the server over real loopback connections, with a minimal raw
//! HTTP client so that what goes on the wire is what is checked.

use super::*;
use jiff::Timestamp;

struct Raw {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Raw {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// Sends `GET target` with extra headers; `Err` when the connection closed
/// without a status line.
fn get(host: &TestHost, target: &str, headers: &[(&str, &str)]) -> io::Result<Raw> {
    let mut s = TcpStream::connect(host.addr)?;
    let mut req = format!("GET {target} HTTP/1.1\r\nHost: {}\r\n", host.addr);
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes())?;
    let mut all = vec![];
    s.read_to_end(&mut all)?;
    let split = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or(io::ErrorKind::UnexpectedEof)?;
    let head = String::from_utf8_lossy(&all[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .map(|l| {
            let (k, v) = l.split_once(": ").unwrap();
            (k.to_string(), v.to_string())
        })
        .collect();
    Ok(Raw {
        status,
        headers,
        body: all[split + 4..].to_vec(),
    })
}

fn host() -> TestHost {
    TestHost::start(synthetic(
        "o/n",
        250,
        "2025-01-01T00:00:00Z".parse().unwrap(),
    ))
    .unwrap()
}

#[test]
fn serves_pages_with_absolute_links_and_records_requests() {
    let h = host();
    let r = get(
        &h,
        "/repos/o/n/issues?state=all&per_page=100",
        &[("Authorization", "Bearer t")],
    )
    .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.json().as_array().unwrap().len(), 100);
    assert_eq!(r.header("Connection"), Some("close"));
    assert_eq!(
        r.header("Content-Length"),
        Some(r.body.len().to_string().as_str())
    );
    let next = format!(
        "<{}/repos/o/n/issues?state=all&per_page=100&page=2>; rel=\"next\"",
        h.base_url()
    );
    assert!(
        r.header("Link").unwrap().starts_with(&next),
        "{:?}",
        r.header("Link")
    );
    let recorded = h.requests();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].path, "/repos/o/n/issues?state=all&per_page=100");
    assert_eq!(recorded[0].header("authorization"), Some("Bearer t"));
    assert_eq!(recorded[0].status, Some(200));
    assert_eq!(recorded[0].body, r.body);
}

#[test]
fn etag_match_gets_304_without_spending_budget() {
    let h = host();
    let r = get(&h, "/repos/o/n", &[]).unwrap();
    let etag = r.header("ETag").unwrap().to_string();
    assert!(etag.starts_with("W/\""));
    assert_eq!(r.header("x-ratelimit-remaining"), Some("4999"));
    assert_eq!(r.header("x-ratelimit-used"), Some("1"));
    let r = get(&h, "/repos/o/n", &[("If-None-Match", &etag)]).unwrap();
    assert_eq!(r.status, 304);
    assert!(r.body.is_empty());
    assert_eq!(r.header("x-ratelimit-remaining"), Some("4999"));
    // Changed data: new ETag, full answer.
    let mut s = synthetic("o/n", 251, "2025-01-01T00:00:00Z".parse().unwrap());
    s.repos.get_mut("o/n").unwrap().repo["stargazers_count"] = 1.into();
    h.set_scenario(s);
    let r = get(&h, "/repos/o/n", &[("If-None-Match", &etag)]).unwrap();
    assert_eq!(r.status, 200);
    assert_ne!(r.header("ETag").unwrap(), etag);
}

#[test]
fn budget_is_per_token_and_ends_in_primary_403() {
    let h = host();
    h.set_rate_limit(2);
    for expected in ["1", "0"] {
        let r = get(&h, "/repos/o/n", &[("Authorization", "Bearer a")]).unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.header("x-ratelimit-remaining"), Some(expected));
    }
    let r = get(&h, "/repos/o/n", &[("Authorization", "Bearer a")]).unwrap();
    assert_eq!(r.status, 403);
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .contains("API rate limit exceeded")
    );
    assert_eq!(r.header("x-ratelimit-remaining"), Some("0"));
    let reset: i64 = r.header("x-ratelimit-reset").unwrap().parse().unwrap();
    assert!(reset > Timestamp::now().as_second());
    // Another token and anonymous have their own budgets.
    let r = get(&h, "/repos/o/n", &[("Authorization", "Bearer b")]).unwrap();
    assert_eq!(r.status, 200);
    let r = get(&h, "/repos/o/n", &[]).unwrap();
    assert_eq!(
        (r.status, r.header("x-ratelimit-remaining")),
        (200, Some("1"))
    );
}

#[test]
fn unknown_repo_is_404_json_and_renamed_is_301() {
    let h = host();
    let r = get(&h, "/repos/o/missing", &[]).unwrap();
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["message"], "Not Found");
    let mut s = synthetic("o/n", 1, "2025-01-01T00:00:00Z".parse().unwrap());
    s.renamed.insert("old/n".into(), "o/n".into());
    h.set_scenario(s);
    let r = get(&h, "/repos/old/n", &[]).unwrap();
    assert_eq!(r.status, 301);
    let location = format!("{}/repositories/424242", h.base_url());
    assert_eq!(r.header("Location"), Some(location.as_str()));
    assert_eq!(r.json()["url"], location.as_str());
    let r = get(&h, "/repositories/424242", &[]).unwrap();
    assert_eq!(r.json()["full_name"], "o/n");
}

#[test]
fn status_and_rate_limit_faults() {
    let h = host();
    h.inject(Fault::Status(502));
    h.inject(Fault::PrimaryLimit { reset_in_secs: 7 });
    h.inject(Fault::Secondary {
        status: 429,
        retry_after: Some(3),
    });
    h.inject(Fault::Secondary {
        status: 403,
        retry_after: None,
    });
    let r = get(&h, "/repos/o/n", &[]).unwrap();
    assert_eq!(r.status, 502);
    assert_eq!(r.json()["message"], "Bad Gateway");
    let r = get(&h, "/repos/o/n", &[]).unwrap();
    assert_eq!(r.status, 403);
    assert_eq!(r.header("x-ratelimit-remaining"), Some("0"));
    let reset: i64 = r.header("x-ratelimit-reset").unwrap().parse().unwrap();
    assert!((reset - Timestamp::now().as_second() - 7).abs() <= 1);
    let r = get(&h, "/repos/o/n", &[]).unwrap();
    assert_eq!((r.status, r.header("Retry-After")), (429, Some("3")));
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .contains("secondary rate limit")
    );
    let r = get(&h, "/repos/o/n", &[]).unwrap();
    assert_eq!((r.status, r.header("Retry-After")), (403, None));
    // Queue drained: normal again.
    assert_eq!(get(&h, "/repos/o/n", &[]).unwrap().status, 200);
    assert_eq!(h.pending_faults(), 0);
}

#[test]
fn faults_can_target_a_path_prefix() {
    let h = host();
    h.inject_for("/repos/o/n/issues", Fault::Status(500));
    assert_eq!(get(&h, "/repos/o/n", &[]).unwrap().status, 200);
    assert_eq!(get(&h, "/repos/o/n/issues", &[]).unwrap().status, 500);
    assert_eq!(get(&h, "/repos/o/n/issues", &[]).unwrap().status, 200);
}

#[test]
fn a_queued_scenario_applies_after_its_count_of_requests() {
    let h = host();
    let start = "2025-01-01T00:00:00Z".parse().unwrap();
    h.set_scenario_after(2, synthetic("o/n", 150, start));
    h.set_scenario_after(3, synthetic("o/n", 50, start));
    h.inject(Fault::Status(502));
    assert_eq!(h.pending_swaps(), 2);
    let total = |h: &TestHost| {
        let r = get(h, "/repos/o/n/issues?state=all&per_page=100&page=2", &[]).unwrap();
        (r.status, r.json().as_array().map(Vec::len))
    };
    // Two more requests see the first data (250 items), the third the
    // second (150), the fourth the third (50: an empty second page).
    assert_eq!(total(&h), (502, None));
    assert_eq!(total(&h), (200, Some(100)));
    assert_eq!(total(&h), (200, Some(50)));
    assert_eq!(total(&h), (200, Some(0)));
    assert_eq!(h.pending_swaps(), 0);
    h.set_scenario_after(5, synthetic("o/n", 10, start));
    h.inject(Fault::Status(500));
    h.clear_pending();
    assert_eq!((h.pending_swaps(), h.pending_faults()), (0, 0));
    assert_eq!(total(&h), (200, Some(0)));
}

#[test]
fn wire_faults() {
    let h = host();
    h.inject(Fault::Truncate);
    let r = get(&h, "/repos/o/n", &[]).unwrap();
    let declared: usize = r.header("Content-Length").unwrap().parse().unwrap();
    assert_eq!(r.body.len(), declared / 2);
    assert!(serde_json::from_slice::<serde_json::Value>(&r.body).is_err());

    h.inject(Fault::Reset);
    assert!(get(&h, "/repos/o/n", &[]).is_err());
    assert_eq!(h.requests().last().unwrap().status, None);

    h.inject(Fault::Malformed);
    let r = get(&h, "/repos/o/n", &[]).unwrap();
    assert_eq!(r.status, 200);
    assert!(serde_json::from_slice::<serde_json::Value>(&r.body).is_err());

    h.inject(Fault::Delay(Duration::from_millis(300)));
    let start = std::time::Instant::now();
    assert_eq!(get(&h, "/repos/o/n", &[]).unwrap().status, 200);
    assert!(start.elapsed() >= Duration::from_millis(300));
}

#[test]
fn drop_stops_the_server() {
    let h = host();
    let addr = h.addr;
    drop(h);
    // The listener is closed: connecting fails (or is reset at once).
    let ok = TcpStream::connect(addr).and_then(|mut s| {
        s.write_all(b"GET /repos/o/n HTTP/1.1\r\n\r\n")?;
        let mut buf = vec![];
        s.read_to_end(&mut buf)?;
        Ok(buf)
    });
    assert!(ok.map(|b| b.is_empty()).unwrap_or(true));
}

/// Sends `GET /repos/o/n` with `token` (as the Authorization header; none
/// when empty) on its own thread.
fn send(host: &Arc<TestHost>, token: &'static str) -> thread::JoinHandle<u16> {
    let host = Arc::clone(host);
    thread::spawn(move || {
        let headers: &[(&str, &str)] = if token.is_empty() {
            &[]
        } else {
            &[("Authorization", token)]
        };
        get(&host, "/repos/o/n", headers).unwrap().status
    })
}

/// Waits until the host has read `n` request heads.
fn wait_for_requests(host: &TestHost, n: usize) {
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while host.request_count() < n {
        assert!(std::time::Instant::now() < until, "no request {n}");
        thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn two_requests_at_once_on_one_token_overlap() {
    let host = Arc::new(host());
    // The first request sleeps a long latency once its head is read: the
    // second is read well within it, so the two are in flight together.
    host.set_latency(Duration::from_secs(2));
    let first = send(&host, "Bearer one");
    wait_for_requests(&host, 1);
    let second = send(&host, "Bearer one");
    assert_eq!(first.join().unwrap(), 200);
    assert_eq!(second.join().unwrap(), 200);
    assert_eq!(host.overlaps(), 1);
    assert_eq!(host.max_in_flight()["Bearer one"], 2);
    assert_eq!(host.request_count(), 2);
    // Done, so nothing is in flight: a later request does not overlap.
    host.set_latency(Duration::ZERO);
    assert_eq!(send(&host, "Bearer one").join().unwrap(), 200);
    assert_eq!(host.overlaps(), 1);
}

#[test]
fn requests_at_once_on_two_tokens_or_one_after_another_do_not_overlap() {
    let host = Arc::new(host());
    host.set_latency(Duration::from_secs(1));
    let first = send(&host, "Bearer one");
    wait_for_requests(&host, 1);
    let other = send(&host, "Bearer two");
    let anonymous = send(&host, "");
    for t in [first, other, anonymous] {
        assert_eq!(t.join().unwrap(), 200);
    }
    host.set_latency(Duration::ZERO);
    for _ in 0..3 {
        assert_eq!(send(&host, "Bearer three").join().unwrap(), 200);
    }
    assert_eq!(host.overlaps(), 0);
    let flights = host.max_in_flight();
    for token in ["Bearer one", "Bearer two", "anonymous", "Bearer three"] {
        assert_eq!(flights.get(token), Some(&1), "{token}: {flights:?}");
    }
    assert_eq!(host.request_count(), 6);
}

#[test]
fn latency_delays_every_answer_without_holding_up_other_connections() {
    let host = Arc::new(host());
    let latency = Duration::from_millis(150);
    host.set_latency(latency);
    for _ in 0..2 {
        let began = std::time::Instant::now();
        assert_eq!(get(&host, "/repos/o/n", &[]).unwrap().status, 200);
        assert!(began.elapsed() >= latency, "{:?}", began.elapsed());
    }
    // A slow answer in progress does not hold up another connection: with
    // the latency back to zero, the second request is answered while the
    // first still sleeps.
    host.set_latency(Duration::from_secs(3));
    let slow_done = Arc::new(AtomicBool::new(false));
    let slow = {
        let (host, done) = (Arc::clone(&host), Arc::clone(&slow_done));
        thread::spawn(move || {
            let status = get(&host, "/repos/o/n", &[]).unwrap().status;
            done.store(true, Ordering::SeqCst);
            status
        })
    };
    wait_for_requests(&host, 3);
    host.set_latency(Duration::ZERO);
    assert_eq!(get(&host, "/repos/o/n", &[]).unwrap().status, 200);
    assert!(!slow_done.load(Ordering::SeqCst), "the fast answer waited");
    assert_eq!(slow.join().unwrap(), 200);
}

#[test]
fn a_short_rate_window_resets_the_budget() {
    let host = host();
    host.set_rate_window(Duration::from_secs(1));
    host.set_rate_limit(2);
    let t = [("Authorization", "Bearer four")];
    let first = get(&host, "/repos/o/n", &t).unwrap();
    assert_eq!(first.header("x-ratelimit-remaining"), Some("1"));
    let reset: i64 = first.header("x-ratelimit-reset").unwrap().parse().unwrap();
    assert!(reset <= Timestamp::now().as_second() + 1, "{reset}");
    get(&host, "/repos/o/n", &t).unwrap();
    assert_eq!(get(&host, "/repos/o/n", &t).unwrap().status, 403);
    // Past the reset instant (whole seconds), a new window and a full
    // budget.
    thread::sleep(Duration::from_millis(2100));
    let again = get(&host, "/repos/o/n", &t).unwrap();
    assert_eq!(again.status, 200);
    assert_eq!(again.header("x-ratelimit-remaining"), Some("1"));
}

#[test]
fn synthetic_many_serves_distinct_repositories() {
    let start = "2025-01-01T00:00:00Z".parse().unwrap();
    let Synthetic { scenario, names } = synthetic_many("o", 12, 3, start);
    assert_eq!(names.len(), 12);
    assert_eq!(names[0], "o/r000");
    assert_eq!(names[11], "o/r011");
    let host = TestHost::start(scenario).unwrap();
    let mut ids = std::collections::BTreeSet::new();
    for name in &names {
        let r = get(&host, &format!("/repos/{name}"), &[]).unwrap();
        assert_eq!(r.status, 200);
        let repo = r.json();
        assert_eq!(repo["full_name"], name.as_str());
        ids.insert(repo["id"].as_u64().unwrap());
        let issues = get(&host, &format!("/repos/{name}/issues?state=all"), &[]).unwrap();
        assert_eq!(issues.json().as_array().unwrap().len(), 3);
        assert!(
            issues.json()[0]["html_url"]
                .as_str()
                .unwrap()
                .contains(name.as_str())
        );
    }
    assert_eq!(ids.len(), 12, "every repository has its own id");
    // `/repositories/{id}` finds each one by its own id.
    let id = synthetic_many("o", 12, 3, start).scenario.repos["o/r007"].repo["id"]
        .as_u64()
        .unwrap();
    let r = get(&host, &format!("/repositories/{id}"), &[]).unwrap();
    assert_eq!(r.json()["full_name"], "o/r007");
}

#[test]
fn shared_texts_overlap_across_repositories_in_different_orders() {
    let start: Timestamp = "2026-10-01T00:00:00Z".parse().unwrap();
    let Synthetic { scenario, names } = synthetic_shared("o", 4, 12, 8, start);
    let bodies = |name: &str| -> Vec<String> {
        scenario.repos[name]
            .issues
            .iter()
            .map(|e| e["body"].as_str().unwrap().to_string())
            .collect()
    };
    let (a, b) = (bodies(&names[0]), bodies(&names[1]));
    // Every body of one repository is also a body of the other (one pool) ...
    assert!(a.iter().all(|t| b.contains(t)));
    // ... met in another order, and some repeat within one repository.
    assert_ne!(a, b);
    let distinct: std::collections::BTreeSet<_> = a.iter().collect();
    assert!(distinct.len() < a.len());
    // Bots and maintainers write in several repositories.
    let authors = |name: &str| -> std::collections::BTreeSet<String> {
        scenario.repos[name]
            .issues
            .iter()
            .map(|e| e["user"]["login"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(authors(&names[0]).contains("dependabot[bot]"));
    assert!(!authors(&names[0]).is_disjoint(&authors(&names[3])));
}
