//! The static site of Repo Signals, and the only writer of output files.
//!
//! This file is glue: the recipe, the module map and the public names.
//!
//! # The recipe
//!
//! A site is published by one [`Publisher`] (`publish.rs`):
//!
//! 1. [`Publisher::begin`] the next generation of the site beside `<out>`;
//! 2. for each repository, [`Publisher::keep`] it when its data did not
//!    change ([`Publisher::is_current`]), or render it:
//!    [`Publisher::open_repo`], its `dataset.json` ([`DatasetWriter`] or
//!    [`render_dataset`]), every other file by [`render_repo_files`]
//!    (`pages.rs`: the signal pages with the filter index fed as they go,
//!    the trail pages, `feed.atom`, `trends.json`, `digest.json`), then
//!    [`Publisher::close_repo`];
//! 3. the history pages of the items that changed
//!    ([`Publisher::write_history`] of [`render_history`]);
//! 4. [`Publisher::finish`]: the group pages from the repositories'
//!    digests, the index, the site feed and the importance page from their
//!    summaries, the stylesheet and the script, and one atomic switch of the
//!    served link.
//!
//! `signals export` (in the binary) follows this recipe over the store, a
//! page at a time through a [`RepoSource`]. [`write_site`] follows it over
//! whole repositories in memory ([`RepoPage`], through
//! [`Publisher::publish`], which is step 2's rendering with an in-memory
//! source); so do [`render_repo`] and the other functions that take a
//! [`RepoPage`]. There is no second way to render a page.
//!
//! The `render_*` functions are pure and return strings, so tests and a
//! server can render into memory; every byte reaches the disk through
//! `write.rs` ([`write_content`]), which replaces files atomically.
//!
//! # Modules
//!
//! The modules are declared below in four groups, from the leaves up. The
//! leaves import nothing of the crate, no module imports one of a later
//! group, the graph of their imports has no cycle, and no module reaches
//! for a name of this file (each imports from the module that defines it);
//! the workspace's module graph test (`crates/signals/tests/it/house/modules.rs`)
//! checks all four.
//!
//! - Leaves, importing nothing of the crate: `paths` (file names, which
//!   page holds what, the parts of a signal id), `views` (the view types
//!   pages share: times, the frame, the repository header, pagers), `head`
//!   ([`RepoHead`], [`HealthNote`]) and `text` (host text made safe).
//! - Plumbing: `error` ([`SiteError`]), `templates` (the embedded
//!   templates and `render`), `write` (atomic files), `files`
//!   ([`RepoFiles`]: a version folder or memory).
//! - What each file shows: `charts`, `health`, `trends`, `news`, `trail`,
//!   `source` ([`RepoSource`], what feeds the recipe), `feed`, `filter`,
//!   `dataset`, `links` (links between items), `history`, `index` (the index and importance pages,
//!   [`RepoSummary`]), `roster` (the paged lists of repositories),
//!   `digest` (the group pages).
//! - The recipe: `pages` (a repository's folder), `whole` (a repository in
//!   memory, [`RepoPage`]) and `publish` (the site, [`Publisher`]).
//!
//! Layout under `<out>`:
//!
//! ```text
//! index.html                      the groups, the most active repositories
//! repos-<n>.html                  every repository, 100 a page, by activity
//! feed.atom                       the newest signals of every repository
//! importance.html                 the importance rule (docs/importance.md)
//! style.css                       the one stylesheet, linked relatively
//! <group>/<repo>/index.html       signals 1–50, news and the latest trail
//! <group>/<repo>/page-<n>.html    signals 50(n−1)+1 … 50n
//! <group>/<repo>/trail.html       the observation trail, 200 events a page
//! <group>/<repo>/trail-<n>.html   (further trail pages)
//! <group>/<repo>/feed.atom        the newest signals
//! <group>/<repo>/dataset.json     the v3 document
//! <group>/<repo>/trends.json      its trends (schemas/trends-v1.schema.json)
//! <group>/<repo>/verdict.json     is it alive, who carries it (verdict-v1)
//! <group>/<repo>/signals.json     the filter index (every signal, columnar)
//! <group>/<repo>/signals-text-<n>.json  its excerpts, 1,000 signals a part
//! <group>/<repo>/digest.json      what the repository gives its group page
//! <group>/<repo>/history/<kind>-<key>.html  each item's history
//! <group>/index.html              the group digest (what changed, top signals, …)
//! <group>/repos-<n>.html          its repositories, 100 a page, by activity
//! <group>/feed.atom               the group's newest signals
//! <group>/signals.json            the filter index of the group page
//! filter.js                       the filter script, the site's only script
//! ```
//!
//! Choices the spec leaves open, made here:
//!
//! - A card's excerpt is the plain text of the Markdown body (raw HTML and
//!   link targets dropped), at most [`EXCERPT_CHARS`] = 280 characters, cut on
//!   a character boundary (back to a word boundary when one is near) and
//!   ended with `…`. Plain text cannot carry markup, so the card needs no
//!   sanitizing; release notes, which are read in full, are rendered as
//!   Markdown and sanitized.
//! - The observation trail is paged, not inlined: the first page shows the
//!   latest [`TRAIL_PREVIEW`] events (numbered as in the whole trail) and
//!   links to `trail.html`, which lists all events oldest first,
//!   [`TRAIL_PAGE_SIZE`] a page. The first page stays small however long a
//!   repository has been watched, and every event stays reachable.
//! - News and the trail preview are on the first page only; every page
//!   repeats the repository header. The page reads header, news, cards,
//!   then the trail: what matters comes first, and the news is compact
//!   (three highlight lines and three "next" entries, the rest folded).
//! - A card shows the item's number (`#42`, a release's tag), its title as
//!   a link, comment and reaction counts, assignees, `new` for an item first
//!   seen in the latest run and `updated in the latest run` for a changed
//!   one, and the importance with its place (`rank 3 of 399`, competition
//!   ranking: ties share a place) and percentile (`top 1%`, the place over
//!   the total, rounded up), linked to `importance.html`, rendered from the
//!   same Markdown as `docs/importance.md`.
//! - The trail keeps every event in chronological order of runs; within a
//!   run, `changed` entries come first, then `discovered` ones, each by
//!   item kind and number as a number. Entries name the item (kind, number,
//!   title) and say the change in words ("new comments or reactions",
//!   "edited", "closed"), keeping the spec's field names as the detail. A
//!   run's `discovered` entries are folded into one expandable group when
//!   there are more than [`TRAIL_FOLD_MIN`] of them on the page.
//! - "Publicly indicated next" lists prereleases, then open milestones by
//!   due date (soonest first, undated last). An open milestone past its due
//!   date, or without activity for [`STALE_MILESTONE_DAYS`] days, is set
//!   apart in a folded list with the reason: it is not what comes next.
//! - Dates are absolute (`2026-11-21 10:00 UTC`); the header states the
//!   dataset's instant once ("Data as of"), and the importance terms say
//!   ages relative to it ("updated 2 hours before collection").
//! - The Atom feed holds the [`FEED_ENTRIES`] most recently updated signals;
//!   the site's `feed.atom` the same over every repository. The index shows
//!   per repository what the latest run found (new and changed items), the
//!   latest release and the feed.
//! - A URL that is not `http(s)://` is shown as text, never as a link.
//!
//! This crate computes nothing about the data: importance scores, news and
//! the trail come in ready-made from core and the store. It must never write
//! outside `<out>`, which is why group and repository ids must be slugs.

