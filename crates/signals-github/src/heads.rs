//! The round's heads query: one GraphQL request asks up to
//! `HEADS_PER_QUERY` (100) repositories at once whether their discussions are
//! on and when the most recently updated one changed, by alias
//! (`r0: repository(owner: $o0, name: $n0) { ... }`). GitHub charges a
//! connection of `first: 1` per repository as one request, so 100
//! repositories cost one point, where asking each repository's first page
//! would cost one point each. A repository whose newest discussion is
//! older than its run's watermark is then not asked at all
//! (`Discussions::Unchanged`).

use std::collections::HashMap;

use jiff::Timestamp;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use signals_core::{DiscussionHead, RepoName};
use signals_http::{Client, Error, HEADS_PER_QUERY, ResponseCache, decode};

use crate::graphql::endpoint;
use crate::{HOST, send};

/// The heads of `repos`' discussions, by lower-cased `owner/name`; a
/// repository GraphQL did not find is left out (its run asks as before).
/// Nothing is asked without a token, which GraphQL refuses.
pub(crate) fn heads(
    http: &mut Client,
    repos: &[RepoName],
    cache: &mut dyn ResponseCache,
) -> Result<HashMap<String, DiscussionHead>, Error> {
    let mut out = HashMap::new();
    if !http.is_authenticated() {
        return Ok(out);
    }
    let url = endpoint(http.base());
    for batch in repos.chunks(HEADS_PER_QUERY) {
        let posted = send::post(http, &url, &heads_request(batch), cache)?;
        out.extend(parse_heads(&posted.url, &posted.body, batch)?);
    }
    Ok(out)
}

/// The body of one heads query for `repos`, by name `DiscussionHeads`,
/// owners and names as variables `o<i>` and `n<i>`.
pub fn heads_request(repos: &[RepoName]) -> Vec<u8> {
    let mut params = Vec::new();
    let mut fields = String::new();
    let mut variables = Map::new();
    for (i, repo) in repos.iter().enumerate() {
        params.push(format!("$o{i}: String!, $n{i}: String!"));
        fields.push_str(&format!(
            "r{i}: repository(owner: $o{i}, name: $n{i}) {{ hasDiscussionsEnabled \
             discussions(first: 1, orderBy: {{field: UPDATED_AT, direction: DESC}}) \
             {{ nodes {{ updatedAt }} }} }} "
        ));
        variables.insert(format!("o{i}"), json!(repo.owner()));
        variables.insert(format!("n{i}"), json!(repo.name()));
    }
    let query = format!(
        "query DiscussionHeads({}) {{ rateLimit {{ cost remaining resetAt }} {fields}}}",
        params.join(", ")
    );
    let body = json!({
        "query": query,
        "operationName": "DiscussionHeads",
        "variables": variables,
    });
    serde_json::to_vec(&body).unwrap_or_default()
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeadNode {
    has_discussions_enabled: bool,
    #[serde(default)]
    discussions: Option<Newest>,
}

#[derive(Debug, Deserialize)]
struct Newest {
    #[serde(default)]
    nodes: Vec<Option<Updated>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Updated {
    updated_at: Timestamp,
}

#[derive(Debug, Deserialize)]
struct HeadsAnswer {
    #[serde(default)]
    data: Option<Map<String, Value>>,
}

/// Reads one heads answer (a POST's `body` from `url`) for `repos`, asked
/// in that order: the heads GraphQL gave, by lower-cased `owner/name`. An
/// alias that is null (a repository not found: GitHub answers it with a
/// `NOT_FOUND` error beside the others' data) or malformed is left out.
/// Pure: the fuzz target `graphql_answers` feeds it.
pub fn parse_heads(
    url: &str,
    body: &[u8],
    repos: &[RepoName],
) -> Result<HashMap<String, DiscussionHead>, Error> {
    let answer: HeadsAnswer = decode(HOST, url, body)?;
    let mut data = answer.data.unwrap_or_default();
    let mut out = HashMap::new();
    for (i, repo) in repos.iter().enumerate() {
        let Some(value) = data.remove(&format!("r{i}")) else {
            continue;
        };
        let Ok(node) = serde_json::from_value::<Option<HeadNode>>(value) else {
            continue;
        };
        let Some(node) = node else { continue };
        let head = if node.has_discussions_enabled {
            let newest = node
                .discussions
                .and_then(|d| d.nodes.into_iter().flatten().next())
                .map(|n| n.updated_at);
            DiscussionHead::Enabled(newest)
        } else {
            DiscussionHead::Disabled
        };
        out.insert(repo.to_string().to_lowercase(), head);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repos() -> Vec<RepoName> {
        ["o/a", "O/B", "o/c", "o/d"]
            .iter()
            .map(|n| RepoName::parse(n).unwrap())
            .collect()
    }

    #[test]
    fn one_query_asks_every_repository_by_alias() {
        let body: Value = serde_json::from_slice(&heads_request(&repos())).unwrap();
        let query = body["query"].as_str().unwrap();
        assert!(query.starts_with("query DiscussionHeads($o0: String!, $n0: String!"));
        assert!(query.contains("r3: repository(owner: $o3, name: $n3)"));
        assert_eq!(body["variables"]["o1"], "O");
        assert_eq!(body["variables"]["n1"], "B");
        assert_eq!(body["operationName"], "DiscussionHeads");
    }

    #[test]
    fn heads_are_read_by_alias_and_the_missing_left_out() {
        let body = br#"{"data":{"rateLimit":{"cost":1,"remaining":4999,"resetAt":null},
            "r0":{"hasDiscussionsEnabled":true,"discussions":{"nodes":[{"updatedAt":"2026-01-01T00:00:00Z"}]}},
            "r1":{"hasDiscussionsEnabled":true,"discussions":{"nodes":[]}},
            "r2":null,
            "r3":{"hasDiscussionsEnabled":false,"discussions":{"nodes":[]}}},
            "errors":[{"type":"NOT_FOUND","path":["r2"],"message":"Could not resolve"}]}"#;
        let heads = parse_heads("u", body, &repos()).unwrap();
        assert_eq!(heads.len(), 3);
        assert_eq!(
            heads["o/a"],
            DiscussionHead::Enabled(Some("2026-01-01T00:00:00Z".parse().unwrap()))
        );
        assert_eq!(heads["o/b"], DiscussionHead::Enabled(None));
        assert_eq!(heads["o/d"], DiscussionHead::Disabled);
        assert!(parse_heads("u", b"not json", &repos()).is_err());
        assert!(
            parse_heads("u", br#"{"data":null}"#, &repos())
                .unwrap()
                .is_empty()
        );
    }
}
