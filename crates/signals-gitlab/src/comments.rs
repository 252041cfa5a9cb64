//! Notes on GitLab. GitLab has no project-wide list of notes,
//! so a run reads the notes of the items that changed since `since`:
//! for at most [`MAX_NOTED_ITEMS`] of them, the most recently updated
//! first, one request each for the first page of its notes, oldest first
//! (the first 100 notes, which hold any first response). A run that saw
//! no change asks nothing. System notes ("changed the milestone") are no
//! comments. An item changed beyond the bound has its notes read with its
//! next change.

use jiff::Timestamp;
use serde::Deserialize;
use signals_core::model::{Comment, CommentKind, ItemKind, is_bot_login};
use signals_http::de::{opt_timestamp, secs, text, timestamp};
use signals_http::{Client, Error, ItemStamp, ResponseCache, decode};

use crate::{HOST, PER_PAGE};

/// The most items whose notes one run reads.
pub const MAX_NOTED_ITEMS: usize = 100;

#[derive(Debug, Deserialize)]
struct Author {
    #[serde(default, deserialize_with = "text")]
    username: String,
    #[serde(default)]
    bot: bool,
}

/// One note of an issue or merge request.
#[derive(Debug, Deserialize)]
struct Note {
    id: u64,
    #[serde(default, deserialize_with = "text")]
    body: String,
    #[serde(default)]
    author: Option<Author>,
    #[serde(deserialize_with = "timestamp")]
    created_at: Timestamp,
    #[serde(default, deserialize_with = "opt_timestamp")]
    updated_at: Option<Timestamp>,
    #[serde(default)]
    system: bool,
}

/// The notes of the changed items; see the module documentation.
pub(crate) fn comments(
    http: &mut Client,
    root: &str,
    since: Timestamp,
    items: &[ItemStamp],
    sink: &mut dyn signals_http::ReplySink,
    cache: &mut dyn ResponseCache,
) -> Result<(), Error> {
    let mut changed: Vec<&ItemStamp> = items
        .iter()
        .filter(|i| i.updated_at >= since)
        .filter(|i| matches!(i.kind, ItemKind::Issue | ItemKind::PullRequest))
        .collect();
    changed.sort_by_key(|i| std::cmp::Reverse(i.updated_at));
    for item in changed.into_iter().take(MAX_NOTED_ITEMS) {
        let list = match item.kind {
            ItemKind::PullRequest => "merge_requests",
            _ => "issues",
        };
        let url = format!(
            "{root}/{list}/{}/notes?sort=asc&order_by=created_at&per_page={PER_PAGE}",
            item.key
        );
        let fetched = http.get(&url, cache)?;
        sink.comments(parse_notes(
            &fetched.url,
            &fetched.body,
            item.kind,
            &item.key,
        )?);
    }
    Ok(())
}

/// One page of an item's notes (fetched from `url`), without system
/// notes, as comments on the item `key` of kind `item_kind`. Pure: the
/// fuzz target `comment_lists` feeds it.
pub fn parse_notes(
    url: &str,
    body: &[u8],
    item_kind: ItemKind,
    key: &str,
) -> Result<Vec<Comment>, Error> {
    let notes: Vec<Note> = decode(HOST, url, body)?;
    Ok(notes
        .into_iter()
        .filter(|n| !n.system)
        .map(|n| n.into_comment(item_kind, key))
        .collect())
}

impl Note {
    fn into_comment(self, item_kind: ItemKind, key: &str) -> Comment {
        let (author, bot) = match self.author {
            Some(a) => {
                let bot = a.bot || is_bot_login(&a.username);
                (a.username, bot)
            }
            None => (String::new(), false),
        };
        let created_at = secs(self.created_at);
        Comment {
            kind: CommentKind::Comment,
            host_id: self.id.to_string(),
            item_kind,
            item_key: key.to_string(),
            author,
            association: None,
            bot,
            state: None,
            created_at,
            updated_at: self.updated_at.map(secs).unwrap_or(created_at),
            body: self.body,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_decode_without_system_notes() {
        let notes: Vec<Note> = serde_json::from_slice(
            br#"[{"id":1,"body":"hi","author":{"username":"m"},"created_at":"2024-01-01T00:00:00Z",
                "updated_at":"2024-01-02T00:00:00Z","system":false,"noteable_type":"Issue"},
               {"id":2,"body":null,"author":{"username":"x","bot":true},
                "created_at":"2024-01-01T00:00:00Z","system":true}]"#,
        )
        .unwrap();
        let c: Vec<Comment> = notes
            .into_iter()
            .map(|n| n.into_comment(ItemKind::Issue, "3"))
            .collect();
        assert_eq!(c[0].author, "m");
        assert!(c[1].bot);
        assert_eq!(c[1].body, "");
    }
}
