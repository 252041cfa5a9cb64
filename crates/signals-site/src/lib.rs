//! The static site of Repo Signals, and the only writer of output files.
//!
//! It reads like a recipe: [`write_site`] renders each repository
//! ([`render_repo`]: its pages, its Atom feed, its `dataset.json`), then the
//! index ([`render_index`]) and the stylesheet, and hands every file to
//! [`write_content`], which replaces files atomically. The `render_*`
//! functions are pure and return strings, so tests and a future server can
//! render into memory.
//!
//! Layout under `<out>`:
//!
//! ```text
//! index.html                      all groups and their repositories
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
//! <group>/<repo>/signals.json     the filter index (every signal, columnar)
//! <group>/<repo>/signals-text-<n>.json  its excerpts, 1,000 signals a part
//! <group>/<repo>/digest.json      what the repository gives its group page
//! <group>/index.html              the group digest (top signals, news, latest runs)
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

mod charts;
mod dataset;
mod digest;
mod filter;
mod health;
mod history;
mod pages;
mod publish;
mod render;
mod text;
mod trail;
mod trends;
mod write;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use signals_core::dataset::Document;
use signals_core::importance::Score;
use signals_core::trends::Trends;
use signals_core::{News, TrailEvent};

pub use dataset::{DatasetWriter, render_dataset};
pub use digest::{
    DIGEST_FILE, DIGEST_NEXT, DIGEST_SIGNALS, DIGEST_TRAIL, GroupDigest, RepoDigest, render_group,
};
pub use filter::{
    FILTER_INDEX_VERSION, FilterEntry, IndexFile, IndexWriter, TEXT_PART, read_index,
};
pub use health::HealthNote;
pub use history::{history_file, render_history};
pub use pages::{
    Counted, Ranked, RepoFile, RepoFiles, RepoHead, RepoSource, render_repo, render_repo_at,
    render_repo_files, render_repo_pages,
};
pub use publish::Publisher;
pub use render::{
    FEED_ENTRIES, FILTER_INDEX_FILE, FILTER_SCRIPT, FeedEntry, IMPORTANCE_DOC, PAGE_SIZE,
    RepoSummary, STALE_MILESTONE_DAYS, STYLESHEET, TRAIL_FOLD_MIN, TRAIL_PAGE_SIZE, TRAIL_PREVIEW,
    render_feed, render_feed_at, render_filter_index, render_importance, render_index,
    render_site_feed,
};
pub use trail::{TrailItem, changes_state, trail_key_parts};
pub use trends::{SMALL_WEEKS, TRENDS_FILE, TrendRow, render_trends};

/// The version of what the site writes per repository (pages, filter
/// index, digest). Export re-renders every repository when it changes, so
/// no repository kept from an older export lacks a file the site now needs.
/// 4: the filter index's format 2 and history links in `digest.json`
/// (format 3 had added history pages). 5: `trends.json`, charts, and the
/// trend rows of `digest.json` and of the index (issue 18). 6: health in
/// `digest.json` and the manifest's summaries (issue 20). 7: the filter
/// index's format 3, columnar with text parts (issue 17).
pub const SITE_FORMAT: u32 = 7;

/// Site-wide settings of [`write_site_with`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteOptions {
    /// The site's public address (`https://signals.example.org/`), ending
    /// in `/`. When set, the Atom feeds link absolutely, as feed readers
    /// need; pages always link relatively, so the site works from any
    /// folder or host.
    pub base_url: Option<String>,
}
pub use text::{EXCERPT_CHARS, excerpt};
pub use write::write_content;

/// Everything the site shows about one repository.
#[derive(Debug, Clone, Copy)]
pub struct RepoPage<'a> {
    /// The v3 document (also written as `dataset.json`); its group and
    /// repository ids place the pages.
    pub document: &'a Document,
    /// Its trends (written as `trends.json`, drawn on its first page).
    pub trends: &'a Trends,
    /// News of the latest run: prereleases newer than the latest stable
    /// release are listed as "Publicly indicated next".
    pub news: &'a News,
    /// SPDX identifier of the license, when known.
    pub license: Option<&'a str>,
    /// The whole observation trail, in chronological order.
    pub trail: &'a [TrailEvent],
    /// Importance of every signal of the document, by signal id.
    pub scores: &'a HashMap<String, Score>,
    /// Number of observation events of the repository (M in the header).
    pub event_count: u64,
    /// When the repository was last collected.
    pub collected_at: Timestamp,
    /// How its collection stands (a notice when failing or stale).
    pub health: &'a HealthNote,
}

