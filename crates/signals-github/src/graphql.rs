//! GitHub's GraphQL API as the discussions step speaks it: the
//! one query it sends, the answer's wire types, and their reading into
//! domain values (`parse_discussions`). Pure: `discussions.rs` sends and
//! pages, through `send.rs`, which reads the answer's `rateLimit` and
//! errors with the types here.
//!
//! The query asks, in one request, a page of the repository's discussions
//! newest update first and, on the first page only, its ten most
//! recently updated open ones (for `news.communityDiscussions`), with the
//! answer's `rateLimit`. GitHub charges it one point (101 to 112 nodes'
//! worth of connections, divided by 100, rounded).

use jiff::Timestamp;
use serde::Deserialize;
use serde_json::json;
use signals_core::model::{
    COMMUNITY_DISCUSSIONS, CommunityDiscussion, ItemDetail, ItemSnapshot, ItemState, Metrics,
    RepoName,
};
use signals_http::{Error, decode};

use crate::HOST;

/// Discussions asked per page (GitHub's maximum for a connection).
pub const DISCUSSIONS_PER_PAGE: u32 = 100;

/// Labels read per discussion: more are rare; the first 20 are kept.
pub const LABELS_PER_DISCUSSION: u32 = 20;

/// The query, by name `Discussions`; the test host answers it by that
/// name and its variables.
pub const QUERY: &str = "query Discussions($owner: String!, $name: String!, $first: Int!, \
$after: String, $labels: Int!, $open: Int!, $firstPage: Boolean!) { \
rateLimit { cost remaining resetAt } \
repository(owner: $owner, name: $name) { hasDiscussionsEnabled \
discussions(first: $first, after: $after, orderBy: {field: UPDATED_AT, direction: DESC}) { \
pageInfo { hasNextPage endCursor } \
nodes { number title body url createdAt updatedAt closed closedAt isAnswered upvoteCount \
author { login } category { name } labels(first: $labels) { nodes { name } } \
comments { totalCount } } } \
open: discussions(first: $open, states: [OPEN], orderBy: {field: UPDATED_AT, direction: DESC}) \
@include(if: $firstPage) { nodes { number title url createdAt updatedAt isAnswered \
author { login } category { name } comments { totalCount } } } } }";

/// The URL GraphQL answers at: `https://api.github.com/graphql` for
/// github.com, `https://HOST/api/graphql` for a GitHub Enterprise server
/// whose REST root is `https://HOST/api/v3`, else `{base}/graphql`.
pub fn endpoint(base: &str) -> String {
    let base = base.trim_end_matches('/');
    match base.strip_suffix("/api/v3") {
        Some(host) => format!("{host}/api/graphql"),
        None => format!("{base}/graphql"),
    }
}

/// The body of one request: page `after` (`None`: the first page).
pub fn request(repo: &RepoName, after: Option<&str>) -> Vec<u8> {
    let body = json!({
        "query": QUERY,
        "operationName": "Discussions",
        "variables": {
            "owner": repo.owner(),
            "name": repo.name(),
            "first": DISCUSSIONS_PER_PAGE,
            "after": after,
            "labels": LABELS_PER_DISCUSSION,
            "open": COMMUNITY_DISCUSSIONS,
            "firstPage": after.is_none(),
        }
    });
    serde_json::to_vec(&body).unwrap_or_default()
}

/// A GraphQL answer: `data` and/or `errors`.
#[derive(Debug, Deserialize)]
pub struct Answer {
    /// Absent or null when the whole query failed.
    #[serde(default)]
    pub data: Option<Data>,
    /// GraphQL errors (a 200 answer may carry them).
    #[serde(default)]
    pub errors: Vec<GraphqlError>,
}

/// One GraphQL error.
#[derive(Debug, Deserialize)]
pub struct GraphqlError {
    /// `RATE_LIMITED`, `NOT_FOUND`, ... (absent on some errors).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// What happened, in words.
    #[serde(default)]
    pub message: String,
}

/// `data`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Data {
    /// Null when not found.
    #[serde(default)]
    pub repository: Option<RepositoryNode>,
}

/// `rateLimit`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RateLimitNode {
    /// Points this query cost.
    pub cost: u64,
    /// Points left in the window.
    pub remaining: u64,
    /// When the window resets.
    pub reset_at: Option<Timestamp>,
}

