//! The domain types: what a repository, an item snapshot, a run and an
//! observation event are, independent of any code host's JSON and of any
//! storage layout.
//!
//! Host crates convert their wire types into these; the store keeps them; the
//! dataset and the site are views computed from them.

use std::fmt;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// The code host an item comes from; its string form is the `source` of a
/// signal and the first part of a signal id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// github.com or a GitHub Enterprise server (same REST API v3).
    Github,
    /// gitlab.com or a self-managed GitLab (REST API v4).
    Gitlab,
    /// A Forgejo or Gitea server, such as codeberg.org (API v1).
    Forgejo,
}

impl Source {
    /// Every host kind, in the order the docs list them.
    pub const ALL: [Source; 3] = [Source::Github, Source::Gitlab, Source::Forgejo];

    /// The host kind of a `source` value (`github`, `gitlab`, `forgejo`).
    pub fn parse(value: &str) -> Option<Source> {
        Source::ALL.into_iter().find(|s| s.as_str() == value)
    }

    /// The `source` value used in signal ids and documents.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Github => "github",
            Source::Gitlab => "gitlab",
            Source::Forgejo => "forgejo",
        }
    }

    /// The host's name as people write it, for pages and messages.
    pub fn display_name(self) -> &'static str {
        match self {
            Source::Github => "GitHub",
            Source::Gitlab => "GitLab",
            Source::Forgejo => "Forgejo",
        }
    }

    /// True when a repository path may have more than two segments
    /// (GitLab's nested groups: `gnome/world/podcasts`).
    pub fn allows_nested_paths(self) -> bool {
        matches!(self, Source::Gitlab)
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `source` of a repository's signals, and the first part of their ids:
/// the host's kind (`github`) for the first configured host of each kind,
/// and `<kind>-<host name>` (`github-ghe`) for every further host of that
/// kind, so that github.com and a GitHub Enterprise server (or two GitLab
/// instances) holding the same `owner/name` give distinct ids, while a
/// configuration with one host per kind keeps the ids it always had. Kinds
/// hold no `-`, so no qualified source equals a bare kind, and the kind is
/// always the part before the first `-`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SourceId {
    kind: Source,
    /// `<kind>-<host>`, for a host beyond the first of its kind.
    qualified: Option<String>,
}

/// Why a string is not a `source` value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{input:?} is not a source: expected \"github\", \"gitlab\" or \"forgejo\", \
     optionally followed by `-` and a host name of lowercase letters, digits and single `-`"
)]
pub struct SourceIdError {
    /// The rejected input.
    pub input: String,
}

impl SourceId {
    /// The source of the first host of its kind: the bare kind.
    pub fn kind_only(kind: Source) -> SourceId {
        SourceId {
            kind,
            qualified: None,
        }
    }

    /// The source of a further host of `kind`, named `host` in the
    /// configuration; `None` when `host` is not a slug (lowercase ASCII
    /// letters and digits with single `-` between them).
    pub fn qualified(kind: Source, host: &str) -> Option<SourceId> {
        is_slug(host).then(|| SourceId {
            kind,
            qualified: Some(format!("{kind}-{host}")),
        })
    }

    /// Parses a `source` value: a kind, or `<kind>-<host>`.
    pub fn parse(input: &str) -> Result<SourceId, SourceIdError> {
        let (kind, host) = match input.split_once('-') {
            Some((kind, host)) => (kind, Some(host)),
            None => (input, None),
        };
        let kind = Source::parse(kind);
        match (kind, host) {
            (Some(kind), None) => Some(SourceId::kind_only(kind)),
            (Some(kind), Some(host)) => SourceId::qualified(kind, host),
            (None, _) => None,
        }
        .ok_or_else(|| SourceIdError {
            input: input.to_string(),
        })
    }

    /// The host kind (which API, which public host).
    pub fn kind(&self) -> Source {
        self.kind
    }

    /// The host's name when the source is qualified (`ghe` of `github-ghe`).
    pub fn host(&self) -> Option<&str> {
        let q = self.qualified.as_deref()?;
        Some(&q[self.kind.as_str().len() + 1..])
    }

