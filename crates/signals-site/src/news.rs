//! The news block of a repository's first page: its latest stable
//! release with its notes, and "Publicly indicated next" (prereleases, then
//! open milestones by due date), with overdue or inactive milestones set
//! apart, for they are not what comes next; and the most recently
//! updated open GitHub Discussions, or why there are none.

use jiff::Timestamp;
use serde::Serialize;
use signals_core::{DiscussionsOff, ItemDetail};

use crate::head::RepoHead;
use crate::text::{http_url, markdown_html};
use crate::views::TimeView;

/// An open milestone without activity for this long is set apart from
/// "Publicly indicated next" as inactive.
pub const STALE_MILESTONE_DAYS: i64 = 365;

/// The project news block.
#[derive(Serialize)]
pub(crate) struct NewsView<'a> {
    latest: Option<LatestView<'a>>,
    next: Vec<NextView<'a>>,
    /// Open milestones that are overdue or inactive: set apart, since they
    /// are not what comes next.
    set_apart: Vec<NextView<'a>>,
    /// `news.communityDiscussions`, newest first.
    discussions: Vec<DiscussionView<'a>>,
    /// Why there are none, where the reader should know: no token,
    /// turned off on the repository, not found.
    discussions_note: Option<&'static str>,
}

/// One open discussion of the news.
#[derive(Serialize)]
struct DiscussionView<'a> {
    title: &'a str,
    url: Option<&'a str>,
    category: &'a str,
    author: &'a str,
    answered: bool,
    comments: u64,
    updated_at: TimeView,
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

/// The news block of `repo`'s first page.
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
    let discussions = d
        .news
        .community_discussions
        .iter()
        .map(|c| DiscussionView {
            title: &c.title,
            url: http_url(&c.url),
            category: &c.category,
            author: &c.author,
            answered: c.answered,
            comments: c.comments,
            updated_at: TimeView::parse(&c.updated_at),
        })
        .collect();
    // A host without discussions, or a group that turned them off, is
    // not news; a repository that could have them and shows none is.
    let discussions_note = repo.news.discussions_off.and_then(|off| match off {
        DiscussionsOff::NoToken | DiscussionsOff::Disabled | DiscussionsOff::NotFound => {
            Some(off.note())
        }
        DiscussionsOff::Unsupported | DiscussionsOff::Configured => None,
    });
    NewsView {
        latest,
        next,
        set_apart,
        discussions,
        discussions_note,
    }
}

/// "2026-11-21", for dates where the time of day means nothing.
fn human_date(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%d").to_string()
}
