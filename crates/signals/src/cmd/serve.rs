//! `signals serve`: the site and a read-only JSON API over the store
//! (`crate::serve`, docs/api.md), until SIGINT (Ctrl-C) or SIGTERM.

use std::path::Path;
use std::time::Duration;

use crate::cli::ServeArgs;
use crate::config::Config;
use crate::serve::{Settings, Token};

/// Runs `signals serve`.
pub fn run(config: &Config, config_path: &Path, args: &ServeArgs) -> anyhow::Result<u8> {
    let token = match &args.token_env {
        None => None,
        Some(name) => match std::env::var(name) {
            Ok(secret) if !secret.trim().is_empty() => Some(Token::new(secret.trim())),
            _ => anyhow::bail!(
                "--token-env names {name}, which is not set or empty: set {name} to the token \
                 clients must send as `Authorization: Bearer <token>`"
            ),
        },
    };
    let settings = Settings {
        bind: args.bind.clone(),
        port: args.port,
        token,
        timeout: Duration::from_secs(args.timeout.max(1)),
        max_connections: args.max_connections,
        store_connections: args.store_connections,
    };
    crate::serve::run(config, config_path, settings)?;
    Ok(crate::exit::OK)
}
