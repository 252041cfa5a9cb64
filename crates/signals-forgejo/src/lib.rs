//! The Forgejo host of Repo Signals (Forgejo and Gitea share API v1: the
//! same client serves codeberg.org, self-hosted Forgejo and Gitea): the only
//! crate that knows their JSON and their HTTP dialect.
//!
//! [`Client::collect`] fetches one repository's context, releases, open
//! milestones and the issues and pull requests updated since an instant,
//! as `signals_core` domain types. The request loop (cache, retries, waits,
//! redirects, token redaction) is `signals_http`'s; [`Forgejo`] tells it
//! how these servers speak:
//!
//! - the token goes in `Authorization: token …`;
//! - pages are announced by `Link` (`rel="next"`) and counted by
//!   `X-Total-Count`; a page holds at most 50 entries on a default server
//!   (`[api] MAX_RESPONSE_ITEMS`);
//! - there is no API rate limit of its own: a `429` (from Forgejo's or a
//!   proxy's limiter) is waited out by `Retry-After`, and `X-RateLimit-*`
//!   headers are read when a proxy sends them;
//! - API JSON carries no `ETag` or `Last-Modified` (the server only
//!   validates raw files, attachments and archives), so no answer is ever
//!   a 304: the client sends a conditional request only when it holds a
//!   validator, which on these servers it never does.
//!
//! It must not reach into the store or the dataset.

#![warn(missing_docs)]

mod wire;

use jiff::Timestamp;
use signals_core::model::{Collected, ItemSnapshot, RepoName};
pub use signals_http::{
    CachedResponse, Collection, Config, Error, Logger, MemoryCache, RateLimit, RequestLog,
    RequestStats, ResponseCache, Token,
};
use signals_http::{Headers, Protocol, RateLimitHeaders, Refusal};

use crate::wire::{Issue, Release, Repo, WireMilestone, decode};

/// The host's display name in messages.
pub const HOST: &str = "Forgejo";

/// The API root of codeberg.org.
pub const API_URL: &str = "https://codeberg.org/api/v1";

/// Page size asked of every list (the default `MAX_RESPONSE_ITEMS`; a
/// server may allow more, none allows less than it answers).
pub const LIMIT: u32 = 50;

/// A blocking Forgejo/Gitea API v1 client.
#[derive(Debug)]
pub struct Client {
    http: signals_http::Client,
}

impl Client {
    /// Builds a client; fails when the base URL is not http(s). An empty
    /// base URL means codeberg.org ([`API_URL`]).
    pub fn new(config: Config) -> Result<Client, Error> {
        Ok(Client {
            http: signals_http::Client::with_default_base(config, API_URL, Box::new(Forgejo))?,
        })
    }

    /// The shared HTTP client (logger, stats, rate limits).
    pub fn http(&mut self) -> &mut signals_http::Client {
        &mut self.http
    }

    /// The shared HTTP client, read-only.
    pub fn http_ref(&self) -> &signals_http::Client {
        &self.http
    }

    /// Lists the repositories of `owner`, an organisation
    /// (`/orgs/{owner}/repos`) or, when Forgejo knows no such organisation
    /// (404), a user (`/users/{owner}/repos`): `max(1, ceil(repositories /
    /// 50))` requests, plus one for a user. Forgejo and Gitea answer no API
    /// request with 304 (docs/hosts.md), so every listing costs its pages
    /// in full. Private repositories a token can see are left out.
    pub fn list_owner(
        &mut self,
        owner: &str,
        cache: &mut dyn ResponseCache,
    ) -> Result<signals_http::OwnerListing, Error> {
        let base = self.http.base().to_string();
        let urls = [
            format!("{base}/orgs/{owner}/repos?limit={LIMIT}"),
            format!("{base}/users/{owner}/repos?limit={LIMIT}"),
        ];
        self.http.list_owner::<signals_http::wire::ListedRepo>(
            owner,
            &urls,
            "an organisation or a user",
            cache,
            LIMIT as usize,
        )
    }

