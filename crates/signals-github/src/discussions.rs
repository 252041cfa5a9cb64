//! The discussions step of a GitHub collection (issue 26): pages through
//! the repository's discussions, newest update first, down to the
//! watermark, and keeps the open ones the news lists; see
//! docs/decisions.md, "Discussions (issue 26)".
//!
//! Cost: one GraphQL request (one point) for a repository whose newest
//! discussion is older than the watermark, which is every quiet run; one
//! more per further 100 discussions updated since. No REST request. The
//! points each answer's `rateLimit.cost` charged are counted
//! ([`Client::add_graphql_points`]), and its `remaining` and `resetAt`
//! kept, so a spent budget is waited for (or stops the run) like REST's.
//!
//! The REST repository object, which the collection read just before,
//! says `has_discussions`: where it says `false`, nothing is asked; where
//! it does not say (GitHub Enterprise Server before 3.7, which answers
//! without the field, and recorded answers from before 2022), nothing is
//! asked either and the host counts as one without discussions.
//!
//! Nothing here fails for want of discussions: no token, discussions
//! turned off, or a repository GraphQL cannot see are
//! [`Discussions::Off`] with the reason.

use jiff::Timestamp;
use signals_core::model::{Discussions, DiscussionsOff, RepoName};
use signals_http::{Client, Error, ResponseCache, decode};

use crate::HOST;
use crate::graphql::{Answer, Data, endpoint, request};

/// Reads `repo`'s discussions updated at or after `watermark`.
pub(crate) fn read(
    http: &mut Client,
    (repo, object): (&RepoName, Option<&[u8]>),
    watermark: Timestamp,
    cache: &mut dyn ResponseCache,
) -> Result<Discussions, Error> {
    match object.and_then(has_discussions) {
        Some(true) => {}
        Some(false) => return Ok(Discussions::Off(DiscussionsOff::Disabled)),
        None => return Ok(Discussions::Off(DiscussionsOff::Unsupported)),
    }
    if !http.is_authenticated() {
        return Ok(Discussions::Off(DiscussionsOff::NoToken));
    }
    let url = endpoint(http.base());
    let mut items = Vec::new();
    let mut open = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let Some(data) = ask(http, &url, repo, after.as_deref(), cache)? else {
            return Ok(Discussions::Off(DiscussionsOff::NotFound));
        };
        let Some(repository) = data.repository else {
            return Ok(Discussions::Off(DiscussionsOff::NotFound));
        };
        if !repository.has_discussions_enabled {
            return Ok(Discussions::Off(DiscussionsOff::Disabled));
        }
        if let Some(o) = repository.open {
            open = o
                .nodes
                .into_iter()
                .flatten()
                .map(|n| n.into_news())
                .collect();
        }
        let Some(page) = repository.discussions else {
            break;
        };
        let mut reached = false;
        for node in page.nodes.into_iter().flatten() {
            if node.updated_at < watermark {
                reached = true;
            } else {
                items.push(node.into_snapshot(repo));
            }
        }
        match page.page_info {
            Some(p) if p.has_next_page && !reached && p.end_cursor.is_some() => {
                after = p.end_cursor;
            }
            _ => break,
        }
    }
    // One per number: a discussion updated while paging shows up again
    // on a later page; its newest sighting (the first) wins.
    let mut seen = std::collections::HashSet::new();
    items.retain(|i| seen.insert(i.key.clone()));
    Ok(Discussions::Read { items, open })
}

/// One page: the answer's data, `None` when GraphQL does not find the
/// repository. A `RATE_LIMITED` error in a 200 answer notes the budget as
/// spent until the reset its headers give, and is asked again after the
/// wait (at most `max_retries` times); any other error fails the run.
fn ask(
    http: &mut Client,
    url: &str,
    repo: &RepoName,
    after: Option<&str>,
    cache: &mut dyn ResponseCache,
) -> Result<Option<Data>, Error> {
    let body = request(repo, after);
    let mut limited = 0;
    loop {
        let posted = http.post_json(url, &body, cache)?;
        let answer: Answer = decode(HOST, &posted.url, &posted.body)?;
        let reported = answer.data.as_ref().and_then(|d| d.rate_limit.as_ref());
        if let Some(rl) = reported {
            http.add_graphql_points(rl.cost);
            http.graphql_spent(rl.remaining, rl.reset_at);
        }
        let kind = |k: &str| answer.errors.iter().any(|e| e.kind.as_deref() == Some(k));
        if kind("RATE_LIMITED") {
            let reset = posted.limit.as_ref().and_then(|l| l.reset);
            limited += 1;
            if limited > http.config().max_retries {
                return Err(http.graphql_refused(url, reset));
            }
            http.graphql_spent(0, reset);
            continue;
        }
        if kind("NOT_FOUND") {
            return Ok(None);
        }
        let failed = answer.data.as_ref().is_none_or(|d| d.repository.is_none());
        if !answer.errors.is_empty() && failed {
            let messages: Vec<&str> = answer.errors.iter().map(|e| e.message.as_str()).collect();
            return Err(Error::Http {
                host: HOST,
                url: url.to_string(),
                status: 200,
                message: format!(
                    "GraphQL errors asking the discussions of {repo}: {}",
                    messages.join("; ")
                ),
            });
        }
        return Ok(answer.data);
    }
}

/// The REST repository object's `has_discussions`, when it has one.
fn has_discussions(object: &[u8]) -> Option<bool> {
    #[derive(serde::Deserialize)]
    struct Flag {
        has_discussions: Option<bool>,
    }
    serde_json::from_slice::<Flag>(object).ok()?.has_discussions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_object_says_whether_to_ask() {
        assert_eq!(has_discussions(br#"{"has_discussions": true}"#), Some(true));
        assert_eq!(
            has_discussions(br#"{"has_discussions": false}"#),
            Some(false)
        );
        assert_eq!(has_discussions(br#"{"id": 1}"#), None);
        assert_eq!(has_discussions(b"not json"), None);
    }
}
