//! Which of a run's items it observes, and their previous snapshots: the
//! step between what the host gave and what the run accounts for.

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;
use signals_core::{Collected, ItemDetail, ItemKind, ItemSnapshot, TrackedRepo};
use signals_store::{Reads, RepoKey};

use super::run::{RunError, Seen};

/// The run's observed items and the previous snapshots of each: the items
/// updated in the window, the releases published in it (all releases
/// feed the news) and every advisory listed. A reconcile also observes every item the store knows,
/// whatever its `updated_at` (what `since` cannot see), and no older item
/// it does not know: those are outside what the repository's first run
/// reached back to; and it closes the open items the host no longer lists.
///
/// Only the observed items' previous snapshots are read, and only what
/// changed is written: a run costs what it observed, however large the
/// repository. Importance is not computed here: it depends on time, so
/// the export computes it from the latest snapshots.
pub(super) fn observe(
    store: &dyn Reads,
    key: RepoKey,
    repo: &TrackedRepo,
    collected: &mut Collected,
    seen: Seen<'_>,
    collected_at: Timestamp,
) -> Result<Observed, RunError> {
    let plan = seen.plan;
    let since = plan.since;
    // Discussions read down to the watermark are observed down to it.
    let from = |i: &ItemSnapshot| match i.kind() {
        ItemKind::Discussion => signals_core::watermark(since).min(plan.floor),
        _ => plan.floor,
    };
    let listed: Vec<String> = if plan.reconcile {
        collected.items.iter().map(|i| i.id(&repo.source)).collect()
    } else {
        Vec::new()
    };
    let known = store.latest_snapshots_for(key, &listed)?;
    let mut observed: Vec<_> = std::mem::take(&mut collected.items)
        .into_iter()
        .filter(|i| i.updated_at >= from(i) || known.contains_key(&i.id(&repo.source)))
        .collect();
    observed.extend(
        collected
            .releases
            .iter()
            .filter(|r| match r.detail {
                ItemDetail::Release { published_at, .. } => published_at >= since,
                _ => false,
            })
            .cloned(),
    );
    // Every listed advisory, whatever its times: the list is short and
    // read whole, so one withdrawn before the first run is a signal too.
    observed.append(&mut collected.advisories);
    let ids: Vec<String> = observed.iter().map(|i| i.id(&repo.source)).collect();
    let mut previous = store.latest_snapshots_for(key, &ids)?;
    let mut gone = Vec::new();
    // Open issues and pull requests the host no longer lists (deleted,
    // transferred, hidden) are closed at this instant (docs/decisions.md).
    if plan.reconcile {
        let listed: HashSet<&str> = listed.iter().map(String::as_str).collect();
        let open = match seen.unlisted_open {
            Some(open) => open.iter().cloned().collect(),
            None => store.open_item_ids(key)?,
        };
        let missing: Vec<String> = open
            .into_iter()
            .filter(|id| !listed.contains(id.as_str()))
            .filter(|id| seen.discussions || !id.contains(":discussion:"))
            .collect();
        for (id, last) in store.latest_snapshots_for(key, &missing)? {
            observed.push(signals_core::reconcile::gone(&last, collected_at));
            previous.insert(id.clone(), last);
            gone.push(id);
        }
    }
    gone.sort_unstable();
    Ok(Observed {
        observed,
        previous,
        gone,
    })
}

/// A run's observed items, the previous snapshots of those the store
/// holds, by signal id, and the items a reconcile found the host no longer
/// lists (among the observed, closed): the run's commit marks them gone,
/// for related items.
pub(super) struct Observed {
    pub(super) observed: Vec<ItemSnapshot>,
    pub(super) previous: HashMap<String, ItemSnapshot>,
    pub(super) gone: Vec<String>,
}
