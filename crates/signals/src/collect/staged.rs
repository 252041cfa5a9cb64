//! A first run in flat memory (issue 27, part 2): the run's issues and
//! pull requests go to the store's stage of the run as the host's pages
//! arrive ([`signals_store::RunStaging`]), each page in a small
//! transaction of its own, and the run is committed from the stage a
//! chunk at a time, all or nothing (`commit_staged`). The
//! run holds a chunk of items at a time, not the repository.
//!
//! The run reads the stage twice: once to count what it observed and
//! changed (the run's record, the open pull requests' count), once inside
//! its commit, where each chunk is diffed against its previous snapshots
//! by the same [`account`] as a held run's. Its releases and discussions
//! are few and held, as in every run. Its `[[notify]]` summaries are made
//! in the first reading, each rule keeping its top signals
//! ([`Summaries`]), and committed with the run.
//!
//! A killed run leaves its stage behind, which no read sees; the next run
//! of the repository starts its own stage, discarding it, and reads the
//! host again with conditional requests (the HTTP cache is kept).

use jiff::Timestamp;
use signals_core::diff::Observation;
use signals_core::importance::Weights;
use signals_core::notify::{Outgoing, RunInput, Summaries};
use signals_core::run::{ItemEvent, RunDelta, account};
use signals_core::{Group, ItemKind, ItemSnapshot, News, RepoName, RunRecord, SourceId};
use signals_core::{TrackedRepo, references};
use signals_http::{ItemSink, RequestStats};
use signals_store::{Backend, RepoKey, RunCommit, StagedPart, StoreError};

use super::open_pulls;
use super::pipeline::{Alerts, Plan, RunError, RunOutcome, Seen, Window, ask_host, observe};
use crate::hosts::HostClient;

/// The items a chunk of the stage holds: what the store reads, diffs and
/// writes at a time.
const CHUNK: usize = 500;

/// True when a run goes through its stage: a repository's first run (the
/// one that may read its whole history). Its `[[notify]]` summaries keep
/// each rule's top signals as the stage is read ([`Summaries`]).
pub(super) fn applies(plan: &Plan) -> bool {
    plan.first_run && !plan.reconcile
}

/// The stage of one run as its pages arrive: each page's items under the
/// configured name and their signal ids, in one transaction. The first
/// store error is kept and the pages after it are dropped; the run then
/// fails with it.
struct Stage<'a> {
    store: &'a dyn Backend,
    key: RepoKey,
    at: Timestamp,
    repo: &'a RepoName,
    source: &'a SourceId,
    staged: u64,
    error: Option<StoreError>,
}

impl ItemSink for Stage<'_> {
    fn page(&mut self, items: Vec<ItemSnapshot>) {
        if self.error.is_some() || items.is_empty() {
            return;
        }
        let rows: Vec<(String, ItemSnapshot)> = items
            .into_iter()
            .map(|mut item| {
                item.repo = self.repo.clone();
                (item.id(self.source), item)
            })
            .collect();
        match self.store.stage_items(self.key, self.at, &rows) {
            Ok(()) => self.staged += rows.len() as u64,
            Err(e) => self.error = Some(e),
        }
    }
}

/// The summaries a first run's `[[notify]]` rules ask for, made as its
/// events are counted: each rule keeps its top signals ([`Summaries`]).
struct Summary<'a> {
    summaries: Summaries<'a>,
    about: About<'a>,
}

/// What a first run's messages say of it but its events.
struct About<'a> {
    group: &'a Group,
    repo: &'a TrackedRepo,
    repo_url: String,
    collected_at: Timestamp,
    weights: Weights,
    link: Option<String>,
}

impl About<'_> {
    /// The run, as the messages see it, with `events` and their new
    /// `snapshots`.
    fn input<'b>(
        &'b self,
        events: &'b [ItemEvent],
        snapshots: &'b [(String, ItemSnapshot)],
    ) -> RunInput<'b> {
        RunInput {
            group: self.group,
            repo: self.repo,
            repo_url: &self.repo_url,
            collected_at: self.collected_at,
            first_run: true,
            events,
            snapshots,
            weights: &self.weights,
            link: self.link.as_deref(),
        }
    }
}

