//! One request's answer, as the host would give it: a queued [`Fault`]
//! first, then the token's budget, then the host's route with its
//! validators (ETag, 304), and every answer's rate-limit headers in the
//! host's names. The connection and the threads are `lib.rs`'s; this
//! module only decides what to send.

use jiff::Timestamp;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::http::Response;
use crate::routes;
use crate::{Budget, Fault, Flavor, Request, State, hosts, owners, reason};

/// Builds the full response for one request: faults, budget, routing,
/// ETag/304 and the common headers.
pub(crate) fn answer(
    state: &mut State,
    base: &str,
    req: &Request,
    path: &str,
    query: &str,
    fault: Option<&Fault>,
) -> Response {
    let now = Timestamp::now().as_second();
    let flavor = state.scenario.flavor;
    let key = req.token_key();
    let limit = state.limit;
    let budget = open_window(state, &key, now);
    let anonymous = key == "anonymous";
    let reset = match fault {
        Some(Fault::PrimaryLimit { reset_in_secs }) => now + *reset_in_secs as i64,
        _ => budget.reset,
    };
    let graphql = req.method == "POST" && path == "/graphql" && flavor == Flavor::Github;
    let mut response = match fault_answer(fault, flavor, anonymous) {
        Some(r) => r,
        None if graphql => return crate::graphql::answer(state, req, fault),
        None if req.method != "GET" => Response::json(404, &json!({ "message": "Not Found" })),
        None if budget.used >= limit => primary_limit(flavor, anonymous, reset - now),
        None => serve(state, base, req, path, query, &key),
    };
    if state.drop_link {
        response
            .headers
            .retain(|(k, _)| !k.eq_ignore_ascii_case("link"));
    }
    if !response.body.is_empty() {
        response.headers.push((
            "Content-Type".into(),
            "application/json; charset=utf-8".into(),
        ));
    }
    let budget = state.budgets.get(&key).copied().unwrap_or(Budget {
        used: 0,
        reset: now + 3600,
    });
    let headers = rate_limit_headers(flavor, fault, limit, budget.used, reset);
    response.headers.extend(headers);
    response
}

/// The budget of token `key` in its current window, a fresh one when the
/// last has ended.
fn open_window(state: &mut State, key: &str, now: i64) -> Budget {
    let window = state.window;
    let budget = state.budgets.entry(key.to_string()).or_insert(Budget {
        used: 0,
        reset: now + window,
    });
    if budget.reset <= now {
        *budget = Budget {
            used: 0,
            reset: now + window,
        };
    }
    *budget
}

/// The answer a queued fault makes, instead of the host's; `None` for a
/// fault that changes only how the answer is sent (delay, truncation,
/// reset).
fn fault_answer(fault: Option<&Fault>, flavor: Flavor, anonymous: bool) -> Option<Response> {
    let fault = fault?;
    Some(match fault {
        Fault::Status(code) => Response::json(
            *code,
            &json!({ "message": reason(*code), "status": code.to_string() }),
        ),
        Fault::PrimaryLimit { reset_in_secs } => {
            primary_limit(flavor, anonymous, *reset_in_secs as i64)
        }
        Fault::PrimaryLimitWithoutReset if flavor == Flavor::Github => Response::json(
            403,
            &json!({ "message": "API Rate Limit Exceeded for 127.0.0.1" }),
        ),
        Fault::PrimaryLimitWithoutReset => throttled(flavor, 429),
        Fault::Secondary {
            status,
            retry_after,
        } => {
            let mut r = if flavor == Flavor::Github {
                secondary_limit(*status)
            } else {
                throttled(flavor, *status)
            };
            if let Some(secs) = retry_after {
                r.headers.push(("Retry-After".into(), secs.to_string()));
            }
            r
        }
        Fault::Malformed => Response {
            status: 200,
            headers: vec![],
            body: br#"{"message": "this is not valid JSON", "items": [1, 2,"#.to_vec(),
        },
        Fault::Delay(_) | Fault::Truncate | Fault::Reset => return None,
        Fault::GraphqlRateLimited { .. } | Fault::GraphqlNotFound => return None,
    })
}

