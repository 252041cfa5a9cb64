//! The REST routes: a pure function from a scenario and a request to a
//! response, with GitHub's filtering, sorting, pagination and redirects.
//!
//! Nothing here does I/O, spends rate-limit budget or applies faults; the
//! server in `lib.rs` wraps this with those.

use std::collections::HashMap;

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::http::{Response, paginate, param, parse_query};
use crate::scenario::Scenario;

fn validation_failed(message: &str) -> Response {
    Response::json(
        422,
        &json!({
            "message": "Validation Failed",
            "errors": [{ "message": message, "code": "invalid" }],
            "documentation_url": "https://docs.github.com/rest",
            "status": "422",
        }),
    )
}

/// Answers `GET {path}?{query}`. `base` is the host's base URL, used for
/// absolute `Link` and `Location` URLs.
pub(crate) fn route(
    scenario: &Scenario,
    lists: &mut Lists,
    base: &str,
    path: &str,
    query: &str,
) -> Response {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let params = parse_query(query);
    // Resolve `/repos/{o}/{n}/rest` or `/repositories/{id}/rest` to a repo.
    let (full_name, rest) = match segments.as_slice() {
        ["repos", owner, name, rest @ ..] => {
            let full = format!("{owner}/{name}");
            if scenario.repo(&full).is_none()
                && let Some(new) = scenario.renamed_to(&full)
                && let Some((_, data)) = scenario.repo(new)
                && let Some(id) = data.repo.get("id").and_then(Value::as_u64)
            {
                return moved(base, id, rest, query);
            }
            (full, rest)
        }
        ["repositories", id, rest @ ..] => {
            match id.parse().ok().and_then(|id| scenario.repo_by_id(id)) {
                Some((name, _)) => (name.to_string(), rest),
                None => return Response::not_found("https://docs.github.com/rest"),
            }
        }
        _ => return Response::not_found("https://docs.github.com/rest"),
    };
    let Some((_, data)) = scenario.repo(&full_name) else {
        return Response::not_found("https://docs.github.com/rest/repos/repos#get-a-repository");
    };
    let (per_page, page) = match paging(&params) {
        Ok(p) => p,
        Err(r) => return r,
    };
    match rest {
        [] => Response::json(200, &data.repo),
        ["releases"] => paginate(base, path, &params, &data.releases, per_page, page),
        ["stats", "participation"] => participation(data),
        // No state filter is served: every state is listed, as GitHub does
        // without `state`.
        ["security-advisories"] => paginate(base, path, &params, &data.advisories, per_page, page),
        ["issues", "comments"] => {
            crate::comments::list(&data.comments, base, path, query, per_page, page)
        }
        ["pulls", "comments"] => {
            crate::comments::list(&data.review_comments, base, path, query, per_page, page)
        }
        ["milestones"] => {
            let state = param(&params, "state").unwrap_or("open");
            let list: Vec<Value> = data
                .milestones
                .iter()
                .filter(|m| state_matches(m, state))
                .cloned()
                .collect();
            paginate(base, path, &params, &list, per_page, page)
        }
        ["issues"] => {
            let key = Lists::key(&full_name, path, &params);
            if !lists.0.contains_key(&key) {
                match issues(&params, &data.issues) {
                    Ok(order) => lists.0.insert(key.clone(), order),
                    Err(r) => return r,
                };
            }
            let list: Vec<&Value> = lists.0[&key].iter().map(|&i| &data.issues[i]).collect();
            paginate(base, path, &params, &list, per_page, page)
        }
        // The pulls list sorts like the issue list (`created`, `updated`;
        // GitHub's `popularity` and `long-running` are not served) and
        // has no `since`.
        ["pulls"] => {
            if param(&params, "since").is_some() {
                return validation_failed("the pulls list has no since parameter");
            }
            let pulls = data.pull_objects();
            match issues(&params, &pulls) {
                Ok(order) => {
                    let list: Vec<&Value> = order.iter().map(|&i| &pulls[i]).collect();
                    paginate(base, path, &params, &list, per_page, page)
                }
                Err(r) => r,
            }
        }
        _ => Response::not_found("https://docs.github.com/rest"),
    }
}

