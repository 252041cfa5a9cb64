//! Comments and reviews on GitHub, never one request per item, each page
//! handed on as it arrives (a first run reads 90 days of them):
//!
//! - `issues/comments?since=` and `pulls/comments?since=`, repository-wide,
//!   from the start of `since`'s UTC day (like the items list, so a day's
//!   runs send the same URLs and an unchanged list answers 304, which costs
//!   no rate limit): `ceil(comments / 100)` pages each, at least one;
//! - the reviews of the pull requests updated at or after `since` (a
//!   review updates its pull request), through GraphQL: one query per 100
//!   such pull requests, each asking the first 100 reviews of each by
//!   alias, which GitHub prices at one point. No pull request changed: no
//!   query. Without a token (GraphQL refuses anonymous calls) no reviews
//!   are read. The same query asks each pull request's `mergedBy` and
//!   `mergedAt`: who merged it, at no added request or point.

use jiff::Timestamp;
use serde::Deserialize;
use signals_core::model::{Comment, CommentKind, ItemKind, Merge, is_bot_login};
use signals_core::run::stable_since;
use signals_http::de::{opt_timestamp, secs, text};
use signals_http::wire::comment::{CommentList, read_list};
use signals_http::{Client, Error, ItemStamp, ReplySink, ResponseCache, decode};

use crate::graphql::endpoint;
use crate::{HOST, PER_PAGE, send};

/// Pull requests asked in one GraphQL query.
pub const REVIEW_BATCH: usize = 100;

/// The comments and reviews written or edited at or after `since`, handed
/// to `sink` a page (or a query of reviews) at a time, with the merges the
/// reviews' queries tell; see the module documentation for the cost.
pub(crate) fn comments(
    http: &mut Client,
    root: &str,
    since: Timestamp,
    items: &[ItemStamp],
    sink: &mut dyn ReplySink,
    cache: &mut dyn ResponseCache,
) -> Result<(), Error> {
    let day = stable_since(since).strftime("%Y-%m-%dT%H:%M:%SZ");
    let query = format!("since={day}&per_page={PER_PAGE}");
    let lists = [
        ("issues/comments", CommentKind::Comment),
        ("pulls/comments", CommentKind::ReviewComment),
    ];
    for (path, kind) in lists {
        let list = CommentList {
            first: &format!("{root}/{path}?{query}"),
            kind,
            per_page: PER_PAGE as usize,
            since,
        };
        read_list(http, list, &mut |page| sink.comments(page), cache)?;
    }
    let changed: Vec<&str> = items
        .iter()
        .filter(|i| i.kind == ItemKind::PullRequest && i.updated_at >= since)
        .map(|i| i.key.as_str())
        .collect();
    if http.is_authenticated()
        && let Some(repo) = RepoRoot::parse(root)
    {
        let url = endpoint(repo.base);
        for batch in changed.chunks(REVIEW_BATCH) {
            let answer = reviews(http, &url, repo, batch, cache)?;
            sink.comments(answer.reviews);
            sink.merges(answer.merges);
        }
    }
    Ok(())
}

/// A repository's API root, `{base}/repos/{owner}/{name}`, in its parts.
#[derive(Debug, Clone, Copy)]
struct RepoRoot<'a> {
    base: &'a str,
    owner: &'a str,
    name: &'a str,
}

