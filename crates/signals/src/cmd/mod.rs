//! One file per subcommand, each with its `run`.

pub mod collect;
pub mod completions;
pub mod demo;
pub mod export;
pub mod init;
pub mod metrics;
pub mod migrate;
pub mod notify;
pub mod repos;
pub mod serve;
pub mod status;
pub mod validate;

use std::path::Path;

use anyhow::Context;

use crate::cli::{Cli, Command};
use crate::config::Config;

/// Dispatches a parsed command line; returns the exit code.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Init(args) => init::run(&cli.config, args.force),
        Command::Validate(args) => validate::run(&args.files),
        Command::Demo(args) => demo::run(&args.out, cli.verbose),
        Command::Collect(args) => {
            let mut config = load_config(&cli.config)?;
            if let Some(store) = &args.store {
                config.store = store.clone();
            }
            collect::run(&config, &args, cli.verbose)
        }
        Command::Notify(args) => {
            let config = config_for(&cli.config, args.store.as_deref(), None)?;
            notify::run(&config, &args)
        }
        Command::Export(args) => {
            let config = config_for(&cli.config, args.store.as_deref(), args.out.as_deref())?;
            if args.serve_site {
                return export::serve_site(&config);
            }
            export::run(&config, args.quiet, args.all)
        }
        Command::Status(args) => {
            let config = config_for(&cli.config, args.store.as_deref(), None)?;
            status::run(&config.store, args.json, config.interval)
        }
        Command::Migrate(args) => {
            let config = config_for(&cli.config, None, None)?;
            migrate::run(&args, &config.importance)
        }
        Command::Serve(args) => {
            let config = config_for(&cli.config, args.store.as_deref(), None)?;
            serve::run(&config, &cli.config, &args)
        }
        Command::Metrics(args) => {
            let config = config_for(&cli.config, args.store.as_deref(), None)?;
            metrics::run(&config.store, args.out.as_deref(), config.interval)
        }
        Command::Repos(command) => repos::run(&cli.config, command),
        Command::Completions(args) => completions::completions(args.shell),
        Command::Man => completions::man(),
    }
}

/// Loads the config file and applies the environment.
pub(crate) fn load_config(path: &Path) -> anyhow::Result<Config> {
    let mut config = Config::load(path)?;
    config.apply_env(|k| std::env::var(k).ok())?;
    Ok(config)
}

/// The configuration of commands that need no repository list, with the
/// store and output paths given as flags: flags win; otherwise the config
/// file when there is one; otherwise the environment and the defaults.
pub(crate) fn config_for(
    config_path: &Path,
    store: Option<&Path>,
    out: Option<&Path>,
) -> anyhow::Result<Config> {
    let mut config = if config_path.exists() {
        load_config(config_path)?
    } else {
        let mut c = Config::parse("", Path::new("<defaults>")).context("built-in defaults")?;
        c.apply_env(|k| std::env::var(k).ok())?;
        c
    };
    if let Some(store) = store {
        config.store = store.to_path_buf();
    }
    if let Some(out) = out {
        config.out = out.to_path_buf();
    }
    Ok(config)
}

/// Opens an existing store (a SQLite file or a PostgreSQL database); a
/// missing file is an error that says what to do (opening would otherwise
/// create an empty store).
fn open_existing_store(path: &Path) -> anyhow::Result<crate::store::Opened> {
    crate::store::open(path, false)
}
