//! Pure rendering: domain values in, file contents out.
//!
//! Templates are embedded with `include_str!` and see only the view types
//! below, which borrow from the document and are built here. Host text
//! reaches the templates as plain strings and is HTML-escaped on output; the
//! only pre-rendered HTML is sanitized release notes (see `text.rs`), the
//! only links are http(s) URLs that passed `text::http_url`.

use std::path::PathBuf;
use std::sync::LazyLock;

use jiff::Timestamp;
use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value};
use serde::Serialize;
use signals_core::dataset::{Document, SignalDoc};
use signals_core::importance::{RankKey, Score, rank};
use signals_core::{ItemDetail, ItemKind};

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
/// The stylesheet, written once as `<out>/style.css`.
pub const STYLESHEET: &str = include_str!("../templates/style.css");

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
        ("feed.atom", include_str!("../templates/feed.atom")),
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
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            // Not allowed in XML 1.0 (the feed) and meaningless in HTML.
            c if (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
                || matches!(c, '\u{FFFE}' | '\u{FFFF}') => {}
            c => escaped.push(c),
        }
    }
    out.write_str(&escaped)
        .map_err(|e| minijinja::Error::new(minijinja::ErrorKind::WriteFailure, e.to_string()))
}

fn render(name: &'static str, ctx: &impl Serialize) -> Result<String, SiteError> {
    ENV.get_template(name)
        .and_then(|t| t.render(minijinja::value::Serde(ctx)))
        .map_err(|source| SiteError::Template { name, source })
}

/// "2026-11-21 10:00 UTC", for people.
fn human_time(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%d %H:%M UTC").to_string()
}

/// A time for a `<time>` element: machine form and human form.
#[derive(Serialize)]
struct TimeView {
    iso: String,
    human: String,
}

impl TimeView {
    fn of(ts: Timestamp) -> TimeView {
        TimeView {
            iso: format!("{ts:.0}"),
            human: human_time(ts),
        }
    }

    /// From a document's timestamp string; shown as written if unparsable.
    fn parse(s: &str) -> TimeView {
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
fn page_file(n: usize) -> String {
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
struct Layout {
    /// Document title.
    title: String,
    /// Relative path from the page to `<out>` (`""` or `"../../"`).
    root: &'static str,
    /// Atom feed of this page, if any.
    feed: Option<String>,
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
    }
}

/// The project news block.
#[derive(Serialize)]
struct NewsView<'a> {
    latest: Option<LatestView<'a>>,
    next: Vec<NextView<'a>>,
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
    });
    let milestones = d.news.upcoming.iter().map(|m| NextView {
        kind: "milestone",
        title: &m.title,
        url: http_url(&m.url),
        tag: None,
        published_at: None,
        progress: Some(m.progress),
        open_issues: m.open_issues,
        closed_issues: m.closed_issues,
        description: &m.description,
    });
    NewsView {
        latest,
        next: prereleases.chain(milestones).collect(),
    }
}

/// One observation trail entry.
#[derive(Serialize)]
struct TrailEntryView<'a> {
    /// 1-based position in the whole trail.
    n: usize,
    kind: &'static str,
    detail: &'a str,
    item_id: &'a str,
    title: &'a str,
    url: Option<&'a str>,
    at: TimeView,
}

fn trail_entries<'a>(
    repo: &RepoPage<'a>,
    range: std::ops::Range<usize>,
) -> Vec<TrailEntryView<'a>> {
    repo.trail[range.clone()]
        .iter()
        .zip(range.start + 1..)
        .map(|(e, n)| TrailEntryView {
            n,
            kind: e.kind.as_str(),
            detail: &e.detail,
            item_id: &e.item_id,
            title: &e.title,
            url: http_url(&e.url),
            at: TimeView::of(e.at),
        })
        .collect()
}

/// The trail block of a page: some entries and where the rest are.
#[derive(Serialize)]
struct TrailView<'a> {
    entries: Vec<TrailEntryView<'a>>,
    /// `start` of the `<ol>`: the number of the first entry shown.
    start: usize,
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
}

