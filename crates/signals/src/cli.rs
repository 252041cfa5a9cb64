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
    /// Deliver the alerts of `[[notify]]` rules waiting in the store.
    Notify(NotifyArgs),
    /// Write the site: per repository a v3 dataset.json and its pages.
    Export(ExportArgs),
    /// Check v3 dataset documents against the schema and the invariants.
    Validate(ValidateArgs),
    /// Run the whole pipeline offline on bundled recorded GitHub, GitLab and
    /// Forgejo (Gitea) responses.
    Demo(DemoArgs),
    /// Show each repository's health, last run and failures (with what to
    /// check), and the rate limits last seen.
    Status(StatusArgs),
    /// Copy a store, all history included, into a new empty one (SQLite to
    /// PostgreSQL, or back), and verify the copy.
    Migrate(MigrateArgs),
    /// Serve the site and a read-only JSON API over the store (loopback by default).
    Serve(ServeArgs),
    /// Print the store's Prometheus metrics (or write them for node_exporter's
    /// textfile collector with --out).
    Metrics(MetricsArgs),
    /// List, add or remove tracked repositories (edits the configuration).
    #[command(subcommand)]
    Repos(ReposCommand),
    /// Measure the related items against the duplicates the hosts mark
    /// (recall@5 and precision per group, at each threshold).
    Duplicates(DuplicatesArgs),
    /// Print a shell completion script (bash, zsh or fish) on stdout.
    Completions(CompletionsArgs),
    /// Print the man page (roff) on stdout: `signals man > signals.1`.
    Man,
}

/// `signals repos ...`.
#[derive(Debug, Subcommand)]
pub enum ReposCommand {
    /// List the tracked repositories by group, with their last run.
    List(ReposListArgs),
    /// Track a repository: adds it to a group in the configuration file.
    Add(ReposAddArgs),
    /// Stop tracking a repository: removes it from the configuration file.
    /// Its history stays in the store (and on the site) unless --purge.
    Remove(ReposRemoveArgs),
}

/// `signals repos list`.
#[derive(Debug, Args)]
pub struct ReposListArgs {
    /// The store file (overrides the config and SIGNALS_STORE).
    #[arg(long)]
    pub store: Option<PathBuf>,
}

/// `signals repos add`.
#[derive(Debug, Args)]
pub struct ReposAddArgs {
    /// `owner/name`, or the repository's URL as pasted from a browser: it
    /// goes to the configured host of the URL (when none is, the error
    /// gives the `[[hosts]]` entry to add).
    pub repo: String,
    /// The group's id; may be left out when there is only one group. A
    /// group holds one host's repositories.
    #[arg(long, short = 'g')]
    pub group: Option<String>,
    /// Creates the group with this display name when it does not exist.
    #[arg(long)]
    pub group_name: Option<String>,
    /// Display name (default: the repository's name).
    #[arg(long)]
    pub name: Option<String>,
    /// Slug used in the site's paths (default: derived from the name).
    #[arg(long)]
    pub id: Option<String>,
    /// A keyword shown on the page (repeatable).
    #[arg(long = "keyword", short = 'k')]
    pub keywords: Vec<String>,
}

/// `signals repos remove`.
#[derive(Debug, Args)]
pub struct ReposRemoveArgs {
    /// `owner/name`, or the repository's URL.
    pub repo: String,
    /// Only from this group (needed when it is tracked in several).
    #[arg(long, short = 'g')]
    pub group: Option<String>,
    /// Also delete its history (runs, snapshots, events) from the store.
    #[arg(long)]
    pub purge: bool,
    /// The store file, for --purge (overrides the config and SIGNALS_STORE).
    #[arg(long)]
    pub store: Option<PathBuf>,
}

/// `signals completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    pub shell: Shell,
}

/// Shells with completion scripts.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Shell {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
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
    /// Print nothing on stdout unless something failed (for cron, which
    /// mails any output). Failures still go to stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Run as a long-lived worker (PostgreSQL store): take the next due
    /// repository, sleep when none is due, stop on SIGTERM or SIGINT.
    #[arg(long = "loop")]
    pub r#loop: bool,
    /// A repository is due when its last attempt is older than this
    /// (PostgreSQL store; `90s`, `30m`, `1h`; overrides `interval` in the
    /// configuration; default 1h).
    #[arg(long)]
    pub interval: Option<String>,
    /// How long a worker's claim on a repository lasts without progress
    /// (PostgreSQL store; renewed at every request; overrides `lease`;
    /// default 5m).
    #[arg(long)]
    pub lease: Option<String>,
    /// Do not deliver alerts after collecting (`signals notify` does).
    #[arg(long)]
    pub no_notify: bool,
    /// List every item of each repository now and compare with the store
    /// (a reconcile; otherwise every `reconcile_days`, default 7): finds
    /// what asking for the items updated since cannot (reactions, deleted
    /// or transferred items).
    #[arg(long)]
    pub reconcile: bool,
    /// Log every HTTP request (method, URL, status, bytes, timing; never a token).
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

