//! `signals collect`: one run per selected repository (`crate::collect`),
//! a progress bar on a terminal, a one-line summary (or `--json`), and an
//! exit code that says whether everything, part, or nothing was collected.

use std::io::IsTerminal;
use std::path::Path;

use crate::cli::CollectArgs;
use crate::collect::{self, Options, Progress};
use crate::config::Config;
use crate::hosts::Requests;

/// Runs `signals collect` with the configuration read from `config_path`.
pub fn run(config: &Config, config_path: &Path, args: &CollectArgs) -> anyhow::Result<u8> {
    if let Some(clock) = config.clock {
        anyhow::bail!(
            "this configuration sets clock = \"{clock}\": it judges a recorded store (the \
             demo's) at a fixed instant, and runs are made at the real time; remove `clock` \
             from the configuration to collect{}",
            if config.groups.is_empty() {
                "; it lists no groups either: for your own repositories, `signals init` writes a \
                 configuration to start from"
            } else {
                ""
            }
        );
    }
    if config.groups.is_empty() {
        anyhow::bail!("{}", no_groups(config_path));
    }
    let options = Options {
        group: args.group.clone(),
        repo: args.repo.clone(),
        looping: args.r#loop,
        reconcile: args.reconcile,
        quiet: args.quiet,
        progress: if std::io::stderr().is_terminal() && !args.json && !args.quiet {
            Progress::Bar
        } else {
            Progress::Hidden
        },
        requests: if args.verbose {
            Requests::Logged
        } else {
            Requests::Unlogged
        },
        notify: !args.no_notify,
        interval: args.interval.clone(),
        lease: args.lease.clone(),
    };
    let outcome = collect::run(config, &options)?;
    match outcome.alerts {
        Some(Ok(report)) if !args.quiet && !args.json => eprintln!("{}", report.line()),
        Some(Ok(_)) | None => {}
        Some(Err(e)) => {
            eprintln!("warning: alerts were not delivered: {e:#}; `signals notify` will")
        }
    }
    let summary = outcome.summary;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary.to_json())?);
    } else {
        if !args.quiet {
            summary.print_owner_changes();
        }
        summary.print_failures();
        if let Some(stop) = summary.stop_message() {
            eprintln!("stopped: {stop}");
        }
        // `--quiet`: nothing on stdout unless something failed, so cron
        // mails only then (failures always go to stderr).
        if !args.quiet || summary.exit_code() != crate::exit::OK {
            println!("{}", summary.line());
        }
    }
    Ok(summary.exit_code())
}

/// What `collect` says of a configuration without groups: that, and the
/// two ways to add one (the command names the file when it is not the
/// default one).
fn no_groups(config_path: &Path) -> String {
    let config = if config_path == Path::new(crate::config::DEFAULT_PATH) {
        String::new()
    } else {
        format!(" --config {}", config_path.display())
    };
    format!(
        "{} has no groups, so there is nothing to collect: add one with `signals{config} repos add \
         OWNER/NAME --group ID --group-name NAME` (ID a slug such as \"runtimes\", NAME its title), \
         or write a [[groups]] table in the file (`signals init` writes a commented example \
         to start from)",
        config_path.display()
    )
}