/// The host's answer to a GET the budget allows: its route, with an ETag
/// and a 304 where the host does that (not Forgejo, whose API JSON carries
/// no validators; see signals-forgejo). Every answer but a 304 spends one
/// request of token `key`'s budget.
fn serve(
    state: &mut State,
    base: &str,
    req: &Request,
    path: &str,
    query: &str,
    key: &str,
) -> Response {
    let flavor = state.scenario.flavor;
    let base = state.link_base.as_deref().unwrap_or(base);
    let mut r = match flavor {
        Flavor::Github => owners::github(&state.scenario, base, path, query)
            .unwrap_or_else(|| routes::route(&state.scenario, &mut state.lists, base, path, query)),
        Flavor::Gitlab => owners::gitlab(&state.scenario, base, path, query)
            .unwrap_or_else(|| hosts::gitlab(&state.scenario, base, path, query)),
        Flavor::Forgejo => owners::forgejo(&state.scenario, base, path, query)
            .unwrap_or_else(|| hosts::forgejo(&state.scenario, base, path, query)),
    };
    let not_modified = r.status == 200 && flavor != Flavor::Forgejo && revalidate(&mut r, req);
    if !not_modified && let Some(budget) = state.budgets.get_mut(key) {
        budget.used += 1;
    }
    r
}

/// Gives a 200 its ETag, and makes it a 304 when the request's
/// `If-None-Match` names it. True for a 304.
fn revalidate(r: &mut Response, req: &Request) -> bool {
    let etag = format!("W/\"{}\"", hex(&Sha256::digest(&r.body)[..16]));
    let matches = req
        .headers
        .iter()
        .filter(|(k, _)| k == "if-none-match")
        .flat_map(|(_, v)| v.split(','))
        .any(|t| weak_eq(t.trim(), &etag) || t.trim() == "*");
    if matches {
        r.status = 304;
        r.body.clear();
    }
    r.headers.push(("ETag".into(), etag));
    matches
}

/// The rate-limit headers of every answer, in the host's names (none on
/// Forgejo); after a refusal without a reset, only the limit and what
/// remains, as GitHub sent in 2013.
fn rate_limit_headers(
    flavor: Flavor,
    fault: Option<&Fault>,
    limit: u64,
    used: u64,
    reset: i64,
) -> impl Iterator<Item = (String, String)> {
    let no_reset = matches!(fault, Some(Fault::PrimaryLimitWithoutReset));
    let spent = matches!(fault, Some(Fault::PrimaryLimit { .. })) || no_reset || used >= limit;
    let remaining = if spent { 0 } else { limit - used };
    let headers = match flavor {
        Flavor::Github => vec![
            ("x-ratelimit-limit", limit.to_string()),
            ("x-ratelimit-remaining", remaining.to_string()),
            ("x-ratelimit-reset", reset.to_string()),
            ("x-ratelimit-used", used.min(limit).to_string()),
            ("x-ratelimit-resource", "core".to_string()),
            ("x-github-api-version-selected", "2022-11-28".to_string()),
        ],
        Flavor::Gitlab => vec![
            ("RateLimit-Limit", limit.to_string()),
            ("RateLimit-Remaining", remaining.to_string()),
            ("RateLimit-Reset", reset.to_string()),
            ("RateLimit-Observed", used.min(limit).to_string()),
            ("RateLimit-Name", "throttle_authenticated_api".to_string()),
        ],
        Flavor::Forgejo => vec![],
    };
    headers
        .into_iter()
        .filter(move |(k, _)| {
            // The 2013 shape: only the limit and what remains.
            !no_reset
                || ["x-ratelimit-limit", "x-ratelimit-remaining"]
                    .iter()
                    .chain(&["RateLimit-Limit", "RateLimit-Remaining"])
                    .any(|h| h.eq_ignore_ascii_case(k))
        })
        .map(|(k, v)| (k.to_string(), v))
}

/// GitHub's secondary rate limit answer.
fn secondary_limit(status: u16) -> Response {
    Response::json(
        status,
        &json!({
            "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.",
            "documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
        }),
    )
}

/// A throttle that is not the budget running out: GitLab's and a Forgejo
/// proxy's 429.
fn throttled(flavor: Flavor, status: u16) -> Response {
    match flavor {
        Flavor::Gitlab => Response {
            status,
            headers: vec![],
            body: b"Retry later\n".to_vec(),
        },
        _ => Response::json(status, &json!({ "message": "Too Many Requests" })),
    }
}

/// The answer once the budget is spent: GitHub's 403, GitLab's 429 with
/// `Retry-After` (its `RateLimit-Remaining: 0` is added by the caller), a
/// Forgejo proxy's 429 with `Retry-After`.
fn primary_limit(flavor: Flavor, anonymous: bool, retry_after: i64) -> Response {
    if flavor != Flavor::Github {
        let mut r = throttled(flavor, 429);
        r.headers
            .push(("Retry-After".into(), retry_after.max(0).to_string()));
        return r;
    }
    let message = if anonymous {
        "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)"
    } else {
        "API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000."
    };
    Response::json(
        403,
        &json!({
            "message": message,
            "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
        }),
    )
}

/// Weak comparison of entity tags (RFC 9110 §8.8.3.2): `W/` is ignored.
fn weak_eq(a: &str, b: &str) -> bool {
    a.trim_start_matches("W/") == b.trim_start_matches("W/")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
