//! How an item snapshot is laid out in both stores.
//!
//! A snapshot is split in three: the body (the item's text, often large,
//! rarely changed), the head (repository, title, URL, author, creation time:
//! small, rarely changed) and the rest (updated time, state, counts, labels,
//! assignees, kind-specific detail: small, often changed). Body and head are
//! stored once per distinct value in `texts`, addressed by their SHA-256;
//! the rest are columns of the snapshot row. So a run in which an item only
//! gained a reaction adds one row of about a hundred bytes, whatever the
//! size of the item's text.
//!
//! [`Parts::split`] and [`Parts::join`] are exact inverses: a snapshot read
//! back equals the one written, field for field.

use std::path::Path;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use signals_core::{ItemDetail, ItemSnapshot, ItemState, Metrics, RepoName};

use crate::codec::{from_json, int, stamp, stamp_parse, to_json, uint};
use crate::{Result, StoreError};

/// The fields of a snapshot that rarely change, stored as one JSON text.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Head {
    repo: RepoName,
    title: String,
    url: String,
    author: String,
    created_at: Timestamp,
}

/// A snapshot as columns: what a backend's `SNAPSHOT_COLUMNS` reads and the insert
/// writes, in both backends. Two snapshots are the same exactly when their
/// parts are equal. The texts (head, body, and since SQLite migration `0008_compact`
/// and PostgreSQL `0007_compact` labels, assignees and detail) are stored once each
/// in `texts` and referenced; timestamps are [`crate::codec::stamp`]s.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    pub head: String,
    pub body: String,
    /// Seconds and nanoseconds.
    pub updated_at: (i64, i64),
    /// 0 open, 1 closed.
    pub state: i64,
    pub reactions: i64,
    pub comments: i64,
    /// JSON array of strings.
    pub labels: String,
    /// JSON array of strings.
    pub assignees: String,
    /// JSON `ItemDetail`.
    pub detail: String,
    /// `None` where the host gave none (migration 0003).
    pub closed_at: Option<(i64, i64)>,
}

/// A snapshot's row joined with its texts, as each backend selects it
/// (its `SNAPSHOT_COLUMNS`): head, body, updated (seconds, nanoseconds),
/// state, reactions, comments, labels, assignees, detail, closed (seconds,
/// nanoseconds); decoded outside the row callback.
pub type RawParts = (
    String,
    String,
    i64,
    i64,
    i64,
    i64,
    i64,
    String,
    String,
    String,
    Option<i64>,
    Option<i64>,
);

impl Parts {
    /// The parts from a snapshot's row ([`RawParts`]); a close time with
    /// one of its two columns missing is corrupt.
    pub fn from_raw(path: &Path, raw: RawParts) -> Result<Parts> {
        let (
            head,
            body,
            updated_s,
            updated_ns,
            state,
            reactions,
            comments,
            labels,
            assignees,
            detail,
            closed_s,
            closed_ns,
        ) = raw;
        let closed_at = match (closed_s, closed_ns) {
            (Some(s), Some(ns)) => Some((s, ns)),
            (None, None) => None,
            _ => {
                return Err(StoreError::Corrupt {
                    path: path.to_path_buf(),
                    what: "snapshots.closed_s and closed_ns are not both set or both empty".into(),
                });
            }
        };
        Ok(Parts {
            head,
            body,
            updated_at: (updated_s, updated_ns),
            state,
            reactions,
            comments,
            labels,
            assignees,
            detail,
            closed_at,
        })
    }

    /// The SHA-256 of a text, its address in `texts`.
    pub fn hash(text: &str) -> [u8; 32] {
        Sha256::digest(text.as_bytes()).into()
    }

    /// The texts of a snapshot (head, body, labels, assignees, detail),
    /// each stored once in `texts`.
    pub fn texts(&self) -> [&str; 5] {
        [
            &self.head,
            &self.body,
            &self.labels,
            &self.assignees,
            &self.detail,
        ]
    }

    /// The columns of a snapshot.
    pub fn split(path: &Path, s: &ItemSnapshot) -> Result<Parts> {
        let head = Head {
            repo: s.repo.clone(),
            title: s.title.clone(),
            url: s.url.clone(),
            author: s.author.clone(),
            created_at: s.created_at,
        };
        Ok(Parts {
            head: to_json(path, "item head", &head)?,
            body: s.text.clone(),
            updated_at: stamp(s.updated_at),
            state: state_code(s.state),
            reactions: int("reactions", s.metrics.reactions)?,
            comments: int("comments", s.metrics.comments)?,
            labels: to_json(path, "item labels", &s.labels)?,
            assignees: to_json(path, "item assignees", &s.assignees)?,
            detail: to_json(path, "item detail", &s.detail)?,
            closed_at: s.closed_at.map(stamp),
        })
    }

    /// The snapshot of item `key` from its stored columns.
    pub fn join(path: &Path, key: &str, raw: RawParts) -> Result<ItemSnapshot> {
        let p = Parts::from_raw(path, raw)?;
        let head: Head = from_json(path, "texts.text (item head)", &p.head)?;
        let state = match p.state {
            0 => ItemState::Open,
            1 => ItemState::Closed,
            other => {
                return Err(StoreError::Corrupt {
                    path: path.to_path_buf(),
                    what: format!("snapshots.state {other} is not open (0) or closed (1)"),
                });
            }
        };
        let detail: ItemDetail = from_json(path, "texts.text (item detail)", &p.detail)?;
        let (updated_s, updated_ns) = p.updated_at;
        Ok(ItemSnapshot {
            repo: head.repo,
            key: key.to_string(),
            title: head.title,
            text: p.body,
            url: head.url,
            created_at: head.created_at,
            updated_at: stamp_parse(path, "snapshots.updated_s", updated_s, updated_ns)?,
            metrics: Metrics {
                reactions: uint(path, "snapshots.reactions", p.reactions)?,
                comments: uint(path, "snapshots.comments", p.comments)?,
            },
            labels: from_json(path, "texts.text (item labels)", &p.labels)?,
            author: head.author,
            state,
            closed_at: p
                .closed_at
                .map(|(s, ns)| stamp_parse(path, "snapshots.closed_s", s, ns))
                .transpose()?,
            assignees: from_json(path, "texts.text (item assignees)", &p.assignees)?,
            detail,
        })
    }
}

/// `snapshots.state`: 0 open, 1 closed.
pub fn state_code(state: ItemState) -> i64 {
    match state {
        ItemState::Open => 0,
        ItemState::Closed => 1,
    }
}

/// An item's title and URL, read from its head text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TitleUrl {
    /// The item's title.
    pub title: String,
    /// The item's page on its host.
    pub url: String,
}

/// The title and URL of an item from its head text.
pub fn head_title_url(path: &Path, head: &str) -> Result<TitleUrl> {
    let head: Head = from_json(path, "texts.text (item head)", head)?;
    Ok(TitleUrl {
        title: head.title,
        url: head.url,
    })
}