/// `repository`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepositoryNode {
    /// False when the repository has discussions turned off.
    pub has_discussions_enabled: bool,
    /// The page asked for.
    pub discussions: Option<Connection<DiscussionNode>>,
    /// The open ones (first page only).
    #[serde(default)]
    pub open: Option<Connection<OpenNode>>,
}

/// A connection's page.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", bound = "T: Deserialize<'de>")]
pub struct Connection<T> {
    /// Paging, when asked.
    #[serde(default)]
    pub page_info: Option<PageInfo>,
    /// The entries (a null entry is skipped).
    #[serde(default)]
    pub nodes: Vec<Option<T>>,
}

/// `pageInfo`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    /// Another page follows.
    pub has_next_page: bool,
    /// The cursor of this page's last entry.
    pub end_cursor: Option<String>,
}

/// `{ login }`; null for a deleted account.
#[derive(Debug, Deserialize)]
pub struct Actor {
    /// The handle.
    pub login: String,
}

/// `{ name }`.
#[derive(Debug, Deserialize)]
pub struct Named {
    /// The name.
    pub name: String,
}

/// `{ totalCount }`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Count {
    /// The count.
    pub total_count: u64,
}

/// A discussion of the page.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscussionNode {
    number: u64,
    title: String,
    #[serde(default)]
    body: String,
    url: String,
    created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    #[serde(default)]
    closed: bool,
    #[serde(default)]
    closed_at: Option<Timestamp>,
    #[serde(default)]
    is_answered: Option<bool>,
    #[serde(default)]
    upvote_count: u64,
    author: Option<Actor>,
    category: Option<Named>,
    #[serde(default)]
    labels: Option<Connection<Named>>,
    comments: Option<Count>,
}

/// An open discussion for the news.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenNode {
    number: u64,
    title: String,
    url: String,
    created_at: Timestamp,
    updated_at: Timestamp,
    #[serde(default)]
    is_answered: Option<bool>,
    author: Option<Actor>,
    category: Option<Named>,
    comments: Option<Count>,
}

/// One page of the `Discussions` query's answer, read.
#[derive(Debug)]
pub struct DiscussionsPage {
    /// False when the repository has discussions turned off.
    pub enabled: bool,
    /// The page's discussions, newest update first, as snapshots.
    pub items: Vec<ItemSnapshot>,
    /// The open ones for the news (asked on the first page only).
    pub open: Option<Vec<CommunityDiscussion>>,
    /// The cursor of the next page, when there is one.
    pub next: Option<String>,
}

/// Reads one answer to the `Discussions` query (a POST's `body`, from
/// `url`) for `repo`: `None` when GraphQL does not find the repository
/// (a `NOT_FOUND` error, or a null repository), an error naming GraphQL's
/// messages when the answer has errors and no repository, or one that is
/// no such JSON. Pure: the discussions step pages with it, and the fuzz
/// target `graphql_answers` feeds it.
pub fn parse_discussions(
    url: &str,
    body: &[u8],
    repo: &RepoName,
) -> Result<Option<DiscussionsPage>, Error> {
    let answer: Answer = decode(HOST, url, body)?;
    let kind = |k: &str| answer.errors.iter().any(|e| e.kind.as_deref() == Some(k));
    if kind("NOT_FOUND") {
        return Ok(None);
    }
    let repository = answer.data.and_then(|d| d.repository);
    let Some(repository) = repository else {
        if answer.errors.is_empty() {
            return Ok(None);
        }
        let messages: Vec<&str> = answer.errors.iter().map(|e| e.message.as_str()).collect();
        return Err(Error::Http {
            host: HOST,
            url: url.to_string(),
            status: 200,
            message: format!(
                "GraphQL errors asking the discussions of {repo}: {}",
                messages.join("; ")
            ),
        });
    };
    let (items, next) = match repository.discussions {
        None => (Vec::new(), None),
        Some(page) => {
            let next = page
                .page_info
                .filter(|p| p.has_next_page)
                .and_then(|p| p.end_cursor);
            let items = page
                .nodes
                .into_iter()
                .flatten()
                .map(|n| n.into_snapshot(repo))
                .collect();
            (items, next)
        }
    };
    Ok(Some(DiscussionsPage {
        enabled: repository.has_discussions_enabled,
        items,
        open: repository.open.map(|o| {
            o.nodes
                .into_iter()
                .flatten()
                .map(|n| n.into_news())
                .collect()
        }),
        next,
    }))
}

