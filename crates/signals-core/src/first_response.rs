//! First responses and items waiting for a reply: pure rules
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

/// The default of `comments_backfill_days`: a repository's first run
/// reads comments back 90 days.
pub const DEFAULT_COMMENTS_BACKFILL_DAYS: u32 = 90;

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

/// What is known of an issue's or pull request's first response.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Its first response, among replies of which none is missing.
    First(FirstResponse),
    /// No response yet: every reply it has was read, and none counts.
    NotYet,
    /// Not known: it was opened before the first comment the store read
    /// (and it is a pull request, whose reviews no count gives, or its
    /// count of comments says some were never read), or its count of
    /// comments says there are replies the store never read. A reply the
    /// store holds may then not be the first, so none is shown.
    Unknown,
}

impl Answer {
    /// The first response, when known.
    pub fn first(self) -> Option<FirstResponse> {
        match self {
            Answer::First(first) => Some(first),
            Answer::NotYet | Answer::Unknown => None,
        }
    }

    /// The API's and the dataset's name of the state: `answered`, `none`
    /// (no response yet) or `unknown`.
    pub fn state(&self) -> &'static str {
        match self {
            Answer::First(_) => "answered",
            Answer::NotYet => "none",
            Answer::Unknown => "unknown",
        }
    }

    /// True when `item` waits for a reply at `now`: it has none yet, known
    /// to be none ([`is_waiting`]).
    pub fn waits(&self, item: &ItemSnapshot, now: Timestamp, waiting_days: u32) -> bool {
        matches!(self, Answer::NotYet) && is_waiting(item, None, now, waiting_days)
    }
}

/// The replies of a repository's items, by item id, with the group's
/// `ignore_users`: what gives each item its first response.
#[derive(Debug, Clone, Default)]
pub struct Responses {
    by_item: HashMap<String, Vec<Reply>>,
    ignore_users: Vec<String>,
    /// The oldest instant whose comments the store read: the
    /// repository's first run less `comments_backfill_days`. `None`: not
    /// known to be bounded (only the counts of comments tell).
    read_from: Option<Timestamp>,
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
            read_from: None,
        }
    }

    /// The same replies, read from `read_from` on: an item opened before
    /// it may have had replies the store never read.
    pub fn read_from(self, read_from: Option<Timestamp>) -> Responses {
        Responses { read_from, ..self }
    }

    /// What is known of the first response to `item` (signal id `id`);
    /// `None` for a release and a discussion.
    pub fn answer(&self, id: &str, item: &ItemSnapshot) -> Option<Answer> {
        if !matches!(item.kind(), ItemKind::Issue | ItemKind::PullRequest) {
            return None;
        }
        let replies = self.by_item.get(id).map_or(&[][..], Vec::as_slice);
        // The snapshot's count covers the comments written up to its
        // `updated_at`: one written later may be read already (a host
        // shows the comment list and the item list at different moments),
        // and must not stand in for an older one the store never read.
        let comments_read = replies
            .iter()
            .filter(|r| r.kind == CommentKind::Comment && r.at <= item.updated_at)
            .count() as u64;
        let missing = item.metrics.comments > comments_read;
        let before = self.read_from.is_some_and(|from| item.created_at < from);
        if missing || (before && item.kind() == ItemKind::PullRequest) {
            return Some(Answer::Unknown);
        }
        Some(
            match first_response(&item.author, item.created_at, replies, &self.ignore_users) {
                Some(first) => Answer::First(first),
                None => Answer::NotYet,
            },
        )
    }

    /// The first response to `item` (signal id `id`), when known; `None`
    /// for a release, an item nobody answered, and one whose first
    /// response is not known ([`Responses::answer`]).
    pub fn of(&self, id: &str, item: &ItemSnapshot) -> Option<FirstResponse> {
        self.answer(id, item).and_then(Answer::first)
    }
}

