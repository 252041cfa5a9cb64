//! The host's part of one run: its collection (the repository's object,
//! releases, milestones, items and comments, handed to the run's stage as
//! they arrive when it has one) and its discussions, which join its
//! items, every item under the configured name.

pub mod discussions;

use jiff::Timestamp;
use signals_core::lifecycle::verdict::{Asked as CommitsAsked, ask_commits};
use signals_core::run::{plan_since, reread_from, stable_since};
use signals_core::{GraphqlCost, News};
use signals_http::{Asked, Collection, PageSink};
use signals_store::{Backend, LifecycleStore, RepoKey};

use super::run::{Plan, Run, RunError};
use crate::cache::StoreCache;
use crate::hosts::HostClient;

/// What a run asks the host by.
#[derive(Clone, Copy)]
pub(super) struct Asking<'a> {
    pub(super) run: &'a Run<'a>,
    pub(super) plan: &'a Plan,
}

/// What the host gave a run.
pub(super) struct FromHost {
    /// Context, releases, milestones, items (those the run holds, with
    /// its discussions) and comments (those it holds).
    pub(super) collection: Collection,
    /// What the discussions brought beside their items.
    pub(super) discussions: discussions::Read,
    /// What GraphQL cost the run: the reviews' queries and the
    /// discussions'.
    pub(super) graphql: GraphqlCost,
    /// The commits per week as last asked (`commits`).
    pub(super) commits: Option<CommitsAsked>,
}

impl FromHost {
    /// The run's news: its releases, milestones and discussions.
    pub(super) fn news(&mut self) -> News {
        let collected = &self.collection.collected;
        let mut news = News::from_collected(&collected.releases, &collected.milestones);
        std::mem::take(&mut self.discussions).into_news(&mut news);
        news
    }
}

/// The host's part of a run: the collection (items, releases, context,
/// comments) and the discussions, which join its items, every item under
/// the configured name.
pub(super) fn host(
    client: &mut HostClient,
    store: &dyn Backend,
    key: RepoKey,
    at: Asking<'_>,
    sink: Option<&mut dyn PageSink>,
) -> Result<FromHost, RunError> {
    let Asking { run, plan } = at;
    let Run {
        group,
        repo,
        ask,
        collected_at,
        window,
        rate_prefix,
    } = *run;
    // The previous run's news: its discussions stand when none changed.
    let previous = match plan.first_run {
        true => None,
        false => store.latest_news(key)?,
    };
    // The host is asked from the start of `since`'s UTC day, so the URLs of
    // a day's runs are the same and an unchanged list answers 304; the
    // items updated before `since` that this brings are dropped below (the
    // runs before saw them).
    let mut cache = StoreCache::new(store, rate_prefix.to_string());
    // A reconcile asks for every item, from the beginning of time.
    let ask_since = if plan.reconcile {
        Timestamp::UNIX_EPOCH
    } else {
        stable_since(plan.floor)
    };
    // Comments since the previous successful run (less the margin of a
    // host's whole seconds and lag), not the run window: an item updated
    // in the last day would otherwise count as changed at every run, and
    // its reviews be asked again (docs/decisions.md).
    let comments_since = match plan.previous {
        None => plan_since(collected_at, window.comments_backfill, None, None),
        Some(previous) => reread_from(previous),
    };
    let asked = Asked {
        comments_since: Some(comments_since),
        count_pulls: plan.counting.may_count(),
    };
    let outcome = client.collect_into(ask, ask_since, asked, sink, &mut cache)?;
    // Discussions, under the name the host answered to; a reconcile
    // reads them all.
    let name = outcome.renamed_to.clone().unwrap_or_else(|| ask.clone());
    let watermark = if plan.reconcile {
        Timestamp::UNIX_EPOCH
    } else {
        signals_core::watermark(plan.since)
    };
    let same_day = plan
        .previous
        .is_some_and(|p| stable_since(p) == stable_since(collected_at));
    let asked = discussions::Asked {
        watermark,
        previous,
        same_day,
        off: window.discussions_off.contains(&group.id),
    };
    let mut discussions = discussions::read(client, &name, asked, &mut cache)?;
    // The commits' request is the run's, as the collection's are.
    let before = client.http_ref().stats();
    let commits = commits(client, store, key, &name, collected_at, &mut cache)?;
    let after = client.http_ref().stats();
    if let Some(e) = cache.error {
        return Err(e.into());
    }
    let mut outcome = outcome;
    let stats = &mut outcome.stats;
    stats.requests += after.requests.saturating_sub(before.requests);
    stats.not_modified += after.not_modified.saturating_sub(before.not_modified);
    stats.bytes_received += after.bytes_received.saturating_sub(before.bytes_received);
    stats.retries += after.retries.saturating_sub(before.retries);
    outcome.collected.items.append(&mut discussions.items);
    // The client reports items under the host's name, which differs from
    // the configured one after a rename (or in letter case); signals keep
    // the configured one (for a repository found through an owner, the
    // name it was first tracked under, though the host is asked under its
    // current one), so their ids stay stable and match the dataset's
    // `project` (docs/decisions.md).
    let collected = &mut outcome.collected;
    for item in collected
        .items
        .iter_mut()
        .chain(collected.releases.iter_mut())
    {
        item.repo = repo.repo.clone();
    }
    Ok(FromHost {
        collection: outcome,
        graphql: discussions.cost,
        discussions,
        commits,
    })
}

/// The commits per week of `name`, for its lifecycle: asked at most once
/// a UTC day, and again at the next run while the host computes them
/// (`ask_commits`); else as the last judgement kept them. `None` where the
/// host gives none (no request).
fn commits(
    client: &mut HostClient,
    store: &dyn LifecycleStore,
    key: RepoKey,
    name: &signals_core::RepoName,
    now: Timestamp,
    cache: &mut StoreCache<'_>,
) -> Result<Option<CommitsAsked>, RunError> {
    let before = store.lifecycle(key)?.and_then(|r| r.asked);
    if !ask_commits(before.as_ref(), now) {
        return Ok(before);
    }
    Ok(client
        .commits(name, cache)?
        .map(|commits| CommitsAsked { at: now, commits }))
}
