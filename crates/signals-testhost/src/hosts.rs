//! The GitLab (REST v4) and Forgejo (API v1) routes: pure functions from a
//! scenario and a request to a response, with each host's filtering,
//! ordering and pagination headers as their documentation describes them
//! (GitLab's REST API docs; Gitea's swagger definitions, MIT).
//!
//! Like `routes.rs`, nothing here does I/O, spends budget or applies
//! faults; rate-limit headers, ETags and faults are added by `lib.rs`.

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::http::{Response, paginate, param, parse_query, percent_decode};
use crate::scenario::Scenario;

fn ts(v: &Value, field: &str) -> Option<Timestamp> {
    v.get(field)
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
}

fn number(params: &[(String, String)], name: &str, default: usize) -> Result<usize, String> {
    match param(params, name) {
        None | Some("") => Ok(default),
        Some(v) => v.parse::<usize>().map_err(|_| format!("{name} is invalid")),
    }
}

/// GitLab's 400 for a bad parameter.
fn gitlab_bad(message: &str) -> Response {
    Response::json(400, &json!({ "error": message }))
}

fn gitlab_not_found(what: &str) -> Response {
    Response::json(404, &json!({ "message": format!("404 {what} Not Found") }))
}

/// Answers `GET /api/v4/{rest}?{query}` on a GitLab scenario.
pub(crate) fn gitlab(scenario: &Scenario, base: &str, path: &str, query: &str) -> Response {
    let Some(rest) = path.strip_prefix("/api/v4/") else {
        return gitlab_not_found("");
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let ["projects", id, rest @ ..] = segments.as_slice() else {
        return gitlab_not_found("");
    };
    let id = percent_decode(id);
    let found = match id.parse::<u64>() {
        Ok(n) => scenario.repo_by_id(n),
        Err(_) => scenario
            .repo(&id)
            .or_else(|| scenario.renamed_to(&id).and_then(|new| scenario.repo(new))),
    };
    let Some((_, data)) = found else {
        return gitlab_not_found("Project");
    };
    let params = parse_query(query);
    let (per_page, page) = match (number(&params, "per_page", 20), number(&params, "page", 1)) {
        (Ok(pp), Ok(p)) => (pp.clamp(1, 100), p.max(1)),
        (Err(e), _) | (_, Err(e)) => return gitlab_bad(&e),
    };
    let list = |all: &[Value]| -> Result<Vec<Value>, Response> {
        let after: Option<Timestamp> = match param(&params, "updated_after") {
            None => None,
            Some(s) => Some(
                s.parse()
                    .map_err(|_| gitlab_bad("updated_after is invalid"))?,
            ),
        };
        let key = match param(&params, "order_by").unwrap_or("created_at") {
            k @ ("created_at" | "updated_at") => k,
            _ => return Err(gitlab_bad("order_by does not have a valid value")),
        };
        let ascending = match param(&params, "sort").unwrap_or("desc") {
            "asc" => true,
            "desc" => false,
            _ => return Err(gitlab_bad("sort does not have a valid value")),
        };
        let mut out: Vec<Value> = all
            .iter()
            .filter(|i| after.is_none_or(|a| ts(i, "updated_at").is_some_and(|u| u >= a)))
            .cloned()
            .collect();
        out.sort_by(|a, b| {
            let ord = ts(a, key).cmp(&ts(b, key)).then_with(|| {
                a.get("iid")
                    .and_then(Value::as_u64)
                    .cmp(&b.get("iid").and_then(Value::as_u64))
            });
            if ascending { ord } else { ord.reverse() }
        });
        Ok(out)
    };
    let listed: Vec<Value> = match rest {
        [] => return Response::json(200, &data.repo),
        ["releases"] => data.releases.clone(),
        ["milestones"] => {
            let state = param(&params, "state");
            // A group milestone (it has a `group_id`) is listed for a
            // project only with `include_ancestors=true`, as on GitLab.
            let ancestors = param(&params, "include_ancestors") == Some("true");
            data.milestones
                .iter()
                .filter(|m| state.is_none_or(|s| m["state"] == s))
                .filter(|m| ancestors || m.get("group_id").is_none())
                .cloned()
                .collect()
        }
        ["issues_statistics"] => {
            let title = param(&params, "milestone");
            let of = |state: &str| {
                data.issues
                    .iter()
                    .filter(|i| title.is_none_or(|t| i["milestone"]["title"] == t))
                    .filter(|i| i["state"] == state)
                    .count()
            };
            let (opened, closed) = (of("opened"), of("closed"));
            return Response::json(
                200,
                &json!({ "statistics": { "counts": { "all": opened + closed, "closed": closed, "opened": opened } } }),
            );
        }
        ["issues"] => match list(&data.issues) {
            Ok(l) => l,
            Err(r) => return r,
        },
        ["merge_requests"] => match list(&data.merge_requests) {
            Ok(l) => l.into_iter().map(gitlab_merge_request).collect(),
            Err(r) => return r,
        },
        [list @ ("issues" | "merge_requests"), iid, "notes"] => {
            crate::comments::gitlab_notes(&data.notes, list, iid)
        }
        _ => return gitlab_not_found(""),
    };
    let response = paginate(base, path, &params, &listed, per_page, page);
    gitlab_page_headers(response, listed.len(), per_page, page)
}

/// A merge request entry as GitLab 14.7 and later lists it: a merged one
/// (it has a `merged_at`) names who merged it in `merge_user` and in the
/// older `merged_by` alike, from whichever of the two the scenario's entry
/// gives (as GitHub's `mergedBy` comes from a pulls object's `merged_by`);
/// an entry that names neither answers `null` for both.
fn gitlab_merge_request(mut entry: Value) -> Value {
    let Some(obj) = entry.as_object_mut() else {
        return entry;
    };
    let merged = obj.get("merged_at").is_some_and(|m| !m.is_null());
    let named = |key: &str| obj.get(key).filter(|u| u.is_object()).cloned();
    let merger = named("merge_user").or_else(|| named("merged_by"));
    match merger {
        Some(user) if merged => {
            obj.insert("merge_user".into(), user.clone());
            obj.insert("merged_by".into(), user);
        }
        _ => {
            for key in ["merge_user", "merged_by"] {
                obj.entry(key).or_insert(Value::Null);
            }
        }
    }
    entry
}

/// GitLab's offset-pagination headers beside `Link`.
pub(crate) fn gitlab_page_headers(
    mut r: Response,
    total: usize,
    per_page: usize,
    page: usize,
) -> Response {
    let pages = total.div_ceil(per_page).max(1);
    let next = if page < pages {
        (page + 1).to_string()
    } else {
        String::new()
    };
    let prev = if page > 1 {
        (page - 1).to_string()
    } else {
        String::new()
    };
    for (k, v) in [
        ("X-Page", page.to_string()),
        ("X-Per-Page", per_page.to_string()),
        ("X-Next-Page", next),
        ("X-Prev-Page", prev),
        ("X-Total", total.to_string()),
        ("X-Total-Pages", pages.to_string()),
    ] {
        r.headers.push((k.into(), v));
    }
    r
}

fn forgejo_not_found(base: &str) -> Response {
    Response::json(
        404,
        &json!({ "errors": null, "message": "The target couldn't be found.", "url": format!("{base}/api/swagger") }),
    )
}

/// Forgejo's 422 for a bad parameter.
fn forgejo_bad(base: &str, message: &str) -> Response {
    Response::json(
        422,
        &json!({ "message": message, "url": format!("{base}/api/swagger") }),
    )
}

/// The most entries a Forgejo page holds (`[api] MAX_RESPONSE_ITEMS`).
pub(crate) const FORGEJO_MAX_ITEMS: usize = 50;

/// Answers `GET /api/v1/{rest}?{query}` on a Forgejo scenario.
pub(crate) fn forgejo(scenario: &Scenario, base: &str, path: &str, query: &str) -> Response {
    let Some(rest) = path.strip_prefix("/api/v1/") else {
        return forgejo_not_found(base);
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let ["repos", owner, name, rest @ ..] = segments.as_slice() else {
        return forgejo_not_found(base);
    };
    let full = format!("{owner}/{name}");
    let Some((_, data)) = scenario.repo(&full) else {
        // A renamed repository: Forgejo redirects to the new name.
        if let Some(new) = scenario.renamed_to(&full) {
            let mut location = format!("{base}/api/v1/repos/{new}");
            for seg in rest {
                location.push('/');
                location.push_str(seg);
            }
            if !query.is_empty() {
                location.push('?');
                location.push_str(query);
            }
            let mut r = Response::json(307, &json!({}));
            r.body.clear();
            r.headers.push(("Location".into(), location));
            return r;
        }
        return forgejo_not_found(base);
    };
    let params = parse_query(query);
    let (limit, page) = match (
        number(&params, "limit", FORGEJO_MAX_ITEMS),
        number(&params, "page", 1),
    ) {
        (Ok(l), Ok(p)) => (l.clamp(1, FORGEJO_MAX_ITEMS), p.max(1)),
        (Err(e), _) | (_, Err(e)) => return forgejo_bad(base, &e),
    };
    let state = param(&params, "state").unwrap_or("open");
    let by_state = |v: &&Value| state == "all" || v["state"] == state;
    let listed: Vec<Value> = match rest {
        [] => return Response::json(200, &data.repo),
        ["releases"] => data.releases.clone(),
        ["milestones"] => data.milestones.iter().filter(by_state).cloned().collect(),
        ["issues", "comments"] => {
            let mut r = crate::comments::list(&data.comments, base, path, query, limit, page);
            let total = data.comments.len().to_string();
            r.headers.push(("X-Total-Count".into(), total));
            return r;
        }
        ["issues"] => {
            let since: Option<Timestamp> = match param(&params, "since") {
                None => None,
                Some(s) => match s.parse() {
                    Ok(t) => Some(t),
                    Err(_) => return forgejo_bad(base, "since: invalid time"),
                },
            };
            let kind = param(&params, "type");
            if kind.is_some_and(|k| k != "issues" && k != "pulls") {
                return forgejo_bad(base, "type must be issues or pulls");
            }
            let mut l: Vec<Value> = data
                .issues
                .iter()
                .filter(by_state)
                .filter(|i| match kind {
                    Some("pulls") => !i["pull_request"].is_null(),
                    Some(_) => i["pull_request"].is_null(),
                    None => true,
                })
                .filter(|i| since.is_none_or(|s| ts(i, "updated_at").is_some_and(|u| u >= s)))
                .cloned()
                .collect();
            // Newest created first, as Forgejo lists issues.
            l.sort_by(|a, b| {
                ts(b, "created_at")
                    .cmp(&ts(a, "created_at"))
                    .then_with(|| b["number"].as_u64().cmp(&a["number"].as_u64()))
            });
            l
        }
        _ => return forgejo_not_found(base),
    };
    let mut r = paginate(base, path, &params, &listed, limit, page);
    r.headers
        .push(("X-Total-Count".into(), listed.len().to_string()));
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{synthetic_forgejo, synthetic_gitlab};

    const BASE: &str = "http://127.0.0.1:1";

    fn body(r: &Response) -> Value {
        serde_json::from_slice(&r.body).unwrap()
    }

    fn header<'a>(r: &'a Response, name: &str) -> Option<&'a str> {
        r.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn gitlab_projects_by_path_or_id_and_pages() {
        let s = synthetic_gitlab("g/sub/p", 300, "2025-01-01T00:00:00Z".parse().unwrap());
        let r = gitlab(&s, BASE, "/api/v4/projects/g%2Fsub%2Fp", "license=true");
        assert_eq!(body(&r)["id"], 4242);
        assert_eq!(gitlab(&s, BASE, "/api/v4/projects/4242", "").status, 200);
        let r = gitlab(&s, BASE, "/api/v4/projects/g%2Fnope", "");
        assert_eq!(
            (r.status, body(&r)["message"].clone()),
            (404, json!("404 Project Not Found"))
        );
        let q = "updated_after=2025-01-01T00:00:00Z&order_by=updated_at&sort=asc&per_page=100&scope=all";
        let r = gitlab(&s, BASE, "/api/v4/projects/4242/issues", q);
        assert_eq!(body(&r).as_array().unwrap().len(), 100);
        assert_eq!(header(&r, "X-Next-Page"), Some("2"));
        assert_eq!(header(&r, "X-Total"), Some("200"));
        assert!(header(&r, "Link").unwrap().contains("rel=\"next\""));
        let r = gitlab(
            &s,
            BASE,
            "/api/v4/projects/4242/issues",
            &format!("{q}&page=2"),
        );
        assert_eq!(header(&r, "X-Next-Page"), Some(""));
        let r = gitlab(&s, BASE, "/api/v4/projects/4242/merge_requests", q);
        assert_eq!(body(&r).as_array().unwrap().len(), 100);
        // No merger in the scenario: `null` for both, merged or not.
        assert!(
            body(&r).as_array().unwrap().iter().all(
                |m| m["merge_user"].is_null() && m.get("merged_by").is_some_and(Value::is_null)
            )
        );
        let r = gitlab(&s, BASE, "/api/v4/projects/4242/issues", "order_by=title");
        assert_eq!(r.status, 400);
        let r = gitlab(
            &s,
            BASE,
            "/api/v4/projects/4242/issues_statistics",
            "milestone=v2.0&scope=all",
        );
        let c = &body(&r)["statistics"]["counts"];
        assert_eq!(
            c["all"].as_u64().unwrap(),
            c["opened"].as_u64().unwrap() + c["closed"].as_u64().unwrap()
        );
        assert!(c["all"].as_u64().unwrap() > 0);
    }

    #[test]
    fn a_merged_merge_request_names_its_merger_twice() {
        let mut s = synthetic_gitlab("g/p", 9, "2025-01-01T00:00:00Z".parse().unwrap());
        let data = s.repos.get_mut("g/p").unwrap();
        let merged = data
            .merge_requests
            .iter()
            .position(|m| m["state"] == "merged")
            .unwrap();
        let open = data
            .merge_requests
            .iter()
            .position(|m| m["state"] == "opened")
            .unwrap();
        let user = json!({ "id": 5, "username": "merger" });
        data.merge_requests[merged]["merged_by"] = user.clone();
        data.merge_requests[open]["merge_user"] = json!({ "username": "auto" });
        let iids = [merged, open].map(|at| data.merge_requests[at]["iid"].clone());
        let r = gitlab(&s, BASE, "/api/v4/projects/4242/merge_requests", "");
        let listed = body(&r);
        let by_iid = |iid: &Value| {
            listed
                .as_array()
                .unwrap()
                .iter()
                .find(|m| &m["iid"] == iid)
                .unwrap()
                .clone()
        };
        let m = by_iid(&iids[0]);
        assert_eq!((&m["merge_user"], &m["merged_by"]), (&user, &user));
        // Open and set to merge: `merge_user` as the scenario says, not
        // merged by anyone.
        let o = by_iid(&iids[1]);
        assert_eq!(o["merge_user"]["username"], "auto");
        assert!(o["merged_by"].is_null());
    }

    #[test]
    fn forgejo_lists_newest_first_in_pages_of_50() {
        let s = synthetic_forgejo("o/n", 120, "2025-01-01T00:00:00Z".parse().unwrap());
        let r = forgejo(
            &s,
            BASE,
            "/api/v1/repos/o/n/issues",
            "state=all&since=2025-01-01T00:00:00Z&limit=100&page=1",
        );
        let b = body(&r);
        assert_eq!(b.as_array().unwrap().len(), 50);
        assert_eq!(b[0]["number"], 120);
        assert_eq!(header(&r, "X-Total-Count"), Some("120"));
        assert!(
            header(&r, "Link")
                .unwrap()
                .contains("page=2>; rel=\"next\"")
        );
        let r = forgejo(&s, BASE, "/api/v1/repos/o/n/issues", "state=all&type=pulls");
        assert!(
            body(&r)
                .as_array()
                .unwrap()
                .iter()
                .all(|i| !i["pull_request"].is_null())
        );
        let r = forgejo(&s, BASE, "/api/v1/repos/o/x", "");
        assert_eq!(body(&r)["message"], "The target couldn't be found.");
        let r = forgejo(&s, BASE, "/api/v1/repos/o/n/milestones", "state=open");
        assert_eq!(body(&r).as_array().unwrap().len(), 1);
    }
}
