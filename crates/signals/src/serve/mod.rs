//! The server of `signals serve`: the site and a read-only JSON API over
//! the store, on loopback by default (docs/api.md).
//!
//! The pages are the export's (`site.rs`): `serve` runs the same
//! incremental export into a private folder, and again when the store has
//! a newer run, then streams those files; so what it shows cannot drift
//! from what `signals export` writes. It listens at once: the first export
//! runs in the background, the API and `/metrics` answer meanwhile, and a
//! page (or a repository's trends, read from that export) answers 503
//! with `Retry-After` until it is done; stderr says when it starts and
//! ends (docs/decisions.md, "`serve` listens before its site is
//! exported"). Item history pages are rendered on
//! demand by the export's own function. The API (`api.rs`) reads the store
//! directly, through `signals_store::Backend`.
//!
//! The server is axum's router on hyper and tokio (`net.rs`: connection
//! limit, timeouts, keep-alive, graceful shutdown on SIGTERM); the blocking
//! store is read on tokio's blocking threads through a small pool of
//! connections (`pool.rs`). An optional read token (`--token-env`) guards
//! every path. Only GET and HEAD are answered.
//!
//! A full disk under the private folder stops the server when it starts
//! (exit code 7, when the first export fails); once that export is done, a refresh that finds
//! the disk full is logged on stderr, and the pages of the last export
//! (whole, since a failed export leaves the site as it was) and the API go
//! on being answered; the refresh is tried again after the next pause.
//!
//! The private folder is removed when the server stops on SIGINT (Ctrl-C)
//! or SIGTERM, or fails; only a SIGKILL leaves it behind, in the system's
//! temporary folder.

mod answer;
mod api;
mod front;
mod index;
mod net;
mod pool;
mod search;
mod site;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::Response;
use sha2::{Digest, Sha256};
use signals_core::importance::Weights;

use crate::config::Config;

/// The longest request target accepted, in bytes.
const MAX_TARGET: usize = 2048;
/// How often, at most, the site is brought up to date with the store.
const REFRESH: Duration = Duration::from_secs(2);
/// The `Retry-After` of a page asked for before the first export is done.
const RETRY_AFTER_SECS: u64 = 5;

/// What every request handler shares.
struct App {
    pool: Arc<pool::Pool>,
    /// The signals list's per-repository indexes, rebuilt after new runs.
    indexes: Arc<index::Indexes>,
    weights: Arc<Weights>,
    /// The collection interval, against which the pages judge health.
    interval: Duration,
    /// The configuration's `clock`, the instant health is judged at.
    clock: Option<jiff::Timestamp>,
    /// The private site folder the export writes, and how.
    site: PathBuf,
    exporter: Arc<site::Exporter>,
    /// When the site was last brought up to date, and the store's state
    /// then; held by the one request that refreshes it.
    refreshed: tokio::sync::Mutex<(Instant, String)>,
    /// Whether the first export is done: until then a page answers 503.
    exported: AtomicBool,
    /// When the server started, for the 503's message.
    started: Instant,
    token: Option<Token>,
}

/// How `signals serve` was asked to serve.
pub struct Settings {
    /// The address to listen on (`127.0.0.1` by default).
    pub bind: String,
    /// The port to listen on.
    pub port: u16,
    /// The read token every request must carry, if any.
    pub token: Option<Token>,
    /// How long a connection may stall (head not sent, idle, response not
    /// read) before it is closed.
    pub timeout: Duration,
    /// Connections served at once.
    pub max_connections: usize,
    /// Store connections, so store reads at once.
    pub store_connections: usize,
}

/// The read token clients must send, kept as its SHA-256 only: compared in
/// constant time, and never printed (no `Debug`).
pub struct Token([u8; 32]);

impl Token {
    /// The token whose secret is `secret`.
    pub fn new(secret: &str) -> Token {
        Token(Sha256::digest(secret.as_bytes()).into())
    }

    /// Whether `headers` carry `Authorization: Bearer <the token>`. The
    /// presented value is hashed first, so the comparison takes the same
    /// time whatever its length and wherever it differs.
    fn admits(&self, headers: &HeaderMap) -> bool {
        let Some(presented) = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.as_bytes().strip_prefix(b"Bearer "))
        else {
            return false;
        };
        let presented: [u8; 32] = Sha256::digest(presented).into();
        presented
            .iter()
            .zip(&self.0)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
    }
}

