//! A whole repository in memory ([`RepoPage`]), and every entry point that
//! takes one.
//!
//! There is one recipe of a repository's files, `pages::render_repo_files`,
//! fed a page at a time by a `RepoSource`. `signals export` feeds it from
//! the store; here [`Whole`] feeds it from a [`RepoPage`] (its signals
//! ranked, its trail ordered), which is how [`crate::write_site`],
//! [`crate::Publisher::publish`], [`render_repo`] and the tests render.
//! The other functions here are the same steps for one file each
//! (`render_feed`, `render_filter_index`, ...), and the `of` of
//! `RepoSummary` and `RepoDigest` from a whole repository. Nothing here
//! renders a page its own way.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::PathBuf;

use jiff::Timestamp;
use signals_core::dataset::{Document, SignalDoc};
use signals_core::importance::{RankKey, Score, rank};
use signals_core::trends::Trends;
use signals_core::{EventKind, News, TrailEvent};

use crate::dataset::render_dataset;
use crate::digest::{DIGEST_SIGNALS, DIGEST_TRAIL, RepoDigest};
use crate::error::SiteError;
use crate::feed::{FEED_ENTRIES, feed_entry_of, render_feed_of, render_site_feed_from, updated_at};
use crate::files::RepoFiles;
use crate::filter::{IndexFile, IndexWriter, Shown};
use crate::head::{HealthNote, RepoHead};
use crate::index::RepoSummary;
use crate::pages::{PageSet, render_pages, render_repo_files};
use crate::paths::{document_dir, repo_label};
use crate::source::{Ranked, RepoSource};
use crate::trail::{TrailContext, TrailItem, ordered_trail};
use crate::trends::trends_json;

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
    /// Ids of its signals waiting for a reply: open issues and
    /// pull requests without a first response, older than `waiting_days`.
    pub waiting: &'a [String],
    /// Its verdict in its group, once a run judged it.
    pub verdict: Option<&'a signals_core::lifecycle::verdict::Verdict>,
    /// Every change of its judged lifecycle state, oldest first (the
    /// store's `lifecycle_changes`): entries of its trail.
    pub lifecycle: &'a [signals_core::lifecycle::verdict::StateChange],
}

impl<'a> RepoPage<'a> {
    /// `<group>/<repo>`, the folder of this repository under `<out>`.
    pub fn dir(&self) -> Result<PathBuf, SiteError> {
        Ok(document_dir(self.document)?)
    }

    /// What every page of this repository shows besides its signals and
    /// trail.
    pub fn head(&self) -> RepoHead<'a> {
        let collected_at = self.collected_at;
        RepoHead {
            document: self.document,
            signals: self.document.dataset.signals.len(),
            new: new_in_latest(self).len(),
            trail_total: self.trail.len(),
            trends: self.trends,
            news: self.news,
            license: self.license,
            event_count: self.event_count,
            collected_at,
            health: self.health,
            verdict: self.verdict,
            lifecycle: self.lifecycle,
        }
    }
}

/// Ids of the items first seen in the latest run (`discovered` events at
/// the latest collection instant).
fn new_in_latest<'a>(repo: &RepoPage<'a>) -> HashSet<&'a str> {
    repo.trail
        .iter()
        .rev()
        .take_while(|e| e.at >= repo.collected_at)
        .filter(|e| e.kind == EventKind::Discovered && e.at == repo.collected_at)
        .map(|e| e.item_id.as_str())
        .collect()
}

