//! `signals export`: the store's repositories as a static site (per
//! repository a v3 `dataset.json`, pages and a feed; an index).

use std::path::Path;

use anyhow::Context;
use signals_core::dataset::{DatasetInput, Document, build};
use signals_site::{RepoPage, SiteOptions, SiteReport, write_site_with};
use signals_store::{RepoView, Store};

/// Exports every repository of the store that has at least one run.
pub fn run(
    store_path: &Path,
    out: &Path,
    base_url: Option<String>,
    quiet: bool,
) -> anyhow::Result<u8> {
    let store = super::open_existing_store(store_path)?;
    let report = export_with(&store, out, &SiteOptions { base_url })?;
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
pub fn export(store: &Store, out: &Path) -> anyhow::Result<SiteReport> {
    export_with(store, out, &SiteOptions::default())
}

/// [`export`] with site-wide settings (`base_url`).
pub fn export_with(store: &Store, out: &Path, options: &SiteOptions) -> anyhow::Result<SiteReport> {
    let mut views: Vec<(RepoView, Document)> = Vec::new();
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
        views.push((view, document));
    }
    let pages: Vec<RepoPage<'_>> = views
        .iter()
        .map(|(view, document)| RepoPage {
            document,
            news: &view.news,
            license: view.license.as_deref(),
            trail: &view.trail,
            scores: &view.scores,
            event_count: view.event_count,
            collected_at: view.runs.last().map(|r| r.collected_at).unwrap_or_default(),
        })
        .collect();
    write_site_with(out, &pages, options)
        .with_context(|| format!("cannot write the site to {}", out.display()))
}
