//! The export: the store's repositories as a static site (per repository
//! a v3 `dataset.json`, pages and a feed; an index), for `signals export`,
//! `serve`'s private site, `demo` and `migrate`'s check.
//!
//! It streams: one repository at a time is read, built, rendered, written
//! and dropped, so its memory is that of the largest repository, not of the
//! store. It is incremental: a repository whose latest run and
//! configuration are those of the last export keeps its files, so an export
//! after one new run renders one repository and the index. And it publishes
//! atomically through [`Publisher`]: the served folder switches from the
//! previous site to the new one at once.

pub mod ids;
mod links;
mod search;
mod source;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use anyhow::Context;
use signals_core::dataset::{DatasetInput, build_head};
use signals_core::importance::Weights;
use signals_core::lifecycle::contributors::{ContributorsSource, WeeklyContributors};
use signals_core::trends::{Contributors, RISING_WINDOW, WEEKS, WeekTally, first_week};
use signals_site::{
    Counted, DatasetWriter, HealthNote, Publisher, Render, RepoHead, SiteOptions, SiteReport,
    render_repo_files,
};
use signals_store::{Backend, RepoOutline, RepoSummary};

use source::{Answering, Reading, Streamed};

use crate::config::Config;

/// When, and against which collection interval, the pages judge each
/// repository's health: now for `export` and `serve`, the
/// last run's instant for the demo, whose runs are at fixed instants.
#[derive(Debug, Clone, Copy)]
pub struct Judge {
    /// The collection interval (`interval` in the configuration).
    pub interval: std::time::Duration,
    /// The instant judged at.
    pub now: jiff::Timestamp,
}

impl Judge {
    /// Judged now (or at the configuration's `clock`) against the
    /// configured interval.
    pub fn now(config: &Config) -> Judge {
        Judge {
            interval: config.interval,
            now: config.now(),
        }
    }
}

/// What the configuration says of replies, which first responses, the
/// waiting lists and the trends' response times follow: whose comments
/// are no first response, when an unanswered item waits, and how far back
/// a repository's first run read comments. The export and `serve`'s list
/// read it alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversation {
    /// Each group's `ignore_users`, by group id.
    pub ignore_users: BTreeMap<String, Vec<String>>,
    /// `waiting_days`.
    pub waiting_days: u32,
    /// `comments_backfill_days`.
    pub comments_backfill_days: u32,
    /// The lifecycle states repositories declare (`lifecycle = "..."`),
    /// by `<group>/<repository id>`: the verdict each group's pages show.
    pub declared: BTreeMap<String, signals_core::lifecycle::State>,
}

impl Default for Conversation {
    /// The configuration's defaults: nobody ignored, 2 days, 90 days.
    fn default() -> Conversation {
        Conversation {
            ignore_users: BTreeMap::new(),
            waiting_days: signals_core::first_response::DEFAULT_WAITING_DAYS,
            comments_backfill_days: signals_core::first_response::DEFAULT_COMMENTS_BACKFILL_DAYS,
            declared: BTreeMap::new(),
        }
    }
}

impl Conversation {
    /// The configuration's.
    pub fn of(config: &Config) -> Conversation {
        Conversation {
            ignore_users: config.ignore_users(),
            waiting_days: config.waiting_days,
            comments_backfill_days: config.comments_backfill_days,
            declared: config
                .groups
                .iter()
                .flat_map(|g| {
                    g.repos.iter().filter_map(|r| {
                        let state = config.declared_lifecycle(&g.group.id, &r.id)?;
                        Some((format!("{}/{}", g.group.id, r.id), state))
                    })
                })
                .collect(),
        }
    }

    /// The accounts of `group` whose comments are no first response.
    pub fn ignored_in(&self, group: &str) -> &[String] {
        self.ignore_users.get(group).map_or(&[][..], Vec::as_slice)
    }
}

/// Whether an export writes the item history pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Histories {
    /// Written with the pages (`signals export`).
    Written,
    /// Left out: `signals serve` renders them on demand, with the same
    /// function ([`history_page`]).
    OnDemand,
}

/// How an export renders: the site-wide settings, the rules of
/// conversation, the importance weights, which repositories are rendered,
/// whether history pages are written, and when health is judged.
#[derive(Debug, Clone, Copy)]
pub struct Recipe<'a> {
    /// Site-wide settings (`base_url`).
    pub site: &'a SiteOptions,
    /// What the configuration says of replies.
    pub conversation: &'a Conversation,
    /// Importance weights.
    pub weights: &'a Weights,
    /// Every repository, or only those whose data changed since the last
    /// export.
    pub render: Render,
    /// Whether item history pages are written.
    pub histories: Histories,
    /// When, and against which interval, health is judged.
    pub judge: Judge,
}

