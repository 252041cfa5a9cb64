//! The paged lists of repositories: every repository of the
//! site (`<out>/repos-<n>.html`) and of each group
//! (`<out>/<group>/repos-<n>.html`), [`LIST_PAGE_SIZE`] a page, in the
//! order of the ranked tables (recent activity, then name: `by_activity`
//! in `trends.rs`), so the index's and a group page's top rows are the
//! first rows of page 1. Plain pages with a pager: no script needed.
//!
//! Made from the summaries the index is made from, so a list page, like
//! the index, never reads a document.

use std::path::PathBuf;

use serde::Serialize;

use crate::error::SiteError;
use crate::index::{IndexRepo, RepoSummary, ranked};
use crate::paths::{LIST_PAGE_SIZE, repos_file, slug};
use crate::templates::render;
use crate::trends::RECENT_WEEKS;
use crate::views::{Layout, PagerView, pager};

#[derive(Serialize)]
struct ListView<'a> {
    layout: Layout,
    /// The group's name, or `None` on the site's list.
    group: Option<&'a str>,
    rows: Vec<IndexRepo<'a>>,
    /// The rank of the first row.
    first: usize,
    last: usize,
    total: usize,
    page: usize,
    pages: usize,
    list_pager: PagerView,
    recent_weeks: usize,
}

/// Every page of the lists: the site's, then each group's, as paths
/// relative to `<out>` with their content. `repos` are the summaries of
/// the whole site, in any order.
pub(crate) fn render_lists(repos: &[RepoSummary]) -> Result<Vec<(PathBuf, String)>, SiteError> {
    let all = ranked(repos);
    let mut out = list_pages(&all, None, "")?;
    let mut groups: Vec<(&str, &str)> = repos
        .iter()
        .map(|r| (r.group_id.as_str(), r.group_name.as_str()))
        .collect();
    groups.sort_unstable();
    groups.dedup_by(|a, b| a.0 == b.0);
    for (id, name) in groups {
        let dir = PathBuf::from(slug("group", id)?);
        let mine: Vec<&RepoSummary> = all.iter().copied().filter(|r| r.group_id == id).collect();
        for (path, html) in list_pages(&mine, Some(name), "../")? {
            out.push((dir.join(path), html));
        }
    }
    Ok(out)
}

/// The pages of one list of `ranked` repositories, at `root` from the
/// site's folder.
fn list_pages(
    ranked: &[&RepoSummary],
    group: Option<&str>,
    root: &'static str,
) -> Result<Vec<(PathBuf, String)>, SiteError> {
    let total = ranked.len();
    let pages = total.div_ceil(LIST_PAGE_SIZE).max(1);
    let mut out = Vec::with_capacity(pages);
    for page in 1..=pages {
        let start = ((page - 1) * LIST_PAGE_SIZE).min(total);
        let end = (start + LIST_PAGE_SIZE).min(total);
        let what = group.map_or_else(
            || "Every repository".to_string(),
            |g| format!("{g} · every repository"),
        );
        let view = ListView {
            layout: Layout {
                title: format!("{what}, page {page} of {pages}"),
                root,
                base: None,
                feed: None,
                filter_index: None,
            },
            group,
            rows: ranked[start..end]
                .iter()
                .map(|r| IndexRepo::of(r, root))
                .collect(),
            first: start + 1,
            last: end,
            total,
            page,
            pages,
            list_pager: pager(page, pages, repos_file),
            recent_weeks: RECENT_WEEKS,
        };
        out.push((
            PathBuf::from(repos_file(page)),
            render("repos.html", &view)?,
        ));
    }
    Ok(out)
}
