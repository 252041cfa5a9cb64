//! `signals serve`: the site and a read-only JSON API over the store, on
//! loopback by default (docs/api.md).
//!
//! The pages are the export's: `serve` runs the same incremental export
//! (`export::export_with`) into a private folder, and again when the store
//! has a newer run, then serves those files; so what it shows cannot drift
//! from what `signals export` writes. Item history pages are the exception:
//! that export writes none (a large store would mean one file per item at
//! every start), and `/<group>/<repo>/history/<file>.html` is rendered on
//! demand by the export's own function (`export::history_page`). The API
//! reads the store directly, through `signals_store::Backend`, and item
//! histories are built on demand from the stored snapshots
//! (`signals_core::history`), so they cost nothing until asked for.
//!
//! The private folder is removed when the server stops on SIGINT (Ctrl-C)
//! or SIGTERM, or fails; only a SIGKILL leaves it behind, in the system's
//! temporary folder.
//!
//! One thread answers requests one after another: a local tool for a
//! person, not a public web server (put the exported site behind nginx for
//! that). Only GET and HEAD are answered; every bad parameter is a 400 with
//! a JSON error, an unknown thing a 404.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::{Value, json};
use signals_core::importance::{Weights, score};
use signals_core::{ItemSnapshot, Source};
use signals_store::{Backend, RepoSummary};

use crate::cli::ServeArgs;
use crate::config::Config;

/// Signals per page of `/api/repos/{group}/{repo}/signals`.
pub const PAGE_SIZE: usize = 50;
/// Trail events per page of `/api/repos/{group}/{repo}/trail`.
pub const TRAIL_PAGE_SIZE: usize = 100;
/// The longest `q` accepted, in characters.
pub const MAX_Q: usize = 200;
/// The longest request target accepted, in bytes.
const MAX_TARGET: usize = 2048;
/// How often, at most, the site is brought up to date with the store.
const REFRESH: Duration = Duration::from_secs(2);

/// How long the server waits for a request before it looks whether it was
/// asked to stop.
const POLL: Duration = Duration::from_millis(250);

/// The private site folder, removed when dropped: on a normal stop, on an
/// error, and after SIGINT or SIGTERM (which end the request loop).
struct PrivateSite(PathBuf);

impl Drop for PrivateSite {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `signals serve` until SIGINT (Ctrl-C) or SIGTERM.
pub fn run(config: &Config, args: &ServeArgs) -> anyhow::Result<u8> {
    let store = crate::store::open(&config.store, false)?;
    crate::worker::install_signal_handlers();
    let site_root =
        PrivateSite(std::env::temp_dir().join(format!("signals-serve-{}", std::process::id())));
    std::fs::create_dir_all(&site_root.0)
        .with_context(|| format!("cannot create {}", site_root.0.display()))?;
    let mut server = Server {
        store: &*store,
        weights: &config.importance,
        site: site_root.0.join("site"),
        refreshed: None,
        data_key: String::new(),
    };
    server.refresh()?;
    let addr = format!("{}:{}", args.bind, args.port);
    let http = tiny_http::Server::http(&addr).map_err(|e| {
        anyhow::anyhow!("cannot listen on {addr}: {e}; choose another --port or --bind")
    })?;
    eprintln!(
        "serving {} at http://{addr}/ (the API under /api/; Ctrl-C stops)",
        crate::store::shown(&config.store)
    );
    while !crate::worker::STOP.load(std::sync::atomic::Ordering::SeqCst) {
        let request = match http.recv_timeout(POLL) {
            Ok(Some(request)) => request,
            Ok(None) => continue,
            // Interrupted by the signal, or the listener failed.
            Err(_) => continue,
        };
        let (status, content_type, body) = server.answer(request.method(), request.url());
        // tiny_http sends no body to a HEAD request, with the length a GET
        // would have had.
        let mut response = tiny_http::Response::from_data(body).with_status_code(status);
        for (name, value) in [
            ("Content-Type", content_type),
            ("X-Content-Type-Options", "nosniff"),
            ("Cache-Control", "no-store"),
            ("Referrer-Policy", "strict-origin-when-cross-origin"),
        ] {
            if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
                response.add_header(h);
            }
        }
        let _ = request.respond(response);
    }
    drop(site_root);
    Ok(crate::exit::OK)
}

