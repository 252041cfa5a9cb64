//! GitLab's JSON, as REST API v4 sends it, and its conversion into the
//! domain types of `signals_core`.
//!
//! Private to the crate: nothing downstream may depend on GitLab's field
//! names. Fields that older GitLab versions lack (`draft`, `topics`,
//! `user_notes_count` in some answers) are optional, and odd values are
//! decoded leniently by `signals_http::de`.

use jiff::Timestamp;
use serde::Deserialize;
use signals_core::model::{
    ClosedAs, ItemDetail, ItemSnapshot, ItemState, Merge, Metrics, Milestone, RepoContext,
    RepoName, is_bot_login,
};
use signals_http::de::{count, opt_timestamp, secs, text, timestamp};
use signals_http::wire::{Kinds, Place, WireItem, WireMilestone as Convert, WireRelease, WireRepo};

#[derive(Debug, Deserialize)]
pub struct User {
    #[serde(default, deserialize_with = "text")]
    username: String,
}

/// The account's handle; the host's ghost (GitLab moves the work of
/// deleted users to `ghost`) when there is none.
fn handle(user: Option<User>, at: &Place<'_>) -> String {
    at.conventions.handle(user.map(|u| u.username))
}

/// Who merged a merge request: `merge_user` or `merged_by`, a user
/// object. Read leniently ([`merger`]): an odd one is no merger, never
/// a failed page.
#[derive(Debug, Deserialize)]
pub struct Merger {
    #[serde(default, deserialize_with = "text")]
    username: String,
    /// GitLab's bot accounts (project and group access tokens' users)
    /// say so where the answer carries it.
    #[serde(default)]
    bot: Option<bool>,
}

/// A merger as the answer gives it; `None` when it is `null`, absent or
/// no user object.
fn merger<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Option<Merger>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(de)?;
    Ok(value.and_then(|v| serde_json::from_value(v).ok()))
}

#[derive(Debug, Deserialize)]
pub struct License {
    #[serde(default, deserialize_with = "text")]
    key: String,
}

/// The SPDX identifier of a GitLab license key (GitLab uses licensee's
/// lowercase keys: `mit`, `apache-2.0`).
fn spdx(key: &str) -> Option<String> {
    let key = key.trim();
    if key.is_empty() || key == "other" {
        return None;
    }
    let known = [
        "MIT",
        "Apache-2.0",
        "BSD-2-Clause",
        "BSD-3-Clause",
        "GPL-2.0",
        "GPL-3.0",
        "LGPL-2.1",
        "LGPL-3.0",
        "AGPL-3.0",
        "MPL-2.0",
        "EPL-2.0",
        "ISC",
        "Unlicense",
        "CC0-1.0",
        "BSL-1.0",
    ];
    Some(
        known
            .iter()
            .find(|k| k.eq_ignore_ascii_case(key))
            .map_or_else(|| key.to_string(), |k| k.to_string()),
    )
}

/// `GET /projects/:id?license=true`.
#[derive(Debug, Deserialize)]
pub struct Project {
    id: u64,
    #[serde(default, deserialize_with = "text")]
    path_with_namespace: String,
    #[serde(default, deserialize_with = "text")]
    web_url: String,
    description: Option<String>,
    topics: Option<Vec<String>>,
    /// Before GitLab 14.0 topics were `tag_list`.
    tag_list: Option<Vec<String>>,
    default_branch: Option<String>,
    #[serde(default, deserialize_with = "count")]
    star_count: u64,
    #[serde(default, deserialize_with = "count")]
    forks_count: u64,
    /// Open issues only (merge requests are not issues on GitLab): what
    /// `openIssues` means on every host. Absent when the project's issues
    /// are disabled.
    #[serde(default, deserialize_with = "count")]
    open_issues_count: u64,
    #[serde(default)]
    archived: bool,
    license: Option<License>,
    /// The project's last activity: pushes, and issues and merge requests
    /// too (GitLab tells no push time alone).
    #[serde(default, deserialize_with = "signals_http::de::lenient_timestamp")]
    last_activity_at: Option<Timestamp>,
    /// When the project was created.
    #[serde(default, deserialize_with = "signals_http::de::lenient_timestamp")]
    created_at: Option<Timestamp>,
}

