//! A run that holds its items from the host's pages to its commit: every
//! run but a repository's first and its reconciles (`staged.rs`). The
//! recipe: ask the host, store the comments, observe the items, settle
//! the open pull requests' count, account, make the alerts, commit.

use signals_core::run::account;
use signals_store::{Backend, RepoKey};

use super::ask::{self, Asking};
use super::comments::{self, Written};
use super::observe::observe;
use super::open_pulls::{self, Settling};
use super::run::{Occasion, Plan, Run, RunError, RunOutcome, Seen};
use super::tail::{Ending, StagedCounts, finish};
use super::{echo, waiting};
use crate::hosts::HostClient;

/// One held run of `run`, as `plan` says.
pub(super) fn run(
    client: &mut HostClient,
    store: &mut dyn Backend,
    key: RepoKey,
    run: &Run<'_>,
    plan: &Plan,
) -> Result<RunOutcome, RunError> {
    let Run {
        group,
        repo,
        collected_at,
        window,
        rate_prefix,
        ..
    } = *run;
    let mut host = ask::host(client, &*store, key, Asking { run, plan }, None)?;
    let news = host.news();
    let seen = Seen {
        plan,
        discussions: host.discussions.read(),
        unlisted_open: None,
    };
    let signals_http::Collection {
        mut collected,
        renamed_to,
        mut stats,
        comments,
        merges,
        open_pulls,
        created_at,
        pulls_left_out,
        ..
    } = host.collection;
    let written = Written {
        repo_url: &collected.context.url,
        items: &collected.items,
    };
    let comment_references = comments::store(&*store, key, repo, written, comments)?;
    // Who merged, stored as the comments are: before the commit.
    store.store_merges(key, &merges)?;
    let found = observe(&*store, key, repo, &mut collected, seen, collected_at)?;
    let open_pulls = open_pulls::settle(
        client,
        &*store,
        Settling { plan, rate_prefix },
        open_pulls::Collected {
            open_pulls: &open_pulls,
            created_at,
            pulls_left_out,
            context: &mut collected.context,
            stats: &mut stats,
        },
        open_pulls::shift(&found.observed, &found.previous, &repo.source),
    )?;
    let delta = account(&repo.source, found.observed, &found.previous);
    // The alerts the run's events call for are committed with the run.
    let messages = match window.alerts {
        None => vec![],
        Some(alerts) => {
            let when = waiting::Between {
                previous: plan.previous,
                now: collected_at,
            };
            let crossing = waiting::crossing(&*store, key, group, when, &delta, &alerts)?;
            let echoed = match plan.first_run {
                true => Vec::new(),
                false => echo::echoing(&*store, key, group, &delta, &alerts)?,
            };
            alerts.messages(Occasion {
                group,
                repo,
                repo_url: &collected.context.url,
                collected_at,
                first_run: plan.first_run,
                delta: &delta,
                crossing: &crossing,
                echoed: &echoed,
            })
        }
    };
    // What the new texts name: parsed here, no request. A comment on an
    // item the store does not hold waits for the run that sees it.
    let placed = comment_references.with_bodies(&*store, key, &delta, &found.previous)?;
    let finished = finish(
        plan,
        Ending {
            collected_at,
            context: collected.context,
            news,
            delta,
            references: placed.references,
            messages,
            stats,
            graphql: host.graphql,
            renamed_to,
            open_pulls,
            comments_waiting: placed.waiting,
            staged: StagedCounts::default(),
            commits: host.commits,
            downloads: collected.downloads,
            gone: found.gone,
        },
    );
    store.commit_run(key, &finished.commit)?;
    Ok(finished.outcome)
}
