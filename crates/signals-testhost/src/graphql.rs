//! GitHub's GraphQL endpoint (`POST /graphql`), as far as the client asks
//! it: the `Discussions` query, answered from a repository's
//! [`RepoData::discussions`] by its variables, and the reviews of pull
//! requests by alias (`crate::comments`), both with GitHub's
//! answers where the client depends on them: `rateLimit { cost remaining
//! resetAt }` charged by GitHub's formula on a points budget of its own
//! (5,000 an hour, apart from REST's), `x-ratelimit-*` headers of
//! resource `graphql`, `RATE_LIMITED` and `NOT_FOUND` errors in 200
//! answers, and a 401 without a token.
//!
//! It is no GraphQL server: it reads the operation's name and variables
//! (and, for reviews, the aliases of the query's text), so it answers only
//! the queries the client sends.

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::http::Response;
use crate::scenario::{RepoData, Scenario, fmt_ts};
use crate::{Budget, Fault, Request, State};

/// GraphQL points per token and hour, as on GitHub.
pub const GRAPHQL_POINTS: u64 = 5000;

/// The answer to a POST to `/graphql`; `fault` is a GraphQL fault queued
/// for it ([`Fault::GraphqlRateLimited`], [`Fault::GraphqlNotFound`]).
pub(crate) fn answer(state: &mut State, req: &Request, fault: Option<&Fault>) -> Response {
    let now = Timestamp::now().as_second();
    let key = req.token_key();
    if key == "anonymous" {
        return Response::json(
            401,
            &json!({
                "message": "This endpoint requires you to be authenticated.",
                "documentation_url": "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql"
            }),
        );
    }
    let window = state.window;
    let budget = state.graphql_budgets.entry(key.clone()).or_insert(Budget {
        used: 0,
        reset: now + window,
    });
    if budget.reset <= now {
        *budget = Budget {
            used: 0,
            reset: now + window,
        };
    }
    let request: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    let query = request["query"].as_str().unwrap_or_default();
    let asked = if request["operationName"] == "Discussions" {
        Asked::Discussions
    } else if request["operationName"] == "DiscussionHeads" {
        Asked::Heads
    } else if let Some(numbers) = crate::comments::reviews_asked(query) {
        Asked::Reviews(numbers)
    } else {
        let message = "Parse error: the test host answers only the Discussions, DiscussionHeads \
                       and reviews queries";
        return Response::json(200, &json!({ "errors": [{ "message": message }] }));
    };
    let vars = &request["variables"];
    let cost = match &asked {
        Asked::Discussions => cost(vars),
        Asked::Heads => charge(heads_asked(vars).len() as u64),
        Asked::Reviews(numbers) => charge(numbers.len() as u64),
    };
    let (mut r, reset, remaining) = match fault {
        Some(Fault::GraphqlRateLimited { reset_in_secs }) => {
            (rate_limited(), now + *reset_in_secs as i64, 0)
        }
        _ if budget.used + cost > GRAPHQL_POINTS => (rate_limited(), budget.reset, 0),
        _ => {
            budget.used += cost;
            let remaining = GRAPHQL_POINTS - budget.used;
            let rate = json!({
                "cost": cost,
                "remaining": remaining,
                "resetAt": fmt_ts(Timestamp::from_second(budget.reset).unwrap_or_default()),
            });
            let r = match &asked {
                Asked::Heads => heads(&state.scenario, vars, rate),
                _ => one_repository(&state.scenario, &asked, vars, fault, rate),
            };
            (r, budget.reset, remaining)
        }
    };
    let used = GRAPHQL_POINTS - remaining;
    r.headers.extend([
        (
            "Content-Type".into(),
            "application/json; charset=utf-8".into(),
        ),
        ("x-ratelimit-limit".into(), GRAPHQL_POINTS.to_string()),
        ("x-ratelimit-remaining".into(), remaining.to_string()),
        ("x-ratelimit-reset".into(), reset.to_string()),
        ("x-ratelimit-used".into(), used.to_string()),
        ("x-ratelimit-resource".into(), "graphql".into()),
    ]);
    r
}

/// The answer to a query of one repository (`owner`, `name`): its
/// discussions or the reviews of its pull requests, with `rate`.
fn one_repository(
    scenario: &Scenario,
    asked: &Asked,
    vars: &Value,
    fault: Option<&Fault>,
    rate: Value,
) -> Response {
    let found = (fault != Some(&Fault::GraphqlNotFound))
        .then(|| {
            let full = format!(
                "{}/{}",
                vars["owner"].as_str().unwrap_or_default(),
                vars["name"].as_str().unwrap_or_default()
            );
            scenario.repo(&full).map(|(_, d)| d.clone())
        })
        .flatten();
    let Some(data) = found else {
        return not_found(vars, rate);
    };
    let repository = match asked {
        Asked::Reviews(numbers) => crate::comments::reviews_of(&data, numbers),
        _ => repository(&data, vars),
    };
    Response::json(
        200,
        &json!({ "data": { "rateLimit": rate, "repository": repository } }),
    )
}