/// Brings the word index of every repository up to date
/// (`signals_store::search::catch_up`), so that an export never publishes
/// a search index behind its pages: after a run that `collect` could not
/// index (killed between its commit and the indexing), or a store from
/// before the index. Cheap when nothing is pending: one read per
/// repository.
pub fn index_all(store: &mut dyn Backend) -> anyhow::Result<()> {
    let mut groups = std::collections::BTreeSet::new();
    for summary in store.repositories()? {
        signals_store::search::catch_up(store, summary.key).with_context(|| {
            format!(
                "cannot bring the word index of {}/{} up to date",
                summary.group.id, summary.repo.id
            )
        })?;
        groups.insert(summary.group.id);
    }
    // Related items likewise, a group at a time.
    for group in groups {
        crate::related::catch_up(store, &group).with_context(|| {
            format!("cannot bring the related items of group {group} up to date")
        })?;
    }
    Ok(())
}

/// Builds the documents and writes the site, rendering every repository,
/// with the default settings and rules of conversation. Shared with
/// `demo` and `migrate`'s check.
pub fn export(
    store: &dyn Backend,
    out: &Path,
    weights: &Weights,
    judge: Judge,
) -> anyhow::Result<SiteReport> {
    export_with(
        store,
        out,
        &Recipe {
            site: &SiteOptions::default(),
            conversation: &Conversation::default(),
            weights,
            render: Render::All,
            histories: Histories::Written,
            judge,
        },
    )
}

/// [`export`] as `recipe` says: [`Render::Changed`] renders only the
/// repositories whose data changed since the last export;
/// [`Histories::OnDemand`] writes no item history pages.
///
/// Importance is computed here, from each item's latest snapshot at the
/// instant of the repository's latest run (the dataset's instant), with the
/// configured weights: a stored score would go stale as time passes, and
/// computing it costs one pass over what the export reads anyway.
///
/// Each repository's health is judged by `judge` and shown on its pages
/// and the index when failing, stale or left out by its owner's listing
/// (gone, archived, ...); a change of it re-renders the repository (its
/// data key holds it), a constant age never does.
pub fn export_with(
    store: &dyn Backend,
    out: &Path,
    recipe: &Recipe<'_>,
) -> anyhow::Result<SiteReport> {
    let fail = || format!("cannot write the site to {}", out.display());
    let judge = recipe.judge;
    let settings = settings(recipe.site, recipe.conversation, recipe.weights);
    let mut publisher =
        Publisher::begin(out, recipe.site, &settings, recipe.render).with_context(fail)?;
    let owners = store.owners_status()?;
    let owned = crate::health::Owned::new(&owners);
    for status in store.status()?.repositories {
        let summary = &status.summary;
        if summary.run_count == 0 {
            continue; // never collected successfully: nothing to publish yet
        }
        let health = HealthNote::of(&crate::health::of(
            &status,
            &owned,
            judge.interval,
            judge.now,
        ));
        // A link made or lost by another repository's run re-renders this
        // one too: its mark is part of the key.
        let key = data_key(
            summary,
            &health,
            store.references_mark(summary.key)?,
            store.related_mark(summary.key)?,
        );
        let (group, repo) = (&summary.group.id, &summary.repo.id);
        if publisher.is_current(group, repo, &key) {
            publisher.keep(group, repo).with_context(fail)?;
            continue;
        }
        let since = publisher.previous_instant(group, repo);
        let one = OneRepo {
            summary,
            items: status.totals.items as usize,
            health: &health,
            key: &key,
            since,
        };
        let written = export_repo(store, &mut publisher, recipe, &one)
            .with_context(|| format!("cannot export {group}/{repo} to {}", out.display()))?;
        let Some(streamed) = written else { continue };
        if recipe.histories == Histories::OnDemand {
            continue;
        }
        // History pages of the items with an event since the repository's
        // last export (all of them on its first export): what changed.
        for id in streamed.histories() {
            if let Some(html) = history_page(store, summary, id).with_context(fail)? {
                publisher
                    .write_history(group, repo, &signals_site::history_file(id), &html)
                    .with_context(fail)?;
            }
        }
    }
    links::set_shared(store, &mut publisher)?;
    links::set_stories(store, &mut publisher)?;
    publisher.finish().with_context(fail)
}