/// The server's state: the store, and the private export it serves.
pub struct Server<'a> {
    /// The store, read only.
    pub store: &'a dyn Backend,
    /// Importance weights, as the export uses them.
    pub weights: &'a Weights,
    /// The private site folder.
    pub site: PathBuf,
    refreshed: Option<Instant>,
    /// The store's state at the last refresh.
    data_key: String,
}

/// A status, a content type and a body.
pub type Answer = (u16, &'static str, Vec<u8>);

fn json_answer(status: u16, value: &Value) -> Answer {
    // serde_json escapes what JSON needs; `<`, `>` and `&` are escaped too,
    // so a response read as HTML by mistake is still inert.
    let text = serde_json::to_string_pretty(value)
        .unwrap_or_else(|_| "{}".into())
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    (status, "application/json; charset=utf-8", text.into_bytes())
}

fn error(status: u16, message: impl Into<String>) -> Answer {
    json_answer(status, &json!({ "error": message.into() }))
}

impl<'a> Server<'a> {
    /// Brings the private site up to date with the store (an incremental
    /// export: only repositories with a newer run are rendered).
    pub fn refresh(&mut self) -> anyhow::Result<()> {
        let key = serde_json::to_string(
            &self
                .store
                .repositories()?
                .iter()
                .map(|s| (s.key.raw(), s.run_count))
                .collect::<Vec<_>>(),
        )?;
        self.refreshed = Some(Instant::now());
        if key == self.data_key && self.site.exists() {
            return Ok(());
        }
        super::export::export_with(
            self.store,
            &self.site,
            &signals_site::SiteOptions::default(),
            self.weights,
            false,
            false, // history pages are rendered on demand
        )?;
        self.data_key = key;
        Ok(())
    }

    /// Answers one request; never panics, whatever the target.
    pub fn answer(&mut self, method: &tiny_http::Method, target: &str) -> Answer {
        if !matches!(method, tiny_http::Method::Get | tiny_http::Method::Head) {
            return error(405, "read-only: only GET and HEAD are answered");
        }
        if target.len() > MAX_TARGET {
            return error(
                414,
                format!("the request target is longer than {MAX_TARGET} bytes"),
            );
        }
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let Some(path) = percent_decode(path) else {
            return error(400, "the path is not valid percent-encoded UTF-8");
        };
        if path.contains('\0') {
            return error(400, "the path holds a NUL character");
        }
        let Some(params) = parse_query(query) else {
            return error(400, "the query is not valid percent-encoded UTF-8");
        };
        if let Some(api) = path.strip_prefix("/api/") {
            return match self.api(api, &params) {
                Ok(answer) => answer,
                Err(e) => error(500, format!("the store failed: {e:#}")),
            };
        }
        if let Some((group, repo, file)) = history_path(&path) {
            return match self.history_page(group, repo, file) {
                Ok(answer) => answer,
                Err(e) => error(500, format!("the store failed: {e:#}")),
            };
        }
        if self.refreshed.is_none_or(|t| t.elapsed() >= REFRESH)
            && let Err(e) = self.refresh()
        {
            return (
                500,
                "text/plain; charset=utf-8",
                format!("cannot bring the site up to date: {e:#}").into_bytes(),
            );
        }
        self.file(&path)
    }

    fn api(&self, path: &str, params: &HashMap<String, String>) -> anyhow::Result<Answer> {
        let parts: Vec<&str> = path.split('/').collect();
        Ok(match parts.as_slice() {
            ["groups"] => self.groups()?,
            ["repos", group, repo, "signals"] => match self.repo(group, repo)? {
                Some(s) => self.signals(&s, params)?,
                None => unknown_repo(group, repo),
            },
            ["repos", group, repo, "trail"] => match self.repo(group, repo)? {
                Some(s) => self.trail(&s, params)?,
                None => unknown_repo(group, repo),
            },
            ["repos", group, repo, "trends"] => match self.repo(group, repo)? {
                Some(s) => self.trends(&s, params)?,
                None => unknown_repo(group, repo),
            },
            ["signals", rest @ ..] if rest.last() == Some(&"history") && rest.len() >= 2 => {
                let id = rest[..rest.len() - 1].join("/");
                self.history(&id, params)?
            }
            _ => error(
                404,
                format!("no such API endpoint: /api/{path} (see docs/api.md)"),
            ),
        })
    }

    fn repo(&self, group: &str, repo: &str) -> anyhow::Result<Option<RepoSummary>> {
        Ok(self
            .store
            .repositories()?
            .into_iter()
            .find(|s| s.group.id == group && s.repo.id == repo))
    }

    fn groups(&self) -> anyhow::Result<Answer> {
        let mut groups: Vec<Value> = Vec::new();
        let mut current: Option<String> = None;
        for s in self.store.repositories()? {
            if current.as_deref() != Some(s.group.id.as_str()) {
                current = Some(s.group.id.clone());
                groups.push(json!({"id": s.group.id, "name": s.group.name, "repositories": []}));
            }
            if let Some(Value::Array(list)) =
                groups.last_mut().and_then(|g| g.get_mut("repositories"))
            {
                list.push(json!({
                    "id": s.repo.id,
                    "repo": s.repo.repo.to_string(),
                    "name": s.repo.name,
                    "source": s.repo.source.as_str(),
                    "runs": s.run_count,
                    "lastCollectedAt": s.last_collected_at.map(|t| t.to_string()),
                    "missing": s.missing,
                    "signals": format!("/api/repos/{}/{}/signals", s.group.id, s.repo.id),
                    "trail": format!("/api/repos/{}/{}/trail", s.group.id, s.repo.id),
                    "trends": format!("/api/repos/{}/{}/trends", s.group.id, s.repo.id),
                    "page": format!("/{}/{}/index.html", s.group.id, s.repo.id),
                }));
            }
        }
        Ok(json_answer(200, &json!({ "groups": groups })))
    }

    fn signals(&self, s: &RepoSummary, params: &HashMap<String, String>) -> anyhow::Result<Answer> {
        let query = match SignalQuery::parse(params) {
            Ok(q) => q,
            Err(message) => return Ok(error(400, message)),
        };
        let Some(view) = self.store.repository_view(s.key)? else {
            return Ok(json_answer(
                200,
                &json!({"total": 0, "page": 1, "pages": 0, "signals": []}),
            ));
        };
        let instant = view.runs.last().map(|r| r.collected_at).unwrap_or_default();
        let mut matched: Vec<(u32, &String, &ItemSnapshot)> = view
            .items
            .iter()
            .filter(|(_, item)| query.matches(item))
            .map(|(id, item)| (score(item, instant, self.weights).total, id, item))
            .collect();
        match query.sort {
            Sort::Importance => matched.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1))),
            Sort::Updated => {
                matched.sort_by(|a, b| b.2.updated_at.cmp(&a.2.updated_at).then(a.1.cmp(b.1)))
            }
        }
        let total = matched.len();
        let pages = total.div_ceil(PAGE_SIZE);
        if query.page > pages.max(1) {
            return Ok(error(
                400,
                format!(
                    "page {} is past the last page, {}",
                    query.page,
                    pages.max(1)
                ),
            ));
        }
        let signals: Vec<Value> = matched
            .iter()
            .skip((query.page - 1) * PAGE_SIZE)
            .take(PAGE_SIZE)
            .map(|(importance, id, item)| {
                json!({
                    "id": id,
                    "kind": item.kind().as_str(),
                    "key": item.key,
                    "title": item.title,
                    "url": item.url,
                    "state": state_of(item),
                    "labels": item.labels,
                    "author": item.author,
                    "assignees": item.assignees,
                    "createdAt": item.created_at.to_string(),
                    "updatedAt": item.updated_at.to_string(),
                    "reactions": item.metrics.reactions,
                    "comments": item.metrics.comments,
                    "importance": importance,
                    "changedInLatest": view.changed_in_latest.contains(*id),
                    "history": format!("/api/signals/{}/history", encode_id(id)),
                })
            })
            .collect();
        Ok(json_answer(
            200,
            &json!({
                "group": s.group.id, "repo": s.repo.id,
                "total": total, "page": query.page, "pages": pages, "pageSize": PAGE_SIZE,
                "signals": signals,
            }),
        ))
    }

    /// The repository's trends: the document export writes as
    /// `trends.json`, made by the same function.
    fn trends(&self, s: &RepoSummary, params: &HashMap<String, String>) -> anyhow::Result<Answer> {
        if let Some(key) = params.keys().next() {
            return Ok(error(
                400,
                format!("unknown parameter {key:?}: trends take no parameter"),
            ));
        }
        let Some(view) = self.store.repository_view(s.key)? else {
            return Ok(error(
                404,
                format!(
                    "{}/{} has no successful run yet: collect it first",
                    s.group.id, s.repo.id
                ),
            ));
        };
        let trends = crate::cmd::export::trends_of(self.store, &view)?;
        Ok(json_answer(200, &serde_json::to_value(&trends)?))
    }

    fn trail(&self, s: &RepoSummary, params: &HashMap<String, String>) -> anyhow::Result<Answer> {
        for key in params.keys() {
            if key != "page" {
                return Ok(error(
                    400,
                    format!("unknown parameter {key:?}: the trail takes page"),
                ));
            }
        }
        let page = match page_param(params) {
            Ok(p) => p,
            Err(message) => return Ok(error(400, message)),
        };
        let trail = match self.store.repository_view(s.key)? {
            Some(view) => view.trail,
            None => Vec::new(),
        };
        let total = trail.len();
        let pages = total.div_ceil(TRAIL_PAGE_SIZE);
        if page > pages.max(1) {
            return Ok(error(
                400,
                format!("page {page} is past the last page, {}", pages.max(1)),
            ));
        }
        // Newest first: the latest run's events on page 1.
        let events: Vec<Value> = trail
            .iter()
            .rev()
            .skip((page - 1) * TRAIL_PAGE_SIZE)
            .take(TRAIL_PAGE_SIZE)
            .map(|e| {
                json!({
                    "at": e.at.to_string(), "itemId": e.item_id, "title": e.title, "url": e.url,
                    "kind": e.kind.as_str(), "detail": e.detail,
                    "history": format!("/api/signals/{}/history", encode_id(&e.item_id)),
                })
            })
            .collect();
        Ok(json_answer(
            200,
            &json!({"group": s.group.id, "repo": s.repo.id, "total": total, "page": page,
                    "pages": pages, "pageSize": TRAIL_PAGE_SIZE, "events": events}),
        ))
    }

    /// `id` is `<source>:<owner>/<name>:<kind>:<key>`; `group` picks the
    /// group when the repository is tracked in several.
    fn history(&self, id: &str, params: &HashMap<String, String>) -> anyhow::Result<Answer> {
        for key in params.keys() {
            if key != "group" {
                return Ok(error(
                    400,
                    format!("unknown parameter {key:?}: history takes group"),
                ));
            }
        }
        let Some((source, repo)) = parse_id(id) else {
            return Ok(error(
                400,
                format!("{id:?} is not a signal id (<source>:<owner>/<name>:<kind>:<key>)"),
            ));
        };
        let owner = self.store.repositories()?.into_iter().find(|s| {
            s.repo.source == source
                && s.repo.repo.to_string().eq_ignore_ascii_case(repo)
                && params.get("group").is_none_or(|g| *g == s.group.id)
        });
        let Some(owner) = owner else {
            return Ok(error(404, format!("no tracked repository holds {id:?}")));
        };
        let snapshots = self.store.snapshot_history(owner.key, id)?;
        match signals_core::history::history(id, &snapshots) {
            Some(h) => {
                let mut value = serde_json::to_value(&h)?;
                value["group"] = owner.group.id.clone().into();
                value["repo"] = owner.repo.id.clone().into();
                if let Some(list) = value["observations"].as_array_mut() {
                    for (entry, o) in list.iter_mut().zip(&h.observations) {
                        entry["summary"] = o
                            .changes
                            .iter()
                            .map(|c| c.summary())
                            .collect::<Vec<_>>()
                            .into();
                    }
                }
                Ok(json_answer(200, &value))
            }
            None => Ok(error(404, format!("{id:?} has never been observed"))),
        }
    }

    /// An item's history page, rendered now from the store by the
    /// function `signals export` writes it with.
    fn history_page(&self, group: &str, repo: &str, file: &str) -> anyhow::Result<Answer> {
        let Some(summary) = self.repo(group, repo)? else {
            return Ok(error(
                404,
                format!("no such page: /{group}/{repo}/history/{file}"),
            ));
        };
        // The file name says the item (`issue-42.html`); a long key's name
        // was cut, so then the repository's items are looked through.
        let mut id = decode_history_file(&summary, file);
        if id.is_none() {
            id = self
                .store
                .latest_snapshots(summary.key)?
                .into_keys()
                .find(|id| signals_site::history_file(id) == file);
        }
        let page = match id {
            Some(id) => super::export::history_page(self.store, &summary, &id)?,
            None => None,
        };
        Ok(match page {
            Some(html) => (200, "text/html; charset=utf-8", html.into_bytes()),
            None => error(404, format!("no such page: /{group}/{repo}/history/{file}")),
        })
    }

    /// A file of the private site; `/` is the index, a folder its
    /// `index.html`. Anything that would leave the site is refused.
    fn file(&self, path: &str) -> Answer {
        let mut rel = PathBuf::new();
        for part in Path::new(path.trim_start_matches('/')).components() {
            match part {
                Component::Normal(p) => rel.push(p),
                Component::CurDir => {}
                _ => return error(400, "the path leaves the site"),
            }
        }
        let root = match self.site.canonicalize() {
            Ok(r) => r,
            Err(e) => return error(500, format!("the site is missing: {e}")),
        };
        let mut full = root.join(&rel);
        if full.is_dir() {
            full.push("index.html");
        }
        // Links inside the site (generations, versions) are followed, but
        // the file must still be under the site's own folder.
        let real = match full.canonicalize() {
            Ok(r) => r,
            Err(_) => return error(404, format!("no such page: {path}")),
        };
        let store_root = root.parent().map(Path::to_path_buf).unwrap_or(root.clone());
        if !real.starts_with(&store_root) {
            return error(400, "the path leaves the site");
        }
        match std::fs::read(&real) {
            Ok(bytes) => (200, content_type(&real), bytes),
            Err(_) => error(404, format!("no such page: {path}")),
        }
    }
}

