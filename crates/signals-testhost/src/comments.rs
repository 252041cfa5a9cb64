//! Comments and reviews on the fake host: GitHub's and
//! Forgejo's repository-wide `issues/comments?since=`, GitHub's
//! `pulls/comments?since=`, GitHub's GraphQL reviews of pull requests by
//! alias (`pN: pullRequest(number: N)`), and GitLab's notes of one issue
//! or merge request; and [`with_comments`], which gives a scenario's items
//! comments and reviews for benchmarks.
//!
//! The GraphQL endpoint reads only what `signals-github` asks: the
//! variables `owner` and `name`, and each `pN:pullRequest(number:N)` of the
//! query; it is no GraphQL parser.

use jiff::{SignedDuration, Timestamp};
use serde_json::{Map, Value, json};

use crate::http::{Response, paginate, param, parse_query};
use crate::scenario::{RepoData, Scenario, fmt_ts};

fn ts(v: &Value, field: &str) -> Option<Timestamp> {
    v.get(field)
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
}

/// A comments list filtered by `since` (on `updated_at`) and in the order
/// of creation (ascending id), one page of it.
pub(crate) fn list(
    all: &[Value],
    base: &str,
    path: &str,
    query: &str,
    per_page: usize,
    page: usize,
) -> Response {
    let params = parse_query(query);
    let since: Option<Timestamp> = match param(&params, "since") {
        None => None,
        Some(s) => match s.parse() {
            Ok(t) => Some(t),
            Err(_) => {
                return Response::json(422, &json!({ "message": "since: invalid time" }));
            }
        },
    };
    let mut out: Vec<&Value> = all
        .iter()
        .filter(|c| since.is_none_or(|s| ts(c, "updated_at").is_some_and(|u| u >= s)))
        .collect();
    out.sort_by_key(|c| c.get("id").and_then(Value::as_u64));
    paginate(base, path, &params, &out, per_page, page)
}

/// The numbers of the pull requests a reviews query asks by alias
/// (`pN:pullRequest(number:N)`); `None` when `query` asks no reviews.
pub(crate) fn reviews_asked(query: &str) -> Option<Vec<String>> {
    let numbers: Vec<String> = query
        .split("pullRequest(number:")
        .skip(1)
        .map(|part| part.chars().take_while(char::is_ascii_digit).collect())
        .collect();
    (!numbers.is_empty() && query.contains("reviews(")).then_some(numbers)
}

/// The `repository` of GitHub's answer to a reviews query for `numbers`:
/// each alias `pN` holds the pull request's first 100 reviews, when it
/// was merged (`mergedAt`) and who merged it (`mergedBy`, from its pulls
/// object's `merged_by`: `null` where none says), or null when `N` is no
/// pull request of `data`.
pub(crate) fn reviews_of(data: &RepoData, numbers: &[String]) -> Value {
    let mut repository = Map::new();
    for number in numbers {
        let wanted: Option<u64> = number.parse().ok();
        let entry = data.issues.iter().find(|i| {
            wanted.is_some()
                && i.get("number").and_then(Value::as_u64) == wanted
                && i.get("pull_request").is_some()
        });
        let value = if let Some(entry) = entry {
            let nodes = data.reviews.get(number).cloned().unwrap_or_default();
            let first: Vec<Value> = nodes.into_iter().take(100).collect();
            let pull = data
                .pulls
                .iter()
                .find(|p| p.get("number").and_then(Value::as_u64) == wanted);
            let merged_at = match pull {
                Some(p) => p["merged_at"].clone(),
                None => entry["pull_request"]["merged_at"].clone(),
            };
            let merged_by = match pull.map(|p| &p["merged_by"]) {
                Some(by) if by.is_object() && !merged_at.is_null() => json!({
                    "login": by["login"].clone(),
                    "__typename": if by["type"] == "Bot" { "Bot" } else { "User" },
                }),
                _ => Value::Null,
            };
            json!({
                "number": wanted.unwrap_or(0),
                "mergedAt": merged_at,
                "mergedBy": merged_by,
                "reviews": { "nodes": first },
            })
        } else {
            Value::Null
        };
        repository.insert(format!("p{number}"), value);
    }
    Value::Object(repository)
}

/// GitLab's notes of one issue or merge request (`list` is `issues` or
/// `merge_requests`), oldest first.
pub(crate) fn gitlab_notes(
    notes: &std::collections::BTreeMap<String, Vec<Value>>,
    list: &str,
    iid: &str,
) -> Vec<Value> {
    let mut out = notes
        .get(&format!("{list}/{iid}"))
        .cloned()
        .unwrap_or_default();
    out.sort_by_key(|n| (ts(n, "created_at"), n.get("id").and_then(Value::as_u64)));
    out
}

/// Gives every issue-list entry of every GitHub repository of `scenario`
/// `per_item` comments (the first by the item's author, then others'
/// every hour after its creation), every pull request an approving review
/// by a maintainer, and every fourth pull request a review comment:
/// `per_item` times the items comments in all. Comment ids are unique in
/// the scenario.
pub fn with_comments(scenario: &mut Scenario, per_item: usize) {
    let mut id = 1_000_000u64;
    for (name, data) in scenario.repos.iter_mut() {
        let web = format!("https://github.com/{name}");
        for item in &data.issues {
            let Some(number) = item.get("number").and_then(Value::as_u64) else {
                continue;
            };
            let created = ts(item, "created_at").unwrap_or(Timestamp::UNIX_EPOCH);
            let updated = ts(item, "updated_at").unwrap_or(created);
            let author = item["user"]["login"]
                .as_str()
                .unwrap_or("someone")
                .to_string();
            let pull = item.get("pull_request").is_some();
            let kind = if pull { "pull" } else { "issues" };
            for k in 0..per_item {
                id += 1;
                let at = (created + SignedDuration::from_secs(k as i64 * 3600)).min(updated);
                let login = if k == 0 {
                    author.clone()
                } else {
                    format!("user{}", k % 7)
                };
                data.comments.push(json!({
                    "id": id,
                    "html_url": format!("{web}/{kind}/{number}#issuecomment-{id}"),
                    "issue_url": format!("https://api.github.com/repos/{name}/issues/{number}"),
                    "user": { "login": login, "type": "User" },
                    "author_association": if k == 0 { "NONE" } else { "MEMBER" },
                    "created_at": fmt_ts(at),
                    "updated_at": fmt_ts(at),
                    "body": format!("Comment {k} on #{number}: thanks, looking into it."),
                }));
            }
            if pull {
                id += 1;
                data.reviews
                    .entry(number.to_string())
                    .or_default()
                    .push(json!({
                        "databaseId": id, "state": "APPROVED", "body": "",
                        "submittedAt": fmt_ts(updated), "createdAt": fmt_ts(updated),
                        "updatedAt": fmt_ts(updated), "authorAssociation": "MEMBER",
                        "author": { "login": "maintainer", "__typename": "User" },
                    }));
                if number % 4 == 0 {
                    id += 1;
                    data.review_comments.push(json!({
                        "id": id,
                        "pull_request_url": format!("https://api.github.com/repos/{name}/pulls/{number}"),
                        "html_url": format!("{web}/pull/{number}#discussion_r{id}"),
                        "user": { "login": "maintainer", "type": "User" },
                        "author_association": "MEMBER",
                        "created_at": fmt_ts(updated), "updated_at": fmt_ts(updated),
                        "body": "Nit: rename this.",
                    }));
                }
            }
        }
    }
}
