//! The group digest: one page per group (`<out>/<group>/index.html`) with
//! what matters across its repositories, in this order: what
//! its latest runs changed, what is rising, the top signals by importance
//! (each naming its repository), then the [`TOP_REPOS`] most active
//! repositories side by side with their releases and "Publicly indicated
//! next" (every repository is on the paged list, `roster.rs`), and the
//! observation trail of the latest runs; with its own Atom feed and
//! filter index. Its size does not grow with the number of repositories.
//!
//! Memory is bounded whatever the number of repositories: each repository
//! contributes a small [`RepoDigest`] (its [`DIGEST_SIGNALS`] best signals,
//! at most [`DIGEST_TRAIL`] events of its latest run, its newest
//! [`crate::FEED_ENTRIES`] feed entries and its news), made while its page is
//! rendered and written beside it as `digest.json`. A [`GroupDigest`]
//! folds the digests of one group in, keeping only the best
//! [`DIGEST_SIGNALS`] signals, the newest [`DIGEST_TRAIL`] events and the
//! newest feed entries, so a group page never needs the documents of its
//! repositories: only the news list grows with the group, one short entry
//! per repository. Everything here is pure: values in, strings out.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use signals_core::dataset::SignalDoc;
use signals_core::trends::RISING;
use signals_core::{EventKind, ItemKind, TrailEvent};

use crate::advisories::{self, AdvisoryEntry};
use crate::charts::{Spark, nice_max, num, sparkline};
use crate::error::SiteError;
use crate::feed::{FeedEntry, FeedView, feed_entry_of, keep_newest, under};
use crate::filter::{self, FILTER_INDEX_VERSION, FilterEntry, GroupIndex};
use crate::head::{HealthNote, RepoHead};
use crate::health;
use crate::links::{SharedEntry, StoryEntry};
use crate::paths::{
    FILTER_INDEX_FILE, LIST_PAGE_SIZE, TOP_REPOS, document_dir, history_file, id_parts,
    item_number, slug,
};
use crate::source::Ranked;
use crate::templates::render;
use crate::text::http_url;
use crate::trends::{
    Activity, RECENT_WEEKS, SMALL_WEEKS, TrendRow, by_activity, listed, recent_activity,
    rising_views,
};
use crate::views::{HealthView, Layout, TimeView};
use crate::waiting::{self, WaitingEntry};

/// Signals on a group page, and the most one repository contributes.
pub const DIGEST_SIGNALS: usize = 50;
/// Observation events of the latest runs on a group page, and the most one
/// repository contributes.
pub const DIGEST_TRAIL: usize = 40;
/// "Publicly indicated next" entries shown per repository on a group page.
pub const DIGEST_NEXT: usize = 3;
/// The name of a repository's digest file, beside its pages.
pub const DIGEST_FILE: &str = "digest.json";

/// What one repository contributes to its group's page; small and owned,
/// so it can be kept on disk between exports and read back one at a time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepoDigest {
    pub(crate) group_id: String,
    pub(crate) group_name: String,
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) repo: String,
    pub(crate) signals_total: usize,
    /// The best signals, in page order, links relative to the group folder.
    pub(crate) signals: Vec<FilterEntry>,
    /// Events of the latest run, in page order (changes first).
    pub(crate) trail: Vec<DigestEvent>,
    /// Events of the latest run in all (`trail` may hold fewer).
    pub(crate) trail_total: usize,
    pub(crate) collected_at: String,
    pub(crate) release: Option<DigestRelease>,
    pub(crate) next: Vec<DigestNext>,
    /// "Next" entries beyond those in `next`.
    pub(crate) next_more: usize,
    /// The newest signals as feed entries, fallback links relative to the
    /// group folder.
    pub(crate) feed: Vec<FeedEntry>,
    /// Its last weeks, for the group's small multiples.
    #[serde(default)]
    pub(crate) trend: TrendRow,
    /// Its rising items, links relative to the group folder.
    #[serde(default)]
    pub(crate) rising: Vec<DigestRising>,
    /// How its collection stood at the export.
    #[serde(default)]
    pub(crate) health: HealthNote,
    /// Its items waiting for a reply, links relative to the
    /// group folder.
    #[serde(default)]
    pub(crate) waiting: Vec<WaitingEntry>,
    /// Its open security advisories, links relative to the group folder.
    #[serde(default)]
    pub(crate) advisories: Vec<AdvisoryEntry>,
}

