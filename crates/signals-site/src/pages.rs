//! A repository's files rendered a page at a time (issue 17): the recipe
//! of what a repository's folder holds, and the values it is made from.
//!
//! [`render_repo_files`] asks a [`RepoSource`] for one page of signals (50,
//! in page order, with their scores and places) or one page of the trail
//! at a time, renders it and hands it to [`RepoFiles`] at once, and feeds
//! the filter index entry by entry as the pages go; so what it holds is a
//! page, whatever the size of the repository. `signals export` implements
//! the source over the store (a compact ranking, each page's items read by
//! id); a whole [`RepoPage`] implements it in memory ([`Whole`]), which is
//! how [`crate::render_repo`] and [`crate::write_site`] render.

use std::collections::HashSet;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::Serialize;
use signals_core::dataset::{Document, SignalDoc};
use signals_core::importance::Score;
use signals_core::trends::Trends;
use signals_core::{ItemKind, News, TrailEvent};

use crate::filter::IndexWriter;
use crate::render::{
    HeaderView, Layout, NewsView, TimeView, count, header, id_parts, item_number, new_in_latest,
    newest, news, page_file, ranked, render, render_feed_of, repo_label, trail_file,
};
use crate::text::{excerpt, http_url};
use crate::trail::{TrailContext, TrailItem, TrailView, ordered_trail, trail_rows};
use crate::write::Staged;
use crate::{
    DIGEST_FILE, DIGEST_SIGNALS, FILTER_INDEX_FILE, HealthNote, PAGE_SIZE, RepoDigest, RepoPage,
    RepoSummary, SiteError, TRAIL_PAGE_SIZE, TRAIL_PREVIEW, TRENDS_FILE,
};

// The digest's signals are the first page's first ones.
const _: () = assert!(DIGEST_SIGNALS <= PAGE_SIZE);

/// What every page of a repository shows besides its signals and trail
/// entries: the document's head (its `signals` are never read here), the
/// counts, the trends, news and health.
#[derive(Debug, Clone, Copy)]
pub struct RepoHead<'a> {
    /// The v3 document; only its head is read (group, repository,
    /// context, news, runs), so its `signals` may be empty.
    pub document: &'a Document,
    /// Number of signals.
    pub signals: usize,
    /// Number of items first seen in the latest run.
    pub new: usize,
    /// Number of events in the trail.
    pub trail_total: usize,
    /// Its trends.
    pub trends: &'a Trends,
    /// News of the latest run.
    pub news: &'a News,
    /// SPDX identifier of the license, when known.
    pub license: Option<&'a str>,
    /// Number of observation events (M in the header).
    pub event_count: u64,
    /// When the repository was last collected.
    pub collected_at: Timestamp,
    /// How its collection stands.
    pub health: &'a HealthNote,
}

impl RepoHead<'_> {
    /// `<group>/<repo>`, the folder of this repository under `<out>`.
    pub fn dir(&self) -> Result<PathBuf, SiteError> {
        let d = &self.document.dataset;
        for (what, id) in [("group", &d.group.id), ("repository", &d.repository.id)] {
            if !signals_core::is_slug(id) {
                return Err(SiteError::BadId {
                    what,
                    id: id.clone(),
                });
            }
        }
        Ok(Path::new(&d.group.id).join(&d.repository.id))
    }
}

/// A signal at its place in page order.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// The signal.
    pub signal: SignalDoc,
    /// Its importance at the dataset's instant.
    pub score: Score,
    /// First seen in the latest run.
    pub new: bool,
    /// Its place by importance, 1-based; ties share the place of the first
    /// of them (competition ranking).
    pub place: usize,
}

/// Where a repository's signals and trail come from, a page at a time.
/// Positions are in page order: signals by importance, then `updatedAt`
/// (newest first), then id; the trail as [`crate::trail`] orders it.
pub trait RepoSource {
    /// The signals at positions `range`.
    fn ranked(&mut self, range: Range<usize>) -> Result<Vec<Ranked>, SiteError>;
    /// The trail's entries at positions `range`.
    fn trail(&mut self, range: Range<usize>) -> Result<Vec<TrailItem>, SiteError>;
    /// The events of the latest run (those at the dataset's instant) in
    /// trail order: the first `limit` of them, and how many there are.
    fn latest_run(&mut self, limit: usize) -> Result<(Vec<TrailEvent>, usize), SiteError>;
    /// The [`crate::FEED_ENTRIES`] most recently updated signals, newest
    /// first (ties by id), each with its importance.
    fn newest(&mut self) -> Result<Vec<(SignalDoc, u32)>, SiteError>;
}

