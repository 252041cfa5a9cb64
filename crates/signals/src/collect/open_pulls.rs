//! The open pull requests GitHub's open issue count holds, counted from
//! the store when it holds the repository's whole history
//! (docs/decisions.md), else asked of the host.
//!
//! The store keeps the count on the repository, and each run moves it by
//! what the run's items changed: +1 for a pull request that is open now
//! and was not in the store or not open there, −1 for one that was open
//! and is not now. It costs what the run observed, never a count over the
//! repository's items. It is trusted when the first run's window reached
//! the repository's creation (every later run covers its window from the
//! previous one's instant, `plan_since`); a reconcile asks the host all
//! the same and compares: a difference is recorded, and from then on the
//! host is asked.

use std::collections::HashMap;

use jiff::Timestamp;
use signals_core::{ItemKind, ItemSnapshot, ItemState, RepoContext, SourceId};
use signals_http::{OpenPulls, RequestStats};
use signals_store::{HttpState, KeptPulls};

use super::run::{Plan, RunError};
use crate::cache::StoreCache;
use crate::hosts::HostClient;

/// The parts of a collection the count needs and settles.
pub(super) struct Collected<'a> {
    pub open_pulls: &'a OpenPulls,
    pub created_at: Option<Timestamp>,
    pub pulls_left_out: bool,
    pub context: &'a mut RepoContext,
    pub stats: &'a mut RequestStats,
}

/// Settles the run's count of open pull requests: takes the local count
/// off `openIssues` when it is owed and known, else asks the host (one
/// request, added to `stats`); compares with the host's count when it
/// was asked. Returns what the store keeps.
pub(super) fn settle(
    client: &mut HostClient,
    store: &dyn HttpState,
    at: Settling<'_>,
    collected: Collected<'_>,
    shift: Shift,
) -> Result<KeptPulls, RunError> {
    let Settling { plan, rate_prefix } = at;
    let (counting, since) = (plan.counting, plan.since);
    let Shift { up, down } = shift;
    // A first run knows every item only when its window reached the
    // repository's creation.
    let whole = !counting.first_run || collected.created_at.is_some_and(|c| since <= c);
    let local = counting
        .before
        .filter(|_| whole)
        .map(|before| (before + up).saturating_sub(down));
    // A closed pull request left out (its merge unknown) may still be
    // open in the store: the count stays the store's, the host is asked.
    let trusted = local.filter(|_| !collected.pulls_left_out);
    let context = collected.context;
    match (collected.open_pulls, trusted) {
        (OpenPulls::NotHeld, _) => Ok(KeptPulls::Unknown),
        (OpenPulls::Owed(_), Some(n)) => {
            context.open_issues = context.open_issues.saturating_sub(n);
            Ok(KeptPulls::Count(n))
        }
        (OpenPulls::Owed(owed), None) => {
            let mut cache = StoreCache::new(store, rate_prefix.to_string());
            let asked_before = client.http_ref().stats();
            let n = client.ask_open_pulls(owed, &mut cache);
            add(collected.stats, asked_before, client.http_ref().stats());
            if let Some(e) = cache.error {
                return Err(e.into());
            }
            let n = n?;
            context.open_issues = context.open_issues.saturating_sub(n);
            Ok(local.map_or(KeptPulls::Unknown, KeptPulls::Count))
        }
        (OpenPulls::Asked(host), _) => Ok(match local {
            None => KeptPulls::Unknown,
            Some(kept) if kept == *host || collected.pulls_left_out => KeptPulls::Count(kept),
            Some(kept) => {
                eprintln!(
                    "warning: {}: the store counts {kept} open pull requests, the host {host}; \
                     the count is asked of the host from now on",
                    context.repository
                );
                KeptPulls::Differed { kept, host: *host }
            }
        }),
    }
}

/// What the count is settled by: the run's plan (its count before and its
/// window) and the keys of the host's rate limits.
#[derive(Clone, Copy)]
pub(super) struct Settling<'a> {
    pub(super) plan: &'a Plan,
    pub(super) rate_prefix: &'a str,
}

/// How a run's items move the count: pull requests open now and not
/// before (`up`), open before and not now (`down`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Shift {
    pub(super) up: u64,
    pub(super) down: u64,
}

impl std::ops::Add for Shift {
    type Output = Shift;
    fn add(self, other: Shift) -> Shift {
        Shift {
            up: self.up + other.up,
            down: self.down + other.down,
        }
    }
}

/// How the run's `observed` items move the count against their previous
/// snapshots. A run whose items come in chunks adds up each chunk's.
pub(super) fn shift(
    observed: &[ItemSnapshot],
    previous: &HashMap<String, ItemSnapshot>,
    source: &SourceId,
) -> Shift {
    let open = |i: &ItemSnapshot| i.kind() == ItemKind::PullRequest && i.state == ItemState::Open;
    let mut shift = Shift::default();
    for item in observed {
        let was = previous.get(&item.id(source)).is_some_and(open);
        match (was, open(item)) {
            (false, true) => shift.up += 1,
            (true, false) => shift.down += 1,
            _ => {}
        }
    }
    shift
}

/// `into` plus what the client counted between `before` and `after`.
fn add(into: &mut RequestStats, before: RequestStats, after: RequestStats) {
    into.requests += after.requests.saturating_sub(before.requests);
    into.not_modified += after.not_modified.saturating_sub(before.not_modified);
    into.bytes_received += after.bytes_received.saturating_sub(before.bytes_received);
    into.retries += after.retries.saturating_sub(before.retries);
}

#[cfg(test)]
mod tests {
    use super::*;
    use signals_core::{ItemDetail, Metrics, RepoName, Source};

    fn pull(key: &str, state: ItemState) -> ItemSnapshot {
        ItemSnapshot {
            repo: RepoName::parse("o/n").unwrap(),
            key: key.into(),
            url: format!("https://github.com/o/n/pull/{key}"),
            title: "t".into(),
            text: String::new(),
            created_at: Timestamp::UNIX_EPOCH,
            updated_at: Timestamp::UNIX_EPOCH,
            metrics: Metrics::default(),
            labels: vec![],
            author: "a".into(),
            state,
            closed_at: None,
            assignees: vec![],
            detail: ItemDetail::PullRequest {
                draft: false,
                merged: false,
                merged_at: None,
                association: None,
            },
        }
    }

    #[test]
    fn the_count_moves_by_what_changed_state() {
        let source: SourceId = Source::Github.into();
        let (open, closed) = (ItemState::Open, ItemState::Closed);
        let previous: HashMap<String, ItemSnapshot> = [pull("1", open), pull("2", closed)]
            .into_iter()
            .chain([pull("3", open)])
            .map(|p| (p.id(&source), p))
            .collect();
        // 1 closes, 2 reopens, 3 stays open, 4 is new and open, 5 new
        // and closed.
        let observed = [
            pull("1", closed),
            pull("2", open),
            pull("3", open),
            pull("4", open),
            pull("5", closed),
        ];
        assert_eq!(
            shift(&observed, &previous, &source),
            Shift { up: 2, down: 1 }
        );
        assert_eq!(shift(&[], &previous, &source), Shift::default());
        // An issue does not count.
        let mut issue = pull("6", open);
        issue.detail = ItemDetail::issue();
        assert_eq!(shift(&[issue], &previous, &source), Shift::default());
    }
}
