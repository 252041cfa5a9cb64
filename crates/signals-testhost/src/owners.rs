//! The owner listings: an organisation's, a user's or a GitLab
//! group's repositories, as each host lists them, made from the
//! scenario's repository objects.
//!
//! - GitHub: `GET /orgs/{org}/repos` (`type`: `all`, `public`, `private`,
//!   `forks`, `sources`; `sort`: `created` by default, `updated`,
//!   `pushed`, `full_name`; `direction` ascending only by default for
//!   `full_name`), 404 for an owner that is not an organisation; `GET
//!   /users/{user}/repos` (`type`: `owner` by default, `all`, `member`),
//!   404 for an unknown user.
//! - GitLab: `GET /groups/{id}/projects` (the id an encoded full path;
//!   `include_subgroups`, `archived`, `visibility`, `order_by` `id` or
//!   `created_at` (the default), `sort` descending by default), 404
//!   `Group Not Found`; `GET /users/{user}/projects`.
//! - Forgejo/Gitea: `GET /orgs/{org}/repos` and `GET /users/{user}/repos`,
//!   `page` and `limit`, `X-Total-Count`.
//!
//! Entries are the scenario's repository objects as they are (`full_name`,
//! `archived`, `fork`, `private` on GitHub and Forgejo;
//! `path_with_namespace`, `archived`, `forked_from_project`, `visibility`
//! on GitLab), so a test archives a repository by changing its object.
//! Which owners are organisations (GitLab: groups) is
//! [`Scenario::orgs`]; every other owner of a repository is a user.

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::http::{Response, paginate, param, parse_query, percent_decode};
use crate::scenario::Scenario;

/// The repositories of `owner` (ASCII case ignored), with their objects:
/// owned directly, or, with `nested`, in a subgroup of it too.
fn owned<'a>(scenario: &'a Scenario, owner: &str, nested: bool) -> Vec<&'a Value> {
    let owner = owner.to_ascii_lowercase();
    scenario
        .repos
        .iter()
        .filter(|(name, _)| {
            let name = name.to_ascii_lowercase();
            let Some((o, _)) = name.rsplit_once('/') else {
                return false;
            };
            o == owner || (nested && o.starts_with(&format!("{owner}/")))
        })
        .map(|(_, d)| &d.repo)
        .collect()
}

fn is_org(scenario: &Scenario, owner: &str) -> bool {
    scenario.orgs.iter().any(|o| o.eq_ignore_ascii_case(owner))
}

