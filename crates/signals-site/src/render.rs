//! Pure rendering: domain values in, file contents out.
//!
//! Templates are embedded with `include_str!` and see only the view types
//! below, which borrow from the document and are built here. Host text
//! reaches the templates as plain strings and is HTML-escaped on output; the
//! only pre-rendered HTML is sanitized release notes (see `text.rs`), the
//! only links are http(s) URLs that passed `text::http_url`.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::LazyLock;

use jiff::Timestamp;
use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value};
use serde::{Deserialize, Serialize};
use signals_core::dataset::{Document, SignalDoc};
use signals_core::importance::{RankKey, Score, rank};
use signals_core::{EventKind, ItemDetail, ItemKind, TrailEvent};

use crate::filter::{IndexFile, IndexWriter};
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
    human: String,
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
fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
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
fn trail_file(n: usize) -> String {
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
struct HeaderView<'a> {
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

fn header<'a>(repo: &RepoPage<'a>) -> HeaderView<'a> {
    let d = &repo.document.dataset;
    HeaderView {
        group_id: &d.group.id,
        group_name: &d.group.name,
        id: &d.repository.id,
        name: &d.repository.name,
        repo: &d.repository.repo,
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
            count(d.signals.len() as u64, "signal", "signals"),
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
struct NewsView<'a> {
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

fn news<'a>(repo: &RepoPage<'a>) -> NewsView<'a> {
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

/// One observation trail entry.
#[derive(Serialize)]
struct TrailEntryView<'a> {
    /// 1-based position in the whole trail (in page order).
    n: usize,
    kind: &'static str,
    /// The spec's detail: `initial snapshot`, or the changed field names.
    detail: &'a str,
    /// The change in words: `new comments or reactions, closed`.
    words: String,
    item_id: &'a str,
    /// The item's history page, relative to the repository's folder.
    history: String,
    /// `issue`, `pull request`, `release`.
    item_kind: &'static str,
    /// `#42`, or a release's tag.
    number: String,
    title: &'a str,
    url: Option<&'a str>,
    at: TimeView,
}

/// A row of the trail list: one entry, or a run's folded `discovered`
/// entries.
#[derive(Serialize)]
struct TrailRowView<'a> {
    entry: Option<TrailEntryView<'a>>,
    group: Option<TrailGroupView<'a>>,
}

/// A run's `discovered` entries, folded into one expandable group.
#[derive(Serialize)]
struct TrailGroupView<'a> {
    /// Number of the first entry.
    n: usize,
    count: usize,
    at: TimeView,
    entries: Vec<TrailEntryView<'a>>,
}

/// The trail in page order: runs chronologically; within a run, `changed`
/// entries before `discovered` ones, each by item kind and then by number
/// as a number (issue 2 before issue 10), tags as text. The store's order
/// within a run is by id as text, which reads as 1, 10, 100, 2.
pub(crate) fn ordered_trail(trail: &[TrailEvent]) -> Vec<&TrailEvent> {
    let mut out: Vec<&TrailEvent> = trail.iter().collect();
    out.sort_by_cached_key(|e| {
        let (kind, key) = id_parts(&e.item_id);
        (
            e.at,
            e.kind == EventKind::Discovered,
            kind.map_or(3, |k| k as u8),
            key.parse::<u64>().unwrap_or(u64::MAX),
            key.to_string(),
        )
    });
    out
}

/// The words for a change: the spec's field names said as a reader would.
/// `state` is said as `closed` or `reopened` for the item's latest state
/// change (the item's current state tells which), else as both.
fn change_words(detail: &str, latest_state_change: Option<&str>) -> String {
    let fields: Vec<&str> = detail.split(',').map(str::trim).collect();
    let mut words: Vec<&str> = fields
        .iter()
        .filter_map(|f| match *f {
            "title" => Some("retitled"),
            "text" => Some("edited"),
            "state" => Some(match latest_state_change {
                Some("closed") => "closed",
                Some("open") => "reopened",
                _ => "closed or reopened",
            }),
            "labels" => Some("relabelled"),
            "assignees" => Some("reassigned"),
            "metrics" => Some("new comments or reactions"),
            "draft" => Some("draft status changed"),
            "merged" => Some("merged"),
            _ => None,
        })
        .collect();
    if words.is_empty() {
        words.push(if fields.contains(&"updatedAt") {
            "new activity"
        } else {
            "changed"
        });
    }
    words.join(", ")
}

