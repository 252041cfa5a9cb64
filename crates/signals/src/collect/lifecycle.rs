//! A repository's lifecycle, judged once its run has committed, from
//! what the run's host showed (`HostFacts`: archived, last push, newest
//! release, commits per week) and what the store holds (its open items
//! waiting for a first answer, its comments, reviews and merges of the
//! last `answer_days` days), at most once a UTC day and at once when archived
//! or unarchived (`signals_core::lifecycle::verdict::judge_due`). The
//! judgement is kept as one row of the run, with the `lifecycle` alerts a
//! change calls for; like the word index, it reads what the run
//! committed, and should it fail, the run stays committed and the next
//! run judges (docs/decisions/lifecycle.md).

use jiff::{SignedDuration, Timestamp};
use signals_core::first_response::{Responses, read_from};
use signals_core::lifecycle::contributors::{
    Author, MAINTAINER, Voice, carriers, is_contributor, is_pending,
};
use signals_core::lifecycle::verdict::{Commits, Record, Seen, judge_due};
use signals_core::lifecycle::{Facts, judge};
use signals_core::notify::{LifecycleNote, RunInput, lifecycle_messages};
use signals_core::{ItemDetail, ItemSnapshot};
use signals_store::{Backend, RepoKey};

use super::run::{HostFacts, Run, RunError};

/// Judges the repository of `run` after its commit, when due, and keeps
/// the judgement with its alerts.
pub(super) fn judge_after(
    store: &dyn Backend,
    key: RepoKey,
    run: &Run<'_>,
    host: &HostFacts,
) -> Result<(), RunError> {
    let now = run.collected_at;
    let previous = store.lifecycle(key)?;
    let seen = Seen {
        now,
        archived: host.archived,
    };
    if !judge_due(previous.as_ref(), seen) {
        return Ok(());
    }
    let config = run.window.config;
    let t = &config.lifecycle;
    let ignore = config
        .groups
        .iter()
        .find(|g| g.group.id == run.group.id)
        .map_or(&[][..], |g| g.ignore_users.as_slice());
    let since = now - days(t.answer_days);
    let voices = store.voices_since(key, since)?;
    let commits = host.commits.as_ref().and_then(|a| match &a.commits {
        Commits::Weeks { weeks } => Some(weeks.clone()),
        Commits::Pending | Commits::None => None,
    });
    let facts = Facts {
        archived: host.archived,
        commits,
        pushed_at: host.pushed_at,
        last_release: host.last_release,
        waiting: waiting(store, key, run, now - days(t.idle_days))?,
        answers: answers(&voices, ignore),
    };
    let judged = judge(&facts, t, now);
    let merges = store.merges_since(key, since)?;
    let carried = carriers(&voices, &merges, ignore, since);
    let record = Record::after(
        previous.as_ref(),
        judged,
        now,
        carried,
        host.commits.clone(),
    );
    let messages = match (record.changed_from(previous.as_ref()), run.window.alerts) {
        (Some(from), Some(alerts)) => {
            let link = alerts.link(run.group, run.repo);
            let input = RunInput {
                group: run.group,
                repo: run.repo,
                repo_url: &host.url,
                collected_at: now,
                first_run: false,
                events: &[],
                snapshots: &[],
                weights: alerts.weights,
                link: link.as_deref(),
            };
            let note = LifecycleNote {
                from,
                to: record.state,
                reasons: record.reasons.clone(),
            };
            let declared = config.declared_lifecycle(&run.group.id, &run.repo.id);
            lifecycle_messages(&alerts.rule_refs(), &input, &note, declared)
        }
        _ => Vec::new(),
    };
    store.record_lifecycle(key, now, &record, &messages)?;
    Ok(())
}

fn days(d: u32) -> SignedDuration {
    SignedDuration::from_hours(i64::from(d) * 24)
}

/// The answers among `voices`: comments and reviews by people, pending
/// reviews left out; by maintainers where the host tells associations
/// (GitHub), else by anyone.
fn answers(voices: &[Voice], ignore: &[String]) -> u64 {
    voices
        .iter()
        .filter(|v| {
            is_contributor(
                Author {
                    login: &v.author,
                    bot: v.bot,
                },
                ignore,
            ) && !is_pending(v.state.as_deref())
                && v.association
                    .as_deref()
                    .is_none_or(|a| MAINTAINER.contains(&a))
        })
        .count() as u64
}

/// The open issues and pull requests of `key` opened since `from` that
/// wait for a first answer (past `waiting_days`, as the `waiting` event
/// says), from the store's latest snapshots and replies.
fn waiting(
    store: &dyn Backend,
    key: RepoKey,
    run: &Run<'_>,
    from: Timestamp,
) -> Result<u64, RunError> {
    let config = run.window.config;
    let ignore = config
        .groups
        .iter()
        .find(|g| g.group.id == run.group.id)
        .map_or(&[][..], |g| g.ignore_users.as_slice());
    let open = store.latest_snapshots_for(key, &store.open_item_ids(key)?)?;
    let recent: Vec<(String, ItemSnapshot)> = open
        .into_iter()
        .filter(|(_, item)| {
            item.created_at >= from
                && matches!(
                    item.detail,
                    ItemDetail::Issue { .. } | ItemDetail::PullRequest { .. }
                )
        })
        .collect();
    let ids: Vec<String> = recent.iter().map(|(id, _)| id.clone()).collect();
    let first_run = store.reconcile_marks(key)?.first_run;
    let responses = Responses::new(store.replies_of(key, &ids)?, ignore)
        .read_from(read_from(first_run, config.comments_backfill_days));
    Ok(recent
        .iter()
        .filter(|(id, item)| {
            responses
                .answer(id, item)
                .is_some_and(|a| a.waits(item, run.collected_at, config.waiting_days))
        })
        .count() as u64)
}
