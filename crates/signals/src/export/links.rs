//! Links between items of a group in the export: an
//! item's history page lists them, and each group page lists the items
//! named from 2 or more of its other repositories. The store resolves
//! them from its indexes; nothing here reads a text.

use signals_site::{
    HistoryLinks, LinkedItem, Publisher, RelatedItem, SharedEntry, StoryEntry, StoryItem,
    short_name,
};
use signals_store::{Backend, Linked, RepoKey, RepoSummary};

/// The least number of other repositories naming an item for the group
/// page to list it.
pub const SHARED_MIN_REPOS: usize = 2;
/// The most items the group page lists.
pub const SHARED_LIMIT: usize = 50;
/// The most stories told in several repositories the group page lists.
pub const STORIES_LIMIT: usize = 100;

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
    let related = store
        .related_of(summary.key, &[id.to_string()])?
        .remove(id)
        .unwrap_or_default();
    if links.references.is_empty() && links.referenced_by.is_empty() && related.is_empty() {
        return Ok(HistoryLinks::default());
    }
    let repos = store.repositories()?;
    let related: Vec<RelatedItem> = related
        .into_iter()
        .map(|e| RelatedItem {
            href: history_href(&e.item, &repos),
            name: short_name(&e.item.id),
            id: e.item.id,
            score: format!("{:.2}", e.score),
            shared: e.shared,
            open: e.open,
        })
        .collect();
    let items = |list: Vec<Linked>| -> Vec<LinkedItem> {
        list.into_iter()
            .map(|l| LinkedItem {
                href: history_href(&l, &repos),
                id: l.id,
            })
            .collect()
    };
    let mut out = HistoryLinks::new(id, items(links.references), items(links.referenced_by));
    out.related = related;
    Ok(out)
}

/// Hands each group's stories told in several repositories to
/// `publisher`, for its group page: per group, one query of its lists
/// across repositories (`signals_core::related::clusters`) and one read of
/// each listed item's head.
pub fn set_stories(store: &dyn Backend, publisher: &mut Publisher) -> anyhow::Result<()> {
    let repos = store.repositories()?;
    let mut groups: Vec<&str> = repos.iter().map(|r| r.group.id.as_str()).collect();
    groups.sort_unstable();
    groups.dedup();
    for group in groups {
        let lists = store.related_across(group)?;
        let edges: Vec<signals_core::related::Edge<'_>> = lists
            .iter()
            .flat_map(|(item, list)| {
                list.iter().map(move |e| signals_core::related::Edge {
                    a: (item.id.as_str(), item.repo.raw()),
                    b: (e.item.id.as_str(), e.item.repo.raw()),
                    shared: &e.shared,
                })
            })
            .collect();
        let repo_of: std::collections::HashMap<&str, RepoKey> = lists
            .iter()
            .flat_map(|(item, list)| {
                std::iter::once((item.id.as_str(), item.repo))
                    .chain(list.iter().map(|e| (e.item.id.as_str(), e.item.repo)))
            })
            .collect();
        let mut stories = Vec::new();
        for cluster in signals_core::related::clusters(&edges, STORIES_LIMIT) {
            let mut items = Vec::with_capacity(cluster.items.len());
            for id in &cluster.items {
                let Some(owner) = repos
                    .iter()
                    .find(|r| Some(&r.key) == repo_of.get(id.as_str()))
                else {
                    continue;
                };
                let Some(item) = store
                    .latest_heads_for(owner.key, std::slice::from_ref(id))?
                    .remove(id)
                else {
                    continue;
                };
                items.push(StoryItem {
                    name: short_name(id),
                    title: item.title,
                    url: signals_core::hostile::is_http_url(&item.url).then_some(item.url),
                    history: format!(
                        "{}/history/{}",
                        owner.repo.id,
                        signals_site::history_file(id)
                    ),
                });
            }
            stories.push(StoryEntry {
                repos: cluster.repos,
                shared: cluster.shared,
                items,
            });
        }
        publisher.set_stories(group, stories);
    }
    Ok(())
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
