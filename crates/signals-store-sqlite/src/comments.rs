//! Comments and reviews on SQLite (migration 0011): an upsert
//! per comment in one `BEGIN IMMEDIATE` transaction, its body a text
//! stored once, and the reads by repository and by items.

use rusqlite::{Transaction, TransactionBehavior, params};
use signals_core::first_response::Reply;
use signals_core::model::Comment;
use signals_store::comments::{CommentRow, CommentText, kind_code, replies_from, texts_from};
use signals_store::{CommentStore, RepoKey, Result};

use crate::Store;
use crate::error::DbContext;
use crate::snapshots::text_id;

impl CommentStore for Store {
    fn store_comments(&self, repo: RepoKey, comments: &[(String, Comment)]) -> Result<()> {
        if comments.is_empty() {
            return Ok(());
        }
        let doing = "storing comments";
        let path = self.path.clone();
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .doing(&path, doing)?;
        for (item, c) in comments {
            let body = text_id(&tx, &path, &c.body)?;
            tx.prepare_cached(
                "INSERT OR REPLACE INTO comments (repo, kind, host_id, item, author, association,
                     bot, state, created_s, updated_s, body)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )
            .doing(&path, doing)?
            .execute(params![
                repo.raw(),
                kind_code(c.kind),
                c.host_id,
                item,
                c.author,
                c.association,
                c.bot,
                c.state,
                c.created_at.as_second(),
                c.updated_at.as_second(),
                body,
            ])
            .doing(&path, doing)?;
            // The word index reads the item again.
            tx.prepare_cached("INSERT OR IGNORE INTO search_dirty (repo, item) VALUES (?1, ?2)")
                .doing(&path, doing)?
                .execute(params![repo.raw(), item])
                .doing(&path, doing)?;
        }
        tx.commit().doing(&path, doing)
    }

    fn replies(&self, repo: RepoKey) -> Result<Vec<(String, Reply)>> {
        let doing = "reading the replies";
        let rows = self
            .conn
            .prepare_cached(
                "SELECT item, kind, author, bot, state, created_s FROM comments
                 WHERE repo = ?1 ORDER BY item, created_s, kind, host_id",
            )
            .doing(&self.path, doing)?
            .query_map(params![repo.raw()], comment_row)
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<CommentRow>>>()
            .doing(&self.path, doing)?;
        replies_from(&self.path, rows)
    }

    fn replies_of(&self, repo: RepoKey, items: &[String]) -> Result<Vec<(String, Reply)>> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        let doing = "reading the replies of items";
        let ids = crate::read::ids_json(&self.path, items)?;
        let rows = self
            .conn
            .prepare_cached(
                "SELECT item, kind, author, bot, state, created_s FROM comments
                 WHERE repo = ?1 AND item IN (SELECT value FROM json_each(?2))
                 ORDER BY item, created_s, kind, host_id",
            )
            .doing(&self.path, doing)?
            .query_map(params![repo.raw(), ids], comment_row)
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<CommentRow>>>()
            .doing(&self.path, doing)?;
        replies_from(&self.path, rows)
    }

    fn comment_texts(&self, repo: RepoKey) -> Result<Vec<(String, String)>> {
        let doing = "reading the comments' texts";
        self.conn
            .prepare_cached(
                "SELECT c.item, t.text FROM comments c JOIN texts t ON t.id = c.body
                 WHERE c.repo = ?1 ORDER BY c.item, c.created_s, c.kind, c.host_id",
            )
            .doing(&self.path, doing)?
            .query_map(params![repo.raw()], |r| Ok((r.get(0)?, r.get(1)?)))
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .doing(&self.path, doing)
    }

    fn comments_of(&self, repo: RepoKey, items: &[String]) -> Result<Vec<CommentText>> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        let doing = "reading the comments of items";
        let ids = crate::read::ids_json(&self.path, items)?;
        let rows = self
            .conn
            .prepare_cached(
                "SELECT c.item, c.kind, c.host_id, t.text FROM comments c
                 JOIN texts t ON t.id = c.body
                 WHERE c.repo = ?1 AND c.item IN (SELECT value FROM json_each(?2))
                 ORDER BY c.item, c.created_s, c.kind, c.host_id",
            )
            .doing(&self.path, doing)?
            .query_map(params![repo.raw(), ids], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .doing(&self.path, doing)?;
        texts_from(&self.path, rows)
    }
}

/// A reply's row (item, kind, author, bot, state, creation second), as
/// `replies` and `replies_of` select it.
fn comment_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<CommentRow> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
    ))
}
