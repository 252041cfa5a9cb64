//! The site's front, at `<out>`: the index of every group and repository
//! (`index.html`, from each repository's [`RepoSummary`]), the importance
//! page (`importance.html`), and the two static files every page links
//! (`style.css`, `filter.js`). The site feed is in `feed.rs`.
//!
//! The index is made from summaries kept in the publish manifest, never
//! from documents, so an export that renders one repository does not read
//! the others.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::error::SiteError;
use crate::head::{HealthNote, RepoHead};
use crate::health;
use crate::paths::{LIST_PAGE_SIZE, TOP_REPOS, document_dir};
use crate::templates::render;
use crate::text::{http_url, markdown_html};
use crate::trends::{
    Activity, RECENT_WEEKS, TrendRow, by_activity, index_sparkline, recent_activity,
};
use crate::views::{HealthView, Layout, TimeView};

/// The filter script, written once as `<out>/filter.js`.
pub const FILTER_SCRIPT: &str = concat!(
    include_str!("../templates/search.js"),
    include_str!("../templates/filter.js")
);
/// The stylesheet, written once as `<out>/style.css`.
pub const STYLESHEET: &str = include_str!("../templates/style.css");
/// The importance rule as published with the code (`docs/importance.md`);
/// the site's `importance.html` is rendered from this same text.
pub const IMPORTANCE_DOC: &str = include_str!("../../../docs/importance.md");

/// What the site index and the site feed need of one repository: small,
/// owned, and kept between exports (in the publish manifest), so the index
/// is built from summaries, never from documents, and a repository that did
/// not change is not read again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoSummary {
    /// Group id (a slug).
    pub group_id: String,
    /// Group display name.
    pub group_name: String,
    /// Repository id (a slug).
    pub id: String,
    /// Display name.
    pub name: String,
    /// `<owner>/<name>`.
    pub repo: String,
    /// The repository's description.
    pub description: String,
    /// Number of signals.
    pub signals: usize,
    /// Number of observation events.
    pub events: u64,
    /// The instant of the latest run.
    pub collected_at: Timestamp,
    /// Items first seen in the latest run.
    pub new: usize,
    /// Items changed in the latest run.
    pub changed: u64,
    /// The latest stable release: tag, http(s) link, publication time.
    pub release: Option<(String, Option<String>, String)>,
    /// Its last weeks, for the index's sparkline.
    #[serde(default)]
    pub trend: TrendRow,
    /// How its collection stood at the export.
    #[serde(default)]
    pub health: HealthNote,
}

impl RepoSummary {
    /// The summary of a repository rendered from its head.
    pub fn of_head(repo: &RepoHead<'_>) -> Result<RepoSummary, SiteError> {
        document_dir(repo.document)?;
        let d = &repo.document.dataset;
        let new = repo.new;
        let latest_events = d.runs.last().map_or(0, |r| r.changed_count);
        let release = d.news.latest_release.as_ref();
        Ok(RepoSummary {
            group_id: d.group.id.clone(),
            group_name: d.group.name.clone(),
            id: d.repository.id.clone(),
            name: d.repository.name.clone(),
            repo: d.repository.repo.clone(),
            description: d.context.description.clone(),
            signals: repo.signals,
            events: repo.event_count,
            collected_at: repo.collected_at,
            new,
            changed: latest_events.saturating_sub(new as u64),
            release: release.map(|r| {
                (
                    r.tag.clone(),
                    http_url(&r.url).map(str::to_string),
                    r.published_at.clone(),
                )
            }),
            trend: TrendRow::of(repo.trends),
            health: repo.health.clone(),
        })
    }
}

#[derive(Serialize)]
struct IndexView<'a> {
    layout: Layout,
    groups: Vec<GroupRow<'a>>,
    /// The [`TOP_REPOS`] most active repositories of the site.
    top: Vec<IndexRepo<'a>>,
    repositories: usize,
    /// Pages of the list of every repository (`repos-<n>.html`).
    list_pages: usize,
    recent_weeks: usize,
}

/// A group on the index: its latest activity in one row.
#[derive(Serialize)]
struct GroupRow<'a> {
    id: &'a str,
    name: &'a str,
    repos: usize,
    /// Its latest collection.
    #[serde(skip)]
    at: Timestamp,
    latest: Option<TimeView>,
    /// Items first seen and changed in its repositories' latest runs.
    new: usize,
    changed: u64,
    /// Repositories whose latest run found something.
    changed_repos: usize,
    /// Its repositories' recent activity, summed.
    activity: u64,
    /// Its repositories flagged failing or stale.
    flagged: usize,
}