    /// The value written as `source` and as the first part of signal ids.
    pub fn as_str(&self) -> &str {
        self.qualified.as_deref().unwrap_or(self.kind.as_str())
    }

    /// How pages name it: "GitHub", or "GitHub (ghe)" for a further host.
    pub fn display_name(&self) -> String {
        match self.host() {
            None => self.kind.display_name().to_string(),
            Some(host) => format!("{} ({host})", self.kind.display_name()),
        }
    }
}

impl From<Source> for SourceId {
    fn from(kind: Source) -> SourceId {
        SourceId::kind_only(kind)
    }
}

impl fmt::Display for SourceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for SourceId {
    type Error = SourceIdError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        SourceId::parse(&value)
    }
}

impl From<SourceId> for String {
    fn from(value: SourceId) -> String {
        value.as_str().to_string()
    }
}

impl PartialEq<Source> for SourceId {
    fn eq(&self, other: &Source) -> bool {
        self.qualified.is_none() && self.kind == *other
    }
}

/// A repository's full name, `<owner>/<name>`. On GitLab the owner is the
/// whole namespace and may hold slashes itself (`gnome/world` of
/// `gnome/world/podcasts`); whether a host allows that is
/// [`Source::allows_nested_paths`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RepoName {
    owner: String,
    name: String,
}

/// Why a string is not a valid `<owner>/<name>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{input:?} is not a repository name: expected `<owner>/<name>` \
     (on GitLab `<group>/<subgroup>/<name>`), with letters, digits, `-`, \
     `_` or `.` in each part"
)]
pub struct RepoNameError {
    /// The rejected input.
    pub input: String,
}

impl RepoName {
    /// Parses `<owner>/<name>`, where `<owner>` may itself be a nested
    /// namespace `a/b`. Every segment must be non-empty and made of ASCII
    /// letters, digits, `-`, `_` and `.`, as GitHub, GitLab and Forgejo
    /// allow.
    pub fn parse(input: &str) -> Result<RepoName, RepoNameError> {
        let err = || RepoNameError {
            input: input.to_string(),
        };
        let (owner, name) = input.rsplit_once('/').ok_or_else(err)?;
        let valid = |s: &str| {
            !s.is_empty()
                && s != "."
                && s != ".."
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        };
        if !owner.split('/').all(valid) || !valid(name) {
            return Err(err());
        }
        Ok(RepoName {
            owner: owner.to_string(),
            name: name.to_string(),
        })
    }

    /// The owner (user or organization; on GitLab the whole namespace).
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// True when the owner is a nested namespace (`a/b` of `a/b/c`).
    pub fn is_nested(&self) -> bool {
        self.owner.contains('/')
    }

    /// The repository's own name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for RepoName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

impl TryFrom<String> for RepoName {
    type Error = RepoNameError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        RepoName::parse(&value)
    }
}

impl From<RepoName> for String {
    fn from(value: RepoName) -> String {
        value.to_string()
    }
}

/// Turns a display name into a slug: lowercase ASCII letters and digits, with
/// single `-` between words. Used for repository ids derived from a name.
pub fn slugify(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    for c in input.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// True if `s` is a slug as [`slugify`] makes them.
pub fn is_slug(s: &str) -> bool {
    !s.is_empty() && slugify(s) == s
}

/// A group of tracked repositories (a theme, such as "inference engines").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// Slug, unique among groups.
    pub id: String,
    /// Display name.
    pub name: String,
}

/// A tracked repository, as configured.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrackedRepo {
    /// Slug, unique within its group.
    pub id: String,
    /// The host it lives on: its kind, qualified by the host's name for
    /// a host beyond the first of its kind (see [`SourceId`]).
    pub source: SourceId,
    /// `<owner>/<name>` on the host.
    pub repo: RepoName,
    /// Display name.
    pub name: String,
    /// Search keywords shown on the page as `keyword: <text>`.
    pub keywords: Vec<String>,
}

/// The kind of an item, as written in signal ids and the `kind` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// An issue.
    Issue,
    /// A pull request (merge request on other hosts).
    PullRequest,
    /// A published release.
    Release,
}

