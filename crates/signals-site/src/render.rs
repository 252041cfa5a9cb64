//! Pure rendering: domain values in, file contents out.
//!
//! Templates are embedded with `include_str!` and see only the view types
//! below, which borrow from the document and are built here. Host text
//! reaches the templates as plain strings and is HTML-escaped on output; the
//! only pre-rendered HTML is sanitized release notes (see `text.rs`), the
//! only links are http(s) URLs that passed `text::http_url`.

use std::collections::HashSet;
use std::sync::LazyLock;

use jiff::Timestamp;
use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value};
use serde::{Deserialize, Serialize};
use signals_core::dataset::{Document, SignalDoc};
use signals_core::importance::{RankKey, Score, rank};
use signals_core::{EventKind, ItemDetail, ItemKind};

use crate::filter::{IndexFile, IndexWriter};
use crate::pages::RepoHead;
use crate::text::{excerpt, http_url, markdown_html};
use crate::{RepoPage, SiteError};

/// Signal cards per page.
pub const PAGE_SIZE: usize = 50;
/// Observation events per trail page.
pub const TRAIL_PAGE_SIZE: usize = 200;
/// Latest observation events shown on a repository's first page.
pub const TRAIL_PREVIEW: usize = 20;
/// Signals in a repository's Atom feed (the newest by `updatedAt`).
pub const FEED_ENTRIES: usize = 30;
/// The filter script, written once as `<out>/filter.js`.
pub const FILTER_SCRIPT: &str = include_str!("../templates/filter.js");
/// Name of the filter index beside a page with signals.
pub const FILTER_INDEX_FILE: &str = "signals.json";
/// The stylesheet, written once as `<out>/style.css`.
pub const STYLESHEET: &str = include_str!("../templates/style.css");
/// A run's `discovered` entries are folded into one expandable group when
/// there are more than this many of them in view.
pub const TRAIL_FOLD_MIN: usize = 3;
/// An open milestone without activity for this long is set apart from
/// "Publicly indicated next" as inactive.
pub const STALE_MILESTONE_DAYS: i64 = 365;
/// The importance rule as published with the code (`docs/importance.md`);
/// the site's `importance.html` is rendered from this same text.
pub const IMPORTANCE_DOC: &str = include_str!("../../../docs/importance.md");

static ENV: LazyLock<Environment<'static>> = LazyLock::new(|| {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .expect("the default delimiters are valid"),
    );
    // Feeds are XML; HTML escaping of text is valid XML escaping too.
    env.set_auto_escape_callback(|name| {
        if name.ends_with(".html") || name.ends_with(".atom") {
            AutoEscape::Html
        } else {
            AutoEscape::None
        }
    });
    env.set_formatter(escape_formatter);
    for (name, source) in [
        ("base.html", include_str!("../templates/base.html")),
        ("macros.html", include_str!("../templates/macros.html")),
        ("repo.html", include_str!("../templates/repo.html")),
        ("trail.html", include_str!("../templates/trail.html")),
        ("index.html", include_str!("../templates/index.html")),
        (
            "importance.html",
            include_str!("../templates/importance.html"),
        ),
        ("feed.atom", include_str!("../templates/feed.atom")),
        ("group.html", include_str!("../templates/group.html")),
        ("history.html", include_str!("../templates/history.html")),
    ] {
        env.add_template(name, source)
            .unwrap_or_else(|e| panic!("embedded template {name} does not parse: {e:#}"));
    }
    env
});

/// Escapes `& < > " '` and drops control characters (minijinja's own escaper also turns `/` into `&#x2f;`,
/// which is safe but makes every URL unreadable). `none` prints nothing.
fn escape_formatter(
    out: &mut minijinja::Output<'_>,
    state: &mut minijinja::State<'_, '_>,
    value: &Value,
) -> Result<(), minijinja::Error> {
    if value.is_none() {
        return Ok(());
    }
    if *state.auto_escape() == AutoEscape::None || value.is_safe() {
        return minijinja::escape_formatter(out, state, value);
    }
    let text = match value.as_str() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(value.to_string()),
    };
    let escaped = crate::text::escape_markup(&text);
    out.write_str(&escaped)
        .map_err(|e| minijinja::Error::new(minijinja::ErrorKind::WriteFailure, e.to_string()))
}

