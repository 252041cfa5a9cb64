//! What GitHub is asked, at which URLs, and the two steps only GitHub
//! needs: counting the open pull requests out of `open_issues_count`, and
//! settling the merge state older servers leave out of the issues list.

use std::collections::HashSet;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use signals_core::model::{DiscussionHead, Discussions, ItemDetail, ItemSnapshot, RepoName};
use signals_http::wire::{Conventions, Kinds, ListedRepo, Place, v3};
use signals_http::{Client, Error, Host, ItemList, ItemStamp, ListsSeen, ResponseCache};

use crate::wire::Pull;
use crate::{HOST, PER_PAGE};

/// The API root of github.com.
pub const API_URL: &str = signals_core::Source::Github.public_api_url();

/// GitHub (github.com or a GitHub Enterprise server): its URLs, dialect
/// and wire types.
#[derive(Debug, Clone, Copy, Default)]
pub struct GitHub;

impl Host for GitHub {
    const API_URL: &'static str = API_URL;
    const PER_PAGE: u32 = PER_PAGE;
    /// The kept count of open pull requests needs the lists' digest.
    const DIGESTS_LISTS: bool = true;
    /// `open_issues_count` counts open pull requests too.
    const OPEN_ISSUES_HOLD_PULLS: bool = true;
    /// GitHub shows deleted accounts as `ghost`; its drafts always carry
    /// `draft`, so no title prefix means one.
    const CONVENTIONS: Conventions = Conventions {
        ghost: "ghost",
        wip_prefixes: &[],
    };
    const OWNER_KINDS: &'static str = "an organisation or a user";

    type Repo = v3::Repository;
    type Release = v3::Release;
    type Milestone = v3::Milestone;
    type Item = v3::Issue;
    type Listed = ListedRepo;

    /// The first page of releases: a project's hundred newest releases are
    /// enough for news.
    fn releases_url(&self, root: &str) -> String {
        format!("{root}/releases?per_page={PER_PAGE}")
    }

    fn milestones_url(&self, root: &str) -> String {
        format!("{root}/milestones?state=open&per_page={PER_PAGE}")
    }

    /// One list holds issues and pull requests, oldest update first;
    /// GitHub answers 410 Gone when issues are disabled.
    fn item_lists(&self, root: &str, since: &str) -> Vec<ItemList> {
        vec![ItemList {
            url: format!(
                "{root}/issues?state=all&sort=updated&direction=asc&since={since}&per_page={PER_PAGE}"
            ),
            kinds: Kinds::Both,
            disabled: Some(410),
        }]
    }

    /// See the `comments` module.
    fn comments(
        &self,
        http: &mut Client,
        root: &str,
        since: Timestamp,
        items: &[ItemStamp],
        sink: &mut dyn signals_http::ReplySink,
        cache: &mut dyn ResponseCache,
    ) -> Result<(), Error> {
        crate::comments::comments(http, root, since, items, sink, cache)
    }

    /// `/orgs/{owner}/repos?type=public`, then, when GitHub knows no such
    /// organisation (404), `/users/{owner}/repos?type=owner`:
    /// `max(1, ceil(repositories / 100))` requests, plus one for a user.
    /// Oldest first (`sort=created&direction=asc`), so a new repository
    /// lands on the last page, and every page of an unchanged listing
    /// answers 304 from the cache, which costs no rate limit.
    fn owner_urls(&self, base: &str, owner: &str) -> Vec<String> {
        let query = format!("sort=created&direction=asc&per_page={PER_PAGE}");
        vec![
            format!("{base}/orgs/{owner}/repos?type=public&{query}"),
            format!("{base}/users/{owner}/repos?type=owner&{query}"),
        ]
    }

    /// One conditional request (`advisories.rs`): 304 when unchanged.
    fn advisories(
        &self,
        http: &mut Client,
        root: &str,
        at: &Place<'_>,
        cache: &mut dyn ResponseCache,
    ) -> Result<Vec<ItemSnapshot>, Error> {
        crate::advisories::read(http, root, at, cache)
    }

    /// GraphQL (`discussions.rs`): no request without a token or where
    /// the repository's object does not say `has_discussions: true`, one
    /// point for a quiet repository.
    fn discussions(
        &self,
        http: &mut Client,
        repo: &RepoName,
        object: Option<&[u8]>,
        watermark: Timestamp,
        cache: &mut dyn ResponseCache,
    ) -> Result<Discussions, Error> {
        crate::discussions::read(http, repo, object, watermark, cache)
    }

    /// `stats/participation`: one conditional request
    /// (`participation.rs`).
    fn commits(
        &self,
        http: &mut Client,
        repo: &RepoName,
        cache: &mut dyn ResponseCache,
    ) -> Result<Option<signals_core::lifecycle::verdict::Commits>, Error> {
        crate::participation::ask(http, repo, cache).map(Some)
    }

    /// One GraphQL point per 100 repositories (`heads.rs`); nothing
    /// without a token.
    fn discussion_heads(
        &self,
        http: &mut Client,
        repos: &[RepoName],
        cache: &mut dyn ResponseCache,
    ) -> Result<std::collections::HashMap<String, DiscussionHead>, Error> {
        crate::heads::heads(http, repos, cache)
    }