/// The document's signals in page order, with their scores.
fn ranked<'a>(repo: &RepoPage<'a>) -> Result<Vec<(&'a SignalDoc, &'a Score)>, SiteError> {
    let mut signals = repo
        .document
        .dataset
        .signals
        .iter()
        .map(|s| match repo.scores.get(&s.id) {
            Some(score) => Ok((s, score, updated_at(s))),
            None => Err(missing_score(repo, s)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    rank(&mut signals, |(s, score, updated_at)| RankKey {
        importance: score.total,
        updated_at: *updated_at,
        id: &s.id,
    });
    Ok(signals
        .into_iter()
        .map(|(s, score, _)| (s, score))
        .collect())
}

/// The [`FEED_ENTRIES`] most recently updated signals of a repository,
/// newest first (ties by id), each with its importance.
fn newest(repo: &RepoPage<'_>) -> Result<Vec<(SignalDoc, u32)>, SiteError> {
    let mut signals: Vec<&SignalDoc> = repo.document.dataset.signals.iter().collect();
    signals.sort_by(|a, b| {
        updated_at(b)
            .cmp(&updated_at(a))
            .then(a.id.as_bytes().cmp(b.id.as_bytes()))
    });
    signals.truncate(FEED_ENTRIES);
    signals
        .into_iter()
        .map(|s| match repo.scores.get(&s.id) {
            Some(score) => Ok((s.clone(), score.total)),
            None => Err(missing_score(repo, s)),
        })
        .collect()
}

fn missing_score(repo: &RepoPage<'_>, s: &SignalDoc) -> SiteError {
    SiteError::MissingScore {
        repository: repo_label(repo.document),
        signal_id: s.id.clone(),
    }
}

/// A whole [`RepoPage`] as a [`RepoSource`]: its signals ranked, its trail
/// ordered, in memory.
pub(crate) struct Whole<'a> {
    page: &'a RepoPage<'a>,
    ranked: Vec<(&'a SignalDoc, &'a Score)>,
    places: Vec<usize>,
    new: HashSet<&'a str>,
    ordered: Vec<&'a TrailEvent>,
    context: TrailContext<'a>,
    waiting: HashSet<&'a str>,
}

impl<'a> Whole<'a> {
    pub(crate) fn new(page: &'a RepoPage<'a>) -> Result<Whole<'a>, SiteError> {
        let ranked = ranked(page)?;
        // Competition ranking: a card's place is 1 + the number of signals
        // with a strictly higher importance.
        let mut places: Vec<usize> = Vec::with_capacity(ranked.len());
        for (i, (_, score)) in ranked.iter().enumerate() {
            let place = match i {
                0 => 1,
                _ if ranked[i - 1].1.total == score.total => places[i - 1],
                _ => i + 1,
            };
            places.push(place);
        }
        Ok(Whole {
            ranked,
            places,
            new: new_in_latest(page),
            ordered: ordered_trail(page.trail),
            context: TrailContext::new(&page.document.dataset.signals, page.trail),
            waiting: page.waiting.iter().map(String::as_str).collect(),
            page,
        })
    }

    /// The signal at place `i` of the page order.
    fn at(&self, i: usize) -> Ranked {
        let (s, score) = self.ranked[i];
        Ranked {
            signal: s.clone(),
            score: score.clone(),
            new: self.new.contains(s.id.as_str()),
            place: self.places[i],
        }
    }
}

impl RepoSource for Whole<'_> {
    fn ranked(&mut self, range: Range<usize>) -> Result<Vec<Ranked>, SiteError> {
        Ok(range.map(|i| self.at(i)).collect())
    }

    fn waiting(&mut self, limit: usize) -> Result<Vec<Ranked>, SiteError> {
        Ok((0..self.ranked.len())
            .filter(|&i| self.waiting.contains(self.ranked[i].0.id.as_str()))
            .take(limit)
            .map(|i| self.at(i))
            .collect())
    }

    fn advisories(&mut self, limit: usize) -> Result<Vec<Ranked>, SiteError> {
        let open = |s: &SignalDoc| {
            s.kind == signals_core::ItemKind::Advisory.as_str()
                && s.state == "open"
                && s.withdrawn_at.as_ref().is_none_or(Option::is_none)
        };
        Ok((0..self.ranked.len())
            .filter(|&i| open(self.ranked[i].0))
            .take(limit)
            .map(|i| self.at(i))
            .collect())
    }

    fn trail(&mut self, range: Range<usize>) -> Result<Vec<TrailItem>, SiteError> {
        Ok(self.ordered[range]
            .iter()
            .map(|e| self.context.item(e))
            .collect())
    }

    fn events_through(&mut self, at: Timestamp) -> usize {
        self.ordered.partition_point(|e| e.at <= at)
    }

    fn latest_run(&mut self, limit: usize) -> Result<(Vec<TrailEvent>, usize), SiteError> {
        let latest: Vec<&TrailEvent> = self
            .ordered
            .iter()
            .copied()
            .filter(|e| e.at == self.page.collected_at)
            .collect();
        let total = latest.len();
        Ok((latest.into_iter().take(limit).cloned().collect(), total))
    }

    fn newest(&mut self) -> Result<Vec<(SignalDoc, u32)>, SiteError> {
        newest(self.page)
    }
}

/// Renders every file of `page` into `out`: `dataset.json`, then the
/// recipe of every other file ([`render_repo_files`]) fed by [`Whole`];
/// returns its summary for the index.
pub(crate) fn render_whole(
    page: &RepoPage<'_>,
    base_url: Option<&str>,
    out: &mut RepoFiles,
) -> Result<RepoSummary, SiteError> {
    out.put("dataset.json", &render_dataset(page.document)?)?;
    render_repo_files(&page.head(), &mut Whole::new(page)?, base_url, out)
}

