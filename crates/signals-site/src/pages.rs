//! A repository's pages, and the recipe of everything its folder holds.
//!
//! [`render_repo_files`] asks a [`RepoSource`] for one page of signals (50,
//! in page order, with their scores and places) or one page of the trail
//! at a time, renders it and hands it to [`RepoFiles`] at once, and feeds
//! the filter index entry by entry as the pages go; so what it holds is a
//! page, whatever the size of the repository. Then its feed, `trends.json`
//! and `digest.json`. This is the one recipe: `signals export` calls it
//! with a source over the store, and `whole.rs` with a whole repository in
//! memory.
//!
//! The pages themselves are built here: the header every page repeats, the
//! signal cards, and the signal and trail pages with their pagers.

use serde::Serialize;
use signals_core::ItemKind;

use crate::advisories::{self, ADVISORIES_LISTED};
use crate::digest::{DIGEST_FILE, DIGEST_SIGNALS, DIGEST_TRAIL, RepoDigest};
use crate::error::SiteError;
use crate::feed::render_feed_of;
use crate::files::{Counted, RepoFiles};
use crate::filter::IndexWriter;
use crate::head::RepoHead;
use crate::health;
use crate::index::RepoSummary;
use crate::news::{NewsView, news};
use crate::paths::{
    FILTER_INDEX_FILE, PAGE_SIZE, TRAIL_PAGE_SIZE, document_dir, history_file, id_parts,
    item_number, page_file, repo_label, trail_file,
};
use crate::source::{Ranked, RepoSource};
use crate::templates::render;
use crate::text::{excerpt, http_url};
use crate::trail::{Entry, LifecyclePlaces, TrailView, trail_rows};
use crate::trends::{self, TRENDS_FILE, TrendsView};
use crate::verdict::{self, VERDICT_FILE, VerdictView};
use crate::views::{HeaderView, Layout, PagerView, TimeView, count, pager};
use crate::waiting::{self, WAITING_LISTED, WaitingEntry};

/// Latest observation events shown on a repository's first page.
pub const TRAIL_PREVIEW: usize = 20;

// The digest's signals are the first page's first ones.
const _: () = assert!(DIGEST_SIGNALS <= PAGE_SIZE);

/// Renders every file of a repository but `dataset.json` into `out`, a
/// page at a time: its signal pages (50 signals each, by importance) with
/// the filter index fed as they go, its trail pages (200 entries each,
/// chronological: the items' events and the lifecycle's changes),
/// `feed.atom`, `trends.json` and `digest.json`; and returns its summary
/// for the index. `base_url` makes the feed's links absolute.
///
/// The first page also holds the news and the latest [`TRAIL_PREVIEW`]
/// entries, numbered as in the full trail, with a link to the trail pages;
/// the full trail is paged rather than inlined so the first page stays small
/// however long the repository has been watched.
pub fn render_repo_files(
    repo: &RepoHead<'_>,
    source: &mut dyn RepoSource,
    base_url: Option<&str>,
    out: &mut RepoFiles,
) -> Result<RepoSummary, SiteError> {
    document_dir(repo.document)?;
    let label = repo_label(repo.document);
    render_pages(repo, source, out, &label, PageSet::All)?;
    let newest = source.newest()?;
    out.put("feed.atom", &render_feed_of(repo, &newest, base_url)?)?;
    out.put(TRENDS_FILE, &trends::trends_json(repo.trends, &label)?)?;
    if let Some(v) = repo.verdict {
        out.put(VERDICT_FILE, &verdict::verdict_json(v, &label)?)?;
    }
    let top = source.ranked(0..repo.signals.min(DIGEST_SIGNALS))?;
    let (latest, latest_total) = source.latest_run(DIGEST_TRAIL)?;
    let mut digest = RepoDigest::of_parts(repo, &top, &latest, latest_total, &newest)?;
    digest.trend.lifecycle = repo.verdict.map(verdict::LifecycleCell::of);
    let prefix = format!("{}/", repo.document.dataset.repository.id);
    digest.waiting = waiting::entries(&source.waiting(WAITING_LISTED)?, repo.collected_at, &prefix);
    for w in &mut digest.waiting {
        w.repo = Some(repo.document.dataset.repository.name.clone());
    }
    digest.advisories = advisories::entries(
        &source.advisories(ADVISORIES_LISTED)?,
        &prefix,
        &repo.document.dataset.repository.name,
    );
    out.put(DIGEST_FILE, &digest.to_json()?)?;
    RepoSummary::of_head(repo)
}

/// Which files [`render_pages`] writes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum PageSet {
    /// The HTML pages only.
    Html,
    /// The HTML pages and the filter index.
    All,
}

