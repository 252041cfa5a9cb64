//! The binary's one switch over host kinds: a configured host becomes the
//! client of its crate, behind one type ([`HostClient`]), so every caller
//! sees the same `collect`, `list_owner` and shared HTTP client (stats,
//! rate limits, logger) whatever the host. A kind's defaults (its public
//! instance, its token variable) are one fact of `signals_core::Source`,
//! which the configuration and the host crates both read.

use std::time::Duration;

use anyhow::Context;
use signals_core::Source;
use signals_http::{RequestLog, Token};

use crate::config::{HostConfig, TokenHeader};

/// The client of one configured host: a `signals_http::HostClient` of the
/// host's crate, behind a pointer (three kinds, one interface:
/// `signals_http::Collect`).
pub type HostClient = Box<dyn signals_http::Collect>;

/// Token fingerprints by the name of their environment variable (`None` for
/// unauthenticated requests).
pub type Fingerprints = Vec<(Option<String>, String)>;

/// One configured host with its client.
#[derive(Debug)]
pub struct HostEntry {
    /// Its settings.
    pub config: HostConfig,
    /// Its client.
    pub client: HostClient,
    /// The fingerprint of each of its tokens, for the rate limits kept in
    /// the store.
    pub fingerprints: Fingerprints,
}

/// Whether a host's client logs each of its requests (`--verbose`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Requests {
    /// Each request is logged on stderr (the token's variable name, never
    /// the token).
    Logged,
    /// Nothing is logged.
    #[default]
    Unlogged,
}

/// Builds the client of `host`, reading its tokens from the environment
/// through `env`, its requests logged as `requests` says.
pub fn build(
    host: &HostConfig,
    env: impl Fn(&str) -> Option<String>,
    requests: Requests,
) -> anyhow::Result<HostEntry> {
    let tokens: Vec<Token> = host
        .token_env
        .iter()
        .filter_map(|name| {
            env(name)
                .filter(|v| !v.trim().is_empty())
                .map(|v| Token::new(name, v.trim()))
        })
        .collect();
    let mut fingerprints: Fingerprints = tokens
        .iter()
        .map(|t| (Some(t.env().to_string()), t.fingerprint()))
        .collect();
    if tokens.is_empty() {
        fingerprints.push((None, signals_http::token_fingerprint(None)));
    }
    let config = signals_http::Config {
        base_url: host.api_url.clone(),
        user_agent: host.user_agent.clone(),
        tokens,
        timeout: Duration::from_secs(host.timeout_secs),
        max_retries: host.max_retries,
        max_wait: Duration::from_secs(host.max_rate_limit_wait_secs),
        ..signals_http::Config::default()
    };
    let context = || {
        format!(
            "cannot set up the {} client of host {:?} at {}",
            host.source.display_name(),
            host.name,
            host.api_url
        )
    };
    let mut client: HostClient = match host.source {
        Source::Github => Box::new(signals_github::Client::new(config).with_context(context)?),
        Source::Gitlab => {
            let auth = match host.token_header {
                TokenHeader::PrivateToken => signals_gitlab::Auth::PrivateToken,
                TokenHeader::Bearer => signals_gitlab::Auth::Bearer,
            };
            let gitlab = signals_gitlab::GitLab { auth };
            Box::new(signals_gitlab::Client::with_host(config, gitlab).with_context(context)?)
        }
        Source::Forgejo => Box::new(signals_forgejo::Client::new(config).with_context(context)?),
    };
    if requests == Requests::Logged {
        client.http().set_logger(Box::new(|log: &RequestLog| {
            eprintln!(
                "{} {} -> {} {} bytes{} in {} ms{}",
                log.method,
                log.url,
                log.status
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| "no answer".into()),
                log.bytes,
                if log.from_cache { " (from cache)" } else { "" },
                log.elapsed.as_millis(),
                log.token_env
                    .as_deref()
                    .map(|e| format!(" [token {e}]"))
                    .unwrap_or_default(),
            )
        }));
    }
    Ok(HostEntry {
        config: host.clone(),
        client,
        fingerprints,
    })
}

/// What running without a token means on `source`, for the note `collect`
/// prints.
pub fn anonymous_note(source: Source) -> &'static str {
    match source {
        Source::Github => "at GitHub's limit of 60 requests an hour",
        Source::Gitlab => "public projects only, within GitLab's unauthenticated limit",
        Source::Forgejo => "public repositories only",
    }
}