impl ItemKind {
    /// The JSON form: `issue`, `pull_request`, `release`.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Issue => "issue",
            ItemKind::PullRequest => "pull_request",
            ItemKind::Release => "release",
        }
    }

    /// The form shown on the page: `issue`, `pull request`, `release`.
    pub fn label(self) -> &'static str {
        match self {
            ItemKind::Issue => "issue",
            ItemKind::PullRequest => "pull request",
            ItemKind::Release => "release",
        }
    }

    /// Parses the JSON form.
    pub fn parse(s: &str) -> Option<ItemKind> {
        match s {
            "issue" => Some(ItemKind::Issue),
            "pull_request" => Some(ItemKind::PullRequest),
            "release" => Some(ItemKind::Release),
            _ => None,
        }
    }
}

impl fmt::Display for ItemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Open or closed. A merged pull request is closed; a published release is
/// closed (it is finished).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemState {
    /// Open.
    Open,
    /// Closed (including merged pull requests and published releases).
    Closed,
}

impl ItemState {
    /// `open` or `closed`.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemState::Open => "open",
            ItemState::Closed => "closed",
        }
    }
}

/// Engagement counters of an item.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Metrics {
    /// Total reactions on the item itself.
    pub reactions: u64,
    /// Number of comments.
    pub comments: u64,
}

/// What only some kinds of item carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ItemDetail {
    /// An issue has nothing beyond the common fields.
    Issue,
    /// A pull request.
    PullRequest {
        /// Opened as a draft and not yet marked ready.
        draft: bool,
        /// Merged (then `state` is closed).
        merged: bool,
        /// When it was merged.
        merged_at: Option<Timestamp>,
    },
    /// A published release; its key is its tag.
    Release {
        /// Marked as a prerelease on the host.
        prerelease: bool,
        /// When it was published.
        published_at: Timestamp,
    },
}

/// One item (issue, pull request or release) as the host showed it at one
/// collection. Every distinct snapshot is kept by the store.
///
/// Timestamps are truncated to whole seconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemSnapshot {
    /// The repository it belongs to.
    pub repo: RepoName,
    /// Issue or pull request number, or release tag.
    pub key: String,
    /// Title (for a release: its name, or the tag where the name is empty).
    pub title: String,
    /// Body as written by the author (Markdown); release notes for a release.
    pub text: String,
    /// Link to the item on the host's web UI.
    pub url: String,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it was last updated (for a release: when it was published).
    pub updated_at: Timestamp,
    /// Reactions and comments.
    pub metrics: Metrics,
    /// Label names, in the host's order.
    pub labels: Vec<String>,
    /// Account handle of the author.
    pub author: String,
    /// Open or closed.
    pub state: ItemState,
    /// When the host says it was closed (its `closed_at`); `None` while
    /// open, for releases, and where the host did not say (snapshots
    /// stored before issue 18). Not a tracked field: it changes with
    /// `state`, which is. Trends count closes by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_at: Option<Timestamp>,
    /// Account handles of the assignees.
    pub assignees: Vec<String>,
    /// Kind-specific fields.
    pub detail: ItemDetail,
}

impl ItemSnapshot {
    /// The item's kind, from its detail.
    pub fn kind(&self) -> ItemKind {
        match self.detail {
            ItemDetail::Issue => ItemKind::Issue,
            ItemDetail::PullRequest { .. } => ItemKind::PullRequest,
            ItemDetail::Release { .. } => ItemKind::Release,
        }
    }

    /// The signal id: `<source>:<owner>/<name>:<kind>:<key>`; `source` is a
    /// [`SourceId`] (or a bare [`Source`], the first host of its kind).
    pub fn id(&self, source: impl fmt::Display) -> String {
        signal_id(source, &self.repo, self.kind(), &self.key)
    }
}

/// Builds a signal id: `<source>:<owner>/<name>:<kind>:<key>`.
pub fn signal_id(source: impl fmt::Display, repo: &RepoName, kind: ItemKind, key: &str) -> String {
    format!("{source}:{repo}:{kind}:{key}")
}

