//! `signals`: collects code repositories' public activity into a store, and
//! publishes per-repository v3 datasets and pages.
//!
//! This binary is glue: it reads the configuration, wires the GitHub client,
//! the SQLite store and the site writer together, and maps errors to exit
//! codes. The logic lives in the library crates.

mod cache;
mod cli;
mod cmd;
mod collection;
mod config;
mod health;
mod hosts;
mod ids;
mod metrics;
mod owners;
mod pipeline;
mod store;
mod validate;
mod worker;

use std::process::ExitCode;

use clap::Parser;

/// Exit codes, documented in the README.
pub mod exit {
    /// Everything asked for was done.
    pub const OK: u8 = 0;
    /// An error stopped the command (bad config, unreadable store, ...), or
    /// `validate` found problems.
    pub const ERROR: u8 = 1;
    /// Bad command-line usage (clap's own code).
    pub const USAGE: u8 = 2;
    /// `collect`: some repositories failed; the others were committed.
    pub const PARTIAL: u8 = 3;
    /// `collect`: stopped on a rate limit whose wait exceeded the maximum;
    /// runs already committed stay, the rest were not collected.
    pub const RATE_LIMITED: u8 = 4;
    /// `collect`: the host refused the token (401); stopped at once, since
    /// every repository would fail the same way.
    pub const UNAUTHORIZED: u8 = 5;
    /// `collect`: the host did not answer (connection refused, DNS,
    /// timeouts) after the retries; stopped at once.
    pub const UNREACHABLE: u8 = 6;
}

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
            ExitCode::from(exit::ERROR)
        }
    }
}
