//! The plain types of one run, which every step of a collection reads
//! and none of them owns: its windows ([`Window`], built once from the
//! configuration), what it collects ([`Target`], [`Run`]), its plan
//! ([`Plan`]), its alerts' rules ([`Alerts`]), and how it ends
//! ([`RunOutcome`], [`RunError`]). This module imports no other module of
//! `collect/`.

use std::collections::HashSet;

use jiff::{SignedDuration, Timestamp};
use signals_core::importance::Weights;
use signals_core::lifecycle::verdict::Asked;
use signals_core::notify::{
    Echoed, Outgoing, RuleRef, RunInput, echo_messages, messages, waiting_messages,
};
use signals_core::run::{RunDelta, plan_since, reread_from};
use signals_core::{GraphqlCost, Group, ItemSnapshot, RepoName, RunRecord, TrackedRepo};
use signals_http::RequestStats;
use signals_store::{Reads, RepoKey, StoreError};

use crate::config::{Config, NotifyRule};

/// One repository a collection runs: its group, its configuration, the
/// host (an index into the collection's hosts) and, for a repository
/// found through an owner, the name the owner's last listing gave, which
/// the host is asked under.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub group: &'a Group,
    pub repo: &'a TrackedRepo,
    pub host: usize,
    pub through_owner: Option<&'a RepoName>,
}

impl<'a> Target<'a> {
    /// The name the host is asked under.
    pub fn ask(&self) -> &'a RepoName {
        self.through_owner.unwrap_or(&self.repo.repo)
    }

    /// Its run at `collected_at`, in `window`, its host's rate limits kept
    /// under `rate_prefix`.
    pub fn run<'r>(
        &self,
        collected_at: Timestamp,
        window: Window<'r>,
        rate_prefix: &'r str,
    ) -> Run<'r>
    where
        'a: 'r,
    {
        Run {
            group: self.group,
            repo: self.repo,
            ask: self.ask(),
            collected_at,
            window,
            rate_prefix,
        }
    }
}

/// One run of one repository: what it collects, when, and how.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    pub group: &'a Group,
    pub repo: &'a TrackedRepo,
    /// The name the host is asked under (see [`Target::ask`]).
    pub ask: &'a RepoName,
    pub collected_at: Timestamp,
    pub window: Window<'a>,
    /// The start of the keys of the host's rate limits in the store.
    pub rate_prefix: &'a str,
}

/// The window settings of a collection, and the alerts its runs commit.
#[derive(Debug, Clone, Copy)]
pub struct Window<'a> {
    /// The run window (24 hours by default).
    pub window: SignedDuration,
    /// How far a first run reaches back.
    pub backfill: Option<SignedDuration>,
    /// How far a first run reads comments back (`comments_backfill_days`).
    pub comments_backfill: SignedDuration,
    /// The `[[notify]]` rules whose messages each run commits with it.
    pub alerts: Option<Alerts<'a>>,
    /// When a run lists every item of its repository.
    pub reconcile: Reconcile,
    /// The groups whose discussions are not read (`discussions = false`),
    /// by id.
    pub discussions_off: &'a [String],
    /// The configuration, for the lifecycle's thresholds, declarations and
    /// `ignore_users` (`lifecycle.rs`).
    pub config: &'a Config,
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
            config,
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
    /// `waiting` event).
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
    pub(super) fn messages(&self, about: Occasion<'_>) -> Vec<Outgoing> {
        let rules = self.rule_refs();
        let link = self.link(about.group, about.repo);
        let input = RunInput {
            group: about.group,
            repo: about.repo,
            repo_url: about.repo_url,
            collected_at: about.collected_at,
            first_run: about.first_run,
            events: &about.delta.events,
            snapshots: &about.delta.snapshots,
            weights: self.weights,
            link: link.as_deref(),
        };
        let mut out = messages(&rules, &input);
        out.extend(waiting_messages(&rules, &input, about.crossing));
        out.extend(echo_messages(&rules, &input, about.echoed));
        out
    }
}

/// What a run's alert messages are about: its repository, its events,
/// the items it found crossing `waiting_days` and its new items told
/// already in other repositories of the group.
#[derive(Clone, Copy)]
pub(super) struct Occasion<'b> {
    pub(super) group: &'b Group,
    pub(super) repo: &'b TrackedRepo,
    pub(super) repo_url: &'b str,
    pub(super) collected_at: Timestamp,
    pub(super) first_run: bool,
    pub(super) delta: &'b RunDelta,
    pub(super) crossing: &'b [ItemSnapshot],
    pub(super) echoed: &'b [Echoed],
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
    /// What the host showed that the repository's lifecycle is judged
    /// by, once the run committed.
    pub facts: HostFacts,
}

/// What a run's host showed that its repository's lifecycle is judged by
/// (`lifecycle.rs`), besides what the store holds.
#[derive(Debug, Clone, Default)]
pub struct HostFacts {
    /// Archived on the host.
    pub archived: bool,
    /// Its last push, as the host tells it.
    pub pushed_at: Option<Timestamp>,
    /// Its web page.
    pub url: String,
    /// The newest published release, prereleases included.
    pub last_release: Option<Timestamp>,
    /// The commits per week as last asked (this run, or a run before
    /// on the same day); `None` where the host gives none.
    pub commits: Option<Asked>,
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

/// An error and its causes on one line, as `status` shows a failure.
pub(super) fn with_causes(e: &dyn std::error::Error) -> String {
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
    /// The store's count of open pull requests.
    pub(super) counting: Counting,
}

impl Plan {
    /// Whether the run lists the repository's whole history, and so goes
    /// through its stage: a repository's first run and its reconciles.
    pub(super) fn staged(&self) -> bool {
        self.first_run || self.reconcile
    }
}

/// Plans a run from the store: a first run reaches back `backfill`; a
/// later one is a reconcile when forced or due at this repository's phase.
pub(super) fn plan(store: &dyn Reads, key: RepoKey, run: &Run<'_>) -> Result<Plan, RunError> {
    let Run {
        group,
        repo,
        collected_at,
        window,
        ..
    } = *run;
    let previous = store.last_successful_run(key)?;
    let first_run = previous.is_none();
    let reconcile = !first_run && {
        let marks = store.reconcile_marks(key)?;
        window.reconcile.force
            || signals_core::reconcile::due(
                &format!("{}/{}", group.id, repo.id),
                window.reconcile.days,
                marks.first_run,
                marks.last_reconcile,
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

/// What the run knows before asking the host: the store's count of open
/// pull requests, when it may be trusted.
#[derive(Debug, Clone, Copy)]
pub(super) struct Counting {
    /// The store's count before the run: `Some(0)` for a first run (to be
    /// trusted only if its window reaches the repository's creation).
    pub(super) before: Option<u64>,
    pub(super) first_run: bool,
    /// The run asks the host whatever it knows (a reconcile checks).
    pub(super) check: bool,
}

impl Counting {
    /// From the store: a first run starts from nothing; a later one from
    /// the kept count, when there is one; a reconcile asks to compare.
    fn plan(
        store: &dyn Reads,
        key: RepoKey,
        first_run: bool,
        reconcile: bool,
    ) -> Result<Counting, RunError> {
        let before = match first_run {
            true => Some(0),
            false => store.kept_pulls(key)?.count,
        };
        Ok(Counting {
            before,
            first_run,
            check: reconcile,
        })
    }

    /// Whether the host client may leave the count owed
    /// (`collect_with`'s `count_pulls`).
    pub(super) fn may_count(&self) -> bool {
        self.before.is_some() && !self.check
    }
}
