//! Plain data of the HTTP exchanges with a host: request counters, a
//! cached answer and a token's rate limit. Defined here, once, because two
//! crates hold them (the shared HTTP layer and the store that keeps them
//! between runs); no I/O happens here.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// What one collection of one repository cost in requests to the host.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestStats {
    /// HTTP requests sent, including retries, redirect hops and 304 answers.
    pub requests: u64,
    /// Answers that were 304 Not Modified (body taken from the cache).
    pub not_modified: u64,
    /// Body bytes received over the network.
    pub bytes_received: u64,
    /// Requests repeated after a fault or a rate limit.
    pub retries: u64,
}

/// What a host client keeps of a 200 answer to revalidate and reuse it
/// (`If-None-Match` / `If-Modified-Since`, then the body on a 304). Defined
/// here, once, because two crates hold it: the shared HTTP layer and the
/// store that persists it between runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedResponse {
    /// The `ETag` validator.
    pub etag: Option<String>,
    /// The `Last-Modified` validator.
    pub last_modified: Option<String>,
    /// The next page's URL as the host's protocol read it: a 304 has no
    /// `Link` header, so pagination continues from here.
    pub link_next: Option<String>,
    /// The response body, as received.
    pub body: Vec<u8>,
}

/// The last rate limit a host reported for one token. Defined here, once,
/// for the HTTP layer that reads it and the store that keeps it for
/// `signals status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests allowed per window.
    pub limit: u64,
    /// Requests left in the window.
    pub remaining: u64,
    /// When the window resets; `None` when the host did not say (a
    /// refusal without `x-ratelimit-reset`, as GitHub sent in 2013).
    pub reset: Option<Timestamp>,
    /// Requests used in the window, when the host says (not stored).
    pub used: Option<u64>,
    /// The limit's name (GitHub's `core`), when the host says (not stored).
    pub resource: Option<String>,
}
