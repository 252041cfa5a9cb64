//! What `serve` answers where there is nothing else: the API's front door
//! (`GET /api/`, the endpoints as JSON) and the HTML page of a page that
//! does not exist, or not yet (the first export still running). A missing
//! API path stays a JSON error.

use std::collections::HashMap;

use serde_json::{Value, json};
use signals_core::api::SIGNAL_PARAMS;

use super::answer::{Answer, error, json_answer};

/// One endpoint of the API: what `/api/` lists, and what the router
/// checks a request's parameters against, so the two cannot disagree.
pub struct Endpoint {
    /// The path, with `{placeholders}`.
    pub path: &'static str,
    /// The query parameters it takes; any other is a 400.
    pub params: &'static [&'static str],
    /// What it answers, in a few words.
    pub answers: &'static str,
}

impl Endpoint {
    /// The 400 answer for the first parameter this endpoint does not take,
    /// naming the ones it does; `None` when every parameter is known.
    pub fn unknown_param(&self, params: &HashMap<String, String>) -> Option<Answer> {
        let mut unknown: Vec<&String> = params
            .keys()
            .filter(|k| !self.params.contains(&k.as_str()))
            .collect();
        unknown.sort();
        let key = unknown.first()?;
        let takes = match self.params {
            [] => "takes no parameter".to_string(),
            [one] => format!("takes only {one}"),
            [rest @ .., last] => format!("takes {} and {last}", rest.join(", ")),
        };
        Some(error(
            400,
            format!("unknown parameter {key:?}: {} {takes}", self.path),
        ))
    }
}

/// `GET /api/groups`.
pub const GROUPS: Endpoint = Endpoint {
    path: "/api/groups",
    params: &[],
    answers: "the groups, each with its repositories, their last run and health",
};
/// `GET /api/repos/{group}/{repo}/signals`: its parameters are the ones
/// `SignalQuery::parse` reads.
pub const SIGNALS: Endpoint = Endpoint {
    path: "/api/repos/{group}/{repo}/signals",
    params: &SIGNAL_PARAMS,
    answers: "a repository's signals of its latest run, filtered and paged",
};
/// `GET /api/repos/{group}/{repo}/trail`.
pub const TRAIL: Endpoint = Endpoint {
    path: "/api/repos/{group}/{repo}/trail",
    params: &["page"],
    answers: "a repository's observation trail, newest first, paged",
};
/// `GET /api/repos/{group}/{repo}/trends`.
pub const TRENDS: Endpoint = Endpoint {
    path: "/api/repos/{group}/{repo}/trends",
    params: &[],
    answers: "a repository's trends over its last 26 weeks (trends.json)",
};
/// `GET /api/repos/{group}/{repo}/verdict`.
pub const VERDICT: Endpoint = Endpoint {
    path: "/api/repos/{group}/{repo}/verdict",
    params: &[],
    answers: "is a repository alive and who carries it: its lifecycle state, reasons and maintainers (verdict.json)",
};
/// `GET /api/signals/{id}/history`.
pub const HISTORY: Endpoint = Endpoint {
    path: "/api/signals/{id}/history",
    params: &["group"],
    answers: "every stored snapshot of one item, with what changed in each",
};
/// `GET /api/signals/{id}/related`.
pub const RELATED: Endpoint = Endpoint {
    path: "/api/signals/{id}/related",
    params: &["group"],
    answers: "every item of the group telling the same story as one item, best first",
};
/// `GET /metrics`.
pub const METRICS: Endpoint = Endpoint {
    path: "/metrics",
    params: &[],
    answers: "the store's Prometheus metrics (text, not JSON)",
};
/// `GET /api/` itself.
pub const FRONT: Endpoint = Endpoint {
    path: "/api/",
    params: &[],
    answers: "this list of endpoints",
};

/// The API's endpoints, as `/api/` lists them.
pub const ENDPOINTS: [&Endpoint; 8] = [
    &GROUPS, &SIGNALS, &TRAIL, &TRENDS, &VERDICT, &HISTORY, &RELATED, &METRICS,
];