#![warn(missing_docs)]

mod head;
mod paths;
mod text;
mod views;

mod error;
mod files;
mod templates;
mod write;

mod advisories;
mod charts;
mod contributors_chart;
mod dataset;
mod digest;
mod download_chart;
mod feed;
mod filter;
mod group_search;
mod health;
mod history;
mod index;
mod links;
mod news;
mod response_chart;
mod roster;
mod search;
mod source;
mod trail;
mod trends;
mod verdict;
mod waiting;

mod pages;
mod publish;
mod whole;

use std::path::Path;

pub use dataset::{DatasetWriter, render_dataset};
pub use digest::{
    DIGEST_FILE, DIGEST_NEXT, DIGEST_SIGNALS, DIGEST_TRAIL, GroupDigest, RepoDigest, render_group,
};
pub use error::SiteError;
pub use feed::{FEED_ENTRIES, FeedEntry};
pub use files::{Counted, RepoFile, RepoFiles};
pub use filter::{
    FILTER_INDEX_VERSION, FilterEntry, IndexFile, IndexWriter, Shown, TEXT_PART, read_index,
};
pub use head::{HealthNote, RepoHead};
pub use history::{render_history, render_history_linked};
pub use index::{
    FILTER_SCRIPT, IMPORTANCE_DOC, RepoSummary, STYLESHEET, render_importance, render_index,
};
pub use links::{
    HistoryLinks, LinkedItem, RelatedItem, SharedEntry, StoryEntry, StoryItem, short_name,
};
pub use news::STALE_MILESTONE_DAYS;
pub use pages::{TRAIL_PREVIEW, render_repo_files};
pub use paths::{
    FILTER_INDEX_FILE, LIST_PAGE_SIZE, PAGE_SIZE, TOP_REPOS, TRAIL_PAGE_SIZE, history_file,
};
pub use publish::{Publisher, Render, SiteOptions, SiteReport};
pub use search::{
    BlockParts, CardsAt, Manifest as SearchManifest, SEARCH_DIR, SEARCH_MANIFEST, SEARCH_VERSION,
    SearchWriter, ShownDoc, card as search_card, previous_manifest, shard_files,
};
pub use source::{Ranked, RepoSource};
pub use text::{EXCERPT_CHARS, excerpt};
pub use trail::{TRAIL_FOLD_MIN, TrailItem, changes_state, trail_key_parts};
pub use trends::{RECENT_WEEKS, SMALL_WEEKS, TRENDS_FILE, TrendRow};
pub use verdict::VERDICT_FILE;
pub use whole::{
    RepoPage, render_feed, render_feed_at, render_filter_index, render_repo, render_repo_at,
    render_repo_pages, render_site_feed, render_trends,
};
pub use write::write_content;

