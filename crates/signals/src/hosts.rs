//! The binary's one switch over host kinds: a configured host becomes the
//! client of its crate, and every caller sees the same `collect` and the
//! same shared HTTP client (stats, rate limits, logger) through
//! [`HostClient`].
//!
//! An enum rather than a trait object: three known hosts, each crate with
//! its own constructor, and nothing else to abstract.

use std::time::Duration;

use anyhow::Context;
use jiff::Timestamp;
use signals_core::{RepoName, Source};
use signals_http::{Collection, OwnerListing, RequestLog, ResponseCache, Token};

use crate::config::{HostConfig, TokenHeader};

/// The client of one configured host.
#[derive(Debug)]
pub enum HostClient {
    /// GitHub or GitHub Enterprise.
    Github(signals_github::Client),
    /// gitlab.com or a self-managed GitLab.
    Gitlab(signals_gitlab::Client),
    /// Forgejo or Gitea.
    Forgejo(signals_forgejo::Client),
}

impl HostClient {
    /// Collects one repository (see each host crate's `collect`).
    pub fn collect(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, signals_http::Error> {
        match self {
            HostClient::Github(c) => c.collect(repo, since, cache),
            HostClient::Gitlab(c) => c.collect(repo, since, cache),
            HostClient::Forgejo(c) => c.collect(repo, since, cache),
        }
    }

    /// Lists an owner's public repositories (see each host crate's
    /// `list_owner`).
    pub fn list_owner(
        &mut self,
        owner: &str,
        cache: &mut dyn ResponseCache,
    ) -> Result<OwnerListing, signals_http::Error> {
        match self {
            HostClient::Github(c) => c.list_owner(owner, cache),
            HostClient::Gitlab(c) => c.list_owner(owner, cache),
            HostClient::Forgejo(c) => c.list_owner(owner, cache),
        }
    }

    /// The shared HTTP client underneath.
    pub fn http(&mut self) -> &mut signals_http::Client {
        match self {
            HostClient::Github(c) => c.http(),
            HostClient::Gitlab(c) => c.http(),
            HostClient::Forgejo(c) => c.http(),
        }
    }

    /// The shared HTTP client underneath, read-only.
    pub fn http_ref(&self) -> &signals_http::Client {
        match self {
            HostClient::Github(c) => c.http_ref(),
            HostClient::Gitlab(c) => c.http_ref(),
            HostClient::Forgejo(c) => c.http_ref(),
        }
    }
}

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

/// Builds the client of `host`, reading its tokens from the environment
/// through `env`. With `verbose`, every request is logged on stderr (the
/// token's variable name, never the token).
pub fn build(
    host: &HostConfig,
    env: impl Fn(&str) -> Option<String>,
    verbose: bool,
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
    let mut client = match host.source {
        Source::Github => {
            HostClient::Github(signals_github::Client::new(config).with_context(context)?)
        }
        Source::Gitlab => {
            let auth = match host.token_header {
                TokenHeader::PrivateToken => signals_gitlab::Auth::PrivateToken,
                TokenHeader::Bearer => signals_gitlab::Auth::Bearer,
            };
            HostClient::Gitlab(signals_gitlab::Client::new(config, auth).with_context(context)?)
        }
        Source::Forgejo => {
            HostClient::Forgejo(signals_forgejo::Client::new(config).with_context(context)?)
        }
    };
    if verbose {
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
