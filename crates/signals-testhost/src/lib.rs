//! A loopback fake of the code hosts' APIs: GitHub REST v3, GitLab REST v4
//! and Forgejo/Gitea API v1 (a scenario's [`Flavor`]).
//!
//! [`TestHost`] serves a [`Scenario`] of raw host JSON on `127.0.0.1` with
//! the host's HTTP semantics where the client depends on them: `Link`
//! pagination (plus GitLab's `X-Next-Page`/`X-Total` and Forgejo's
//! `X-Total-Count`), ETag/`If-None-Match` → 304 where the host does it
//! (GitHub, GitLab; not Forgejo), rate-limit headers with a per-token
//! budget (`x-ratelimit-*` on GitHub, `RateLimit-*` on GitLab, none on
//! Forgejo), redirects or renames, and the host's JSON error bodies.
//! [`Fault`]s can be queued to test how a client survives a bad network or
//! rate limiting. The demo command serves bundled recorded data through it,
//! so it must stay faithful to GitHub, not merely convenient for tests.
//!
//! Plain `std::net` and one thread per connection: no async runtime, and
//! every response is sent with `Connection: close`, so there is no
//! keep-alive state to get wrong.

#![warn(missing_docs)]

mod answer;
mod comments;
mod graphql;
mod hosts;
mod http;
mod owners;
mod routes;
mod scenario;

use std::collections::{HashMap, VecDeque};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::Duration;

pub use comments::with_comments;
pub use graphql::{GRAPHQL_POINTS, discussion, synthetic_discussions};
pub use scenario::{
    Flavor, RepoData, Scenario, Synthetic, synthetic, synthetic_forgejo, synthetic_gitlab,
    synthetic_many, synthetic_shared,
};

/// The default hourly request budget per token, as on GitHub for a personal
/// access token.
pub const DEFAULT_RATE_LIMIT: u64 = 5000;

/// A misbehaviour applied to one upcoming request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Answer with this status and a JSON `message` body (e.g. 502).
    Status(u16),
    /// A primary rate-limit 403: remaining 0, reset in `reset_in_secs`.
    PrimaryLimit {
        /// Seconds from now until the `x-ratelimit-reset` instant.
        reset_in_secs: u64,
    },
    /// A primary rate-limit refusal that does not say when it resets, as
    /// GitHub answered in 2013: `403`, `{"message": "API Rate Limit
    /// Exceeded for <address>"}`, `x-ratelimit-limit` and
    /// `x-ratelimit-remaining: 0` but no `x-ratelimit-reset` (nor `-used`,
    /// `-resource`). On GitLab: `429` with `RateLimit-Remaining: 0`, no
    /// `RateLimit-Reset` and no `Retry-After`.
    PrimaryLimitWithoutReset,
    /// A secondary rate limit answer.
    Secondary {
        /// 403 or 429, both of which GitHub uses.
        status: u16,
        /// The `Retry-After` header in seconds, if any.
        retry_after: Option<u64>,
    },
    /// Sleep this long before answering normally (to trigger timeouts).
    Delay(Duration),
    /// Send the headers with the full `Content-Length` but only half of the
    /// body, then close.
    Truncate,
    /// Close the connection without answering.
    Reset,
    /// Answer 200 with a body that is not valid JSON.
    Malformed,
    /// GraphQL only: a 200 whose `errors` say `RATE_LIMITED`, with
    /// `x-ratelimit-remaining: 0` and a reset `reset_in_secs` away.
    GraphqlRateLimited {
        /// Seconds from now until the `x-ratelimit-reset` instant.
        reset_in_secs: u64,
    },
    /// GraphQL only: a 200 whose `errors` say `NOT_FOUND` for the
    /// repository (`data.repository` null), as for one the token cannot
    /// see.
    GraphqlNotFound,
}

