//! The GitHub client: which URLs one repository's collection asks for, and
//! GitHub's HTTP dialect ([`GitHub`]: headers, `x-ratelimit-*`, primary and
//! secondary limits, error bodies). The request loop itself (cache,
//! retries, waits, redirects) is `signals_http`'s.

use jiff::Timestamp;
use signals_core::model::{Collected, ItemSnapshot, RepoName};
use signals_http::{
    Collection, Headers, OwnerListing, Protocol, RateLimit, RateLimitHeaders, Refusal,
    RequestStats, ResponseCache,
};

use std::collections::HashSet;

use signals_core::model::ItemDetail;

use crate::wire::{self, Issue, Pull, Release, Repo, WireMilestone};
use crate::{Config, Error, HOST, Logger};

/// Page size asked of every list endpoint (GitHub's maximum).
pub const PER_PAGE: u32 = 100;

/// The API root of github.com.
pub const API_URL: &str = "https://api.github.com";

/// A blocking GitHub REST client.
#[derive(Debug)]
pub struct Client {
    http: signals_http::Client,
}

impl Client {
    /// Builds a client; fails when the base URL is not http(s). An empty
    /// base URL means github.com ([`API_URL`]).
    pub fn new(config: Config) -> Result<Client, Error> {
        Ok(Client {
            http: signals_http::Client::with_default_base(config, API_URL, Box::new(GitHub))?,
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

    /// Installs a callback called after every HTTP request.
    pub fn set_logger(&mut self, logger: Logger) {
        self.http.set_logger(logger);
    }

    /// True when at least one token is configured.
    pub fn is_authenticated(&self) -> bool {
        self.http.is_authenticated()
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        self.http.config()
    }

    /// The counters of the latest [`Client::collect`] call, also when it
    /// failed: a failed collection spends requests too.
    pub fn last_stats(&self) -> RequestStats {
        self.http.stats()
    }

    /// The last rate limit seen for the token the next request would use
    /// (or for anonymous access); `None` before any answer.
    pub fn rate_limit(&self) -> Option<RateLimit> {
        self.http.rate_limit()
    }

    /// The last rate limit seen per token, with its environment variable
    /// name (`None` for anonymous).
    pub fn rate_limits(&self) -> Vec<(Option<String>, Option<RateLimit>)> {
        self.http.rate_limits()
    }

    /// Collects one repository: the repository, the first page of releases
    /// (`per_page=100`: a project's hundred newest releases are enough for
    /// news), the open milestones (first page of 100), and every issue and
    /// pull request updated at or after `since` (all pages).
    ///
    /// That is `4 + max(1, ceil(items / 100))` requests when nothing fails
    /// (the fourth counts the open pull requests, see `openIssues`),
    /// and no per-item request. When GitHub redirects the repository, the
    /// rest is asked of the new name, reported in
    /// [`Collection::renamed_to`]. Releases are listed newest first; items
    /// are in GitHub's `updated` ascending order, one per key (the last
    /// seen wins, should an item move between pages while paging).
    pub fn collect(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, Error> {
        self.http.reset_stats();
        let url = format!("{}/repos/{repo}", self.http.base());
        let fetched = self.http.get_repository(&url, repo, cache)?;
        let wire_repo: Repo = wire::decode(&fetched.url, &fetched.body)?;
        let renamed_to = if fetched.redirected
            && !wire_repo
                .full_name()
                .eq_ignore_ascii_case(&repo.to_string())
        {
            Some(
                RepoName::parse(wire_repo.full_name()).map_err(|e| Error::Decode {
                    host: HOST,
                    url: fetched.url.clone(),
                    path: "full_name".into(),
                    message: e.to_string(),
                })?,
            )
        } else {
            None
        };
        let mut context = wire_repo.into_context(renamed_to.as_ref().unwrap_or(repo));
        let name = renamed_to.clone().unwrap_or_else(|| repo.clone());
        let root = format!("{}/repos/{name}", self.http.base());

        // `open_issues_count` counts open pull requests too; `openIssues`
        // is issues only on every host (docs/decisions.md), so the open
        // pull requests are counted and taken off: one page of one entry,
        // whose `Link` `rel="last"` is the count. Asked unconditionally, as
        // a 304 would not repeat the `Link` header.
        let url = format!("{root}/pulls?state=open&per_page=1");
        let fetched = self.http.get_uncached(&url, cache)?;
        let open_pulls = match fetched.last.as_deref().and_then(page_of) {
            Some(last) => last,
            None => wire::decode::<Vec<serde::de::IgnoredAny>>(&fetched.url, &fetched.body)?.len()
                as u64,
        };
        context.open_issues = context.open_issues.saturating_sub(open_pulls);

        let url = format!("{root}/releases?per_page={PER_PAGE}");
        let fetched = self.http.get(&url, cache)?;
        let releases: Vec<ItemSnapshot> =
            wire::decode::<Vec<Release>>(&fetched.url, &fetched.body)?
                .into_iter()
                .filter_map(|r| r.into_snapshot(&name))
                .collect();

        let url = format!("{root}/milestones?state=open&per_page={PER_PAGE}");
        let fetched = self.http.get(&url, cache)?;
        let milestones = wire::decode::<Vec<WireMilestone>>(&fetched.url, &fetched.body)?
            .into_iter()
            .map(WireMilestone::into_milestone)
            .collect();

        let since_at = since;
        let since = since.strftime("%Y-%m-%dT%H:%M:%SZ");
        let first = format!(
            "{root}/issues?state=all&sort=updated&direction=asc&since={since}&per_page={PER_PAGE}"
        );
        let mut items: Vec<ItemSnapshot> = vec![];
        // Closed pull requests whose entry lacks `merged_at`, by key.
        let mut unknown: HashSet<String> = HashSet::new();
        // GitHub answers 410 Gone when issues are disabled.
        self.http
            .get_pages(&first, cache, PER_PAGE as usize, Some(410), |fetched| {
                let page = wire::decode::<Vec<Issue>>(&fetched.url, &fetched.body)?;
                let entries = page.len();
                for issue in page {
                    let merge_unknown = issue.merge_unknown();
                    let item = issue.into_snapshot(&name);
                    items.retain(|i| i.key != item.key);
                    unknown.remove(&item.key);
                    if merge_unknown {
                        unknown.insert(item.key.clone());
                    }
                    items.push(item);
                }
                Ok(entries)
            })?;
        if !unknown.is_empty() {
            self.settle_merges(&root, since_at, &mut items, unknown, cache)?;
        }
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

impl Client {
    /// Lists the public repositories of `owner`, an organisation
    /// (`/orgs/{owner}/repos?type=public`) or, when GitHub knows no such
    /// organisation (404), a user (`/users/{owner}/repos?type=owner`):
    /// `max(1, ceil(repositories / 100))` requests, plus one for a user.
    /// Oldest first (`sort=created&direction=asc`), so a new repository
    /// lands on the last page, and every page of an unchanged listing
    /// answers 304 from the cache, which costs no rate limit.
    pub fn list_owner(
        &mut self,
        owner: &str,
        cache: &mut dyn ResponseCache,
    ) -> Result<OwnerListing, Error> {
        let base = self.http.base().to_string();
        let query = format!("sort=created&direction=asc&per_page={PER_PAGE}");
        let urls = [
            format!("{base}/orgs/{owner}/repos?type=public&{query}"),
            format!("{base}/users/{owner}/repos?type=owner&{query}"),
        ];
        self.http.list_owner::<signals_http::wire::ListedRepo>(
            owner,
            &urls,
            "an organisation or a user",
            cache,
            PER_PAGE as usize,
        )
    }

    /// Settles the merge state of closed pull requests whose issue-list
    /// entry lacks `pull_request.merged_at` (answers from before 2022,
    /// older GitHub Enterprise servers) from the closed pulls list, most
    /// recently updated first, whose entries always carry `merged_at`.
    ///
    /// At most `ceil(unknown / 100) + 1` pages, and none past the page that
    /// reaches back before `since` (every pull request of the window was
    /// updated since then): never a request per pull request. A pull
    /// request still unsettled is left out of this run's items rather than
    /// reported as not merged; its next update brings it back.
    fn settle_merges(
        &mut self,
        root: &str,
        since: Timestamp,
        items: &mut Vec<ItemSnapshot>,
        mut unknown: HashSet<String>,
        cache: &mut dyn ResponseCache,
    ) -> Result<(), Error> {
        let budget = unknown.len().div_ceil(PER_PAGE as usize) + 1;
        let mut next = Some(format!(
            "{root}/pulls?state=closed&sort=updated&direction=desc&per_page={PER_PAGE}"
        ));
        let mut pages = 0;
        while let Some(url) = next.take() {
            pages += 1;
            let fetched = self.http.get(&url, cache)?;
            let page = wire::decode::<Vec<Pull>>(&fetched.url, &fetched.body)?;
            let reaches_before_since = page
                .last()
                .and_then(|p| p.updated_at)
                .is_some_and(|at| at < since);
            for pull in page {
                let key = pull.number.to_string();
                if !unknown.remove(&key) {
                    continue;
                }
                if let Some(item) = items.iter_mut().find(|i| i.key == key)
                    && let ItemDetail::PullRequest {
                        merged, merged_at, ..
                    } = &mut item.detail
                {
                    *merged = pull.merged_at.is_some();
                    *merged_at = pull.merged_at.map(signals_http::de::secs);
                }
            }
            if unknown.is_empty() || reaches_before_since || pages >= budget {
                break;
            }
            next = fetched.next;
        }
        items.retain(|i| !unknown.contains(&i.key));
        Ok(())
    }
}

/// GitHub's rate-limit headers.
const RATE_LIMIT: RateLimitHeaders = RateLimitHeaders {
    limit: "x-ratelimit-limit",
    remaining: "x-ratelimit-remaining",
    reset: "x-ratelimit-reset",
    used: Some("x-ratelimit-used"),
    resource: Some("x-ratelimit-resource"),
};

/// GitHub's HTTP dialect.
pub(crate) struct GitHub;

impl Protocol for GitHub {
    fn name(&self) -> &'static str {
        HOST
    }

    fn request_headers(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("Accept", "application/vnd.github+json"),
            ("X-GitHub-Api-Version", "2022-11-28"),
        ]
    }

    fn auth_header(&self, secret: &str) -> (&'static str, String) {
        ("Authorization", format!("Bearer {secret}"))
    }

    fn rate_limit(&self, headers: &Headers<'_>) -> Option<RateLimit> {
        RATE_LIMIT.read(headers)
    }

    fn error_message(&self, body: &[u8]) -> String {
        github_message(body)
    }

    /// GitHub refuses with 403 or 429. A secondary limit says so in its
    /// message (or only sends `Retry-After`); a primary one has
    /// `x-ratelimit-remaining: 0` or says "rate limit exceeded".
    fn refusal(
        &self,
        status: u16,
        message: &str,
        headers: &Headers<'_>,
        retry_after: Option<u64>,
    ) -> Refusal {
        if status != 403 && status != 429 {
            return Refusal::NotALimit;
        }
        let lower = message.to_ascii_lowercase();
        let secondary = lower.contains("secondary rate limit") || lower.contains("abuse");
        let primary =
            !secondary && (RATE_LIMIT.spent(headers) || lower.contains("rate limit exceeded"));
        if secondary || (retry_after.is_some() && !primary) {
            Refusal::Secondary
        } else if primary {
            Refusal::Primary {
                reset: RATE_LIMIT.reset(headers),
            }
        } else {
            Refusal::NotALimit
        }
    }
}

/// The `page` query parameter of a URL (GitHub's `rel="last"` link).
fn page_of(url: &str) -> Option<u64> {
    let (_, query) = url.split_once('?')?;
    query
        .split('&')
        .find_map(|p| p.strip_prefix("page="))
        .and_then(|v| v.parse().ok())
}

/// GitHub's `message` from an error body, else the start of the body.
fn github_message(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Message {
        message: String,
    }
    match serde_json::from_slice::<Message>(body) {
        Ok(m) => m.message,
        Err(_) => signals_http::body_start(body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Token;

    #[test]
    fn recorded_error_bodies_give_githubs_message() {
        // Recorded by octokit.rb (2013) and github3.py (2017); see
        // tests/data/SOURCES.md.
        let not_found = include_bytes!("../tests/data/notfound_404.repo.json");
        assert_eq!(github_message(not_found), "Not Found");
        let moved = include_bytes!("../tests/data/redirect_301.repo_moved.json");
        assert_eq!(github_message(moved), "Moved Permanently");
        assert_eq!(
            github_message(b"<html>Bad gateway</html>"),
            "<html>Bad gateway</html>"
        );
        assert_eq!(github_message(&[b'x'; 500]).len(), 200);
    }

    #[test]
    fn token_debug_is_redacted() {
        let t = Token::new("GITHUB_TOKEN", "ghp_supersecret");
        let config = Config {
            tokens: vec![t.clone()],
            ..Config::default()
        };
        for text in [format!("{t:?}"), format!("{config:?}")] {
            assert!(!text.contains("supersecret"), "{text}");
            assert!(text.contains("GITHUB_TOKEN"), "{text}");
        }
        let client = Client::new(config).unwrap();
        assert!(!format!("{client:?}").contains("supersecret"));
        assert!(format!("{client:?}").contains(API_URL));
    }

    #[test]
    fn a_bad_base_url_is_a_config_error() {
        let err = Client::new(Config {
            base_url: "api.github.com".into(),
            ..Config::default()
        })
        .unwrap_err();
        assert!(matches!(err, Error::Config { host: "GitHub", .. }), "{err}");
    }
}