/// The oldest instant whose comments a repository's store read: its first
/// successful run less `comments_backfill_days`.
pub fn read_from(first_run: Option<Timestamp>, comments_backfill_days: u32) -> Option<Timestamp> {
    let span = SignedDuration::from_hours(24 * i64::from(comments_backfill_days));
    first_run.map(|at| at.saturating_sub(span).unwrap_or(Timestamp::MIN))
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
    fn a_first_response_that_cannot_be_known_is_unknown_not_none() {
        use crate::model::ItemDetail;
        let mut item = crate::diff::tests::issue("1");
        item.metrics.comments = 0;
        let id = "github:o/n:issue:1";
        let created = item.created_at;
        let later = |h: i64| created + SignedDuration::from_hours(h);
        // As a host has it: its replies updated it.
        item.updated_at = later(3);
        let answer = |replies: Vec<Reply>, read_from: Option<Timestamp>, item: &ItemSnapshot| {
            let replies = replies.into_iter().map(|r| (id.to_string(), r)).collect();
            Responses::new(replies, &[])
                .read_from(read_from)
                .answer(id, item)
                .unwrap()
        };
        let maint = |h: i64| Reply {
            at: later(h),
            ..reply(CommentKind::Comment, "maint", "2024-01-01T00:00:00Z")
        };
        // Every comment read: none yet, or the first.
        assert_eq!(answer(vec![], None, &item), Answer::NotYet);
        item.metrics.comments = 1;
        assert_eq!(answer(vec![maint(3)], None, &item).state(), "answered");
        // Its count says a comment was never read: the one read may be a
        // later one.
        item.metrics.comments = 2;
        assert_eq!(answer(vec![maint(3)], None, &item), Answer::Unknown);
        // Opened before the comments read: an issue whose every comment
        // was read is known; a pull request (reviews have no count) is not.
        item.metrics.comments = 1;
        let after = Some(later(1));
        assert_eq!(answer(vec![maint(3)], after, &item).state(), "answered");
        let mut pull = item.clone();
        pull.detail = ItemDetail::PullRequest {
            merged: false,
            merged_at: None,
            draft: false,
            association: None,
        };
        assert_eq!(answer(vec![maint(3)], after, &pull), Answer::Unknown);
        assert_eq!(
            answer(vec![maint(3)], Some(created), &pull).state(),
            "answered"
        );
        // Unknown never waits; none yet does, once old enough.
        let now = later(24 * 3);
        assert!(!Answer::Unknown.waits(&item, now, 2));
        assert!(Answer::NotYet.waits(&item, now, 2));
        assert_eq!(
            read_from(Some(at("2024-04-01T00:00:00Z")), 90),
            Some(at("2024-01-02T00:00:00Z"))
        );
    }

    #[test]
    fn a_comment_newer_than_its_items_snapshot_does_not_stand_in_for_an_older_one() {
        let mut item = crate::diff::tests::issue("1");
        let id = "github:o/n:issue:1";
        // The snapshot counts one comment, an old one never read; the one
        // read was written after the snapshot (listed before it).
        item.metrics.comments = 1;
        let newer = Reply {
            at: item.updated_at + SignedDuration::from_secs(1),
            ..reply(CommentKind::Comment, "maint", "2024-01-01T00:00:00Z")
        };
        let responses = Responses::new(vec![(id.to_string(), newer.clone())], &[]);
        assert_eq!(responses.answer(id, &item), Some(Answer::Unknown));
        // Once the item is read again, its count covers the newer one too.
        item.metrics.comments = 2;
        item.updated_at = newer.at;
        let old = Reply {
            at: item.created_at,
            ..newer.clone()
        };
        let replies = vec![(id.to_string(), newer), (id.to_string(), old.clone())];
        let answer = Responses::new(replies, &[]).answer(id, &item);
        assert_eq!(answer.and_then(Answer::first).map(|f| f.at), Some(old.at));
    }

    #[test]
    fn hours_are_rounded_and_never_negative() {
        let t = at("2024-01-01T00:00:00Z");
        assert_eq!(hours_between(t, at("2024-01-01T00:20:00Z")), 0.33);
        assert_eq!(hours_between(t, at("2023-12-31T00:00:00Z")), 0.0);
    }
}
