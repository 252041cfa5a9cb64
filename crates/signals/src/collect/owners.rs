//! Whole owners: before a collection's repositories
//! are collected, each `orgs` owner of the selected groups is listed on
//! its host (one conditional listing per owner, answered 304 when nothing
//! changed), the listing is applied to what the store knew
//! (`signals_core::owners::apply`), and the repositories found through
//! the owners that are tracked now join the collection's targets.
//!
//! Who lists: a collection claims each owner in the store first
//! (`Backend::owner_claim`). On SQLite one collection runs at a time, and
//! every collection lists. On PostgreSQL the claim holds for the workers'
//! `interval`: the worker that claims an owner lists it, the others take
//! the repositories the store holds (the last listing's), so an owner is
//! listed once per interval however many workers run.
//!
//! A repository the owner renamed is followed through the host's id
//! (`apply`): it keeps its repository id and the name its signal ids use
//! (the one it was first tracked under, `Known::ids_name`), and is asked
//! for under the name of the last listing, so no redirect is needed and a
//! new repository created under the old name is never collected for it.

use std::collections::HashMap;

use jiff::{SignedDuration, Timestamp};
use signals_core::owners::{Known, State, apply};
use signals_core::{Group, RepoName, TrackedRepo};
use signals_store::{Backend, OwnerRef, Owners};

use super::collection::{Collection, rate_prefix};
use super::run::Target;
use super::summary::OwnerResult;
use crate::cache::StoreCache;
use crate::config::{Config, GroupConfig};
use crate::hosts::HostEntry;

/// A repository to collect that the store, not the configuration, holds.
#[derive(Debug, Clone)]
pub struct Found {
    pub group: Group,
    /// Itself, under the name its signal ids use.
    pub repo: TrackedRepo,
    /// Its host, an index into the collection's hosts.
    pub host: usize,
    /// The name to ask the host for: the owner's last listing's.
    pub ask: RepoName,
}

impl Found {
    /// The repository as a collection's target, asked under the owner's
    /// listing's name when `through_owner` says so, else under its own.
    pub fn target(&self, through_owner: ThroughOwner) -> Target<'_> {
        Target {
            group: &self.group,
            repo: &self.repo,
            host: self.host,
            through_owner: (through_owner == ThroughOwner::Yes).then_some(&self.ask),
        }
    }
}

/// Whether a target was found through an owner (and is asked under the
/// name the owner's listing gave).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThroughOwner {
    Yes,
    No,
}

/// The owners of the groups a collection selected.
pub struct Discovery<'a> {
    /// The groups selected by `--group` (all without it).
    pub groups: Vec<&'a GroupConfig>,
    /// `--repo`: only this repository is collected (owners are listed all
    /// the same, so new repositories are recorded).
    pub repo: Option<&'a RepoName>,
}

impl<'a> Discovery<'a> {
    /// The owners of the groups `--group` selects.
    pub fn of(config: &'a Config, group: Option<&str>, repo: Option<&'a RepoName>) -> Self {
        Discovery {
            groups: config
                .groups
                .iter()
                .filter(|g| group.is_none_or(|id| g.group.id == id))
                .collect(),
            repo,
        }
    }

    /// True when a selected group lists owners.
    pub fn any(&self) -> bool {
        self.groups.iter().any(|g| !g.owners.is_empty())
    }