    /// Collects one repository: the repository, the first page of releases
    /// (50 newest), the open milestones (first 50), and every issue and
    /// pull request updated at or after `since`: one list holds both (no
    /// `type=` filter), so that pull requests cost no pages of their own.
    ///
    /// That is `3 + max(1, ceil(items / 50))` requests when nothing fails,
    /// and no per-item request. A redirected (renamed) repository is
    /// reported in [`Collection::renamed_to`] and asked for under its new
    /// name.
    pub fn collect(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, Error> {
        self.http.reset_stats();
        let base = self.http.base().to_string();
        let url = format!("{base}/repos/{repo}");
        let fetched = self.http.get_repository(&url, repo, cache)?;
        let wire_repo: Repo = decode(&fetched.url, &fetched.body)?;
        let renamed_to = if fetched.redirected
            && !wire_repo
                .full_name()
                .eq_ignore_ascii_case(&repo.to_string())
        {
            RepoName::parse(wire_repo.full_name()).ok()
        } else {
            None
        };
        let name = renamed_to.clone().unwrap_or_else(|| repo.clone());
        let web = wire_repo.html_url().to_string();
        let context = wire_repo.into_context(&name);
        let root = format!("{base}/repos/{name}");

        let url = format!("{root}/releases?limit={LIMIT}");
        let fetched = self.http.get(&url, cache)?;
        let releases: Vec<ItemSnapshot> = decode::<Vec<Release>>(&fetched.url, &fetched.body)?
            .into_iter()
            .filter_map(|r| r.into_snapshot(&name))
            .collect();

        let url = format!("{root}/milestones?state=open&limit={LIMIT}");
        let fetched = self.http.get(&url, cache)?;
        let milestones = decode::<Vec<WireMilestone>>(&fetched.url, &fetched.body)?
            .into_iter()
            .map(|m| m.into_milestone(&web))
            .collect();

        let since = since.strftime("%Y-%m-%dT%H:%M:%SZ");
        let first = format!("{root}/issues?state=all&since={since}&limit={LIMIT}");
        let mut items: Vec<ItemSnapshot> = vec![];
        self.http
            .get_pages(&first, cache, LIMIT as usize, None, |fetched| {
                let page = decode::<Vec<Issue>>(&fetched.url, &fetched.body)?;
                let entries = page.len();
                for issue in page {
                    let item = issue.into_snapshot(&name);
                    items.retain(|i| i.key != item.key);
                    items.push(item);
                }
                Ok(entries)
            })?;
        Ok(Collection {
            collected: Collected {
                context,
                releases,
                milestones,
                items,
            },
            renamed_to,
            stats: self.http.stats(),
        })
    }
}

/// Forgejo has no rate-limit headers of its own; a limiting proxy in
/// front of it may send the common `X-RateLimit-*` trio (only those
/// three are read).
const RATE_LIMIT: RateLimitHeaders = RateLimitHeaders {
    limit: "x-ratelimit-limit",
    remaining: "x-ratelimit-remaining",
    reset: "x-ratelimit-reset",
    used: None,
    resource: None,
};

/// Forgejo's and Gitea's HTTP dialect.
struct Forgejo;

impl Protocol for Forgejo {
    fn name(&self) -> &'static str {
        HOST
    }

    fn request_headers(&self) -> &'static [(&'static str, &'static str)] {
        &[("Accept", "application/json")]
    }

    fn auth_header(&self, secret: &str) -> (&'static str, String) {
        ("Authorization", format!("token {secret}"))
    }

    fn rate_limit(&self, headers: &Headers<'_>) -> Option<RateLimit> {
        RATE_LIMIT.read(headers)
    }

    /// `{"message": "...", "url": "..."}` (`APIError`), else the start of
    /// the body.
    fn error_message(&self, body: &[u8]) -> String {
        #[derive(serde::Deserialize)]
        struct Message {
            message: String,
        }
        match serde_json::from_slice::<Message>(body) {
            Ok(m) if !m.message.is_empty() => m.message,
            _ => signals_http::body_start(body),
        }
    }

    fn refusal(
        &self,
        status: u16,
        _message: &str,
        headers: &Headers<'_>,
        _retry_after: Option<u64>,
    ) -> Refusal {
        RATE_LIMIT.refusal_429(status, headers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_and_default_base() {
        assert_eq!(
            Forgejo.error_message(
                br#"{"errors":[],"message":"The target couldn't be found.","url":"https://codeberg.org/api/swagger"}"#
            ),
            "The target couldn't be found."
        );
        assert_eq!(
            Forgejo.error_message(b"<html>502</html>"),
            "<html>502</html>"
        );
        let c = Client::new(Config::default()).unwrap();
        assert_eq!(c.http_ref().base(), API_URL);
        assert_eq!(Forgejo.auth_header("s").1, "token s");
    }
}
