//! An item (issue, pull request, release) as one snapshot of it, the unit
//! of diffing and of the published signals, and its signal id.

use std::fmt;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::RepoName;

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
    /// A GitHub Discussion.
    Discussion,
    /// A published security advisory of the repository (GitHub's
    /// repository advisories); its key is its GHSA id.
    Advisory,
}

impl ItemKind {
    /// The JSON form: `issue`, `pull_request`, `release`, `discussion`.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Issue => "issue",
            ItemKind::PullRequest => "pull_request",
            ItemKind::Release => "release",
            ItemKind::Discussion => "discussion",
            ItemKind::Advisory => "advisory",
        }
    }

    /// The form shown on the page: `issue`, `pull request`, `release`.
    pub fn label(self) -> &'static str {
        match self {
            ItemKind::Issue => "issue",
            ItemKind::PullRequest => "pull request",
            ItemKind::Release => "release",
            ItemKind::Discussion => "discussion",
            ItemKind::Advisory => "security advisory",
        }
    }

    /// Parses the JSON form.
    pub fn parse(s: &str) -> Option<ItemKind> {
        match s {
            "issue" => Some(ItemKind::Issue),
            "pull_request" => Some(ItemKind::PullRequest),
            "release" => Some(ItemKind::Release),
            "discussion" => Some(ItemKind::Discussion),
            "advisory" => Some(ItemKind::Advisory),
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
    /// An issue: beyond the common fields, how the host says it was
    /// closed, where it says.
    Issue {
        /// GitHub's `state_reason` of a closed issue, or GitLab's
        /// closed-as-duplicate link; `None` while open, where the host does
        /// not say (Forgejo) and in snapshots stored before it was read.
        /// Not a tracked field: it changes with `state`, which is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        closed_as: Option<ClosedAs>,
        /// The reference key ([`crate::references::own_key`]) of the item
        /// this one duplicates, where the host names it with the issue
        /// (GitLab, within the same project); `None` elsewhere.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duplicate_of: Option<String>,
    },
    /// A pull request.
    PullRequest {
        /// Opened as a draft and not yet marked ready.
        draft: bool,
        /// Merged (then `state` is closed).
        merged: bool,
        /// When it was merged.
        merged_at: Option<Timestamp>,
        /// GitHub's `author_association` of its author when it was seen
        /// (`FIRST_TIME_CONTRIBUTOR`, `CONTRIBUTOR`, `MEMBER`, ...): what
        /// tells a first contribution where the store does not reach
        /// back to the repository's creation. Not a tracked field.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        association: Option<String>,
    },
    /// A published release; its key is its tag.
    Release {
        /// Marked as a prerelease on the host.
        prerelease: bool,
        /// When it was published.
        published_at: Timestamp,
    },
    /// A GitHub Discussion; its key is its number.
    Discussion {
        /// The category's name (`Q&A`, `Ideas`, ...).
        category: String,
        /// An answer is marked (only categories that take answers have one).
        answered: bool,
    },
    /// A published security advisory; its key is its GHSA id. Open while
    /// in force, closed once withdrawn.
    Advisory {
        /// The severity the host gives; `None` when it gives none.
        severity: Option<Severity>,
        /// The CVSS base score; `None` when the host gives none.
        cvss_score: Option<CvssScore>,
        /// The CVE id, once one is assigned.
        cve_id: Option<String>,
        /// When it was published.
        published_at: Timestamp,
        /// When it was withdrawn; `None` while in force.
        withdrawn_at: Option<Timestamp>,
    },
}

impl ItemDetail {
    /// An issue of which the host says nothing more: open, or closed
    /// without a reason given.
    pub const fn issue() -> ItemDetail {
        ItemDetail::Issue {
            closed_as: None,
            duplicate_of: None,
        }
    }
}

/// How the host says an issue was closed (GitHub's `state_reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClosedAs {
    /// Done or fixed (GitHub's `completed`).
    Completed,
    /// Will not be done (GitHub's `not_planned`).
    NotPlanned,
    /// The same report as another item (GitHub's `duplicate`, GitLab's
    /// `/duplicate`).
    Duplicate,
}

impl ClosedAs {
    /// GitHub's `state_reason` spelling read back: `completed`,
    /// `not_planned` or `duplicate`; `None` for any other (`reopened`, a
    /// value added later).
    pub fn parse(text: &str) -> Option<ClosedAs> {
        match text {
            "completed" => Some(ClosedAs::Completed),
            "not_planned" => Some(ClosedAs::NotPlanned),
            "duplicate" => Some(ClosedAs::Duplicate),
            _ => None,
        }
    }
}

/// An advisory's severity, lowest first, so that `Ord` is "less severe".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Low.
    Low,
    /// Medium (GitHub's `moderate` on its global advisories).
    Medium,
    /// High.
    High,
    /// Critical.
    Critical,
}

impl Severity {
    /// Every severity, most severe first.
    pub const ALL: [Severity; 4] = [
        Severity::Critical,
        Severity::High,
        Severity::Medium,
        Severity::Low,
    ];

    /// `critical`, `high`, `medium` or `low`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }

    /// Parses a host's word for it, case-insensitively; `moderate` is
    /// `medium`. Anything else is no severity.
    pub fn parse(s: &str) -> Option<Severity> {
        match s.trim().to_ascii_lowercase().as_str() {
            "low" => Some(Severity::Low),
            "medium" | "moderate" => Some(Severity::Medium),
            "high" => Some(Severity::High),
            "critical" => Some(Severity::Critical),
            _ => None,
        }
    }
}

/// A CVSS base score, 0.0 to 10.0, kept in tenths so that snapshots
/// compare exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CvssScore(u8);

impl CvssScore {
    /// The score of a host's number, rounded to tenths; `None` outside
    /// 0 to 10 or not finite.
    pub fn from_f64(score: f64) -> Option<CvssScore> {
        (score.is_finite() && (0.0..=10.0).contains(&score))
            .then(|| CvssScore((score * 10.0).round() as u8))
    }

    /// The score as a number (`9.8`).
    pub fn value(self) -> f64 {
        f64::from(self.0) / 10.0
    }
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
    /// stored before the store kept close times). Not a tracked field: it changes with
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
            ItemDetail::Issue { .. } => ItemKind::Issue,
            ItemDetail::PullRequest { .. } => ItemKind::PullRequest,
            ItemDetail::Release { .. } => ItemKind::Release,
            ItemDetail::Discussion { .. } => ItemKind::Discussion,
            ItemDetail::Advisory { .. } => ItemKind::Advisory,
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