impl<'a> RepoRoot<'a> {
    fn parse(root: &'a str) -> Option<RepoRoot<'a>> {
        let (base, repo) = root.rsplit_once("/repos/")?;
        let (owner, name) = repo.split_once('/')?;
        Some(RepoRoot { base, owner, name })
    }
}

/// The query asking the first 100 reviews of each pull request of
/// `numbers` (each a decimal number, as item keys are), and who merged it.
pub fn reviews_query(numbers: &[&str]) -> String {
    let mut q = String::from(
        "query($owner:String!,$name:String!){rateLimit{cost remaining resetAt}\
         repository(owner:$owner,name:$name){",
    );
    for n in numbers
        .iter()
        .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
    {
        q.push_str(&format!(
            "p{n}:pullRequest(number:{n}){{number mergedAt mergedBy{{login __typename}} \
             reviews(first:100){{nodes{{\
             databaseId state body submittedAt createdAt updatedAt authorAssociation \
             author{{login __typename}}}}}}}}"
        ));
    }
    q.push_str("}}");
    q
}

#[derive(Debug, Deserialize)]
struct Answer {
    #[serde(default)]
    data: Option<Data>,
    #[serde(default)]
    errors: Vec<GraphError>,
}

#[derive(Debug, Deserialize)]
struct GraphError {
    #[serde(default, deserialize_with = "text")]
    message: String,
}

#[derive(Debug, Deserialize)]
struct Data {
    #[serde(default)]
    repository: Option<std::collections::HashMap<String, Option<Pull>>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Pull {
    number: u64,
    #[serde(default, deserialize_with = "opt_timestamp")]
    merged_at: Option<Timestamp>,
    #[serde(default)]
    merged_by: Option<Author>,
    reviews: Reviews,
}

#[derive(Debug, Deserialize)]
struct Reviews {
    #[serde(default)]
    nodes: Vec<Option<Review>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Review {
    #[serde(default)]
    database_id: Option<u64>,
    #[serde(default, deserialize_with = "text")]
    state: String,
    #[serde(default, deserialize_with = "text")]
    body: String,
    #[serde(default, deserialize_with = "opt_timestamp")]
    submitted_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    created_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    updated_at: Option<Timestamp>,
    #[serde(default)]
    author_association: Option<String>,
    #[serde(default)]
    author: Option<Author>,
}

#[derive(Debug, Deserialize)]
struct Author {
    #[serde(default, deserialize_with = "text")]
    login: String,
    #[serde(default, rename = "__typename", deserialize_with = "text")]
    typename: String,
}

/// What one reviews query told: the reviews, and who merged which of its
/// pull requests.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ReviewsAnswer {
    /// The published reviews (and the pending ones, told by their state).
    pub reviews: Vec<Comment>,
    /// The merged pull requests whose merger GitHub names (a deleted
    /// account is `null`: left out).
    pub merges: Vec<Merge>,
}

/// One GraphQL query: the reviews of the pull requests `numbers`.
fn reviews(
    http: &mut Client,
    url: &str,
    repo: RepoRoot<'_>,
    numbers: &[&str],
    cache: &mut dyn ResponseCache,
) -> Result<ReviewsAnswer, Error> {
    let body = serde_json::json!({
        "query": reviews_query(numbers),
        "variables": {"owner": repo.owner, "name": repo.name},
    });
    let body = serde_json::to_vec(&body).unwrap_or_default();
    // Never kept (a POST has no validators); its points are counted.
    let posted = send::post(http, url, &body, cache)?;
    parse_reviews(url, &posted.body)
}

/// The reviews and merges in a GraphQL answer; an answer with errors and
/// no data is an error naming the first.
pub fn parse_reviews(url: &str, body: &[u8]) -> Result<ReviewsAnswer, Error> {
    let answer: Answer = decode(HOST, url, body)?;
    let Some(repository) = answer.data.and_then(|d| d.repository) else {
        let message = answer
            .errors
            .first()
            .map_or("an answer without data".to_string(), |e| e.message.clone());
        return Err(Error::Http {
            host: HOST,
            url: url.to_string(),
            status: 200,
            message: format!("GraphQL: {message}"),
        });
    };
    let mut out = ReviewsAnswer::default();
    for pull in repository.into_values().flatten() {
        if let (Some(at), Some(by)) = (pull.merged_at, &pull.merged_by)
            && !by.login.is_empty()
        {
            out.merges.push(Merge {
                item_key: pull.number.to_string(),
                merged_by: by.login.clone(),
                bot: by.typename == "Bot" || is_bot_login(&by.login),
                merged_at: secs(at),
            });
        }
        for review in pull.reviews.nodes.into_iter().flatten() {
            if let Some(c) = review.into_comment(pull.number) {
                out.reviews.push(c);
            }
        }
    }
    out.merges.sort_by(|a, b| a.item_key.cmp(&b.item_key));
    Ok(out)
}

impl Review {
    fn into_comment(self, number: u64) -> Option<Comment> {
        // A review without a state cannot be told from a pending one,
        // which is no response: it is left out.
        if self.state.is_empty() {
            return None;
        }
        let created_at = secs(self.submitted_at.or(self.created_at)?);
        let (author, bot) = match self.author {
            Some(a) => {
                let bot = a.typename == "Bot" || is_bot_login(&a.login);
                (a.login, bot)
            }
            None => (String::new(), false),
        };
        Some(Comment {
            kind: CommentKind::Review,
            host_id: self.database_id?.to_string(),
            item_kind: ItemKind::PullRequest,
            item_key: number.to_string(),
            author,
            association: self.author_association.filter(|a| !a.is_empty()),
            bot,
            state: Some(self.state),
            created_at,
            updated_at: self.updated_at.map(secs).unwrap_or(created_at),
            body: self.body,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_splits_into_base_owner_and_name() {
        let root = RepoRoot::parse("http://h/repos/o/n").unwrap();
        assert_eq!((root.base, root.owner, root.name), ("http://h", "o", "n"));
    }

    #[test]
    fn reviews_decode_and_errors_fail() {
        let body =
            br#"{"data":{"rateLimit":null,"repository":{"p4":{"number":4,
            "mergedAt":"2024-01-03T00:00:00Z","mergedBy":{"login":"m2","__typename":"User"},
            "reviews":{"nodes":[
            {"databaseId":9,"state":"APPROVED","body":"","submittedAt":"2024-01-02T00:00:00Z",
             "createdAt":"2024-01-01T00:00:00Z","updatedAt":"2024-01-02T00:00:00Z",
             "authorAssociation":"MEMBER","author":{"login":"m","__typename":"User"}},
            {"databaseId":10,"state":"PENDING","body":"","submittedAt":null,
             "createdAt":"2024-01-01T00:00:00Z","author":{"login":"x[bot]","__typename":"Bot"}}]}},
            "p5":null,
            "p6":{"number":6,"mergedAt":"2024-01-03T00:00:00Z","mergedBy":null,"reviews":{"nodes":[]}},
            "p8":{"number":8,"mergedAt":null,"mergedBy":null,"reviews":{"nodes":[]}}}}}"#;
        let answer = parse_reviews("u", body).unwrap();
        // Merged by someone GitHub names; a deleted account (null) is
        // left out, and an unmerged pull request has no merger.
        assert_eq!(
            answer.merges,
            [Merge {
                item_key: "4".into(),
                merged_by: "m2".into(),
                bot: false,
                merged_at: "2024-01-03T00:00:00Z".parse().unwrap(),
            }]
        );
        let reviews = answer.reviews;
        assert_eq!(reviews.len(), 2);
        let approved = reviews.iter().find(|r| r.host_id == "9").unwrap();
        assert_eq!(approved.state.as_deref(), Some("APPROVED"));
        assert_eq!(approved.item_key, "4");
        assert!(reviews.iter().any(|r| r.bot));
        // Found by fuzzing: a review without a state is left out.
        let stateless = br#"{"data":{"repository":{"p7":{"number":7,"reviews":{"nodes":[
            {"databaseId":1002,"body":"","createdAt":"2026-11-21T08:00:00Z"}]}}}}}"#;
        assert!(parse_reviews("u", stateless).unwrap().reviews.is_empty());
        let err = parse_reviews("u", br#"{"data":null,"errors":[{"message":"boom"}]}"#);
        assert!(err.unwrap_err().to_string().contains("boom"));
        assert!(reviews_query(&["1", "x"]).contains("p1:pullRequest(number:1)"));
        assert!(reviews_query(&["1"]).contains("mergedBy{login __typename}"));
        assert!(!reviews_query(&["x"]).contains("px"));
    }
}
