//! Which items a run finds crossing `waiting_days`, for the
//! `waiting` alert event: only when some `[[notify]]` rule asks for it,
//! and not on a repository's first run. It reads the repository's open
//! items' latest snapshots and its stored replies (no request to the
//! host): the one read of a run beyond the items it observed, the price of
//! an event that time, not a host, makes happen (docs/decisions.md).

use std::collections::HashMap;

use jiff::Timestamp;
use signals_core::first_response::{Answer, Responses, read_from};
use signals_core::notify::{Trigger, crossed};
use signals_core::run::RunDelta;
use signals_core::{Group, ItemSnapshot};
use signals_store::{Backend, RepoKey};

use super::run::{Alerts, RunError};

/// The span a run looks back over for items crossing `waiting_days`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Between {
    /// The previous successful run's instant (none on a first run).
    pub(super) previous: Option<Timestamp>,
    /// This run's instant.
    pub(super) now: Timestamp,
}

/// The items of `repo` that crossed `waiting_days` between the previous
/// run and `now`, with this run's snapshots; empty when no rule asks for
/// `waiting` or there was no previous run.
pub(super) fn crossing(
    store: &dyn Backend,
    key: RepoKey,
    group: &Group,
    when: Between,
    delta: &RunDelta,
    alerts: &Alerts<'_>,
) -> Result<Vec<ItemSnapshot>, RunError> {
    let asked = alerts
        .rules
        .iter()
        .any(|r| r.rule.events.contains(&Trigger::Waiting));
    let Between { previous, now } = when;
    let Some(previous) = previous.filter(|_| asked) else {
        return Ok(Vec::new());
    };
    let config = alerts.config;
    let mut items: HashMap<String, ItemSnapshot> = store
        .latest_snapshots_for(key, &store.open_item_ids(key)?)?
        .into_iter()
        .collect();
    // This run's snapshots win: an item closed now no longer waits.
    for (id, item) in &delta.snapshots {
        items.insert(id.clone(), item.clone());
    }
    let ignore = config
        .groups
        .iter()
        .find(|g| g.group.id == group.id)
        .map_or(&[][..], |g| g.ignore_users.as_slice());
    let first_run = store.reconcile_marks(key)?.first_run;
    let read_from = read_from(first_run, config.comments_backfill_days);
    let responses = Responses::new(store.replies(key)?, ignore).read_from(read_from);
    let mut out: Vec<(String, ItemSnapshot)> = items
        .into_iter()
        .filter(|(id, item)| {
            // An item whose first response is not known is not said to wait.
            let answer = responses.answer(id, item);
            let first = answer.clone().and_then(Answer::first);
            !matches!(answer, Some(Answer::Unknown))
                && crossed(item, first.as_ref(), previous, now, config.waiting_days)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out.into_iter().map(|(_, item)| item).collect())
}