/// GitHub shows a deleted account as `ghost`.
const GHOST: &str = "ghost";

/// Whole seconds, as every snapshot keeps time.
fn seconds(t: Timestamp) -> Timestamp {
    Timestamp::from_second(t.as_second()).unwrap_or(t)
}

impl DiscussionNode {
    /// The discussion as a snapshot of `repo`.
    pub fn into_snapshot(self, repo: &RepoName) -> ItemSnapshot {
        ItemSnapshot {
            repo: repo.clone(),
            key: self.number.to_string(),
            title: self.title,
            text: self.body,
            url: self.url,
            created_at: seconds(self.created_at),
            updated_at: seconds(self.updated_at),
            metrics: Metrics {
                reactions: self.upvote_count,
                comments: self.comments.map_or(0, |c| c.total_count),
            },
            labels: self
                .labels
                .map(|l| l.nodes.into_iter().flatten().map(|n| n.name).collect())
                .unwrap_or_default(),
            author: self.author.map_or_else(|| GHOST.to_string(), |a| a.login),
            state: if self.closed {
                ItemState::Closed
            } else {
                ItemState::Open
            },
            closed_at: self.closed_at.filter(|_| self.closed).map(seconds),
            assignees: vec![],
            detail: ItemDetail::Discussion {
                category: self.category.map(|c| c.name).unwrap_or_default(),
                answered: self.is_answered.unwrap_or(false),
            },
        }
    }
}

impl OpenNode {
    /// The discussion as the news lists it.
    pub fn into_news(self) -> CommunityDiscussion {
        CommunityDiscussion {
            number: self.number,
            title: self.title,
            url: self.url,
            category: self.category.map(|c| c.name).unwrap_or_default(),
            author: self.author.map_or_else(|| GHOST.to_string(), |a| a.login),
            created_at: seconds(self.created_at),
            updated_at: seconds(self.updated_at),
            answered: self.is_answered.unwrap_or(false),
            comments: self.comments.map_or(0, |c| c.total_count),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_of_github_and_enterprise() {
        assert_eq!(
            endpoint("https://api.github.com"),
            "https://api.github.com/graphql"
        );
        assert_eq!(
            endpoint("https://ghe.example/api/v3/"),
            "https://ghe.example/api/graphql"
        );
        assert_eq!(
            endpoint("http://127.0.0.1:9/"),
            "http://127.0.0.1:9/graphql"
        );
    }

    #[test]
    fn a_node_reads_as_a_discussion_snapshot() {
        let answer: Answer = serde_json::from_value(json!({
            "data": {
                "rateLimit": { "cost": 1, "remaining": 4999, "resetAt": "2026-01-01T01:00:00Z" },
                "repository": {
                    "hasDiscussionsEnabled": true,
                    "discussions": {
                        "pageInfo": { "hasNextPage": false, "endCursor": null },
                        "nodes": [null, {
                            "number": 7, "title": "RFC", "body": "b",
                            "url": "https://github.com/o/n/discussions/7",
                            "createdAt": "2026-01-01T00:00:00.5Z",
                            "updatedAt": "2026-01-01T00:10:00Z",
                            "closed": true, "closedAt": "2026-01-01T00:10:00Z",
                            "isAnswered": null, "upvoteCount": 3, "author": null,
                            "category": { "name": "Ideas" },
                            "labels": { "nodes": [{ "name": "rfc" }] },
                            "comments": { "totalCount": 2 }
                        }]
                    }
                }
            }
        }))
        .unwrap();
        let repo = RepoName::parse("o/n").unwrap();
        let node = answer
            .data
            .unwrap()
            .repository
            .unwrap()
            .discussions
            .unwrap()
            .nodes
            .into_iter()
            .flatten()
            .next()
            .unwrap();
        let s = node.into_snapshot(&repo);
        assert_eq!(s.key, "7");
        assert_eq!(s.author, "ghost");
        assert_eq!(s.state, ItemState::Closed);
        assert_eq!(s.created_at.as_second() % 60, 0);
        assert_eq!((s.metrics.reactions, s.metrics.comments), (3, 2));
        assert_eq!(s.labels, ["rfc"]);
        assert_eq!(
            s.detail,
            ItemDetail::Discussion {
                category: "Ideas".into(),
                answered: false
            }
        );
    }
}
