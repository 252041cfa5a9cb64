//! The JSON API of `signals serve` (docs/api.md): each endpoint a function
//! of the store, its parameters and the importance weights, answering a
//! status and a JSON body. It runs on a blocking thread with one of the
//! server's store connections (`super::pool`); it never sees HTTP beyond
//! the path and the query, so every answer here is the same whatever the
//! server stack around it.
//!
//! Every bad parameter is a 400 with a JSON error, an unknown thing a 404.

use std::collections::HashMap;

use serde_json::{Value, json};
use signals_core::importance::Weights;
use signals_core::{ItemSnapshot, SourceId};
use signals_store::{Backend, RepoSummary};

use super::index::{Filter, Indexes, KINDS, RepoIndex, Row, state_of};

/// Signals per page of `/api/repos/{group}/{repo}/signals`.
pub const PAGE_SIZE: usize = 50;
/// Trail events per page of `/api/repos/{group}/{repo}/trail`.
pub const TRAIL_PAGE_SIZE: usize = 100;
/// The longest `q` accepted, in characters.
pub const MAX_Q: usize = 200;

/// A status, a content type and a body.
pub type Answer = (u16, &'static str, Vec<u8>);

/// The JSON body of an answer; `<`, `>` and `&` are escaped too, so a
/// response read as HTML by mistake is still inert.
pub fn json_answer(status: u16, value: &Value) -> Answer {
    let text = serde_json::to_string_pretty(value)
        .unwrap_or_else(|_| "{}".into())
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    (status, "application/json; charset=utf-8", text.into_bytes())
}

/// An error answer: `{"error": message}`.
pub fn error(status: u16, message: impl Into<String>) -> Answer {
    json_answer(status, &json!({ "error": message.into() }))
}

/// The API over one store connection.
pub struct Api<'a> {
    /// The store, read only.
    pub store: &'a dyn Backend,
    /// The same connection as the configured store (for what only one
    /// kind of store has: PostgreSQL's workers, in the metrics).
    pub opened: &'a crate::store::Opened,
    /// The signals list's per-repository indexes.
    pub indexes: &'a Indexes,
    /// The private site, whose `trends.json` files the trends endpoint
    /// answers with.
    pub site: &'a std::path::Path,
    /// Importance weights, as the export uses them.
    pub weights: &'a Weights,
    /// The collection interval, against which health is judged.
    pub interval: std::time::Duration,
}

