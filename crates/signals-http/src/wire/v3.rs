//! GitHub's REST v3 objects for releases, milestones, issues and pull
//! requests, which Forgejo's and Gitea's API v1 copies field for field:
//! one set of wire types for both host crates.
//!
//! Each type holds the union of what the two hosts send; a field one of
//! them lacks is optional and changes nothing when absent:
//!
//! - the repository's `homepage` (GitHub) is Forgejo's `website`, and
//!   `stargazers_count` its `stars_count` (read as aliases: neither host
//!   sends both); its `license` object (GitHub) and `licenses` list
//!   (Gitea 1.22+) are both optional;
//! - `reactions` (GitHub only; Forgejo's lists carry none): 0 without it;
//! - an issue's top-level `draft` (GitHub) and `pull_request.draft`
//!   (Gitea 1.22+, Forgejo 8+); without either, the host's
//!   [`Conventions::wip_prefixes`] decide (none on GitHub);
//! - `pull_request.merged_at` (GitHub since 2022, always on Forgejo) and
//!   `pull_request.merged` (Forgejo): without both, a closed pull
//!   request's merge state is unknown ([`WireItem::merge_unknown`]);
//! - a milestone's `html_url` (GitHub); without it the link is
//!   `{repository}/milestone/{id}`, as Forgejo's web pages have it;
//! - the single `assignee` of very old GitHub answers, read when
//!   `assignees` is absent.
//!
//! Odd values are decoded leniently by [`crate::de`]: a `null` login or
//! label name is empty (an empty login is the host's ghost), a `null`
//! label list is empty.

use jiff::Timestamp;
use serde::Deserialize;
use signals_core::model::{
    ClosedAs, ItemDetail, ItemSnapshot, ItemState, Metrics, Milestone as Planned, RepoContext,
    RepoName,
};

use super::{Kinds, Place, WireItem, WireMilestone, WireRelease, WireRepo};
use crate::de::{count, opt_timestamp, secs, text, timestamp};

/// An account (`user`, `author`, an assignee).
#[derive(Debug, Deserialize)]
pub struct Account {
    #[serde(default, deserialize_with = "text")]
    login: String,
}

impl Account {
    fn handle(account: Option<Account>, at: &Place<'_>) -> String {
        at.conventions.handle(account.map(|a| a.login))
    }
}

/// A label.
#[derive(Debug, Deserialize)]
pub struct Label {
    #[serde(default, deserialize_with = "text")]
    name: String,
}

/// An object's `reactions` summary.
#[derive(Debug, Deserialize)]
pub struct Reactions {
    #[serde(default, deserialize_with = "count")]
    total_count: u64,
}

fn reactions(r: Option<Reactions>) -> u64 {
    r.map_or(0, |r| r.total_count)
}

/// GitHub's `license` object of a repository.
#[derive(Debug, Deserialize)]
pub struct License {
    spdx_id: Option<String>,
}

/// `GET /repos/{owner}/{repo}`.
#[derive(Debug, Deserialize)]
pub struct Repository {
    #[serde(default, deserialize_with = "text")]
    full_name: String,
    #[serde(default, deserialize_with = "text")]
    html_url: String,
    description: Option<String>,
    #[serde(alias = "website")]
    homepage: Option<String>,
    language: Option<String>,
    topics: Option<Vec<String>>,
    default_branch: Option<String>,
    #[serde(default, alias = "stars_count", deserialize_with = "count")]
    stargazers_count: u64,
    #[serde(default, deserialize_with = "count")]
    forks_count: u64,
    /// On GitHub, open issues **and** open pull requests (the GitHub host
    /// takes the open pull requests off, so that `openIssues` means issues
    /// on every host); on Forgejo and Gitea, open issues only (open pull
    /// requests are `open_pr_counter`).
    #[serde(default, deserialize_with = "count")]
    open_issues_count: u64,
    #[serde(default)]
    archived: bool,
    /// When the repository was created (GitHub, Forgejo and Gitea alike).
    #[serde(default, deserialize_with = "crate::de::lenient_timestamp")]
    created_at: Option<Timestamp>,
    /// The last push (GitHub).
    #[serde(default, deserialize_with = "crate::de::lenient_timestamp")]
    pushed_at: Option<Timestamp>,
    /// The last change of the repository (Forgejo and Gitea, which have
    /// no `pushed_at`; GitHub's counts edits of its settings too, and
    /// stands only where `pushed_at` is missing).
    #[serde(default, deserialize_with = "crate::de::lenient_timestamp")]
    updated_at: Option<Timestamp>,
    license: Option<License>,
    /// SPDX identifiers detected in the repository (Gitea 1.22+).
    licenses: Option<Vec<String>>,
}

