//! One file per subcommand, each with its `run`: it reads its flags, calls
//! one engine of the crate (`collect`, `export`, `alerts`, `serve`,
//! `status`, ...) and prints what it returns. A subcommand file imports no
//! other one, and nothing outside `cmd/` imports them: what two commands
//! share is an engine.

pub mod collect;
pub mod completions;
pub mod demo;
pub mod duplicates;
pub mod export;
pub mod init;
pub mod metrics;
pub mod migrate;
pub mod notify;
pub mod repos;
pub mod serve;
pub mod status;
pub mod validate;

use crate::cli::{Cli, Command};
use crate::config::{self, for_command as config_for};

/// Dispatches a parsed command line; returns the exit code.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Init(args) => init::run(&cli.config, &args),
        Command::Validate(args) => validate::run(&args.files),
        Command::Demo(args) => demo::run(&args),
        Command::Collect(args) => {
            let mut config = config::load_with_env(&cli.config)?;
            if let Some(store) = &args.store {
                config.store = store.clone();
            }
            collect::run(&config, &cli.config, &args)
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
            export::run(&config, &args)
        }
        Command::Status(args) => {
            let config = config_for(&cli.config, args.store.as_deref(), None)?;
            status::run(&config, &args)
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
            metrics::run(
                &config.store,
                args.out.as_deref(),
                config.interval,
                config.now(),
            )
        }
        Command::Repos(command) => repos::run(&cli.config, command),
        Command::Duplicates(args) => {
            let config = config_for(&cli.config, args.store.as_deref(), None)?;
            duplicates::run(&config, &args)
        }
        Command::Completions(args) => completions::completions(args.shell),
        Command::Man => completions::man(),
    }
}
