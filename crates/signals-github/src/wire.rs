//! GitHub's own JSON: the pulls list's entry, which settles a merge state
//! older servers leave out of the issues list. The repository object,
//! releases, milestones and issues are GitHub's REST v3 objects, shared
//! with Forgejo in `signals_http::wire::v3`. Decoding goes through
//! `serde_path_to_error`, so a failure names the URL and the JSON path
//! that broke, and never panics.

use jiff::Timestamp;
use serde::Deserialize;
use signals_http::de::opt_timestamp;

/// An element of `GET /repos/{owner}/{repo}/pulls`: only what settles a
/// merge state the issue list did not give.
#[derive(Debug, Deserialize)]
pub(crate) struct Pull {
    pub(crate) number: u64,
    #[serde(default, deserialize_with = "opt_timestamp")]
    pub(crate) merged_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    pub(crate) updated_at: Option<Timestamp>,
}
