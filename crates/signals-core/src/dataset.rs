//! The v3 dataset document: the published view of one repository.
//!
//! [`Document`] mirrors the spec's JSON field for field; [`build`] computes it
//! from domain values; [`check_invariants`] finds what a JSON Schema cannot
//! express (ordering, equalities between fields, id structure). The document
//! keeps exactly the fields of the spec: extra store-only facts (the license,
//! importance terms) are not part of it.

use std::collections::HashSet;

use crate::hostile::http_url;
use jiff::{SignedDuration, Timestamp, tz::TimeZone};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{
    Group, ItemDetail, ItemSnapshot, Milestone, News, RepoContext, RunRecord, TrackedRepo,
    highlights,
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

/// The top level of a dataset document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Document {
    /// Always 3.
    pub schema_version: u32,
    /// The dataset.
    pub dataset: Dataset,
}

/// `dataset`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Dataset {
    /// Always 3.
    pub version: u32,
    /// UTC date of the latest run, `YYYY-MM-DD`.
    pub date: String,
    /// The group.
    pub group: GroupDoc,
    /// The repository as configured.
    pub repository: RepositoryDoc,
    /// The repository as the host shows it.
    pub context: ContextDoc,
    /// Latest release and upcoming milestones.
    pub news: NewsDoc,
    /// Collection runs, in collection order.
    pub runs: Vec<RunDoc>,
    /// Signals, ordered by id string.
    pub signals: Vec<SignalDoc>,
}

/// `dataset.group`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupDoc {
    /// Slug.
    pub id: String,
    /// Display name.
    pub name: String,
}

/// `dataset.repository`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepositoryDoc {
    /// Slug.
    pub id: String,
    /// `<owner>/<name>`.
    pub repo: String,
    /// Display name.
    pub name: String,
    /// Search keywords.
    pub keywords: Vec<String>,
}

/// `dataset.context`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextDoc {
    /// `<owner>/<name>` as the host reports it.
    pub repository: String,
    /// Web URL.
    pub url: String,
    /// Description.
    pub description: String,
    /// Homepage URL, empty when unset.
    pub homepage: String,
    /// Primary language, empty when unknown.
    pub language: String,
    /// Topics.
    pub topics: Vec<String>,
    /// Default branch.
    pub default_branch: String,
    /// Stars.
    pub stars: u64,
    /// Forks.
    pub forks: u64,
    /// Open issues, pull requests not counted, on every host.
    pub open_issues: u64,
    /// Archived.
    pub archived: bool,
    /// When the context was collected.
    pub collected_at: String,
}

/// `dataset.news`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewsDoc {
    /// `<owner>/<name>`.
    pub repository: String,
    /// When the news was collected.
    pub collected_at: String,
    /// The newest stable release; `null` when the repository has none.
    pub latest_release: Option<LatestReleaseDoc>,
    /// Open milestones.
    pub upcoming: Vec<UpcomingDoc>,
    /// Always empty in v3.
    pub community_discussions: Vec<Value>,
}

/// `dataset.news.latestRelease`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LatestReleaseDoc {
    /// `<owner>/<name>`.
    pub repository: String,
    /// The tag.
    pub tag: String,
    /// Release name, or the tag.
    pub title: String,
    /// Web URL of the release.
    pub url: String,
    /// Publication time.
    pub published_at: String,
    /// Release notes, Markdown.
    pub notes: String,
    /// Bullet lines of the notes, as plain text.
    pub highlights: Vec<String>,
    /// Always false here: the latest release is a stable one.
    pub prerelease: bool,
}

/// An element of `dataset.news.upcoming`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpcomingDoc {
    /// `<owner>/<name>`.
    pub repository: String,
    /// Always `milestone`.
    pub kind: String,
    /// Title.
    pub title: String,
    /// Web URL.
    pub url: String,
    /// Description, possibly empty.
    pub description: String,
    /// Percent done, 0 to 100.
    pub progress: u8,
    /// Open issues.
    pub open_issues: u64,
    /// Closed issues.
    pub closed_issues: u64,
}