pub(crate) fn render(name: &'static str, ctx: &impl Serialize) -> Result<String, SiteError> {
    ENV.get_template(name)
        .and_then(|t| t.render(minijinja::value::Serde(ctx)))
        .map_err(|source| SiteError::Template { name, source })
}

/// "2026-11-21 10:00 UTC", for people.
fn human_time(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%d %H:%M UTC").to_string()
}

/// A time for a `<time>` element: machine form and human form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TimeView {
    iso: String,
    pub(crate) human: String,
}

impl TimeView {
    pub(crate) fn of(ts: Timestamp) -> TimeView {
        TimeView {
            iso: format!("{ts:.0}"),
            human: human_time(ts),
        }
    }

    /// From a document's timestamp string; shown as written if unparsable.
    pub(crate) fn parse(s: &str) -> TimeView {
        match s.parse::<Timestamp>() {
            Ok(ts) => TimeView::of(ts),
            Err(_) => TimeView {
                iso: s.to_string(),
                human: s.to_string(),
            },
        }
    }
}

/// `1 signal`, `2 signals`.
pub(crate) fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `index.html` for page 1, `page-<n>.html` after.
pub(crate) fn page_file(n: usize) -> String {
    if n == 1 {
        "index.html".to_string()
    } else {
        format!("page-{n}.html")
    }
}

/// `trail.html` for trail page 1, `trail-<n>.html` after.
pub(crate) fn trail_file(n: usize) -> String {
    if n == 1 {
        "trail.html".to_string()
    } else {
        format!("trail-{n}.html")
    }
}

/// What every page's `<head>` and frame need.
#[derive(Serialize)]
pub(crate) struct Layout {
    /// Document title.
    pub title: String,
    /// Relative path from the page to `<out>` (`""`, `"../"` or `"../../"`).
    pub root: &'static str,
    /// Atom feed of this page, if any.
    pub feed: Option<String>,
    /// The filter index of this page's signals (`signals.json`), if the
    /// page has a signal list the script can filter.
    pub filter_index: Option<&'static str>,
}

/// The repository header, shared by all its pages.
#[derive(Serialize)]
pub(crate) struct HeaderView<'a> {
    group_id: &'a str,
    group_name: &'a str,
    id: &'a str,
    name: &'a str,
    repo: &'a str,
    url: Option<&'a str>,
    homepage: Option<&'a str>,
    description: &'a str,
    stars: u64,
    forks: u64,
    language: &'a str,
    license: Option<&'a str>,
    topics: &'a [String],
    keywords: &'a [String],
    archived: bool,
    /// `<N> signals · <M> observation events`.
    counts: String,
    collected_at: TimeView,
    /// On a repository's first page: its trends at a glance, beside its
    /// facts (issue 18).
    glance: Vec<crate::trends::GlanceView>,
    /// A notice when its collection is failing or its data stale.
    health: Option<crate::health::HealthView>,
    /// Its latest reconcile (a run that listed every item).
    last_reconcile: Option<TimeView>,
}

/// `#42` for an issue or pull request, the tag for a release.
pub(crate) fn item_number(kind: Option<ItemKind>, key: &str) -> String {
    match kind {
        Some(ItemKind::Release) => key.to_string(),
        _ => format!("#{key}"),
    }
}

/// `(kind, key)` of a signal id `<source>:<owner>/<name>:<kind>:<key>`
/// (a tag cannot hold `:`, so the key is after the last one).
pub(crate) fn id_parts(id: &str) -> (Option<ItemKind>, &str) {
    let mut parts = id.rsplitn(3, ':');
    let key = parts.next().unwrap_or(id);
    let kind = parts.next().and_then(ItemKind::parse);
    (kind, key)
}

impl<'a> HeaderView<'a> {
    /// The header of a repository's first page: with its trends at a
    /// glance.
    pub(crate) fn with_glance(repo: &RepoHead<'a>) -> HeaderView<'a> {
        HeaderView {
            glance: crate::trends::glance(repo.trends),
            ..header(repo)
        }
    }
}

pub(crate) fn header<'a>(repo: &RepoHead<'a>) -> HeaderView<'a> {
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
        health: crate::health::view(repo.health),
        last_reconcile: repo.health.last_reconcile.map(TimeView::of),
    }
}