/// Renders a repository's HTML pages: `index.html` and `page-<n>.html`
/// (50 signals each, by importance), then `trail.html` and
/// `trail-<n>.html` (200 entries each, chronological). Paths are relative to
/// the output folder (`<group>/<repo>/...`).
pub fn render_repo_pages(repo: &RepoPage<'_>) -> Result<Vec<(PathBuf, String)>, SiteError> {
    let head = repo.head();
    let mut out = RepoFiles::memory(repo.dir()?);
    let label = repo_label(repo.document);
    render_pages(
        &head,
        &mut Whole::new(repo)?,
        &mut out,
        &label,
        PageSet::Html,
    )?;
    Ok(out.into_memory())
}

/// Renders every file of one repository: its pages, `feed.atom`,
/// `dataset.json`, `trends.json`, the filter index and `digest.json`, with
/// paths relative to the output folder.
pub fn render_repo(repo: &RepoPage<'_>) -> Result<Vec<(PathBuf, String)>, SiteError> {
    render_repo_at(repo, None)
}

/// [`render_repo`], with the feed's links absolute under `base_url` (the
/// site's public address, ending in `/`) when it is given.
pub fn render_repo_at(
    repo: &RepoPage<'_>,
    base_url: Option<&str>,
) -> Result<Vec<(PathBuf, String)>, SiteError> {
    let mut out = RepoFiles::memory(repo.dir()?);
    render_whole(repo, base_url, &mut out)?;
    Ok(out.into_memory())
}

/// The filter index of a repository: `signals.json` and its text parts
/// (see `filter/columns.rs`), each with its name in the repository's
/// folder; every signal in page order.
pub fn render_filter_index(repo: &RepoPage<'_>) -> Result<Vec<IndexFile>, SiteError> {
    let new = new_in_latest(repo);
    let mut writer = IndexWriter::new(&repo_label(repo.document));
    let mut files = Vec::new();
    for (s, score) in ranked(repo)? {
        files.extend(writer.push(Shown {
            signal: s,
            score,
            new: new.contains(s.id.as_str()),
        })?);
    }
    files.extend(writer.finish()?);
    Ok(files)
}

/// The Atom feed of a repository: its [`FEED_ENTRIES`] most recently updated
/// signals, newest first (ties by id). Entry ids are `urn:signals:<signal
/// id>`, stable across renames of the item's URL.
pub fn render_feed(repo: &RepoPage<'_>) -> Result<String, SiteError> {
    render_feed_at(repo, None)
}

/// [`render_feed`] with absolute links under `base_url` when given.
pub fn render_feed_at(repo: &RepoPage<'_>, base_url: Option<&str>) -> Result<String, SiteError> {
    render_feed_of(&repo.head(), &newest(repo)?, base_url)
}

/// The whole site's Atom feed (`<out>/feed.atom`): the [`FEED_ENTRIES`]
/// most recently updated signals over every repository, newest first.
pub fn render_site_feed(repos: &[RepoPage<'_>]) -> Result<String, SiteError> {
    let mut entries = Vec::new();
    for repo in repos {
        let d = &repo.document.dataset;
        let home = format!("{}/{}/index.html", d.group.id, d.repository.id);
        for (s, importance) in newest(repo)? {
            entries.push(feed_entry_of(&s, importance, &home));
        }
    }
    let updated = repos
        .iter()
        .map(|r| r.collected_at)
        .max()
        .unwrap_or_default();
    render_site_feed_from(entries, updated, None)
}

/// `trends.json`: the document, pretty-printed as `dataset.json` is.
pub fn render_trends(trends: &Trends, repo: &RepoPage<'_>) -> Result<String, SiteError> {
    trends_json(trends, &repo_label(repo.document))
}

impl RepoSummary {
    /// The summary of a rendered repository.
    pub fn of(repo: &RepoPage<'_>) -> Result<RepoSummary, SiteError> {
        RepoSummary::of_head(&repo.head())
    }
}

impl RepoDigest {
    /// The digest of one repository, from what its page is rendered from.
    pub fn of(repo: &RepoPage<'_>) -> Result<RepoDigest, SiteError> {
        let head = repo.head();
        let mut source = Whole::new(repo)?;
        let top = source.ranked(0..head.signals.min(DIGEST_SIGNALS))?;
        let (latest, latest_total) = source.latest_run(DIGEST_TRAIL)?;
        let newest = source.newest()?;
        RepoDigest::of_parts(&head, &top, &latest, latest_total, &newest)
    }
}