/// The version of what the site writes per repository (pages, filter
/// index, digest). Export re-renders every repository when it changes, so
/// no repository kept from an older export lacks a file the site now needs.
/// 4: the filter index's format 2 and history links in `digest.json`
/// (format 3 had added history pages). 5: `trends.json`, charts, and the
/// trend rows of `digest.json` and of the index. 6: health in
/// `digest.json` and the manifest's summaries. 7: the filter
/// index's format 3, columnar with text parts. 8: the lifecycle's
/// changes on the trail pages.
pub const SITE_FORMAT: u32 = 8;

/// Renders and publishes the whole site at `out`: every repository's
/// files, then `index.html`, `feed.atom`, `importance.html` and `style.css`,
/// switched into place at once ([`Publisher`]).
pub fn write_site(out: &Path, repos: &[RepoPage<'_>]) -> Result<SiteReport, SiteError> {
    write_site_with(out, repos, &SiteOptions::default())
}

/// [`write_site`] with site-wide settings: the recipe above with every
/// repository rendered from memory. `signals export` drives the
/// [`Publisher`] itself, to render only what changed and to stream from
/// the store.
pub fn write_site_with(
    out: &Path,
    repos: &[RepoPage<'_>],
    options: &SiteOptions,
) -> Result<SiteReport, SiteError> {
    let mut publisher = Publisher::begin(out, options, "", Render::All)?;
    for repo in repos {
        publisher.publish(repo, "")?;
    }
    publisher.finish()
}
