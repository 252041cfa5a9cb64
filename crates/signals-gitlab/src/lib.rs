//! The GitLab host of Repo Signals (gitlab.com and self-managed GitLab,
//! REST API v4): the only crate that knows GitLab's JSON and its HTTP
//! dialect.
//!
//! [`Client::collect`] fetches one project's context, releases, active
//! milestones with their issue counts, and the issues and merge requests
//! updated since an instant, as `signals_core` domain types. The request
//! loop (cache, retries, waits, redirects, token redaction) is
//! `signals_http`'s; [`GitLab`] tells it how GitLab speaks:
//!
//! - the token goes in `PRIVATE-TOKEN` (personal, project and group access
//!   tokens) or `Authorization: Bearer` (OAuth tokens), see [`Auth`];
//! - pages are announced by `Link` (`rel="next"`), or by `X-Next-Page`
//!   where a proxy dropped the `Link` header;
//! - rate limits come as `RateLimit-Limit`, `RateLimit-Remaining`,
//!   `RateLimit-Reset` and, on a `429`, `Retry-After`;
//! - answers carry a weak `ETag` (Rails' `Rack::ETag`), and a matching
//!   `If-None-Match` is answered `304`: it saves the body, not the request,
//!   since GitLab counts every request against the limit.
//!
//! A project is addressed by its full path URL-encoded
//! (`gnome%2Fworld%2Fpodcasts`): nested groups are real. After the first
//! request the project's numeric id is used, which survives renames.
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

use crate::wire::{Issuable, IssueStatistics, Project, Release, WireMilestone, decode};

/// The host's display name in messages.
pub const HOST: &str = "GitLab";

/// The API root of gitlab.com.
pub const API_URL: &str = "https://gitlab.com/api/v4";

/// Page size asked of every list (GitLab's maximum).
pub const PER_PAGE: u32 = 100;

/// How a token is sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Auth {
    /// `PRIVATE-TOKEN: …`: personal, project and group access tokens.
    #[default]
    PrivateToken,
    /// `Authorization: Bearer …`: OAuth 2 tokens (and access tokens too).
    Bearer,
}

/// A blocking GitLab REST API v4 client.
#[derive(Debug)]
pub struct Client {
    http: signals_http::Client,
}

