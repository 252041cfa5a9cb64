//! Comments and reviews on PostgreSQL (migration 0010): one
//! transaction per batch, its new texts inserted in one statement in hash
//! order (so concurrent writers wait on them in one order and cannot
//! deadlock), then an upsert of every comment in one statement.

use std::collections::{BTreeMap, HashMap};

use signals_core::first_response::Reply;
use signals_core::model::Comment;
use signals_store::comments::{CommentRow, CommentText, kind_code, replies_from, texts_from};
use signals_store::{CommentStore, Parts, RepoKey, Result};

use crate::{PgStore, TEXTS_LOCK};

impl CommentStore for PgStore {
    fn store_comments(&self, repo: RepoKey, comments: &[(String, Comment)]) -> Result<()> {
        if comments.is_empty() {
            return Ok(());
        }
        let texts: BTreeMap<[u8; 32], &str> = comments
            .iter()
            .map(|(_, c)| (Parts::hash(&c.body), c.body.as_str()))
            .collect();
        let err = self.err("storing comments");
        self.retrying(|client, _| {
            let mut tx = client.transaction().map_err(&err)?;
            // Shared with run commits, exclusive to a purge.
            tx.execute("SELECT pg_advisory_xact_lock_shared($1)", &[&TEXTS_LOCK])
                .map_err(&err)?;
            let hashes: Vec<&[u8]> = texts.keys().map(|h| h.as_slice()).collect();
            let bodies: Vec<&str> = texts.values().copied().collect();
            tx.execute(
                "INSERT INTO texts (hash, text)
                 SELECT u.hash, u.text FROM unnest($1::bytea[], $2::text[]) AS u(hash, text)
                 ORDER BY u.hash
                 ON CONFLICT (hash) DO NOTHING",
                &[&hashes, &bodies],
            )
            .map_err(&err)?;
            let ids: HashMap<Vec<u8>, i64> = tx
                .query(
                    "SELECT hash, id FROM texts WHERE hash = ANY($1)",
                    &[&hashes],
                )
                .map_err(&err)?
                .iter()
                .map(|r| (r.get::<_, Vec<u8>>(0), r.get(1)))
                .collect();
            let mut cols: Columns = Columns::default();
            for (item, c) in comments {
                let Some(&body) = ids.get(Parts::hash(&c.body).as_slice()) else {
                    return Err(self.corrupt(format!("the text of comment {} vanished", c.key())));
                };
                cols.push(item, c, body);
            }
            tx.execute(
                "INSERT INTO comments (repo, kind, host_id, item, author, association, bot,
                     state, created_s, updated_s, body)
                 SELECT $1, u.* FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[],
                     $6::text[], $7::bigint[], $8::text[], $9::bigint[], $10::bigint[], $11::bigint[])
                     AS u(kind, host_id, item, author, association, bot, state, created_s,
                          updated_s, body)
                 ON CONFLICT (repo, kind, host_id) DO UPDATE SET
                     item = excluded.item, author = excluded.author,
                     association = excluded.association, bot = excluded.bot,
                     state = excluded.state, created_s = excluded.created_s,
                     updated_s = excluded.updated_s, body = excluded.body",
                &[
                    &repo.raw(),
                    &cols.kind,
                    &cols.host_id,
                    &cols.item,
                    &cols.author,
                    &cols.association,
                    &cols.bot,
                    &cols.state,
                    &cols.created,
                    &cols.updated,
                    &cols.body,
                ],
            )
            .map_err(&err)?;
            // The word index reads these items again, in one
            // order, so concurrent writers cannot deadlock on the marks.
            let mut marked: Vec<&str> = comments.iter().map(|(item, _)| item.as_str()).collect();
            marked.sort_unstable();
            marked.dedup();
            tx.execute(
                "INSERT INTO search_dirty (repo, item) SELECT $1, u.item
                 FROM unnest($2::text[]) AS u(item) ON CONFLICT DO NOTHING",
                &[&repo.raw(), &marked],
            )
            .map_err(&err)?;
            tx.commit().map_err(&err)
        })
    }

    fn replies(&self, repo: RepoKey) -> Result<Vec<(String, Reply)>> {
        let rows: Vec<CommentRow> = self
            .query(
                "reading the replies",
                "SELECT item, kind, author, bot = 1, state, created_s FROM comments
                 WHERE repo = $1 ORDER BY item, created_s, kind, host_id",
                &[&repo.raw()],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
            .collect();
        replies_from(&self.path(), rows)
    }

    fn replies_of(&self, repo: RepoKey, items: &[String]) -> Result<Vec<(String, Reply)>> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<CommentRow> = self
            .query(
                "reading the replies of items",
                "SELECT item, kind, author, bot = 1, state, created_s FROM comments
                 WHERE repo = $1 AND item = ANY($2)
                 ORDER BY item, created_s, kind, host_id",
                &[&repo.raw(), &items],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
            .collect();
        replies_from(&self.path(), rows)
    }

    fn comment_texts(&self, repo: RepoKey) -> Result<Vec<(String, String)>> {
        Ok(self
            .query(
                "reading the comments' texts",
                "SELECT c.item, t.text FROM comments c JOIN texts t ON t.id = c.body
                 WHERE c.repo = $1 ORDER BY c.item, c.created_s, c.kind, c.host_id",
                &[&repo.raw()],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
    }

    fn comments_of(&self, repo: RepoKey, items: &[String]) -> Result<Vec<CommentText>> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        let rows = self
            .query(
                "reading the comments of items",
                "SELECT c.item, c.kind, c.host_id, t.text FROM comments c
                 JOIN texts t ON t.id = c.body
                 WHERE c.repo = $1 AND c.item = ANY($2)
                 ORDER BY c.item, c.created_s, c.kind, c.host_id",
                &[&repo.raw(), &items],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect();
        texts_from(&self.path(), rows)
    }
}

/// The comments of one upsert as columns (one array each), so a batch is
/// one statement. A batch repeating a key keeps its last reading.
#[derive(Default)]
struct Columns {
    kind: Vec<i64>,
    host_id: Vec<String>,
    item: Vec<String>,
    author: Vec<String>,
    association: Vec<Option<String>>,
    bot: Vec<i64>,
    state: Vec<Option<String>>,
    created: Vec<i64>,
    updated: Vec<i64>,
    body: Vec<i64>,
    at: HashMap<(i64, String), usize>,
}

impl Columns {
    fn push(&mut self, item: &str, c: &Comment, body: i64) {
        let kind = i64::from(kind_code(c.kind));
        if let Some(&i) = self.at.get(&(kind, c.host_id.clone())) {
            self.item[i] = item.to_string();
            self.author[i] = c.author.clone();
            self.association[i] = c.association.clone();
            self.bot[i] = i64::from(c.bot);
            self.state[i] = c.state.clone();
            self.created[i] = c.created_at.as_second();
            self.updated[i] = c.updated_at.as_second();
            self.body[i] = body;
            return;
        }
        self.at.insert((kind, c.host_id.clone()), self.kind.len());
        self.kind.push(kind);
        self.host_id.push(c.host_id.clone());
        self.item.push(item.to_string());
        self.author.push(c.author.clone());
        self.association.push(c.association.clone());
        self.bot.push(i64::from(c.bot));
        self.state.push(c.state.clone());
        self.created.push(c.created_at.as_second());
        self.updated.push(c.updated_at.as_second());
        self.body.push(body);
    }
}
