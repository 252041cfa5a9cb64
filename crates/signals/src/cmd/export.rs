//! `signals export`: the store's repositories as a static site (per
//! repository a v3 `dataset.json`, pages and a feed; an index).
//!
//! It streams: one repository at a time is read, built, rendered, written
//! and dropped, so its memory is that of the largest repository, not of the
//! store. It is incremental: a repository whose latest run and
//! configuration are those of the last export keeps its files, so an export
//! after one new run renders one repository and the index. And it publishes
//! atomically through [`Publisher`]: the served folder switches from the
//! previous site to the new one at once.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use anyhow::Context;
use signals_core::dataset::{DatasetInput, build};
use signals_core::importance::{Score, Weights, score};
use signals_core::trends::{RISING_WINDOW, Trends, first_week};
use signals_site::{HealthNote, Publisher, RepoPage, SiteOptions, SiteReport};
use signals_store::{Backend, RepoSummary, RepoView};

use crate::config::Config;

/// When, and against which collection interval, the pages judge each
/// repository's health (issue 20): now for `export` and `serve`, the
/// last run's instant for the demo, whose runs are at fixed instants.
#[derive(Debug, Clone, Copy)]
pub struct Judge {
    /// The collection interval (`interval` in the configuration).
    pub interval: std::time::Duration,
    /// The instant judged at.
    pub now: jiff::Timestamp,
}

impl Judge {
    /// Judged now against the configured interval.
    pub fn now(config: &Config) -> Judge {
        Judge {
            interval: config.interval,
            now: jiff::Timestamp::now(),
        }
    }
}

/// Exports every repository of the store that has at least one run.
pub fn run(config: &Config, quiet: bool, all: bool) -> anyhow::Result<u8> {
    let store = super::open_existing_store(&config.store)?;
    let out = &config.out;
    let options = SiteOptions {
        base_url: config.base_url.clone(),
    };
    let report = export_with(
        &*store,
        out,
        &options,
        &config.importance,
        all,
        true,
        Judge::now(config),
    )?;
    if quiet {
        return Ok(crate::exit::OK);
    }
    if report.unchanged {
        println!(
            "nothing changed since the last export; {} is as it was",
            out.join("index.html").display()
        );
    } else {
        println!(
            "exported {} repositories ({} files, {} of them item histories) to {}",
            report.repositories,
            report.files,
            report.histories,
            out.join("index.html").display()
        );
    }
    Ok(crate::exit::OK)
}

/// `signals export --serve-site`: the private site `signals serve` serves,
/// written by `serve` through a child process so that the export's memory
/// goes back to the system when it ends.
pub fn serve_site(config: &Config) -> anyhow::Result<u8> {
    let store = super::open_existing_store(&config.store)?;
    export_with(
        &*store,
        &config.out,
        &SiteOptions::default(),
        &config.importance,
        false,
        false, // history pages are rendered on demand
        Judge::now(config),
    )?;
    Ok(crate::exit::OK)
}

/// Builds the documents and writes the site, rendering every repository.
/// Shared with `demo`.
pub fn export(
    store: &dyn Backend,
    out: &Path,
    weights: &Weights,
    judge: Judge,
) -> anyhow::Result<SiteReport> {
    export_with(
        store,
        out,
        &SiteOptions::default(),
        weights,
        true,
        true,
        judge,
    )
}

