//! The v3 document's types: the spec's JSON field for field, and nothing
//! more (store-only facts such as the license or importance terms are not
//! part of it). They serialize exactly as published and deserialize
//! strictly (`deny_unknown_fields`), so a round trip is lossless.

use serde::{Deserialize, Serialize};

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
    /// The most recently updated open discussions, newest
    /// first; empty where the host has none or they were not read.
    pub community_discussions: Vec<CommunityDiscussionDoc>,
}

/// An element of `dataset.news.communityDiscussions` (docs/decisions.md,
/// "Discussions").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CommunityDiscussionDoc {
    /// `<owner>/<name>`.
    pub repository: String,
    /// The discussion's number.
    pub number: u64,
    /// Title.
    pub title: String,
    /// Web URL.
    pub url: String,
    /// The category's name.
    pub category: String,
    /// Author handle.
    pub author: String,
    /// Creation time.
    pub created_at: String,
    /// Last update.
    pub updated_at: String,
    /// An answer is marked.
    pub answered: bool,
    /// Comments.
    pub comments: u64,
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsDoc {
    /// Reactions.
    pub reactions: u64,
    /// Comments.
    pub comments: u64,
}

/// An element of `dataset.signals`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    /// Releases and advisories only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
    /// Discussions only: the category's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Discussions only: an answer is marked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered: Option<bool>,
    /// Advisories only: `critical`, `high`, `medium`, `low`, or `null`
    /// when the host gives none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub severity: Option<Option<String>>,
    /// Advisories only: the CVSS base score, `null` when none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub cvss_score: Option<Option<f64>>,
    /// Advisories only: the CVE id, `null` until one is assigned.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub cve_id: Option<Option<String>>,
    /// Advisories only: when it was withdrawn, `null` while in force.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub withdrawn_at: Option<Option<String>>,
    /// `updated` on signals changed in the latest run; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    /// Ids of the signals of the group this item's texts name
    /// (`crate::references`); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<String>,
    /// Ids of the signals of the group whose texts name this item; absent
    /// when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub referenced_by: Vec<String>,
    /// The items of the group telling the same story (`crate::related`):
    /// the five best by score, open ones first; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<RelatedDoc>,
    /// The item's first response; `null` when none is known, and for
    /// releases and discussions.
    #[serde(default)]
    pub first_response: Option<FirstResponseDoc>,
    /// What is known of an issue's or pull request's first response:
    /// `answered`, `none` (no response yet, every reply read) or
    /// `unknown` (`crate::first_response::Answer`); absent on releases
    /// and discussions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_response_state: Option<String>,
}

/// A related item of a signal: its id, the pair's score (0 to 1) and the
/// words the two share, most telling first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelatedDoc {
    /// The related signal's id.
    pub id: String,
    /// The pair's score.
    pub score: f64,
    /// The words the two share.
    pub shared: Vec<String>,
}

/// A signal's first response: when, by whom, and the hours from the
/// item's creation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FirstResponseDoc {
    /// When it was written.
    pub at: String,
    /// Who wrote it.
    pub by: String,
    /// Hours from the item's creation.
    pub hours: f64,
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
