//! `signals`: collects code repositories' public activity into a store, and
//! publishes per-repository v3 datasets and pages.
//!
//! This binary is glue: it reads the configuration, wires the host clients,
//! the store and the site writer together, and maps errors to exit codes (a full disk among the causes is
//! `exit::DISK_FULL`).
//! The logic lives in the library crates; the binary's own engines
//! (`collect/`, `export/`, `serve/`, `alerts.rs`, ...) are called by the
//! subcommands of `cmd/`, which only read flags and print.

mod alerts;
mod cache;
mod cli;
mod cmd;
mod collect;
mod config;
mod demo;
mod duplicates;
mod exit;
mod export;
mod health;
mod hosts;
mod metrics;
mod migrate;
mod related;
mod repos;
mod serve;
#[cfg(test)]
mod sim;
mod status;
mod store;
mod validate;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cmd::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            // A closed pipe (`signals status | head`) is not a failure.
            if err.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::from(exit::OK);
            }
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            let code = exit::of_error(&err);
            if code == exit::DISK_FULL {
                eprintln!(
                    "the disk is full (exit code 7): free space where the message says, then \
                     run the command again; nothing half-written was kept"
                );
            }
            ExitCode::from(code)
        }
    }
}