impl Client {
    /// Builds a client; fails when the base URL is not http(s). An empty
    /// base URL means gitlab.com ([`API_URL`]).
    pub fn new(config: Config, auth: Auth) -> Result<Client, Error> {
        Ok(Client {
            http: signals_http::Client::with_default_base(
                config,
                API_URL,
                Box::new(GitLab { auth }),
            )?,
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

    /// Lists the public projects of `owner`: a group with its subgroups
    /// (`/groups/:path/projects?include_subgroups=true`, without projects
    /// only shared with the group) or, when GitLab knows no such group
    /// (404), a user (`/users/:username/projects`). Oldest first
    /// (`order_by=id&sort=asc`), so a new project lands on the last page:
    /// `max(1, ceil(projects / 100))` requests, plus one for a user; an
    /// unchanged page answers 304 (it saves the body; GitLab still counts
    /// the request).
    pub fn list_owner(
        &mut self,
        owner: &str,
        cache: &mut dyn ResponseCache,
    ) -> Result<signals_http::OwnerListing, Error> {
        let base = self.http.base().to_string();
        let query = format!("visibility=public&order_by=id&sort=asc&per_page={PER_PAGE}");
        let urls = [
            format!(
                "{base}/groups/{}/projects?include_subgroups=true&with_shared=false&{query}",
                encode(owner)
            ),
            format!("{base}/users/{}/projects?{query}", encode(owner)),
        ];
        self.http.list_owner::<wire::ListedProject>(
            owner,
            &urls,
            "a group or a user",
            cache,
            PER_PAGE as usize,
        )
    }

    /// Collects one project: the project, its first page of releases (100
    /// newest), its active milestones and its groups' (first 100,
    /// `include_ancestors=true`) and, per active milestone, its issue
    /// counts (`issues_statistics` of the project filtered by the
    /// milestone's title, one request each: GitLab's milestone object has
    /// no counts; for a group milestone they are this project's issues in
    /// it, as the project's page shows them), then every issue and every
    /// merge request updated at or after `since` (all pages of each).
    ///
    /// That is `3 + M + max(1, ceil(issues / 100)) + max(1, ceil(merge
    /// requests / 100))` requests for `M` active milestones, and no
    /// per-item request.
    pub fn collect(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, Error> {
        self.http.reset_stats();
        let base = self.http.base().to_string();
        let url = format!("{base}/projects/{}?license=true", encode(&repo.to_string()));
        let fetched = self.http.get_repository(&url, repo, cache)?;
        let project: Project = decode(&fetched.url, &fetched.body)?;
        // GitLab answers an old path of a moved project with the project
        // under its new path (no redirect).
        let renamed_to = if project.path().eq_ignore_ascii_case(&repo.to_string()) {
            None
        } else {
            RepoName::parse(project.path()).ok()
        };
        let name = renamed_to.clone().unwrap_or_else(|| repo.clone());
        let web = project.web_url().to_string();
        let root = format!("{base}/projects/{}", project.id());
        let context = project.into_context(&name);

        let url = format!("{root}/releases?per_page={PER_PAGE}");
        let fetched = self.http.get(&url, cache)?;
        let releases: Vec<ItemSnapshot> = decode::<Vec<Release>>(&fetched.url, &fetched.body)?
            .into_iter()
            .filter_map(|r| r.into_snapshot(&name, &web))
            .collect();

        // With `include_ancestors`, the milestones of the project's groups
        // too: projects that plan with group milestones (gitlab-org's,
        // GNOME's) would otherwise show none. GitLab's default is false.
        let url =
            format!("{root}/milestones?state=active&include_ancestors=true&per_page={PER_PAGE}");
        let fetched = self.http.get(&url, cache)?;
        let mut milestones = vec![];
        for m in decode::<Vec<WireMilestone>>(&fetched.url, &fetched.body)? {
            let url = format!(
                "{root}/issues_statistics?scope=all&milestone={}",
                encode(m.title())
            );
            let fetched = self.http.get(&url, cache)?;
            let stats: IssueStatistics = decode(&fetched.url, &fetched.body)?;
            milestones.push(m.into_milestone(&stats));
        }

        let since = since.strftime("%Y-%m-%dT%H:%M:%SZ");
        let mut items: Vec<ItemSnapshot> = vec![];
        for (list, merge_request) in [("issues", false), ("merge_requests", true)] {
            let first = format!(
                "{root}/{list}?updated_after={since}&order_by=updated_at&sort=asc&per_page={PER_PAGE}&scope=all"
            );
            // A project with issues or merge requests disabled answers 403
            // for that list.
            self.http
                .get_pages(&first, cache, PER_PAGE as usize, Some(403), |fetched| {
                    let page = decode::<Vec<Issuable>>(&fetched.url, &fetched.body)?;
                    let entries = page.len();
                    for entry in page {
                        let item = entry.into_snapshot(&name, merge_request);
                        items.retain(|i| !(i.key == item.key && i.kind() == item.kind()));
                        items.push(item);
                    }
                    Ok(entries)
                })?;
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

/// Percent-encodes a path segment or query value (everything but
/// unreserved characters), so `gnome/world/podcasts` becomes
/// `gnome%2Fworld%2Fpodcasts`.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// GitLab's HTTP dialect.
struct GitLab {
    auth: Auth,
}

/// GitLab's rate-limit headers.
const RATE_LIMIT: RateLimitHeaders = RateLimitHeaders {
    limit: "ratelimit-limit",
    remaining: "ratelimit-remaining",
    reset: "ratelimit-reset",
    used: Some("ratelimit-observed"),
    resource: Some("ratelimit-name"),
};

impl Protocol for GitLab {
    fn name(&self) -> &'static str {
        HOST
    }

    fn request_headers(&self) -> &'static [(&'static str, &'static str)] {
        &[("Accept", "application/json")]
    }

    fn auth_header(&self, secret: &str) -> (&'static str, String) {
        match self.auth {
            Auth::PrivateToken => ("PRIVATE-TOKEN", secret.to_string()),
            Auth::Bearer => ("Authorization", format!("Bearer {secret}")),
        }
    }

    fn rate_limit(&self, headers: &Headers<'_>) -> Option<RateLimit> {
        RATE_LIMIT.read(headers)
    }

    /// `{"message": "404 Project Not Found"}`, `{"message": {field: [...]}}`
    /// or OAuth's `{"error": ..., "error_description": ...}`.
    fn error_message(&self, body: &[u8]) -> String {
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
            return signals_http::body_start(body);
        };
        match (&value["message"], &value["error"]) {
            (serde_json::Value::String(m), _) => m.clone(),
            (serde_json::Value::Null, serde_json::Value::String(e)) => {
                match value["error_description"].as_str() {
                    Some(d) => format!("{e}: {d}"),
                    None => e.clone(),
                }
            }
            (serde_json::Value::Null, _) => signals_http::body_start(body),
            (m, _) => m.to_string(),
        }
    }

    /// GitLab refuses with 429. With `RateLimit-Remaining: 0` the window's
    /// budget is spent until `RateLimit-Reset`; otherwise (a throttle
    /// without the headers) `Retry-After` is waited out.
    fn refusal(
        &self,
        status: u16,
        _message: &str,
        headers: &Headers<'_>,
        _retry_after: Option<u64>,
    ) -> Refusal {
        RATE_LIMIT.refusal_429(status, headers)
    }

    /// `Link` `rel="next"`, else `X-Next-Page` (empty on the last page).
    fn next_page(&self, url: &str, headers: &Headers<'_>) -> Option<String> {
        if let Some(next) = headers.get("link").and_then(signals_http::link_next) {
            return Some(next);
        }
        let page = headers.get_u64("x-next-page")?;
        Some(with_page(url, page))
    }
}

/// `url` with its `page` query parameter set to `page`.
fn with_page(url: &str, page: u64) -> String {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let mut parts: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with("page="))
        .map(str::to_string)
        .collect();
    parts.push(format!("page={page}"));
    format!("{path}?{}", parts.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_paths_are_encoded() {
        assert_eq!(encode("gnome/world/podcasts"), "gnome%2Fworld%2Fpodcasts");
        assert_eq!(encode("v 1.0"), "v%201.0");
    }

    #[test]
    fn next_page_falls_back_to_x_next_page() {
        assert_eq!(
            with_page("http://h/api/v4/projects/1/issues?per_page=100&page=2", 3),
            "http://h/api/v4/projects/1/issues?per_page=100&page=3"
        );
        assert_eq!(with_page("http://h/x", 2), "http://h/x?page=2");
    }

    #[test]
    fn error_bodies() {
        let g = GitLab {
            auth: Auth::PrivateToken,
        };
        assert_eq!(
            g.error_message(br#"{"message":"404 Project Not Found"}"#),
            "404 Project Not Found"
        );
        assert_eq!(
            g.error_message(
                br#"{"error":"invalid_token","error_description":"Token was revoked."}"#
            ),
            "invalid_token: Token was revoked."
        );
        assert_eq!(
            g.error_message(br#"{"message":{"title":["is too long"]}}"#),
            r#"{"title":["is too long"]}"#
        );
        assert_eq!(g.error_message(b"Retry later"), "Retry later");
        assert_eq!(g.auth_header("s"), ("PRIVATE-TOKEN", "s".to_string()));
        let b = GitLab { auth: Auth::Bearer };
        assert_eq!(
            b.auth_header("s"),
            ("Authorization", "Bearer s".to_string())
        );
    }
}