/// The signal pages (and the filter index, fed as they go), then the trail
/// pages.
pub(crate) fn render_pages(
    repo: &RepoHead<'_>,
    source: &mut dyn RepoSource,
    out: &mut RepoFiles,
    label: &str,
    set: PageSet,
) -> Result<(), SiteError> {
    let total = repo.signals;
    let pages = total.div_ceil(PAGE_SIZE).max(1);
    let places = LifecyclePlaces::new(repo.lifecycle, repo.trail_total, |at| {
        source.events_through(at)
    });
    let trail_total = places.total();
    let preview_from = trail_total.saturating_sub(TRAIL_PREVIEW);
    let preview = TrailSlice {
        entries: trail_entries(source, &places, preview_from..trail_total)?,
        from: preview_from,
        total: trail_total,
    };
    let waiting = waiting::entries(&source.waiting(WAITING_LISTED)?, repo.collected_at, "");
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
                if let Some((name, json)) = index.push(r.shown())? {
                    out.put(&name, &json)?;
                }
            }
        }
        let preview = (page == 1).then_some(&preview);
        out.put(
            &page_file(page),
            &render_signal_page(repo, page, &cards, preview, &waiting)?,
        )?;
    }
    if let Some(mut index) = index {
        if let Some((name, json)) = index.last_part()? {
            out.put(&name, &json)?;
        }
        // Streamed from the index's columns: `signals.json` (8 MB at
        // 100,000 signals) is never held whole.
        let mut core = Counted::new(out.open(FILTER_INDEX_FILE)?);
        index.write_core(&mut core)?;
        let bytes = core.bytes;
        out.close(core.into_inner(), bytes)?;
    }
    let trail_pages = trail_total.div_ceil(TRAIL_PAGE_SIZE).max(1);
    for page in 1..=trail_pages {
        let start = (page - 1) * TRAIL_PAGE_SIZE;
        let end = (start + TRAIL_PAGE_SIZE).min(trail_total);
        let slice = TrailSlice {
            entries: trail_entries(source, &places, start.min(end)..end)?,
            from: start,
            total: trail_total,
        };
        out.put(&trail_file(page), &render_trail_page(repo, page, &slice)?)?;
    }
    Ok(())
}

/// Some consecutive entries of a repository's trail.
struct TrailSlice {
    /// The entries, in page order.
    entries: Vec<Entry>,
    /// The position (0-based) of the first in the whole trail.
    from: usize,
    /// The whole trail's entries, the lifecycle's changes included.
    total: usize,
}

/// The entries at `range` of the whole trail: the items' events `source`
/// gives, with the lifecycle's changes in their places.
fn trail_entries(
    source: &mut dyn RepoSource,
    places: &LifecyclePlaces,
    range: std::ops::Range<usize>,
) -> Result<Vec<Entry>, SiteError> {
    let items = source.trail(places.items(&range))?;
    Ok(places.merge(range, items))
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
    trends: Option<TrendsView>,
    /// Only on the first page: the items waiting for a reply.
    waiting: &'a [WaitingEntry],
    /// Only on the first page: is it alive, and why.
    verdict: Option<VerdictView>,
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
/// trends and `preview`, the latest entries of the trail.
fn render_signal_page(
    repo: &RepoHead<'_>,
    page: usize,
    cards: &[Ranked],
    preview: Option<&TrailSlice>,
    waiting: &[WaitingEntry],
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
            base: first_page.then(|| format!("{}/index.html", repo_label(repo.document))),
            feed: Some("feed.atom".to_string()),
            filter_index: Some(FILTER_INDEX_FILE),
        },
        header: if first_page {
            header_with_glance(repo)
        } else {
            header(repo)
        },
        news: first_page.then(|| news(repo)),
        trends: first_page.then(|| TrendsView::of(repo.trends)),
        waiting: if first_page { waiting } else { &[] },
        verdict: repo.verdict.filter(|_| first_page).map(VerdictView::of),
        trail: preview.map(|p| TrailView {
            rows: trail_rows(&p.entries, p.from),
            start: p.from + 1,
            shown: p.entries.len(),
            total: p.total,
            pager: None,
        }),
        cards: cards.iter().map(|r| card(r, total)).collect(),
        first: start + 1,
        shown: format!("{} shown", cards.len()),
        total_text: count(total as u64, "signal in total", "signals in total"),
        pager: pager(page, pages, page_file),
    };
    render("repo.html", &view)
}