impl Api<'_> {
    /// Answers `/api/<path>`; a store failure is a 500 saying how.
    pub fn answer(&self, path: &str, params: &HashMap<String, String>) -> Answer {
        match self.route(path, params) {
            Ok(answer) => answer,
            Err(e) => error(500, format!("the store failed: {e:#}")),
        }
    }

    /// `/metrics`: the Prometheus text `signals metrics` prints
    /// (docs/metrics.md).
    pub fn metrics(&self) -> Answer {
        match crate::metrics::text(self.opened, self.interval) {
            Ok(text) => (
                200,
                "text/plain; version=0.0.4; charset=utf-8",
                text.into_bytes(),
            ),
            Err(e) => error(500, format!("the store failed: {e:#}")),
        }
    }

    /// An item's history page (`/<group>/<repo>/history/<file>`).
    pub fn history_page_answer(&self, group: &str, repo: &str, file: &str) -> Answer {
        match self.history_page(group, repo, file) {
            Ok(answer) => answer,
            Err(e) => error(500, format!("the store failed: {e:#}")),
        }
    }

    fn route(&self, path: &str, params: &HashMap<String, String>) -> anyhow::Result<Answer> {
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
        let now = jiff::Timestamp::now();
        let owners = self.store.owners_status()?;
        let owned = crate::health::Owned::new(&owners);
        for status in self.store.status()?.repositories {
            let health = crate::health::of(&status, &owned, self.interval, now);
            let s = status.summary;
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
                    "health": health,
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
        let Some(index) = self.indexes.get(self.store, s, self.weights)? else {
            return Ok(json_answer(
                200,
                &json!({"total": 0, "page": 1, "pages": 0, "signals": []}),
            ));
        };
        let order = match query.sort {
            Sort::Importance => &index.by_importance,
            Sort::Updated => &index.by_updated,
        };
        let mut matched = index.matching(order, &query.filter());
        if let Some(q) = &query.q {
            matched = self.containing(s, &index, matched, q)?;
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
        let rows: Vec<(&str, &Row)> = matched
            .iter()
            .skip((query.page - 1) * PAGE_SIZE)
            .take(PAGE_SIZE)
            .map(|&p| (index.ids.get(p as usize), &index.rows[p as usize]))
            .collect();
        let ids: Vec<String> = rows.iter().map(|(id, _)| id.to_string()).collect();
        let items = self.store.latest_snapshots_for(s.key, &ids)?;
        let mut signals = Vec::with_capacity(rows.len());
        for (id, row) in rows {
            let item = items.get(id).ok_or_else(|| {
                anyhow::anyhow!("{id} is in the index of the latest run but not in the store")
            })?;
            signals.push(json!({
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
                "importance": row.score,
                "changedInLatest": row.changed,
                "history": format!("/api/signals/{}/history", encode_id(id)),
            }));
        }
        Ok(json_answer(
            200,
            &json!({
                "group": s.group.id, "repo": s.repo.id,
                "total": total, "page": query.page, "pages": pages, "pageSize": PAGE_SIZE,
                "signals": signals,
            }),
        ))
    }

    /// The rows of `matched` (kept in their order) whose item's title or
    /// body contains `q` (lower-cased), case-insensitively. The store's
    /// text index narrows them to candidates when it can; each candidate's
    /// texts are then read (a chunk at a time) and checked exactly.
    fn containing(
        &self,
        s: &RepoSummary,
        index: &RepoIndex,
        mut matched: Vec<u32>,
        q: &str,
    ) -> anyhow::Result<Vec<u32>> {
        const CHUNK: usize = 500;
        if let Some(texts) = self.store.texts_matching(q)? {
            matched.retain(|&p| {
                let t = index.rows[p as usize].texts;
                texts.contains(&t.head) || texts.contains(&t.body)
            });
        }
        let mut out = Vec::new();
        for chunk in matched.chunks(CHUNK) {
            let ids: Vec<String> = chunk
                .iter()
                .map(|&p| index.ids.get(p as usize).to_string())
                .collect();
            let items = self.store.latest_snapshots_for(s.key, &ids)?;
            for (&p, id) in chunk.iter().zip(&ids) {
                if items.get(id).is_some_and(|item| contains(item, q)) {
                    out.push(p);
                }
            }
        }
        Ok(out)
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
        // The export wrote it, with the same function, at the latest run
        // it saw: reading it costs a small file, where building it again
        // would read the whole repository at every request.
        let file = self
            .site
            .join(&s.group.id)
            .join(&s.repo.id)
            .join("trends.json");
        let text = match std::fs::read(&file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(error(
                    404,
                    format!(
                        "{}/{} has no successful run yet: collect it first",
                        s.group.id, s.repo.id
                    ),
                ));
            }
            Err(e) => anyhow::bail!("cannot read {}: {e}", file.display()),
        };
        let value: Value = serde_json::from_slice(&text)
            .map_err(|e| anyhow::anyhow!("{} is not JSON: {e}", file.display()))?;
        Ok(json_answer(200, &value))
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
        let (total, events) = self.store.trail_page(
            s.key,
            ((page - 1) * TRAIL_PAGE_SIZE) as u64,
            TRAIL_PAGE_SIZE as u64,
        )?;
        let total = total as usize;
        let pages = total.div_ceil(TRAIL_PAGE_SIZE);
        if page > pages.max(1) {
            return Ok(error(
                400,
                format!("page {page} is past the last page, {}", pages.max(1)),
            ));
        }
        // Newest first: the latest run's events on page 1.
        let events: Vec<Value> = events
            .iter()
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
            // The heads one at a time, without bodies: memory stays flat.
            self.store
                .each_latest_head(summary.key, &mut |item, _, _| {
                    if id.is_none() && signals_site::history_file(&item) == file {
                        id = Some(item);
                    }
                    Ok(())
                })?;
        }
        let page = match id {
            Some(id) => crate::export::history_page(self.store, &summary, &id)?,
            None => None,
        };
        Ok(match page {
            Some(html) => (200, "text/html; charset=utf-8", html.into_bytes()),
            None => error(404, format!("no such page: /{group}/{repo}/history/{file}")),
        })
    }
}