/// A rising item, on the group page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct DigestRising {
    id: String,
    title: String,
    url: Option<String>,
    history: String,
    from: u64,
    to: u64,
    growth: u64,
    repo: Option<String>,
}

/// One observation event of a latest run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct DigestEvent {
    kind: String,
    detail: String,
    item_kind: String,
    number: String,
    title: String,
    url: Option<String>,
    at: String,
    /// Display name of the repository.
    repo: String,
    /// The repository's page, relative to the group folder.
    href: String,
    /// The item's history page, relative to the group folder.
    history: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct DigestRelease {
    tag: String,
    url: Option<String>,
    published_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct DigestNext {
    /// `prerelease` or `milestone`.
    kind: String,
    title: String,
    url: Option<String>,
    /// Milestones: percent done.
    progress: Option<u8>,
}

impl RepoDigest {
    /// The digest of one repository from its head, its best signals in
    /// page order (at most [`DIGEST_SIGNALS`]), the first events of its
    /// latest run in trail order (at most [`DIGEST_TRAIL`]) and how many
    /// there are, and its newest signals with their importance.
    pub fn of_parts(
        repo: &RepoHead<'_>,
        top: &[Ranked],
        latest: &[TrailEvent],
        latest_total: usize,
        newest: &[(SignalDoc, u32)],
    ) -> Result<RepoDigest, SiteError> {
        document_dir(repo.document)?;
        let d = &repo.document.dataset;
        let prefix = format!("{}/", d.repository.id);
        let signals: Vec<FilterEntry> = top
            .iter()
            .take(DIGEST_SIGNALS)
            .enumerate()
            .map(|(i, r)| {
                let mut e = filter::entry(r.shown(), i, &prefix);
                e.repo = Some(d.repository.name.clone());
                e
            })
            .collect();
        let trail_total = latest_total;
        let href = format!("{prefix}index.html");
        let trail = latest
            .iter()
            .take(DIGEST_TRAIL)
            .map(|e| {
                let (kind, key) = id_parts(&e.item_id);
                DigestEvent {
                    kind: e.kind.as_str().to_string(),
                    detail: match e.kind {
                        EventKind::Discovered => "initial snapshot".to_string(),
                        EventKind::Changed => e.detail.clone(),
                    },
                    item_kind: kind.map_or("item", ItemKind::label).to_string(),
                    number: item_number(kind, key),
                    title: e.title.clone(),
                    url: http_url(&e.url).map(str::to_string),
                    at: format!("{:.0}", e.at),
                    repo: d.repository.name.clone(),
                    href: href.clone(),
                    history: format!("{prefix}history/{}", history_file(&e.item_id)),
                }
            })
            .collect();
        let release = d.news.latest_release.as_ref().map(|r| DigestRelease {
            tag: r.tag.clone(),
            url: http_url(&r.url).map(str::to_string),
            published_at: r.published_at.clone(),
        });
        let mut next: Vec<DigestNext> = repo
            .news
            .next_prereleases
            .iter()
            .map(|p| DigestNext {
                kind: "prerelease".into(),
                title: p.title.clone(),
                url: http_url(&p.url).map(str::to_string),
                progress: None,
            })
            .chain(d.news.upcoming.iter().map(|m| DigestNext {
                kind: "milestone".into(),
                title: m.title.clone(),
                url: http_url(&m.url).map(str::to_string),
                progress: Some(m.progress),
            }))
            .collect();
        let next_more = next.len().saturating_sub(DIGEST_NEXT);
        next.truncate(DIGEST_NEXT);
        let feed = newest
            .iter()
            .map(|(s, importance)| feed_entry_of(s, *importance, &href))
            .collect();
        Ok(RepoDigest {
            group_id: d.group.id.clone(),
            group_name: d.group.name.clone(),
            id: d.repository.id.clone(),
            name: d.repository.name.clone(),
            repo: d.repository.repo.clone(),
            signals_total: repo.signals,
            signals,
            trail,
            trail_total,
            collected_at: format!("{:.0}", repo.collected_at),
            release,
            next,
            next_more,
            feed,
            trend: TrendRow::of(repo.trends),
            rising: repo
                .trends
                .rising
                .iter()
                .zip(rising_views(repo.trends, &prefix))
                .map(|(r, v)| DigestRising {
                    id: r.id.clone(),
                    title: v.title,
                    url: v.url,
                    history: v.history,
                    from: v.from,
                    to: v.to,
                    growth: v.growth,
                    repo: Some(d.repository.name.clone()),
                })
                .collect(),
            health: repo.health.clone(),
            waiting: Vec::new(),
            advisories: Vec::new(),
        })
    }

    /// The group this digest belongs to.
    pub fn group_id(&self) -> &str {
        &self.group_id
    }

    /// The digest as JSON (`digest.json`).
    /// Escaped like the filter index, so it stays inert if served.
    pub fn to_json(&self) -> Result<String, SiteError> {
        filter::to_json(self, &format!("{}/{}", self.group_id, self.id))
    }

    /// Reads a digest written by [`RepoDigest::to_json`]; `None` when it is
    /// not one (a site written before digests existed).
    pub fn parse(bytes: &[u8]) -> Option<RepoDigest> {
        serde_json::from_slice(bytes).ok()
    }
}

/// The news of one repository on the group page.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct RepoNews {
    id: String,
    name: String,
    repo: String,
    href: String,
    collected_at: String,
    signals_total: usize,
    release: Option<DigestRelease>,
    next: Vec<DigestNext>,
    next_more: usize,
    /// Events of its latest run.
    latest_events: usize,
    /// Its recent activity (`trends::recent_activity`).
    activity: u64,
    /// A notice when its collection is failing or its data stale.
    health: Option<HealthView>,
}