/// An element of `dataset.runs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunDoc {
    /// Instant of the run, with milliseconds.
    pub collected_at: String,
    /// Lower bound of `updatedAt` asked for.
    pub since: String,
    /// Items observed.
    pub observed_count: u64,
    /// Items discovered or changed.
    pub changed_count: u64,
}

/// `metrics` of a signal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsDoc {
    /// Reactions.
    pub reactions: u64,
    /// Comments.
    pub comments: u64,
}

/// An element of `dataset.signals`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SignalDoc {
    /// `<source>:<owner>/<name>:<kind>:<key>`.
    pub id: String,
    /// `github`.
    pub source: String,
    /// Group id.
    pub group: String,
    /// `<owner>/<name>`.
    pub project: String,
    /// `issue`, `pull_request` or `release`.
    pub kind: String,
    /// Title.
    pub title: String,
    /// Body, Markdown.
    pub text: String,
    /// Web URL.
    pub url: String,
    /// Creation time.
    pub created_at: String,
    /// Last update.
    pub updated_at: String,
    /// Equals `updatedAt`.
    pub timestamp: String,
    /// Reactions and comments.
    pub metrics: MetricsDoc,
    /// Label names.
    pub labels: Vec<String>,
    /// Author handle.
    pub author: String,
    /// `open` or `closed`.
    pub state: String,
    /// Assignee handles.
    pub assignees: Vec<String>,
    /// Pull requests only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft: Option<bool>,
    /// Pull requests only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<bool>,
    /// Pull requests only; `null` when not merged.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub merged_at: Option<Option<String>>,
    /// Releases only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Releases only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prerelease: Option<bool>,
    /// Releases only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
    /// `updated` on signals changed in the latest run; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
}

/// Deserializes a field that may be absent (`None`) or present and null
/// (`Some(None)`).
fn present<'de, D, T>(de: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(de).map(Some)
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
                community_discussions: Vec::new(),
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

fn signal_doc(input: &DatasetInput<'_>, item: &ItemSnapshot, repo_url: &str) -> SignalDoc {
    let changed = input
        .changed_in_latest
        .contains(&item.id(&input.repo.source));
    signal_of(&input.group.id, input.repo, item, repo_url, changed)
}

/// One item as a v3 signal of `repo` in group `group_id`; `repo_url`
/// stands in for a URL that is not http(s); `changed` sets `change`.
/// The dataset and alerts (`crate::notify`) both make signals here.
pub fn signal_of(
    group_id: &str,
    repo: &TrackedRepo,
    item: &ItemSnapshot,
    repo_url: &str,
    changed: bool,
) -> SignalDoc {
    let id = item.id(&repo.source);
    let updated = fmt_seconds(item.updated_at);
    let change = changed.then(|| "updated".to_string());
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
        change,
    };
    match &item.detail {
        ItemDetail::Issue => {}
        ItemDetail::PullRequest {
            draft,
            merged,
            merged_at,
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
    }
    doc
}

/// One problem found in a document, located by a JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// RFC 6901 pointer to the offending value (`""` for the whole document).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {}", self.message)
    }
}