fn card<'a>(s: &'a SignalDoc, score: &'a Score) -> CardView<'a> {
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
    CardView {
        id: &s.id,
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
    }
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
fn ranked<'a>(repo: &RepoPage<'a>) -> Result<Vec<(&'a SignalDoc, &'a Score)>, SiteError> {
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

    for page in 1..=pages {
        let start = (page - 1) * PAGE_SIZE;
        let chunk = &signals[start.min(total)..(start + PAGE_SIZE).min(total)];
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
            },
            header: header(repo),
            news: first_page.then(|| news(repo)),
            trail: first_page.then(|| TrailView {
                entries: trail_entries(repo, preview_from..trail_total),
                start: preview_from + 1,
                total: trail_total,
                pager: None,
            }),
            cards: chunk.iter().map(|(s, score)| card(s, score)).collect(),
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
            },
            header: header(repo),
            trail: TrailView {
                entries: trail_entries(repo, start.min(end)..end),
                start: start + 1,
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
    let dir = repo.dir()?;
    let mut files = render_repo_pages(repo)?;
    files.push((dir.join("feed.atom"), render_feed(repo)?));
    files.push((dir.join("dataset.json"), render_dataset(repo.document)?));
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
struct FeedView<'a> {
    id: String,
    title: String,
    updated: String,
    entries: Vec<FeedEntry<'a>>,
}

#[derive(Serialize)]
struct FeedEntry<'a> {
    id: String,
    kind: &'static str,
    title: &'a str,
    /// http(s) URL of the item, or the repository page as a fallback.
    link: &'a str,
    updated: &'a str,
    published: &'a str,
    author: &'a str,
    labels: &'a [String],
    summary: String,
    importance: u32,
}

/// The Atom feed of a repository: its [`FEED_ENTRIES`] most recently updated
/// signals, newest first (ties by id). Entry ids are `urn:signals:<signal
/// id>`, stable across renames of the item's URL.
pub fn render_feed(repo: &RepoPage<'_>) -> Result<String, SiteError> {
    let d = &repo.document.dataset;
    let mut signals: Vec<&SignalDoc> = d.signals.iter().collect();
    signals.sort_by(|a, b| {
        updated_at(b)
            .cmp(&updated_at(a))
            .then(a.id.as_bytes().cmp(b.id.as_bytes()))
    });
    signals.truncate(FEED_ENTRIES);
    let entries = signals
        .into_iter()
        .map(|s| {
            let score = repo
                .scores
                .get(&s.id)
                .ok_or_else(|| SiteError::MissingScore {
                    repository: repo_label(repo.document),
                    signal_id: s.id.clone(),
                })?;
            Ok(FeedEntry {
                id: format!("urn:signals:{}", s.id),
                kind: ItemKind::parse(&s.kind).map_or("signal", ItemKind::label),
                title: &s.title,
                link: http_url(&s.url).unwrap_or("index.html"),
                updated: &s.updated_at,
                published: &s.created_at,
                author: &s.author,
                labels: &s.labels,
                summary: excerpt(&s.text),
                importance: score.total,
            })
        })
        .collect::<Result<Vec<_>, SiteError>>()?;
    render(
        "feed.atom",
        &FeedView {
            id: format!("urn:signals:feed:{}", repo_label(repo.document)),
            title: format!("{} · signals", d.repository.name),
            updated: format!("{:.0}", repo.collected_at),
            entries,
        },
    )
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
}

/// The site index: groups by name (then id), each with its repositories by
/// name (then id), their signal and event counts and last collection time.
pub fn render_index(repos: &[RepoPage<'_>]) -> Result<String, SiteError> {
    let mut groups: Vec<IndexGroup<'_>> = Vec::new();
    for repo in repos {
        repo.dir()?;
        let d = &repo.document.dataset;
        let entry = IndexRepo {
            href: format!("{}/{}/index.html", d.group.id, d.repository.id),
            id: &d.repository.id,
            name: &d.repository.name,
            repo: &d.repository.repo,
            description: &d.context.description,
            signals: d.signals.len(),
            events: repo.event_count,
            collected_at: TimeView::of(repo.collected_at),
        };
        match groups.iter_mut().find(|g| g.id == d.group.id) {
            Some(g) => g.repos.push(entry),
            None => groups.push(IndexGroup {
                id: &d.group.id,
                name: &d.group.name,
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
                feed: None,
            },
            groups,
            repositories: repos.len(),
        },
    )
}
