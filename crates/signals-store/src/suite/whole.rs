//! Reads only tests use, built from the roles' own reads so that no
//! backend keeps SQL for them: a repository read whole, every latest
//! snapshot, every rate limit.

use std::collections::BTreeMap;

use jiff::Timestamp;
use signals_core::{EventKind, ItemSnapshot, TrailEvent};

use crate::{Backend, LatestItem, RateLimit, RepoKey, RepoView, Result, TrailKey};

/// Reads only tests use, made of the roles' own reads (so no backend
/// keeps SQL for them): a repository read whole, every latest snapshot,
/// every rate limit. For any store: `Box<dyn Backend>`, `Store`, `PgStore`.
pub trait WholeReads {
    /// Everything the dataset and the page of one repository are built
    /// from; `None` before its first successful run,
    /// [`crate::StoreError::UnknownRepository`] for a key the store does not have.
    fn repository_view(&self, repo: RepoKey) -> Result<Option<RepoView>>;

    /// The latest snapshot of every item of a repository, by signal id.
    fn latest_snapshots(&self, repo: RepoKey) -> Result<BTreeMap<String, ItemSnapshot>>;

    /// Every rate limit last seen, by key, with when it was seen.
    fn rate_limits(&self) -> Result<Vec<(String, RateLimit, Timestamp)>>;
}

/// How many rows each batch of [`WholeReads`] reads.
const WHOLE_BATCH: usize = 500;

impl<B: Backend + ?Sized> WholeReads for B {
    fn repository_view(&self, repo: RepoKey) -> Result<Option<RepoView>> {
        let Some(outline) = self.repository_outline(repo)? else {
            return Ok(None);
        };
        let latest = latest_items(self, repo)?;
        let changed_in_latest = latest
            .iter()
            .filter(|i| i.latest_event == Some(EventKind::Changed))
            .map(|i| i.id.clone())
            .collect();
        let trail = whole_trail(self, repo)?;
        Ok(Some(RepoView {
            summary: outline.summary,
            runs: outline.runs,
            context: outline.context,
            news: outline.news,
            items: latest.into_iter().map(|i| (i.id, i.item)).collect(),
            changed_in_latest,
            event_count: trail.len() as u64,
            trail,
            license: outline.license,
        }))
    }

    fn latest_snapshots(&self, repo: RepoKey) -> Result<BTreeMap<String, ItemSnapshot>> {
        Ok(latest_items(self, repo)?
            .into_iter()
            .map(|i| (i.id, i.item))
            .collect())
    }

    fn rate_limits(&self) -> Result<Vec<(String, RateLimit, Timestamp)>> {
        Ok(self.status()?.rate_limits)
    }
}

/// Every latest snapshot of `repo`, in id order, a batch at a time.
fn latest_items<B: Backend + ?Sized>(store: &B, repo: RepoKey) -> Result<Vec<LatestItem>> {
    let mut items: Vec<LatestItem> = Vec::new();
    loop {
        let after = items.last().map(|i| i.id.as_str());
        let batch = store.latest_items_after(repo, after, WHOLE_BATCH)?;
        if batch.is_empty() {
            return Ok(items);
        }
        items.extend(batch);
    }
}

/// The whole trail of `repo` in its order (run, then item id), its keys a
/// batch at a time and the events of each batch by their keys.
fn whole_trail<B: Backend + ?Sized>(store: &B, repo: RepoKey) -> Result<Vec<TrailEvent>> {
    let mut trail = Vec::new();
    let mut last: Option<TrailKey> = None;
    loop {
        let after = last.as_ref().map(|(run, id)| (*run, id.as_str()));
        let batch = store.trail_keys_after(repo, after, WHOLE_BATCH)?;
        let Some((run, event)) = batch.last() else {
            return Ok(trail);
        };
        last = Some((*run, event.item_id.clone()));
        let keys: Vec<TrailKey> = batch.into_iter().map(|(r, e)| (r, e.item_id)).collect();
        trail.extend(store.trail_events(repo, &keys)?);
    }
}
