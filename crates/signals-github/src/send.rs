//! Sending one GraphQL query, for the discussions and the
//! reviews alike: the POST ([`Client::post_json`], never cached, counted
//! apart from REST), the points its answer's `rateLimit` charged counted
//! ([`Client::add_graphql_points`]) and its remaining budget kept
//! ([`Client::graphql_spent`]), and a `RATE_LIMITED` error in a 200 answer
//! waited out and asked again, at most `max_retries` times. What the answer
//! holds besides is the caller's to read.

use serde::Deserialize;
use signals_http::{Client, Error, Posted, ResponseCache, decode};

use crate::HOST;
use crate::graphql::{GraphqlError, RateLimitNode};

/// What every answer carries, whatever the query asked.
#[derive(Debug, Deserialize)]
struct Envelope {
    #[serde(default)]
    data: Option<EnvelopeData>,
    #[serde(default)]
    errors: Vec<GraphqlError>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct EnvelopeData {
    #[serde(default)]
    rate_limit: Option<RateLimitNode>,
}

/// POSTs the query `body` to `url` and returns the answer that is not
/// `RATE_LIMITED`; its points are counted. Fails as [`Client::post_json`]
/// does, with [`Error::Decode`] on an answer that is no GraphQL JSON, and
/// with [`Error::RateLimited`] once `max_retries` answers were limited.
pub(crate) fn post(
    http: &mut Client,
    url: &str,
    body: &[u8],
    cache: &mut dyn ResponseCache,
) -> Result<Posted, Error> {
    let mut limited = 0;
    loop {
        let posted = http.post_json(url, body, cache)?;
        let envelope: Envelope = decode(HOST, &posted.url, &posted.body)?;
        if let Some(rl) = envelope.data.as_ref().and_then(|d| d.rate_limit.as_ref()) {
            http.add_graphql_points(rl.cost);
            http.graphql_spent(rl.remaining, rl.reset_at);
        }
        let limit_hit = envelope
            .errors
            .iter()
            .any(|e| e.kind.as_deref() == Some("RATE_LIMITED"));
        if !limit_hit {
            return Ok(posted);
        }
        let reset = posted.limit.as_ref().and_then(|l| l.reset);
        limited += 1;
        if limited > http.config().max_retries {
            return Err(http.graphql_refused(url, reset));
        }
        http.graphql_spent(0, reset);
    }
}