impl<'a> Summary<'a> {
    /// The summaries of `alerts`' rules (none without rules) about the
    /// first run of `repo`, at `collected_at`.
    fn new(
        alerts: Option<Alerts<'a>>,
        (group, repo, repo_url): (&'a Group, &'a TrackedRepo, &str),
        collected_at: Timestamp,
    ) -> Summary<'a> {
        let about = About {
            group,
            repo,
            repo_url: repo_url.to_string(),
            collected_at,
            weights: alerts.map_or_else(Weights::default, |a| a.weights.clone()),
            link: alerts.and_then(|a| a.link(group, repo)),
        };
        let rules = alerts.map_or_else(Vec::new, |a| a.rule_refs());
        Summary {
            summaries: Summaries::new(&rules, &about.input(&[], &[])),
            about,
        }
    }

    /// Adds a part of the run's events.
    fn add(&mut self, delta: &RunDelta) {
        let input = self.about.input(&delta.events, &delta.snapshots);
        self.summaries.add(&input);
    }

    /// The messages, once every event is added.
    fn finish(self) -> Vec<Outgoing> {
        self.summaries.finish(&self.about.input(&[], &[]))
    }
}

/// What the stage adds to the run, counted before its commit.
#[derive(Debug, Default)]
struct Tally {
    observed: u64,
    events: u64,
    discovered: u64,
    /// Open pull requests up and down ([`open_pulls::shift`]).
    pulls: (u64, u64),
}

/// The run, through its stage: as `pipeline::run`, with the issues and
/// pull requests staged as they arrive and committed from the stage.
pub(super) fn run(
    client: &mut HostClient,
    (store, key): (&mut dyn Backend, RepoKey),
    (group, repo, ask): (&Group, &TrackedRepo, &RepoName),
    (collected_at, window, rate_prefix): (Timestamp, Window, &str),
    plan: &Plan,
) -> Result<RunOutcome, RunError> {
    store.stage_start(key, collected_at)?;
    let result = staged_run(
        client,
        (&mut *store, key),
        (group, repo, ask),
        (collected_at, window, rate_prefix),
        plan,
    );
    if result.is_err() {
        // Not needed (the next run discards it), but the rows are freed
        // now; a failure here changes nothing.
        let _ = store.discard_stage(key);
    }
    result
}

