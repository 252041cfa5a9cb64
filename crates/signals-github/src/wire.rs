//! GitHub's JSON, as the REST API v3 sends it, and its conversion into the
//! domain types of `signals_core`.
//!
//! These types are private to the crate: nothing downstream may depend on
//! GitHub's field names. Fields GitHub may omit or send as `null` are
//! `Option` (or defaulted), because old recordings and GitHub Enterprise
//! versions lack newer fields (`reactions`, `draft`, `topics`, `license`).
//! Decoding goes through `serde_path_to_error`, so a failure names the URL
//! and the JSON path that broke, and never panics.

use jiff::Timestamp;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use signals_core::model::{
    ItemDetail, ItemSnapshot, ItemState, Metrics, Milestone, RepoContext, RepoName,
};

use signals_http::de::{count, opt_timestamp, secs, text, timestamp};

use crate::Error;

/// Decodes `body` (fetched from `url`) as `T`, naming the failing JSON path
/// (and repairing lone surrogate escapes first: see `signals_http::decode`).
pub(crate) fn decode<T: DeserializeOwned>(url: &str, body: &[u8]) -> Result<T, Error> {
    signals_http::decode(crate::HOST, url, body)
}

#[derive(Debug, Deserialize)]
pub(crate) struct User {
    login: String,
}

/// The handle of a possibly deleted account; GitHub shows deleted authors
/// as `ghost`.
fn login(user: Option<User>) -> String {
    user.map_or_else(|| "ghost".to_string(), |u| u.login)
}

#[derive(Debug, Deserialize)]
pub(crate) struct License {
    spdx_id: Option<String>,
}

/// `GET /repos/{owner}/{repo}`.
#[derive(Debug, Deserialize)]
pub(crate) struct Repo {
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

impl Repo {
    /// The repository's current full name as GitHub reports it.
    pub(crate) fn full_name(&self) -> &str {
        &self.full_name
    }