    /// Lists every owner not listed within `every` (zero: all), records
    /// each outcome in `collection`, and returns the repositories to
    /// collect that were found through the selected groups' owners. A host
    /// stopped (rate limit, refused token, unreachable) is not asked; its
    /// owners keep the repositories of their last listing. Store errors are
    /// returned.
    pub fn run(
        &self,
        hosts: &mut [HostEntry],
        store: &mut dyn Backend,
        collection: &mut Collection,
        every: SignedDuration,
        now: Timestamp,
    ) -> anyhow::Result<Vec<Found>> {
        let mut found = Vec::new();
        for g in &self.groups {
            for o in &g.owners {
                let owner = OwnerRef {
                    group: &g.group,
                    host: &hosts[o.host].config.name,
                    owner: &o.owner,
                };
                let label = format!("{}/{}", g.group.id, o.owner);
                if collection.is_stopped(o.host) {
                    collection.record_owner(OwnerResult::NotListed { owner: label });
                    continue;
                }
                if !store.owner_claim(owner, now, every)? {
                    collection.record_owner(OwnerResult::ListedElsewhere { owner: label });
                    continue;
                }
                let prefix = rate_prefix(hosts, o.host);
                let mut cache = StoreCache::new(&*store, prefix);
                let client = &mut hosts[o.host].client;
                let listed = client.list_owner(&o.owner, &mut cache);
                let cache_error = cache.error.take();
                let stats = client.http_ref().stats();
                if let Some(e) = cache_error {
                    return Err(e.into());
                }
                let listing = match listed {
                    Ok(listing) => listing,
                    Err(e) => {
                        store.owner_failed(owner, now, &e.to_string())?;
                        collection.owner_failed(o.host, label, e, stats);
                        continue;
                    }
                };
                let all = store.owner_repos(&g.group.id)?;
                let host = &hosts[o.host].config.name;
                let mine = |r: &&signals_store::OwnerRepo| &r.host == host && r.owner == o.owner;
                let known: Vec<Known> = all.iter().filter(mine).map(|r| r.known.clone()).collect();
                // Every id in use in the group: its configured repositories'
                // and those of its owners' repositories.
                let taken = g
                    .repos
                    .iter()
                    .map(|r| r.id.clone())
                    .chain(all.iter().map(|r| r.known.repo_id.clone()))
                    .collect();
                // Listed in the group's `repos` (collected there), or
                // holding an id a configured repository now uses.
                let configured = |name: &RepoName, id: Option<&str>| {
                    g.repos.iter().any(|r| {
                        (r.source == hosts[o.host].config.signals_source
                            && r.repo.to_string().eq_ignore_ascii_case(&name.to_string()))
                            || id == Some(r.id.as_str())
                    })
                };
                let after = apply(&known, &listing.repos, &g.filter, &configured, &taken, now);
                store.owner_listed(owner, now, &after, &listing.stats)?;
                // What each repository was before this listing, by id: one
                // lookup each, however many the owner has.
                let before: HashMap<&str, &Known> =
                    known.iter().map(|b| (b.repo_id.as_str(), b)).collect();
                let state_of = |k: &Known| before.get(k.repo_id.as_str()).map(|b| b.state);
                let new: Vec<String> = after
                    .iter()
                    .filter(|k| k.state == State::Tracked && state_of(k) != Some(State::Tracked))
                    .map(|k| k.full_name.to_string())
                    .collect();
                let left: Vec<(String, State)> = after
                    .iter()
                    .filter(|k| k.state != State::Tracked && state_of(k) == Some(State::Tracked))
                    .map(|k| (k.full_name.to_string(), k.state))
                    .collect();
                let renamed: Vec<(String, String)> = after
                    .iter()
                    .filter_map(|k| {
                        let (from, to) = (
                            before.get(k.repo_id.as_str())?.full_name.to_string(),
                            k.full_name.to_string(),
                        );
                        (from != to).then_some((from, to))
                    })
                    .collect();
                collection.record_owner(OwnerResult::Listed {
                    owner: label,
                    tracked: after.iter().filter(|k| k.state == State::Tracked).count(),
                    new,
                    left,
                    renamed,
                    not_modified: listing.not_modified,
                    stats: listing.stats,
                });
            }
            found.extend(self.tracked(g, hosts, store)?);
        }
        Ok(found)
    }

    /// The repositories of `g`'s configured owners that are tracked now,
    /// as the store holds them; never one a configured repository already
    /// collects (same id).
    fn tracked(
        &self,
        g: &GroupConfig,
        hosts: &[HostEntry],
        store: &dyn Owners,
    ) -> anyhow::Result<Vec<Found>> {
        let mut out = Vec::new();
        for r in store.owner_repos(&g.group.id)? {
            let Some(o) = g
                .owners
                .iter()
                .find(|o| hosts[o.host].config.name == r.host && o.owner == r.owner)
            else {
                // An owner no longer configured: its repositories stay in
                // the store, uncollected.
                continue;
            };
            let k = r.known;
            // `--repo` names it under either name.
            if k.state != State::Tracked
                || g.repos.iter().any(|c| c.id == k.repo_id)
                || self
                    .repo
                    .is_some_and(|want| *want != k.full_name && want != k.ids_name())
            {
                continue;
            }
            out.push(Found {
                group: g.group.clone(),
                repo: TrackedRepo {
                    id: k.repo_id.clone(),
                    source: hosts[o.host].config.signals_source.clone(),
                    // Shown under its current name; its ids keep the first.
                    name: k.full_name.name().to_string(),
                    repo: k.ids_name().clone(),
                    keywords: vec![],
                },
                host: o.host,
                ask: k.full_name,
            });
        }
        Ok(out)
    }
}