/// `stats/participation`: 202 with `{}` while GitHub computes, else the
/// 52 weeks of all commits (the owner's, a share GitHub also gives, as
/// none).
fn participation(data: &crate::RepoData) -> Response {
    if data.participation_computing {
        return Response::json(202, &json!({}));
    }
    let mut all = data.participation.clone().unwrap_or_default();
    all.resize(52, 0);
    Response::json(200, &json!({ "all": all, "owner": vec![0; 52] }))
}

/// GitHub's answer for a renamed repository.
fn moved(base: &str, id: u64, rest: &[&str], query: &str) -> Response {
    let mut location = format!("{base}/repositories/{id}");
    for seg in rest {
        location.push('/');
        location.push_str(seg);
    }
    if !query.is_empty() {
        location.push('?');
        location.push_str(query);
    }
    let mut r = Response::json(
        301,
        &json!({
            "message": "Moved Permanently",
            "url": location,
            "documentation_url": "https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects",
        }),
    );
    r.headers.push(("Location".into(), location));
    r
}

pub(crate) fn state_matches(v: &Value, state: &str) -> bool {
    state == "all" || v.get("state").and_then(Value::as_str) == Some(state)
}

fn paging(params: &[(String, String)]) -> Result<(usize, usize), Response> {
    let num = |name: &str, default: usize| match param(params, name) {
        None | Some("") => Ok(default),
        Some(v) => v
            .parse::<usize>()
            .map_err(|_| validation_failed(&format!("{name} must be a number"))),
    };
    let per_page = num("per_page", 30)?.clamp(1, 100);
    let page = num("page", 1)?.max(1);
    Ok((per_page, page))
}

/// Filters and sorts issue-list entries like `GET /repos/{o}/{n}/issues`.
/// An entry's place in a sorted list: the sort field (a time in
/// nanoseconds, or a count), then its number.
type SortKey = (Option<i128>, Option<u64>);

/// The issues lists already filtered and sorted, by repository and query
/// without its page, as positions in the repository's issues: a client
/// pages through a list with one query, so each page of a 100,000-item
/// list costs its page, not a filter and sort of the whole list. Emptied
/// when the scenario changes.
#[derive(Debug, Default)]
pub(crate) struct Lists(HashMap<String, Vec<usize>>);

impl Lists {
    fn key(repo: &str, path: &str, params: &[(String, String)]) -> String {
        let mut key = format!("{repo} {path}");
        for (k, v) in params.iter().filter(|(k, _)| k != "page") {
            key.push_str(&format!(" {k}={v}"));
        }
        key
    }
}

