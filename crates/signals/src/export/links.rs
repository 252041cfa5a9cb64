//! Links between items of a group in the export: an
//! item's history page lists them, and each group page lists the items
//! named from 2 or more of its other repositories. The store resolves
//! them from its indexes; nothing here reads a text.

use signals_site::{HistoryLinks, LinkedItem, Publisher, SharedEntry};
use signals_store::{Backend, Linked, RepoKey, RepoSummary};

/// The least number of other repositories naming an item for the group
/// page to list it.
pub const SHARED_MIN_REPOS: usize = 2;
/// The most items the group page lists.
pub const SHARED_LIMIT: usize = 50;

/// The history page's href of `l` from another history page of the same
/// group (`<group>/<repo>/history/<file>`), when its repository is known.
fn history_href(l: &Linked, repos: &[RepoSummary]) -> Option<String> {
    let r = repos.iter().find(|r| r.key == l.repo)?;
    Some(format!(
        "../../{}/history/{}",
        r.repo.id,
        signals_site::history_file(&l.id)
    ))
}

/// The links of item `id` of `summary`'s repository, for its history page.
pub fn history_links(
    store: &dyn Backend,
    summary: &RepoSummary,
    id: &str,
) -> anyhow::Result<HistoryLinks> {
    let links = store
        .links_of(summary.key, &[id.to_string()])?
        .remove(id)
        .unwrap_or_default();
    if links.references.is_empty() && links.referenced_by.is_empty() {
        return Ok(HistoryLinks::default());
    }
    let repos = store.repositories()?;
    let items = |list: Vec<Linked>| -> Vec<LinkedItem> {
        list.into_iter()
            .map(|l| LinkedItem {
                href: history_href(&l, &repos),
                id: l.id,
            })
            .collect()
    };
    Ok(HistoryLinks::new(
        id,
        items(links.references),
        items(links.referenced_by),
    ))
}

/// Hands each group's shared items to `publisher`, for its group page:
/// per group, one query and one read of each listed item's head.
pub fn set_shared(store: &dyn Backend, publisher: &mut Publisher) -> anyhow::Result<()> {
    let repos = store.repositories()?;
    let mut groups: Vec<&str> = repos.iter().map(|r| r.group.id.as_str()).collect();
    groups.sort_unstable();
    groups.dedup();
    for group in groups {
        let shared = store.shared_items(group, SHARED_MIN_REPOS, SHARED_LIMIT)?;
        let mut entries = Vec::with_capacity(shared.len());
        for s in shared {
            let Some(owner) = repos.iter().find(|r| r.key == s.item.repo) else {
                continue;
            };
            let Some(item) = store
                .latest_snapshots_for(owner.key, std::slice::from_ref(&s.item.id))?
                .remove(&s.item.id)
            else {
                continue;
            };
            let name = |key: RepoKey| {
                repos
                    .iter()
                    .find(|r| r.key == key)
                    .map_or_else(|| key.to_string(), |r| r.repo.name.clone())
            };
            entries.push(SharedEntry {
                history: format!(
                    "{}/history/{}",
                    owner.repo.id,
                    signals_site::history_file(&s.item.id)
                ),
                id: s.item.id,
                title: item.title,
                url: signals_core::hostile::is_http_url(&item.url).then_some(item.url),
                repo: owner.repo.name.clone(),
                from: s.from.into_iter().map(name).collect(),
            });
        }
        publisher.set_shared(group, entries);
    }
    Ok(())
}