/// The `(owner, name)` pairs of a `DiscussionHeads` query, from its
/// variables `o<i>` and `n<i>`, in order.
fn heads_asked(vars: &Value) -> Vec<(String, String)> {
    (0..)
        .map_while(|i| {
            let owner = vars[format!("o{i}")].as_str()?;
            let name = vars[format!("n{i}")].as_str()?;
            Some((owner.to_string(), name.to_string()))
        })
        .collect()
}

/// The answer to a `DiscussionHeads` query: for each alias `r<i>`, whether
/// the repository has discussions and its most recently updated one, or
/// null and a `NOT_FOUND` error naming the alias, as GitHub answers.
fn heads(scenario: &Scenario, vars: &Value, rate: Value) -> Response {
    let mut data = serde_json::Map::new();
    data.insert("rateLimit".into(), rate);
    let mut errors = Vec::new();
    for (i, (owner, name)) in heads_asked(vars).into_iter().enumerate() {
        let alias = format!("r{i}");
        let full = format!("{owner}/{name}");
        let head = match scenario.repo(&full) {
            None => {
                errors.push(json!({
                    "type": "NOT_FOUND",
                    "path": [alias],
                    "message": format!("Could not resolve to a Repository with the name '{full}'."),
                }));
                Value::Null
            }
            Some((_, d)) => match &d.discussions {
                None => json!({ "hasDiscussionsEnabled": false, "discussions": empty() }),
                Some(all) => {
                    let newest = all
                        .iter()
                        .filter_map(|d| d["updatedAt"].as_str())
                        .max()
                        .map(|at| json!([{ "updatedAt": at }]))
                        .unwrap_or_else(|| json!([]));
                    json!({ "hasDiscussionsEnabled": true, "discussions": { "nodes": newest } })
                }
            },
        };
        data.insert(alias, head);
    }
    let mut body = json!({ "data": data });
    if !errors.is_empty() {
        body["errors"] = json!(errors);
    }
    Response::json(200, &body)
}

/// The queries the client sends.
enum Asked {
    /// The `Discussions` query, by its variables.
    Discussions,
    /// The `DiscussionHeads` query, by its variables.
    Heads,
    /// The reviews of these pull requests, by alias.
    Reviews(Vec<String>),
}

/// The charge of the `Discussions` query: the discussions page, the
/// labels of each of its nodes, the open list.
fn cost(vars: &Value) -> u64 {
    let first = vars["first"].as_u64().unwrap_or(0);
    let open = if vars["firstPage"] == true { 1 } else { 0 };
    charge(1 + first.min(100) + open)
}

/// GitHub's charge for a query of `requests` connections (a nested one
/// counted once per parent node asked; a reviews query asks one per pull
/// request): divided by 100, rounded, at least 1.
fn charge(requests: u64) -> u64 {
    ((requests as f64 / 100.0).round() as u64).max(1)
}

fn rate_limited() -> Response {
    Response::json(
        200,
        &json!({
            "data": null,
            "errors": [{
                "type": "RATE_LIMITED",
                "message": "API rate limit already exceeded for user ID 1."
            }]
        }),
    )
}

fn not_found(vars: &Value, rate: Value) -> Response {
    let name = format!(
        "{}/{}",
        vars["owner"].as_str().unwrap_or_default(),
        vars["name"].as_str().unwrap_or_default()
    );
    Response::json(
        200,
        &json!({
            "data": { "rateLimit": rate, "repository": null },
            "errors": [{
                "type": "NOT_FOUND",
                "path": ["repository"],
                "locations": [{ "line": 1, "column": 170 }],
                "message": format!("Could not resolve to a Repository with the name '{name}'.")
            }]
        }),
    )
}

