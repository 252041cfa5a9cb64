//! GitHub Discussions: what a host's discussions step brings
//! back ([`Discussions`]), why a repository has none ([`DiscussionsOff`]),
//! and the element of `news.communityDiscussions` ([`CommunityDiscussion`]).
//!
//! A discussion is otherwise an item like any other: an [`ItemSnapshot`]
//! of kind `discussion` whose detail carries its category and whether it
//! is answered, stored, diffed and scored with the issues.

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use super::ItemSnapshot;

/// How many open discussions `news.communityDiscussions` lists: the most
/// recently updated ones (docs/decisions.md, "Discussions").
pub const COMMUNITY_DISCUSSIONS: usize = 10;

/// How far before the run's `since` the discussions list is read: the
/// newest-first list stops at the first discussion updated before
/// `since - margin`. Ten minutes covers clock skew between GitHub's
/// search of discussions and the run's clock; what it brings again is
/// dropped as unchanged.
pub const WATERMARK_MARGIN: SignedDuration = SignedDuration::from_mins(10);

/// The oldest `updatedAt` a run reads discussions down to.
pub fn watermark(since: Timestamp) -> Timestamp {
    since.saturating_sub(WATERMARK_MARGIN).unwrap_or(since)
}

/// An element of `news.communityDiscussions`: one open discussion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommunityDiscussion {
    /// Its number in the repository.
    pub number: u64,
    /// Title.
    pub title: String,
    /// Web URL.
    pub url: String,
    /// The category's name.
    pub category: String,
    /// The author's handle (`ghost` for a deleted account).
    pub author: String,
    /// When it was opened.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// An answer is marked.
    pub answered: bool,
    /// Comments (answers included, replies not).
    pub comments: u64,
}

/// Why a repository's discussions were not read. Said once, in `status`
/// and on the repository's page; never a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiscussionsOff {
    /// The host has no discussions (GitLab, Forgejo).
    Unsupported,
    /// No token: GitHub's GraphQL API refuses anonymous calls.
    NoToken,
    /// The repository has discussions turned off.
    Disabled,
    /// GraphQL did not find the repository (the token cannot see it).
    NotFound,
    /// `discussions = false` in the group's configuration.
    Configured,
}

impl DiscussionsOff {
    /// The sentence `status` and the page show.
    pub fn note(self) -> &'static str {
        match self {
            DiscussionsOff::Unsupported => "This host has no discussions",
            DiscussionsOff::NoToken => {
                "Discussions not read: GitHub's GraphQL API needs a token (set GITHUB_TOKEN)"
            }
            DiscussionsOff::Disabled => "Discussions are turned off on this repository",
            DiscussionsOff::NotFound => {
                "Discussions not read: GraphQL did not find the repository with this token"
            }
            DiscussionsOff::Configured => "Discussions turned off in the configuration",
        }
    }

    /// The machine form: `unsupported`, `no_token`, `disabled`,
    /// `not_found`, `configured`.
    pub fn as_str(self) -> &'static str {
        match self {
            DiscussionsOff::Unsupported => "unsupported",
            DiscussionsOff::NoToken => "no_token",
            DiscussionsOff::Disabled => "disabled",
            DiscussionsOff::NotFound => "not_found",
            DiscussionsOff::Configured => "configured",
        }
    }
}

/// What GraphQL cost: requests sent (retries included) and the points
/// GitHub charged (`rateLimit.cost`), counted apart from REST requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphqlCost {
    /// POST requests sent.
    pub requests: u64,
    /// Points charged, as the answers' `rateLimit.cost` said.
    pub points: u64,
}

/// What a host's discussions step brought back for one repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discussions {
    /// Read: the discussions updated at or after the watermark, and the
    /// most recently updated open ones (at most
    /// [`COMMUNITY_DISCUSSIONS`]), newest first.
    Read {
        /// Discussions updated since the watermark, as snapshots.
        items: Vec<ItemSnapshot>,
        /// The open discussions the news lists.
        open: Vec<CommunityDiscussion>,
    },
    /// Not read, and why.
    Off(DiscussionsOff),
    /// Not asked: the round's heads query ([`DiscussionHead`]) showed no
    /// discussion updated since the watermark, and the previous run read
    /// them, so what it kept stands.
    Unchanged,
}

/// What a round's one query for many repositories at once said of one
/// repository's discussions: enough to leave a quiet one
/// unasked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscussionHead {
    /// Discussions are on; when the most recently updated one changed
    /// (`None`: it has none).
    Enabled(Option<Timestamp>),
    /// Discussions are turned off.
    Disabled,
}

impl DiscussionHead {
    /// True when no discussion changed at or after `watermark`: then a
    /// run that read them before need not ask again.
    pub fn unchanged_since(self, watermark: Timestamp) -> bool {
        match self {
            DiscussionHead::Enabled(None) => true,
            DiscussionHead::Enabled(Some(newest)) => newest < watermark,
            DiscussionHead::Disabled => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watermark_reaches_back_the_margin() {
        let since: Timestamp = "2026-01-02T00:00:00Z".parse().unwrap();
        assert_eq!(
            watermark(since),
            "2026-01-01T23:50:00Z".parse::<Timestamp>().unwrap()
        );
        assert_eq!(watermark(Timestamp::MIN), Timestamp::MIN);
    }

    #[test]
    fn a_head_is_unchanged_only_before_the_watermark() {
        let at = |s: &str| s.parse::<Timestamp>().unwrap();
        let mark = at("2026-01-02T00:00:00Z");
        let newest = |s| DiscussionHead::Enabled(Some(at(s)));
        assert!(newest("2026-01-01T23:59:59Z").unchanged_since(mark));
        assert!(!newest("2026-01-02T00:00:00Z").unchanged_since(mark));
        assert!(DiscussionHead::Enabled(None).unchanged_since(mark));
        assert!(!DiscussionHead::Disabled.unchanged_since(mark));
    }

    #[test]
    fn every_reason_has_a_note_and_a_name() {
        for off in [
            DiscussionsOff::Unsupported,
            DiscussionsOff::NoToken,
            DiscussionsOff::Disabled,
            DiscussionsOff::NotFound,
            DiscussionsOff::Configured,
        ] {
            let json = serde_json::to_string(&off).unwrap();
            assert_eq!(json, format!("\"{}\"", off.as_str()));
            assert!(!off.note().is_empty());
        }
    }
}