    /// `open_issues_count` counts open pull requests too; `openIssues` is
    /// issues only on every host (docs/decisions.md), so the open pull
    /// requests are counted and taken off: one page of one entry, whose
    /// `Link` `rel="last"` is the count. Asked unconditionally, as a 304
    /// would not repeat the `Link` header, and kept with the digest of the
    /// item lists it was counted after.
    ///
    /// Opening, closing, reopening or merging a pull request changes its
    /// entry in the issues list of every window since: when this run's
    /// lists answered exactly what they answered when the count was kept,
    /// no pull request changed state since, and the kept count is used
    /// without a request. A quiet run so costs no rate limit, and a run
    /// that saw changes costs one request more. With the issues list
    /// turned off (410) pull requests are not seen there, so they are
    /// always counted. None of this is asked when the collector counts
    /// them from a store that holds the repository's whole history
    /// (docs/decisions.md, "The open pull request count from the store").
    fn open_pulls(
        &self,
        http: &mut Client,
        root: &str,
        lists: &ListsSeen,
        cache: &mut dyn ResponseCache,
    ) -> Result<u64, Error> {
        let url = format!("{root}/pulls?state=open&per_page=1");
        let open_pulls = match &lists.digest {
            None => count_open_pulls(http, &url, cache)?,
            Some(digest) => {
                let kept = http
                    .recall(&url, cache)
                    .and_then(|body| serde_json::from_slice::<OpenPulls>(&body).ok())
                    .filter(|kept| kept.lists == *digest);
                match kept {
                    Some(kept) => kept.count,
                    None => {
                        let count = count_open_pulls(http, &url, cache)?;
                        let kept = OpenPulls {
                            count,
                            lists: digest.clone(),
                        };
                        // Not kept, should it not serialize: the next run counts.
                        if let Ok(value) = serde_json::to_vec(&kept) {
                            http.keep(&url, value, cache);
                        }
                        count
                    }
                }
            }
        };
        Ok(open_pulls)
    }

    /// Settles closed pull requests whose issue-list entry lacks
    /// `pull_request.merged_at` (answers from before 2022, older GitHub
    /// Enterprise servers) from the closed pulls list, most recently
    /// updated first, whose entries always carry `merged_at`.
    ///
    /// At most `ceil(unknown / 100) + 1` pages, and none past the page that
    /// reaches back before `since` (every pull request of the window was
    /// updated since then): never a request per pull request.
    fn settle_merges(
        &self,
        http: &mut Client,
        root: &str,
        since: Timestamp,
        items: &mut [ItemSnapshot],
        unknown: &mut HashSet<String>,
        cache: &mut dyn ResponseCache,
    ) -> Result<(), Error> {
        let budget = unknown.len().div_ceil(PER_PAGE as usize) + 1;
        let mut next = Some(format!(
            "{root}/pulls?state=closed&sort=updated&direction=desc&per_page={PER_PAGE}"
        ));
        let mut pages = 0;
        while let Some(url) = next.take() {
            pages += 1;
            let fetched = http.get(&url, cache)?;
            let page: Vec<Pull> = signals_http::decode(HOST, &fetched.url, &fetched.body)?;
            let reaches_before_since = page
                .last()
                .and_then(|p| p.updated_at)
                .is_some_and(|at| at < since);
            for pull in page {
                let key = pull.number.to_string();
                if !unknown.remove(&key) {
                    continue;
                }
                if let Some(item) = items.iter_mut().find(|i| i.key == key)
                    && let ItemDetail::PullRequest {
                        merged, merged_at, ..
                    } = &mut item.detail
                {
                    *merged = pull.merged_at.is_some();
                    *merged_at = pull.merged_at.map(signals_http::de::secs);
                }
            }
            if unknown.is_empty() || reaches_before_since || pages >= budget {
                break;
            }
            next = fetched.next;
        }
        Ok(())
    }
}

/// The `page` query parameter of a URL (GitHub's `rel="last"` link).
fn page_of(url: &str) -> Option<u64> {
    let (_, query) = url.split_once('?')?;
    query
        .split('&')
        .find_map(|p| p.strip_prefix("page="))
        .and_then(|v| v.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Client, Config, Token};

    #[test]
    fn last_page_numbers() {
        assert_eq!(
            page_of("https://h/r/pulls?state=open&per_page=1&page=37"),
            Some(37)
        );
        assert_eq!(page_of("https://h/r/pulls?page=x"), None);
        assert_eq!(page_of("https://h/r/pulls"), None);
    }

    #[test]
    fn token_debug_is_redacted() {
        let t = Token::new("GITHUB_TOKEN", "ghp_supersecret");
        let config = Config {
            tokens: vec![t.clone()],
            ..Config::default()
        };
        for text in [format!("{t:?}"), format!("{config:?}")] {
            assert!(!text.contains("supersecret"), "{text}");
            assert!(text.contains("GITHUB_TOKEN"), "{text}");
        }
        let client = Client::new(config).unwrap();
        assert!(!format!("{client:?}").contains("supersecret"));
        assert!(format!("{client:?}").contains(API_URL));
    }

    #[test]
    fn a_bad_base_url_is_a_config_error() {
        let err = Client::new(Config {
            base_url: "api.github.com".into(),
            ..Config::default()
        })
        .unwrap_err();
        assert!(matches!(err, Error::Config { host: "GitHub", .. }), "{err}");
    }
}

/// The open pull requests counted after item lists whose answers had the
/// digest `lists` ([`ListsSeen::digest`]).
#[derive(Debug, Serialize, Deserialize)]
struct OpenPulls {
    count: u64,
    lists: String,
}

/// Counts the open pull requests at `url` (a page of one entry): the
/// `Link` header's last page, or the entries when there is one page.
fn count_open_pulls(
    http: &mut Client,
    url: &str,
    cache: &mut dyn ResponseCache,
) -> Result<u64, Error> {
    let fetched = http.get_uncached(url, cache)?;
    Ok(match fetched.last.as_deref().and_then(page_of) {
        Some(last) => last,
        None => {
            signals_http::decode::<Vec<serde::de::IgnoredAny>>(HOST, &fetched.url, &fetched.body)?
                .len() as u64
        }
    })
}