/// The repository itself, as seen at one collection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoContext {
    /// `<owner>/<name>` as the host reports it now (differs from the
    /// configured name after a rename).
    pub repository: RepoName,
    /// Web URL.
    pub url: String,
    /// Description; empty when unset.
    pub description: String,
    /// Homepage URL; empty when unset.
    pub homepage: String,
    /// Primary language; empty when unknown.
    pub language: String,
    /// Topics, possibly empty.
    pub topics: Vec<String>,
    /// Default branch.
    pub default_branch: String,
    /// Star count.
    pub stars: u64,
    /// Fork count.
    pub forks: u64,
    /// Open issues, pull requests not counted, on every host (GitHub's
    /// own count includes open pull requests: its client takes them off;
    /// GitLab and Forgejo count issues only). See docs/decisions.md.
    pub open_issues: u64,
    /// Archived (read-only) on the host.
    pub archived: bool,
    /// SPDX identifier of the license, when the host detected one.
    pub license: Option<String>,
}

/// An open milestone: a public plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Milestone {
    /// Title.
    pub title: String,
    /// Web URL.
    pub url: String,
    /// Description, possibly empty.
    pub description: String,
    /// Open issues in it.
    pub open_issues: u64,
    /// Closed issues in it.
    pub closed_issues: u64,
    /// Due date, when set.
    pub due_on: Option<Timestamp>,
    /// Last activity on the milestone, when the host says (stores written
    /// before it was kept read as `None`).
    #[serde(default)]
    pub updated_at: Option<Timestamp>,
}

impl Milestone {
    /// round(100 × closed / (open + closed)), 0 when both are 0.
    pub fn progress(&self) -> u8 {
        let total = self.open_issues as u128 + self.closed_issues as u128;
        if total == 0 {
            return 0;
        }
        // Integer rounding half up, without floating point.
        let pct = (self.closed_issues as u128 * 200 + total) / (total * 2);
        pct.min(100) as u8
    }
}

/// Everything one collection of one repository produced, before it is
/// compared with the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collected {
    /// The repository itself.
    pub context: RepoContext,
    /// All published (non-draft) releases the host listed, newest first.
    /// News is computed from all of them; only those published in the window
    /// become observed items.
    pub releases: Vec<ItemSnapshot>,
    /// Open milestones.
    pub milestones: Vec<Milestone>,
    /// Issues and pull requests updated at or after `since`.
    pub items: Vec<ItemSnapshot>,
}

/// One recorded collection run of one repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The instant of the run.
    pub collected_at: Timestamp,
    /// The lower bound of `updatedAt` asked of the host.
    pub since: Timestamp,
    /// Items the host returned for the window (after de-duplication).
    pub observed_count: u64,
    /// Observation events the run recorded (discovered or changed items).
    pub changed_count: u64,
}

/// What one collection of one repository cost in requests to the host.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestStats {
    /// HTTP requests sent, including retries, redirect hops and 304 answers.
    pub requests: u64,
    /// Answers that were 304 Not Modified (body taken from the cache).
    pub not_modified: u64,
    /// Body bytes received over the network.
    pub bytes_received: u64,
    /// Requests repeated after a fault or a rate limit.
    pub retries: u64,
}

/// What a host client keeps of a 200 answer to revalidate and reuse it
/// (`If-None-Match` / `If-Modified-Since`, then the body on a 304). Defined
/// here, once, because two crates hold it: the shared HTTP layer and the
/// store that persists it between runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedResponse {
    /// The `ETag` validator.
    pub etag: Option<String>,
    /// The `Last-Modified` validator.
    pub last_modified: Option<String>,
    /// The next page's URL as the host's protocol read it: a 304 has no
    /// `Link` header, so pagination continues from here.
    pub link_next: Option<String>,
    /// The response body, as received.
    pub body: Vec<u8>,
}

/// The last rate limit a host reported for one token. Defined here, once,
/// for the HTTP layer that reads it and the store that keeps it for
/// `signals status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests allowed per window.
    pub limit: u64,
    /// Requests left in the window.
    pub remaining: u64,
    /// When the window resets; `None` when the host did not say (a
    /// refusal without `x-ratelimit-reset`, as GitHub sent in 2013).
    pub reset: Option<Timestamp>,
    /// Requests used in the window, when the host says (not stored).
    pub used: Option<u64>,
    /// The limit's name (GitHub's `core`), when the host says (not stored).
    pub resource: Option<String>,
}

