//! The runs that list a whole repository, in flat memory: a
//! repository's first run and its reconciles. The run's issues
//! and pull requests go to the store's stage of the run as the host's
//! pages arrive ([`signals_store::RunStaging`]), each page in a small
//! transaction of its own, and the run is committed from the stage a
//! chunk at a time, all or nothing (`commit_staged`). The run holds a
//! chunk of items at a time, not the repository.
//!
//! The run reads the stage twice: once to count what it observed and
//! changed (the run's record, the open pull requests' count), once inside
//! its commit, where each chunk is diffed against its previous snapshots
//! by the same [`account`] as a held run's. Its releases and discussions
//! are few and held, as in every run. A first run's `[[notify]]`
//! summaries are made in the first reading, each rule keeping its top
//! signals ([`Summaries`]). A reconcile keeps, of that reading, what it
//! found changed (for its alerts, made once it is whole) and the
//! repository's open items its stage did not list (those it closes):
//! what changed and what is open, not what it listed.
//!
//! A killed run leaves its stage behind, which no read sees; the next run
//! of the repository starts its own stage, discarding it, and reads the
//! host again with conditional requests (the HTTP cache is kept).

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;
use signals_core::importance::Weights;
use signals_core::notify::{Outgoing, RunInput, Summaries};
use signals_core::references::ItemReferences;
use signals_core::run::{ItemEvent, RunDelta, account};
use signals_core::{Comment, Group, ItemKind, ItemSnapshot, SourceId, TrackedRepo, references};
use signals_http::PageSink;
use signals_store::{Backend, RepoKey, RunCommit, RunStaging, StagedPart, StoreError};

use super::ask::{self, Asking};
use super::comments::{CommentReferences, Written};
use super::observe::observe;
use super::open_pulls::{self, Settling, Shift};
use super::run::{Alerts, Occasion, Plan, Run, RunError, RunOutcome, Seen};
use super::tail::{Ending, StagedCounts, discovered, finish};
use super::{echo, waiting};
use crate::hosts::HostClient;

/// The items a chunk of the stage holds: what the store reads, diffs and
/// writes at a time.
const CHUNK: usize = 500;

/// The stage of one run as its pages arrive: each page's items under the
/// configured name and their signal ids, in one transaction, and each
/// page of its comments stored, what they name kept. The first store
/// error is kept and the pages after it are dropped; the run then fails
/// with it.
struct Stage<'a> {
    store: &'a dyn Backend,
    key: RepoKey,
    at: Timestamp,
    repo: &'a TrackedRepo,
    comments: CommentReferences,
    error: Option<StoreError>,
}

impl<'a> Stage<'a> {
    /// The stage of `repo`'s run at `at`, empty.
    fn new(store: &'a dyn Backend, key: RepoKey, at: Timestamp, repo: &'a TrackedRepo) -> Self {
        Stage {
            store,
            key,
            at,
            repo,
            comments: CommentReferences::default(),
            error: None,
        }
    }
}