impl Project {
    pub(crate) fn id(&self) -> u64 {
        self.id
    }
}

impl WireRepo for Project {
    fn full_name(&self) -> &str {
        &self.path_with_namespace
    }

    fn web_url(&self) -> &str {
        &self.web_url
    }

    fn into_context(self, repository: RepoName) -> RepoContext {
        RepoContext {
            repository,
            url: self.web_url,
            description: self.description.unwrap_or_default(),
            // GitLab projects have no homepage field.
            homepage: String::new(),
            // Languages are a separate endpoint (`/languages`): one more
            // request per run for one word; left empty (docs/decisions.md).
            language: String::new(),
            topics: self.topics.or(self.tag_list).unwrap_or_default(),
            default_branch: self.default_branch.unwrap_or_default(),
            stars: self.star_count,
            forks: self.forks_count,
            open_issues: self.open_issues_count,
            archived: self.archived,
            license: self.license.and_then(|l| spdx(&l.key)),
            pushed_at: self.last_activity_at,
            created_at: self.created_at,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
pub struct ReleaseLinks {
    #[serde(default, rename = "self")]
    this: Option<String>,
}

/// An element of `GET /projects/:id/releases`.
#[derive(Debug, Deserialize)]
pub struct Release {
    #[serde(default, deserialize_with = "text")]
    tag_name: String,
    name: Option<String>,
    description: Option<String>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    created_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    released_at: Option<Timestamp>,
    #[serde(default)]
    upcoming_release: bool,
    author: Option<User>,
    #[serde(default)]
    _links: Option<ReleaseLinks>,
}

/// True for a tag with a SemVer pre-release part (`v2.0.0-rc.1`,
/// `v1.4.0-dev.3`): GitLab has no pre-release flag.
fn is_prerelease_tag(tag: &str) -> bool {
    let core = tag.trim_start_matches(['v', 'V']);
    core.split_once('-')
        .is_some_and(|(version, suffix)| version.contains('.') && !suffix.is_empty())
}

impl WireRelease for Release {
    /// `None` for a release without a tag. GitLab has no drafts; an
    /// upcoming release (`released_at` in the future) is a pre-release.
    fn into_snapshot(self, at: &Place<'_>) -> Option<ItemSnapshot> {
        if self.tag_name.trim().is_empty() {
            return None;
        }
        let published_at = secs(self.released_at.or(self.created_at)?);
        let title = match self.name {
            Some(name) if !name.trim().is_empty() => name,
            _ => self.tag_name.clone(),
        };
        let url = self
            ._links
            .and_then(|l| l.this)
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| {
                format!(
                    "{}/-/releases/{}",
                    at.web.trim_end_matches('/'),
                    self.tag_name
                )
            });
        let prerelease = self.upcoming_release || is_prerelease_tag(&self.tag_name);
        Some(ItemSnapshot {
            repo: at.repo.clone(),
            key: self.tag_name,
            title,
            text: self.description.unwrap_or_default(),
            url,
            created_at: self.created_at.map_or(published_at, secs),
            updated_at: published_at,
            metrics: Metrics::default(),
            labels: vec![],
            author: handle(self.author, at),
            state: ItemState::Closed,
            closed_at: None,
            assignees: vec![],
            detail: ItemDetail::Release {
                prerelease,
                published_at,
            },
        })
    }
}

/// An element of `GET /projects/:id/milestones`. GitLab's milestone
/// object has no issue counts: [`WireMilestone::with_counts`] adds them
/// from `issues_statistics` (0 and 0 until then).
#[derive(Debug, Deserialize)]
pub struct WireMilestone {
    #[serde(default, deserialize_with = "text")]
    title: String,
    description: Option<String>,
    #[serde(default, deserialize_with = "text")]
    web_url: String,
    /// A date, `YYYY-MM-DD`.
    due_date: Option<String>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    updated_at: Option<Timestamp>,
    /// Open and closed issues, from `issues_statistics`.
    #[serde(skip)]
    counts: (u64, u64),
}

/// `GET /projects/:id/issues_statistics`.
#[derive(Debug, Deserialize)]
pub(crate) struct IssueStatistics {
    statistics: StatisticsBody,
}

#[derive(Debug, Deserialize)]
struct StatisticsBody {
    counts: Counts,
}

#[derive(Debug, Deserialize)]
struct Counts {
    #[serde(default, deserialize_with = "count")]
    opened: u64,
    #[serde(default, deserialize_with = "count")]
    closed: u64,
}

impl WireMilestone {
    pub(crate) fn title(&self) -> &str {
        &self.title
    }

    /// The milestone with the issue counts `stats` gives.
    pub(crate) fn with_counts(mut self, stats: &IssueStatistics) -> WireMilestone {
        self.counts = (
            stats.statistics.counts.opened,
            stats.statistics.counts.closed,
        );
        self
    }
}

impl Convert for WireMilestone {
    fn into_milestone(self, _at: &Place<'_>) -> Milestone {
        let due_on = self
            .due_date
            .as_deref()
            .and_then(|d| format!("{d}T00:00:00Z").parse::<Timestamp>().ok());
        Milestone {
            title: self.title,
            url: self.web_url,
            description: self.description.unwrap_or_default(),
            open_issues: self.counts.0,
            closed_issues: self.counts.1,
            due_on,
            updated_at: self.updated_at.map(secs),
        }
    }
}

/// A label: a name, or an object with `name` when asked
/// `with_labels_details`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Label {
    Name(String),
    Detailed { name: String },
}

impl Label {
    fn into_name(self) -> String {
        match self {
            Label::Name(n) | Label::Detailed { name: n } => n,
        }
    }
}

/// An element of `GET /projects/:id/issues` or `/merge_requests`.
#[derive(Debug, Deserialize)]
pub struct Issuable {
    iid: u64,
    #[serde(default, deserialize_with = "text")]
    title: String,
    description: Option<String>,
    #[serde(default, deserialize_with = "text")]
    web_url: String,
    author: Option<User>,
    #[serde(default)]
    labels: Option<Vec<Label>>,
    /// `opened`, `closed`, and for merge requests `merged` and `locked`.
    #[serde(default, deserialize_with = "text")]
    state: String,
    assignees: Option<Vec<User>>,
    assignee: Option<User>,
    #[serde(default, deserialize_with = "count")]
    user_notes_count: u64,
    #[serde(default, deserialize_with = "count")]
    upvotes: u64,
    #[serde(default, deserialize_with = "count")]
    downvotes: u64,
    #[serde(deserialize_with = "timestamp")]
    created_at: Timestamp,
    #[serde(deserialize_with = "timestamp")]
    updated_at: Timestamp,
    draft: Option<bool>,
    /// Before GitLab 14.0 (and still sent beside `draft`).
    work_in_progress: Option<bool>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    merged_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    closed_at: Option<Timestamp>,
    /// The API links of the issue; only `closed_as_duplicate_of` is read.
    #[serde(default, rename = "_links")]
    links: Option<IssueLinks>,
    /// Who merged a merged merge request (or set an open one to merge
    /// when its pipeline succeeds): GitLab 14.7 and later.
    #[serde(default, deserialize_with = "merger")]
    merge_user: Option<Merger>,
    /// Who merged it: what GitLab sent before `merge_user`, deprecated
    /// since 14.7 and still sent beside it.
    #[serde(default, deserialize_with = "merger")]
    merged_by: Option<Merger>,
}

/// `_links` of an issue (GitLab 15.1+ names the issue it was closed as a
/// duplicate of, by its API URL).
#[derive(Debug, Default, Deserialize)]
struct IssueLinks {
    #[serde(default, deserialize_with = "text")]
    project: String,
    #[serde(default, deserialize_with = "text")]
    closed_as_duplicate_of: String,
}

impl IssueLinks {
    /// The reference key of the issue this one duplicates, when GitLab
    /// names one in the same project (`<project API URL>/issues/<iid>`):
    /// the item's own key (from `web_url`) with that number. An issue of
    /// another project is named by its project's numeric id, which no
    /// reference key holds, so it is left out.
    fn duplicate_of(&self, web_url: &str) -> Option<String> {
        let project = self.project.trim_end_matches('/');
        let iid = self
            .closed_as_duplicate_of
            .strip_prefix(project)?
            .strip_prefix("/issues/")?
            .parse::<u64>()
            .ok()?;
        let own = signals_core::references::own_key(web_url)?;
        let (place, _) = own.rsplit_once('#')?;
        (!project.is_empty()).then(|| format!("{place}#{iid}"))
    }
}

impl WireItem for Issuable {
    /// A merged merge request's merger: `merge_user`, else the older
    /// `merged_by`, with `merged_at`. None without a `merged_at` (an open
    /// merge request set to merge has a `merge_user` too), nor for a
    /// deleted account (GitLab's `ghost`), as GitHub's `null` merger.
    fn merger(&self, at: &Place<'_>, kinds: Kinds) -> Option<Merge> {
        if kinds != Kinds::Pulls {
            return None;
        }
        let merged_at = self.merged_at?;
        let by = [&self.merge_user, &self.merged_by]
            .into_iter()
            .flatten()
            .find(|m| !m.username.trim().is_empty())?;
        if by.username.eq_ignore_ascii_case(at.conventions.ghost) {
            return None;
        }
        Some(Merge {
            item_key: self.iid.to_string(),
            merged_by: by.username.clone(),
            bot: by.bot == Some(true) || is_bot_login(&by.username),
            merged_at: secs(merged_at),
        })
    }

