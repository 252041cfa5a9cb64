//! One run of one repository, as a recipe: plan the run; a repository's
//! first run and its reconciles list its whole history through the
//! store's stage (`staged.rs`), every other run holds what it listed
//! (`held.rs`); then the word index and the group's related items catch
//! up, and a failure leaves its note. Both kinds of run are the same steps in the same order (`ask`,
//! `comments`, `observe`, `open_pulls`, `waiting`) ending in the same
//! tail (`tail.rs`); the steps read the run's plain types (`run.rs`) and
//! never each other. `collect`, the worker and `demo` all go through
//! here, so the demo exercises exactly the production path.

use signals_store::{Backend, RepoKey};

use super::run::{
    Run, RunError, RunOutcome, failure_kind, is_repository_failure, plan, with_causes,
};
use super::{held, lifecycle, staged};
use crate::hosts::HostClient;

/// Collects one repository at the run's instant and commits the run:
/// the host is asked under `run.ask` (a repository found through an
/// owner, under the name the owner's last listing gave, else its
/// configured name).
pub fn collect_one(
    client: &mut HostClient,
    store: &mut dyn Backend,
    run: Run<'_>,
) -> Result<RunOutcome, RunError> {
    let collected_at = run.collected_at;
    let key = store.ensure_repository(run.group, run.repo)?;
    let result = one_run(client, store, key, &run).and_then(|outcome| {
        // The word index reads what the run committed; should this fail,
        // the run stays committed and the next catch-up, at the next run,
        // indexes it.
        signals_store::search::catch_up(store, key)?;
        // The run is committed: a judgement that fails is the next run's
        // to make, not a failure of this one (which a worker would collect
        // again).
        if let Err(e) = lifecycle::judge_after(&*store, key, &run, &outcome.facts) {
            eprintln!(
                "warning: {}/{}: the lifecycle was not judged, the next run judges it: {}",
                run.group.id,
                run.repo.id,
                with_causes(&e)
            );
        }
        // Related items likewise: a failure leaves `through` behind and
        // the next catch-up (a run of the group, an export) completes it.
        if let Err(e) = crate::related::catch_up_after_run(store, &run.group.id, key) {
            eprintln!(
                "warning: {}: related items did not catch up, the next run or export does: {}",
                run.group.id,
                with_causes(&e)
            );
        }
        Ok(outcome)
    });
    // A failed attempt leaves a note for `signals status`, nothing else. A
    // lost connection is not the repository's failure (the worker waits for
    // the store and collects it again), nor is a lease another worker took.
    match &result {
        Err(RunError::Host(e)) => {
            store.record_failure(key, collected_at, failure_kind(e), &e.to_string())?;
        }
        Err(RunError::Store(e)) if is_repository_failure(e) => {
            store.record_failure(key, collected_at, "store", &with_causes(e))?;
        }
        _ => {}
    }
    result
}

/// Plans the run, and chooses once how it goes.
fn one_run(
    client: &mut HostClient,
    store: &mut dyn Backend,
    key: RepoKey,
    run: &Run<'_>,
) -> Result<RunOutcome, RunError> {
    let plan = plan(&*store, key, run)?;
    match plan.staged() {
        true => staged::run(client, store, key, run, &plan),
        false => held::run(client, store, key, run, &plan),
    }
}
