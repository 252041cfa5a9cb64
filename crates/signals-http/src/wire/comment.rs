//! A comment as GitHub's REST v3 sends it (`issues/comments`,
//! `pulls/comments`), which Forgejo's and Gitea's API v1 copies, and the
//! paging of such a repository-wide list.
//!
//! The item a comment is on is read from its `html_url`
//! (`.../issues/7#...`, `.../pull/7#...`, Forgejo's `.../pulls/7#...`):
//! GitHub's `issue_url` names pull requests as issues. A review comment
//! names its pull request in `pull_request_url`.

use jiff::Timestamp;
use serde::Deserialize;
use signals_core::model::{Comment, CommentKind, ItemKind, is_bot_login};

use crate::de::{opt_timestamp, secs, text, timestamp};
use crate::{Client, Error, ResponseCache, decode};

/// The author of a comment.
#[derive(Debug, Deserialize)]
struct Author {
    #[serde(default, deserialize_with = "text")]
    login: String,
    /// GitHub's `User`, `Bot`, `Organization`.
    #[serde(default, rename = "type", deserialize_with = "text")]
    kind: String,
}

/// One entry of a comments list.
#[derive(Debug, Deserialize)]
pub struct V3Comment {
    id: u64,
    #[serde(default, deserialize_with = "text")]
    html_url: String,
    #[serde(default, deserialize_with = "text")]
    issue_url: String,
    #[serde(default, deserialize_with = "text")]
    pull_request_url: String,
    #[serde(default)]
    user: Option<Author>,
    #[serde(default)]
    author_association: Option<String>,
    #[serde(deserialize_with = "timestamp")]
    created_at: Timestamp,
    #[serde(default, deserialize_with = "opt_timestamp")]
    updated_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "text")]
    body: String,
}

impl V3Comment {
    /// The domain comment of kind `kind`, or `None` when the entry names
    /// no item this crate can tell.
    pub fn into_comment(self, kind: CommentKind) -> Option<Comment> {
        let (item_kind, item_key) = match kind {
            CommentKind::ReviewComment => {
                (ItemKind::PullRequest, last_number(&self.pull_request_url)?)
            }
            _ => item_of(&self.html_url)
                .or_else(|| Some((ItemKind::Issue, last_number(&self.issue_url)?)))?,
        };
        let (author, bot) = match self.user {
            Some(a) => {
                let bot = a.kind == "Bot" || is_bot_login(&a.login);
                (a.login, bot)
            }
            None => (String::new(), false),
        };
        let created_at = secs(self.created_at);
        Some(Comment {
            kind,
            host_id: self.id.to_string(),
            item_kind,
            item_key,
            author,
            association: self.author_association.filter(|a| !a.is_empty()),
            bot,
            state: None,
            created_at,
            updated_at: self.updated_at.map(secs).unwrap_or(created_at),
            body: self.body,
        })
    }
}

/// The item a web URL of a comment names: `/issues/N`, `/pull/N`,
/// `/pulls/N`, `/merge_requests/N`.
pub fn item_of(url: &str) -> Option<(ItemKind, String)> {
    let path = url.split(['#', '?']).next()?;
    let mut parts = path.rsplit('/');
    let number = parts.next()?;
    let kind = match parts.next()? {
        "issues" => ItemKind::Issue,
        "pull" | "pulls" | "merge_requests" => ItemKind::PullRequest,
        _ => return None,
    };
    (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
        .then(|| (kind, number.to_string()))
}

/// The number at the end of an API URL (`.../issues/7`, `.../pulls/7`).
fn last_number(url: &str) -> Option<String> {
    let n = url.trim_end_matches('/').rsplit('/').next()?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then(|| n.to_string())
}

/// One page of a repository-wide comments list, read.
#[derive(Debug, Clone, PartialEq)]
pub struct CommentPage {
    /// Its comments that name an item.
    pub comments: Vec<Comment>,
    /// How many entries it held, those skipped included: the pager stops
    /// on a short page.
    pub entries: usize,
}

/// One page of a repository-wide comments list (GitHub's and Forgejo's
/// `issues/comments`, GitHub's `pulls/comments`), fetched from `url` on
/// `host`, as comments of kind `kind` (entries naming no item are
/// skipped), with the number of entries the page held. Pure: `read_list`
/// pages with it, and the fuzz target `comment_lists` feeds it.
pub fn parse_list(
    host: &'static str,
    url: &str,
    body: &[u8],
    kind: CommentKind,
) -> Result<CommentPage, Error> {
    let page = decode::<Vec<V3Comment>>(host, url, body)?;
    let entries = page.len();
    Ok(CommentPage {
        comments: page
            .into_iter()
            .filter_map(|c| c.into_comment(kind))
            .collect(),
        entries,
    })
}

/// Every page of a repository-wide comments list from `first`, as
/// comments of kind `kind` (entries naming no item are skipped), those
/// written or edited at or after `since` handed to `sink` a page at a
/// time.
pub fn read_list(
    http: &mut Client,
    list: CommentList<'_>,
    sink: &mut dyn FnMut(Vec<Comment>),
    cache: &mut dyn ResponseCache,
) -> Result<(), Error> {
    let host = http.host_name();
    http.get_pages(list.first, cache, list.per_page, None, |fetched| {
        let CommentPage {
            mut comments,
            entries,
        } = parse_list(host, &fetched.url, &fetched.body, list.kind)?;
        comments.retain(|c| c.updated_at >= list.since);
        sink(comments);
        Ok(entries)
    })
}

/// A repository-wide comments list, as [`read_list`] reads it.
#[derive(Debug, Clone, Copy)]
pub struct CommentList<'a> {
    /// The first page's URL.
    pub first: &'a str,
    /// The kind of its comments.
    pub kind: CommentKind,
    /// The entries a full page holds.
    pub per_page: usize,
    /// The oldest `updated_at` kept (the list itself may start earlier,
    /// at its UTC day).
    pub since: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_read_from_web_urls() {
        assert_eq!(
            item_of("https://github.com/o/n/pull/7#issuecomment-1"),
            Some((ItemKind::PullRequest, "7".into()))
        );
        assert_eq!(
            item_of("https://codeberg.org/o/n/issues/12#issuecomment-3"),
            Some((ItemKind::Issue, "12".into()))
        );
        assert_eq!(item_of("https://github.com/o/n/commit/abc"), None);
    }

    #[test]
    fn comments_decode_with_bots_and_review_comments() {
        let json = br#"[{"id": 5, "html_url": "https://h/o/n/issues/3#c5",
            "issue_url": "https://api/repos/o/n/issues/3", "user": {"login": "ci", "type": "Bot"},
            "author_association": "NONE", "created_at": "2024-01-01T00:00:00Z",
            "updated_at": null, "body": null},
            {"id": 6, "pull_request_url": "https://api/repos/o/n/pulls/4", "user": null,
            "created_at": "2024-01-02T00:00:00Z", "body": "nit"}]"#;
        let list: Vec<V3Comment> = serde_json::from_slice(json).unwrap();
        let mut it = list.into_iter();
        let c = it
            .next()
            .unwrap()
            .into_comment(CommentKind::Comment)
            .unwrap();
        assert_eq!(
            (c.item_kind, c.item_key.as_str(), c.bot),
            (ItemKind::Issue, "3", true)
        );
        assert_eq!(c.updated_at, c.created_at);
        let r = it
            .next()
            .unwrap()
            .into_comment(CommentKind::ReviewComment)
            .unwrap();
        assert_eq!(
            (r.item_kind, r.item_key.as_str()),
            (ItemKind::PullRequest, "4")
        );
        assert_eq!(r.author, "");
    }
}