/// `(group, repo, file)` of `/<group>/<repo>/history/<file>.html`.
fn history_path(path: &str) -> Option<(&str, &str, &str)> {
    let parts: Vec<&str> = path.strip_prefix('/')?.split('/').collect();
    match parts.as_slice() {
        [group, repo, "history", file] if file.ends_with(".html") => Some((group, repo, file)),
        _ => None,
    }
}

/// The signal id a history file name stands for (the reverse of
/// `signals_site::history_file`), when the name was not cut; checked by
/// encoding it again.
fn decode_history_file(summary: &RepoSummary, file: &str) -> Option<String> {
    let (kind, escaped) = file.strip_suffix(".html")?.split_once('-')?;
    let kind = signals_core::ItemKind::parse(kind)?;
    let mut key = Vec::with_capacity(escaped.len());
    let mut i = 0;
    while i < escaped.len() {
        if escaped.as_bytes()[i] == b'_' {
            key.push(u8::from_str_radix(escaped.get(i + 1..i + 3)?, 16).ok()?);
            i += 3;
        } else {
            key.push(escaped.as_bytes()[i]);
            i += 1;
        }
    }
    let key = String::from_utf8(key).ok()?;
    let id = signals_core::signal_id(summary.repo.source, &summary.repo.repo, kind, &key);
    (signals_site::history_file(&id) == file).then_some(id)
}