/// Serves until SIGINT (Ctrl-C) or SIGTERM.
pub fn run(config: &Config, config_path: &Path, args: Settings) -> anyhow::Result<()> {
    let pool = Arc::new(pool::Pool::open(&config.store, args.store_connections)?);
    let site_root = site::PrivateSite(
        std::env::temp_dir().join(format!("signals-serve-{}", std::process::id())),
    );
    std::fs::create_dir_all(&site_root.0)
        .with_context(|| format!("cannot create {}", site_root.0.display()))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Blocking threads are taken by store reads, each holding a pool
        // connection: no more are ever needed.
        .max_blocking_threads(args.store_connections.max(1))
        .build()
        .context("cannot start the server's runtime")?;
    let app = Arc::new(App {
        pool,
        indexes: Arc::new(index::Indexes::new(crate::export::Conversation::of(config))),
        weights: Arc::new(config.importance.clone()),
        interval: config.interval,
        clock: config.clock,
        site: site_root.0.join("site"),
        exporter: Arc::new(site::Exporter {
            config: config_path.to_path_buf(),
            store: config.store.clone(),
            site: site_root.0.join("site"),
            running: std::sync::Mutex::new(None),
        }),
        refreshed: tokio::sync::Mutex::new((Instant::now(), String::new())),
        exported: AtomicBool::new(false),
        started: Instant::now(),
        token: args.token,
    });
    let max_connections = net::fit_open_files(args.max_connections.max(1));
    if max_connections < args.max_connections {
        eprintln!(
            "warning: the open-file limit allows {max_connections} connections, not {}",
            args.max_connections
        );
    }
    let limits = net::Limits {
        max_connections,
        timeout: args.timeout,
    };
    let addr = format!("{}:{}", args.bind, args.port);
    let loopback = args
        .bind
        .parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
        || args.bind == "localhost";
    if !loopback && app.token.is_none() {
        eprintln!(
            "warning: serving on {} without a read token: anyone who reaches it reads the \
             whole store; give it --token-env NAME (docs/api.md)",
            args.bind
        );
    }
    let shown = crate::store::shown(&config.store);
    let guarded = app.token.is_some();
    let exporter = Arc::clone(&app.exporter);
    let failure = runtime.block_on(async move {
        // Signals are taken over before the port opens: a SIGTERM sent as
        // soon as the port answers stops the server as any other does,
        // where it used to kill it (the handlers were set at its first
        // poll, after the bind).
        let stopping = stopped();
        let listener = tokio::net::TcpListener::bind(&addr)
            .await
            .with_context(|| format!("cannot listen on {addr}: choose another --port or --bind"))?;
        eprintln!(
            "serving {shown} at http://{addr}/ (the API under /api/{}; Ctrl-C stops)",
            if guarded {
                "; a read token is required"
            } else {
                ""
            }
        );
        // The first export, in the background: the API answers at once,
        // the pages once it is done (docs/decisions.md).
        let (failed_tx, failed_rx) = tokio::sync::oneshot::channel();
        tokio::spawn(first_export(Arc::clone(&app), failed_tx));
        // Answers are gzipped for a client that accepts it:
        // pages, JSON, the filter index (docs/decisions.md, "Compression").
        let router = axum::Router::new()
            .fallback(handle)
            .with_state(app)
            .layer(tower_http::compression::CompressionLayer::new());
        let failure = Arc::new(std::sync::Mutex::new(None));
        let slot = Arc::clone(&failure);
        let stop = async move {
            tokio::select! {
                () = stopping => {}
                e = failed(failed_rx) => *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(e),
            }
        };
        net::serve(listener, router, limits, stop).await;
        let failure = failure.lock().unwrap_or_else(|p| p.into_inner()).take();
        anyhow::Ok(failure)
    })?;
    // An export still running (the first one, at a stop before it is
    // done) is stopped, so it writes nothing into the folder removed
    // below. Requests still running after the grace period are abandoned
    // with the runtime; their store reads end with the process.
    exporter.stop();
    runtime.shutdown_timeout(Duration::from_secs(1));
    drop(site_root);
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The first export of the private site, while the server already
/// answers; the refresh lock is held throughout, so no request starts
/// another. Its failure (a full disk, a store that cannot be read) stops
/// the server, as it stopped it before listening.
async fn first_export(app: Arc<App>, failed: tokio::sync::oneshot::Sender<anyhow::Error>) {
    let mut refreshed = app.refreshed.lock().await;
    eprintln!("exporting the site's pages; until done they answer 503, the API answers now");
    match refresh(&app, String::new()).await {
        Ok(key) => {
            *refreshed = (Instant::now(), key);
            eprintln!(
                "the site is exported ({:.1} s): every page is served",
                app.started.elapsed().as_secs_f64()
            );
            app.exported.store(true, Ordering::Release);
        }
        Err(e) => {
            let _ = failed.send(e.context("cannot export the site's pages when starting"));
        }
    }
}

/// Resolves with the first export's error; never, when it succeeded.
async fn failed(failed: tokio::sync::oneshot::Receiver<anyhow::Error>) -> anyhow::Error {
    match failed.await {
        Ok(e) => e,
        Err(_) => std::future::pending().await,
    }
}

/// The answer to a page, or a repository's trends, asked for before the
/// first export is done: 503, and when to ask again.
fn not_exported_yet(app: &App, json: bool) -> Response {
    let waited = app.started.elapsed().as_secs();
    let answer = if json {
        api::error(503, front::EXPORTING)
    } else {
        front::page_exporting(waited)
    };
    let mut response = respond(answer);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
    response
}

/// Handles SIGTERM and SIGINT from now on (called in the runtime), and
/// resolves on either.
fn stopped() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{SignalKind, signal};
    let handlers = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    );
    async move {
        match handlers {
            (Ok(mut term), Ok(mut int)) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            }
            // Without signal handling, the server runs until killed.
            _ => std::future::pending().await,
        }
    }
}