impl WireRepo for Repository {
    fn full_name(&self) -> &str {
        &self.full_name
    }

    fn web_url(&self) -> &str {
        &self.html_url
    }

    fn created_at(&self) -> Option<Timestamp> {
        self.created_at
    }

    fn into_context(self, repository: RepoName) -> RepoContext {
        // GitHub says NOASSERTION when it found a license it cannot name;
        // that is no SPDX identifier.
        let license = self
            .license
            .and_then(|l| l.spdx_id)
            .filter(|id| !id.is_empty() && id != "NOASSERTION")
            .or_else(|| {
                self.licenses
                    .and_then(|l| l.into_iter().find(|id| !id.trim().is_empty()))
            });
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
            license,
            pushed_at: self.pushed_at.or(self.updated_at),
            created_at: self.created_at,
        }
    }
}

/// An element of `GET /repos/{owner}/{repo}/releases`.
#[derive(Debug, Deserialize)]
pub struct Release {
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
    author: Option<Account>,
    reactions: Option<Reactions>,
    /// Its files, each with the host's id and download count (GitHub and
    /// Forgejo alike); absent or `null` is none.
    #[serde(default)]
    assets: Option<Vec<Asset>>,
}

/// An element of a release's `assets`.
#[derive(Debug, Deserialize)]
pub struct Asset {
    #[serde(default, deserialize_with = "crate::de::host_id")]
    id: Option<u64>,
    #[serde(default, deserialize_with = "count")]
    download_count: u64,
}

impl WireRelease for Release {
    /// Every asset with an id (an asset without one cannot be told from
    /// its replacement, so it is left out).
    fn downloads(&self) -> Vec<signals_core::model::AssetCount> {
        self.assets
            .iter()
            .flatten()
            .filter_map(|a| {
                Some(signals_core::model::AssetCount {
                    asset: a.id?.to_string(),
                    count: a.download_count,
                })
            })
            .collect()
    }