    /// The context; `requested` stands in for a `full_name` that is no
    /// valid `owner/name` (only a redirect makes the host's name matter).
    pub(crate) fn into_context(self, requested: &RepoName) -> RepoContext {
        let repository = RepoName::parse(&self.full_name).unwrap_or_else(|_| requested.clone());
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

#[derive(Debug, Deserialize)]
pub(crate) struct Reactions {
    #[serde(default, deserialize_with = "count")]
    total_count: u64,
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
    reactions: Option<Reactions>,
}

impl Release {
    /// `None` for a draft (never a signal): `draft` is set, or it has no
    /// publication time; and for a release without a tag, which has no key.
    pub(crate) fn into_snapshot(self, repo: &RepoName) -> Option<ItemSnapshot> {
        let published_at = secs(self.published_at.filter(|_| !self.draft)?);
        if self.tag_name.trim().is_empty() {
            return None;
        }
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
            metrics: Metrics {
                reactions: self.reactions.map_or(0, |r| r.total_count),
                comments: 0,
            },
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
    #[serde(default, deserialize_with = "text")]
    title: String,
    #[serde(default, deserialize_with = "text")]
    html_url: String,
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
    pub(crate) fn into_milestone(self) -> Milestone {
        Milestone {
            title: self.title,
            url: self.html_url,
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
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum State {
    Open,
    Closed,
}

/// The `pull_request` object of an issue-list entry. Its `merged_at` came
/// in 2022; GitHub Enterprise Server versions before it, and every answer
/// recorded before it, lack the key: then the merge state is unknown
/// (`None`), which is not "not merged" (`Some(None)`).
#[derive(Debug, Deserialize)]
pub(crate) struct PullRef {
    #[serde(default, deserialize_with = "present")]
    merged_at: Option<Option<Timestamp>>,
}

/// A key that may be absent (`None`), `null` (`Some(None)`) or a time.
fn present<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Option<Option<Timestamp>>, D::Error> {
    opt_timestamp(de).map(Some)
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

/// An element of `GET /repos/{owner}/{repo}/issues`: an issue, or a pull
/// request when it has a `pull_request` key.
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
    labels: Vec<Label>,
    state: State,
    assignees: Option<Vec<User>>,
    assignee: Option<User>,
    #[serde(default, deserialize_with = "count")]
    comments: u64,
    #[serde(deserialize_with = "timestamp")]
    created_at: Timestamp,
    #[serde(deserialize_with = "timestamp")]
    updated_at: Timestamp,
    #[serde(default, deserialize_with = "opt_timestamp")]
    closed_at: Option<Timestamp>,
    reactions: Option<Reactions>,
    pull_request: Option<PullRef>,
    draft: Option<bool>,
}

impl Issue {
    /// A closed pull request whose entry does not say whether it was
    /// merged (no `pull_request.merged_at` key): an open one is not merged.
    pub(crate) fn merge_unknown(&self) -> bool {
        matches!(self.state, State::Closed)
            && self
                .pull_request
                .as_ref()
                .is_some_and(|pr| pr.merged_at.is_none())
    }

    /// The snapshot; a pull request whose merge state is unknown (see
    /// [`Issue::merge_unknown`]) is written unmerged here and must be
    /// settled by the pulls list or left out by the caller.
    pub(crate) fn into_snapshot(self, repo: &RepoName) -> ItemSnapshot {
        let detail = match self.pull_request {
            None => ItemDetail::Issue,
            Some(pr) => {
                let merged_at = pr.merged_at.flatten();
                ItemDetail::PullRequest {
                    draft: self.draft.unwrap_or(false),
                    merged: merged_at.is_some(),
                    merged_at: merged_at.map(secs),
                }
            }
        };
        // Very old answers only have the single `assignee`.
        let assignees = match self.assignees {
            Some(list) => list.into_iter().map(|u| u.login).collect(),
            None => self.assignee.into_iter().map(|u| u.login).collect(),
        };
        ItemSnapshot {
            repo: repo.clone(),
            key: self.number.to_string(),
            title: self.title,
            text: self.body.unwrap_or_default(),
            url: self.html_url,
            created_at: secs(self.created_at),
            updated_at: secs(self.updated_at),
            metrics: Metrics {
                reactions: self.reactions.map_or(0, |r| r.total_count),
                comments: self.comments,
            },
            labels: self.labels.into_iter().map(|l| l.name).collect(),
            author: login(self.user),
            state: match self.state {
                State::Open => ItemState::Open,
                State::Closed => ItemState::Closed,
            },
            closed_at: match self.state {
                State::Open => None,
                State::Closed => self.closed_at.map(secs),
            },
            assignees,
            detail,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> RepoName {
        RepoName::parse("o/n").unwrap()
    }

    #[test]
    fn pull_request_entry() {
        let body = br#"{"number": 5, "title": "T", "body": null, "html_url": "https://github.com/o/n/pull/5",
            "user": null, "labels": [{"name": "bug", "color": "f00"}], "state": "closed",
            "assignees": [{"login": "a"}], "comments": 2, "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-02T00:00:00.900Z", "draft": true,
            "reactions": {"total_count": 3, "+1": 3},
            "pull_request": {"merged_at": "2024-01-02T00:00:00Z"}}"#;
        let item = decode::<Issue>("u", body).unwrap().into_snapshot(&repo());
        assert_eq!(item.key, "5");
        assert_eq!(item.author, "ghost");
        assert_eq!(item.text, "");
        assert_eq!(item.labels, vec!["bug"]);
        assert_eq!(item.assignees, vec!["a"]);
        assert_eq!(item.state, ItemState::Closed);
        assert_eq!(
            item.metrics,
            Metrics {
                reactions: 3,
                comments: 2
            }
        );
        assert_eq!(item.updated_at.to_string(), "2024-01-02T00:00:00Z");
        assert_eq!(
            item.detail,
            ItemDetail::PullRequest {
                draft: true,
                merged: true,
                merged_at: Some("2024-01-02T00:00:00Z".parse().unwrap()),
            }
        );
    }

    #[test]
    fn decode_errors_name_url_and_path() {
        let body =
            br#"[{"number": 1, "title": "ok", "html_url": "h", "labels": [], "state": "open",
            "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z"},
            {"number": "two"}]"#;
        match decode::<Vec<Issue>>("http://x/issues", body) {
            Err(Error::Decode { url, path, .. }) => {
                assert_eq!(url, "http://x/issues");
                assert_eq!(path, "[1].number");
            }
            other => panic!("{other:?}"),
        }
        let state = br#"{"number": 1, "title": "t", "html_url": "h", "state": "merged",
            "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z"}"#;
        match decode::<Issue>("u", state) {
            Err(Error::Decode { path, .. }) => assert_eq!(path, "state"),
            other => panic!("{other:?}"),
        }
        for junk in [&b""[..], b"{", b"null", b"[1,2", b"\xff\xfe"] {
            assert!(decode::<Vec<Issue>>("u", junk).is_err());
        }
    }

    #[test]
    fn lone_surrogates_decode_lossily() {
        // Valid JSON that no Rust string can hold: decoded with U+FFFD.
        let body = br#"{"number": 1, "title": "a\ud800b", "body": "\udc00 and \ud83d\ude00",
            "html_url": "https://github.com/o/n/issues/1", "state": "open",
            "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z"}"#;
        let item = decode::<Issue>("u", body).unwrap().into_snapshot(&repo());
        assert_eq!(item.title, "a\u{fffd}b");
        assert_eq!(item.text, "\u{fffd} and \u{1f600}");
    }

    #[test]
    fn odd_counts_and_timestamps_do_not_fail_a_repository() {
        let body = br#"{"number": 1, "title": null, "html_url": null, "state": "open",
            "comments": -3, "reactions": {"total_count": 1.5e300},
            "created_at": "-001000-01-01T00:00:00Z", "updated_at": "9999-12-31T23:59:59Z"}"#;
        let item = decode::<Issue>("u", body).unwrap().into_snapshot(&repo());
        assert_eq!(
            item.metrics,
            Metrics {
                reactions: i64::MAX as u64,
                comments: 0
            }
        );
        assert_eq!(item.title, "");
        assert_eq!(
            item.updated_at,
            Timestamp::from_second(Timestamp::MAX.as_second()).unwrap()
        );
        assert!(decode::<Issue>("u", br#"{"number": 1, "state": "open", "created_at": "soon", "updated_at": "2024-01-01T00:00:00Z"}"#).is_err());
    }

    #[test]
    fn release_rules() {
        let rel = |extra: &str| {
            let s = format!(
                r#"{{"tag_name": "v1", "html_url": "h", "created_at": "2024-01-01T00:00:00Z"{extra}}}"#
            );
            decode::<Release>("u", s.as_bytes())
                .unwrap()
                .into_snapshot(&repo())
        };
        assert!(rel("").is_none(), "no published_at: a draft");
        assert!(rel(r#", "draft": true, "published_at": "2024-01-02T00:00:00Z""#).is_none());
        let r = rel(r#", "name": " ", "published_at": "2024-01-02T00:00:00Z""#).unwrap();
        assert_eq!((r.title.as_str(), r.state), ("v1", ItemState::Closed));
        assert_eq!(
            r.updated_at,
            "2024-01-02T00:00:00Z".parse::<Timestamp>().unwrap()
        );
        assert_eq!(r.author, "ghost");
    }
}
