//! A comment or review on an issue or pull request, as a host's lists
//! give it: what first responses and waiting items are computed
//! from, and what the store keeps of each.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::ItemKind;

/// What a reply is: an issue comment, a pull request review, or a review
/// comment (on a line of a pull request's diff).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommentKind {
    /// A comment of the conversation (GitHub's and Forgejo's issue
    /// comments, on issues and pull requests alike; GitLab's notes).
    Comment,
    /// A pull request review (GitHub).
    Review,
    /// A comment on a line of a pull request's diff (GitHub).
    ReviewComment,
}

impl CommentKind {
    /// The stored form: `comment`, `review`, `review_comment`.
    pub fn as_str(self) -> &'static str {
        match self {
            CommentKind::Comment => "comment",
            CommentKind::Review => "review",
            CommentKind::ReviewComment => "review_comment",
        }
    }

    /// Parses the stored form.
    pub fn parse(s: &str) -> Option<CommentKind> {
        match s {
            "comment" => Some(CommentKind::Comment),
            "review" => Some(CommentKind::Review),
            "review_comment" => Some(CommentKind::ReviewComment),
            _ => None,
        }
    }
}

/// One comment or review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comment {
    /// What it is.
    pub kind: CommentKind,
    /// The host's id of it, unique within its kind and repository.
    pub host_id: String,
    /// The kind of item it is on: an issue or a pull request.
    pub item_kind: ItemKind,
    /// The item's key (its number) in the repository.
    pub item_key: String,
    /// The author's login (empty for a deleted account).
    pub author: String,
    /// GitHub's `author_association` (`OWNER`, `MEMBER`, `NONE`, ...),
    /// when the host gives one.
    pub association: Option<String>,
    /// True when the host says the author is a bot (GitHub type `Bot`),
    /// or the login ends in `[bot]`.
    pub bot: bool,
    /// A review's state (`APPROVED`, `COMMENTED`, `PENDING`, ...); `None`
    /// for comments.
    pub state: Option<String>,
    /// When it was written (a review: submitted; a pending review: its
    /// creation as the host gives it).
    pub created_at: Timestamp,
    /// When it was last edited.
    pub updated_at: Timestamp,
    /// Its text.
    pub body: String,
}

impl Comment {
    /// The key of the comment in its repository: `<kind>:<host id>`.
    pub fn key(&self) -> String {
        format!("{}:{}", self.kind.as_str(), self.host_id)
    }
}

/// A merged pull request and who merged it, where the host says so with
/// an answer already asked (GitHub's `mergedBy` in the reviews query):
/// what makes a maintainer who only merges active.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Merge {
    /// The pull request's key (its number) in the repository.
    pub item_key: String,
    /// The login of who merged it.
    pub merged_by: String,
    /// True when the host says the merger is a bot, or the login ends in
    /// `[bot]`.
    pub bot: bool,
    /// When it was merged.
    pub merged_at: Timestamp,
}

/// True when a login names a bot by GitHub's convention (`name[bot]`).
pub fn is_bot_login(login: &str) -> bool {
    login.ends_with("[bot]")
}