/// A group's page in the making: fold in each repository's digest with
/// [`GroupDigest::add`], then [`render_group`]. Holds at most
/// [`DIGEST_SIGNALS`] signals, [`DIGEST_TRAIL`] events and
/// [`crate::FEED_ENTRIES`] feed entries, plus one news entry per repository.
#[derive(Debug, Clone)]
pub struct GroupDigest {
    id: String,
    name: String,
    signals: Vec<FilterEntry>,
    signals_total: usize,
    trail: Vec<DigestEvent>,
    feed: Vec<FeedEntry>,
    repos: Vec<RepoNews>,
    /// Per repository: name, page, last weeks (one small row each).
    trends: Vec<(String, String, TrendRow)>,
    /// The group's rising items: the [`RISING`] that grew most.
    rising: Vec<DigestRising>,
    /// The items named from several of its repositories.
    shared: Vec<SharedEntry>,
    /// The same story in several of its repositories.
    stories: Vec<StoryEntry>,
    /// The group's items waiting for a reply, most important first.
    waiting: Vec<WaitingEntry>,
    /// The group's open security advisories, most severe first.
    advisories: Vec<AdvisoryEntry>,
}

/// Page order across repositories: importance, then update time (newest
/// first), then id.
fn by_importance(a: &FilterEntry, b: &FilterEntry) -> std::cmp::Ordering {
    b.importance
        .cmp(&a.importance)
        .then_with(|| b.updated.cmp(&a.updated))
        .then_with(|| a.id.as_bytes().cmp(b.id.as_bytes()))
}

