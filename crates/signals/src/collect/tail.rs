//! How every run ends, held or staged: its record, news, references and
//! messages gathered into the store's commit, and the outcome its
//! collection reports.

use jiff::Timestamp;
use signals_core::diff::Observation;
use signals_core::lifecycle::verdict::Asked;
use signals_core::notify::Outgoing;
use signals_core::references::ItemReferences;
use signals_core::run::{ItemEvent, RunDelta};
use signals_core::{AssetCount, GraphqlCost, News, RepoContext, RepoName, RunRecord};
use signals_http::RequestStats;
use signals_store::{KeptPulls, RunCommit};

use super::run::{HostFacts, Plan, RunOutcome};

/// What a run brings to its end.
pub(super) struct Ending {
    pub(super) collected_at: Timestamp,
    /// The repository as the host showed it.
    pub(super) context: RepoContext,
    pub(super) news: News,
    /// The run's own items, accounted against their previous snapshots
    /// (a staged run's releases, discussions and closed items; a held
    /// run's every item).
    pub(super) delta: RunDelta,
    pub(super) references: Vec<ItemReferences>,
    pub(super) messages: Vec<Outgoing>,
    pub(super) stats: RequestStats,
    pub(super) graphql: GraphqlCost,
    pub(super) renamed_to: Option<RepoName>,
    pub(super) open_pulls: KeptPulls,
    /// Comments on items neither listed nor held, which wait.
    pub(super) comments_waiting: u64,
    /// What the run's stage adds, counted before its commit.
    pub(super) staged: StagedCounts,
    /// The commits per week as last asked.
    pub(super) commits: Option<Asked>,
    /// The download counts of the releases' assets.
    pub(super) downloads: Vec<AssetCount>,
    /// The items a reconcile found the host no longer lists.
    pub(super) gone: Vec<String>,
}

/// What a run's stage adds to its counts (nothing for a held run).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct StagedCounts {
    pub(super) observed: u64,
    pub(super) events: u64,
    pub(super) discovered: u64,
}

/// A run's commit, and the outcome it reports once committed.
pub(super) struct Finished {
    pub(super) commit: RunCommit,
    pub(super) outcome: RunOutcome,
}

/// The commit and outcome of a run of `plan` that ends with `ending`.
pub(super) fn finish(plan: &Plan, ending: Ending) -> Finished {
    let Ending {
        collected_at,
        context,
        news,
        delta,
        references,
        messages,
        stats,
        graphql,
        renamed_to,
        open_pulls,
        comments_waiting,
        staged,
        commits,
        downloads,
        gone,
    } = ending;
    let facts = HostFacts {
        archived: context.archived,
        pushed_at: context.pushed_at,
        url: context.url.clone(),
        last_release: last_release(&news),
        commits,
    };
    let record = RunRecord {
        collected_at,
        since: plan.since,
        observed_count: delta.observed_count + staged.observed,
        changed_count: delta.changed_count() + staged.events,
    };
    let outcome = RunOutcome {
        run: record.clone(),
        discovered: staged.discovered + discovered(&delta.events),
        comments_waiting,
        stats,
        graphql,
        renamed_to: renamed_to.clone(),
        facts,
    };
    let commit = RunCommit {
        record,
        context,
        news,
        snapshots: delta.snapshots,
        events: delta.events,
        references,
        stats,
        renamed_to,
        messages,
        reconciled: plan.reconcile,
        open_pulls,
        downloads,
        gone,
    };
    Finished { commit, outcome }
}

/// When the newest release of `news` was published: its latest stable
/// release, or a prerelease after it.
fn last_release(news: &News) -> Option<Timestamp> {
    let published = |r: &signals_core::ItemSnapshot| match r.detail {
        signals_core::ItemDetail::Release { published_at, .. } => Some(published_at),
        _ => None,
    };
    news.latest_release
        .iter()
        .chain(&news.next_prereleases)
        .filter_map(published)
        .max()
}

/// How many of `events` discover their item.
pub(super) fn discovered(events: &[ItemEvent]) -> u64 {
    events
        .iter()
        .filter(|e| matches!(e.observation, Observation::Discovered))
        .count() as u64
}
