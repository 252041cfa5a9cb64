//! The Forgejo host of Repo Signals (Forgejo and Gitea share API v1: the
//! same client serves codeberg.org, self-hosted Forgejo and Gitea): the only
//! crate that knows their JSON and their HTTP dialect.
//!
//! The crate is [`Forgejo`], its `signals_http::Host`: the URLs one
//! repository's collection asks for, its conventions and its dialect (in
//! `protocol`). It has no wire types of its own: the repository object,
//! releases, milestones and issues are GitHub's REST v3 objects, which
//! API v1 copies, shared in `signals_http::wire::v3`. [`Client`] collects one
//! repository's context, releases, open milestones and the issues and pull
//! requests updated since an instant, as `signals_core` domain types; the
//! collection and the request loop (cache, retries, waits, redirects,
//! token redaction) are `signals_http`'s. How these servers speak:
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
//! A collection costs `3 + max(1, ceil(items / 50))` requests when nothing
//! fails, and no per-item request: one issues list holds issues and pull
//! requests (no `type=` filter), so pull requests cost no pages of their
//! own. Comments, when asked for, cost `ceil(comments / 50)`
//! pages of the repository-wide `issues/comments?since=`, and nothing when
//! no item changed since `since` (a comment updates its item, and these
//! servers answer no 304, so an unchanged list would cost its pages). It
//! must not reach into the store or the dataset.

#![warn(missing_docs)]

mod protocol;

use signals_http::wire::{Conventions, Kinds, ListedRepo, v3};
pub use signals_http::{
    CachedResponse, Collection, Config, Error, Logger, MemoryCache, RateLimit, RequestLog,
    RequestStats, ResponseCache, Token,
};
use signals_http::{Host, ItemList};

/// The host's display name in messages.
pub const HOST: &str = "Forgejo";

/// The API root of codeberg.org.
pub const API_URL: &str = signals_core::Source::Forgejo.public_api_url();

/// The environment variable a Forgejo or Gitea token is usually in.
pub const TOKEN_ENV: &str = signals_core::Source::Forgejo.token_env();

/// Page size asked of every list (the default `MAX_RESPONSE_ITEMS`; a
/// server may allow more, none allows less than it answers).
pub const LIMIT: u32 = 50;

/// A blocking Forgejo/Gitea API v1 client: `Client::new(config)`.
pub type Client = signals_http::HostClient<Forgejo>;

/// Forgejo or Gitea: its URLs, dialect and wire types.
#[derive(Debug, Clone, Copy, Default)]
pub struct Forgejo;

impl Host for Forgejo {
    const API_URL: &'static str = API_URL;
    const PER_PAGE: u32 = LIMIT;
    /// Forgejo shows deleted users as `Ghost`; servers before Gitea 1.22
    /// and Forgejo 8 mark drafts only by the default
    /// `[repository.pull-request] WORK_IN_PROGRESS_PREFIXES`.
    const CONVENTIONS: Conventions = Conventions {
        ghost: "Ghost",
        wip_prefixes: &["WIP:", "[WIP]"],
    };
    const OWNER_KINDS: &'static str = "an organisation or a user";

    type Repo = v3::Repository;
    type Release = v3::Release;
    type Milestone = v3::Milestone;
    type Item = v3::Issue;
    type Listed = ListedRepo;

    /// The 50 newest releases.
    fn releases_url(&self, root: &str) -> String {
        format!("{root}/releases?limit={LIMIT}")
    }

    fn milestones_url(&self, root: &str) -> String {
        format!("{root}/milestones?state=open&limit={LIMIT}")
    }

    fn item_lists(&self, root: &str, since: &str) -> Vec<ItemList> {
        vec![ItemList {
            url: format!("{root}/issues?state=all&since={since}&limit={LIMIT}"),
            kinds: Kinds::Both,
            disabled: None,
        }]
    }

    /// The repository-wide comments list, from the start of `since`'s UTC
    /// day, when some item changed at or after `since`.
    fn comments(
        &self,
        http: &mut signals_http::Client,
        root: &str,
        since: jiff::Timestamp,
        items: &[signals_http::ItemStamp],
        sink: &mut dyn signals_http::ReplySink,
        cache: &mut dyn ResponseCache,
    ) -> Result<(), Error> {
        if !items.iter().any(|i| i.updated_at >= since) {
            return Ok(());
        }
        let day = signals_core::run::stable_since(since).strftime("%Y-%m-%dT%H:%M:%SZ");
        let url = format!("{root}/issues/comments?since={day}&limit={LIMIT}");
        let list = signals_http::wire::comment::CommentList {
            first: &url,
            kind: signals_core::model::CommentKind::Comment,
            per_page: LIMIT as usize,
            since,
        };
        let mut to_sink = |page| sink.comments(page);
        signals_http::wire::comment::read_list(http, list, &mut to_sink, cache)
    }

    /// `/orgs/{owner}/repos`, then, when Forgejo knows no such
    /// organisation (404), `/users/{owner}/repos`: `max(1,
    /// ceil(repositories / 50))` requests, plus one for a user. Forgejo
    /// and Gitea answer no API request with 304 (docs/hosts.md), so every
    /// listing costs its pages in full. Private repositories a token can
    /// see are left out.
    fn owner_urls(&self, base: &str, owner: &str) -> Vec<String> {
        vec![
            format!("{base}/orgs/{owner}/repos?limit={LIMIT}"),
            format!("{base}/users/{owner}/repos?limit={LIMIT}"),
        ]
    }
}