impl GroupDigest {
    /// Its repositories' ids and names.
    pub(crate) fn members(&self) -> impl Iterator<Item = (&str, &str)> {
        self.repos.iter().map(|r| (r.id.as_str(), r.name.as_str()))
    }

    /// The group's newest feed entries, links relative to the group folder.
    pub(crate) fn feed(&self) -> &[FeedEntry] {
        &self.feed
    }

    /// An empty digest of group `id` named `name`.
    pub fn new(id: &str, name: &str) -> GroupDigest {
        GroupDigest {
            id: id.to_string(),
            name: name.to_string(),
            signals: Vec::new(),
            signals_total: 0,
            trail: Vec::new(),
            feed: Vec::new(),
            repos: Vec::new(),
            trends: Vec::new(),
            rising: Vec::new(),
            shared: Vec::new(),
            stories: Vec::new(),
            waiting: Vec::new(),
            advisories: Vec::new(),
        }
    }

    /// The items of the group that items of several of its repositories
    /// name, as the store found them, for the group page.
    pub fn set_shared(&mut self, shared: Vec<SharedEntry>) {
        self.shared = shared;
    }

    /// The stories told in several of its repositories, for the group page.
    pub fn set_stories(&mut self, stories: Vec<StoryEntry>) {
        self.stories = stories;
    }

    /// The group's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Folds one repository in, keeping only what the page shows.
    pub fn add(&mut self, d: RepoDigest) {
        self.signals_total += d.signals_total;
        self.signals.extend(d.signals);
        self.signals.sort_by(by_importance);
        self.signals.truncate(DIGEST_SIGNALS);
        self.trail.extend(d.trail);
        // Newest runs first for the cut; shown oldest first.
        self.trail
            .sort_by(|a, b| b.at.cmp(&a.at).then(a.repo.cmp(&b.repo)));
        self.trail.truncate(DIGEST_TRAIL);
        self.feed.extend(d.feed);
        keep_newest(&mut self.feed);
        let activity = recent_activity(&d.trend);
        self.trends
            .push((d.name.clone(), format!("{}/index.html", d.id), d.trend));
        self.rising.extend(d.rising);
        self.rising
            .sort_by(|a, b| b.growth.cmp(&a.growth).then_with(|| a.id.cmp(&b.id)));
        self.rising.truncate(RISING);
        waiting::merge(&mut self.waiting, d.waiting);
        advisories::merge(&mut self.advisories, d.advisories);
        self.repos.push(RepoNews {
            activity,
            href: format!("{}/index.html", d.id),
            id: d.id,
            name: d.name,
            repo: d.repo,
            collected_at: d.collected_at,
            signals_total: d.signals_total,
            release: d.release,
            next: d.next,
            next_more: d.next_more,
            latest_events: d.trail_total,
            health: health::view(&d.health),
        });
    }
}

