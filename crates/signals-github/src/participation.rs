//! A repository's commits per week over the last year:
//! `GET /repos/{owner}/{repo}/stats/participation`, whose `all` holds 52
//! weeks, oldest first. GitHub computes the statistics on demand and
//! answers 202 while it does; that answer is noted
//! ([`Commits::Pending`]) and the next run asks again, never waiting in
//! this one. The request is conditional (the cached ETag), so a day whose
//! weeks did not change costs a 304 that GitHub does not count.

use serde::Deserialize;
use signals_core::lifecycle::verdict::Commits;
use signals_core::model::RepoName;
use signals_http::{Client, Error, ResponseCache};

/// The statistics' answer.
#[derive(Debug, Deserialize)]
struct Participation {
    #[serde(default)]
    all: Option<Vec<u64>>,
}

/// Reads an answer's body: the weeks, or [`Commits::None`] for what is no
/// statistics (an empty object, an empty list, a body that does not
/// parse), which a host's ordinary answer must not fail a run for.
pub fn parse_participation(body: &[u8]) -> Commits {
    match serde_json::from_slice::<Participation>(body) {
        Ok(Participation { all: Some(weeks) }) if !weeks.is_empty() => Commits::Weeks { weeks },
        _ => Commits::None,
    }
}

/// Asks GitHub for `repo`'s weeks: a 202 is [`Commits::Pending`]; an
/// empty repository (204), a missing one or statistics turned away
/// (404, 403, 422) are [`Commits::None`]; anything else fails as any
/// request does.
pub(crate) fn ask(
    http: &mut Client,
    repo: &RepoName,
    cache: &mut dyn ResponseCache,
) -> Result<Commits, Error> {
    let url = format!("{}/repos/{repo}/stats/participation", http.base());
    match http.get(&url, cache) {
        Ok(answer) => Ok(parse_participation(&answer.body)),
        Err(Error::Http { status: 202, .. }) => Ok(Commits::Pending),
        Err(Error::Http {
            status: 204 | 403 | 404 | 422,
            ..
        })
        | Err(Error::NotFound { .. }) => Ok(Commits::None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weeks_are_read_and_what_is_no_statistics_is_none() {
        let body = br#"{"all":[1,2,3],"owner":[0,1,0]}"#;
        assert_eq!(
            parse_participation(body),
            Commits::Weeks {
                weeks: vec![1, 2, 3]
            }
        );
        assert_eq!(parse_participation(b"{}"), Commits::None);
        assert_eq!(parse_participation(br#"{"all":[]}"#), Commits::None);
        assert_eq!(parse_participation(b""), Commits::None);
        assert_eq!(parse_participation(br#"{"all":[-1]}"#), Commits::None);
    }
}