/// Where a repository's files go: its version folder, or memory.
#[derive(Debug)]
pub struct RepoFiles {
    dest: Dest,
    /// Files written.
    pub(crate) files: usize,
    /// Bytes written.
    pub(crate) bytes: u64,
}

#[derive(Debug)]
enum Dest {
    /// Files under this folder, paths relative to it.
    Dir(PathBuf),
    /// Files kept, paths under `prefix` (`<group>/<repo>`); a file being
    /// written has its slot reserved, so files stay in the order begun.
    Memory {
        prefix: PathBuf,
        files: Vec<(PathBuf, String)>,
    },
}

/// A file of [`RepoFiles`] being written a part at a time.
pub struct RepoFile {
    inner: FileInner,
}

enum FileInner {
    Disk(Staged),
    Memory { slot: usize, bytes: Vec<u8> },
}

impl Write for RepoFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.inner {
            FileInner::Disk(f) => f.write(buf),
            FileInner::Memory { bytes, .. } => bytes.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.inner {
            FileInner::Disk(f) => f.flush(),
            FileInner::Memory { .. } => Ok(()),
        }
    }
}

impl RepoFiles {
    /// Files written under `dir` (a version folder).
    pub(crate) fn dir(dir: PathBuf) -> RepoFiles {
        RepoFiles {
            dest: Dest::Dir(dir),
            files: 0,
            bytes: 0,
        }
    }

    /// Files kept in memory, paths under `prefix`.
    pub(crate) fn memory(prefix: PathBuf) -> RepoFiles {
        RepoFiles {
            dest: Dest::Memory {
                prefix,
                files: Vec::new(),
            },
            files: 0,
            bytes: 0,
        }
    }

    /// The files kept in memory (none when written to a folder).
    pub(crate) fn into_memory(self) -> Vec<(PathBuf, String)> {
        match self.dest {
            Dest::Memory { files, .. } => files,
            Dest::Dir(_) => Vec::new(),
        }
    }

    /// Writes the file `rel` (relative to the repository's folder).
    pub fn put(&mut self, rel: &str, content: &str) -> Result<(), SiteError> {
        self.files += 1;
        self.bytes += content.len() as u64;
        match &mut self.dest {
            Dest::Dir(dir) => crate::write_content(dir, Path::new(rel), content.as_bytes()),
            Dest::Memory { prefix, files } => {
                files.push((prefix.join(rel), content.to_string()));
                Ok(())
            }
        }
    }

    /// Starts the file `rel`, to be written a part at a time and ended
    /// with [`RepoFiles::close`].
    pub fn open(&mut self, rel: &str) -> Result<RepoFile, SiteError> {
        let inner = match &mut self.dest {
            Dest::Dir(dir) => FileInner::Disk(Staged::create(dir, Path::new(rel))?),
            Dest::Memory { prefix, files } => {
                files.push((prefix.join(rel), String::new()));
                FileInner::Memory {
                    slot: files.len() - 1,
                    bytes: Vec::new(),
                }
            }
        };
        Ok(RepoFile { inner })
    }

    /// Ends a file begun with [`RepoFiles::open`] and puts it in place.
    pub fn close(&mut self, file: RepoFile, bytes: u64) -> Result<(), SiteError> {
        self.files += 1;
        self.bytes += bytes;
        match (file.inner, &mut self.dest) {
            (FileInner::Disk(f), _) => f.commit(),
            (FileInner::Memory { slot, bytes }, Dest::Memory { files, .. }) => {
                files[slot].1 = String::from_utf8_lossy(&bytes).into_owned();
                Ok(())
            }
            (FileInner::Memory { .. }, Dest::Dir(_)) => Ok(()),
        }
    }
}

/// Counts what goes through a writer.
pub struct Counted<W> {
    inner: W,
    /// Bytes written so far.
    pub bytes: u64,
}