/// The kind of an observation event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// First time the item was seen.
    Discovered,
    /// One or more tracked fields differ from the previous snapshot.
    Changed,
}

impl EventKind {
    /// `discovered` or `changed`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Discovered => "discovered",
            EventKind::Changed => "changed",
        }
    }
}

/// One entry of the observation trail, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrailEvent {
    /// When the run that recorded it collected.
    pub at: Timestamp,
    /// The signal id of the item concerned.
    pub item_id: String,
    /// The item's title at that snapshot.
    pub title: String,
    /// The item's web URL.
    pub url: String,
    /// Discovered or changed.
    pub kind: EventKind,
    /// `initial snapshot`, or the changed field names joined by `, `.
    pub detail: String,
}

/// Project news at one collection: the latest stable release and the public
/// plans after it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct News {
    /// The newest published release that is not a prerelease.
    pub latest_release: Option<ItemSnapshot>,
    /// Prereleases published after the latest stable release, newest first.
    pub next_prereleases: Vec<ItemSnapshot>,
    /// Open milestones, in the host's order.
    pub milestones: Vec<Milestone>,
}

impl News {
    /// Computes news from all listed releases (drafts already excluded) and
    /// the open milestones.
    pub fn from_collected(releases: &[ItemSnapshot], milestones: &[Milestone]) -> News {
        let published = |r: &ItemSnapshot| match r.detail {
            ItemDetail::Release {
                published_at,
                prerelease,
            } => Some((published_at, prerelease)),
            _ => None,
        };
        let latest_release = releases
            .iter()
            .filter(|r| matches!(published(r), Some((_, false))))
            .max_by_key(|r| (published(r).map(|p| p.0), r.key.clone()))
            .cloned();
        let stable_at = latest_release.as_ref().and_then(published).map(|p| p.0);
        let mut next_prereleases: Vec<ItemSnapshot> = releases
            .iter()
            .filter(|r| match published(r) {
                Some((at, true)) => stable_at.is_none_or(|stable| at > stable),
                _ => false,
            })
            .cloned()
            .collect();
        next_prereleases.sort_by(|a, b| {
            published(b)
                .map(|p| p.0)
                .cmp(&published(a).map(|p| p.0))
                .then(a.key.cmp(&b.key))
        });
        News {
            latest_release,
            next_prereleases,
            milestones: milestones.to_vec(),
        }
    }
}

/// The bullet lines (`-`, `*`, `+` items) of Markdown release notes, as plain
/// text, in order. Inline code marks, emphasis marks and link targets are
/// dropped; link texts are kept.
pub fn highlights(notes: &str) -> Vec<String> {
    notes
        .lines()
        .filter_map(|line| {
            let t = line.trim_start();
            let rest = t
                .strip_prefix("- ")
                .or_else(|| t.strip_prefix("* "))
                .or_else(|| t.strip_prefix("+ "))?;
            let plain = markdown_inline_to_plain(rest.trim());
            (!plain.is_empty()).then_some(plain)
        })
        .collect()
}