/// [`export`] with site-wide settings (`base_url`); `all: false` renders
/// only the repositories whose data changed since the last export;
/// `histories: false` writes no item history pages (`signals serve`
/// renders them on demand, with the same function).
///
/// Importance is computed here, from each item's latest snapshot at the
/// instant of the repository's latest run (the dataset's instant), with the
/// configured weights: a stored score would go stale as time passes, and
/// computing it costs one pass over what the export reads anyway.
///
/// Each repository's health is judged by `judge` and shown on its pages
/// and the index when failing or stale; a change of it re-renders the
/// repository (its data key holds it), a constant age never does.
pub fn export_with(
    store: &dyn Backend,
    out: &Path,
    options: &SiteOptions,
    weights: &Weights,
    all: bool,
    histories: bool,
    judge: Judge,
) -> anyhow::Result<SiteReport> {
    let fail = || format!("cannot write the site to {}", out.display());
    // What the pages depend on besides the data: a change re-renders all.
    let settings = serde_json::json!({
        "signals": env!("CARGO_PKG_VERSION"),
        "base_url": options.base_url,
        "weights": weights,
        "site": signals_site::SITE_FORMAT,
    })
    .to_string();
    let mut publisher = Publisher::begin(out, options, &settings, all).with_context(fail)?;
    for status in store.status()?.repositories {
        let summary = &status.summary;
        if summary.run_count == 0 {
            continue; // never collected successfully: nothing to publish yet
        }
        let health = HealthNote::of(&crate::health::of(&status, judge.interval, judge.now));
        let key = data_key(summary, &health);
        let (group, repo) = (&summary.group.id, &summary.repo.id);
        if publisher.is_current(group, repo, &key) {
            publisher.keep(group, repo).with_context(fail)?;
            continue;
        }
        let Some(view) = store.repository_view(summary.key)? else {
            continue;
        };
        let items: Vec<_> = view.items.values().cloned().collect();
        let document = build(&DatasetInput {
            group: &view.summary.group,
            repo: &view.summary.repo,
            context: &view.context,
            news: &view.news,
            runs: &view.runs,
            items: &items,
            changed_in_latest: &view.changed_in_latest,
        })
        .with_context(|| format!("{} has a view but no run", view.summary.repo.repo))?;
        let instant = view.runs.last().map(|r| r.collected_at).unwrap_or_default();
        let scores: HashMap<String, Score> = view
            .items
            .iter()
            .map(|(id, item)| (id.clone(), score(item, instant, weights)))
            .collect();
        // History pages of the items with an event since the repository's
        // last export (all of them on its first export): what changed.
        let since = publisher.previous_instant(group, repo);
        let changed: BTreeSet<&str> = view
            .trail
            .iter()
            .filter(|e| histories && since.is_none_or(|s| e.at > s))
            .map(|e| e.item_id.as_str())
            .collect();
        let trends = trends_of(store, &view)?;
        let page = RepoPage {
            document: &document,
            trends: &trends,
            news: &view.news,
            license: view.license.as_deref(),
            trail: &view.trail,
            scores: &scores,
            event_count: view.event_count,
            collected_at: instant,
            health: &health,
        };
        publisher.publish(&page, &key).with_context(fail)?;
        for id in changed {
            if let Some(html) = history_page(store, &view.summary, id).with_context(fail)? {
                publisher
                    .write_history(group, repo, &signals_site::history_file(id), &html)
                    .with_context(fail)?;
            }
        }
    }
    publisher.finish().with_context(fail)
}

/// The trends of a repository at its dataset's instant (`trends.json` and
/// the charts; `serve` answers the same): the weeks from its latest
/// snapshots, which the export reads anyway; the context points and the
/// rising items by the store's own queries, which read the runs of the
/// weeks covered and the items observed in the last 7 days, never the
/// repository's whole history.
pub(crate) fn trends_of(store: &dyn Backend, view: &RepoView) -> anyhow::Result<Trends> {
    let (Some(first), Some(last)) = (view.runs.first(), view.runs.last()) else {
        anyhow::bail!("{} has no run to draw trends from", view.summary.repo.repo);
    };
    let instant = last.collected_at;
    let contexts = store.run_contexts(view.summary.key, first_week(instant))?;
    let growth = store.growth_since(view.summary.key, instant - RISING_WINDOW)?;
    Ok(signals_core::trends::build(
        view.summary.repo.repo.to_string(),
        instant,
        first.since,
        view.items.values(),
        &contexts,
        growth,
    ))
}

/// The history page of item `id` of a repository, as `export` writes it
/// and `serve` answers it (one function, so the two cannot differ); `None`
/// when the store has no snapshot of the item.
pub(crate) fn history_page(
    store: &dyn Backend,
    summary: &RepoSummary,
    id: &str,
) -> anyhow::Result<Option<String>> {
    let snapshots = store.snapshot_history(summary.key, id)?;
    let Some(history) = signals_core::history::history(id, &snapshots) else {
        return Ok(None);
    };
    Ok(Some(signals_site::render_history(
        &history,
        &summary.group.name,
        &summary.repo.name,
    )?))
}

/// What a repository's published files depend on in the store: its latest
/// run, the configuration its pages show, and its health when failing or
/// stale. Equal keys, equal files.
fn data_key(s: &RepoSummary, health: &HealthNote) -> String {
    let health = matches!(health.state.as_str(), "failing" | "stale").then_some(health);
    serde_json::json!({
        "health": health,
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