fn staged_run(
    client: &mut HostClient,
    (store, key): (&mut dyn Backend, RepoKey),
    (group, repo, ask): (&Group, &TrackedRepo, &RepoName),
    (collected_at, window, rate_prefix): (Timestamp, Window, &str),
    plan: &Plan,
) -> Result<RunOutcome, RunError> {
    let mut stage = Stage {
        store: &*store,
        key,
        at: collected_at,
        repo: &repo.repo,
        source: &repo.source,
        staged: 0,
        error: None,
    };
    let (outcome, discussions) = ask_host(
        client,
        (&*store, key, Some(&mut stage)),
        plan,
        (group, repo, ask),
        (collected_at, &window),
        rate_prefix,
    )?;
    if let Some(e) = stage.error {
        return Err(e.into());
    }
    let mut collected = outcome.collected;
    let mut stats: RequestStats = outcome.stats;
    let comment_references = super::comments::store(
        store,
        key,
        repo,
        (&collected.context.url, &collected.items),
        outcome.comments,
    )?;
    // The staged items the run observes: updated in its window, and not
    // a pull request the host left out (its merge state unknown).
    let since = plan.since;
    let left_out = outcome.left_out;
    let keep = |i: &ItemSnapshot| {
        i.updated_at >= since && !(i.kind() == ItemKind::PullRequest && left_out.contains(&i.key))
    };
    let subject = (group, repo, collected.context.url.as_str());
    let mut summary = Summary::new(window.alerts, subject, collected_at);
    let tally = tally(&*store, key, &repo.source, &keep, &mut summary)?;
    // The run's own items: its releases and discussions.
    let seen = Seen {
        plan,
        discussions: discussions.read(),
    };
    let (observed, previous) = observe(&*store, key, repo, &mut collected, seen, collected_at)?;
    let own_pulls = open_pulls::shift(&observed, &previous, &repo.source);
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
        (own_pulls.0 + tally.pulls.0, own_pulls.1 + tally.pulls.1),
    )?;
    let delta = account(&repo.source, observed, &previous);
    summary.add(&delta);
    let messages = summary.finish();
    let record = RunRecord {
        collected_at,
        since: plan.since,
        observed_count: delta.observed_count + tally.observed,
        changed_count: delta.changed_count() + tally.events,
    };
    let mut news = News::from_collected(&collected.releases, &collected.milestones);
    let graphql = discussions.cost;
    discussions.into_news(&mut news);
    let mut references = references::of_snapshots(&delta.snapshots);
    references.extend(comment_references);
    let commit = RunCommit {
        record: record.clone(),
        context: collected.context,
        news,
        snapshots: delta.snapshots,
        events: delta.events,
        references,
        stats,
        renamed_to: outcome.renamed_to.clone(),
        messages,
        reconciled: false,
        open_pulls,
    };
    commit_staged(store, key, &repo.source, &commit, &keep)?;
    Ok(RunOutcome {
        run: record,
        discovered: tally.discovered + discovered(&commit.events),
        stats,
        graphql,
        renamed_to: outcome.renamed_to,
    })
}

/// Commits the run from its stage, each chunk's items (those `keep`
/// observes) diffed against their previous snapshots as in [`tally`].
fn commit_staged(
    store: &mut dyn Backend,
    key: RepoKey,
    source: &SourceId,
    commit: &RunCommit,
    keep: &dyn Fn(&ItemSnapshot) -> bool,
) -> Result<(), RunError> {
    store.commit_staged(key, commit, CHUNK, &mut |staged, previous| {
        let observed: Vec<ItemSnapshot> = staged
            .into_iter()
            .map(|s| s.snapshot)
            .filter(|i| keep(i))
            .collect();
        let delta = account(source, observed, &previous);
        Ok(StagedPart {
            references: references::of_snapshots(&delta.snapshots),
            snapshots: delta.snapshots,
            events: delta.events,
        })
    })?;
    Ok(())
}

/// The stage read a chunk at a time: what its items observed (`keep`)
/// add to the run's counts against their previous snapshots, and to its
/// summaries.
fn tally(
    store: &dyn Backend,
    key: RepoKey,
    source: &SourceId,
    keep: &dyn Fn(&ItemSnapshot) -> bool,
    summary: &mut Summary<'_>,
) -> Result<Tally, RunError> {
    let mut tally = Tally::default();
    let mut after: Option<String> = None;
    loop {
        let staged = store.staged_items(key, after.as_deref(), CHUNK)?;
        let Some(last) = staged.last() else {
            return Ok(tally);
        };
        after = Some(last.id.clone());
        let observed: Vec<ItemSnapshot> = staged
            .into_iter()
            .map(|s| s.snapshot)
            .filter(|i| keep(i))
            .collect();
        let ids: Vec<String> = observed.iter().map(|i| i.id(source)).collect();
        let previous = store.latest_snapshots_for(key, &ids)?;
        let (up, down) = open_pulls::shift(&observed, &previous, source);
        tally.pulls = (tally.pulls.0 + up, tally.pulls.1 + down);
        let delta = account(source, observed, &previous);
        summary.add(&delta);
        tally.observed += delta.observed_count;
        tally.events += delta.changed_count();
        tally.discovered += discovered(&delta.events);
    }
}

/// How many of `events` discover their item.
fn discovered(events: &[signals_core::run::ItemEvent]) -> u64 {
    events
        .iter()
        .filter(|e| matches!(e.observation, Observation::Discovered))
        .count() as u64
}