/// Renders trail page `page` (`trail.html`, `trail-<n>.html`): `slice`
/// holds its entries, the first at position `(page - 1) * TRAIL_PAGE_SIZE`.
fn render_trail_page(
    repo: &RepoHead<'_>,
    page: usize,
    slice: &TrailSlice,
) -> Result<String, SiteError> {
    let trail_total = slice.total;
    let trail_pages = trail_total.div_ceil(TRAIL_PAGE_SIZE).max(1);
    let name = &repo.document.dataset.repository.name;
    let start = slice.from;
    let view = TrailPageView {
        layout: Layout {
            title: format!("{name} · observation trail, page {page} of {trail_pages}"),
            root: "../../",
            base: None,
            feed: Some("feed.atom".to_string()),
            filter_index: None,
        },
        header: header(repo),
        trail: TrailView {
            rows: trail_rows(&slice.entries, start),
            start: start + 1,
            shown: slice.entries.len(),
            total: trail_total,
            pager: Some(pager(page, trail_pages, trail_file)),
        },
    };
    render("trail.html", &view)
}

/// The header of a repository's first page: with its trends at a glance.
fn header_with_glance<'a>(repo: &RepoHead<'a>) -> HeaderView<'a> {
    HeaderView {
        glance: trends::glance(repo.trends),
        ..header(repo)
    }
}

/// The header every page of a repository repeats.
fn header<'a>(repo: &RepoHead<'a>) -> HeaderView<'a> {
    let d = &repo.document.dataset;
    HeaderView {
        group_id: &d.group.id,
        group_name: &d.group.name,
        id: &d.repository.id,
        name: &d.repository.name,
        // The link to the host says the host's name now (a repository
        // renamed on the host keeps its configured or first-tracked name
        // in `repository.repo` and its signal ids).
        repo: if d.context.repository.is_empty() {
            &d.repository.repo
        } else {
            &d.context.repository
        },
        url: http_url(&d.context.url),
        homepage: http_url(&d.context.homepage),
        description: &d.context.description,
        stars: d.context.stars,
        forks: d.context.forks,
        language: &d.context.language,
        license: repo.license.filter(|l| !l.is_empty()),
        topics: &d.context.topics,
        keywords: &d.repository.keywords,
        archived: d.context.archived,
        counts: format!(
            "{} · {}",
            count(repo.signals as u64, "signal", "signals"),
            count(repo.event_count, "observation event", "observation events")
        ),
        collected_at: TimeView::of(repo.collected_at),
        glance: Vec::new(),
        health: health::view(repo.health),
        last_reconcile: repo.health.last_reconcile.map(TimeView::of),
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
    /// What names it in its group, if anything.
    referenced: Option<String>,
    /// Its related items in its group, if any.
    similar: Option<String>,
}

/// Where an importance stands in a repository: ties share the place of
/// the first of them (competition ranking).
struct Standing {
    /// `3 of 399`.
    rank: String,
    /// `top 1%`.
    percentile: String,
}

impl Standing {
    fn of(place: usize, total: usize) -> Standing {
        let pct = (place * 100).div_ceil(total.max(1)).max(1);
        Standing {
            rank: format!("{place} of {total}"),
            percentile: format!("top {pct}%"),
        }
    }
}

/// The card of the signal at `ranked.place` of `total`.
fn card(ranked: &Ranked, total: usize) -> CardView<'_> {
    let Ranked {
        signal: s,
        score,
        new,
        place,
    } = ranked;
    let Standing { rank, percentile } = Standing::of(*place, total);
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
    if s.answered == Some(true) {
        flags.push("answered");
    }
    if let Some(Some(severity)) = &s.severity
        && let Some(severity) = signals_core::Severity::parse(severity)
    {
        flags.push(severity.as_str());
    }
    if let Some(Some(_)) = &s.withdrawn_at {
        flags.push("withdrawn");
    }
    let url = http_url(&s.url);
    let key = s.tag.as_deref().unwrap_or_else(|| id_parts(&s.id).1);
    CardView {
        id: &s.id,
        history: format!("history/{}", history_file(&s.id)),
        host: signals_core::SourceId::parse(&s.source)
            .map_or_else(|_| s.source.clone(), |h| h.display_name()),
        number: item_number(kind, key),
        kind: kind.map_or("signal", ItemKind::label),
        kind_class: match kind {
            Some(ItemKind::Issue) => "issue",
            Some(ItemKind::PullRequest) => "pull-request",
            Some(ItemKind::Release) => "release",
            Some(ItemKind::Discussion) => "discussion",
            Some(ItemKind::Advisory) => "advisory",
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
        new: *new,
        comments: s.metrics.comments,
        reactions: s.metrics.reactions,
        assignees: &s.assignees,
        rank,
        percentile,
        referenced: crate::links::card_line(s),
        similar: crate::links::similar_line(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(place: usize, total: usize) -> (String, String) {
        let s = Standing::of(place, total);
        (s.rank, s.percentile)
    }

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