/// The `repository` object the query asks for.
fn repository(data: &RepoData, vars: &Value) -> Value {
    let Some(all) = &data.discussions else {
        return json!({ "hasDiscussionsEnabled": false, "discussions": empty(), "open": empty() });
    };
    let mut sorted: Vec<&Value> = all.iter().collect();
    sorted.sort_by(|a, b| {
        let at = |v: &Value| v["updatedAt"].as_str().unwrap_or_default().to_string();
        at(b)
            .cmp(&at(a))
            .then(b["number"].as_u64().cmp(&a["number"].as_u64()))
    });
    let start: usize = vars["after"]
        .as_str()
        .and_then(|c| c.strip_prefix("Y3Vyc29yOnYyO"))
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(0);
    let first = vars["first"].as_u64().unwrap_or(0).min(100) as usize;
    let labels = vars["labels"].as_u64().unwrap_or(0) as usize;
    let end = (start + first).min(sorted.len());
    let nodes: Vec<Value> = sorted[start.min(end)..end]
        .iter()
        .map(|d| {
            let mut d = (*d).clone();
            if let Some(nodes) = d["labels"]["nodes"].as_array_mut() {
                nodes.truncate(labels);
            }
            d
        })
        .collect();
    let mut repo = json!({
        "hasDiscussionsEnabled": true,
        "discussions": {
            "pageInfo": {
                "hasNextPage": end < sorted.len(),
                "endCursor": (end > start).then(|| format!("Y3Vyc29yOnYyO{end}")),
            },
            "nodes": nodes,
        }
    });
    if vars["firstPage"] == true {
        let open = vars["open"].as_u64().unwrap_or(0) as usize;
        let nodes: Vec<&Value> = sorted
            .iter()
            .filter(|d| d["closed"] != true)
            .take(open)
            .copied()
            .collect();
        repo["open"] = json!({ "nodes": nodes });
    }
    repo
}

fn empty() -> Value {
    json!({ "pageInfo": { "hasNextPage": false, "endCursor": null }, "nodes": [] })
}

/// A discussion node as GraphQL answers it: number `n` of `full_name`,
/// updated at `updated`, in category `category`.
pub fn discussion(full_name: &str, n: u64, updated: Timestamp, category: &str) -> Value {
    let created = updated - jiff::SignedDuration::from_hours(1);
    json!({
        "number": n,
        "title": format!("Discussion {n} of {full_name}"),
        "body": format!("What do you think of idea {n}?"),
        "url": format!("https://github.com/{full_name}/discussions/{n}"),
        "createdAt": fmt_ts(created),
        "updatedAt": fmt_ts(updated),
        "closed": false,
        "closedAt": null,
        "isAnswered": if category == "Q&A" { json!(false) } else { Value::Null },
        "upvoteCount": n % 7,
        "author": { "login": format!("member{}", n % 5) },
        "category": { "name": category },
        "labels": { "nodes": [] },
        "comments": { "totalCount": n % 4 },
    })
}

/// `count` discussions of `full_name`, numbered from 1, number `i` updated
/// `i` minutes after `start`; every third in `Q&A`, the others `Ideas`.
pub fn synthetic_discussions(full_name: &str, count: u64, start: Timestamp) -> Vec<Value> {
    (1..=count)
        .map(|n| {
            let category = if n % 3 == 0 { "Q&A" } else { "Ideas" };
            let at = start + jiff::SignedDuration::from_mins(n as i64);
            discussion(full_name, n, at, category)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_follow_githubs_formula() {
        let vars =
            |first: u64, first_page: bool| json!({ "first": first, "firstPage": first_page });
        assert_eq!(cost(&vars(100, true)), 1);
        assert_eq!(cost(&vars(100, false)), 1);
        assert_eq!(cost(&vars(1, false)), 1);
    }

    #[test]
    fn pages_go_newest_first_with_cursors() {
        let start: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let data = RepoData {
            discussions: Some(synthetic_discussions("o/n", 150, start)),
            ..RepoData::default()
        };
        let vars = json!({ "first": 100, "labels": 20, "open": 10, "firstPage": true });
        let page = repository(&data, &vars);
        let nodes = page["discussions"]["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), 100);
        assert_eq!(nodes[0]["number"], 150);
        assert_eq!(page["open"]["nodes"].as_array().unwrap().len(), 10);
        let cursor = page["discussions"]["pageInfo"]["endCursor"].clone();
        assert_eq!(page["discussions"]["pageInfo"]["hasNextPage"], true);
        let vars = json!({ "first": 100, "after": cursor, "labels": 20, "firstPage": false });
        let page = repository(&data, &vars);
        let nodes = page["discussions"]["nodes"].as_array().unwrap();
        assert_eq!((nodes.len(), nodes[0]["number"].clone()), (50, json!(50)));
        assert_eq!(page["discussions"]["pageInfo"]["hasNextPage"], false);
        assert!(page.get("open").is_none());
        let off = repository(&RepoData::default(), &vars);
        assert_eq!(off["hasDiscussionsEnabled"], false);
    }
}
