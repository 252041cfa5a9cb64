//! The v3 dataset document: the published view of one repository.
//!
//! [`Document`] mirrors the spec's JSON field for field; [`build`] computes it
//! from domain values; [`check_invariants`] finds what a JSON Schema cannot
//! express (ordering, equalities between fields, id structure). The document
//! keeps exactly the fields of the spec: extra store-only facts (the license,
//! importance terms) are not part of it.
//!
//! Here: [`build`] and the pieces an export streams with ([`build_head`],
//! [`signal_of`], [`repository_url`]); the document's types are in `doc`,
//! the checks in `check`.

mod check;
mod doc;

pub use check::{Problem, check_invariants};
pub use doc::{
    CommunityDiscussionDoc, ContextDoc, Dataset, Document, FirstResponseDoc, GroupDoc,
    LatestReleaseDoc, MetricsDoc, NewsDoc, RelatedDoc, RepositoryDoc, RunDoc, SignalDoc,
    UpcomingDoc,
};

use std::collections::HashSet;

use crate::hostile::http_url;
use jiff::{Timestamp, tz::TimeZone};

use crate::model::{
    CommunityDiscussion, Group, ItemDetail, ItemSnapshot, Milestone, News, RepoContext, RunRecord,
    TrackedRepo, highlights,
};

/// The `schemaVersion` and `dataset.version` this crate writes.
pub const SCHEMA_VERSION: u32 = 3;

/// Formats a second-precision timestamp: `YYYY-MM-DDThh:mm:ssZ`.
pub fn fmt_seconds(ts: Timestamp) -> String {
    // A host can send years outside 0000..=9999, which have no
    // `YYYY-...` form (crate::hostile).
    format!(
        "{:.0}",
        crate::hostile::clamp_timestamp(ts).trunc_to_second()
    )
}

/// Formats a collection timestamp, with milliseconds: `YYYY-MM-DDThh:mm:ss.sssZ`.
pub fn fmt_collected(ts: Timestamp) -> String {
    format!("{ts:.3}")
}

trait TruncSecond {
    fn trunc_to_second(self) -> Timestamp;
}

impl TruncSecond for Timestamp {
    fn trunc_to_second(self) -> Timestamp {
        Timestamp::from_second(self.as_second()).unwrap_or(self)
    }
}

/// What a dataset document is computed from.
#[derive(Debug, Clone, Copy)]
pub struct DatasetInput<'a> {
    /// The group.
    pub group: &'a Group,
    /// The repository as configured.
    pub repo: &'a TrackedRepo,
    /// The context of the latest run.
    pub context: &'a RepoContext,
    /// The news of the latest run.
    pub news: &'a News,
    /// All runs, in collection order; must not be empty.
    pub runs: &'a [RunRecord],
    /// The latest snapshot of every item, in any order.
    pub items: &'a [ItemSnapshot],
    /// Ids of items that had a `changed` event in the latest run.
    pub changed_in_latest: &'a HashSet<String>,
}

/// Builds the v3 document. Returns `None` when there is no run yet.
pub fn build(input: &DatasetInput<'_>) -> Option<Document> {
    // Host values are made to fit the schema here, so that no host and no
    // old store can make export write a document `validate` rejects
    // (crate::hostile; docs/decisions.md lists the rules).
    let repo_url = repository_url(
        input.context,
        input.repo,
        input.items.iter().map(|i| i.url.as_str()),
    );
    let mut document = build_head(input, &repo_url)?;
    let mut signals: Vec<SignalDoc> = input
        .items
        .iter()
        .filter(|item| !item.key.is_empty())
        .map(|item| signal_doc(input, item, &repo_url))
        .collect();
    signals.sort_by(|a, b| a.id.as_bytes().cmp(b.id.as_bytes()));
    document.dataset.signals = signals;
    Some(document)
}