/// Renders a group's files, relative to the output folder:
/// `<group>/index.html`, `<group>/feed.atom` and `<group>/signals.json`
/// (the filter index of the page's signals). `base_url` makes the feed's
/// links absolute.
pub fn render_group(
    g: &GroupDigest,
    base_url: Option<&str>,
) -> Result<Vec<(PathBuf, String)>, SiteError> {
    let dir = PathBuf::from(slug("group", &g.id)?);
    let mut repos = g.repos.clone();
    fn key(r: &RepoNews) -> Activity<'_> {
        Activity {
            recent: r.activity,
            name: &r.name,
            id: &r.id,
        }
    }
    repos.sort_by(|a, b| by_activity(key(a), key(b)));
    let changed = ChangedView::of(&repos);
    let top = &repos[..repos.len().min(TOP_REPOS)];
    let mut trail = g.trail.clone();
    trail.reverse();
    let html = render(
        "group.html",
        &GroupView {
            layout: Layout {
                title: format!("{} · group digest", g.name),
                root: "../",
                base: Some(format!("{}/index.html", dir.display())),
                feed: Some("feed.atom".to_string()),
                filter_index: Some(FILTER_INDEX_FILE),
            },
            name: &g.name,
            id: &g.id,
            repos_total: g.repos.len(),
            repos: top,
            changed,
            cards: g.signals.iter().map(CardView::of).collect(),
            signals_total: g.signals_total,
            trail: trail.iter().map(EventView::of).collect(),
            trends: GroupTrends::of(&g.trends),
            group_rising: &g.rising,
            shared: &g.shared,
            stories: &g.stories,
            waiting: &g.waiting,
            advisories: &g.advisories,
            list_pages: g.repos.len().div_ceil(LIST_PAGE_SIZE).max(1),
            recent_weeks: RECENT_WEEKS,
        },
    )?;
    // The filter index names every repository's part, by name.
    let mut repos = g.repos.clone();
    repos.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
    let index = filter::to_json(
        &GroupIndex {
            version: FILTER_INDEX_VERSION,
            total: g.signals_total,
            parts: repos
                .iter()
                .map(|r| filter::IndexPart {
                    index: format!("{}/{FILTER_INDEX_FILE}", r.id),
                    prefix: format!("{}/", r.id),
                    repo: r.name.clone(),
                })
                .collect(),
        },
        &g.id,
    )?;
    let prefix = base_url.map(|b| format!("{b}{}/", g.id));
    let feed = render(
        "feed.atom",
        &FeedView {
            home: under(prefix.as_deref(), "index.html"),
            self_href: under(prefix.as_deref(), "feed.atom"),
            id: format!("urn:signals:feed:group:{}", g.id),
            title: format!("{} · signals of the group", g.name),
            updated: g_updated(g),
            entries: g.feed.iter().map(|e| e.under(prefix.as_deref())).collect(),
        },
    )?;
    Ok(vec![
        (dir.join("index.html"), html),
        (dir.join("feed.atom"), feed),
        (dir.join(FILTER_INDEX_FILE), index),
    ])
}

/// The latest collection instant of the group's repositories.
fn g_updated(g: &GroupDigest) -> String {
    g.repos
        .iter()
        .map(|r| r.collected_at.as_str())
        .max()
        .unwrap_or("1970-01-01T00:00:00Z")
        .to_string()
}

#[derive(Serialize)]
struct GroupView<'a> {
    layout: Layout,
    name: &'a str,
    id: &'a str,
    /// Its repositories in all.
    repos_total: usize,
    /// The [`TOP_REPOS`] most active, for the news.
    repos: &'a [RepoNews],
    changed: ChangedView<'a>,
    /// Pages of its list of repositories (`repos-<n>.html`).
    list_pages: usize,
    recent_weeks: usize,
    cards: Vec<CardView<'a>>,
    signals_total: usize,
    trail: Vec<EventView<'a>>,
    trends: GroupTrends,
    group_rising: &'a [DigestRising],
    shared: &'a [SharedEntry],
    stories: &'a [StoryEntry],
    waiting: &'a [WaitingEntry],
    advisories: &'a [AdvisoryEntry],
}

/// Repositories named in "What changed", and releases listed there.
const CHANGED_LISTED: usize = 10;
/// How recent a release is to be listed in "What changed", before the
/// group's latest collection.
const RECENT_RELEASE_DAYS: i64 = 7;