fn is_user(scenario: &Scenario, owner: &str) -> bool {
    !is_org(scenario, owner) && !owned(scenario, owner, false).is_empty()
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn ts(v: &Value, key: &str) -> Option<Timestamp> {
    v.get(key)
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
}

fn id(v: &Value) -> Option<u64> {
    v.get("id").and_then(Value::as_u64)
}

fn number(params: &[(String, String)], name: &str, default: usize) -> Result<usize, String> {
    match param(params, name) {
        None | Some("") => Ok(default),
        Some(v) => v.parse().map_err(|_| format!("{name} must be a number")),
    }
}

/// GitHub: `/orgs/{org}/repos` and `/users/{user}/repos`; `None` for other
/// paths.
pub(crate) fn github(scenario: &Scenario, base: &str, path: &str, query: &str) -> Option<Response> {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (org, owner) = match segments.as_slice() {
        ["orgs", owner, "repos"] => (true, *owner),
        ["users", owner, "repos"] => (false, *owner),
        _ => return None,
    };
    let not_found = || {
        Response::json(
            404,
            &json!({ "message": "Not Found", "documentation_url": "https://docs.github.com/rest/repos/repos", "status": "404" }),
        )
    };
    if (org && !is_org(scenario, owner)) || (!org && owned(scenario, owner, false).is_empty()) {
        return Some(not_found());
    }
    let params = parse_query(query);
    let kind = param(&params, "type").unwrap_or(if org { "all" } else { "owner" });
    let keep = |r: &&Value| match kind {
        "public" => !flag(r, "private"),
        "private" => flag(r, "private"),
        "forks" => flag(r, "fork"),
        "sources" => !flag(r, "fork"),
        _ => true,
    };
    let sort = param(&params, "sort").unwrap_or("created");
    let key = match sort {
        "created" => "created_at",
        "updated" => "updated_at",
        "pushed" => "pushed_at",
        "full_name" => "full_name",
        _ => {
            return Some(bad_github(
                "sort must be created, updated, pushed or full_name",
            ));
        }
    };
    let ascending = match param(&params, "direction") {
        None => sort == "full_name",
        Some("asc") => true,
        Some("desc") => false,
        Some(_) => return Some(bad_github("direction must be asc or desc")),
    };
    let mut list: Vec<Value> = owned(scenario, owner, false)
        .into_iter()
        .filter(keep)
        .cloned()
        .collect();
    list.sort_by(|a, b| {
        let ord = if key == "full_name" {
            a[key].as_str().cmp(&b[key].as_str())
        } else {
            ts(a, key).cmp(&ts(b, key))
        };
        let ord = ord.then_with(|| id(a).cmp(&id(b)));
        if ascending { ord } else { ord.reverse() }
    });
    let (per_page, page) = match (number(&params, "per_page", 30), number(&params, "page", 1)) {
        (Ok(pp), Ok(p)) => (pp.clamp(1, 100), p.max(1)),
        (Err(e), _) | (_, Err(e)) => return Some(bad_github(&e)),
    };
    Some(paginate(base, path, &params, &list, per_page, page))
}

fn bad_github(message: &str) -> Response {
    Response::json(
        422,
        &json!({ "message": "Validation Failed", "errors": [{ "message": message, "code": "invalid" }], "status": "422" }),
    )
}

/// GitLab: `/api/v4/groups/{id}/projects` and
/// `/api/v4/users/{user}/projects`; `None` for other paths.
pub(crate) fn gitlab(scenario: &Scenario, base: &str, path: &str, query: &str) -> Option<Response> {
    let rest = path.strip_prefix("/api/v4/")?;
    let segments: Vec<&str> = rest.split('/').collect();
    let (group, owner) = match segments.as_slice() {
        ["groups", id, "projects"] => (true, percent_decode(id)),
        ["users", id, "projects"] => (false, percent_decode(id)),
        _ => return None,
    };
    let bad = |m: &str| Response::json(400, &json!({ "error": m }));
    if group && !is_org(scenario, &owner) {
        return Some(Response::json(
            404,
            &json!({ "message": "404 Group Not Found" }),
        ));
    }
    if !group && !is_user(scenario, &owner) {
        return Some(Response::json(
            404,
            &json!({ "message": "404 User Not Found" }),
        ));
    }
    let params = parse_query(query);
    let nested = group && param(&params, "include_subgroups") == Some("true");
    let archived = match param(&params, "archived") {
        None => None,
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(_) => return Some(bad("archived is invalid")),
    };
    let visibility = param(&params, "visibility");
    if visibility.is_some_and(|v| !["public", "internal", "private"].contains(&v)) {
        return Some(bad("visibility does not have a valid value"));
    }
    let key = match param(&params, "order_by").unwrap_or("created_at") {
        "id" => "id",
        "created_at" => "created_at",
        _ => return Some(bad("order_by does not have a valid value")),
    };
    let ascending = match param(&params, "sort").unwrap_or("desc") {
        "asc" => true,
        "desc" => false,
        _ => return Some(bad("sort does not have a valid value")),
    };
    let mut list: Vec<Value> = owned(scenario, &owner, nested)
        .into_iter()
        .filter(|p| archived.is_none_or(|a| flag(p, "archived") == a))
        .filter(|p| {
            visibility.is_none_or(|v| {
                p.get("visibility")
                    .and_then(Value::as_str)
                    .unwrap_or("public")
                    == v
            })
        })
        .cloned()
        .collect();
    list.sort_by(|a, b| {
        let ord = if key == "id" {
            id(a).cmp(&id(b))
        } else {
            ts(a, key).cmp(&ts(b, key)).then_with(|| id(a).cmp(&id(b)))
        };
        if ascending { ord } else { ord.reverse() }
    });
    let (per_page, page) = match (number(&params, "per_page", 20), number(&params, "page", 1)) {
        (Ok(pp), Ok(p)) => (pp.clamp(1, 100), p.max(1)),
        (Err(e), _) | (_, Err(e)) => return Some(bad(&e)),
    };
    let total = list.len();
    let r = paginate(base, path, &params, &list, per_page, page);
    Some(crate::hosts::gitlab_page_headers(r, total, per_page, page))
}

/// Forgejo: `/api/v1/orgs/{org}/repos` and `/api/v1/users/{user}/repos`;
/// `None` for other paths.
pub(crate) fn forgejo(
    scenario: &Scenario,
    base: &str,
    path: &str,
    query: &str,
) -> Option<Response> {
    let rest = path.strip_prefix("/api/v1/")?;
    let segments: Vec<&str> = rest.split('/').collect();
    let (org, owner) = match segments.as_slice() {
        ["orgs", owner, "repos"] => (true, *owner),
        ["users", owner, "repos"] => (false, *owner),
        _ => return None,
    };
    if (org && !is_org(scenario, owner)) || (!org && !is_user(scenario, owner)) {
        return Some(Response::json(
            404,
            &json!({ "errors": null, "message": "The target couldn't be found.", "url": format!("{base}/api/swagger") }),
        ));
    }
    let params = parse_query(query);
    let (limit, page) = match (
        number(&params, "limit", crate::hosts::FORGEJO_MAX_ITEMS),
        number(&params, "page", 1),
    ) {
        (Ok(l), Ok(p)) => (l.clamp(1, crate::hosts::FORGEJO_MAX_ITEMS), p.max(1)),
        (Err(e), _) | (_, Err(e)) => {
            return Some(Response::json(
                422,
                &json!({ "message": e, "url": format!("{base}/api/swagger") }),
            ));
        }
    };
    let mut list: Vec<Value> = owned(scenario, owner, false).into_iter().cloned().collect();
    list.sort_by_key(id);
    let mut r = paginate(base, path, &params, &list, limit, page);
    r.headers
        .push(("X-Total-Count".into(), list.len().to_string()));
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{synthetic, synthetic_gitlab};

    const BASE: &str = "http://127.0.0.1:1";

    fn names(r: &Response, key: &str) -> Vec<String> {
        let v: Value = serde_json::from_slice(&r.body).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| p[key].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn github_orgs_then_users() {
        let mut s = synthetic("org/a", 1, "2025-01-01T00:00:00Z".parse().unwrap());
        s.repos
            .extend(synthetic("org/b", 1, "2025-01-01T00:00:00Z".parse().unwrap()).repos);
        s.repos
            .extend(synthetic("someone/c", 1, "2025-01-01T00:00:00Z".parse().unwrap()).repos);
        s.repos.get_mut("org/b").unwrap().repo["fork"] = json!(true);
        s.orgs.insert("org".into());
        let r = github(&s, BASE, "/orgs/org/repos", "type=sources&per_page=100").unwrap();
        assert_eq!(names(&r, "full_name"), vec!["org/a"]);
        let r = github(&s, BASE, "/orgs/ORG/repos", "sort=full_name").unwrap();
        assert_eq!(names(&r, "full_name"), vec!["org/a", "org/b"]);
        assert_eq!(
            github(&s, BASE, "/orgs/someone/repos", "").unwrap().status,
            404
        );
        let r = github(&s, BASE, "/users/someone/repos", "").unwrap();
        assert_eq!(names(&r, "full_name"), vec!["someone/c"]);
        assert_eq!(
            github(&s, BASE, "/users/nobody/repos", "").unwrap().status,
            404
        );
        assert!(github(&s, BASE, "/repos/org/a", "").is_none());
    }

    #[test]
    fn gitlab_groups_with_subgroups() {
        let start = "2025-01-01T00:00:00Z".parse().unwrap();
        let mut s = synthetic_gitlab("g/top", 1, start);
        let mut sub = synthetic_gitlab("g/sub/deep", 1, start);
        sub.repos.get_mut("g/sub/deep").unwrap().repo["id"] = json!(4243);
        s.repos.extend(sub.repos);
        s.orgs.insert("g".into());
        let r = gitlab(
            &s,
            BASE,
            "/api/v4/groups/g/projects",
            "order_by=id&sort=asc",
        )
        .unwrap();
        assert_eq!(names(&r, "path_with_namespace"), vec!["g/top"]);
        let r = gitlab(
            &s,
            BASE,
            "/api/v4/groups/g/projects",
            "include_subgroups=true&order_by=id&sort=asc",
        )
        .unwrap();
        assert_eq!(
            names(&r, "path_with_namespace"),
            vec!["g/top", "g/sub/deep"]
        );
        let r = gitlab(&s, BASE, "/api/v4/groups/nope/projects", "").unwrap();
        assert_eq!(r.status, 404);
    }
}