/// One repository's row on the index and on the paged lists.
#[derive(Serialize)]
pub(crate) struct IndexRepo<'a> {
    href: String,
    id: &'a str,
    name: &'a str,
    repo: &'a str,
    group_name: &'a str,
    group_href: String,
    description: &'a str,
    signals: usize,
    events: u64,
    collected_at: TimeView,
    /// Items first seen in the latest run.
    new: usize,
    /// Items changed in the latest run.
    changed: u64,
    /// The latest stable release: tag and link.
    release_tag: Option<&'a str>,
    release_url: Option<&'a str>,
    release_at: Option<TimeView>,
    feed: String,
    /// Its recent activity ([`recent_activity`]).
    activity: u64,
    /// Its activity over the last weeks, drawn (escaped SVG, labelled
    /// with its numbers).
    sparkline: String,
    /// A flag when its collection is failing or its data stale.
    health: Option<HealthView>,
}

impl<'a> IndexRepo<'a> {
    /// The row of `r` on a page at `root` (`""` at the site's folder,
    /// `"../"` in a group's).
    pub(crate) fn of(r: &'a RepoSummary, root: &str) -> IndexRepo<'a> {
        IndexRepo {
            new: r.new,
            changed: r.changed,
            release_tag: r.release.as_ref().map(|(tag, _, _)| tag.as_str()),
            release_url: r.release.as_ref().and_then(|(_, url, _)| url.as_deref()),
            release_at: r.release.as_ref().map(|(_, _, at)| TimeView::parse(at)),
            feed: format!("{root}{}/{}/feed.atom", r.group_id, r.id),
            href: format!("{root}{}/{}/index.html", r.group_id, r.id),
            id: &r.id,
            name: &r.name,
            repo: &r.repo,
            group_name: &r.group_name,
            group_href: format!("{root}{}/index.html", r.group_id),
            description: &r.description,
            signals: r.signals,
            events: r.events,
            collected_at: TimeView::of(r.collected_at),
            activity: recent_activity(&r.trend),
            sparkline: index_sparkline(&r.trend),
            health: health::view(&r.health),
        }
    }
}

/// `repos` in the order of the ranked tables and lists ([`by_activity`]).
pub(crate) fn ranked(repos: &[RepoSummary]) -> Vec<&RepoSummary> {
    let mut all: Vec<(u64, &RepoSummary)> = repos
        .iter()
        .map(|r| (recent_activity(&r.trend), r))
        .collect();
    fn key(recent: u64, r: &RepoSummary) -> Activity<'_> {
        Activity {
            recent,
            name: &r.name,
            id: &r.id,
        }
    }
    all.sort_by(|a, b| by_activity(key(a.0, a.1), key(b.0, b.1)));
    all.into_iter().map(|(_, r)| r).collect()
}

/// The site index: every group in one row with its latest
/// activity (by name, then id); the [`TOP_REPOS`] most active repositories
/// of the site (by recent activity, [`by_activity`]); and a link to the
/// paged list of every repository (`repos-<n>.html`, `roster.rs`). Its size
/// grows with the number of groups only.
pub fn render_index(repos: &[RepoSummary]) -> Result<String, SiteError> {
    let mut groups: Vec<GroupRow<'_>> = Vec::new();
    for r in repos {
        let i = match groups.iter().position(|g| g.id == r.group_id) {
            Some(i) => i,
            None => {
                groups.push(GroupRow {
                    id: &r.group_id,
                    name: &r.group_name,
                    repos: 0,
                    at: r.collected_at,
                    latest: None,
                    new: 0,
                    changed: 0,
                    changed_repos: 0,
                    activity: 0,
                    flagged: 0,
                });
                groups.len() - 1
            }
        };
        let g = &mut groups[i];
        g.repos += 1;
        g.at = g.at.max(r.collected_at);
        g.new += r.new;
        g.changed += r.changed;
        g.changed_repos += usize::from(r.new > 0 || r.changed > 0);
        g.activity += recent_activity(&r.trend);
        g.flagged += usize::from(health::view(&r.health).is_some());
    }
    groups.sort_by(|a, b| a.name.cmp(b.name).then(a.id.cmp(b.id)));
    for g in &mut groups {
        g.latest = Some(TimeView::of(g.at));
    }
    let top = ranked(repos)
        .into_iter()
        .take(TOP_REPOS)
        .map(|r| IndexRepo::of(r, ""))
        .collect();
    render(
        "index.html",
        &IndexView {
            layout: Layout {
                title: "Repo Signals".to_string(),
                root: "",
                base: None,
                feed: Some("feed.atom".to_string()),
                filter_index: None,
            },
            groups,
            top,
            repositories: repos.len(),
            list_pages: repos.len().div_ceil(LIST_PAGE_SIZE).max(1),
            recent_weeks: RECENT_WEEKS,
        },
    )
}

/// The importance rule as a page of the site (`<out>/importance.html`),
/// rendered from the same Markdown as `docs/importance.md`.
pub fn render_importance() -> Result<String, SiteError> {
    #[derive(Serialize)]
    struct View {
        layout: Layout,
        body: String,
    }
    render(
        "importance.html",
        &View {
            layout: Layout {
                title: "Repo Signals · importance".to_string(),
                root: "",
                base: None,
                feed: None,
                filter_index: None,
            },
            body: markdown_html(IMPORTANCE_DOC),
        },
    )
}
