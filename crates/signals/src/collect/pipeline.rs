//! One run of one repository, as a recipe: plan the window, collect from the
//! host, compare with the store, commit. `collect` and `demo` both go
//! through here, so the demo exercises exactly the production path.

use std::collections::{HashMap, HashSet};

use jiff::{SignedDuration, Timestamp};
use signals_core::diff::Observation;
use signals_core::importance::Weights;
use signals_core::notify::{Outgoing, RuleRef, RunInput, messages, waiting_messages};
use signals_core::run::{RunDelta, account, plan_since, reread_from, stable_since};
use signals_core::{
    Collected, GraphqlCost, Group, ItemDetail, ItemKind, ItemSnapshot, News, RepoName, RunRecord,
    TrackedRepo,
};
use signals_http::{Asked, Collection, PageSink, RequestStats};
use signals_store::{Backend, RepoKey, RunCommit, StoreError};

use super::discussions;
use super::open_pulls::{self, Counting};
use crate::cache::StoreCache;
use crate::config::{Config, NotifyRule};
use crate::hosts::HostClient;

/// The window settings of a collection, and the alerts its runs commit.
#[derive(Debug, Clone, Copy)]
pub struct Window<'a> {
    /// The run window (24 hours by default).
    pub window: SignedDuration,
    /// How far a first run reaches back.
    pub backfill: Option<SignedDuration>,
    /// How far a first run reads comments back (`comments_backfill_days`,
    /// issue 26).
    pub comments_backfill: SignedDuration,
    /// The `[[notify]]` rules whose messages each run commits with it.
    pub alerts: Option<Alerts<'a>>,
    /// When a run lists every item of its repository (issue 20).
    pub reconcile: Reconcile,
    /// The groups whose discussions are not read (`discussions = false`,
    /// issue 26), by id.
    pub discussions_off: &'a [String],
}

impl<'a> Window<'a> {
    /// The windows `config` sets, its alerts, when runs reconcile, and the
    /// groups whose discussions are off (`collect::discussions_off`).
    pub fn of(
        config: &'a Config,
        reconcile: Reconcile,
        discussions_off: &'a [String],
    ) -> Window<'a> {
        Window {
            window: SignedDuration::from_hours(config.window_hours),
            backfill: config
                .backfill_days
                .map(|d| SignedDuration::from_hours(d * 24)),
            comments_backfill: SignedDuration::from_hours(
                i64::from(config.comments_backfill_days) * 24,
            ),
            alerts: Alerts::of(config),
            reconcile,
            discussions_off,
        }
    }
}

/// When a run is a reconcile: one that lists every item of its repository
/// and compares them with the store (`signals_core::reconcile`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Reconcile {
    /// Every how many days, at each repository's own phase (0: never).
    pub days: u32,
    /// Reconcile every repository now (`collect --reconcile`).
    pub force: bool,
}

/// What a run needs to make its alert messages.
#[derive(Debug, Clone, Copy)]
pub struct Alerts<'a> {
    /// The rules.
    pub rules: &'a [NotifyRule],
    /// Importance weights.
    pub weights: &'a Weights,
    /// The site's address, for links to repository pages.
    pub base_url: Option<&'a str>,
    /// The configuration, for `ignore_users` and `waiting_days` (the
    /// `waiting` event, issue 26).
    pub config: &'a Config,
}

impl<'a> Alerts<'a> {
    /// The configuration's rules, or `None` when it has none.
    pub fn of(config: &'a Config) -> Option<Alerts<'a>> {
        (!config.notify.is_empty()).then_some(Alerts {
            rules: &config.notify,
            weights: &config.importance,
            base_url: config.base_url.as_deref(),
            config,
        })
    }

    /// The rules, as the core's messages read them.
    pub(super) fn rule_refs(&self) -> Vec<RuleRef<'a>> {
        self.rules
            .iter()
            .map(|r| RuleRef {
                rule: &r.rule,
                held: r.held(),
            })
            .collect()
    }

