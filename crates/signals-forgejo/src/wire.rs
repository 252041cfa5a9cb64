//! Forgejo's (and Gitea's) repository object, as API v1 sends it, and its
//! conversion into the domain context: the one object whose fields differ
//! from GitHub's (`stars_count`, `website`, `licenses`). Releases,
//! milestones and issues are the shared `signals_http::wire::v3` types.
//!
//! Field names follow the API's swagger `Repository`; fields that older
//! servers lack (`licenses`, `topics`) are optional, and odd values are
//! decoded leniently by `signals_http::de`. The fields are private:
//! nothing downstream may depend on Forgejo's field names.

use serde::Deserialize;
use signals_core::model::{RepoContext, RepoName};
use signals_http::de::{count, text};
use signals_http::wire::WireRepo;

/// `GET /repos/{owner}/{repo}`.
#[derive(Debug, Deserialize)]
pub struct Repo {
    #[serde(default, deserialize_with = "text")]
    full_name: String,
    #[serde(default, deserialize_with = "text")]
    html_url: String,
    description: Option<String>,
    website: Option<String>,
    language: Option<String>,
    topics: Option<Vec<String>>,
    default_branch: Option<String>,
    #[serde(default, deserialize_with = "count")]
    stars_count: u64,
    #[serde(default, deserialize_with = "count")]
    forks_count: u64,
    #[serde(default, deserialize_with = "count")]
    open_issues_count: u64,
    #[serde(default)]
    archived: bool,
    /// SPDX identifiers detected in the repository (Gitea 1.22+).
    licenses: Option<Vec<String>>,
}

impl WireRepo for Repo {
    fn full_name(&self) -> &str {
        &self.full_name
    }

    /// The repository's web address (also for milestone links, which the
    /// API does not give).
    fn web_url(&self) -> &str {
        &self.html_url
    }

    fn into_context(self, repository: RepoName) -> RepoContext {
        RepoContext {
            repository,
            url: self.html_url,
            description: self.description.unwrap_or_default(),
            homepage: self.website.unwrap_or_default(),
            language: self.language.unwrap_or_default(),
            topics: self.topics.unwrap_or_default(),
            default_branch: self.default_branch.unwrap_or_default(),
            stars: self.stars_count,
            forks: self.forks_count,
            // Forgejo and Gitea count open issues and open pull requests
            // apart (`open_pr_counter`): `open_issues_count` is already
            // what `openIssues` means on every host, issues only.
            open_issues: self.open_issues_count,
            archived: self.archived,
            license: self
                .licenses
                .and_then(|l| l.into_iter().find(|id| !id.trim().is_empty())),
        }
    }
}