/// Renders one repository into a new version folder of `publisher`,
/// reading it from the store a batch at a time (`source.rs`): the dataset
/// is written as its signals are read, the pages from the compact ranking
/// and trail, a page's items read back by id. `None` before its first
/// successful run.
///
/// Its trends (`trends.json` and the charts; `serve` answers the same) are
/// at the dataset's instant: the weeks tallied from the latest snapshots
/// as the dataset is written; the context points and the rising items by
/// the store's own queries, which read the runs of the weeks covered and
/// the items observed in the last 7 days, never the whole history.
fn export_repo<'s>(
    store: &'s dyn Backend,
    publisher: &mut Publisher,
    recipe: &Recipe<'_>,
    one: &OneRepo<'_>,
) -> anyhow::Result<Option<Streamed<'s>>> {
    let OneRepo {
        summary,
        items,
        health,
        key,
        since,
    } = *one;
    let (options, weights) = (recipe.site, recipe.weights);
    let Some(outline) = store.repository_outline(summary.key)? else {
        return Ok(None);
    };
    let (Some(first), Some(last)) = (outline.runs.first(), outline.runs.last()) else {
        return Ok(None);
    };
    let (instant, coverage_start) = (last.collected_at, first.since);
    let repo_url = repository_url(store, &outline)?;
    let no_changes = HashSet::new();
    let head = build_head(
        &DatasetInput {
            group: &outline.summary.group,
            repo: &outline.summary.repo,
            context: &outline.context,
            news: &outline.news,
            runs: &outline.runs,
            items: &[],
            changed_in_latest: &no_changes,
        },
        &repo_url,
    )
    .with_context(|| format!("{} has an outline but no run", outline.summary.repo.repo))?;
    let (group, repo) = (&outline.summary.group.id, &outline.summary.repo.id);
    let mut files = publisher.open_repo(group, repo)?;
    let mut dataset = DatasetWriter::begin(Counted::new(files.open("dataset.json")?), &head)?;
    let conversation = recipe.conversation;
    let read_from = signals_core::first_response::read_from(
        Some(first.collected_at),
        conversation.comments_backfill_days,
    );
    let answering = Answering {
        ignore_users: conversation.ignored_in(group).to_vec(),
        read_from,
    };
    let reading = Reading {
        key: summary.key,
        group,
        repo: &outline.summary.repo,
        repo_url: &repo_url,
        weights,
        answering,
        waiting_days: conversation.waiting_days,
        tally: WeekTally::new(instant, coverage_start),
        contributors: WeeklyContributors::new(first_week(instant), WEEKS, instant),
        instant,
        since,
        items,
        events: outline.runs.iter().map(|r| r.changed_count as usize).sum(),
    };
    let (mut streamed, pass) = Streamed::read(store, reading, &mut dataset)?;
    let dataset = dataset.finish()?;
    let bytes = dataset.bytes;
    files.close(dataset.into_inner(), bytes)?;

    let contexts = store.run_contexts(summary.key, first_week(instant))?;
    let growth = store.growth_since(summary.key, instant - RISING_WINDOW)?;
    let contributors = contributors_of(
        pass.contributors,
        outline.context.created_at,
        read_from.unwrap_or(coverage_start).max(coverage_start),
    );
    let mut tally = pass.tally;
    let sightings = store.asset_sightings(summary.key, first_week(instant))?;
    for increase in signals_core::downloads::increases(&sightings) {
        tally.add_downloads(&increase);
    }
    let trends = signals_core::trends::build_from(
        outline.summary.repo.repo.to_string(),
        tally,
        &contributors,
        &contexts,
        growth,
    );
    // The lifecycle's changes, read once: the verdict's `changes` and
    // entries of the trail pages (few: one per change of state).
    let changes = store.lifecycle_changes(summary.key)?;
    let verdict = verdict_in(store, conversation, &outline.summary, &sightings, &changes)?;
    let page = RepoHead {
        document: &head,
        verdict: verdict.as_ref(),
        signals: pass.signals,
        new: streamed.new_count(),
        trail_total: streamed.trail_total(),
        lifecycle: &changes,
        trends: &trends,
        news: &outline.news,
        license: outline.license.as_deref(),
        event_count: streamed.trail_total() as u64,
        collected_at: instant,
        health,
    };
    let summary = render_repo_files(
        &page,
        &mut streamed,
        options.base_url.as_deref(),
        &mut files,
    )?;
    let previous = publisher.previous_dir(group, repo);
    search::write(store, outline.summary.key, &streamed, previous, &mut files)?;
    publisher.close_repo(files, summary, key)?;
    Ok(Some(streamed))
}

/// The verdict on a repository in its group, once a run judged it: the
/// group's or repository's declared state applied; `sightings` are the
/// trends' download counts (26 weeks hold the verdict's last 4);
/// `changes`, the store's `lifecycle_changes` of it.
fn verdict_in(
    store: &dyn Backend,
    conversation: &Conversation,
    summary: &RepoSummary,
    sightings: &[signals_core::downloads::AssetSighting],
    changes: &[signals_core::lifecycle::verdict::StateChange],
) -> anyhow::Result<Option<signals_core::lifecycle::verdict::Verdict>> {
    let (group, repo, key) = (&summary.group.id, &summary.repo.id, summary.key);
    let Some(record) = store.lifecycle(key)? else {
        return Ok(None);
    };
    let advisories = signals_core::advisories::open_advisories(&store.advisories(key)?);
    // Downloads up to the latest run, the instant the export reads at,
    // from the trends' sightings, which reach further back.
    let now = summary.last_collected_at.unwrap_or(record.since);
    let downloads_last_4_weeks = signals_core::downloads::last_4_weeks(sightings, now);
    let about = signals_core::lifecycle::verdict::About {
        group,
        repository: &summary.repo.repo.to_string(),
        declared: conversation
            .declared
            .get(&format!("{group}/{repo}"))
            .copied(),
        changes,
        advisories,
        downloads_last_4_weeks,
    };
    Ok(Some(signals_core::lifecycle::verdict::verdict(
        &record, about,
    )))
}