/// The top of a group page: what its latest runs found, in a
/// few lines whatever the size of the group.
#[derive(Serialize)]
struct ChangedView<'a> {
    /// The group's latest collection.
    latest: Option<TimeView>,
    /// Observation events of the latest runs, summed.
    events: usize,
    /// Repositories whose latest run found something.
    repos: usize,
    /// The [`CHANGED_LISTED`] repositories whose latest run found most
    /// (then by name).
    most: Vec<&'a RepoNews>,
    /// Releases published in the [`RECENT_RELEASE_DAYS`] days before the
    /// latest collection, newest first, at most [`CHANGED_LISTED`].
    releases: Vec<&'a RepoNews>,
    /// Such releases in all.
    releases_total: usize,
    release_days: i64,
}

impl<'a> ChangedView<'a> {
    fn of(repos: &'a [RepoNews]) -> ChangedView<'a> {
        let latest = repos
            .iter()
            .filter_map(|r| r.collected_at.parse::<jiff::Timestamp>().ok())
            .max();
        let mut most: Vec<&RepoNews> = repos.iter().filter(|r| r.latest_events > 0).collect();
        let changed = most.len();
        most.sort_by(|a, b| {
            b.latest_events
                .cmp(&a.latest_events)
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| a.id.cmp(&b.id))
        });
        most.truncate(CHANGED_LISTED);
        let since = latest.map(|t| t - jiff::SignedDuration::from_hours(24 * RECENT_RELEASE_DAYS));
        let mut releases: Vec<(jiff::Timestamp, &RepoNews)> = repos
            .iter()
            .filter_map(|r| {
                let at = r
                    .release
                    .as_ref()?
                    .published_at
                    .parse::<jiff::Timestamp>()
                    .ok()?;
                (Some(at) >= since).then_some((at, r))
            })
            .collect();
        let releases_total = releases.len();
        releases.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
        releases.truncate(CHANGED_LISTED);
        ChangedView {
            latest: latest.map(TimeView::of),
            events: repos.iter().map(|r| r.latest_events).sum(),
            repos: changed,
            most,
            releases: releases.into_iter().map(|(_, r)| r).collect(),
            releases_total,
            release_days: RECENT_RELEASE_DAYS,
        }
    }
}

/// The group's repositories side by side: one row each, its sparklines
/// on scales shared by the whole group, so the rows compare.
#[derive(Serialize)]
struct GroupTrends {
    rows: Vec<TrendRowView>,
    /// The span of the weeks, `2026-09-01 to 2026-11-17`.
    span: String,
    /// The shared scales' tops.
    activity_top: String,
    stars_top: String,
    backlog_top: String,
    /// The same rows sorted by lifecycle state, in rule order (archived
    /// first), then as ranked; empty when no repository was judged.
    by_state: Vec<StateRowView>,
}

/// A repository's verdict in the group's table sorted by state.
#[derive(Serialize)]
struct StateRowView {
    name: String,
    href: String,
    state: String,
    dependency: String,
}

#[derive(Serialize)]
struct TrendRowView {
    name: String,
    href: String,
    activity: String,
    stars: String,
    backlog: String,
    /// The numbers in words, for the data table.
    activity_text: String,
    stars_text: String,
    backlog_text: String,
    /// Its lifecycle state (empty before a run judged it) and who
    /// carries it.
    state: String,
    dependency: String,
}