/// What the trail needs besides its events: each item's current state,
/// and which event is the item's latest state change.
struct TrailContext<'a> {
    states: HashMap<&'a str, &'a str>,
    /// `(item id, run instant)` of each item's latest state change (an item
    /// has at most one event per run).
    latest_state_event: HashSet<(&'a str, Timestamp)>,
}

impl<'a> TrailContext<'a> {
    fn new(repo: &RepoPage<'a>) -> TrailContext<'a> {
        let states = repo
            .document
            .dataset
            .signals
            .iter()
            .map(|s| (s.id.as_str(), s.state.as_str()))
            .collect();
        let mut seen = HashSet::new();
        let mut latest_state_event = HashSet::new();
        for e in repo.trail.iter().rev() {
            if e.kind == EventKind::Changed
                && e.detail.split(',').any(|f| f.trim() == "state")
                && seen.insert(e.item_id.as_str())
            {
                latest_state_event.insert((e.item_id.as_str(), e.at));
            }
        }
        TrailContext {
            states,
            latest_state_event,
        }
    }

    fn entry(&self, e: &'a TrailEvent, n: usize) -> TrailEntryView<'a> {
        let (kind, key) = id_parts(&e.item_id);
        let words = match e.kind {
            EventKind::Discovered => "first seen".to_string(),
            EventKind::Changed => {
                let latest = self
                    .latest_state_event
                    .contains(&(e.item_id.as_str(), e.at))
                    .then(|| self.states.get(e.item_id.as_str()).copied())
                    .flatten();
                change_words(&e.detail, latest)
            }
        };
        TrailEntryView {
            n,
            kind: e.kind.as_str(),
            detail: &e.detail,
            words,
            item_id: &e.item_id,
            history: format!("history/{}", crate::history_file(&e.item_id)),
            item_kind: kind.map_or("item", ItemKind::label),
            number: item_number(kind, key),
            title: &e.title,
            url: http_url(&e.url),
            at: TimeView::of(e.at),
        }
    }
}

/// Rows for the entries `range` of the ordered trail, with every run's
/// `discovered` entries folded when there are more than [`TRAIL_FOLD_MIN`].
fn trail_rows<'a>(
    ctx: &TrailContext<'a>,
    ordered: &[&'a TrailEvent],
    range: std::ops::Range<usize>,
) -> Vec<TrailRowView<'a>> {
    let mut rows: Vec<TrailRowView<'a>> = Vec::new();
    let mut i = range.start;
    while i < range.end {
        let e = ordered[i];
        let mut j = i;
        while j < range.end
            && ordered[j].kind == EventKind::Discovered
            && e.kind == EventKind::Discovered
            && ordered[j].at == e.at
        {
            j += 1;
        }
        if j - i > TRAIL_FOLD_MIN {
            rows.push(TrailRowView {
                entry: None,
                group: Some(TrailGroupView {
                    n: i + 1,
                    count: j - i,
                    at: TimeView::of(e.at),
                    entries: (i..j).map(|k| ctx.entry(ordered[k], k + 1)).collect(),
                }),
            });
            i = j;
        } else {
            rows.push(TrailRowView {
                entry: Some(ctx.entry(e, i + 1)),
                group: None,
            });
            i += 1;
        }
    }
    rows
}

/// The trail block of a page: some entries and where the rest are.
#[derive(Serialize)]
struct TrailView<'a> {
    rows: Vec<TrailRowView<'a>>,
    /// Number of the first entry shown.
    start: usize,
    /// Entries shown.
    shown: usize,
    total: usize,
    pager: Option<PagerView>,
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

/// Links between numbered pages.
#[derive(Serialize)]
struct PagerView {
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

fn pager(page: usize, pages: usize, file: fn(usize) -> String) -> PagerView {
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
fn updated_at(s: &SignalDoc) -> Timestamp {
    s.updated_at.parse().unwrap_or(Timestamp::MIN)
}

fn repo_label(doc: &Document) -> String {
    format!("{}/{}", doc.dataset.group.id, doc.dataset.repository.id)
}

/// Renders a repository's HTML pages: `index.html` and `page-<n>.html`
/// (50 signals each, by importance), then `trail.html` and
/// `trail-<n>.html` (200 events each, chronological). Paths are relative to
/// the output folder (`<group>/<repo>/...`).
///
/// The first page also holds the news and the latest [`TRAIL_PREVIEW`]
/// events, numbered as in the full trail, with a link to the trail pages;
/// the full trail is paged rather than inlined so the first page stays small
/// however long the repository has been watched.
pub fn render_repo_pages(repo: &RepoPage<'_>) -> Result<Vec<(PathBuf, String)>, SiteError> {
    let dir = repo.dir()?;
    let signals = ranked(repo)?;
    let total = signals.len();
    let pages = total.div_ceil(PAGE_SIZE).max(1);
    let name = &repo.document.dataset.repository.name;
    let mut out = Vec::with_capacity(pages + 1);

    let trail_total = repo.trail.len();
    let trail_pages = trail_total.div_ceil(TRAIL_PAGE_SIZE).max(1);

    let ordered = ordered_trail(repo.trail);
    let trail_ctx = TrailContext::new(repo);
    let new = new_in_latest(repo);
    // Competition ranking: a card's place is 1 + the number of signals
    // with a strictly higher importance.
    let mut places = Vec::with_capacity(total);
    for (i, (_, score)) in signals.iter().enumerate() {
        let place = match i {
            0 => 1,
            _ if signals[i - 1].1.total == score.total => places[i - 1],
            _ => i + 1,
        };
        places.push(place);
    }

    for page in 1..=pages {
        let start = (page - 1) * PAGE_SIZE;
        let end = (start + PAGE_SIZE).min(total);
        let chunk = &signals[start.min(total)..end];
        let first_page = page == 1;
        let preview_from = trail_total.saturating_sub(TRAIL_PREVIEW);
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
            header: HeaderView {
                glance: if first_page {
                    crate::trends::glance(repo.trends)
                } else {
                    Vec::new()
                },
                ..header(repo)
            },
            news: first_page.then(|| news(repo)),
            trends: first_page.then(|| crate::trends::TrendsView::of(repo.trends)),
            trail: first_page.then(|| TrailView {
                rows: trail_rows(&trail_ctx, &ordered, preview_from..trail_total),
                start: preview_from + 1,
                shown: trail_total - preview_from,
                total: trail_total,
                pager: None,
            }),
            cards: chunk
                .iter()
                .zip(start..)
                .map(|((s, score), i)| {
                    card(
                        s,
                        score,
                        new.contains(s.id.as_str()),
                        standing(places[i], total),
                    )
                })
                .collect(),
            first: start + 1,
            shown: format!("{} shown", chunk.len()),
            total_text: count(total as u64, "signal in total", "signals in total"),
            pager: pager(page, pages, page_file),
        };
        out.push((dir.join(page_file(page)), render("repo.html", &view)?));
    }

    for page in 1..=trail_pages {
        let start = (page - 1) * TRAIL_PAGE_SIZE;
        let end = (start + TRAIL_PAGE_SIZE).min(trail_total);
        let view = TrailPageView {
            layout: Layout {
                title: format!("{name} · observation trail, page {page} of {trail_pages}"),
                root: "../../",
                feed: Some("feed.atom".to_string()),
                filter_index: None,
            },
            header: header(repo),
            trail: TrailView {
                rows: trail_rows(&trail_ctx, &ordered, start.min(end)..end),
                start: start + 1,
                shown: end - start.min(end),
                total: trail_total,
                pager: Some(pager(page, trail_pages, trail_file)),
            },
        };
        out.push((dir.join(trail_file(page)), render("trail.html", &view)?));
    }
    Ok(out)
}

#[derive(Serialize)]
struct TrailPageView<'a> {
    layout: Layout,
    header: HeaderView<'a>,
    trail: TrailView<'a>,
}

/// Renders every file of one repository: its pages, `feed.atom` and
/// `dataset.json`, with paths relative to the output folder.
pub fn render_repo(repo: &RepoPage<'_>) -> Result<Vec<(PathBuf, String)>, SiteError> {
    render_repo_at(repo, None)
}

/// [`render_repo`], with the feed's links absolute under `base_url` (the
/// site's public address, ending in `/`) when it is given.
pub fn render_repo_at(
    repo: &RepoPage<'_>,
    base_url: Option<&str>,
) -> Result<Vec<(PathBuf, String)>, SiteError> {
    let dir = repo.dir()?;
    let mut files = render_repo_pages(repo)?;
    files.push((dir.join("feed.atom"), render_feed_at(repo, base_url)?));
    files.push((dir.join("dataset.json"), render_dataset(repo.document)?));
    files.push((
        dir.join(crate::TRENDS_FILE),
        crate::render_trends(repo.trends, repo)?,
    ));
    files.extend(
        render_filter_index(repo)?
            .into_iter()
            .map(|(name, json)| (dir.join(name), json)),
    );
    files.push((
        dir.join(crate::DIGEST_FILE),
        crate::RepoDigest::of(repo)?.to_json()?,
    ));
    Ok(files)
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

/// The v3 document as pretty JSON, with a final newline.
pub fn render_dataset(doc: &Document) -> Result<String, SiteError> {
    let mut json = serde_json::to_string_pretty(doc).map_err(|source| SiteError::Json {
        repository: repo_label(doc),
        source,
    })?;
    json.push('\n');
    Ok(json)
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
    Ok(FeedEntry {
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
        importance: score.total,
        at: Some(updated_at(s)),
    })
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
    let d = &repo.document.dataset;
    let prefix = base_url.map(|b| format!("{b}{}/{}/", d.group.id, d.repository.id));
    let home = under(prefix.as_deref(), "index.html");
    let entries = newest(repo)
        .into_iter()
        .map(|s| feed_entry(repo, s, &home))
        .collect::<Result<Vec<_>, SiteError>>()?;
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
        repo.dir()?;
        let d = &repo.document.dataset;
        let new = new_in_latest(repo).len();
        let latest_events = d.runs.last().map_or(0, |r| r.changed_count);
        let release = d.news.latest_release.as_ref();
        Ok(RepoSummary {
            group_id: d.group.id.clone(),
            group_name: d.group.name.clone(),
            id: d.repository.id.clone(),
            name: d.repository.name.clone(),
            repo: d.repository.repo.clone(),
            description: d.context.description.clone(),
            signals: d.signals.len(),
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
    fn changes_are_said_in_words() {
        assert_eq!(
            change_words("updatedAt, metrics, text, state", Some("closed")),
            "new comments or reactions, edited, closed"
        );
        assert_eq!(change_words("state", Some("open")), "reopened");
        assert_eq!(change_words("state", None), "closed or reopened");
        assert_eq!(
            change_words("title, labels, assignees", None),
            "retitled, relabelled, reassigned"
        );
        assert_eq!(change_words("updatedAt", None), "new activity");
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

    #[test]
    fn ids_give_kind_and_number() {
        let (kind, key) = id_parts("github:o/n:pull_request:12");
        assert_eq!((kind, key), (Some(ItemKind::PullRequest), "12"));
        assert_eq!(item_number(kind, key), "#12");
        let (kind, key) = id_parts("github:o/n:release:v1.0.0-rc.1");
        assert_eq!(item_number(kind, key), "v1.0.0-rc.1");
    }
}
