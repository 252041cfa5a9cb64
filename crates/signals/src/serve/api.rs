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
use signals_core::ItemSnapshot;
use signals_core::first_response::Answer as Replied;
use signals_core::importance::Weights;
use signals_core::lifecycle::trail::{self, RunEvents, TrailEntry};
use signals_store::{Backend, RepoSummary};

use super::answer::typed_answer;
pub use super::answer::{Answer, error, json_answer};
use super::front;
use super::index::{Indexes, Row, state_of};
use signals_core::api::{SignalQuery, Sort, encode_id, page_param, parse_id};
pub(super) use signals_core::api::{history_path, parse_query, percent_decode};

/// Signals per page of `/api/repos/{group}/{repo}/signals`.
pub const PAGE_SIZE: usize = 50;
/// Trail events per page of `/api/repos/{group}/{repo}/trail`.
pub const TRAIL_PAGE_SIZE: usize = 100;
/// A page of the signals list, as `/api/repos/{group}/{repo}/signals`
/// answers it (docs/api.md). Fields are in name order: the text is the
/// one a [`Value`] of the same fields gives.
#[derive(serde::Serialize)]
struct List<'a> {
    group: &'a str,
    page: usize,
    #[serde(rename = "pageSize")]
    page_size: usize,
    pages: usize,
    repo: &'a str,
    signals: Vec<Listed<'a>>,
    total: usize,
}

/// One signal of [`List`], fields in name order.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed<'a> {
    assignees: &'a [String],
    author: &'a str,
    changed_in_latest: bool,
    comments: u64,
    created_at: String,
    first_response: Option<&'a signals_core::dataset::FirstResponseDoc>,
    first_response_state: Option<&'static str>,
    history: String,
    id: &'a str,
    importance: u32,
    key: &'a str,
    kind: &'static str,
    labels: &'a [String],
    reactions: u64,
    referenced_by: Vec<String>,
    references: Vec<String>,
    related: Vec<signals_core::dataset::RelatedDoc>,
    state: &'static str,
    title: &'a str,
    updated_at: String,
    url: &'a str,
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
    /// The configuration's `clock`: health, waiting and the metrics are
    /// judged at it, else now.
    pub clock: Option<jiff::Timestamp>,
}