/// Strips the common inline Markdown marks from one line.
fn markdown_inline_to_plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' => {}
            '*' => {}
            '_' if out.is_empty()
                || out.ends_with(' ')
                || chars.peek().is_none_or(|n| *n == ' ' || *n == '_') => {}
            '[' => {
                // `[text](target)`: keep text, drop target.
                let mut text = String::new();
                let mut closed = false;
                for n in chars.by_ref() {
                    if n == ']' {
                        closed = true;
                        break;
                    }
                    text.push(n);
                }
                if closed && chars.peek() == Some(&'(') {
                    for n in chars.by_ref() {
                        if n == ')' {
                            break;
                        }
                    }
                    out.push_str(&markdown_inline_to_plain(&text));
                } else {
                    out.push('[');
                    out.push_str(&text);
                    if closed {
                        out.push(']');
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_ids_keep_bare_kinds_and_qualify_further_hosts() {
        let repo = RepoName::parse("o/n").unwrap();
        let first = SourceId::from(Source::Github);
        // The first host of a kind writes exactly what a bare kind wrote.
        assert_eq!(
            signal_id(&first, &repo, ItemKind::Issue, "7"),
            signal_id(Source::Github, &repo, ItemKind::Issue, "7")
        );
        assert_eq!(
            signal_id(&first, &repo, ItemKind::Issue, "7"),
            "github:o/n:issue:7"
        );
        let ghe = SourceId::qualified(Source::Github, "ghe").unwrap();
        assert_eq!(
            signal_id(&ghe, &repo, ItemKind::Issue, "7"),
            "github-ghe:o/n:issue:7"
        );
        assert_eq!((ghe.kind(), ghe.host()), (Source::Github, Some("ghe")));
        assert_eq!(ghe.display_name(), "GitHub (ghe)");
        assert!(first == Source::Github && ghe != Source::Github);
        // A qualified source never equals a bare kind, nor another kind's.
        let gitlab = SourceId::qualified(Source::Gitlab, "github").unwrap();
        assert_eq!(gitlab.as_str(), "gitlab-github");
        for text in [
            "github",
            "gitlab",
            "forgejo",
            "github-ghe",
            "gitlab-gnome-org",
        ] {
            let parsed = SourceId::parse(text).unwrap();
            assert_eq!(parsed.as_str(), text);
            let json = serde_json::to_string(&parsed).unwrap();
            assert_eq!(serde_json::from_str::<SourceId>(&json).unwrap(), parsed);
        }
        for bad in [
            "",
            "gitea",
            "github-",
            "github-GHE",
            "github-a b",
            "github--x",
            "-x",
        ] {
            assert!(SourceId::parse(bad).is_err(), "{bad:?}");
        }
        assert!(SourceId::qualified(Source::Forgejo, "Code Berg").is_none());
    }

    #[test]
    fn repo_names() {
        assert!(RepoName::parse("rust-lang/rust").is_ok());
        assert!(RepoName::parse("sigmavirus24/github3.py").is_ok());
        for bad in [
            "", "a", "a/", "/b", "a//c", "a b/c", "../x", "a/..", "a/../b",
        ] {
            assert!(RepoName::parse(bad).is_err(), "{bad}");
        }
        // GitLab's nested groups: the owner is the whole namespace.
        let nested = RepoName::parse("gnome/world/podcasts").unwrap();
        assert_eq!(nested.owner(), "gnome/world");
        assert_eq!(nested.name(), "podcasts");
        assert!(nested.is_nested());
        assert_eq!(nested.to_string(), "gnome/world/podcasts");
        assert!(!RepoName::parse("o/n").unwrap().is_nested());
    }

    #[test]
    fn slugs() {
        assert_eq!(slugify("Inference Engines!"), "inference-engines");
        assert_eq!(slugify("github3.py"), "github3-py");
        assert!(is_slug("llama-cpp"));
        assert!(!is_slug("Llama"));
        assert!(!is_slug(""));
    }

    #[test]
    fn milestone_progress_rounds() {
        let m = |open, closed| Milestone {
            updated_at: None,
            title: String::new(),
            url: String::new(),
            description: String::new(),
            open_issues: open,
            closed_issues: closed,
            due_on: None,
        };
        assert_eq!(m(0, 0).progress(), 0);
        assert_eq!(m(1, 1).progress(), 50);
        assert_eq!(m(2, 1).progress(), 33);
        assert_eq!(m(1, 2).progress(), 67);
        assert_eq!(m(0, 5).progress(), 100);
        assert_eq!(m(u64::MAX, u64::MAX).progress(), 50);
    }

    #[test]
    fn highlight_lines() {
        let notes = "## Changes\r\n\r\n* Fix `foo` in **bar** ([#12](https://x/12))\r\n- second\n  + nested item\nnot a bullet\n-not either\n";
        assert_eq!(
            highlights(notes),
            vec!["Fix foo in bar (#12)", "second", "nested item"]
        );
    }
}