/// Runs the incremental export on a store connection; returns the store's
/// state it is up to date with.
async fn refresh(app: &Arc<App>, known: String) -> anyhow::Result<String> {
    let exporter = Arc::clone(&app.exporter);
    app.pool
        .run(move |store| site::refresh(&**store, &exporter, &known))
        .await?
}

/// Every request: the token, the method, the target, then the API, an item
/// history page, or a file of the site.
async fn handle(
    State(app): State<Arc<App>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    if let Some(token) = &app.token
        && !token.admits(&headers)
    {
        let mut response = respond(api::error(
            401,
            "this server needs a read token: send `Authorization: Bearer <token>`",
        ));
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return response;
    }
    if method != Method::GET && method != Method::HEAD {
        return respond(api::error(405, "read-only: only GET and HEAD are answered"));
    }
    let target = uri.path_and_query().map_or("/", |p| p.as_str());
    if target.len() > MAX_TARGET {
        return respond(api::error(
            414,
            format!("the request target is longer than {MAX_TARGET} bytes"),
        ));
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let Some(path) = api::percent_decode(path) else {
        return respond(api::error(
            400,
            "the path is not valid percent-encoded UTF-8",
        ));
    };
    if path.contains('\0') {
        return respond(api::error(400, "the path holds a NUL character"));
    }
    let Some(params) = api::parse_query(query) else {
        return respond(api::error(
            400,
            "the query is not valid percent-encoded UTF-8",
        ));
    };
    if path == "/metrics" {
        if let Some(refused) = front::METRICS.unknown_param(&params) {
            return respond(refused);
        }
        return read(&app, |api| api.metrics()).await;
    }
    if path == "/api" || path == "/api/" {
        return respond(
            front::FRONT
                .unknown_param(&params)
                .unwrap_or_else(front::api_index),
        );
    }
    if let Some(rest) = path.strip_prefix("/api/") {
        // Trends are the private export's `trends.json`: brought up to
        // date as the pages are, then read from there.
        if rest.ends_with("/trends") {
            if !app.exported.load(Ordering::Acquire) {
                return not_exported_yet(&app, true);
            }
            if let Some(failed) = bring_up_to_date(&app).await {
                return failed;
            }
        }
        let rest = rest.to_string();
        return read(&app, move |api| api.answer(&rest, &params)).await;
    }
    if let Some(signals_core::api::HistoryPath { group, repo, file }) = api::history_path(&path) {
        let (group, repo, file) = (group.to_string(), repo.to_string(), file.to_string());
        let response = read(&app, move |api| {
            api.history_page_answer(&group, &repo, &file)
        })
        .await;
        return if response.status() == StatusCode::NOT_FOUND {
            respond(front::page_not_found(&path))
        } else {
            response
        };
    }
    if !app.exported.load(Ordering::Acquire) {
        return not_exported_yet(&app, false);
    }
    if let Some(failed) = bring_up_to_date(&app).await {
        return failed;
    }
    // A folder's address without its slash (`/group/repo`) redirects to
    // the one with it, whose relative links and data resolve in the
    // folder; the query goes along (docs/decisions.md, "Addresses").
    if !path.ends_with('/') && site::is_folder(&app.site, &path).await {
        let raw = target.split_once('?').map_or(target, |(p, _)| p);
        let location = if query.is_empty() {
            format!("{raw}/")
        } else {
            format!("{raw}/?{query}")
        };
        return redirect(&location);
    }
    match site::file(&app.site, &path).await {
        Ok(response) => with_common_headers(response),
        // A page that is not there is an HTML page, as a browser expects.
        Err((404, _, _)) => respond(front::page_not_found(&path)),
        Err(answer) => respond(answer),
    }
}

/// Brings the private site up to date when it is due, in one request; the
/// others meanwhile use the files as they are (an export switches them at
/// once, so none sees a half-written site). An answer when it failed.
async fn bring_up_to_date(app: &Arc<App>) -> Option<Response> {
    if let Ok(mut refreshed) = app.refreshed.try_lock()
        && refreshed.0.elapsed() >= REFRESH
    {
        match refresh(app, refreshed.1.clone()).await {
            Ok(key) => *refreshed = (Instant::now(), key),
            // The export left the site as it was: serve that, and try
            // again after the next pause (docs/decisions.md, "A full disk").
            Err(e) if crate::exit::is_disk_full(&e) => {
                eprintln!(
                    "warning: cannot bring the site up to date, the disk is full: {e:#}; \
                     serving the pages of the last export until there is room"
                );
                refreshed.0 = Instant::now();
            }
            Err(e) => {
                return Some(respond((
                    500,
                    "text/plain; charset=utf-8",
                    format!("cannot bring the site up to date: {e:#}").into_bytes(),
                )));
            }
        }
    }
    None
}

/// Runs an API read on a store connection.
async fn read<F>(app: &Arc<App>, answer: F) -> Response
where
    F: FnOnce(&api::Api<'_>) -> api::Answer + Send + 'static,
{
    let weights = Arc::clone(&app.weights);
    let interval = app.interval;
    let clock = app.clock;
    let indexes = Arc::clone(&app.indexes);
    let site = app.site.clone();
    match app
        .pool
        .run(move |store| {
            answer(&api::Api {
                store: &**store,
                opened: store,
                indexes: &indexes,
                site: &site,
                weights: &weights,
                interval,
                clock,
            })
        })
        .await
    {
        Ok(answer) => respond(answer),
        Err(e) => respond(api::error(500, format!("the store failed: {e:#}"))),
    }
}

/// A permanent redirect (308: the method and body are kept) to
/// `location`, a path and query of this server.
fn redirect(location: &str) -> Response {
    let mut response = respond((
        308,
        "text/plain; charset=utf-8",
        format!("moved to {location}\n").into_bytes(),
    ));
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// An answer as a response.
fn respond((status, content_type, body): api::Answer) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    with_common_headers(response)
}

fn with_common_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::CACHE_CONTROL, "no-store"),
        (header::REFERRER_POLICY, "strict-origin-when-cross-origin"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_admits_only_its_own_bearer_value() {
        let token = Token::new("s3cret");
        let with = |value: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
            h
        };
        assert!(token.admits(&with("Bearer s3cret")));
        for refused in [
            "Bearer s3cre",
            "Bearer s3cret ",
            "bearer s3cret",
            "s3cret",
            "Basic s3cret",
        ] {
            assert!(!token.admits(&with(refused)), "{refused}");
        }
        assert!(!token.admits(&HeaderMap::new()));
    }
}
