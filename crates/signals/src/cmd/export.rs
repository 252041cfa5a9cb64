//! `signals export`: the store's repositories as a static site (per
//! repository a v3 `dataset.json`, pages and a feed; an index).

use std::collections::HashMap;
use std::path::Path;

use anyhow::Context;
use signals_core::dataset::{DatasetInput, Document, build};
use signals_core::importance::{Score, Weights, score};
use signals_site::{RepoPage, SiteOptions, SiteReport, write_site_with};
use signals_store::{RepoView, Store};

use crate::config::Config;

/// Exports every repository of the store that has at least one run.
pub fn run(config: &Config, quiet: bool) -> anyhow::Result<u8> {
    let store = super::open_existing_store(&config.store)?;
    let out = &config.out;
    let options = SiteOptions {
        base_url: config.base_url.clone(),
    };
    let report = export_with(&store, out, &options, &config.importance)?;
    if quiet {
        return Ok(crate::exit::OK);
    }
    println!(
        "exported {} repositories ({} files) to {}",
        report.repositories,
        report.files,
        out.join("index.html").display()
    );
    Ok(crate::exit::OK)
}

/// Builds the documents and writes the site. Shared with `demo`.
pub fn export(store: &Store, out: &Path, weights: &Weights) -> anyhow::Result<SiteReport> {
    export_with(store, out, &SiteOptions::default(), weights)
}

/// [`export`] with site-wide settings (`base_url`).
///
/// Importance is computed here, from each item's latest snapshot at the
/// instant of the repository's latest run (the dataset's instant), with the
/// configured weights: a stored score would go stale as time passes, and
/// computing it costs one pass over what the export reads anyway.
pub fn export_with(
    store: &Store,
    out: &Path,
    options: &SiteOptions,
    weights: &Weights,
) -> anyhow::Result<SiteReport> {
    let mut views: Vec<(RepoView, Document, HashMap<String, Score>)> = Vec::new();
    for summary in store.repositories()? {
        let Some(view) = store.repository_view(summary.key)? else {
            continue; // never collected successfully: nothing to publish yet
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
        let scores = view
            .items
            .iter()
            .map(|(id, item)| (id.clone(), score(item, instant, weights)))
            .collect();
        views.push((view, document, scores));
    }
    let pages: Vec<RepoPage<'_>> = views
        .iter()
        .map(|(view, document, scores)| RepoPage {
            document,
            news: &view.news,
            license: view.license.as_deref(),
            trail: &view.trail,
            scores,
            event_count: view.event_count,
            collected_at: view.runs.last().map(|r| r.collected_at).unwrap_or_default(),
        })
        .collect();
    write_site_with(out, &pages, options)
        .with_context(|| format!("cannot write the site to {}", out.display()))
}
