//! First responses and items waiting for a reply (issue 26): pure rules
//! over an item and the replies stored for it.
//!
//! An item's first response is its earliest reply (an issue comment, a
//! submitted review, a review comment) by an account other than the
//! item's author, that is no bot (the host says so, or the login ends in
//! `[bot]`) and is not in the group's `ignore_users`; a `PENDING` review
//! is not submitted, so it is no reply. It is measured from the item's
//! creation. docs/decisions.md, "Comments and first responses", names the
//! edge cases.

use std::collections::HashMap;

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::dataset::{FirstResponseDoc, fmt_seconds};

use crate::model::{CommentKind, ItemKind, ItemSnapshot, ItemState, is_bot_login};

/// The default of `waiting_days`: an open item unanswered for 2 days is
/// waiting.
pub const DEFAULT_WAITING_DAYS: u32 = 2;

/// What of a stored comment or review the rule reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// What it is.
    pub kind: CommentKind,
    /// The author's login.
    pub author: String,
    /// True when the host says the author is a bot.
    pub bot: bool,
    /// A review's state; `None` for comments.
    pub state: Option<String>,
    /// When it was written.
    pub at: Timestamp,
}

/// An item's first response, as the API shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FirstResponse {
    /// When it was written.
    pub at: Timestamp,
    /// Who wrote it.
    pub by: String,
    /// Hours from the item's creation, to two decimals (0 when the reply
    /// is dated before the item, as a host's clock may have it).
    pub hours: f64,
}

impl FirstResponse {
    /// The API's and the dataset's form: `{"at", "by", "hours"}`.
    pub fn doc(&self) -> FirstResponseDoc {
        FirstResponseDoc {
            at: fmt_seconds(self.at),
            by: self.by.clone(),
            hours: self.hours,
        }
    }
}

/// The replies of a repository's items, by item id, with the group's
/// `ignore_users`: what gives each item its first response.
#[derive(Debug, Clone, Default)]
pub struct Responses {
    by_item: HashMap<String, Vec<Reply>>,
    ignore_users: Vec<String>,
}

impl Responses {
    /// The replies as the store gives them (item id, reply).
    pub fn new(replies: Vec<(String, Reply)>, ignore_users: &[String]) -> Responses {
        let mut by_item: HashMap<String, Vec<Reply>> = HashMap::new();
        for (id, reply) in replies {
            by_item.entry(id).or_default().push(reply);
        }
        Responses {
            by_item,
            ignore_users: ignore_users.to_vec(),
        }
    }

    /// The first response to `item` (signal id `id`); `None` for a
    /// release, and for an item nobody answered.
    pub fn of(&self, id: &str, item: &ItemSnapshot) -> Option<FirstResponse> {
        if !matches!(item.kind(), ItemKind::Issue | ItemKind::PullRequest) {
            return None;
        }
        let replies = self.by_item.get(id)?;
        first_response(&item.author, item.created_at, replies, &self.ignore_users)
    }
}

/// True when `reply` counts as a response to an item by `item_author`.
pub fn counts(reply: &Reply, item_author: &str, ignore_users: &[String]) -> bool {
    let who = reply.author.as_str();
    let pending = reply.kind == CommentKind::Review && reply.state.as_deref() == Some("PENDING");
    let excluded = who.is_empty()
        || who.eq_ignore_ascii_case(item_author)
        || reply.bot
        || is_bot_login(who)
        || ignore_users.iter().any(|u| u.eq_ignore_ascii_case(who));
    !excluded && !pending
}

/// The first response to an item written by `author` at `created_at`,
/// among `replies` (in any order); the earliest wins, ties by author.
pub fn first_response(
    author: &str,
    created_at: Timestamp,
    replies: &[Reply],
    ignore_users: &[String],
) -> Option<FirstResponse> {
    let first = replies
        .iter()
        .filter(|r| counts(r, author, ignore_users))
        .min_by(|a, b| a.at.cmp(&b.at).then_with(|| a.author.cmp(&b.author)))?;
    Some(FirstResponse {
        at: first.at,
        by: first.author.clone(),
        hours: hours_between(created_at, first.at),
    })
}

/// Hours from `from` to `to`, to two decimals, never negative.
pub fn hours_between(from: Timestamp, to: Timestamp) -> f64 {
    let seconds = to.duration_since(from).as_secs_f64().max(0.0);
    (seconds / 36.0).round() / 100.0
}

/// True when `item` waits for a reply at `now`: an open issue or pull
/// request with no first response, created more than `waiting_days` ago.
pub fn is_waiting(
    item: &ItemSnapshot,
    first: Option<&FirstResponse>,
    now: Timestamp,
    waiting_days: u32,
) -> bool {
    matches!(item.kind(), ItemKind::Issue | ItemKind::PullRequest)
        && item.state == ItemState::Open
        && first.is_none()
        && now.duration_since(item.created_at) > waiting_span(waiting_days)
}

/// `waiting_days` as a span.
pub fn waiting_span(waiting_days: u32) -> SignedDuration {
    SignedDuration::from_hours(24 * i64::from(waiting_days))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn reply(kind: CommentKind, author: &str, when: &str) -> Reply {
        Reply {
            kind,
            author: author.into(),
            bot: false,
            state: None,
            at: at(when),
        }
    }

    #[test]
    fn the_earliest_reply_of_someone_else_counts() {
        let created = at("2024-01-01T00:00:00Z");
        let replies = vec![
            reply(CommentKind::Comment, "maint", "2024-01-02T12:00:00Z"),
            reply(CommentKind::Comment, "Author", "2024-01-01T01:00:00Z"),
            Reply {
                bot: true,
                ..reply(CommentKind::Comment, "ci", "2024-01-01T02:00:00Z")
            },
            reply(
                CommentKind::Comment,
                "dependabot[bot]",
                "2024-01-01T03:00:00Z",
            ),
            reply(CommentKind::Comment, "Triage", "2024-01-01T04:00:00Z"),
            Reply {
                state: Some("PENDING".into()),
                ..reply(CommentKind::Review, "rev", "2024-01-01T05:00:00Z")
            },
            Reply {
                state: Some("APPROVED".into()),
                ..reply(CommentKind::Review, "rev", "2024-01-01T18:00:00Z")
            },
        ];
        let first = first_response("author", created, &replies, &["triage".into()]).unwrap();
        assert_eq!(first.by, "rev");
        assert_eq!(first.hours, 18.0);
        assert!(first_response("author", created, &replies[1..4], &[]).is_none());
    }

    #[test]
    fn hours_are_rounded_and_never_negative() {
        let t = at("2024-01-01T00:00:00Z");
        assert_eq!(hours_between(t, at("2024-01-01T00:20:00Z")), 0.33);
        assert_eq!(hours_between(t, at("2023-12-31T00:00:00Z")), 0.0);
    }
}