impl<W: Write> Counted<W> {
    /// Counts what is written to `inner`.
    pub fn new(inner: W) -> Counted<W> {
        Counted { inner, bytes: 0 }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A card's importance term.
#[derive(Serialize)]
struct TermView<'a> {
    name: &'a str,
    /// Signed, one decimal: `+4.0`, `−8.0`.
    points: String,
    why: &'a str,
}

/// One signal card.
#[derive(Serialize)]
struct CardView<'a> {
    id: &'a str,
    /// The item's history page, relative to the repository's folder.
    history: String,
    /// The host the signal comes from, as people write it (`GitLab`,
    /// `GitHub (ghe)` for a further host of a kind).
    host: String,
    /// `#42`, or a release's tag.
    number: String,
    kind: &'static str,
    /// CSS class suffix: `issue`, `pull-request`, `release`.
    kind_class: &'static str,
    title: &'a str,
    excerpt: String,
    importance: u32,
    terms: Vec<TermView<'a>>,
    author: &'a str,
    /// None for releases.
    state: Option<&'a str>,
    /// `draft`, `merged` or `prerelease`, where they apply.
    flags: Vec<&'static str>,
    labels: &'a [String],
    url: Option<&'a str>,
    /// The URL as text when it is not an http(s) link.
    url_text: Option<&'a str>,
    updated_at: TimeView,
    updated: bool,
    /// Discovered in the latest run.
    new: bool,
    comments: u64,
    reactions: u64,
    assignees: &'a [String],
    /// `3 of 399`: the place by importance (ties share a place).
    rank: String,
    /// `top 1%`: how the score stands in this repository.
    percentile: String,
}

/// Where each importance stands in a repository: ties share the place of
/// the first of them (competition ranking), as a place and a percentile.
fn standing(rank: usize, total: usize) -> (String, String) {
    let pct = (rank * 100).div_ceil(total.max(1)).max(1);
    (format!("{rank} of {total}"), format!("top {pct}%"))
}

fn card<'a>(
    s: &'a SignalDoc,
    score: &'a Score,
    new: bool,
    (rank, percentile): (String, String),
) -> CardView<'a> {
    let kind = ItemKind::parse(&s.kind);
    let mut flags = Vec::new();
    if s.draft == Some(true) {
        flags.push("draft");
    }
    if s.merged == Some(true) {
        flags.push("merged");
    }
    if s.prerelease == Some(true) {
        flags.push("prerelease");
    }
    let url = http_url(&s.url);
    let key = s.tag.as_deref().unwrap_or_else(|| id_parts(&s.id).1);
    CardView {
        id: &s.id,
        history: format!("history/{}", crate::history_file(&s.id)),
        host: signals_core::SourceId::parse(&s.source)
            .map_or_else(|_| s.source.clone(), |h| h.display_name()),
        number: item_number(kind, key),
        kind: kind.map_or("signal", ItemKind::label),
        kind_class: match kind {
            Some(ItemKind::Issue) => "issue",
            Some(ItemKind::PullRequest) => "pull-request",
            Some(ItemKind::Release) => "release",
            None => "other",
        },
        title: &s.title,
        excerpt: excerpt(&s.text),
        importance: score.total,
        terms: score
            .terms
            .iter()
            .map(|t| TermView {
                name: &t.name,
                points: if t.points < 0.0 {
                    format!("−{:.1}", -t.points)
                } else {
                    format!("+{:.1}", t.points)
                },
                why: &t.why,
            })
            .collect(),
        author: &s.author,
        state: (kind != Some(ItemKind::Release)).then_some(s.state.as_str()),
        flags,
        labels: &s.labels,
        url,
        url_text: url
            .is_none()
            .then_some(s.url.as_str())
            .filter(|u| !u.is_empty()),
        updated_at: TimeView::parse(&s.updated_at),
        updated: s.change.is_some(),
        new,
        comments: s.metrics.comments,
        reactions: s.metrics.reactions,
        assignees: &s.assignees,
        rank,
        percentile,
    }
}

/// Links between numbered pages.
#[derive(Serialize)]
pub(crate) struct PagerView {
    page: usize,
    pages: usize,
    prev: Option<String>,
    next: Option<String>,
    links: Vec<PageLink>,
}

#[derive(Serialize)]
struct PageLink {
    n: usize,
    href: String,
    current: bool,
}

pub(crate) fn pager(page: usize, pages: usize, file: fn(usize) -> String) -> PagerView {
    PagerView {
        page,
        pages,
        prev: (page > 1).then(|| file(page - 1)),
        next: (page < pages).then(|| file(page + 1)),
        links: (1..=pages)
            .map(|n| PageLink {
                n,
                href: file(n),
                current: n == page,
            })
            .collect(),
    }
}

/// The whole context of one repository page.
#[derive(Serialize)]
struct RepoPageView<'a> {
    layout: Layout,
    header: HeaderView<'a>,
    /// Only on the first page.
    news: Option<NewsView<'a>>,
    /// Only on the first page: the latest events.
    trail: Option<TrailView<'a>>,
    /// Only on the first page: the charts and what is rising.
    trends: Option<crate::trends::TrendsView>,
    cards: Vec<CardView<'a>>,
    /// Number of the first card on this page (for `<ol start>`).
    first: usize,
    /// `<n> shown`.
    shown: String,
    /// `<total> signals in total`.
    total_text: String,
    pager: PagerView,
}