    /// An issue, or from the merge requests list (`kinds` is
    /// [`Kinds::Pulls`]) a merge request, which is a `pull_request` signal.
    fn into_snapshot(self, at: &Place<'_>, kinds: Kinds) -> ItemSnapshot {
        let detail = if kinds == Kinds::Pulls {
            ItemDetail::PullRequest {
                draft: self.draft.or(self.work_in_progress).unwrap_or(false),
                merged: self.state == "merged" || self.merged_at.is_some(),
                merged_at: self.merged_at.map(secs),
                association: None,
            }
        } else {
            let duplicate_of = self
                .links
                .as_ref()
                .and_then(|l| l.duplicate_of(&self.web_url));
            let duplicate = self
                .links
                .as_ref()
                .is_some_and(|l| !l.closed_as_duplicate_of.is_empty());
            ItemDetail::Issue {
                closed_as: (duplicate && self.state == "closed").then_some(ClosedAs::Duplicate),
                duplicate_of: duplicate_of.filter(|_| self.state == "closed"),
            }
        };
        let state = match self.state.as_str() {
            "closed" | "merged" => ItemState::Closed,
            _ => ItemState::Open,
        };
        let assignees = match self.assignees {
            Some(list) => list,
            None => self.assignee.into_iter().collect(),
        };
        ItemSnapshot {
            repo: at.repo.clone(),
            key: self.iid.to_string(),
            title: self.title,
            text: self.description.unwrap_or_default(),
            url: self.web_url,
            created_at: secs(self.created_at),
            updated_at: secs(self.updated_at),
            metrics: Metrics {
                reactions: self.upvotes.saturating_add(self.downvotes),
                comments: self.user_notes_count,
            },
            labels: self
                .labels
                .unwrap_or_default()
                .into_iter()
                .map(Label::into_name)
                .collect(),
            author: handle(self.author, at),
            // A merged merge request has no `closed_at` on GitLab: it was
            // closed by its merge.
            closed_at: match state {
                ItemState::Open => None,
                ItemState::Closed => self.closed_at.or(self.merged_at).map(secs),
            },
            state,
            assignees: assignees.into_iter().map(|u| handle(Some(u), at)).collect(),
            detail,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Error, GitLab};
    use signals_http::Host;

    pub(super) fn decode<T: serde::de::DeserializeOwned>(
        url: &str,
        body: &[u8],
    ) -> Result<T, Error> {
        signals_http::decode(crate::HOST, url, body)
    }

    /// Converts `f`'s entry at gitlab-org/gitlab-ee.
    pub(super) fn at<T>(f: impl FnOnce(&Place<'_>) -> T) -> T {
        let repo = RepoName::parse("gitlab-org/gitlab-ee").unwrap();
        f(&Place {
            repo: &repo,
            web: "https://gitlab.com/gitlab-org/gitlab-ee",
            conventions: &GitLab::CONVENTIONS,
        })
    }

    #[test]
    fn recorded_merge_requests_decode() {
        // go-gitlab's testdata (Apache-2.0): see tests/data/SOURCES.md.
        let body = include_bytes!("../tests/data/get_merge_requests.json");
        let mrs: Vec<Issuable> = decode("u", body).unwrap();
        let items: Vec<_> = mrs
            .into_iter()
            .map(|m| at(|p| m.into_snapshot(p, Kinds::Pulls)))
            .collect();
        assert_eq!(items.len(), 3);
        let first = &items[0];
        assert_eq!(first.key, "15442");
        assert_eq!(first.author, "hfyngvason");
        assert_eq!(first.state, ItemState::Open);
        assert_eq!(first.assignees, vec!["hfyngvason"]);
        assert_eq!(first.metrics.comments, 1);
        assert_eq!(first.updated_at.to_string(), "2019-08-20T12:01:49Z");
        assert!(first.labels.contains(&"database".to_string()));
        // `work_in_progress: true` and no `draft`: a draft.
        assert_eq!(
            first.detail,
            ItemDetail::PullRequest {
                draft: true,
                merged: false,
                merged_at: None,
                association: None,
            }
        );
    }

    #[test]
    fn recorded_issue_decodes() {
        let body = include_bytes!("../tests/data/issue_move.json");
        let entry = decode::<Issuable>("u", body).unwrap();
        let item = at(|p| entry.into_snapshot(p, Kinds::Issues));
        assert_eq!(item.key, "11");
        assert_eq!(item.metrics.reactions, 4);
        assert_eq!(item.author, "solon.cremin");
        assert_eq!(item.detail, ItemDetail::issue());
    }

    #[test]
    fn an_issue_closed_as_a_duplicate_names_its_original_in_the_same_project() {
        let issue = |state: &str, links: &str| {
            let body = format!(
                r#"{{"iid": 7, "title": "t", "state": "{state}",
                "web_url": "https://gitlab.example/grp/proj/-/issues/7",
                "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-02T00:00:00Z",
                "_links": {links}}}"#
            );
            let entry = decode::<Issuable>("u", body.as_bytes()).unwrap();
            at(|p| entry.into_snapshot(p, Kinds::Issues)).detail
        };
        let project = r#""project": "https://gitlab.example/api/v4/projects/12""#;
        assert_eq!(
            issue(
                "closed",
                &format!(
                    r#"{{{project}, "closed_as_duplicate_of":
                    "https://gitlab.example/api/v4/projects/12/issues/3"}}"#
                )
            ),
            ItemDetail::Issue {
                closed_as: Some(ClosedAs::Duplicate),
                duplicate_of: Some("gitlab.example/grp/proj#3".into()),
            }
        );
        // Another project's issue: a duplicate, of an issue no key names.
        assert_eq!(
            issue(
                "closed",
                &format!(
                    r#"{{{project}, "closed_as_duplicate_of":
                    "https://gitlab.example/api/v4/projects/99/issues/3"}}"#
                )
            ),
            ItemDetail::Issue {
                closed_as: Some(ClosedAs::Duplicate),
                duplicate_of: None,
            }
        );
        // Reopened, or never a duplicate: nothing.
        let reopened = format!(
            r#"{{{project}, "closed_as_duplicate_of":
            "https://gitlab.example/api/v4/projects/12/issues/3"}}"#
        );
        assert_eq!(issue("opened", &reopened), ItemDetail::issue());
        let plain = format!(r#"{{{project}, "closed_as_duplicate_of": null}}"#);
        assert_eq!(issue("closed", &plain), ItemDetail::issue());
        assert_eq!(issue("closed", "null"), ItemDetail::issue());
    }

    #[test]
    fn merged_and_locked_states() {
        let mr = |state: &str, merged_at: &str| {
            let body = format!(
                r#"{{"iid": 2, "title": "t", "state": "{state}", "merged_at": {merged_at},
                "created_at": "2024-01-01T00:00:00.123Z", "updated_at": "2024-01-02T00:00:00Z",
                "upvotes": 2, "downvotes": 1, "draft": false}}"#
            );
            let entry = decode::<Issuable>("u", body.as_bytes()).unwrap();
            at(|p| entry.into_snapshot(p, Kinds::Pulls))
        };
        let merged = mr("merged", r#""2024-01-02T00:00:00Z""#);
        assert_eq!(merged.state, ItemState::Closed);
        assert_eq!(merged.metrics.reactions, 3);
        assert!(matches!(
            merged.detail,
            ItemDetail::PullRequest { merged: true, .. }
        ));
        assert_eq!(mr("locked", "null").state, ItemState::Open);
        assert_eq!(mr("closed", "null").state, ItemState::Closed);
    }

    #[test]
    fn releases_licenses_and_prerelease_tags() {
        assert!(is_prerelease_tag("v2.0.0-rc.1"));
        assert!(is_prerelease_tag("1.4.0-dev.3"));
        assert!(!is_prerelease_tag("v1.4.0"));
        assert!(!is_prerelease_tag("release-2024"));
        assert_eq!(spdx("apache-2.0").as_deref(), Some("Apache-2.0"));
        assert_eq!(spdx("mit").as_deref(), Some("MIT"));
        assert_eq!(spdx("other"), None);
        let body = br#"{"tag_name": "v1.0.0", "name": null, "description": "- a",
            "created_at": "2024-01-01T00:00:00Z", "released_at": "2024-01-02T00:00:00Z",
            "upcoming_release": false, "author": {"username": "m"}}"#;
        let release = decode::<Release>("u", body).unwrap();
        let r = at(|p| release.into_snapshot(p)).unwrap();
        assert_eq!(r.title, "v1.0.0");
        assert_eq!(
            r.url,
            "https://gitlab.com/gitlab-org/gitlab-ee/-/releases/v1.0.0"
        );
        assert_eq!(r.updated_at.to_string(), "2024-01-02T00:00:00Z");
    }

    #[test]
    fn decode_errors_name_the_path() {
        match decode::<Vec<Issuable>>("http://h/x", br#"[{"iid": "one"}]"#) {
            Err(Error::Decode { path, url, .. }) => {
                assert_eq!(path, "[0].iid");
                assert_eq!(url, "http://h/x");
            }
            other => panic!("{other:?}"),
        }
    }
}