/// The project news block.
#[derive(Serialize)]
pub(crate) struct NewsView<'a> {
    latest: Option<LatestView<'a>>,
    next: Vec<NextView<'a>>,
    /// Open milestones that are overdue or inactive: set apart, since they
    /// are not what comes next.
    set_apart: Vec<NextView<'a>>,
}

#[derive(Serialize)]
struct LatestView<'a> {
    tag: &'a str,
    title: &'a str,
    url: Option<&'a str>,
    published_at: TimeView,
    highlights: &'a [String],
    /// Sanitized HTML of the full notes; empty when there are none.
    notes_html: String,
}

/// One "Publicly indicated next" entry: a prerelease or an open milestone.
#[derive(Serialize)]
struct NextView<'a> {
    kind: &'static str,
    title: &'a str,
    url: Option<&'a str>,
    /// Prereleases: the tag.
    tag: Option<&'a str>,
    /// Prereleases: when published.
    published_at: Option<TimeView>,
    /// Milestones: percent done, and the issue counts.
    progress: Option<u8>,
    open_issues: u64,
    closed_issues: u64,
    description: &'a str,
    /// Milestones: the due date, when set.
    due: Option<TimeView>,
    /// Milestones: why it is set apart (`overdue since …`, `no activity
    /// since …`), if it is.
    set_apart: Option<String>,
}

pub(crate) fn news<'a>(repo: &RepoHead<'a>) -> NewsView<'a> {
    let d = &repo.document.dataset;
    let latest = d.news.latest_release.as_ref().map(|r| LatestView {
        tag: &r.tag,
        title: &r.title,
        url: http_url(&r.url),
        published_at: TimeView::parse(&r.published_at),
        highlights: &r.highlights,
        notes_html: markdown_html(&r.notes),
    });
    let prereleases = repo.news.next_prereleases.iter().map(|p| NextView {
        kind: "prerelease",
        title: &p.title,
        url: http_url(&p.url),
        tag: Some(&p.key),
        published_at: match p.detail {
            ItemDetail::Release { published_at, .. } => Some(TimeView::of(published_at)),
            _ => None,
        },
        progress: None,
        open_issues: 0,
        closed_issues: 0,
        description: "",
        due: None,
        set_apart: None,
    });
    // The document's milestones are the news' in the same order; the
    // domain ones carry the due date and the last activity.
    let now = repo.collected_at;
    let stale_before = now - jiff::SignedDuration::from_hours(24 * STALE_MILESTONE_DAYS);
    let mut milestones: Vec<_> = d
        .news
        .upcoming
        .iter()
        .zip(repo.news.milestones.iter())
        .collect();
    // By due date, soonest first; those without one after, by title.
    milestones.sort_by(|(a, ma), (b, mb)| {
        (ma.due_on.is_none(), ma.due_on, &a.title).cmp(&(mb.due_on.is_none(), mb.due_on, &b.title))
    });
    let mut next: Vec<NextView<'a>> = prereleases.collect();
    let mut set_apart = Vec::new();
    for (m, domain) in milestones {
        let why = match (domain.due_on, domain.updated_at) {
            (Some(due), _) if due < now => Some(format!("overdue since {}", human_date(due))),
            (_, Some(active)) if active < stale_before => {
                Some(format!("no activity since {}", human_date(active)))
            }
            _ => None,
        };
        let view = NextView {
            kind: "milestone",
            title: &m.title,
            url: http_url(&m.url),
            tag: None,
            published_at: None,
            progress: Some(m.progress),
            open_issues: m.open_issues,
            closed_issues: m.closed_issues,
            description: &m.description,
            due: domain.due_on.map(TimeView::of),
            set_apart: why.clone(),
        };
        if why.is_some() {
            set_apart.push(view);
        } else {
            next.push(view);
        }
    }
    NewsView {
        latest,
        next,
        set_apart,
    }
}

/// "2026-11-21", for dates where the time of day means nothing.
fn human_date(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%d").to_string()
}

/// Ids of the items first seen in the latest run (`discovered` events at
/// the latest collection instant).
pub(crate) fn new_in_latest<'a>(repo: &RepoPage<'a>) -> HashSet<&'a str> {
    repo.trail
        .iter()
        .rev()
        .take_while(|e| e.at >= repo.collected_at)
        .filter(|e| e.kind == EventKind::Discovered && e.at == repo.collected_at)
        .map(|e| e.item_id.as_str())
        .collect()
}