/// The v3 document without its signals (`signals` is empty): what comes
/// before them, for an export that writes the signals a batch at a time
/// (each with [`signal_of`], in id order, skipping items without a key).
/// `repo_url` is [`repository_url`] of the input; `input.items` is not
/// read. Returns `None` when there is no run yet.
pub fn build_head(input: &DatasetInput<'_>, repo_url: &str) -> Option<Document> {
    let latest = input.runs.last()?;
    let repo_name = input.repo.repo.to_string();
    let collected = fmt_collected(latest.collected_at);
    let repo_url = repo_url.to_string();
    let signals = Vec::new();
    let news = input.news;
    Some(Document {
        schema_version: SCHEMA_VERSION,
        dataset: Dataset {
            version: SCHEMA_VERSION,
            date: latest
                .collected_at
                .to_zoned(TimeZone::UTC)
                .date()
                .to_string(),
            group: GroupDoc {
                id: input.group.id.clone(),
                name: input.group.name.clone(),
            },
            repository: RepositoryDoc {
                id: input.repo.id.clone(),
                repo: repo_name.clone(),
                name: input.repo.name.clone(),
                keywords: input.repo.keywords.clone(),
            },
            context: context_doc(input.context, &collected, &repo_url),
            news: NewsDoc {
                repository: repo_name.clone(),
                collected_at: collected.clone(),
                latest_release: news
                    .latest_release
                    .as_ref()
                    .filter(|r| !r.key.is_empty())
                    .map(|r| LatestReleaseDoc {
                        repository: repo_name.clone(),
                        tag: r.key.clone(),
                        title: r.title.clone(),
                        url: http_url(&r.url, &repo_url),
                        published_at: fmt_seconds(published_at(r)),
                        notes: r.text.clone(),
                        highlights: highlights(&r.text),
                        prerelease: false,
                    }),
                upcoming: news
                    .milestones
                    .iter()
                    .map(|m| upcoming_doc(&repo_name, m, &repo_url))
                    .collect(),
                community_discussions: news
                    .discussions
                    .iter()
                    .map(|d| community_doc(&repo_name, d, &repo_url))
                    .collect(),
            },
            runs: input
                .runs
                .iter()
                .map(|r| RunDoc {
                    collected_at: fmt_collected(r.collected_at),
                    since: fmt_collected(r.since),
                    observed_count: r.observed_count,
                    changed_count: r.changed_count,
                })
                .collect(),
            signals,
        },
    })
}

fn published_at(r: &ItemSnapshot) -> Timestamp {
    match r.detail {
        ItemDetail::Release { published_at, .. } => published_at,
        _ => r.updated_at,
    }
}

/// The repository's web URL: the host's when it is an http(s) URL; else the
/// configured repository on the origin of the first item URL that is one
/// (the host's web address, which GitHub Enterprise, GitLab and Forgejo
/// servers each have their own of); else on the source's public host.
/// Stands in for any item, release or milestone URL that is not http(s).
/// `item_urls` are the URLs of the items in the order [`build`] gets them
/// (an export: signal id order); they are read only up to the first
/// http(s) one, and not at all when the host's URL is one.
pub fn repository_url<'a>(
    context: &RepoContext,
    repo: &TrackedRepo,
    item_urls: impl IntoIterator<Item = &'a str>,
) -> String {
    if crate::hostile::is_http_url(&context.url) {
        return context.url.clone();
    }
    let origin = item_urls
        .into_iter()
        .find(|u| crate::hostile::is_http_url(u))
        .and_then(|u| {
            let scheme_end = u.find("://")? + 3;
            let host_end = u[scheme_end..]
                .find(['/', '?', '#'])
                .map_or(u.len(), |i| scheme_end + i);
            Some(u[..host_end].to_string())
        })
        .unwrap_or_else(|| match repo.source.kind() {
            crate::Source::Gitlab => "https://gitlab.com".to_string(),
            crate::Source::Forgejo => "https://codeberg.org".to_string(),
            crate::Source::Github => "https://github.com".to_string(),
        });
    format!("{origin}/{}", repo.repo)
}

fn context_doc(c: &RepoContext, collected: &str, repo_url: &str) -> ContextDoc {
    ContextDoc {
        repository: c.repository.to_string(),
        url: repo_url.to_string(),
        description: c.description.clone(),
        homepage: crate::hostile::homepage(&c.homepage),
        language: c.language.clone(),
        topics: c.topics.clone(),
        default_branch: c.default_branch.clone(),
        stars: c.stars,
        forks: c.forks,
        open_issues: c.open_issues,
        archived: c.archived,
        collected_at: collected.to_string(),
    }
}

fn upcoming_doc(repo: &str, m: &Milestone, repo_url: &str) -> UpcomingDoc {
    UpcomingDoc {
        repository: repo.to_string(),
        kind: "milestone".to_string(),
        title: m.title.clone(),
        url: http_url(&m.url, repo_url),
        description: m.description.clone(),
        progress: m.progress(),
        open_issues: m.open_issues,
        closed_issues: m.closed_issues,
    }
}

fn community_doc(repo: &str, d: &CommunityDiscussion, repo_url: &str) -> CommunityDiscussionDoc {
    CommunityDiscussionDoc {
        repository: repo.to_string(),
        number: d.number,
        title: d.title.clone(),
        url: http_url(&d.url, repo_url),
        category: d.category.clone(),
        author: d.author.clone(),
        created_at: fmt_seconds(d.created_at),
        updated_at: fmt_seconds(d.updated_at),
        answered: d.answered,
        comments: d.comments,
    }
}

