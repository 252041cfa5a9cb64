//! The GitLab host of Repo Signals (gitlab.com and self-managed GitLab,
//! REST API v4): the only crate that knows GitLab's JSON and its HTTP
//! dialect.
//!
//! The crate is [`GitLab`], its `signals_http::Host`: the URLs one
//! project's collection asks for, GitLab's dialect (in `protocol`) and its
//! wire types (in `wire`). [`Client`] collects one project's context,
//! releases, active milestones with their issue counts, and the issues and
//! merge requests updated since an instant, as `signals_core` domain
//! types; the collection and the request loop (cache, retries, waits,
//! redirects, token redaction) are `signals_http`'s. How GitLab speaks:
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
//! A collection costs `3 + M + max(1, ceil(issues / 100)) + max(1,
//! ceil(merge requests / 100))` requests for `M` active milestones (the
//! project's and its groups'), and no per-item request: who merged a
//! merge request (`merge_user`, else `merged_by`) comes with its list. Comments, when
//! asked for, add one request per changed item, at most
//! [`MAX_NOTED_ITEMS`] (`comments`). It must not reach
//! into the store or the dataset.

#![warn(missing_docs)]

mod comments;
mod protocol;
mod wire;

use signals_core::model::{Milestone, RepoName};
use signals_http::wire::{Conventions, Kinds, Place, WireMilestone as _};
pub use signals_http::{
    CachedResponse, Collection, Config, Error, Logger, MemoryCache, RateLimit, RequestLog,
    RequestStats, ResponseCache, Token,
};
use signals_http::{Host, ItemList};

use crate::wire::{Issuable, IssueStatistics, Project, Release, WireMilestone};

/// The host's display name in messages.
pub const HOST: &str = "GitLab";

pub use comments::{MAX_NOTED_ITEMS, parse_notes};

/// The API root of gitlab.com.
pub const API_URL: &str = signals_core::Source::Gitlab.public_api_url();

/// The environment variable a GitLab token is usually in.
pub const TOKEN_ENV: &str = signals_core::Source::Gitlab.token_env();

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

/// A blocking GitLab REST API v4 client:
/// `Client::with_host(config, GitLab { auth })` (or `Client::new(config)`
/// for `PRIVATE-TOKEN`).
pub type Client = signals_http::HostClient<GitLab>;

/// gitlab.com or a self-managed GitLab: its URLs, dialect and wire types.
#[derive(Debug, Clone, Copy, Default)]
pub struct GitLab {
    /// How a token is sent.
    pub auth: Auth,
}

impl Host for GitLab {
    const API_URL: &'static str = API_URL;
    const PER_PAGE: u32 = PER_PAGE;
    /// GitLab moves the work of deleted users to `ghost`; its merge
    /// requests always carry `draft` or (before 14.0) `work_in_progress`.
    const CONVENTIONS: Conventions = Conventions {
        ghost: "ghost",
        wip_prefixes: &[],
    };
    const OWNER_KINDS: &'static str = "a group or a user";
    /// GitLab answers an old path of a moved project with the project
    /// under its new path (no redirect).
    const RENAME_BY_REDIRECT: bool = false;

    type Repo = Project;
    type Release = Release;
    type Milestone = WireMilestone;
    type Item = Issuable;
    type Listed = wire::ListedProject;

    fn repository_url(&self, base: &str, repo: &RepoName) -> String {
        format!("{base}/projects/{}?license=true", encode(&repo.to_string()))
    }

    /// After the first request the project's numeric id, which survives
    /// renames.
    fn root(&self, base: &str, _name: &RepoName, project: &Project) -> String {
        format!("{base}/projects/{}", project.id())
    }

    /// The 100 newest releases.
    fn releases_url(&self, root: &str) -> String {
        format!("{root}/releases?per_page={PER_PAGE}")
    }

    /// With `include_ancestors`, the milestones of the project's groups
    /// too: projects that plan with group milestones (gitlab-org's,
    /// GNOME's) would otherwise show none. GitLab's default is false.
    fn milestones_url(&self, root: &str) -> String {
        format!("{root}/milestones?state=active&include_ancestors=true&per_page={PER_PAGE}")
    }

    /// Issues and merge requests are two lists; a project with either
    /// turned off answers 403 for that list.
    fn item_lists(&self, root: &str, since: &str) -> Vec<ItemList> {
        [("issues", Kinds::Issues), ("merge_requests", Kinds::Pulls)]
            .into_iter()
            .map(|(list, kinds)| ItemList {
                url: format!(
                    "{root}/{list}?updated_after={since}&order_by=updated_at&sort=asc&per_page={PER_PAGE}&scope=all"
                ),
                kinds,
                disabled: Some(403),
            })
            .collect()
    }

    /// A group with its subgroups
    /// (`/groups/:path/projects?include_subgroups=true`, without projects
    /// only shared with the group) or, when GitLab knows no such group
    /// (404), a user (`/users/:username/projects`). Oldest first
    /// (`order_by=id&sort=asc`), so a new project lands on the last page:
    /// `max(1, ceil(projects / 100))` requests, plus one for a user; an
    /// unchanged page answers 304 (it saves the body; GitLab still counts
    /// the request).
    fn owner_urls(&self, base: &str, owner: &str) -> Vec<String> {
        let query = format!("visibility=public&order_by=id&sort=asc&per_page={PER_PAGE}");
        vec![
            format!(
                "{base}/groups/{}/projects?include_subgroups=true&with_shared=false&{query}",
                encode(owner)
            ),
            format!("{base}/users/{}/projects?{query}", encode(owner)),
        ]
    }

    /// See the `comments` module.
    fn comments(
        &self,
        http: &mut signals_http::Client,
        root: &str,
        since: jiff::Timestamp,
        items: &[signals_http::ItemStamp],
        sink: &mut dyn signals_http::ReplySink,
        cache: &mut dyn ResponseCache,
    ) -> Result<(), Error> {
        comments::comments(http, root, since, items, sink, cache)
    }

    /// GitLab's milestone object has no issue counts: per active
    /// milestone, one request for the project's `issues_statistics`
    /// filtered by the milestone's title. For a group milestone they are
    /// this project's issues in it, as the project's page shows them.
    fn milestones(
        &self,
        http: &mut signals_http::Client,
        root: &str,
        listed: Vec<WireMilestone>,
        at: &Place<'_>,
        cache: &mut dyn ResponseCache,
    ) -> Result<Vec<Milestone>, Error> {
        let mut milestones = Vec::with_capacity(listed.len());
        for m in listed {
            let url = format!(
                "{root}/issues_statistics?scope=all&milestone={}",
                encode(m.title())
            );
            let fetched = http.get(&url, cache)?;
            let stats: IssueStatistics = signals_http::decode(HOST, &fetched.url, &fetched.body)?;
            milestones.push(m.with_counts(&stats).into_milestone(at));
        }
        Ok(milestones)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_paths_are_encoded() {
        assert_eq!(encode("gnome/world/podcasts"), "gnome%2Fworld%2Fpodcasts");
        assert_eq!(encode("v 1.0"), "v%201.0");
    }
}