impl PageSink for Stage<'_> {
    fn items(&mut self, items: Vec<ItemSnapshot>) {
        if self.error.is_some() || items.is_empty() {
            return;
        }
        let rows: Vec<(String, ItemSnapshot)> = items
            .into_iter()
            .map(|mut item| {
                item.repo = self.repo.repo.clone();
                (item.id(&self.repo.source), item)
            })
            .collect();
        if let Err(e) = self.store.stage_items(self.key, self.at, &rows) {
            self.error = Some(e);
        }
    }

    fn comments(&mut self, repo_url: &str, comments: Vec<Comment>) {
        if self.error.is_some() || comments.is_empty() {
            return;
        }
        // The items went to the stage: references are read against the
        // repository's URL, where `#123` means an item of it.
        let written = Written {
            repo_url,
            items: &[],
        };
        let stored = self
            .comments
            .store_page(self.store, self.key, self.repo, written, comments);
        if let Err(e) = stored {
            self.error = Some(e);
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
    fn new(alerts: Option<Alerts<'a>>, subject: Subject<'a, '_>) -> Summary<'a> {
        let Subject {
            group,
            repo,
            repo_url,
            collected_at,
        } = subject;
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

/// What a run's messages are about: its repository, at its instant.
#[derive(Clone, Copy)]
struct Subject<'a, 'u> {
    group: &'a Group,
    repo: &'a TrackedRepo,
    repo_url: &'u str,
    collected_at: Timestamp,
}

/// What the run's messages are made of as its stage is read: a first
/// run's summaries, or what a reconcile found changed, kept only when
/// some `[[notify]]` rule may alert on it.
enum Notes<'a> {
    First(Summary<'a>),
    Later(Option<(Alerts<'a>, RunDelta)>),
}

impl<'a> Notes<'a> {
    fn new(plan: &Plan, alerts: Option<Alerts<'a>>, subject: Subject<'a, '_>) -> Notes<'a> {
        match plan.first_run {
            true => Notes::First(Summary::new(alerts, subject)),
            false => Notes::Later(alerts.map(|a| {
                let changes = RunDelta {
                    observed_count: 0,
                    events: Vec::new(),
                    snapshots: Vec::new(),
                };
                (a, changes)
            })),
        }
    }

    /// Adds a part of the run's events.
    fn add(&mut self, part: &RunDelta) {
        match self {
            Notes::First(summary) => summary.add(part),
            Notes::Later(Some((_, changes))) => {
                changes.events.extend(part.events.iter().cloned());
                changes.snapshots.extend(part.snapshots.iter().cloned());
            }
            Notes::Later(None) => {}
        }
    }

    /// The messages, once the run's own part is added: a reconcile's are
    /// a later run's alerts, with the items that crossed `waiting_days`
    /// since the `previous` run, as a held run makes them.
    fn finish(
        mut self,
        store: &dyn Backend,
        key: RepoKey,
        subject: Subject<'_, '_>,
        when: waiting::Between,
        own: &RunDelta,
    ) -> Result<Vec<Outgoing>, RunError> {
        self.add(own);
        match self {
            Notes::First(summary) => Ok(summary.finish()),
            Notes::Later(None) => Ok(Vec::new()),
            Notes::Later(Some((alerts, changes))) => {
                let group = subject.group;
                let crossing = waiting::crossing(store, key, group, when, &changes, &alerts)?;
                let echoed = echo::echoing(store, key, group, &changes, &alerts)?;
                Ok(alerts.messages(Occasion {
                    group,
                    repo: subject.repo,
                    repo_url: subject.repo_url,
                    collected_at: subject.collected_at,
                    first_run: false,
                    delta: &changes,
                    crossing: &crossing,
                    echoed: &echoed,
                }))
            }
        }
    }
}

/// How the run reads its stage: which staged items it lists and which it
/// observes.
struct Reading<'a> {
    source: &'a SourceId,
    /// The oldest `updatedAt` observed (the plan's floor).
    since: Timestamp,
    reconcile: bool,
    /// The pull requests the host left out (their merge state unknown):
    /// an earlier sighting of one that was staged is dropped.
    left_out: &'a HashSet<String>,
}

impl<'a> Reading<'a> {
    /// How a run of `plan` reads its stage.
    fn of(plan: &Plan, source: &'a SourceId, left_out: &'a HashSet<String>) -> Reading<'a> {
        Reading {
            source,
            since: plan.floor,
            reconcile: plan.reconcile,
            left_out,
        }
    }

    /// Whether the run lists `item` (a reconcile closes the open items it
    /// does not list).
    fn lists(&self, item: &ItemSnapshot) -> bool {
        !(item.kind() == ItemKind::PullRequest && self.left_out.contains(&item.key))
    }

    /// Whether the run observes `item`: listed, and updated in its window
    /// or, by a reconcile, known to the store (`previous`) whatever its
    /// `updated_at`, as `observe.rs` chooses.
    fn observes(&self, item: &ItemSnapshot, previous: &HashMap<String, ItemSnapshot>) -> bool {
        self.lists(item)
            && (item.updated_at >= self.since
                || (self.reconcile && previous.contains_key(&item.id(self.source))))
    }
}

/// What the stage adds to the run, counted before its commit.
#[derive(Debug, Default)]
struct Tally {
    observed: u64,
    events: u64,
    discovered: u64,
    /// Open pull requests up and down ([`open_pulls::shift`]).
    pulls: Shift,
    /// The comment references of the staged items the run observes, by
    /// item: committed with each item's chunk.
    references: HashMap<String, Vec<ItemReferences>>,
}

impl Tally {
    /// What the stage adds to the run's counts.
    fn counts(&self) -> StagedCounts {
        StagedCounts {
            observed: self.observed,
            events: self.events,
            discovered: self.discovered,
        }
    }
}

/// What reads the stage beside the counts: the notes of the run's
/// messages, a reconcile's open items (each listed one struck off), and
/// the run's comment references (those of observed items placed).
struct Readers<'r, 'a> {
    notes: &'r mut Notes<'a>,
    open: Option<&'r mut HashSet<String>>,
    comments: &'r mut CommentReferences,
}

/// The run, through its stage: as a held run (`held.rs`), with the
/// issues and pull requests staged as they arrive and committed from the
/// stage.
pub(super) fn run(
    client: &mut HostClient,
    store: &mut dyn Backend,
    key: RepoKey,
    run: &Run<'_>,
    plan: &Plan,
) -> Result<RunOutcome, RunError> {
    store.stage_start(key, run.collected_at)?;
    let result = staged_run(client, &mut *store, key, run, plan);
    if result.is_err() {
        // Not needed (the next run discards it), but the rows are freed
        // now; a failure here changes nothing.
        let _ = store.discard_stage(key);
    }
    result
}

fn staged_run(
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
    let mut stage = Stage::new(&*store, key, collected_at, repo);
    let asking = Asking { run, plan };
    let mut host = ask::host(client, &*store, key, asking, Some(&mut stage))?;
    if let Some(e) = stage.error {
        return Err(e.into());
    }
    let mut comment_references = stage.comments;
    let news = host.news();
    let seen_discussions = host.discussions.read();
    let signals_http::Collection {
        mut collected,
        renamed_to,
        mut stats,
        open_pulls,
        created_at,
        pulls_left_out,
        left_out,
        merges,
        ..
    } = host.collection;
    // Who merged, stored as the comments were: before the commit.
    store.store_merges(key, &merges)?;
    let reading = Reading::of(plan, &repo.source, &left_out);
    let url = collected.context.url.clone();
    let subject = Subject {
        group,
        repo,
        repo_url: &url,
        collected_at,
    };
    let mut notes = Notes::new(plan, window.alerts, subject);
    // A reconcile closes the store's open items it does not list: those
    // its stage lists are struck off as it is read.
    let mut open: Option<HashSet<String>> = match plan.reconcile {
        true => Some(store.open_item_ids(key)?.into_iter().collect()),
        false => None,
    };
    let mut tally = tally(
        &*store,
        key,
        &reading,
        Readers {
            notes: &mut notes,
            open: open.as_mut(),
            comments: &mut comment_references,
        },
    )?;
    // The run's own items: its releases and discussions, and the open
    // items a reconcile found gone.
    let seen = Seen {
        plan,
        discussions: seen_discussions,
        unlisted_open: open.as_ref(),
    };
    let found = observe(&*store, key, repo, &mut collected, seen, collected_at)?;
    let own_pulls = open_pulls::shift(&found.observed, &found.previous, &repo.source);
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
        own_pulls + tally.pulls,
    )?;
    let delta = account(&repo.source, found.observed, &found.previous);
    let when = waiting::Between {
        previous: plan.previous,
        now: collected_at,
    };
    let messages = notes.finish(&*store, key, subject, when, &delta)?;
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
            staged: tally.counts(),
            commits: host.commits,
            downloads: collected.downloads,
            gone: found.gone,
        },
    );
    commit_staged(
        store,
        key,
        &reading,
        &finished.commit,
        &mut tally.references,
    )?;
    Ok(finished.outcome)
}

/// Commits the run from its stage, each chunk's items (those the run
/// observes) diffed against their previous snapshots as in [`tally`],
/// with the comment references [`tally`] placed on them.
fn commit_staged(
    store: &mut dyn RunStaging,
    key: RepoKey,
    reading: &Reading<'_>,
    commit: &RunCommit,
    placed: &mut HashMap<String, Vec<ItemReferences>>,
) -> Result<(), RunError> {
    store.commit_staged(key, commit, CHUNK, &mut |staged, previous| {
        let mut comment_references = Vec::new();
        let observed: Vec<ItemSnapshot> = staged
            .into_iter()
            .inspect(|s| comment_references.extend(placed.remove(&s.id).unwrap_or_default()))
            .filter(|s| reading.observes(&s.snapshot, &previous))
            .map(|s| s.snapshot)
            .collect();
        let delta = account(reading.source, observed, &previous);
        let mut references = references::of_snapshots(&delta.snapshots);
        references.extend(comment_references);
        Ok(StagedPart {
            references,
            snapshots: delta.snapshots,
            events: delta.events,
        })
    })?;
    Ok(())
}

/// The stage read a chunk at a time: what the items the run observes add
/// to its counts against their previous snapshots, and to its `notes`;
/// each item it lists is struck off `open`.
fn tally(
    store: &dyn Backend,
    key: RepoKey,
    reading: &Reading<'_>,
    readers: Readers<'_, '_>,
) -> Result<Tally, RunError> {
    let Readers {
        notes,
        mut open,
        comments,
    } = readers;
    let mut tally = Tally::default();
    let mut after: Option<String> = None;
    loop {
        let staged = store.staged_items(key, after.as_deref(), CHUNK)?;
        let Some(last) = staged.last() else {
            return Ok(tally);
        };
        after = Some(last.id.clone());
        let ids: Vec<String> = staged.iter().map(|s| s.id.clone()).collect();
        let previous = store.latest_snapshots_for(key, &ids)?;
        let mut observed = Vec::with_capacity(staged.len());
        for s in staged {
            if let Some(open) = open.as_deref_mut()
                && reading.lists(&s.snapshot)
            {
                open.remove(&s.id);
            }
            if reading.observes(&s.snapshot, &previous) {
                observed.push(s.snapshot);
            }
        }
        tally.pulls = tally.pulls + open_pulls::shift(&observed, &previous, reading.source);
        let delta = account(reading.source, observed, &previous);
        let placed = comments.place(
            store,
            key,
            super::comments::Observed {
                snapshots: &delta.snapshots,
                events: &delta.events,
                previous: &previous,
            },
        )?;
        for r in placed {
            tally
                .references
                .entry(r.item_id.clone())
                .or_default()
                .push(r);
        }
        notes.add(&delta);
        tally.observed += delta.observed_count;
        tally.events += delta.changed_count();
        tally.discovered += discovered(&delta.events);
    }
}