/// One request the host received, and what it answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    /// `GET`, ...
    pub method: String,
    /// Path and query, as sent (`/repos/o/n/issues?state=all`).
    pub path: String,
    /// Request headers, names lowercased, in the order sent.
    pub headers: Vec<(String, String)>,
    /// The status answered; `None` when the connection was closed without an
    /// answer ([`Fault::Reset`]).
    pub status: Option<u16>,
    /// The response body bytes as the host meant to send them (complete
    /// even when [`Fault::Truncate`] cut what went on the wire).
    pub body: Vec<u8>,
    /// The fault applied, if any.
    pub fault: Option<Fault>,
}

impl RecordedRequest {
    /// The first request header of that (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The per-token budget of one hour window.
#[derive(Debug, Clone, Copy)]
struct Budget {
    used: u64,
    reset: i64,
}

struct State {
    scenario: Scenario,
    /// The scenario's issues lists as answered so far (emptied with it).
    lists: routes::Lists,
    requests: Vec<RecordedRequest>,
    faults: VecDeque<(Option<String>, Fault)>,
    budgets: HashMap<String, Budget>,
    /// GraphQL points per token, apart from REST's budget.
    graphql_budgets: HashMap<String, Budget>,
    limit: u64,
    /// Where `Link` and `Location` URLs point, when not at this host.
    link_base: Option<String>,
    /// Answer without `Link` headers (a proxy that drops them).
    drop_link: bool,
    /// Added to every answer (a distant host).
    latency: Duration,
    /// The length of a token's budget window, seconds.
    window: i64,
    /// Requests in flight per token (the Authorization header as sent, or
    /// `anonymous`).
    in_flight: HashMap<String, usize>,
    /// The most requests in flight at once per token.
    max_in_flight: HashMap<String, usize>,
    /// Requests that started while another on the same token was in flight.
    overlaps: usize,
    /// Requests received.
    count: usize,
    /// Scenarios to serve from a given request on: (the count of requests
    /// received after which it applies, the scenario), in order.
    swaps: VecDeque<(usize, Scenario)>,
}

struct Shared {
    state: Mutex<State>,
    base_url: String,
    stop: AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking handler thread must not take the whole host down.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A running fake GitHub on a loopback port. Stops when dropped.
pub struct TestHost {
    shared: Arc<Shared>,
    addr: SocketAddr,
    accept: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for TestHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestHost")
            .field("base_url", &self.shared.base_url)
            .finish()
    }
}

impl TestHost {
    /// Binds `127.0.0.1:0` and serves `scenario` on background threads.
    pub fn start(scenario: Scenario) -> io::Result<TestHost> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                scenario,
                lists: routes::Lists::default(),
                requests: vec![],
                faults: VecDeque::new(),
                budgets: HashMap::new(),
                graphql_budgets: HashMap::new(),
                limit: DEFAULT_RATE_LIMIT,
                link_base: None,
                drop_link: false,
                latency: Duration::ZERO,
                window: 3600,
                in_flight: HashMap::new(),
                max_in_flight: HashMap::new(),
                overlaps: 0,
                count: 0,
                swaps: VecDeque::new(),
            }),
            base_url: format!("http://{addr}"),
            stop: AtomicBool::new(false),
        });
        let accept_shared = Arc::clone(&shared);
        let accept = thread::Builder::new()
            .name("testhost-accept".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if accept_shared.stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = conn else { continue };
                    let shared = Arc::clone(&accept_shared);
                    let _ = thread::Builder::new()
                        .name("testhost-conn".into())
                        .spawn(move || handle(&shared, stream));
                }
            })?;
        Ok(TestHost {
            shared,
            addr,
            accept: Some(accept),
        })
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.shared.base_url
    }

    /// The API root a client is configured with: the base URL, plus
    /// `/api/v4` for GitLab and `/api/v1` for Forgejo.
    pub fn api_url(&self) -> String {
        let flavor = self.shared.lock().scenario.flavor;
        format!("{}{}", self.shared.base_url, flavor.api_prefix())
    }

    /// Delays every answer by `latency` (each connection sleeps on its
    /// own, so concurrent requests are not serialized).
    pub fn set_latency(&self, latency: Duration) {
        self.shared.lock().latency = latency;
    }

    /// Sets the length of a token's budget window (an hour by default), so
    /// tests and benchmarks can see budgets reset. Whole seconds, at least
    /// one: the reset instant the host announces is in seconds. Applies to
    /// windows started from now on.
    pub fn set_rate_window(&self, window: Duration) {
        self.shared.lock().window = window.as_secs().max(1) as i64;
    }

    /// The most requests that were in flight at once, per token, from the
    /// reading of the request head to the writing of the answer. The key is
    /// the `Authorization` (or GitLab's `PRIVATE-TOKEN`) header as sent,
    /// e.g. `Bearer x`, or `anonymous` without one: the key the budgets use.
    pub fn max_in_flight(&self) -> HashMap<String, usize> {
        self.shared.lock().max_in_flight.clone()
    }

    /// Requests that arrived while another request on the same token was in
    /// flight.
    pub fn overlaps(&self) -> usize {
        self.shared.lock().overlaps
    }

    /// Requests received (heads read), cheaper than `requests().len()`,
    /// which clones every body; [`TestHost::clear_requests`] does not reset
    /// it.
    pub fn request_count(&self) -> usize {
        self.shared.lock().count
    }

    /// Replaces the data served from now on (budgets and faults are kept).
    pub fn set_scenario(&self, scenario: Scenario) {
        let mut state = self.shared.lock();
        state.scenario = scenario;
        state.lists = routes::Lists::default();
    }

    /// Replaces the data served once `after` more requests have been
    /// received: the requests received so far and the next `after` see the
    /// data as it is, every later one `scenario`. So a host's state can
    /// change between two pages of one list, as a live host's does while a
    /// client pages through it (an item updated meanwhile moves from a
    /// later page to an earlier one). Several swaps apply in the order
    /// queued; [`TestHost::set_scenario`] does not cancel them.
    pub fn set_scenario_after(&self, after: usize, scenario: Scenario) {
        let mut state = self.shared.lock();
        let at = state.count + after;
        state.swaps.push_back((at, scenario));
    }

    /// Scenario swaps queued by [`TestHost::set_scenario_after`] and not
    /// yet applied.
    pub fn pending_swaps(&self) -> usize {
        self.shared.lock().swaps.len()
    }

    /// Forgets the swaps and the faults not yet applied (a test's round
    /// ends, and what it queued for requests that never came must not fall
    /// on the next).
    pub fn clear_pending(&self) {
        let mut state = self.shared.lock();
        state.swaps.clear();
        state.faults.clear();
    }

    /// Sets the hourly budget per token (default [`DEFAULT_RATE_LIMIT`]);
    /// applies to budgets already running too.
    pub fn set_rate_limit(&self, limit: u64) {
        self.shared.lock().limit = limit;
    }

    /// Makes `Link` (and redirect `Location`) URLs point at `base`, another
    /// server, as a hostile or misconfigured host could: a client must not
    /// send its token there.
    pub fn set_link_base(&self, base: &str) {
        self.shared.lock().link_base = Some(base.trim_end_matches('/').to_string());
    }

    /// Drops the `Link` header from every answer from now on, as some
    /// proxies do; GitLab clients then page by `X-Next-Page`.
    pub fn drop_link_headers(&self) {
        self.shared.lock().drop_link = true;
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// Forgets the recorded requests.
    pub fn clear_requests(&self) {
        self.shared.lock().requests.clear();
    }

    /// Queues a fault for the next request that has none applied yet.
    pub fn inject(&self, fault: Fault) {
        self.shared.lock().faults.push_back((None, fault));
    }

    /// Queues a fault for the next request whose path starts with `prefix`
    /// (e.g. `/repos/o/n/issues`).
    pub fn inject_for(&self, prefix: &str, fault: Fault) {
        self.shared
            .lock()
            .faults
            .push_back((Some(prefix.to_string()), fault));
    }

    /// Faults queued and not yet applied.
    pub fn pending_faults(&self) -> usize {
        self.shared.lock().faults.len()
    }
}

