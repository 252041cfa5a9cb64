//! GitHub's own JSON (the repository object and the pulls list's
//! entries) and its conversion into the domain types of `signals_core`;
//! releases, milestones and issues are GitHub's REST v3 objects, shared
//! with Forgejo in `signals_http::wire::v3`.
//!
//! Fields GitHub may omit or send as `null` are `Option` (or defaulted),
//! because old recordings and GitHub Enterprise versions lack newer fields
//! (`topics`, `license`). Decoding goes through `serde_path_to_error`, so
//! a failure names the URL and the JSON path that broke, and never panics.
//! The fields are private: nothing downstream may depend on GitHub's
//! field names.

use jiff::Timestamp;
use serde::Deserialize;
use signals_core::model::{RepoContext, RepoName};
use signals_http::de::{count, opt_timestamp, text};
use signals_http::wire::WireRepo;

#[derive(Debug, Deserialize)]
pub struct License {
    spdx_id: Option<String>,
}

/// `GET /repos/{owner}/{repo}`.
#[derive(Debug, Deserialize)]
pub struct Repo {
    #[serde(default, deserialize_with = "text")]
    full_name: String,
    #[serde(default, deserialize_with = "text")]
    html_url: String,
    description: Option<String>,
    homepage: Option<String>,
    language: Option<String>,
    topics: Option<Vec<String>>,
    default_branch: Option<String>,
    #[serde(default, deserialize_with = "count")]
    stargazers_count: u64,
    #[serde(default, deserialize_with = "count")]
    forks_count: u64,
    /// Open issues **and** open pull requests: the client takes the open
    /// pull requests off, so that `openIssues` means issues on every host.
    #[serde(default, deserialize_with = "count")]
    open_issues_count: u64,
    #[serde(default)]
    archived: bool,
    license: Option<License>,
}

impl WireRepo for Repo {
    fn full_name(&self) -> &str {
        &self.full_name
    }

    fn web_url(&self) -> &str {
        &self.html_url
    }

    fn into_context(self, repository: RepoName) -> RepoContext {
        RepoContext {
            repository,
            url: self.html_url,
            description: self.description.unwrap_or_default(),
            homepage: self.homepage.unwrap_or_default(),
            language: self.language.unwrap_or_default(),
            topics: self.topics.unwrap_or_default(),
            default_branch: self.default_branch.unwrap_or_default(),
            stars: self.stargazers_count,
            forks: self.forks_count,
            open_issues: self.open_issues_count,
            archived: self.archived,
            // GitHub says NOASSERTION when it found a license it cannot
            // name; that is no SPDX identifier.
            license: self
                .license
                .and_then(|l| l.spdx_id)
                .filter(|id| !id.is_empty() && id != "NOASSERTION"),
        }
    }
}

/// An element of `GET /repos/{owner}/{repo}/pulls`: only what settles a
/// merge state the issue list did not give.
#[derive(Debug, Deserialize)]
pub(crate) struct Pull {
    pub(crate) number: u64,
    #[serde(default, deserialize_with = "opt_timestamp")]
    pub(crate) merged_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    pub(crate) updated_at: Option<Timestamp>,
}