fn signal_doc(input: &DatasetInput<'_>, item: &ItemSnapshot, repo_url: &str) -> SignalDoc {
    let changed = Changed::from(
        input
            .changed_in_latest
            .contains(&item.id(&input.repo.source)),
    );
    signal_of(&input.group.id, input.repo, item, repo_url, changed)
}

/// Whether an item changed in the latest run: a changed one's signal says
/// `"change": "updated"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Changed {
    /// It changed.
    Yes,
    /// It is new, or as it was.
    No,
}

impl From<bool> for Changed {
    /// A test of flags or sets, named at the call (`Changed::from(..)`).
    fn from(changed: bool) -> Changed {
        if changed { Changed::Yes } else { Changed::No }
    }
}

/// One item as a v3 signal of `repo` in group `group_id`; `repo_url`
/// stands in for a URL that is not http(s); `changed` sets `change`.
/// The dataset and alerts (`crate::notify`) both make signals here.
pub fn signal_of(
    group_id: &str,
    repo: &TrackedRepo,
    item: &ItemSnapshot,
    repo_url: &str,
    changed: Changed,
) -> SignalDoc {
    let id = item.id(&repo.source);
    let updated = fmt_seconds(item.updated_at);
    let change = (changed == Changed::Yes).then(|| "updated".to_string());
    let mut doc = SignalDoc {
        id,
        source: repo.source.as_str().to_string(),
        group: group_id.to_string(),
        project: repo.repo.to_string(),
        kind: item.kind().as_str().to_string(),
        title: item.title.clone(),
        text: item.text.clone(),
        url: http_url(&item.url, repo_url),
        created_at: fmt_seconds(item.created_at),
        updated_at: updated.clone(),
        timestamp: updated,
        metrics: MetricsDoc {
            reactions: item.metrics.reactions,
            comments: item.metrics.comments,
        },
        labels: item.labels.clone(),
        author: item.author.clone(),
        state: item.state.as_str().to_string(),
        assignees: item.assignees.clone(),
        draft: None,
        merged: None,
        merged_at: None,
        tag: None,
        prerelease: None,
        published_at: None,
        category: None,
        answered: None,
        severity: None,
        cvss_score: None,
        cve_id: None,
        withdrawn_at: None,
        change,
        references: Vec::new(),
        referenced_by: Vec::new(),
        related: Vec::new(),
        first_response: None,
        first_response_state: None,
    };
    match &item.detail {
        ItemDetail::Issue { .. } => {}
        ItemDetail::PullRequest {
            draft,
            merged,
            merged_at,
            ..
        } => {
            doc.draft = Some(*draft);
            doc.merged = Some(*merged);
            doc.merged_at = Some(merged_at.map(fmt_seconds));
        }
        ItemDetail::Release {
            prerelease,
            published_at,
        } => {
            doc.tag = Some(item.key.clone());
            doc.prerelease = Some(*prerelease);
            doc.published_at = Some(fmt_seconds(*published_at));
        }
        ItemDetail::Discussion { category, answered } => {
            doc.category = Some(category.clone());
            doc.answered = Some(*answered);
        }
        ItemDetail::Advisory {
            severity,
            cvss_score,
            cve_id,
            published_at,
            withdrawn_at,
        } => {
            doc.severity = Some(severity.map(|s| s.as_str().to_string()));
            doc.cvss_score = Some(cvss_score.map(|s| s.value()));
            doc.cve_id = Some(cve_id.clone());
            doc.published_at = Some(fmt_seconds(*published_at));
            doc.withdrawn_at = Some(withdrawn_at.map(fmt_seconds));
        }
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::tests::issue;
    use crate::model::*;
    use jiff::SignedDuration;
    use serde_json::Value;

    fn fixture() -> (
        Group,
        TrackedRepo,
        RepoContext,
        News,
        Vec<RunRecord>,
        Vec<ItemSnapshot>,
    ) {
        let group = Group {
            id: "g".into(),
            name: "G".into(),
        };
        let repo = TrackedRepo {
            id: "n".into(),
            source: Source::Github.into(),
            repo: RepoName::parse("o/n").unwrap(),
            name: "N".into(),
            keywords: vec!["n".into()],
        };
        let context = RepoContext {
            repository: repo.repo.clone(),
            url: "https://github.com/o/n".into(),
            description: "d".into(),
            homepage: String::new(),
            language: "Rust".into(),
            topics: vec![],
            default_branch: "main".into(),
            stars: 1,
            forks: 2,
            open_issues: 3,
            archived: false,
            license: Some("MIT".into()),
            pushed_at: None,
            created_at: None,
        };
        let at: Timestamp = "2026-11-21T10:00:00.123Z".parse().unwrap();
        let runs = vec![RunRecord {
            collected_at: at,
            since: at.checked_sub(SignedDuration::from_hours(24)).unwrap(),
            observed_count: 3,
            changed_count: 3,
        }];
        let mut pr = issue("100");
        pr.detail = ItemDetail::PullRequest {
            draft: false,
            merged: false,
            merged_at: None,
            association: None,
        };
        let items = vec![issue("11"), pr, issue("9")];
        (group, repo, context, News::default(), runs, items)
    }

    #[test]
    fn urls_that_are_not_http_are_replaced_by_the_repository_s() {
        let (group, repo, mut context, news, runs, mut items) = fixture();
        context.url = "javascript:alert(1)".into();
        context.homepage = "javascript:alert(document.domain)".into();
        items[0].url = "https://ghe.example.com/o/n/issues/11".into();
        items[1].url = "data:text/html,x".into();
        let doc = build(&DatasetInput {
            group: &group,
            repo: &repo,
            context: &context,
            news: &news,
            runs: &runs,
            items: &items,
            changed_in_latest: &HashSet::new(),
        })
        .unwrap();
        let d = &doc.dataset;
        // The host's web address, learned from an item's URL.
        assert_eq!(d.context.url, "https://ghe.example.com/o/n");
        assert_eq!(d.context.homepage, "");
        let pr = d.signals.iter().find(|s| s.kind == "pull_request").unwrap();
        assert_eq!(pr.url, "https://ghe.example.com/o/n");
        let value = serde_json::to_value(&doc).unwrap();
        assert!(check_invariants(&value).is_empty());
    }

    /// The fixture's document, with `changed` marked as changed in the
    /// latest run.
    fn fixture_document(changed: &[&str]) -> Document {
        let (group, repo, context, news, runs, items) = fixture();
        let changed: HashSet<String> = changed.iter().map(|s| s.to_string()).collect();
        build(&DatasetInput {
            group: &group,
            repo: &repo,
            context: &context,
            news: &news,
            runs: &runs,
            items: &items,
            changed_in_latest: &changed,
        })
        .unwrap()
    }

    #[test]
    fn built_document_passes_its_own_checks() {
        let doc = fixture_document(&["github:o/n:issue:9"]);
        let ids: Vec<_> = doc.dataset.signals.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "github:o/n:issue:11",
                "github:o/n:issue:9",
                "github:o/n:pull_request:100"
            ]
        );
        assert_eq!(doc.dataset.date, "2026-11-21");
        assert_eq!(doc.dataset.runs[0].collected_at, "2026-11-21T10:00:00.123Z");
        assert_eq!(doc.dataset.signals[1].change.as_deref(), Some("updated"));
        assert_eq!(doc.dataset.signals[0].change, None);
        let json = serde_json::to_value(&doc).unwrap();
        assert_eq!(json["dataset"]["signals"][2]["mergedAt"], Value::Null);
        assert!(json["dataset"]["signals"][0].get("draft").is_none());
        assert_eq!(check_invariants(&json), vec![]);
        // Round trip through the typed form.
        let back: Document = serde_json::from_value(json).unwrap();
        assert_eq!(back, doc);
    }

    #[test]
    fn broken_documents_are_reported_with_pointers() {
        let mut json = serde_json::to_value(fixture_document(&[])).unwrap();
        let signals = json["dataset"]["signals"].as_array_mut().unwrap();
        signals.swap(0, 1);
        signals[2]["timestamp"] = "2000-01-01T00:00:00Z".into();
        signals[2]["kind"] = "issue".into();
        json["dataset"]["runs"][0]["changedCount"] = 9.into();
        json["dataset"]["runs"][0]["since"] = "2026-11-21T00:00:00Z".into();
        let pointers: Vec<_> = check_invariants(&json)
            .into_iter()
            .map(|p| p.pointer)
            .collect();
        assert_eq!(
            pointers,
            [
                "/dataset/runs/0/changedCount",
                "/dataset/runs/0/since",
                "/dataset/signals/1/id",
                "/dataset/signals/2/id",
                "/dataset/signals/2/timestamp",
            ]
        );
    }

    #[test]
    fn invariants_never_panic_on_odd_json() {
        for text in [
            "null",
            "[]",
            "{\"dataset\":[]}",
            "{\"dataset\":{\"signals\":[1,{\"id\":3}],\"runs\":{}}}",
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            let _ = check_invariants(&v);
        }
    }
}