/// `GET /api/` (and `/api`): the endpoints, so the API can be found from
/// its root.
pub fn api_index() -> Answer {
    let endpoints: Vec<Value> = ENDPOINTS
        .iter()
        .map(|e| json!({"path": e.path, "params": e.params, "answers": e.answers}))
        .collect();
    json_answer(
        200,
        &json!({
            "api": "Repo Signals, read-only (GET and HEAD)",
            "docs": "docs/api.md",
            "endpoints": endpoints,
        }),
    )
}

/// The HTML answer to a page that does not exist: a page a browser shows,
/// with the way back to the index and the API.
pub fn page_not_found(path: &str) -> Answer {
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Page not found · Repo Signals</title>\n\
         <link rel=\"stylesheet\" href=\"/style.css\">\n</head>\n<body>\n<main>\n\
         <h1>Page not found</h1>\n<p>This site has no page at <code>{}</code>.</p>\n\
         <p><a href=\"/\">The index</a> lists every group and repository; \
         the JSON API is under <a href=\"/api/\">/api/</a>.</p>\n</main>\n</body>\n</html>\n",
        signals_core::hostile::html_text(path)
    );
    (404, "text/html; charset=utf-8", html.into_bytes())
}

/// What a page asked for before the first export is done says, as JSON.
pub const EXPORTING: &str = "the site's pages are still being exported (serve exports them when it \
     starts): ask again in a few seconds; the API answers meanwhile";

/// The HTML answer to a page asked for before the first export is done,
/// `waited` seconds after the server started. No stylesheet: it is not
/// exported yet either.
pub fn page_exporting(waited: u64) -> Answer {
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>The pages are being exported · Repo Signals</title>\n</head>\n<body>\n<main>\n\
         <h1>The pages are being exported</h1>\n\
         <p>The server started {waited} s ago and is writing the site's pages from the store; \
         at hundreds of repositories this takes minutes. Reload this page in a few seconds.</p>\n\
         <p>The JSON API answers meanwhile: <a href=\"/api/\">/api/</a>.</p>\n\
         </main>\n</body>\n</html>\n"
    );
    (503, "text/html; charset=utf-8", html.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_parameter_is_named_with_the_ones_the_endpoint_takes() {
        let params = |keys: &[&str]| -> HashMap<String, String> {
            keys.iter()
                .map(|k| (k.to_string(), "1".to_string()))
                .collect()
        };
        let message = |endpoint: &Endpoint, keys: &[&str]| {
            endpoint
                .unknown_param(&params(keys))
                .map(|(status, _, body)| (status, String::from_utf8(body).unwrap()))
        };
        assert_eq!(message(&GROUPS, &[]), None);
        let (status, body) = message(&GROUPS, &["x"]).unwrap();
        assert_eq!(status, 400);
        assert!(body.contains("/api/groups takes no parameter"), "{body}");
        let (_, body) = message(&HISTORY, &["group", "page"]).unwrap();
        assert!(
            body.contains("\\\"page\\\"") && body.contains("takes only group"),
            "{body}"
        );
        let (_, body) = message(&SIGNALS, &["zz", "q", "waiting"]).unwrap();
        assert!(
            body.contains("\\\"zz\\\"") && body.contains("sort and waiting"),
            "{body}"
        );
        assert_eq!(message(&SIGNALS, &SIGNAL_PARAMS), None);
    }

    #[test]
    fn the_missing_page_is_html_and_its_path_inert() {
        let (status, kind, body) = page_not_found("/<script>alert(1)</script>");
        assert_eq!((status, kind), (404, "text/html; charset=utf-8"));
        let body = String::from_utf8(body).unwrap();
        assert!(body.contains("&lt;script&gt;") && !body.contains("<script>"));
        assert!(body.contains("<main>"));
    }

    #[test]
    fn a_page_before_the_first_export_is_a_503_page_that_says_why() {
        let (status, kind, body) = page_exporting(42);
        assert_eq!((status, kind), (503, "text/html; charset=utf-8"));
        let body = String::from_utf8(body).unwrap();
        assert!(body.contains("started 42 s ago") && body.contains("/api/"));
        assert!(!body.contains("style.css"), "{body}");
    }
}
