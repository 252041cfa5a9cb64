//! The engine of related items: after a run commits (and at export, for
//! what a run could not finish), the group's profiles catch up with the
//! items whose latest snapshot is newer than each repository's
//! `through`, and the lists that can have moved are computed again
//! ([`signals_core::related::recompute`]): those of the items whose title
//! or body changed, of the items that listed them, and of the items they
//! are now related to. An item whose profile did not change (a label, a
//! reaction) moves no list; one that was closed or reopened only moves
//! its open state, which the lists read when they are read.
//!
//! Where the cost lands: a quiet catch-up reads one row per repository
//! of the group; a catch-up with changes reads the group's profiles (one
//! statement), weighs them (linear in the group) and scores the changed
//! items against the rest (the postings of their rare words). The first
//! catch-up of a group, or of a store from before, profiles every item
//! and computes every list: the full build of docs/performance/related.md.

use std::collections::HashMap;

use signals_core::dataset::RelatedDoc;
use signals_core::related::{self, Corpus, Member, Neighbour, Profile};
use signals_core::{ItemKind, ItemState};
use signals_store::related::{RelatedEntry, RelatedUpdate, StoredProfile};
use signals_store::{Linked, Reads, RelatedStore, RepoKey, Result, StoreError};

/// Items read per statement while profiling.
const CHUNK: usize = 2000;

/// What a catch-up did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaughtUp {
    /// Items profiled (new or changed snapshots).
    pub profiled: usize,
    /// Items whose profile changed (their lists and their neighbours' were
    /// computed again).
    pub changed: usize,
    /// Lists written.
    pub lists: usize,
}

/// The repositories of group `group`.
fn repos_of<S: Reads + ?Sized>(store: &S, group: &str) -> Result<Vec<RepoKey>> {
    Ok(store
        .repositories()?
        .into_iter()
        .filter(|r| r.group.id == group)
        .map(|r| r.key)
        .collect())
}

/// What the pending items of the group's repositories give: their new
/// profiles, and each repository's new `through`.
struct Profiled {
    profiles: Vec<StoredProfile>,
    through: Vec<(RepoKey, i64)>,
}

fn profile_pending<S>(store: &S, repos: &[RepoKey]) -> Result<Profiled>
where
    S: Reads + RelatedStore + ?Sized,
{
    let mut out = Profiled {
        profiles: Vec::new(),
        through: Vec::new(),
    };
    for &repo in repos {
        let mut through = store.related_through(repo)?;
        let start = through;
        loop {
            let pending = store.related_pending(repo, through, CHUNK)?;
            let Some(last) = pending.last().map(|p| p.1) else {
                break;
            };
            let ids: Vec<String> = pending.into_iter().map(|p| p.0).collect();
            let snapshots = store.latest_snapshots_for(repo, &ids)?;
            for id in ids {
                let Some(s) = snapshots.get(&id) else {
                    continue;
                };
                if s.kind() == ItemKind::Release {
                    continue;
                }
                out.profiles.push(StoredProfile {
                    item: Linked { id, repo },
                    open: s.state == ItemState::Open,
                    profile: related::profile(&s.title, &s.text).encode(),
                });
            }
            through = last;
        }
        if through > start {
            out.through.push((repo, through));
        }
    }
    Ok(out)
}

fn damaged(item: &Linked, e: related::ProfileError) -> StoreError {
    StoreError::Corrupt {
        path: format!("repository {}", item.repo).into(),
        what: format!("the related items' profile of {}: {e}", item.id),
    }
}

fn entry(repo_of: &HashMap<String, RepoKey>, n: &Neighbour) -> RelatedEntry {
    RelatedEntry {
        item: Linked {
            id: n.id.clone(),
            repo: repo_of
                .get(&n.id)
                .copied()
                .unwrap_or(RepoKey::from_raw(n.repo)),
        },
        open: n.open,
        score: n.score,
        shared: n.shared.clone(),
    }
}

/// How many other repositories than `own` the items of `list` are in:
/// the `echo` term of importance (`signals_core::importance::echoed`).
pub fn echo_repos(own: RepoKey, list: Option<&Vec<RelatedEntry>>) -> usize {
    let mut repos: Vec<RepoKey> = list
        .into_iter()
        .flatten()
        .map(|e| e.item.repo)
        .filter(|r| *r != own)
        .collect();
    repos.sort_unstable();
    repos.dedup();
    repos.len()
}

/// What a signal shows of its list (`related` of the dataset and the API):
/// its [`related::SHOWN`] best by score, open ones first.
pub fn docs(list: Option<Vec<RelatedEntry>>) -> Vec<RelatedDoc> {
    let mut best: Vec<RelatedEntry> = list.unwrap_or_default();
    best.truncate(related::SHOWN);
    // Stable: each part stays best first.
    best.sort_by_key(|e| !e.open);
    best.into_iter()
        .map(|e| RelatedDoc {
            id: e.item.id,
            score: e.score,
            shared: e.shared,
        })
        .collect()
}

/// Brings the related items of group `group` up to date with what its
/// repositories' runs committed, and returns what it did.
pub fn catch_up<S>(store: &mut S, group: &str) -> Result<CaughtUp>
where
    S: Reads + RelatedStore + ?Sized,
{
    let repos = repos_of(&*store, group)?;
    let fresh = profile_pending(&*store, &repos)?;
    if fresh.through.is_empty() {
        return Ok(CaughtUp::default());
    }
    let mut stored: HashMap<Linked, StoredProfile> = store
        .related_profiles(group)?
        .into_iter()
        .map(|p| (p.item.clone(), p))
        .collect();
    let mut changed: Vec<Linked> = Vec::new();
    let mut writes = Vec::new();
    for p in fresh.profiles {
        match stored.get(&p.item) {
            Some(old) if old.profile == p.profile && old.open == p.open => continue,
            Some(old) if old.profile == p.profile => {}
            Some(_) => changed.push(p.item.clone()),
            None => changed.push(p.item.clone()),
        }
        writes.push(p.clone());
        stored.insert(p.item.clone(), p);
    }
    let mut result = CaughtUp {
        profiled: writes.len(),
        changed: changed.len(),
        ..CaughtUp::default()
    };
    let mut update = RelatedUpdate {
        profiles: writes,
        through: fresh.through,
        ..RelatedUpdate::default()
    };
    if !changed.is_empty() {
        let listing = store.related_listing(group, &changed)?;
        let mut repo_of: HashMap<String, RepoKey> = HashMap::new();
        let mut members = Vec::with_capacity(stored.len());
        for (item, p) in stored {
            let profile = Profile::decode(&p.profile).map_err(|e| damaged(&item, e))?;
            repo_of.insert(item.id.clone(), item.repo);
            members.push(Member {
                id: item.id,
                repo: item.repo.raw(),
                open: p.open,
                profile,
            });
        }
        members.sort_by(|a, b| a.id.cmp(&b.id));
        let corpus = Corpus::new(members);
        let ids: Vec<String> = changed.iter().map(|i| i.id.clone()).collect();
        let listing_ids: Vec<String> = listing.iter().map(|i| i.id.clone()).collect();
        for (id, list) in related::recompute(&corpus, &ids, &listing_ids) {
            let item = Linked {
                repo: repo_of[&id],
                id,
            };
            let entries: Vec<RelatedEntry> = list.iter().map(|n| entry(&repo_of, n)).collect();
            update.lists.push((item, entries));
        }
        result.lists = update.lists.len();
    }
    store.related_apply(&update)?;
    Ok(result)
}
