//! Forgejo's (and Gitea's) JSON, as API v1 sends it, and its conversion
//! into the domain types of `signals_core`.
//!
//! Private to the crate: nothing downstream may depend on Forgejo's field
//! names. Field names follow the API's swagger definitions (`Repository`,
//! `Issue`, `PullRequestMeta`, `Release`, `Milestone`). Fields that older
//! servers lack (`draft` in `pull_request`, `licenses`, `topics`) are
//! optional; odd values are decoded leniently by `signals_http::de`.

use jiff::Timestamp;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use signals_core::model::{
    ItemDetail, ItemSnapshot, ItemState, Metrics, Milestone, RepoContext, RepoName,
};
use signals_http::de::{count, opt_timestamp, secs, text, timestamp};

use crate::Error;

/// Decodes `body` (fetched from `url`) as `T`, naming the failing JSON path.
pub(crate) fn decode<T: DeserializeOwned>(url: &str, body: &[u8]) -> Result<T, Error> {
    signals_http::decode(crate::HOST, url, body)
}

#[derive(Debug, Deserialize)]
pub(crate) struct User {
    #[serde(default, deserialize_with = "text")]
    login: String,
}

/// The handle of a possibly deleted account; Forgejo shows deleted users
/// as `Ghost`.
fn login(user: Option<User>) -> String {
    match user {
        Some(u) if !u.login.is_empty() => u.login,
        _ => "Ghost".to_string(),
    }
}

/// `GET /repos/{owner}/{repo}`.
#[derive(Debug, Deserialize)]
pub(crate) struct Repo {
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

impl Repo {
    pub(crate) fn full_name(&self) -> &str {
        &self.full_name
    }

    /// The repository's web address (for milestone links, which the API
    /// does not give).
    pub(crate) fn html_url(&self) -> &str {
        &self.html_url
    }

