//! Atom feeds: a repository's (`<group>/<repo>/feed.atom`), a group's
//! (from its digest, in `digest.rs`) and the site's (`<out>/feed.atom`),
//! all from [`FeedEntry`] values: owned and small, so the group and site
//! feeds are made from entries kept between exports, never from documents.
//!
//! Entry ids are `urn:signals:<signal id>`, stable across renames of the
//! item's URL. Feeds link relatively unless the site's `base_url` is
//! given: feed readers need absolute links, pages do not.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use signals_core::ItemKind;
use signals_core::dataset::SignalDoc;

use crate::error::SiteError;
use crate::head::RepoHead;
use crate::paths::repo_label;
use crate::templates::render;
use crate::text::{excerpt, http_url};

/// Signals in a repository's Atom feed (the newest by `updatedAt`).
pub const FEED_ENTRIES: usize = 30;

/// A signal's `updatedAt`; an unparsable one sorts as the oldest.
pub(crate) fn updated_at(s: &SignalDoc) -> Timestamp {
    s.updated_at.parse().unwrap_or(Timestamp::MIN)
}

/// What `feed.atom` shows.
#[derive(Serialize)]
pub(crate) struct FeedView {
    pub id: String,
    /// The page the feed is of, and the feed itself: relative, or absolute
    /// under the site's `base_url` (feed readers need absolute links).
    pub home: String,
    pub self_href: String,
    pub title: String,
    pub updated: String,
    pub entries: Vec<FeedEntry>,
}

/// One entry of an Atom feed, owned, so the site feed can be built from
/// per-repository summaries kept between exports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedEntry {
    id: String,
    kind: String,
    title: String,
    /// http(s) URL of the item, or the repository page (relative to the
    /// site root) as a fallback.
    link: String,
    updated: String,
    published: String,
    author: String,
    labels: Vec<String>,
    summary: String,
    importance: u32,
    /// Sort key: `updated` as an instant.
    #[serde(skip)]
    at: Option<Timestamp>,
}

impl FeedEntry {
    /// When its signal was last updated: the feeds' order.
    pub(crate) fn at(&self) -> Timestamp {
        self.at
            .or_else(|| self.updated.parse().ok())
            .unwrap_or(Timestamp::MIN)
    }

    /// The entry with a fallback link relative to a folder made relative to
    /// its parent: `prefix` is that folder's name and a slash.
    pub(crate) fn rebased(&self, prefix: &str) -> FeedEntry {
        let mut e = self.clone();
        if http_url(&e.link).is_none() {
            e.link = format!("{prefix}{}", e.link);
        }
        e
    }

    /// The entry with its fallback link made absolute under `base`.
    pub(crate) fn under(&self, base: Option<&str>) -> FeedEntry {
        let mut e = self.clone();
        if http_url(&e.link).is_none() {
            e.link = under(base, &e.link);
        }
        e
    }
}

/// One feed entry of a signal of importance `importance`; `fallback` is
/// the link when the item has no http(s) URL.
pub(crate) fn feed_entry_of(s: &SignalDoc, importance: u32, fallback: &str) -> FeedEntry {
    FeedEntry {
        id: format!("urn:signals:{}", s.id),
        kind: ItemKind::parse(&s.kind)
            .map_or("signal", ItemKind::label)
            .to_string(),
        title: s.title.clone(),
        link: http_url(&s.url).unwrap_or(fallback).to_string(),
        updated: s.updated_at.clone(),
        published: s.created_at.clone(),
        author: s.author.clone(),
        labels: s.labels.clone(),
        summary: excerpt(&s.text),
        importance,
        at: Some(updated_at(s)),
    }
}

/// `base` joined with `path` (`base` ends in `/`), or `path` alone.
pub(crate) fn under(base: Option<&str>, path: &str) -> String {
    match base {
        Some(b) => format!("{b}{path}"),
        None => path.to_string(),
    }
}

/// The Atom feed of a repository from its newest signals (newest first,
/// each with its importance), with absolute links under `base_url` when
/// given.
pub(crate) fn render_feed_of(
    repo: &RepoHead<'_>,
    newest: &[(SignalDoc, u32)],
    base_url: Option<&str>,
) -> Result<String, SiteError> {
    let d = &repo.document.dataset;
    let prefix = base_url.map(|b| format!("{b}{}/{}/", d.group.id, d.repository.id));
    let home = under(prefix.as_deref(), "index.html");
    let entries = newest
        .iter()
        .map(|(s, importance)| feed_entry_of(s, *importance, &home))
        .collect();
    render(
        "feed.atom",
        &FeedView {
            self_href: under(prefix.as_deref(), "feed.atom"),
            home: home.clone(),
            id: format!("urn:signals:feed:{}", repo_label(repo.document)),
            title: format!("{} · signals", d.repository.name),
            updated: format!("{:.0}", repo.collected_at),
            entries,
        },
    )
}

/// The site feed of `entries` (fallback links relative to the site root;
/// any number, the newest [`FEED_ENTRIES`] are kept), updated at `updated`,
/// with absolute links under `base_url` when given.
pub(crate) fn render_site_feed_from(
    mut entries: Vec<FeedEntry>,
    updated: Timestamp,
    base_url: Option<&str>,
) -> Result<String, SiteError> {
    keep_newest(&mut entries);
    let entries = entries.iter().map(|e| e.under(base_url)).collect();
    render(
        "feed.atom",
        &FeedView {
            home: under(base_url, "index.html"),
            self_href: under(base_url, "feed.atom"),
            id: "urn:signals:feed:site".to_string(),
            title: "Repo Signals · all repositories".to_string(),
            updated: format!("{updated:.0}"),
            entries,
        },
    )
}

/// Keeps the [`FEED_ENTRIES`] newest entries, newest first (ties by id).
pub(crate) fn keep_newest(entries: &mut Vec<FeedEntry>) {
    entries.sort_by(|a, b| {
        b.at()
            .cmp(&a.at())
            .then(a.id.as_bytes().cmp(b.id.as_bytes()))
    });
    entries.truncate(FEED_ENTRIES);
}