#[derive(Serialize)]
struct TrailPageView<'a> {
    layout: Layout,
    header: HeaderView<'a>,
    trail: TrailView<'a>,
}

/// Renders one page of signals (`index.html` for page 1, `page-<n>.html`
/// after): `cards` are its signals in page order, the first at position
/// `(page - 1) * PAGE_SIZE`. The first page also shows the news, the
/// trends and `preview`, the latest entries of the trail (from position
/// `preview_from`).
fn render_signal_page(
    repo: &RepoHead<'_>,
    page: usize,
    cards: &[Ranked],
    preview: Option<(&[TrailItem], usize)>,
) -> Result<String, SiteError> {
    let total = repo.signals;
    let pages = total.div_ceil(PAGE_SIZE).max(1);
    let name = &repo.document.dataset.repository.name;
    let start = (page - 1) * PAGE_SIZE;
    let first_page = page == 1;
    let view = RepoPageView {
        layout: Layout {
            title: if first_page {
                format!("{name} · signals")
            } else {
                format!("{name} · signals, page {page} of {pages}")
            },
            root: "../../",
            feed: Some("feed.atom".to_string()),
            filter_index: Some(FILTER_INDEX_FILE),
        },
        header: if first_page {
            HeaderView::with_glance(repo)
        } else {
            header(repo)
        },
        news: first_page.then(|| news(repo)),
        trends: first_page.then(|| crate::trends::TrendsView::of(repo.trends)),
        trail: preview.map(|(items, from)| TrailView {
            rows: trail_rows(items, from),
            start: from + 1,
            shown: items.len(),
            total: repo.trail_total,
            pager: None,
        }),
        cards: cards
            .iter()
            .map(|r| card(&r.signal, &r.score, r.new, standing(r.place, total)))
            .collect(),
        first: start + 1,
        shown: format!("{} shown", cards.len()),
        total_text: count(total as u64, "signal in total", "signals in total"),
        pager: pager(page, pages, page_file),
    };
    render("repo.html", &view)
}

/// Renders trail page `page` (`trail.html`, `trail-<n>.html`): `items`
/// are its entries, the first at position `(page - 1) * TRAIL_PAGE_SIZE`.
fn render_trail_page(
    repo: &RepoHead<'_>,
    page: usize,
    items: &[TrailItem],
) -> Result<String, SiteError> {
    let trail_total = repo.trail_total;
    let trail_pages = trail_total.div_ceil(TRAIL_PAGE_SIZE).max(1);
    let name = &repo.document.dataset.repository.name;
    let start = (page - 1) * TRAIL_PAGE_SIZE;
    let view = TrailPageView {
        layout: Layout {
            title: format!("{name} · observation trail, page {page} of {trail_pages}"),
            root: "../../",
            feed: Some("feed.atom".to_string()),
            filter_index: None,
        },
        header: header(repo),
        trail: TrailView {
            rows: trail_rows(items, start),
            start: start + 1,
            shown: items.len(),
            total: trail_total,
            pager: Some(pager(page, trail_pages, trail_file)),
        },
    };
    render("trail.html", &view)
}

/// Renders every file of a repository but `dataset.json` into `out`, a
/// page at a time: its signal pages (50 signals each, by importance) with
/// the filter index fed as they go, its trail pages (200 events each,
/// chronological), `feed.atom`, `trends.json` and `digest.json`; and
/// returns its summary for the index. `base_url` makes the feed's links
/// absolute.
///
/// The first page also holds the news and the latest [`TRAIL_PREVIEW`]
/// events, numbered as in the full trail, with a link to the trail pages;
/// the full trail is paged rather than inlined so the first page stays small
/// however long the repository has been watched.
pub fn render_repo_files(
    repo: &RepoHead<'_>,
    source: &mut dyn RepoSource,
    base_url: Option<&str>,
    out: &mut RepoFiles,
) -> Result<RepoSummary, SiteError> {
    repo.dir()?;
    let label = repo_label(repo.document);
    render_pages(repo, source, out, &label, PageSet::All)?;
    let newest = source.newest()?;
    out.put("feed.atom", &render_feed_of(repo, &newest, base_url)?)?;
    out.put(
        TRENDS_FILE,
        &crate::trends::trends_json(repo.trends, &label)?,
    )?;
    let top = source.ranked(0..repo.signals.min(DIGEST_SIGNALS))?;
    let (latest, latest_total) = source.latest_run(crate::DIGEST_TRAIL)?;
    let digest = RepoDigest::of_parts(repo, &top, &latest, latest_total, &newest)?;
    out.put(DIGEST_FILE, &digest.to_json()?)?;
    RepoSummary::of_head(repo)
}