fn unknown_repo(group: &str, repo: &str) -> Answer {
    error(
        404,
        format!("no repository {repo:?} in group {group:?} (see /api/groups)"),
    )
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("json") => "application/json; charset=utf-8",
        Some("atom") => "application/atom+xml; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn state_of(item: &ItemSnapshot) -> &'static str {
    match item.detail {
        signals_core::ItemDetail::PullRequest { merged: true, .. } => "merged",
        _ => item.state.as_str(),
    }
}

/// `(source, owner/name)` of a signal id.
fn parse_id(id: &str) -> Option<(Source, &str)> {
    let mut parts = id.splitn(4, ':');
    let source = parts.next()?;
    let repo = parts.next()?;
    let kind = parts.next()?;
    let key = parts.next()?;
    if key.is_empty() || !["issue", "pull_request", "release"].contains(&kind) {
        return None;
    }
    let source: Source = serde_json::from_value(Value::String(source.to_string())).ok()?;
    repo.contains('/').then_some((source, repo))
}

/// A signal id in a path: `/` stays (the id's repository), the rest that
/// needs it is percent-encoded.
fn encode_id(id: &str) -> String {
    let mut out = String::new();
    for b in id.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' | b':' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    Importance,
    Updated,
}

/// The filters of `/signals`, as the site's filter script offers them.
#[derive(Debug)]
struct SignalQuery {
    kind: Option<String>,
    state: Option<String>,
    label: Option<String>,
    q: Option<String>,
    sort: Sort,
    page: usize,
}