/// The weeks' contributors: new ones told from history only when the
/// store's items and comments reach back (`reached`) to the repository's
/// creation, else by GitHub's first-time associations.
fn contributors_of(
    counted: WeeklyContributors,
    created: Option<jiff::Timestamp>,
    reached: jiff::Timestamp,
) -> Contributors {
    let source = match created {
        Some(created) if reached <= created => ContributorsSource::History,
        _ => ContributorsSource::Association,
    };
    Contributors {
        weeks: counted.finish(source),
        source,
    }
}

/// The URL that stands in for an item's that is not http(s)
/// (`signals_core::dataset::repository_url`): the host's, else read from
/// the items in id order until one has an http(s) URL.
fn repository_url(
    store: &dyn signals_store::StreamReads,
    outline: &RepoOutline,
) -> anyhow::Result<String> {
    let (context, repo) = (&outline.context, &outline.summary.repo);
    let mut found: Option<String> = None;
    if !signals_core::hostile::is_http_url(&context.url) {
        let mut after: Option<String> = None;
        'batches: loop {
            let batch =
                store.latest_items_after(outline.summary.key, after.as_deref(), source::BATCH)?;
            let Some(last) = batch.last() else { break };
            after = Some(last.id.clone());
            for latest in batch {
                if signals_core::hostile::is_http_url(&latest.item.url) {
                    found = Some(latest.item.url);
                    break 'batches;
                }
            }
        }
    }
    Ok(signals_core::dataset::repository_url(
        context,
        repo,
        found.as_deref(),
    ))
}

/// The history page of item `id` of a repository, as `export` writes it
/// and `serve` answers it (one function, so the two cannot differ); `None`
/// when the store has no snapshot of the item.
pub fn history_page(
    store: &dyn Backend,
    summary: &RepoSummary,
    id: &str,
) -> anyhow::Result<Option<String>> {
    let snapshots = store.snapshot_history(summary.key, id)?;
    let Some(history) = signals_core::history::history(id, &snapshots) else {
        return Ok(None);
    };
    let links = links::history_links(store, summary, id)?;
    Ok(Some(signals_site::render_history_linked(
        &history,
        &summary.group.name,
        &summary.repo.name,
        &links,
    )?))
}

/// One repository as the export loop found it: its summary, the number
/// of items the store holds, its health, its data key and its previous
/// export's instant.
#[derive(Clone, Copy)]
struct OneRepo<'a> {
    summary: &'a RepoSummary,
    items: usize,
    health: &'a HealthNote,
    key: &'a str,
    since: Option<jiff::Timestamp>,
}

/// What the pages depend on besides the data: a change re-renders all.
fn settings(options: &SiteOptions, conversation: &Conversation, weights: &Weights) -> String {
    serde_json::json!({
        "signals": env!("CARGO_PKG_VERSION"),
        "base_url": options.base_url,
        "weights": weights,
        "ignore_users": conversation.ignore_users,
        "waiting_days": conversation.waiting_days,
        "comments_backfill_days": conversation.comments_backfill_days,
        "lifecycle": conversation.declared,
        "site": signals_site::SITE_FORMAT,
    })
    .to_string()
}

/// What a repository's published files depend on in the store: its latest
/// run, the configuration its pages show, and its health when the pages
/// flag it (failing, stale, or left out with its reason and since when:
/// a repository that becomes gone is re-rendered once, then kept, as
/// nothing in its note changes while it is not collected), and the mark of
/// its links (`ReferenceReads::references_mark`) and of its related items
/// (`RelatedStore::related_mark`). Equal keys, equal files.
fn data_key(s: &RepoSummary, health: &HealthNote, links: i64, related: i64) -> String {
    let health = health.flagged().then_some(health);
    serde_json::json!({
        "health": health,
        "links": links,
        "related": related,
        "runs": s.run_count,
        "last": s.last_collected_at.map(|t| t.to_string()),
        "group": s.group.name,
        "repo": s.repo.repo.to_string(),
        "name": s.repo.name,
        "keywords": s.repo.keywords,
        "source": s.repo.source.as_str(),
    })
    .to_string()
}

#[cfg(test)]
mod tests;