/// The document's signals in page order, with their scores.
pub(crate) fn ranked<'a>(
    repo: &RepoPage<'a>,
) -> Result<Vec<(&'a SignalDoc, &'a Score)>, SiteError> {
    let mut signals = repo
        .document
        .dataset
        .signals
        .iter()
        .map(|s| match repo.scores.get(&s.id) {
            Some(score) => Ok((s, score, updated_at(s))),
            None => Err(SiteError::MissingScore {
                repository: repo_label(repo.document),
                signal_id: s.id.clone(),
            }),
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

/// A signal's `updatedAt`; an unparsable one sorts as the oldest.
pub(crate) fn updated_at(s: &SignalDoc) -> Timestamp {
    s.updated_at.parse().unwrap_or(Timestamp::MIN)
}

pub(crate) fn repo_label(doc: &Document) -> String {
    format!("{}/{}", doc.dataset.group.id, doc.dataset.repository.id)
}

/// The filter index of a repository: `signals.json` and its text parts
/// (see `filter/columns.rs`), each with its name in the repository's
/// folder; every signal in page order.
pub fn render_filter_index(repo: &RepoPage<'_>) -> Result<Vec<IndexFile>, SiteError> {
    let new = new_in_latest(repo);
    let mut writer = IndexWriter::new(&repo_label(repo.document));
    let mut files = Vec::new();
    for (s, score) in ranked(repo)? {
        files.extend(writer.push(s, score, new.contains(s.id.as_str()))?);
    }
    files.extend(writer.finish()?);
    Ok(files)
}

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
    pub(crate) fn at(&self) -> Timestamp {
        self.at
            .or_else(|| self.updated.parse().ok())
            .unwrap_or(Timestamp::MIN)
    }

    pub(crate) fn id(&self) -> &str {
        &self.id
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

/// One feed entry; `fallback` is the link when the item has no http(s) URL.
pub(crate) fn feed_entry(
    repo: &RepoPage<'_>,
    s: &SignalDoc,
    fallback: &str,
) -> Result<FeedEntry, SiteError> {
    let score = repo
        .scores
        .get(&s.id)
        .ok_or_else(|| SiteError::MissingScore {
            repository: repo_label(repo.document),
            signal_id: s.id.clone(),
        })?;
    Ok(feed_entry_of(s, score.total, fallback))
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

/// The [`FEED_ENTRIES`] most recently updated signals of a repository,
/// newest first (ties by id).
pub(crate) fn newest<'a>(repo: &RepoPage<'a>) -> Vec<&'a SignalDoc> {
    let mut signals: Vec<&SignalDoc> = repo.document.dataset.signals.iter().collect();
    signals.sort_by(|a, b| {
        updated_at(b)
            .cmp(&updated_at(a))
            .then(a.id.as_bytes().cmp(b.id.as_bytes()))
    });
    signals.truncate(FEED_ENTRIES);
    signals
}

/// The Atom feed of a repository: its [`FEED_ENTRIES`] most recently updated
/// signals, newest first (ties by id). Entry ids are `urn:signals:<signal
/// id>`, stable across renames of the item's URL.
pub fn render_feed(repo: &RepoPage<'_>) -> Result<String, SiteError> {
    render_feed_at(repo, None)
}

/// `base` joined with `path` (`base` ends in `/`), or `path` alone.
pub(crate) fn under(base: Option<&str>, path: &str) -> String {
    match base {
        Some(b) => format!("{b}{path}"),
        None => path.to_string(),
    }
}

/// [`render_feed`] with absolute links under `base_url` when given.
pub fn render_feed_at(repo: &RepoPage<'_>, base_url: Option<&str>) -> Result<String, SiteError> {
    let newest = newest(repo)
        .into_iter()
        .map(|s| {
            let score = repo
                .scores
                .get(&s.id)
                .ok_or_else(|| SiteError::MissingScore {
                    repository: repo_label(repo.document),
                    signal_id: s.id.clone(),
                })?;
            Ok((s.clone(), score.total))
        })
        .collect::<Result<Vec<_>, SiteError>>()?;
    render_feed_of(&repo.head(), &newest, base_url)
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
    pub trend: crate::trends::TrendRow,
    /// How its collection stood at the export.
    #[serde(default)]
    pub health: crate::health::HealthNote,
}

impl RepoSummary {
    /// The summary of a rendered repository.
    pub fn of(repo: &RepoPage<'_>) -> Result<RepoSummary, SiteError> {
        RepoSummary::of_head(&repo.head())
    }

    /// The summary of a repository rendered from its head.
    pub fn of_head(repo: &RepoHead<'_>) -> Result<RepoSummary, SiteError> {
        repo.dir()?;
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
            trend: crate::trends::TrendRow::of(repo.trends),
            health: repo.health.clone(),
        })
    }
}

#[derive(Serialize)]
struct IndexView<'a> {
    layout: Layout,
    groups: Vec<IndexGroup<'a>>,
    repositories: usize,
}