impl Api<'_> {
    /// The instant the API judges at: the configuration's `clock`, else
    /// now. Health, waiting and the metrics all read it, so a configured
    /// clock moves them together.
    fn now(&self) -> jiff::Timestamp {
        self.clock.unwrap_or_else(jiff::Timestamp::now)
    }

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
        let now = self.now();
        match crate::metrics::text(self.opened, self.interval, now) {
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
        let endpoint = match parts.as_slice() {
            ["groups"] => &front::GROUPS,
            ["repos", _, _, "signals"] => &front::SIGNALS,
            ["repos", _, _, "trail"] => &front::TRAIL,
            ["repos", _, _, "trends"] => &front::TRENDS,
            ["repos", _, _, "verdict"] => &front::VERDICT,
            ["signals", rest @ ..] if rest.last() == Some(&"history") && rest.len() >= 2 => {
                &front::HISTORY
            }
            ["signals", rest @ ..] if rest.last() == Some(&"related") && rest.len() >= 2 => {
                &front::RELATED
            }
            _ => {
                return Ok(error(
                    404,
                    format!("no such API endpoint: /api/{path} (see docs/api.md)"),
                ));
            }
        };
        // Checked here, against the table `/api/` lists, for every
        // endpoint alike.
        if let Some(refused) = endpoint.unknown_param(params) {
            return Ok(refused);
        }
        Ok(match parts.as_slice() {
            ["repos", group, repo, kind] => match self.repo(group, repo)? {
                Some(s) if *kind == "signals" => self.signals(&s, params)?,
                Some(s) if *kind == "trail" => self.trail(&s, params)?,
                Some(s) if *kind == "verdict" => self.written(&s, signals_site::VERDICT_FILE)?,
                // `trends`, the fourth repository endpoint matched above.
                Some(s) => self.written(&s, signals_site::TRENDS_FILE)?,
                None => unknown_repo(group, repo),
            },
            ["signals", rest @ ..] if rest.last() == Some(&"related") => {
                let id = rest[..rest.len() - 1].join("/");
                self.related(&id, params)?
            }
            ["signals", rest @ ..] => {
                let id = rest[..rest.len() - 1].join("/");
                self.history(&id, params)?
            }
            // What is left is the one endpoint without a path part.
            _ => self.groups()?,
        })
    }

    fn repo(&self, group: &str, repo: &str) -> anyhow::Result<Option<RepoSummary>> {
        Ok(self.store.repository(group, repo)?)
    }

    fn groups(&self) -> anyhow::Result<Answer> {
        let mut groups: Vec<Value> = Vec::new();
        let mut current: Option<String> = None;
        let now = self.now();
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
                    "verdict": format!("/api/repos/{}/{}/verdict", s.group.id, s.repo.id),
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
            Sort::Importance | Sort::Relevance => &index.by_importance,
            Sort::Updated => &index.by_updated,
        };
        let mut filter = query.filter();
        if query.waiting {
            let span =
                signals_core::first_response::waiting_span(self.indexes.conversation.waiting_days);
            filter.waiting_before = Some(self.now() - span);
        }
        let mut matched = index.matching(order, &filter);
        // With a search, `matched` may hold only the pages up to the one
        // asked for; `total` counts them all.
        let mut total = matched.len();
        if let Some(search) = &query.search {
            let rows = match super::search::search(self.store, s, &index, search)? {
                super::search::Searched::Rows(rows) => rows,
                super::search::Searched::Refused(message) => {
                    return Ok(error(
                        400,
                        format!("q {:?}: {message}", query.q.unwrap_or_default()),
                    ));
                }
                super::search::Searched::NotIndexed => {
                    return Ok(error(
                        503,
                        format!(
                            "the word index of {}/{} is not built yet: run `signals collect` \
                             (it indexes what is stored), then search again",
                            s.group.id, s.repo.id
                        ),
                    ));
                }
            };
            let ranking = if query.sort == Sort::Relevance {
                super::search::Ranking::Relevance {
                    shown: query.page.saturating_mul(PAGE_SIZE),
                }
            } else {
                super::search::Ranking::Asked
            };
            let (found, all) = super::search::order(index.rows.len(), rows, &matched, ranking);
            matched = found;
            total = all;
        }
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
        let items = self.store.latest_heads_for(s.key, &ids)?;
        let mut links = self.store.links_of(s.key, &ids)?;
        let mut related = self.store.related_of(s.key, &ids)?;
        let mut signals = Vec::with_capacity(rows.len());
        for (id, row) in rows {
            let item = items.get(id).ok_or_else(|| {
                anyhow::anyhow!("{id} is in the index of the latest run but not in the store")
            })?;
            let (references, referenced_by) = link_ids(links.remove(id));
            signals.push(Listed {
                assignees: &item.assignees,
                author: &item.author,
                changed_in_latest: row.changed,
                comments: item.metrics.comments,
                created_at: item.created_at.to_string(),
                first_response: row.first.as_ref(),
                first_response_state: row.first_state,
                history: history_link(id, &s.group.id),
                id,
                importance: row.score,
                key: &item.key,
                kind: item.kind().as_str(),
                labels: &item.labels,
                reactions: item.metrics.reactions,
                referenced_by,
                references,
                related: crate::related::docs(related.remove(id)),
                state: state_of(item),
                title: &item.title,
                updated_at: item.updated_at.to_string(),
                url: &item.url,
            });
        }
        let list = List {
            group: &s.group.id,
            page: query.page,
            page_size: PAGE_SIZE,
            pages,
            repo: &s.repo.id,
            signals,
            total,
        };
        Ok(typed_answer(200, &list))
    }

    /// The repository's trends or verdict: the document export writes as
    /// `trends.json` or `verdict.json`, made by the same function.
    fn written(&self, s: &RepoSummary, name: &str) -> anyhow::Result<Answer> {
        // The export wrote it, with the same function, at the latest run
        // it saw: reading it costs a small file, where building it again
        // would read the whole repository at every request. A verdict
        // is the group's: its declaration applied.
        let file = self.site.join(&s.group.id).join(&s.repo.id).join(name);
        let text = match std::fs::read(&file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(error(
                    404,
                    format!(
                        "{}/{} has no {} yet: collect it first (a verdict follows \
                         the first run that judged its lifecycle)",
                        s.group.id,
                        s.repo.id,
                        name.trim_end_matches(".json")
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
        let page = match page_param(params) {
            Ok(p) => p,
            Err(message) => return Ok(error(400, message)),
        };
        // The lifecycle's changes join the items' events, derived from the
        // judgements (docs/api.md): the page's items are asked for around
        // them.
        let runs: Vec<RunEvents> = match self.store.repository_outline(s.key)? {
            Some(outline) => outline
                .runs
                .iter()
                .rev()
                .map(|r| RunEvents {
                    at: r.collected_at,
                    events: r.changed_count,
                })
                .collect(),
            None => Vec::new(),
        };
        let changes = self.store.lifecycle_changes(s.key)?;
        let offset = ((page - 1) * TRAIL_PAGE_SIZE) as u64;
        let layout = trail::layout(&runs, &changes, offset, TRAIL_PAGE_SIZE as u64);
        let signals_store::TrailPage { events, .. } =
            self.store
                .trail_page(s.key, layout.item_offset, layout.item_limit)?;
        let total = layout.total as usize;
        let pages = total.div_ceil(TRAIL_PAGE_SIZE);
        if page > pages.max(1) {
            return Ok(error(
                400,
                format!("page {page} is past the last page, {}", pages.max(1)),
            ));
        }
        // Newest first: the latest run's events on page 1.
        let events: Vec<Value> = layout
            .merge(events)
            .iter()
            .map(|entry| match entry {
                TrailEntry::Item(e) => json!({
                    "at": e.at.to_string(), "itemId": e.item_id, "title": e.title, "url": e.url,
                    "kind": e.kind.as_str(), "detail": e.detail,
                    "history": history_link(&e.item_id, &s.group.id),
                }),
                TrailEntry::Lifecycle(c) => json!({
                    "at": c.at.to_string(), "itemId": null, "title": null, "url": null,
                    "kind": trail::LIFECYCLE_KIND, "detail": trail::change_detail(c),
                    "history": null,
                }),
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
        let Some(signals_core::api::IdRepo { source, repo }) = parse_id(id) else {
            return Ok(error(
                400,
                format!("{id:?} is not a signal id (<source>:<owner>/<name>:<kind>:<key>)"),
            ));
        };
        let tracked = self.store.repositories()?;
        let group = params.get("group").filter(|g| !g.is_empty());
        if let Some(g) = group
            && !tracked.iter().any(|s| s.group.id == *g)
        {
            return Ok(error(
                404,
                format!("no group {g:?}: the group= of a history is a group id (see /api/groups)"),
            ));
        }
        let holders: Vec<RepoSummary> = tracked
            .into_iter()
            .filter(|s| {
                s.repo.source == source
                    && s.repo.repo.to_string().eq_ignore_ascii_case(repo)
                    && group.is_none_or(|g| *g == s.group.id)
            })
            .collect();
        let Some(owner) = holders.first() else {
            return Ok(error(
                404,
                match group {
                    Some(g) => format!(
                        "group {g:?} does not track {repo} (of {id:?}): leave group= out, or \
                         name a group that tracks it (see /api/groups)"
                    ),
                    None => format!("no tracked repository holds {id:?}"),
                },
            ));
        };
        let snapshots = self.store.snapshot_history(owner.key, id)?;
        match signals_core::history::history(id, &snapshots) {
            Some(h) => {
                let mut value = serde_json::to_value(&h)?;
                let answer = self.first_response(owner, id, snapshots.last())?;
                value["firstResponse"] = answer["firstResponse"].clone();
                value["firstResponseState"] = answer["firstResponseState"].clone();
                // The group it was reached from (`?group=`, which every
                // link of the API carries), or the only one holding the
                // repository; else none, and the groups that do.
                if holders.len() == 1 {
                    value["group"] = owner.group.id.clone().into();
                    value["repo"] = owner.repo.id.clone().into();
                } else {
                    value["group"] = Value::Null;
                    value["repo"] = Value::Null;
                    value["groups"] = holders
                        .iter()
                        .map(|s| json!({"group": s.group.id, "repo": s.repo.id}))
                        .collect::<Vec<_>>()
                        .into();
                }
                let links = self.store.links_of(owner.key, &[id.to_string()])?;
                let (references, referenced_by) = link_ids(links.into_values().next());
                value["references"] = references.into();
                value["referencedBy"] = referenced_by.into();
                if let Some(list) = value["observations"].as_array_mut() {
                    for (entry, o) in list.iter_mut().zip(&h.observations) {
                        entry["summary"] = o.summaries().into();
                    }
                }
                Ok(json_answer(200, &value))
            }
            None => Ok(error(404, format!("{id:?} has never been observed"))),
        }
    }

    /// An item's first response as the API shows it: `firstResponse`
    /// (`null` when none is known) and `firstResponseState`.
    /// Every related item of one item above the threshold, best first
    /// (at most `signals_core::related::LISTED`), in the group it was
    /// reached from (`?group=`) or the first group holding its repository.
    fn related(&self, id: &str, params: &HashMap<String, String>) -> anyhow::Result<Answer> {
        let Some(signals_core::api::IdRepo { source, repo }) = parse_id(id) else {
            return Ok(error(
                400,
                format!("{id:?} is not a signal id (<source>:<owner>/<name>:<kind>:<key>)"),
            ));
        };
        let group = params.get("group").filter(|g| !g.is_empty());
        let holder = self.store.repositories()?.into_iter().find(|s| {
            s.repo.source == source
                && s.repo.repo.to_string().eq_ignore_ascii_case(repo)
                && group.is_none_or(|g| *g == s.group.id)
        });
        let Some(owner) = holder else {
            return Ok(error(
                404,
                format!("no tracked repository holds {id:?} (in the group= asked, if any)"),
            ));
        };
        if self
            .store
            .latest_heads_for(owner.key, &[id.to_string()])?
            .is_empty()
        {
            return Ok(error(404, format!("no stored item {id:?}")));
        }
        let list = self
            .store
            .related_of(owner.key, &[id.to_string()])?
            .remove(id)
            .unwrap_or_default();
        let related: Vec<Value> = list
            .into_iter()
            .map(|e| json!({"id": e.item.id, "open": e.open, "score": e.score, "shared": e.shared}))
            .collect();
        Ok(json_answer(
            200,
            &json!({
                "group": owner.group.id,
                "id": id,
                "related": related,
                "repo": owner.repo.id,
                "threshold": signals_core::related::THRESHOLD,
            }),
        ))
    }

    fn first_response(
        &self,
        owner: &RepoSummary,
        id: &str,
        latest: Option<&(jiff::Timestamp, ItemSnapshot)>,
    ) -> anyhow::Result<Value> {
        let Some((_, item)) = latest else {
            return Ok(json!({"firstResponse": null, "firstResponseState": null}));
        };
        let replies = self.store.replies_of(owner.key, &[id.to_string()])?;
        let responses = signals_core::first_response::Responses::new(
            replies,
            self.indexes.conversation.ignored_in(&owner.group.id),
        )
        .read_from(self.indexes.read_from(self.store, owner)?);
        let answer = responses.answer(id, item);
        Ok(json!({
            "firstResponse": answer.clone().and_then(Replied::first).map(|f| f.doc()),
            "firstResponseState": answer.as_ref().map(Replied::state),
        }))
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
            self.store.each_latest_head(summary.key, &mut |item, _| {
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

/// The API's link to an item's history, reached from `group`: the
/// history then names that group, not another that tracks the same
/// repository.
fn history_link(id: &str, group: &str) -> String {
    format!(
        "/api/signals/{}/history?group={}",
        encode_id(id),
        encode_id(group)
    )
}

/// The ids an item's texts name and the ids naming it, each
/// sorted; empty when it has no link.
fn link_ids(links: Option<signals_store::Links>) -> (Vec<String>, Vec<String>) {
    let links = links.unwrap_or_default();
    (
        links.references.into_iter().map(|l| l.id).collect(),
        links.referenced_by.into_iter().map(|l| l.id).collect(),
    )
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