    /// The link of a message about `repo`: its page on the site, when
    /// the site's address is configured.
    pub(super) fn link(&self, group: &Group, repo: &TrackedRepo) -> Option<String> {
        self.base_url
            .map(|b| format!("{b}{}/{}/index.html", group.id, repo.id))
    }

    /// The messages a run's events call for, at most one per rule.
    pub(super) fn messages(
        &self,
        group: &Group,
        repo: &TrackedRepo,
        repo_url: &str,
        collected_at: Timestamp,
        first_run: bool,
        (delta, crossing): (&RunDelta, &[ItemSnapshot]),
    ) -> Vec<Outgoing> {
        let rules = self.rule_refs();
        let link = self.link(group, repo);
        let input = RunInput {
            group,
            repo,
            repo_url,
            collected_at,
            first_run,
            events: &delta.events,
            snapshots: &delta.snapshots,
            weights: self.weights,
            link: link.as_deref(),
        };
        let mut out = messages(&rules, &input);
        out.extend(waiting_messages(&rules, &input, crossing));
        out
    }
}

/// What one committed run did.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The run as recorded.
    pub run: RunRecord,
    /// Items first seen in this run (the run's `discovered` events; the
    /// rest of `run.changed_count` are `changed` events).
    pub discovered: u64,
    /// Comments and reviews of this run on items that neither it listed
    /// nor the store holds: stored, their references and first responses
    /// made by the run that sees their item.
    pub comments_waiting: u64,
    /// Requests, 304s, bytes.
    pub stats: RequestStats,
    /// GraphQL requests and points (discussions), apart from `stats`.
    pub graphql: GraphqlCost,
    /// The repository's new name, when the host redirected.
    pub renamed_to: Option<RepoName>,
}

/// Why one repository's run failed. The store is unchanged but for a failure
/// record.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The host failed or refused; `rate_limited` says whether to stop.
    #[error(transparent)]
    Host(#[from] signals_http::Error),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] signals_store::StoreError),
}

