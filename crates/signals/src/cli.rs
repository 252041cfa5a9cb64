//! The command line, as clap sees it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Repo Signals: watches code repositories and publishes what matters in them.
#[derive(Debug, Parser)]
#[command(name = "signals", version, about, propagate_version = true)]
pub struct Cli {
    /// The configuration file.
    #[arg(long, short = 'c', global = true, default_value = crate::config::DEFAULT_PATH, env = "SIGNALS_CONFIG")]
    pub config: PathBuf,
    /// Log every HTTP request (method, URL, status, bytes, timing; never a token).
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write a commented example configuration.
    Init(InitArgs),
    /// Collect every tracked repository (or a selection) once.
    Collect(CollectArgs),
    /// Write the site: per repository a v3 dataset.json and its pages.
    Export(ExportArgs),
    /// Check v3 dataset documents against the schema and the invariants.
    Validate(ValidateArgs),
    /// Run the whole pipeline offline on bundled recorded GitHub responses.
    Demo(DemoArgs),
    /// Show each repository's last run, failures and the rate limit last seen.
    Status(StatusArgs),
}

/// `signals init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Overwrite an existing file.
    #[arg(long)]
    pub force: bool,
}

/// `signals collect`.
#[derive(Debug, Args)]
pub struct CollectArgs {
    /// Only this group (its id).
    #[arg(long)]
    pub group: Option<String>,
    /// Only this repository (`owner/name`).
    #[arg(long)]
    pub repo: Option<String>,
    /// The store file (overrides the config and SIGNALS_STORE).
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `signals export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Output folder (overrides the config and SIGNALS_OUT).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The store file (overrides the config and SIGNALS_STORE).
    #[arg(long)]
    pub store: Option<PathBuf>,
}

/// `signals validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Dataset documents to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// `signals demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Output folder of the demo's site and store.
    #[arg(long, default_value = "signals-demo")]
    pub out: PathBuf,
}

/// `signals status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The store file (overrides the config and SIGNALS_STORE).
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Print as JSON.
    #[arg(long)]
    pub json: bool,
}