impl SignalQuery {
    fn parse(params: &HashMap<String, String>) -> Result<SignalQuery, String> {
        for key in params.keys() {
            if !["kind", "state", "label", "q", "sort", "page"].contains(&key.as_str()) {
                return Err(format!(
                    "unknown parameter {key:?}: signals take kind, state, label, q, sort and page"
                ));
            }
        }
        let nonempty = |k: &str| params.get(k).filter(|v| !v.is_empty()).cloned();
        let kind = nonempty("kind");
        if let Some(k) = &kind
            && !["issue", "pull_request", "release"].contains(&k.as_str())
        {
            return Err(format!("kind {k:?} is not issue, pull_request or release"));
        }
        let state = nonempty("state");
        if let Some(s) = &state
            && !["open", "closed", "merged"].contains(&s.as_str())
        {
            return Err(format!("state {s:?} is not open, closed or merged"));
        }
        let q = nonempty("q");
        if let Some(q) = &q
            && q.chars().count() > MAX_Q
        {
            return Err(format!("q is longer than {MAX_Q} characters"));
        }
        let sort = match nonempty("sort").as_deref() {
            None | Some("importance") => Sort::Importance,
            Some("updated") => Sort::Updated,
            Some(other) => return Err(format!("sort {other:?} is not importance or updated")),
        };
        Ok(SignalQuery {
            kind,
            state,
            label: nonempty("label"),
            q: q.map(|q| q.to_lowercase()),
            sort,
            page: page_param(params)?,
        })
    }