#[cfg(test)]
mod merger_tests;

/// One entry of `GET /groups/:id/projects` or `GET /users/:id/projects`:
/// only what decides whether a group tracks it, and the project's `id`,
/// which a rename or a move within the group keeps.
#[derive(Debug, Deserialize)]
pub struct ListedProject {
    #[serde(default, deserialize_with = "signals_http::de::host_id")]
    id: Option<u64>,
    #[serde(default, deserialize_with = "text")]
    path_with_namespace: String,
    #[serde(default)]
    archived: Option<bool>,
    /// Present (an object) only on a fork.
    #[serde(default)]
    forked_from_project: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    visibility: Option<String>,
}

impl signals_http::wire::ListedEntry for ListedProject {
    /// `None` for a project that is not public (the request asks for
    /// public ones; a server too old for the filter may still send
    /// others) or a path that is not `namespace/name`.
    fn into_listed(self) -> Option<signals_core::owners::Listed> {
        if self.visibility.as_deref().is_some_and(|v| v != "public") {
            return None;
        }
        Some(signals_core::owners::Listed {
            full_name: RepoName::parse(&self.path_with_namespace).ok()?,
            archived: self.archived.unwrap_or(false),
            fork: self.forked_from_project.is_some(),
            host_id: self.id,
        })
    }
}

#[cfg(test)]
mod listed_tests {
    use signals_http::wire::ListedEntry;

    use super::ListedProject;

    fn listed(json: &str) -> Option<signals_core::owners::Listed> {
        serde_json::from_str::<ListedProject>(json)
            .unwrap()
            .into_listed()
    }

    #[test]
    fn a_listed_project_carries_its_id() {
        let l = listed(
            r#"{"id": 278964, "path_with_namespace": "gnome/sub/tool", "visibility": "public"}"#,
        )
        .unwrap();
        assert_eq!(
            (l.full_name.to_string(), l.host_id),
            ("gnome/sub/tool".to_string(), Some(278964))
        );
        let odd = listed(r#"{"id": "x", "path_with_namespace": "g/t"}"#).unwrap();
        assert_eq!(odd.host_id, None);
        assert!(
            listed(r#"{"id": 1, "path_with_namespace": "g/t", "visibility": "internal"}"#)
                .is_none()
        );
    }
}