    /// `None` for a draft (never a signal): `draft` is set (Forgejo sets
    /// `published_at` on drafts too, so the flag decides there), or it has
    /// no publication time (GitHub's drafts); and for a release without a
    /// tag, which has no key. The title is the name, else the tag.
    fn into_snapshot(self, at: &Place<'_>) -> Option<ItemSnapshot> {
        if self.draft || self.tag_name.trim().is_empty() {
            return None;
        }
        let published_at = secs(self.published_at?);
        let title = match self.name {
            Some(name) if !name.trim().is_empty() => name,
            _ => self.tag_name.clone(),
        };
        Some(ItemSnapshot {
            repo: at.repo.clone(),
            key: self.tag_name,
            title,
            text: self.body.unwrap_or_default(),
            url: self.html_url,
            created_at: self.created_at.map_or(published_at, secs),
            updated_at: published_at,
            metrics: Metrics {
                reactions: reactions(self.reactions),
                comments: 0,
            },
            labels: vec![],
            author: Account::handle(self.author, at),
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
pub struct Milestone {
    #[serde(default, deserialize_with = "count")]
    id: u64,
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

impl WireMilestone for Milestone {
    fn into_milestone(self, at: &Place<'_>) -> Planned {
        let url = if self.html_url.is_empty() {
            format!("{}/milestone/{}", at.web.trim_end_matches('/'), self.id)
        } else {
            self.html_url
        };
        Planned {
            title: self.title,
            url,
            description: self.description.unwrap_or_default(),
            open_issues: self.open_issues,
            closed_issues: self.closed_issues,
            due_on: self.due_on.map(secs),
            updated_at: self.updated_at.map(secs),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum State {
    Open,
    Closed,
}

/// The `pull_request` object of an issue-list entry.
#[derive(Debug, Deserialize)]
pub struct PullRef {
    /// Absent (`None`), `null` (`Some(None)`) or a time: GitHub's answers
    /// from before 2022 and older GitHub Enterprise servers lack the key,
    /// which is not "not merged".
    #[serde(default, deserialize_with = "present")]
    merged_at: Option<Option<Timestamp>>,
    /// Forgejo's and Gitea's flag.
    merged: Option<bool>,
    /// Gitea 1.22+ and Forgejo 8+.
    draft: Option<bool>,
}

/// A key that may be absent (`None`), `null` (`Some(None)`) or a time.
fn present<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Option<Option<Timestamp>>, D::Error> {
    opt_timestamp(de).map(Some)
}

/// An element of `GET /repos/{owner}/{repo}/issues`: an issue, or a pull
/// request when it has a `pull_request` object.
#[derive(Debug, Deserialize)]
pub struct Issue {
    number: u64,
    #[serde(default, deserialize_with = "text")]
    title: String,
    body: Option<String>,
    #[serde(default, deserialize_with = "text")]
    html_url: String,
    user: Option<Account>,
    #[serde(default)]
    labels: Option<Vec<Label>>,
    state: State,
    assignees: Option<Vec<Account>>,
    assignee: Option<Account>,
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
    /// GitHub's relation of the author to the repository.
    #[serde(default)]
    author_association: Option<String>,
    /// GitHub's reason of a close (`completed`, `not_planned`,
    /// `duplicate`); absent on Forgejo and Gitea, `null` while open.
    #[serde(default, deserialize_with = "text")]
    state_reason: String,
}

impl WireItem for Issue {
    /// A closed pull request whose entry says neither `merged_at` nor
    /// `merged`; an open one is not merged.
    fn merge_unknown(&self) -> bool {
        matches!(self.state, State::Closed)
            && self
                .pull_request
                .as_ref()
                .is_some_and(|pr| pr.merged_at.is_none() && pr.merged.is_none())
    }

    /// The snapshot; a pull request whose merge state is unknown (see
    /// [`WireItem::merge_unknown`]) is written unmerged here, and the
    /// collection settles it or leaves it out.
    fn into_snapshot(self, at: &Place<'_>, _kinds: Kinds) -> ItemSnapshot {
        let closed = matches!(self.state, State::Closed);
        let detail = match self.pull_request {
            None => ItemDetail::Issue {
                closed_as: ClosedAs::parse(&self.state_reason).filter(|_| closed),
                duplicate_of: None,
            },
            Some(pr) => {
                let merged_at = pr.merged_at.flatten();
                ItemDetail::PullRequest {
                    draft: self
                        .draft
                        .or(pr.draft)
                        .unwrap_or_else(|| at.conventions.is_wip(&self.title)),
                    merged: pr.merged == Some(true) || merged_at.is_some(),
                    merged_at: merged_at.map(secs),
                    association: self.author_association.filter(|a| !a.is_empty()),
                }
            }
        };
        // Very old GitHub answers only have the single `assignee`.
        let assignees = match self.assignees {
            Some(list) => list,
            None => self.assignee.into_iter().collect(),
        };
        ItemSnapshot {
            repo: at.repo.clone(),
            key: self.number.to_string(),
            title: self.title,
            text: self.body.unwrap_or_default(),
            url: self.html_url,
            created_at: secs(self.created_at),
            updated_at: secs(self.updated_at),
            metrics: Metrics {
                reactions: reactions(self.reactions),
                comments: self.comments,
            },
            labels: self
                .labels
                .unwrap_or_default()
                .into_iter()
                .map(|l| l.name)
                .collect(),
            author: Account::handle(self.user, at),
            state: if closed {
                ItemState::Closed
            } else {
                ItemState::Open
            },
            closed_at: self.closed_at.filter(|_| closed).map(secs),
            assignees: assignees
                .into_iter()
                .map(|a| Account::handle(Some(a), at))
                .collect(),
            detail,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;
    use crate::wire::Conventions;
    use signals_core::model::RepoName;

    const GITHUB: Conventions = Conventions {
        ghost: "ghost",
        wip_prefixes: &[],
    };
    const FORGEJO: Conventions = Conventions {
        ghost: "Ghost",
        wip_prefixes: &["WIP:", "[WIP]"],
    };

    fn decode<T: serde::de::DeserializeOwned>(url: &str, body: &[u8]) -> Result<T, Error> {
        crate::decode("Test", url, body)
    }

    fn item(body: &[u8], conventions: &Conventions) -> ItemSnapshot {
        let repo = RepoName::parse("o/n").unwrap();
        let at = Place {
            repo: &repo,
            web: "https://example.org/o/n/",
            conventions,
        };
        decode::<Issue>("u", body)
            .unwrap()
            .into_snapshot(&at, Kinds::Both)
    }

    fn release(body: &str, conventions: &Conventions) -> Option<ItemSnapshot> {
        let repo = RepoName::parse("o/n").unwrap();
        let at = Place {
            repo: &repo,
            web: "https://example.org/o/n",
            conventions,
        };
        decode::<Release>("u", body.as_bytes())
            .unwrap()
            .into_snapshot(&at)
    }

    #[test]
    fn github_pull_request_entry() {
        let body = br#"{"number": 5, "title": "T", "body": null, "html_url": "https://github.com/o/n/pull/5",
            "user": null, "labels": [{"name": "bug", "color": "f00"}], "state": "closed",
            "assignees": [{"login": "a"}], "comments": 2, "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-02T00:00:00.900Z", "draft": true,
            "reactions": {"total_count": 3, "+1": 3},
            "pull_request": {"merged_at": "2024-01-02T00:00:00Z"}}"#;
        let item = item(body, &GITHUB);
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
                association: None,
            }
        );
    }

    #[test]
    fn github_close_reason_is_kept_for_closed_issues_only() {
        let entry = |state: &str, reason: &str| {
            let body = format!(
                r#"{{"number": 3, "title": "t", "html_url": "https://github.com/o/n/issues/3",
                "state": "{state}", "state_reason": {reason},
                "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-02T00:00:00Z"}}"#
            );
            item(body.as_bytes(), &GITHUB).detail
        };
        let closed_as = |detail: ItemDetail| match detail {
            ItemDetail::Issue { closed_as, .. } => closed_as,
            other => panic!("not an issue: {other:?}"),
        };
        assert_eq!(
            closed_as(entry("closed", r#""duplicate""#)),
            Some(ClosedAs::Duplicate)
        );
        assert_eq!(
            closed_as(entry("closed", r#""not_planned""#)),
            Some(ClosedAs::NotPlanned)
        );
        // Reopened: GitHub says `reopened`, which is no close reason.
        assert_eq!(closed_as(entry("open", r#""reopened""#)), None);
        assert_eq!(closed_as(entry("open", r#""duplicate""#)), None);
        assert_eq!(closed_as(entry("closed", "null")), None);
        assert_eq!(closed_as(entry("closed", r#""a_later_reason""#)), None);
    }

    #[test]
    fn forgejo_pull_entry_with_and_without_draft() {
        let body = br#"{"id": 9, "number": 12, "title": "WIP: faster", "body": "b",
            "html_url": "https://codeberg.org/forgejo/forgejo/pulls/12",
            "user": {"id": 1, "login": "alice"}, "labels": [{"id": 1, "name": "bug"}],
            "state": "closed", "assignees": null, "comments": 4,
            "created_at": "2024-01-01T00:00:00+01:00", "updated_at": "2024-01-02T10:00:00Z",
            "pull_request": {"merged": true, "merged_at": "2024-01-02T09:00:00Z"}}"#;
        let entry = item(body, &FORGEJO);
        assert_eq!(entry.key, "12");
        assert_eq!(entry.author, "alice");
        assert_eq!(entry.labels, vec!["bug"]);
        assert!(entry.assignees.is_empty());
        assert_eq!(entry.created_at.to_string(), "2023-12-31T23:00:00Z");
        assert_eq!(
            entry.detail,
            ItemDetail::PullRequest {
                draft: true,
                merged: true,
                merged_at: Some("2024-01-02T09:00:00Z".parse().unwrap()),
                association: None,
            }
        );
        // The same title on GitHub is no draft: GitHub's drafts say so.
        assert!(matches!(
            item(body, &GITHUB).detail,
            ItemDetail::PullRequest { draft: false, .. }
        ));
        let body = br#"{"number": 3, "title": "WIP: x", "state": "open", "labels": null,
            "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z",
            "pull_request": {"merged": false, "merged_at": null, "draft": false}}"#;
        let entry = item(body, &FORGEJO);
        assert_eq!(
            entry.detail,
            ItemDetail::PullRequest {
                draft: false,
                merged: false,
                merged_at: None,
                association: None,
            }
        );
        assert_eq!(entry.author, "Ghost");
        assert!(entry.labels.is_empty());
    }

    #[test]
    fn merge_state_known_and_unknown() {
        let entry = |state: &str, pull: &str| {
            let body = format!(
                r#"{{"number": 1, "state": "{state}", "created_at": "2024-01-01T00:00:00Z",
                "updated_at": "2024-01-01T00:00:00Z", "pull_request": {pull}}}"#
            );
            decode::<Issue>("u", body.as_bytes())
                .unwrap()
                .merge_unknown()
        };
        // GitHub before 2022: no `merged_at` key.
        assert!(entry("closed", r#"{"url": "u"}"#));
        assert!(!entry("open", r#"{"url": "u"}"#));
        assert!(!entry("closed", r#"{"merged_at": null}"#));
        // Forgejo's flag alone settles it.
        assert!(!entry("closed", r#"{"merged": false}"#));
        let body = br#"{"number": 1, "state": "closed", "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-01T00:00:00Z", "closed_at": "2024-01-01T00:00:00Z",
            "pull_request": {"merged": true}}"#;
        let merged = item(body, &FORGEJO);
        assert!(matches!(
            merged.detail,
            ItemDetail::PullRequest { merged: true, .. }
        ));
        assert!(merged.closed_at.is_some());
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
        match decode::<Vec<Issue>>("http://h/x", br#"[{"number": 1, "state": "merged"}]"#) {
            Err(Error::Decode { path, .. }) => assert_eq!(path, "[0].state"),
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
        let item = item(body, &GITHUB);
        assert_eq!(item.title, "a\u{fffd}b");
        assert_eq!(item.text, "\u{fffd} and \u{1f600}");
    }

    #[test]
    fn odd_counts_and_timestamps_do_not_fail_a_repository() {
        let body = br#"{"number": 1, "title": null, "html_url": null, "state": "open",
            "comments": -3, "reactions": {"total_count": 1.5e300},
            "user": {"login": null}, "assignee": {"login": "solo"},
            "created_at": "-001000-01-01T00:00:00Z", "updated_at": "9999-12-31T23:59:59Z"}"#;
        let item = item(body, &GITHUB);
        assert_eq!(
            item.metrics,
            Metrics {
                reactions: i64::MAX as u64,
                comments: 0
            }
        );
        assert_eq!(item.title, "");
        assert_eq!(item.author, "ghost");
        assert_eq!(item.assignees, vec!["solo"]);
        assert_eq!(
            item.updated_at,
            Timestamp::from_second(Timestamp::MAX.as_second()).unwrap()
        );
        assert!(decode::<Issue>("u", br#"{"number": 1, "state": "open", "created_at": "soon", "updated_at": "2024-01-01T00:00:00Z"}"#).is_err());
    }

    #[test]
    fn release_assets_give_their_download_counts_by_host_id() {
        // GitHub's and Forgejo's assets alike; an asset without an id is
        // left out, and `assets` absent or null is none.
        let r: Release = decode(
            "u",
            br#"{"tag_name": "v1", "assets": [
                {"id": 11, "name": "a.tar.gz", "download_count": 120},
                {"id": 12, "name": "a.zip", "download_count": null, "uuid": "x"},
                {"id": null, "name": "b", "download_count": 3}]}"#,
        )
        .unwrap();
        let got: Vec<(String, u64)> = r
            .downloads()
            .into_iter()
            .map(|d| (d.asset, d.count))
            .collect();
        assert_eq!(got, vec![("11".to_string(), 120), ("12".to_string(), 0)]);
        for body in [
            r#"{"tag_name": "v1"}"#,
            r#"{"tag_name": "v1", "assets": null}"#,
        ] {
            let r: Release = decode("u", body.as_bytes()).unwrap();
            assert!(r.downloads().is_empty());
        }
    }

    #[test]
    fn release_rules() {
        let rel = |extra: &str| {
            release(
                &format!(
                    r#"{{"tag_name": "v1", "html_url": "h", "created_at": "2024-01-01T00:00:00Z"{extra}}}"#
                ),
                &GITHUB,
            )
        };
        assert!(rel("").is_none(), "no published_at: a draft");
        assert!(rel(r#", "draft": true, "published_at": "2024-01-02T00:00:00Z""#).is_none());
        let untagged = r#"{"tag_name": " ", "published_at": "2024-01-02T00:00:00Z"}"#;
        assert!(release(untagged, &GITHUB).is_none());
        let r = rel(r#", "name": " ", "published_at": "2024-01-02T00:00:00Z", "reactions": {"total_count": 2}"#).unwrap();
        assert_eq!((r.title.as_str(), r.state), ("v1", ItemState::Closed));
        assert_eq!(
            r.updated_at,
            "2024-01-02T00:00:00Z".parse::<Timestamp>().unwrap()
        );
        assert_eq!(r.author, "ghost");
        assert_eq!(r.metrics.reactions, 2);
        // Forgejo sets `published_at` on drafts too: the flag decides.
        let forgejo = |draft: bool| {
            release(
                &format!(
                    r#"{{"tag_name": "v1.0.0", "name": "", "draft": {draft}, "prerelease": true,
                    "created_at": "2024-01-01T00:00:00Z", "published_at": "2024-01-01T00:00:00Z"}}"#
                ),
                &FORGEJO,
            )
        };
        assert!(forgejo(true).is_none());
        let r = forgejo(false).unwrap();
        assert_eq!((r.title.as_str(), r.author.as_str()), ("v1.0.0", "Ghost"));
        assert!(matches!(
            r.detail,
            ItemDetail::Release {
                prerelease: true,
                ..
            }
        ));
    }

    #[test]
    fn repositories_of_both_hosts() {
        let context = |body: &str| {
            decode::<Repository>("u", body.as_bytes())
                .unwrap()
                .into_context(RepoName::parse("o/n").unwrap())
        };
        let github = context(
            r#"{"full_name": "o/n", "html_url": "https://github.com/o/n", "homepage": "https://h",
            "stargazers_count": 5, "forks_count": 2, "open_issues_count": 9,
            "license": {"spdx_id": "NOASSERTION"}, "topics": null}"#,
        );
        assert_eq!((github.stars, github.forks, github.open_issues), (5, 2, 9));
        assert_eq!(github.homepage, "https://h");
        assert_eq!(github.license, None);
        let forgejo = context(
            r#"{"full_name": "o/n", "html_url": "https://codeberg.org/o/n", "website": "https://w",
            "stars_count": 7, "open_issues_count": 3, "open_pr_counter": 4, "archived": true,
            "licenses": ["", "MIT"]}"#,
        );
        assert_eq!((forgejo.stars, forgejo.open_issues), (7, 3));
        assert_eq!(forgejo.homepage, "https://w");
        assert_eq!(forgejo.license.as_deref(), Some("MIT"));
        assert!(forgejo.archived);
        let licensed = context(r#"{"full_name": "o/n", "license": {"spdx_id": "Apache-2.0"}}"#);
        assert_eq!(licensed.license.as_deref(), Some("Apache-2.0"));
    }

    #[test]
    fn milestone_links() {
        let repo = RepoName::parse("forgejo/forgejo").unwrap();
        let at = Place {
            repo: &repo,
            web: "https://codeberg.org/forgejo/forgejo/",
            conventions: &FORGEJO,
        };
        let m: Milestone = decode(
            "u",
            br#"{"id": 7, "title": "v2", "open_issues": 1, "closed_issues": 3, "due_on": null}"#,
        )
        .unwrap();
        let m = m.into_milestone(&at);
        assert_eq!(m.url, "https://codeberg.org/forgejo/forgejo/milestone/7");
        assert_eq!((m.open_issues, m.closed_issues), (1, 3));
        let m: Milestone = decode(
            "u",
            br#"{"id": 1002604, "number": 1, "title": "v1.0",
            "html_url": "https://github.com/o/n/milestone/1", "due_on": "2024-05-01T07:00:00Z"}"#,
        )
        .unwrap();
        let m = m.into_milestone(&at);
        assert_eq!(m.url, "https://github.com/o/n/milestone/1");
        assert_eq!(m.due_on.unwrap().to_string(), "2024-05-01T07:00:00Z");
    }
}