/// The positions in `all` of the entries the query asks for, in its order.
fn issues(params: &[(String, String)], all: &[Value]) -> Result<Vec<usize>, Response> {
    let state = param(params, "state").unwrap_or("open");
    if !["open", "closed", "all"].contains(&state) {
        return Err(validation_failed("state must be open, closed or all"));
    }
    let since: Option<Timestamp> = match param(params, "since") {
        None => None,
        Some(s) => Some(
            s.parse()
                .map_err(|_| validation_failed("since must be an ISO 8601 timestamp"))?,
        ),
    };
    let sort = param(params, "sort").unwrap_or("created");
    let key = match sort {
        "created" => "created_at",
        "updated" => "updated_at",
        "comments" => "comments",
        _ => {
            return Err(validation_failed(
                "sort must be created, updated or comments",
            ));
        }
    };
    let ascending = match param(params, "direction").unwrap_or("desc") {
        "asc" => true,
        "desc" => false,
        _ => return Err(validation_failed("direction must be asc or desc")),
    };
    let ts = |v: &Value, field: &str| -> Option<Timestamp> {
        v.get(field)
            .and_then(Value::as_str)
            .and_then(|s| s.parse().ok())
    };
    // Sort keys read once per entry, and entries named by position, not
    // copied: no clone per entry and no timestamp parse per comparison.
    let mut list: Vec<(SortKey, usize)> = all
        .iter()
        .enumerate()
        .filter(|(_, i)| state_matches(i, state))
        .filter(|(_, i)| since.is_none_or(|since| ts(i, "updated_at").is_some_and(|u| u >= since)))
        .map(|(n, i)| {
            let primary = if key == "comments" {
                i.get(key).and_then(Value::as_u64).map(i128::from)
            } else {
                ts(i, key).map(|t| t.as_nanosecond())
            };
            // Ties by number keep pages stable between requests.
            ((primary, i.get("number").and_then(Value::as_u64)), n)
        })
        .collect();
    list.sort_by(|a, b| {
        let ord = a.0.cmp(&b.0);
        if ascending { ord } else { ord.reverse() }
    });
    Ok(list.into_iter().map(|(_, v)| v).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::synthetic;

    const BASE: &str = "http://127.0.0.1:1";

    fn body(r: &Response) -> Value {
        serde_json::from_slice(&r.body).unwrap()
    }

    fn link(r: &Response) -> Option<&str> {
        r.headers
            .iter()
            .find(|(k, _)| k == "Link")
            .map(|(_, v)| v.as_str())
    }

    fn scenario() -> Scenario {
        synthetic("o/n", 250, "2025-01-01T00:00:00Z".parse().unwrap())
    }

    #[test]
    fn repo_and_not_found() {
        let s = scenario();
        let r = route(&s, &mut Lists::default(), BASE, "/repos/O/N", "");
        assert_eq!(r.status, 200);
        assert_eq!(body(&r)["full_name"], "o/n");
        let r = route(&s, &mut Lists::default(), BASE, "/repos/o/missing", "");
        assert_eq!(r.status, 404);
        assert_eq!(body(&r)["message"], "Not Found");
        assert_eq!(
            route(&s, &mut Lists::default(), BASE, "/user", "").status,
            404
        );
        assert_eq!(
            route(&s, &mut Lists::default(), BASE, "/repos/o/n/commits", "").status,
            404
        );
    }

    /// One `Lists` across the pages of a query and across queries, as the
    /// host keeps it: each query keeps its own order.
    #[test]
    fn lists_keep_each_query_apart() {
        let s = scenario();
        let mut lists = Lists::default();
        let mut numbers = |q: &str| -> Vec<u64> {
            let r = route(&s, &mut lists, BASE, "/repos/o/n/issues", q);
            body(&r)
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["number"].as_u64().unwrap())
                .collect()
        };
        let asc = "state=all&sort=updated&direction=asc&per_page=100";
        assert_eq!(numbers(asc), (1..=100).collect::<Vec<_>>());
        assert_eq!(
            numbers(&format!("{asc}&page=2")),
            (101..=200).collect::<Vec<_>>()
        );
        let desc = "state=all&sort=updated&direction=desc&per_page=100";
        assert_eq!(numbers(desc), (151..=250).rev().collect::<Vec<_>>());
        assert_eq!(
            numbers(&format!("{asc}&page=3")),
            (201..=250).collect::<Vec<_>>()
        );
        assert_eq!(lists.0.len(), 2);
    }

    #[test]
    fn issues_paginate_with_links() {
        let s = scenario();
        let q = "state=all&sort=updated&direction=asc&per_page=100";
        let r = route(&s, &mut Lists::default(), BASE, "/repos/o/n/issues", q);
        assert_eq!(body(&r).as_array().unwrap().len(), 100);
        assert_eq!(body(&r)[0]["number"], 1);
        assert_eq!(
            link(&r).unwrap(),
            "<http://127.0.0.1:1/repos/o/n/issues?state=all&sort=updated&direction=asc&per_page=100&page=2>; rel=\"next\", \
             <http://127.0.0.1:1/repos/o/n/issues?state=all&sort=updated&direction=asc&per_page=100&page=3>; rel=\"last\""
        );
        let r = route(
            &s,
            &mut Lists::default(),
            BASE,
            "/repos/o/n/issues",
            &format!("{q}&page=3"),
        );
        assert_eq!(body(&r).as_array().unwrap().len(), 50);
        let l = link(&r).unwrap();
        assert!(l.contains("page=2>; rel=\"prev\"") && l.contains("page=1>; rel=\"first\""));
        assert!(!l.contains("next"));
        // Past the end: an empty page.
        let r = route(
            &s,
            &mut Lists::default(),
            BASE,
            "/repos/o/n/issues",
            &format!("{q}&page=9"),
        );
        assert_eq!(body(&r), json!([]));
    }

    #[test]
    fn issues_filter_state_since_and_sort() {
        let s = scenario();
        // Default: open only, newest created first, 30 per page.
        let r = route(&s, &mut Lists::default(), BASE, "/repos/o/n/issues", "");
        let b = body(&r);
        assert_eq!(b.as_array().unwrap().len(), 30);
        assert!(b.as_array().unwrap().iter().all(|i| i["state"] == "open"));
        assert_eq!(b[0]["number"], 250);
        // since is inclusive; entry n is updated at (n-1) min + 30 s.
        let r = route(
            &s,
            &mut Lists::default(),
            BASE,
            "/repos/o/n/issues",
            "state=all&sort=updated&direction=asc&since=2025-01-01T04%3A00%3A30Z&per_page=100",
        );
        let b = body(&r);
        assert_eq!(b.as_array().unwrap().len(), 10);
        assert_eq!(b[0]["number"], 241);
        let r = route(
            &s,
            &mut Lists::default(),
            BASE,
            "/repos/o/n/issues",
            "since=yesterday",
        );
        assert_eq!(r.status, 422);
    }

    #[test]
    fn milestones_filter_by_state() {
        let s = scenario();
        let r = route(
            &s,
            &mut Lists::default(),
            BASE,
            "/repos/o/n/milestones",
            "state=open&per_page=100",
        );
        assert_eq!(body(&r).as_array().unwrap().len(), 1);
        let r = route(
            &s,
            &mut Lists::default(),
            BASE,
            "/repos/o/n/milestones",
            "state=all",
        );
        assert_eq!(body(&r).as_array().unwrap().len(), 2);
        let r = route(
            &s,
            &mut Lists::default(),
            BASE,
            "/repos/o/n/releases",
            "per_page=1&page=2",
        );
        assert_eq!(body(&r)[0]["tag_name"], "v1.0.0");
    }

    #[test]
    fn renamed_repo_redirects_by_id() {
        let mut s = scenario();
        s.renamed.insert("old/n".into(), "o/n".into());
        let r = route(&s, &mut Lists::default(), BASE, "/repos/old/n", "");
        assert_eq!(r.status, 301);
        assert_eq!(
            r.headers,
            vec![(
                "Location".into(),
                "http://127.0.0.1:1/repositories/424242".into()
            )]
        );
        assert_eq!(body(&r)["message"], "Moved Permanently");
        let r = route(
            &s,
            &mut Lists::default(),
            BASE,
            "/repos/old/n/issues",
            "state=all",
        );
        assert_eq!(
            r.headers[0].1,
            "http://127.0.0.1:1/repositories/424242/issues?state=all"
        );
        let r = route(&s, &mut Lists::default(), BASE, "/repositories/424242", "");
        assert_eq!(body(&r)["full_name"], "o/n");
        assert_eq!(
            route(&s, &mut Lists::default(), BASE, "/repositories/1", "").status,
            404
        );
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(
            parse_query("a=1%3A2&b=%zz&c=x+y&d=%4"),
            vec![
                ("a".into(), "1:2".into()),
                ("b".into(), "%zz".into()),
                ("c".into(), "x y".into()),
                ("d".into(), "%4".into()),
            ]
        );
    }
}
