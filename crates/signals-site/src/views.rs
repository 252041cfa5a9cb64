//! The view types several pages share: what a template sees of a time,
//! of a page's frame, of a repository's header and of links between
//! numbered pages.
//!
//! Templates see only view types, which borrow from the document or own
//! strings made for them; the modules that render a page build these
//! (`pages.rs` the header, `health.rs` its notice, `trends.rs` its
//! glance). A leaf: it imports nothing of the crate, so any page can use
//! a view without depending on how another page is built. Field names are
//! the templates' names: renaming one changes the pages.

use jiff::Timestamp;
use serde::Serialize;

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

/// What every page's `<head>` and frame need.
#[derive(Serialize)]
pub(crate) struct Layout {
    /// Document title.
    pub title: String,
    /// Relative path from the page to `<out>` (`""`, `"../"` or `"../../"`).
    pub root: &'static str,
    /// A folder's index page's own path from `<out>`
    /// (`<group>/<repo>/index.html`), written as `<base href>` with
    /// `root` before it: a server that answers the folder's address
    /// without its slash (`/group/repo`) with this page leaves the page's
    /// relative links and data resolving in the folder all the same
    /// (docs/decisions.md, "Addresses").
    pub base: Option<String>,
    /// Atom feed of this page, if any.
    pub feed: Option<String>,
    /// The filter index of this page's signals (`signals.json`), if the
    /// page has a signal list the script can filter.
    pub filter_index: Option<&'static str>,
}

/// The repository header, shared by all its pages.
#[derive(Serialize)]
pub(crate) struct HeaderView<'a> {
    pub group_id: &'a str,
    pub group_name: &'a str,
    pub id: &'a str,
    pub name: &'a str,
    pub repo: &'a str,
    pub url: Option<&'a str>,
    pub homepage: Option<&'a str>,
    pub description: &'a str,
    pub stars: u64,
    pub forks: u64,
    pub language: &'a str,
    pub license: Option<&'a str>,
    pub topics: &'a [String],
    pub keywords: &'a [String],
    pub archived: bool,
    /// `<N> signals · <M> observation events`.
    pub counts: String,
    pub collected_at: TimeView,
    /// On a repository's first page: its trends at a glance, beside its
    /// facts.
    pub glance: Vec<GlanceView>,
    /// A notice when its collection is failing or its data stale.
    pub health: Option<HealthView>,
    /// Its latest reconcile (a run that listed every item).
    pub last_reconcile: Option<TimeView>,
}

/// One measure of the strip at the top of a repository's page.
#[derive(Debug, Serialize)]
pub(crate) struct GlanceView {
    pub label: &'static str,
    /// Its last value, in words.
    pub value: String,
    /// Its sparkline over the last `trends::SMALL_WEEKS` weeks (labelled
    /// SVG).
    pub svg: String,
}

/// The notice a page shows about a repository's collection, when there is
/// one (`health.rs` says when and in which words).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct HealthView {
    /// `failing`, `stale` or `left-out` (a CSS class).
    pub state: &'static str,
    /// The index's flag: `failing`, `stale`, or why a repository is left
    /// out (`gone`, `archived`, `fork`, `excluded`).
    pub badge: String,
    /// `Stale data:`, `Collection failing:`, `Gone:` or `No longer
    /// collected:`.
    pub label: &'static str,
    /// The sentence after the label.
    pub text: String,
    /// When a left-out repository was left out, said after `text`.
    pub left_since: Option<TimeView>,
    /// What follows that instant.
    pub tail: String,
    /// The whole sentence, for the index flag's tooltip.
    pub title: String,
    /// The latest successful run.
    pub since: Option<TimeView>,
    /// The latest error: when and what.
    pub error_at: Option<TimeView>,
    pub error: Option<String>,
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

/// The links of page `page` of `pages`, each page named by `file`
/// (`paths::page_file`, `paths::trail_file`).
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
