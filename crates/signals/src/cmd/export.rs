//! `signals export`: the store's repositories as a static site
//! (`crate::export`), and with `--serve-site` the private site `signals
//! serve` serves, written through a child process so that the export's
//! memory goes back to the system when it ends.

use signals_site::{Render, SiteOptions};

use crate::cli::ExportArgs;
use crate::config::Config;
use crate::exit;
use crate::export::{Conversation, Histories, Judge, Recipe, export_with};

/// Exports every repository of the store that has at least one run.
pub fn run(config: &Config, args: &ExportArgs) -> anyhow::Result<u8> {
    let mut store = crate::store::open(&config.store, crate::store::IfMissing::Refuse)?;
    crate::export::index_all(&mut *store)?;
    let out = &config.out;
    let report = export_with(
        &*store,
        out,
        &Recipe {
            site: &SiteOptions {
                base_url: config.base_url.clone(),
            },
            conversation: &Conversation::of(config),
            weights: &config.importance,
            render: if args.all {
                Render::All
            } else {
                Render::Changed
            },
            histories: Histories::Written,
            judge: Judge::now(config),
        },
    )?;
    if args.quiet {
        return Ok(exit::OK);
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
    Ok(exit::OK)
}

/// `signals export --serve-site`: the private site of `signals serve`,
/// with the configuration's rules of conversation, as `signals export`
/// has them. Its feeds keep relative links (no `base_url`): it is served
/// at `serve`'s own address, which the configuration does not know.
pub fn serve_site(config: &Config) -> anyhow::Result<u8> {
    let mut store = crate::store::open(&config.store, crate::store::IfMissing::Refuse)?;
    crate::export::index_all(&mut *store)?;
    export_with(
        &*store,
        &config.out,
        &Recipe {
            site: &SiteOptions::default(),
            conversation: &Conversation::of(config),
            weights: &config.importance,
            render: Render::Changed,
            histories: Histories::OnDemand,
            judge: Judge::now(config),
        },
    )?;
    Ok(exit::OK)
}