#[derive(Serialize)]
struct IndexGroup<'a> {
    id: &'a str,
    name: &'a str,
    repos: Vec<IndexRepo<'a>>,
}

#[derive(Serialize)]
struct IndexRepo<'a> {
    href: String,
    id: &'a str,
    name: &'a str,
    repo: &'a str,
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
    /// Its activity over the last weeks, drawn (escaped SVG, labelled
    /// with its numbers).
    sparkline: String,
    /// A flag when its collection is failing or its data stale.
    health: Option<crate::health::HealthView>,
}

/// The site index: groups by name (then id), each with its repositories by
/// name (then id), their signal and event counts and last collection time.
pub fn render_index(repos: &[RepoSummary]) -> Result<String, SiteError> {
    let mut groups: Vec<IndexGroup<'_>> = Vec::new();
    for r in repos {
        let entry = IndexRepo {
            new: r.new,
            changed: r.changed,
            release_tag: r.release.as_ref().map(|(tag, _, _)| tag.as_str()),
            release_url: r.release.as_ref().and_then(|(_, url, _)| url.as_deref()),
            release_at: r.release.as_ref().map(|(_, _, at)| TimeView::parse(at)),
            feed: format!("{}/{}/feed.atom", r.group_id, r.id),
            href: format!("{}/{}/index.html", r.group_id, r.id),
            id: &r.id,
            name: &r.name,
            repo: &r.repo,
            description: &r.description,
            signals: r.signals,
            events: r.events,
            collected_at: TimeView::of(r.collected_at),
            sparkline: crate::trends::index_sparkline(&r.trend),
            health: crate::health::view(&r.health),
        };
        match groups.iter_mut().find(|g| g.id == r.group_id) {
            Some(g) => g.repos.push(entry),
            None => groups.push(IndexGroup {
                id: &r.group_id,
                name: &r.group_name,
                repos: vec![entry],
            }),
        }
    }
    groups.sort_by(|a, b| a.name.cmp(b.name).then(a.id.cmp(b.id)));
    for g in &mut groups {
        g.repos
            .sort_by(|a, b| a.name.cmp(b.name).then(a.id.cmp(b.id)));
    }
    render(
        "index.html",
        &IndexView {
            layout: Layout {
                title: "Repo Signals".to_string(),
                root: "",
                feed: Some("feed.atom".to_string()),
                filter_index: None,
            },
            groups,
            repositories: repos.len(),
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
                feed: None,
                filter_index: None,
            },
            body: markdown_html(IMPORTANCE_DOC),
        },
    )
}

/// The whole site's Atom feed (`<out>/feed.atom`): the [`FEED_ENTRIES`]
/// most recently updated signals over every repository, newest first.
pub fn render_site_feed(repos: &[RepoPage<'_>]) -> Result<String, SiteError> {
    let mut entries = Vec::new();
    for repo in repos {
        let d = &repo.document.dataset;
        let home = format!("{}/{}/index.html", d.group.id, d.repository.id);
        for s in newest(repo) {
            entries.push(feed_entry(repo, s, &home)?);
        }
    }
    let updated = repos
        .iter()
        .map(|r| r.collected_at)
        .max()
        .unwrap_or_default();
    render_site_feed_from(entries, updated, None)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_give_kind_and_number() {
        let (kind, key) = id_parts("github:o/n:pull_request:12");
        assert_eq!((kind, key), (Some(ItemKind::PullRequest), "12"));
        assert_eq!(item_number(kind, key), "#12");
        let (kind, key) = id_parts("github:o/n:release:v1.0.0-rc.1");
        assert_eq!(item_number(kind, key), "v1.0.0-rc.1");
    }
}
