//! Comments and reviews in the store: the role
//! ([`CommentStore`]) and the row both backends share ([`CommentRow`]).
//!
//! A comment is keyed by its repository, kind and host id, and written as
//! an upsert: the last reading of it wins, so reading the same window
//! twice (a run that failed after its comments were stored, and the run
//! that covers the window again) stores it once. Its body is a text,
//! stored once by SHA-256 like every text. Comments are written before
//! their run's commit, in a statement of their own (docs/decisions.md,
//! "Comments and first responses").

use std::path::Path;

use signals_core::first_response::Reply;
use signals_core::model::{Comment, CommentKind};

use crate::codec::stamp_parse;
use crate::{RepoKey, Result, StoreError};

/// A comment's kind as stored: 0 comment, 1 review, 2 review comment.
pub fn kind_code(kind: CommentKind) -> i16 {
    match kind {
        CommentKind::Comment => 0,
        CommentKind::Review => 1,
        CommentKind::ReviewComment => 2,
    }
}

/// Reads back a [`kind_code`].
pub fn kind_from(path: &Path, code: i64) -> Result<CommentKind> {
    match code {
        0 => Ok(CommentKind::Comment),
        1 => Ok(CommentKind::Review),
        2 => Ok(CommentKind::ReviewComment),
        _ => Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            what: format!("comments.kind {code} is not 0, 1 or 2"),
        }),
    }
}

/// A reply as both stores read it: (item id, kind, author, bot, state,
/// created seconds).
pub type CommentRow = (String, i64, String, bool, Option<String>, i64);

/// Decodes [`CommentRow`]s into replies by item id.
pub fn replies_from(path: &Path, rows: Vec<CommentRow>) -> Result<Vec<(String, Reply)>> {
    rows.into_iter()
        .map(|(item, kind, author, bot, state, created)| {
            Ok((
                item,
                Reply {
                    kind: kind_from(path, kind)?,
                    author,
                    bot,
                    state,
                    at: stamp_parse(path, "comments.created_s", created, 0)?,
                },
            ))
        })
        .collect()
}

/// A stored comment's text, as the references of its item read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentText {
    /// Its item's signal id.
    pub item_id: String,
    /// What it is.
    pub kind: CommentKind,
    /// Its id on the host.
    pub host_id: String,
    /// Its body.
    pub body: String,
}

/// Decodes rows of (item id, kind code, host id, body) into texts.
pub fn texts_from(
    path: &Path,
    rows: Vec<(String, i64, String, String)>,
) -> Result<Vec<CommentText>> {
    rows.into_iter()
        .map(|(item_id, kind, host_id, body)| {
            Ok(CommentText {
                item_id,
                kind: kind_from(path, kind)?,
                host_id,
                body,
            })
        })
        .collect()
}

/// The comments and reviews of a store.
pub trait CommentStore {
    /// Stores `comments` of `repo`, each with its item's signal id, as an
    /// upsert by (kind, host id); the body is stored once as a text. All or
    /// nothing.
    fn store_comments(&self, repo: RepoKey, comments: &[(String, Comment)]) -> Result<()>;

    /// The replies of every item of `repo` (without bodies), by item id in
    /// id order, then by time: what first responses are computed from.
    fn replies(&self, repo: RepoKey) -> Result<Vec<(String, Reply)>>;

    /// The replies of `repo` stored under each of `items` (signal ids), in
    /// the order and shape of [`CommentStore::replies`]: what a reader
    /// going through the items a batch at a time computes their first
    /// responses from, without holding every reply of the repository.
    fn replies_of(&self, repo: RepoKey, items: &[String]) -> Result<Vec<(String, Reply)>>;

    /// The body of every comment of `repo` with its item's signal id, by
    /// item id then time: what reads texts (references) match.
    fn comment_texts(&self, repo: RepoKey) -> Result<Vec<(String, String)>>;

    /// The comments of `repo` stored under each of `items` (signal ids),
    /// by item id then time: what a run reads of an item it sees for the
    /// first time, whose comments may have come before it did.
    fn comments_of(&self, repo: RepoKey, items: &[String]) -> Result<Vec<CommentText>>;
}
