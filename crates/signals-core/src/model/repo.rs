//! A repository as configured ([`Group`], [`TrackedRepo`]) and as the host
//! shows it at one collection ([`RepoContext`], its open [`Milestone`]s).

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::{RepoName, SourceId};

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
    /// The last push, as the host tells it: GitHub's `pushed_at`,
    /// Forgejo's and Gitea's `updated_at`, GitLab's `last_activity_at`
    /// (docs/hosts.md); `None` where not told (runs stored before it
    /// was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pushed_at: Option<jiff::Timestamp>,
    /// When the repository was created, as the host tells it: whether the
    /// store reaches back to it decides how new contributors are told
    /// (`crate::lifecycle::contributors`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<jiff::Timestamp>,
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