impl GroupTrends {
    fn of(rows: &[(String, String, TrendRow)]) -> GroupTrends {
        // Ranked as the group's list is; the ids are in the links.
        let mut rows: Vec<(u64, &(String, String, TrendRow))> =
            rows.iter().map(|r| (recent_activity(&r.2), r)).collect();
        fn key<'a>(recent: u64, name: &'a str, id: &'a str) -> Activity<'a> {
            Activity { recent, name, id }
        }
        rows.sort_by(|a, b| by_activity(key(a.0, &a.1.0, &a.1.1), key(b.0, &b.1.0, &b.1.1)));
        rows.truncate(TOP_REPOS);
        let rows: Vec<&(String, String, TrendRow)> = rows.into_iter().map(|(_, r)| r).collect();
        let top = |f: &dyn Fn(&TrendRow) -> Vec<Option<u64>>| {
            nice_max(
                rows.iter()
                    .flat_map(|r| f(&r.2))
                    .flatten()
                    .max()
                    .unwrap_or(0) as f64,
            )
        };
        let activity = |t: &TrendRow| t.activity.iter().copied().map(Some).collect();
        let stars = |t: &TrendRow| t.star_growth();
        let backlog = |t: &TrendRow| t.backlog.clone();
        let (ta, ts, tb) = (top(&activity), top(&stars), top(&backlog));
        let spark = |name: &str, what: &str, values: Vec<Option<u64>>, top: f64, shape: Spark| {
            let label = format!(
                "{name}: {what} per week: {}",
                listed(values.iter().copied())
            );
            let values: Vec<Option<f64>> = values.iter().map(|v| v.map(|v| v as f64)).collect();
            sparkline(&label, &values, top, shape)
        };
        let span = rows
            .iter()
            .find_map(|r| Some((r.2.weeks.first()?, r.2.weeks.last()?)))
            .map(|(a, b)| format!("the {SMALL_WEEKS} weeks from {a} to the week of {b}"))
            .unwrap_or_default();
        GroupTrends {
            rows: rows
                .iter()
                .map(|(name, href, t)| TrendRowView {
                    name: name.clone(),
                    href: href.clone(),
                    activity: spark(
                        name,
                        "items opened plus closed or merged",
                        activity(t),
                        ta,
                        Spark::Bars,
                    ),
                    stars: spark(name, "stars gained", stars(t), ts, Spark::Line),
                    backlog: spark(
                        name,
                        "open issues at the week's end",
                        backlog(t),
                        tb,
                        Spark::Line,
                    ),
                    activity_text: listed(activity(t).into_iter()),
                    stars_text: listed(stars(t).into_iter()),
                    backlog_text: listed(backlog(t).into_iter()),
                    state: t
                        .lifecycle
                        .as_ref()
                        .map_or(String::new(), |l| l.state.clone()),
                    dependency: t
                        .lifecycle
                        .as_ref()
                        .map_or(String::new(), |l| l.dependency_text()),
                })
                .collect(),
            by_state: by_state(&rows),
            span,
            activity_top: num(ta),
            stars_top: num(ts),
            backlog_top: num(tb),
        }
    }
}

/// The judged rows of the side-by-side table, sorted by lifecycle state
/// in rule order; ties keep the activity ranking.
fn by_state(rows: &[&(String, String, TrendRow)]) -> Vec<StateRowView> {
    let mut judged: Vec<(&crate::verdict::LifecycleCell, &String, &String)> = rows
        .iter()
        .filter_map(|(name, href, t)| Some((t.lifecycle.as_ref()?, name, href)))
        .collect();
    judged.sort_by_key(|(l, _, _)| l.rank);
    judged
        .into_iter()
        .map(|(l, name, href)| StateRowView {
            name: name.clone(),
            href: href.clone(),
            state: l.state.clone(),
            dependency: l.dependency_text(),
        })
        .collect()
}

/// A signal card of the group page; the full card is on its repository's
/// page.
#[derive(Serialize)]
struct CardView<'a> {
    s: &'a FilterEntry,
    kind: &'static str,
    kind_class: String,
    updated: TimeView,
}

impl<'a> CardView<'a> {
    fn of(s: &'a FilterEntry) -> CardView<'a> {
        CardView {
            s,
            kind: ItemKind::parse(&s.kind).map_or("signal", ItemKind::label),
            kind_class: s.kind.replace('_', "-"),
            updated: TimeView::parse(&s.updated),
        }
    }
}

#[derive(Serialize)]
struct EventView<'a> {
    e: &'a DigestEvent,
    at: TimeView,
}

impl<'a> EventView<'a> {
    fn of(e: &'a DigestEvent) -> EventView<'a> {
        EventView {
            e,
            at: TimeView::parse(&e.at),
        }
    }
}