impl<'a> RepoPage<'a> {
    /// `<group>/<repo>`, the folder of this repository under `<out>`.
    pub fn dir(&self) -> Result<PathBuf, SiteError> {
        self.head().dir()
    }

    /// What every page of this repository shows besides its signals and
    /// trail.
    pub fn head(&self) -> RepoHead<'a> {
        let collected_at = self.collected_at;
        RepoHead {
            document: self.document,
            signals: self.document.dataset.signals.len(),
            new: render::new_in_latest(self).len(),
            trail_total: self.trail.len(),
            trends: self.trends,
            news: self.news,
            license: self.license,
            event_count: self.event_count,
            collected_at,
            health: self.health,
        }
    }
}

/// What [`write_site`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteReport {
    /// Repositories rendered.
    pub repositories: usize,
    /// Files written (pages, feeds, datasets, index, stylesheet).
    pub files: usize,
    /// Bytes written.
    pub bytes: u64,
    /// Repositories of the previous export that are no longer published.
    pub removed: usize,
    /// Item history pages written (also counted in `files`).
    pub histories: usize,
    /// Nothing differed from the previous export, so the site was left as
    /// it was.
    pub unchanged: bool,
}

/// Why the site could not be rendered or written.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// A file or folder could not be created, written, renamed or removed.
    #[error("could not {action} {}: {source}; check that the output folder is writable", path.display())]
    Io {
        /// What was being done: "create folder", "write", "rename into place", ...
        action: &'static str,
        /// The path concerned.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A group or repository id is not a slug, so it cannot name a folder.
    #[error(
        "{what} id {id:?} is not a slug (lowercase letters, digits and single dashes); fix it in the configuration"
    )]
    BadId {
        /// `group` or `repository`.
        what: &'static str,
        /// The id.
        id: String,
    },
    /// Two repositories would be written to the same folder.
    #[error("repository {0} is given twice; each group/repository pair must be unique")]
    DuplicateRepository(String),
    /// A signal of the document has no score.
    #[error(
        "signal {signal_id} of {repository} has no importance score; score every signal of the document before rendering"
    )]
    MissingScore {
        /// `<group>/<repo>`.
        repository: String,
        /// The signal id.
        signal_id: String,
    },
    /// A template failed to render; a bug in this crate.
    #[error("template {name} failed to render: {source:#}")]
    Template {
        /// The template's name.
        name: &'static str,
        /// The cause.
        #[source]
        source: minijinja::Error,
    },
    /// The repository's data could not be read (the store failed under a
    /// streamed export).
    #[error("could not read the data of the repository being exported: {0}")]
    Source(Box<dyn std::error::Error + Send + Sync>),
    /// A column of a filter index could not be kept in, or read back
    /// from, its unnamed temporary file.
    #[error(
        "could not keep the filter index of {repository} in a temporary file under {}: {source}; check that there is space there, or set TMPDIR to a folder that has it",
        dir.display()
    )]
    Spill {
        /// `<group>/<repo>`.
        repository: String,
        /// The folder of temporary files.
        dir: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The dataset document could not be serialized.
    #[error("could not serialize the dataset of {repository}: {source}")]
    Json {
        /// `<group>/<repo>`.
        repository: String,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
}

/// Renders and publishes the whole site at `out`: every repository's
/// files, then `index.html`, `feed.atom`, `importance.html` and `style.css`,
/// switched into place at once ([`Publisher`]).
pub fn write_site(out: &Path, repos: &[RepoPage<'_>]) -> Result<SiteReport, SiteError> {
    write_site_with(out, repos, &SiteOptions::default())
}

/// [`write_site`] with site-wide settings. Every repository is rendered;
/// `signals export` uses [`Publisher`] directly to render only what changed.
pub fn write_site_with(
    out: &Path,
    repos: &[RepoPage<'_>],
    options: &SiteOptions,
) -> Result<SiteReport, SiteError> {
    let mut publisher = Publisher::begin(out, options, "", true)?;
    for repo in repos {
        publisher.publish(repo, "")?;
    }
    publisher.finish()
}