impl Drop for TestHost {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

struct Request {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    /// The body (a GraphQL POST's JSON); empty for a GET.
    body: Vec<u8>,
}

impl Request {
    /// Whose budget a request spends: its `Authorization` (or GitLab's
    /// `PRIVATE-TOKEN`) header as sent, or `anonymous`.
    fn token_key(&self) -> String {
        self.headers
            .iter()
            .find(|(k, _)| k == "authorization" || k == "private-token")
            .map_or_else(|| "anonymous".to_string(), |(_, v)| v.clone())
    }
}

/// Reads the request line, headers and body (up to 1 MiB).
fn read_request(stream: &TcpStream) -> io::Result<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "bad request line",
        ));
    };
    let (method, target) = (method.to_string(), target.to_string());
    let mut headers = vec![];
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let len: u64 = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = Vec::new();
    reader.take(len.min(1 << 20)).read_to_end(&mut body)?;
    Ok(Request {
        method,
        target,
        headers,
        body,
    })
}

fn handle(shared: &Shared, mut stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(req) = read_request(&stream) else {
        return;
    };
    let token = req.token_key();
    let latency = {
        let mut state = shared.lock();
        state.count += 1;
        while let Some((at, _)) = state.swaps.front()
            && state.count > *at
        {
            if let Some((_, scenario)) = state.swaps.pop_front() {
                state.scenario = scenario;
                state.lists = routes::Lists::default();
            }
        }
        let n = state.in_flight.entry(token.clone()).or_insert(0);
        *n += 1;
        let n = *n;
        if n > 1 {
            state.overlaps += 1;
        }
        let max = state.max_in_flight.entry(token.clone()).or_insert(0);
        *max = (*max).max(n);
        state.latency
    };
    let reply = answer_request(shared, &req, latency);
    // The request ends when its answer is ready, before it is sent: once
    // the last byte arrives, the client (or another worker, given the
    // token) may send the next request before this thread runs again, and
    // counting until after the write saw an overlap that never was.
    {
        let mut state = shared.lock();
        if let Some(n) = state.in_flight.get_mut(&token) {
            *n = n.saturating_sub(1);
        }
    }
    if let Some(bytes) = reply {
        let _ = stream.write_all(&bytes);
        let _ = stream.flush();
    }
}