/// `(group, repo, file)` of `/<group>/<repo>/history/<file>.html`.
pub(super) fn history_path(path: &str) -> Option<(&str, &str, &str)> {
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
    let id = signals_core::signal_id(&summary.repo.source, &summary.repo.repo, kind, &key);
    (signals_site::history_file(&id) == file).then_some(id)
}

fn unknown_repo(group: &str, repo: &str) -> Answer {
    error(
        404,
        format!("no repository {repo:?} in group {group:?} (see /api/groups)"),
    )
}

/// `(source, owner/name)` of a signal id.
fn parse_id(id: &str) -> Option<(SourceId, &str)> {
    let mut parts = id.splitn(4, ':');
    let source = parts.next()?;
    let repo = parts.next()?;
    let kind = parts.next()?;
    let key = parts.next()?;
    if key.is_empty() || !["issue", "pull_request", "release"].contains(&kind) {
        return None;
    }
    let source = SourceId::parse(source).ok()?;
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
    author: Option<String>,
    q: Option<String>,
    sort: Sort,
    page: usize,
}

impl SignalQuery {
    fn parse(params: &HashMap<String, String>) -> Result<SignalQuery, String> {
        for key in params.keys() {
            if !["kind", "state", "label", "author", "q", "sort", "page"].contains(&key.as_str()) {
                return Err(format!(
                    "unknown parameter {key:?}: signals take kind, state, label, author, q, sort \
                     and page"
                ));
            }
        }
        let nonempty = |k: &str| params.get(k).filter(|v| !v.is_empty()).cloned();
        let kind = nonempty("kind");
        if let Some(k) = &kind
            && !KINDS.contains(&k.as_str())
        {
            return Err(format!(
                "kind {k:?} is not issue, pull_request, release or discussion"
            ));
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
            author: nonempty("author"),
            q: q.map(|q| q.to_lowercase()),
            sort,
            page: page_param(params)?,
        })
    }

    fn filter(&self) -> Filter<'_> {
        Filter {
            kind: self.kind.as_deref(),
            state: self.state.as_deref(),
            label: self.label.as_deref(),
            author: self.author.as_deref(),
        }
    }
}

/// Whether an item's title or body contains `q`, already lower-cased.
fn contains(item: &ItemSnapshot, q: &str) -> bool {
    item.title.to_lowercase().contains(q) || item.text.to_lowercase().contains(q)
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

pub(super) fn percent_decode(s: &str) -> Option<String> {
    decode(s, false)
}

/// The query's parameters; a repeated one keeps its last value.
pub(super) fn parse_query(query: &str) -> Option<HashMap<String, String>> {
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
    use signals_core::Source;

    #[test]
    fn ids_queries_and_escapes_parse_or_are_refused() {
        assert_eq!(
            parse_id("github:o/n:issue:7"),
            Some((Source::Github.into(), "o/n"))
        );
        assert_eq!(
            parse_id("gitlab:g/sub/p:pull_request:3"),
            Some((Source::Gitlab.into(), "g/sub/p"))
        );
        assert_eq!(
            parse_id("github-ghe:o/n:issue:7"),
            Some((SourceId::parse("github-ghe").unwrap(), "o/n"))
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