    pub(crate) fn into_context(self, requested: &RepoName) -> RepoContext {
        let repository = RepoName::parse(&self.full_name).unwrap_or_else(|_| requested.clone());
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

/// An element of `GET /repos/{owner}/{repo}/releases`.
#[derive(Debug, Deserialize)]
pub(crate) struct Release {
    #[serde(default, deserialize_with = "text")]
    tag_name: String,
    name: Option<String>,
    body: Option<String>,
    #[serde(default, deserialize_with = "text")]
    html_url: String,
    #[serde(default)]
    draft: bool,
    #[serde(default)]
    prerelease: bool,
    #[serde(default, deserialize_with = "opt_timestamp")]
    created_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    published_at: Option<Timestamp>,
    author: Option<User>,
}

impl Release {
    /// `None` for a draft (never a signal) and for a release without a tag.
    /// Forgejo sets `published_at` on drafts too, so `draft` decides.
    pub(crate) fn into_snapshot(self, repo: &RepoName) -> Option<ItemSnapshot> {
        if self.draft || self.tag_name.trim().is_empty() {
            return None;
        }
        let published_at = secs(self.published_at.or(self.created_at)?);
        let title = match self.name {
            Some(name) if !name.trim().is_empty() => name,
            _ => self.tag_name.clone(),
        };
        Some(ItemSnapshot {
            repo: repo.clone(),
            key: self.tag_name,
            title,
            text: self.body.unwrap_or_default(),
            url: self.html_url,
            created_at: self.created_at.map_or(published_at, secs),
            updated_at: published_at,
            // Release reactions are not part of Forgejo's release object.
            metrics: Metrics::default(),
            labels: vec![],
            author: login(self.author),
            state: ItemState::Closed,
            closed_at: None,
            assignees: vec![],
            detail: ItemDetail::Release {
                prerelease: self.prerelease,
                published_at,
            },
        })
    }
}

/// An element of `GET /repos/{owner}/{repo}/milestones`.
#[derive(Debug, Deserialize)]
pub(crate) struct WireMilestone {
    #[serde(default, deserialize_with = "count")]
    id: u64,
    #[serde(default, deserialize_with = "text")]
    title: String,
    description: Option<String>,
    #[serde(default, deserialize_with = "count")]
    open_issues: u64,
    #[serde(default, deserialize_with = "count")]
    closed_issues: u64,
    #[serde(default, deserialize_with = "opt_timestamp")]
    due_on: Option<Timestamp>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    updated_at: Option<Timestamp>,
}

impl WireMilestone {
    /// The API gives no web link of a milestone; it is
    /// `{repository}/milestone/{id}` on the web.
    pub(crate) fn into_milestone(self, repo_html_url: &str) -> Milestone {
        Milestone {
            title: self.title,
            url: format!(
                "{}/milestone/{}",
                repo_html_url.trim_end_matches('/'),
                self.id
            ),
            description: self.description.unwrap_or_default(),
            open_issues: self.open_issues,
            closed_issues: self.closed_issues,
            due_on: self.due_on.map(secs),
            updated_at: self.updated_at.map(secs),
        }
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct Label {
    #[serde(default, deserialize_with = "text")]
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum State {
    Open,
    Closed,
}

/// `PullRequestMeta`: what an issue-list entry says of its pull request.
#[derive(Debug, Deserialize)]
pub(crate) struct PullMeta {
    #[serde(default)]
    merged: bool,
    #[serde(default, deserialize_with = "opt_timestamp")]
    merged_at: Option<Timestamp>,
    /// Gitea 1.22+ and Forgejo 8+; older servers mark drafts by a `WIP:`
    /// title prefix only.
    draft: Option<bool>,
}

/// An element of `GET /repos/{owner}/{repo}/issues`: an issue, or a pull
/// request when `pull_request` is set.
#[derive(Debug, Deserialize)]
pub(crate) struct Issue {
    number: u64,
    #[serde(default, deserialize_with = "text")]
    title: String,
    body: Option<String>,
    #[serde(default, deserialize_with = "text")]
    html_url: String,
    user: Option<User>,
    #[serde(default)]
    labels: Option<Vec<Label>>,
    state: State,
    assignees: Option<Vec<User>>,
    #[serde(default, deserialize_with = "count")]
    comments: u64,
    #[serde(deserialize_with = "timestamp")]
    created_at: Timestamp,
    #[serde(deserialize_with = "timestamp")]
    updated_at: Timestamp,
    #[serde(default, deserialize_with = "opt_timestamp")]
    closed_at: Option<Timestamp>,
    pull_request: Option<PullMeta>,
}

/// Title prefixes Forgejo and Gitea treat as "work in progress" by default
/// (`[repository.pull-request] WORK_IN_PROGRESS_PREFIXES`).
const WIP_PREFIXES: [&str; 2] = ["WIP:", "[WIP]"];

impl Issue {
    pub(crate) fn into_snapshot(self, repo: &RepoName) -> ItemSnapshot {
        let detail = match self.pull_request {
            None => ItemDetail::Issue,
            Some(pr) => ItemDetail::PullRequest {
                draft: pr.draft.unwrap_or_else(|| {
                    let t = self.title.trim_start().to_ascii_uppercase();
                    WIP_PREFIXES.iter().any(|p| t.starts_with(p))
                }),
                merged: pr.merged || pr.merged_at.is_some(),
                merged_at: pr.merged_at.map(secs),
            },
        };
        ItemSnapshot {
            repo: repo.clone(),
            key: self.number.to_string(),
            title: self.title,
            text: self.body.unwrap_or_default(),
            url: self.html_url,
            created_at: secs(self.created_at),
            updated_at: secs(self.updated_at),
            // Reactions are not in the issue list (only per issue, one
            // request each): 0, see docs/decisions.md.
            metrics: Metrics {
                reactions: 0,
                comments: self.comments,
            },
            labels: self
                .labels
                .unwrap_or_default()
                .into_iter()
                .map(|l| l.name)
                .collect(),
            author: login(self.user),
            state: match self.state {
                State::Open => ItemState::Open,
                State::Closed => ItemState::Closed,
            },
            closed_at: match self.state {
                State::Open => None,
                State::Closed => self.closed_at.map(secs),
            },
            assignees: self
                .assignees
                .unwrap_or_default()
                .into_iter()
                .map(|u| u.login)
                .collect(),
            detail,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> RepoName {
        RepoName::parse("forgejo/forgejo").unwrap()
    }

    #[test]
    fn pull_entry_with_and_without_draft() {
        let body = br#"{"id": 9, "number": 12, "title": "WIP: faster", "body": "b",
            "html_url": "https://codeberg.org/forgejo/forgejo/pulls/12",
            "user": {"id": 1, "login": "alice"}, "labels": [{"id": 1, "name": "bug"}],
            "state": "closed", "assignees": null, "comments": 4,
            "created_at": "2024-01-01T00:00:00+01:00", "updated_at": "2024-01-02T10:00:00Z",
            "pull_request": {"merged": true, "merged_at": "2024-01-02T09:00:00Z"}}"#;
        let item = decode::<Issue>("u", body).unwrap().into_snapshot(&repo());
        assert_eq!(item.key, "12");
        assert_eq!(item.author, "alice");
        assert_eq!(item.labels, vec!["bug"]);
        assert!(item.assignees.is_empty());
        assert_eq!(item.created_at.to_string(), "2023-12-31T23:00:00Z");
        assert_eq!(
            item.detail,
            ItemDetail::PullRequest {
                draft: true,
                merged: true,
                merged_at: Some("2024-01-02T09:00:00Z".parse().unwrap()),
            }
        );
        let body = br#"{"number": 3, "title": "WIP: x", "state": "open",
            "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z",
            "pull_request": {"merged": false, "merged_at": null, "draft": false}}"#;
        let item = decode::<Issue>("u", body).unwrap().into_snapshot(&repo());
        assert_eq!(
            item.detail,
            ItemDetail::PullRequest {
                draft: false,
                merged: false,
                merged_at: None
            }
        );
        assert_eq!(item.author, "Ghost");
    }

    #[test]
    fn drafts_are_no_releases_and_milestones_get_a_link() {
        let rel = |draft: bool| {
            let body = format!(
                r#"{{"tag_name": "v1.0.0", "name": "", "draft": {draft}, "prerelease": false,
                "created_at": "2024-01-01T00:00:00Z", "published_at": "2024-01-01T00:00:00Z"}}"#
            );
            decode::<Release>("u", body.as_bytes())
                .unwrap()
                .into_snapshot(&repo())
        };
        assert!(rel(true).is_none());
        assert_eq!(rel(false).unwrap().title, "v1.0.0");
        let m: WireMilestone = decode(
            "u",
            br#"{"id": 7, "title": "v2", "open_issues": 1, "closed_issues": 3, "due_on": null}"#,
        )
        .unwrap();
        let m = m.into_milestone("https://codeberg.org/forgejo/forgejo/");
        assert_eq!(m.url, "https://codeberg.org/forgejo/forgejo/milestone/7");
        assert_eq!((m.open_issues, m.closed_issues), (1, 3));
    }

    #[test]
    fn decode_errors_name_the_path() {
        match decode::<Vec<Issue>>("http://h/x", br#"[{"number": 1, "state": "merged"}]"#) {
            Err(Error::Decode { path, url, .. }) => {
                assert_eq!(path, "[0].state");
                assert_eq!(url, "http://h/x");
            }
            other => panic!("{other:?}"),
        }
    }
}