/// Collects one repository at `collected_at` and commits the run: the host
/// is asked under `ask` (a repository found through an owner, under the
/// name the owner's last listing gave), else under `repo.repo`.
/// `rate_prefix` starts the keys of the host's rate limits in the store.
pub fn collect_one(
    client: &mut HostClient,
    store: &mut dyn Backend,
    (group, repo, ask): (&Group, &TrackedRepo, Option<&RepoName>),
    collected_at: Timestamp,
    window: Window,
    rate_prefix: &str,
) -> Result<RunOutcome, RunError> {
    let key = store.ensure_repository(group, repo)?;
    let result = run(
        client,
        store,
        key,
        (group, repo, ask.unwrap_or(&repo.repo)),
        collected_at,
        window,
        rate_prefix,
    )
    .and_then(|outcome| {
        // The word index reads what the run committed (issue 28); should
        // this fail, the run stays committed and the next catch-up, at the
        // next run, indexes it.
        signals_store::search::catch_up(store, key)?;
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

/// An error and its causes on one line, as `status` shows a failure.
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// True when a store error is the failure of the repository being
/// collected, not of the store as a whole (a lost connection, a full disk,
/// which no failure note could be written to either) nor a lease taken
/// over by another worker.
pub fn is_repository_failure(e: &StoreError) -> bool {
    !e.is_connection() && !e.is_disk_full() && !matches!(e, StoreError::LeaseLost { .. })
}

/// The store's classification of a host error.
pub fn failure_kind(e: &signals_http::Error) -> &'static str {
    use signals_http::Error as E;
    match e {
        E::NotFound { .. } => "not_found",
        E::RateLimited { .. } => "rate_limited",
        E::Http { .. } => "http",
        E::Decode { .. } | E::Body { .. } => "decode",
        E::Transport { .. } => "transport",
        E::Redirect { .. } => "redirect",
        _ => "other",
    }
}

/// What a run's observation knows of how it was collected: its plan, and
/// whether the host's discussions were read (else the store's are left
/// as they are, even by a reconcile).
#[derive(Clone, Copy)]
pub(super) struct Seen<'a> {
    pub(super) plan: &'a Plan,
    pub(super) discussions: bool,
    /// A staged reconcile's open items that its stage did not list
    /// (`collect/staged.rs`); `None`: the run holds all it listed, and
    /// any of the store's open items it did not list is gone.
    pub(super) unlisted_open: Option<&'a HashSet<String>>,
}

/// Where a run starts: whether it is the repository's first, whether it
/// lists every item (a reconcile), and the start of its window.
pub(super) struct Plan {
    pub(super) first_run: bool,
    /// The previous successful run's instant.
    pub(super) previous: Option<Timestamp>,
    pub(super) reconcile: bool,
    pub(super) since: Timestamp,
    /// The oldest `updatedAt` of an issue or pull request the run keeps:
    /// `since`, or, when the previous run is older than the window, that
    /// run's instant less the margin a host's whole seconds, lag and
    /// clock call for (`signals_core::run::reread_from`). What the margin
    /// brings again is found unchanged.
    pub(super) floor: Timestamp,
    /// The store's count of open pull requests (issue 27).
    pub(super) counting: Counting,
}

/// The recipe of one run: plan, ask the host, choose the observed items,
/// account for them against their previous snapshots, make the alerts,
/// commit; a repository's first run goes through its stage
/// (`collect/staged.rs`).
fn run(
    client: &mut HostClient,
    store: &mut dyn Backend,
    key: RepoKey,
    (group, repo, ask): (&Group, &TrackedRepo, &RepoName),
    collected_at: Timestamp,
    window: Window,
    rate_prefix: &str,
) -> Result<RunOutcome, RunError> {
    let plan = plan(store, key, (group, repo), collected_at, &window)?;
    let at = (collected_at, window, rate_prefix);
    if super::staged::applies(&plan) {
        return super::staged::run(client, (store, key), (group, repo, ask), at, &plan);
    }
    held(client, (store, key), (group, repo, ask), at, &plan)
}

/// A run that holds its items from the host's pages to its commit: every
/// run but a repository's first (`collect/staged.rs`).
pub(super) fn held(
    client: &mut HostClient,
    (store, key): (&mut dyn Backend, RepoKey),
    (group, repo, ask): (&Group, &TrackedRepo, &RepoName),
    (collected_at, window, rate_prefix): (Timestamp, Window, &str),
    plan: &Plan,
) -> Result<RunOutcome, RunError> {
    let (outcome, discussions) = ask_host(
        client,
        (&*store, key, None),
        plan,
        (group, repo, ask),
        (collected_at, &window),
        rate_prefix,
    )?;
    let mut collected = outcome.collected;
    let mut stats = outcome.stats;
    let written = super::comments::Written {
        repo_url: &collected.context.url,
        items: &collected.items,
    };
    let comment_references = super::comments::store(&*store, key, repo, written, outcome.comments)?;

    let seen = Seen {
        plan,
        discussions: discussions.read(),
        unlisted_open: None,
    };
    let (observed, previous) = observe(store, key, repo, &mut collected, seen, collected_at)?;
    let open_pulls = open_pulls::settle(
        (client, &*store),
        (plan.counting, plan.since, rate_prefix),
        open_pulls::Collected {
            open_pulls: &outcome.open_pulls,
            created_at: outcome.created_at,
            pulls_left_out: outcome.pulls_left_out,
            context: &mut collected.context,
            stats: &mut stats,
        },
        open_pulls::shift(&observed, &previous, &repo.source),
    )?;
    let delta = account(&repo.source, observed, &previous);

    let record = RunRecord {
        collected_at,
        since: plan.since,
        observed_count: delta.observed_count,
        changed_count: delta.changed_count(),
    };
    let discovered = delta
        .events
        .iter()
        .filter(|e| matches!(e.observation, Observation::Discovered))
        .count() as u64;
    let mut news = News::from_collected(&collected.releases, &collected.milestones);
    let graphql = discussions.cost;
    discussions.into_news(&mut news);
    // The alerts the run's events call for are committed with the run.
    let messages = match window.alerts {
        None => vec![],
        Some(alerts) => {
            let crossing = super::waiting::crossing(
                store,
                key,
                group,
                (plan.previous, collected_at),
                &delta,
                &alerts,
            )?;
            alerts.messages(
                group,
                repo,
                &collected.context.url,
                collected_at,
                plan.first_run,
                (&delta, &crossing),
            )
        }
    };
    // What the new texts name: parsed here, no request. A comment on an
    // item the store does not hold waits for the run that sees it.
    let (references, comments_waiting) =
        comment_references.with_bodies(&*store, key, &delta, &previous)?;
    store.commit_run(
        key,
        &RunCommit {
            record: record.clone(),
            context: collected.context,
            news,
            snapshots: delta.snapshots,
            events: delta.events,
            references,
            stats,
            renamed_to: outcome.renamed_to.clone(),
            messages,
            reconciled: plan.reconcile,
            open_pulls,
        },
    )?;
    Ok(RunOutcome {
        run: record,
        discovered,
        comments_waiting,
        stats,
        graphql,
        renamed_to: outcome.renamed_to,
    })
}

/// The host's part of a run: the collection (items, releases, context,
/// comments) and the discussions, which join its items, every item under
/// the configured name.
pub(super) fn ask_host(
    client: &mut HostClient,
    (store, key, sink): (&dyn Backend, RepoKey, Option<&mut dyn PageSink>),
    plan: &Plan,
    (group, repo, ask): (&Group, &TrackedRepo, &RepoName),
    (collected_at, window): (Timestamp, &Window),
    rate_prefix: &str,
) -> Result<(Collection, discussions::Read), RunError> {
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
    // Discussions (issue 26), under the name the host answered to; a
    // reconcile reads them all.
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
    if let Some(e) = cache.error {
        return Err(e.into());
    }
    let mut outcome = outcome;
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
    Ok((outcome, discussions))
}

/// Plans a run from the store: a first run reaches back `backfill`; a
/// later one is a reconcile when forced or due at this repository's phase.
pub(super) fn plan(
    store: &dyn Backend,
    key: RepoKey,
    (group, repo): (&Group, &TrackedRepo),
    collected_at: Timestamp,
    window: &Window,
) -> Result<Plan, RunError> {
    let previous = store.last_successful_run(key)?;
    let first_run = previous.is_none();
    let reconcile = !first_run && {
        let (first, last) = store.reconcile_marks(key)?;
        window.reconcile.force
            || signals_core::reconcile::due(
                &format!("{}/{}", group.id, repo.id),
                window.reconcile.days,
                first,
                last,
                collected_at,
            )
    };
    let backfill = if previous.is_none() {
        window.backfill
    } else {
        None
    };
    let since = plan_since(
        collected_at,
        window.window,
        previous.as_ref().map(|r| r.collected_at),
        backfill,
    );
    let floor = match &previous {
        Some(previous) => since.min(reread_from(previous.collected_at)),
        None => since,
    };
    Ok(Plan {
        first_run,
        previous: previous.as_ref().map(|r| r.collected_at),
        reconcile,
        since,
        floor,
        counting: Counting::plan(store, key, first_run, reconcile)?,
    })
}

/// The run's observed items and the previous snapshots of each: the items
/// updated in the window and the releases published in it (all releases
/// feed the news). A reconcile also observes every item the store knows,
/// whatever its `updated_at` (what `since` cannot see), and no older item
/// it does not know: those are outside what the repository's first run
/// reached back to; and it closes the open items the host no longer lists.
///
/// Only the observed items' previous snapshots are read, and only what
/// changed is written: a run costs what it observed, however large the
/// repository. Importance is not computed here: it depends on time, so
/// the export computes it from the latest snapshots.
pub(super) fn observe(
    store: &dyn Backend,
    key: RepoKey,
    repo: &TrackedRepo,
    collected: &mut Collected,
    seen: Seen<'_>,
    collected_at: Timestamp,
) -> Result<(Vec<ItemSnapshot>, HashMap<String, ItemSnapshot>), RunError> {
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
    let ids: Vec<String> = observed.iter().map(|i| i.id(&repo.source)).collect();
    let mut previous = store.latest_snapshots_for(key, &ids)?;
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
            previous.insert(id, last);
        }
    }
    Ok((observed, previous))
}