/// The bytes to answer `req` with after `latency` (and any fault's
/// delay), or `None` when the connection is to be dropped unanswered.
fn answer_request(shared: &Shared, req: &Request, latency: Duration) -> Option<Vec<u8>> {
    if !latency.is_zero() {
        thread::sleep(latency);
    }
    let (path, query) = req.target.split_once('?').unwrap_or((&req.target, ""));
    let (status, response, fault) = {
        let mut state = shared.lock();
        let idx = state
            .faults
            .iter()
            .position(|(p, _)| p.as_deref().is_none_or(|p| path.starts_with(p)));
        let fault = idx.and_then(|i| state.faults.remove(i)).map(|(_, f)| f);
        let response = answer::answer(
            &mut state,
            &shared.base_url,
            req,
            path,
            query,
            fault.as_ref(),
        );
        let status = (fault != Some(Fault::Reset)).then_some(response.status);
        state.requests.push(RecordedRequest {
            method: req.method.clone(),
            path: req.target.clone(),
            headers: req.headers.clone(),
            status,
            body: response.body.clone(),
            fault: fault.clone(),
        });
        (status, response, fault)
    };
    match fault {
        Some(Fault::Reset) => return None,
        Some(Fault::Delay(d)) => thread::sleep(d),
        _ => {}
    }
    let status = status?;
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (k, v) in &response.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        response.body.len()
    ));
    let body = if fault == Some(Fault::Truncate) {
        &response.body[..response.body.len() / 2]
    } else {
        &response.body[..]
    };
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    Some(bytes)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Unknown",
    }
}

#[cfg(test)]
mod tests;
