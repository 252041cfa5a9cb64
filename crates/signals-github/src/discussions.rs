//! The discussions step of a GitHub collection: pages through
//! the repository's discussions, newest update first, down to the
//! watermark, and keeps the open ones the news lists; see
//! docs/decisions.md, "Discussions".
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
use signals_http::{Client, Error, ResponseCache};

use crate::graphql::{endpoint, parse_discussions, request};
use crate::send;

/// Reads `repo`'s discussions updated at or after `watermark`.
pub(crate) fn read(
    http: &mut Client,
    repo: &RepoName,
    object: Option<&[u8]>,
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
        let posted = send::post(http, &url, &request(repo, after.as_deref()), cache)?;
        let Some(page) = parse_discussions(&posted.url, &posted.body, repo)? else {
            return Ok(Discussions::Off(DiscussionsOff::NotFound));
        };
        if !page.enabled {
            return Ok(Discussions::Off(DiscussionsOff::Disabled));
        }
        if let Some(o) = page.open {
            open = o;
        }
        let mut reached = false;
        for item in page.items {
            if item.updated_at < watermark {
                reached = true;
            } else {
                items.push(item);
            }
        }
        match page.next {
            Some(cursor) if !reached => after = Some(cursor),
            _ => break,
        }
    }
    // One per number: a discussion updated while paging shows up again
    // on a later page; its newest sighting (the first) wins.
    let mut seen = std::collections::HashSet::new();
    items.retain(|i| seen.insert(i.key.clone()));
    Ok(Discussions::Read { items, open })
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