/// Checks the invariants a JSON Schema cannot express. Values of the wrong
/// type are skipped here (the schema reports them), so this never panics on
/// any JSON.
///
/// - signal ids are unique and sorted ascending by byte;
/// - a signal id is `<source>:<project>:<kind>:<key>` with its own fields
///   (and `<key>` = `tag` for a release);
/// - `timestamp` equals `updatedAt`;
/// - each signal's `group` and `project` are the dataset's;
/// - `changedCount <= observedCount`;
/// - `since` is at least 24 hours before `collectedAt`;
/// - runs are in collection order;
/// - `date` is the UTC date of the latest run.
pub fn check_invariants(doc: &Value) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut problem =
        |pointer: String, message: String| problems.push(Problem { pointer, message });
    let dataset = &doc["dataset"];

    let runs = dataset["runs"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut previous_at: Option<Timestamp> = None;
    for (i, run) in runs.iter().enumerate() {
        let p = format!("/dataset/runs/{i}");
        if let (Some(observed), Some(changed)) =
            (run["observedCount"].as_u64(), run["changedCount"].as_u64())
            && changed > observed
        {
            problem(
                format!("{p}/changedCount"),
                format!("changedCount {changed} is greater than observedCount {observed}"),
            );
        }
        let at = parse_ts(&run["collectedAt"]);
        if let (Some(at), Some(since)) = (at, parse_ts(&run["since"]))
            && at.duration_since(since) < SignedDuration::from_hours(24)
        {
            problem(
                format!("{p}/since"),
                "since must be at least 24 hours before collectedAt".to_string(),
            );
        }
        if let (Some(at), Some(prev)) = (at, previous_at)
            && at <= prev
        {
            problem(
                format!("{p}/collectedAt"),
                "runs must be in collection order (collectedAt ascending)".to_string(),
            );
        }
        previous_at = at.or(previous_at);
    }
    if let (Some(last), Some(date)) = (
        runs.last().and_then(|r| parse_ts(&r["collectedAt"])),
        dataset["date"].as_str(),
    ) {
        let want = last.to_zoned(TimeZone::UTC).date().to_string();
        if date != want {
            problem(
                "/dataset/date".to_string(),
                format!("date {date:?} is not the UTC date of the latest run ({want})"),
            );
        }
    }

    let group = dataset["group"]["id"].as_str();
    let project = dataset["repository"]["repo"].as_str();
    let signals = dataset["signals"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut seen = HashSet::new();
    let mut previous_id: Option<&str> = None;
    for (i, s) in signals.iter().enumerate() {
        let p = format!("/dataset/signals/{i}");
        let Some(id) = s["id"].as_str() else { continue };
        if !seen.insert(id) {
            problem(format!("{p}/id"), format!("duplicate signal id {id:?}"));
        }
        if let Some(prev) = previous_id
            && prev.as_bytes() > id.as_bytes()
        {
            problem(
                format!("{p}/id"),
                format!("signals are not ordered by id: {prev:?} comes before {id:?}"),
            );
        }
        previous_id = Some(id);

        let (source, proj, kind) = (
            s["source"].as_str(),
            s["project"].as_str(),
            s["kind"].as_str(),
        );
        if let (Some(source), Some(proj), Some(kind)) = (source, proj, kind) {
            let prefix = format!("{source}:{proj}:{kind}:");
            match id.strip_prefix(&prefix) {
                None => problem(
                    format!("{p}/id"),
                    format!("id {id:?} does not start with source:project:kind: ({prefix:?})"),
                ),
                Some("") => problem(format!("{p}/id"), format!("id {id:?} has an empty key")),
                Some(key) => {
                    if kind == "release"
                        && let Some(tag) = s["tag"].as_str()
                        && tag != key
                    {
                        problem(
                            format!("{p}/id"),
                            format!("release id key {key:?} is not its tag {tag:?}"),
                        );
                    }
                }
            }
        }
        if let (Some(ts), Some(updated)) = (s["timestamp"].as_str(), s["updatedAt"].as_str())
            && ts != updated
        {
            problem(
                format!("{p}/timestamp"),
                format!("timestamp {ts:?} differs from updatedAt {updated:?}"),
            );
        }
        if let (Some(want), Some(got)) = (group, s["group"].as_str())
            && want != got
        {
            problem(
                format!("{p}/group"),
                format!("group {got:?} is not the dataset's group {want:?}"),
            );
        }
        if let (Some(want), Some(got)) = (project, proj)
            && want != got
        {
            problem(
                format!("{p}/project"),
                format!("project {got:?} is not the dataset's repository {want:?}"),
            );
        }
    }
    problems
}

fn parse_ts(v: &Value) -> Option<Timestamp> {
    v.as_str()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::tests::issue;
    use crate::model::*;

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
