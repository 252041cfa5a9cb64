//! The GitHub host of Repo Signals: the only crate that knows GitHub's JSON
//! and GitHub's HTTP dialect.
//!
//! The crate is [`GitHub`], its `signals_http::Host`: the URLs one
//! repository's collection asks for and the two steps only GitHub needs
//! (in `host`), GitHub's dialect (in `protocol`: headers, `x-ratelimit-*`,
//! primary and secondary limits, error bodies) and its wire types (in
//! `wire`). [`Client`] collects one repository's
//! context, releases, open milestones and the issues and pull requests
//! updated since an instant as `signals_core` domain types; the
//! collection itself, and what GitHub asks of integrators (serial
//! requests, conditional requests through a [`ResponseCache`], rate
//! limits, retries with backoff, redirects of renamed repositories), is
//! the shared `signals_http` layer's. The releases, milestones and issues
//! are GitHub's REST v3 objects, shared with Forgejo in
//! `signals_http::wire::v3`.
//!
//! A collection costs `5 + max(1, ceil(items / 100))` requests when
//! nothing fails (the fourth reads the security advisories, `advisories`;
//! the fifth counts the open pull requests, see `openIssues`), plus at most `ceil(unknown / 100) + 1` pages of the
//! pulls list when closed pull requests lack `merged_at` (older servers),
//! and no per-item request. Comments and reviews, when asked for, cost
//! what `comments` says: two repository-wide lists (304 when unchanged)
//! and one GraphQL query per 100 changed pull requests.
//!
//! Discussions come from GraphQL (`graphql`: the query and
//! its answer; `discussions`: paging down to the watermark), counted in
//! points apart from the REST requests above.
//!
//! It must not reach into the store or the dataset: data flows out of here
//! as domain values only.

#![warn(missing_docs)]

mod advisories;
mod comments;
mod discussions;
mod graphql;
mod heads;
mod host;
mod participation;
mod protocol;
mod send;
mod wire;

pub use advisories::{advisories_url, parse_advisories};
pub use comments::{REVIEW_BATCH, ReviewsAnswer, parse_reviews, reviews_query};
pub use graphql::{
    DISCUSSIONS_PER_PAGE, DiscussionsPage, LABELS_PER_DISCUSSION, QUERY as DISCUSSIONS_QUERY,
    endpoint as graphql_endpoint, parse_discussions,
};
pub use heads::{heads_request, parse_heads};
pub use host::{API_URL, GitHub};
pub use participation::parse_participation;
pub use signals_http::{
    CachedResponse, Clock, Collection, Config, Error, Logger, MemoryCache, OpenPulls, Owed,
    RateLimit, RequestLog, RequestStats, ResponseCache, Sleeper, Token, token_fingerprint,
};

/// A blocking GitHub REST client: `Client::new(config)`.
pub type Client = signals_http::HostClient<GitHub>;

/// The host's display name in messages.
pub const HOST: &str = "GitHub";

/// Page size asked of every list endpoint (GitHub's maximum).
pub const PER_PAGE: u32 = 100;

/// The environment variable a GitHub token is usually in.
pub const TOKEN_ENV: &str = signals_core::Source::Github.token_env();