/// `signals notify`.
#[derive(Debug, Args)]
pub struct NotifyArgs {
    /// The store (overrides the config and SIGNALS_STORE).
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Print, per rule, what would be sent; send nothing, change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Make every email digest that holds messages now, due or not.
    #[arg(long)]
    pub send_digests: bool,
    /// How long to stay for retries that come due (`0s`: deliver what is
    /// due, then stop).
    #[arg(long, default_value = "1m")]
    pub wait: String,
    /// Give a message up (failed, shown by `signals status`) this long
    /// after its run.
    #[arg(long, default_value = "24h")]
    pub give_up: String,
    /// Connect and answer timeout of one attempt.
    #[arg(long, default_value = "30s")]
    pub timeout: String,
    /// Print nothing on stdout unless a message was given up.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// The first retry's delay, doubled with each attempt.
    #[arg(
        long,
        hide = true,
        env = "SIGNALS_NOTIFY_RETRY_BASE",
        default_value = "5s"
    )]
    pub retry_base: String,
    /// How long a claim on a message lasts (longer than an attempt).
    #[arg(long, hide = true, env = "SIGNALS_NOTIFY_CLAIM", default_value = "10m")]
    pub claim: String,
}

/// `signals migrate`.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The store to copy: a SQLite file or a `postgres://` address.
    #[arg(long)]
    pub from: PathBuf,
    /// The new, empty store: a `postgres://user@host:port/db` address (the
    /// password from PGPASSWORD or ~/.pgpass) or a SQLite file.
    #[arg(long)]
    pub to: PathBuf,
}

/// `signals serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The port to listen on.
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on; the default answers this machine only.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// The store (overrides the config and SIGNALS_STORE).
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Require a read token: the name of an environment variable holding
    /// it; every request must then send `Authorization: Bearer <token>`.
    #[arg(long, value_name = "NAME")]
    pub token_env: Option<String>,
    /// Seconds a request head may take, a keep-alive connection may stay
    /// idle, and a response may wait for its client to read.
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    pub timeout: u64,
    /// Connections open at once; more wait until one closes.
    #[arg(long, default_value_t = 1024)]
    pub max_connections: usize,
    /// Store connections reading at once.
    #[arg(long, default_value_t = 4)]
    pub store_connections: usize,
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
    /// Print nothing on stdout unless something failed (for cron).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Render every repository again, not only those with a run newer than
    /// the last export.
    #[arg(long)]
    pub all: bool,
    /// The private site of `signals serve`, which runs this export in a
    /// child process: no item history pages (serve renders them on
    /// demand), no base URL, nothing printed.
    #[arg(long, hide = true)]
    pub serve_site: bool,
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
    /// Log every HTTP request to the demo's loopback hosts (method, URL,
    /// status, bytes, timing).
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

/// `signals metrics`.
#[derive(Debug, Args)]
pub struct MetricsArgs {
    /// The store file (overrides the config and SIGNALS_STORE).
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Write them to this file (replaced at once, as node_exporter's textfile
    /// collector needs; name it `*.prom` in the collector's folder) instead
    /// of printing them.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `signals duplicates`.
#[derive(Debug, Args)]
pub struct DuplicatesArgs {
    /// The store file (overrides the config and SIGNALS_STORE).
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Measure this group (its id) alone; every group of the store by default.
    #[arg(long)]
    pub group: Option<String>,
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

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::Cli;

    /// `-v` logs HTTP requests, so only the commands that make
    /// requests offer it (`collect` to its hosts, `demo` to its loopback
    /// ones); the others would accept it and do nothing.
    #[test]
    fn issue_30_only_commands_that_make_requests_offer_verbose() {
        let cli = Cli::command();
        assert!(cli.get_arguments().all(|a| a.get_id() != "verbose"));
        let mut offering: Vec<String> = Vec::new();
        for sub in cli.get_subcommands() {
            let mut all = vec![sub];
            all.extend(sub.get_subcommands());
            for c in all {
                if c.get_arguments().any(|a| a.get_short() == Some('v')) {
                    offering.push(c.get_name().to_string());
                }
            }
        }
        assert_eq!(offering, ["collect", "demo"]);
        assert!(Cli::try_parse_from(["signals", "collect", "-v"]).is_ok());
        assert!(Cli::try_parse_from(["signals", "status", "-v"]).is_err());
        assert!(Cli::try_parse_from(["signals", "-v", "export"]).is_err());
    }
}