    fn matches(&self, item: &ItemSnapshot) -> bool {
        self.kind
            .as_deref()
            .is_none_or(|k| item.kind().as_str() == k)
            && self.state.as_deref().is_none_or(|s| state_of(item) == s)
            && self
                .label
                .as_deref()
                .is_none_or(|l| item.labels.iter().any(|x| x == l))
            && self.q.as_deref().is_none_or(|q| {
                item.title.to_lowercase().contains(q) || item.text.to_lowercase().contains(q)
            })
    }
}

fn page_param(params: &HashMap<String, String>) -> Result<usize, String> {
    match params.get("page").map(String::as_str) {
        None | Some("") => Ok(1),
        Some(p) => match p.parse::<usize>() {
            Ok(n) if (1..=1_000_000).contains(&n) => Ok(n),
            _ => Err(format!("page {p:?} is not a page number (1, 2, ...)")),
        },
    }
}

/// Decodes `%XX` escapes (and, in a query, `+` as a space); `None` when
/// the result is not UTF-8 or an escape is broken.
fn decode(s: &str, plus: bool) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if plus => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn percent_decode(s: &str) -> Option<String> {
    decode(s, false)
}

/// The query's parameters; a repeated one keeps its last value.
fn parse_query(query: &str) -> Option<HashMap<String, String>> {
    let mut out = HashMap::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        out.insert(decode(k, true)?, decode(v, true)?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_queries_and_escapes_parse_or_are_refused() {
        assert_eq!(
            parse_id("github:o/n:issue:7"),
            Some((Source::Github, "o/n"))
        );
        assert_eq!(
            parse_id("gitlab:g/sub/p:pull_request:3"),
            Some((Source::Gitlab, "g/sub/p"))
        );
        assert_eq!(parse_id("github:o/n:commit:7"), None);
        assert_eq!(parse_id("nohost:o/n:issue:7"), None);
        assert_eq!(parse_id("github:on:issue:7"), None);
        assert_eq!(
            encode_id("github:o/n:release:v1.0 rc"),
            "github:o/n:release:v1.0%20rc"
        );
        assert_eq!(decode("a%20b+c", true).as_deref(), Some("a b c"));
        assert_eq!(decode("%zz", false), None);
        assert_eq!(decode("%", false), None);
        assert_eq!(decode("%ff", false), None);
        let q = parse_query("kind=issue&state=open&q=crash+on&page=2").unwrap();
        let parsed = SignalQuery::parse(&q).unwrap();
        assert_eq!(parsed.page, 2);
        assert_eq!(parsed.q.as_deref(), Some("crash on"));
        for bad in [
            "page=0",
            "page=x",
            "kind=commit",
            "state=draft",
            "sort=stars",
            "bogus=1",
        ] {
            assert!(
                SignalQuery::parse(&parse_query(bad).unwrap()).is_err(),
                "{bad}"
            );
        }
        let long = format!("q={}", "x".repeat(MAX_Q + 1));
        assert!(SignalQuery::parse(&parse_query(&long).unwrap()).is_err());
    }
}