/// Which files [`render_pages`] writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PageSet {
    /// The HTML pages only.
    Html,
    /// The HTML pages and the filter index.
    All,
}

/// The signal pages (and the filter index, fed as they go), then the trail
/// pages.
fn render_pages(
    repo: &RepoHead<'_>,
    source: &mut dyn RepoSource,
    out: &mut RepoFiles,
    label: &str,
    set: PageSet,
) -> Result<(), SiteError> {
    let total = repo.signals;
    let pages = total.div_ceil(PAGE_SIZE).max(1);
    let preview_from = repo.trail_total.saturating_sub(TRAIL_PREVIEW);
    let preview = source.trail(preview_from..repo.trail_total)?;
    let mut index = match set {
        PageSet::All => Some(IndexWriter::new(label)),
        PageSet::Html => None,
    };
    for page in 1..=pages {
        let start = (page - 1) * PAGE_SIZE;
        let end = (start + PAGE_SIZE).min(total);
        let cards = source.ranked(start.min(end)..end)?;
        if let Some(index) = &mut index {
            for r in &cards {
                if let Some((name, json)) = index.push(&r.signal, &r.score, r.new)? {
                    out.put(&name, &json)?;
                }
            }
        }
        let preview = (page == 1).then_some((&preview[..], preview_from));
        out.put(
            &page_file(page),
            &render_signal_page(repo, page, &cards, preview)?,
        )?;
    }
    if let Some(mut index) = index {
        if let Some((name, json)) = index.last_part()? {
            out.put(&name, &json)?;
        }
        // Streamed from the index's columns: `signals.json` (8 MB at
        // 100,000 signals) is never held whole.
        let mut core = Counted::new(out.open(crate::FILTER_INDEX_FILE)?);
        index.write_core(&mut core)?;
        let bytes = core.bytes;
        out.close(core.into_inner(), bytes)?;
    }
    let trail_pages = repo.trail_total.div_ceil(TRAIL_PAGE_SIZE).max(1);
    for page in 1..=trail_pages {
        let start = (page - 1) * TRAIL_PAGE_SIZE;
        let end = (start + TRAIL_PAGE_SIZE).min(repo.trail_total);
        let items = source.trail(start.min(end)..end)?;
        out.put(&trail_file(page), &render_trail_page(repo, page, &items)?)?;
    }
    Ok(())
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
            context: TrailContext::new(page),
            page,
        })
    }
}

impl RepoSource for Whole<'_> {
    fn ranked(&mut self, range: Range<usize>) -> Result<Vec<Ranked>, SiteError> {
        Ok(self.ranked[range.clone()]
            .iter()
            .zip(range)
            .map(|((s, score), i)| Ranked {
                signal: (*s).clone(),
                score: (*score).clone(),
                new: self.new.contains(s.id.as_str()),
                place: self.places[i],
            })
            .collect())
    }

    fn trail(&mut self, range: Range<usize>) -> Result<Vec<TrailItem>, SiteError> {
        Ok(self.ordered[range]
            .iter()
            .map(|e| self.context.item(e))
            .collect())
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
            .into_iter()
            .map(|s| {
                let score = self
                    .page
                    .scores
                    .get(&s.id)
                    .ok_or_else(|| SiteError::MissingScore {
                        repository: repo_label(self.page.document),
                        signal_id: s.id.clone(),
                    })?;
                Ok((s.clone(), score.total))
            })
            .collect()
    }
}

/// Renders a repository's HTML pages: `index.html` and `page-<n>.html`
/// (50 signals each, by importance), then `trail.html` and
/// `trail-<n>.html` (200 events each, chronological). Paths are relative to
/// the output folder (`<group>/<repo>/...`).
pub fn render_repo_pages(repo: &RepoPage<'_>) -> Result<Vec<(PathBuf, String)>, SiteError> {
    let head = repo.head();
    let mut out = RepoFiles::memory(head.dir()?);
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
    let head = repo.head();
    let mut out = RepoFiles::memory(head.dir()?);
    out.put("dataset.json", &crate::render_dataset(repo.document)?)?;
    render_repo_files(&head, &mut Whole::new(repo)?, base_url, &mut out)?;
    Ok(out.into_memory())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standing_is_a_place_and_a_percentile() {
        assert_eq!(
            standing(1, 399),
            ("1 of 399".to_string(), "top 1%".to_string())
        );
        assert_eq!(standing(20, 399).1, "top 6%");
        assert_eq!(standing(399, 399).1, "top 100%");
        assert_eq!(standing(1, 1).1, "top 100%");
    }
}
