//! A request to `signals serve`, as it reads the request target before it
//! touches the store: the path and the query string split and
//! percent-decoded, then, by the API's routes, the signals list's filters
//! (`SignalQuery::parse`), the trail's page, a signal id, and an item's
//! history page path, all through `signals_core::api`, the functions the
//! server calls (in the order of `serve/mod.rs`'s `handle` and
//! `serve/api.rs`'s `route`, which are glue around them).
//!
//! Besides "no panic, no hang", a harness checks what the functions
//! promise: a signal id's path form (`encode_id`) decodes back to the id;
//! a query that parsed gives a page from 1 to 1,000,000, known kinds,
//! states and orders, and a lower-cased `q`; a history path is the path it
//! was read from.

use signals_core::api::{
    MAX_Q, SignalQuery, encode_id, history_path, page_param, parse_id, parse_query, percent_decode,
};

/// Reads `data` (when it is UTF-8, as a request target must be) as a
/// request target: `/path?query`.
pub fn target(data: &[u8]) {
    let Ok(target) = std::str::from_utf8(data) else {
        return;
    };
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    // Whatever the path: every parameter reader on the query.
    let params = parse_query(query);
    if let Some(params) = &params {
        signals(params);
        let _ = page_param(params);
    }
    let Some(path) = percent_decode(path) else {
        return;
    };
    if path.contains('\0') {
        return;
    }
    if let Some(rest) = path.strip_prefix("/api/") {
        let parts: Vec<&str> = rest.split('/').collect();
        if let ["signals", rest @ ..] = parts.as_slice()
            && rest.last() == Some(&"history")
            && rest.len() >= 2
        {
            let id = rest[..rest.len() - 1].join("/");
            signal_id(&id);
        }
    }
    if let Some(signals_core::api::HistoryPath { group, repo, file }) = history_path(&path) {
        assert!(file.ends_with(".html"));
        assert_eq!(format!("/{group}/{repo}/history/{file}"), path);
    }
}

/// The signals list's filters.
fn signals(params: &std::collections::HashMap<String, String>) {
    let Ok(query) = SignalQuery::parse(params) else {
        return;
    };
    assert!((1..=1_000_000).contains(&query.page), "page {}", query.page);
    let filter = query.filter();
    assert!(
        filter
            .kind
            .is_none_or(|k| ["issue", "pull_request", "release"].contains(&k))
    );
    assert!(
        filter
            .state
            .is_none_or(|s| ["open", "closed", "merged"].contains(&s))
    );
    if let Some(q) = &query.q {
        let given = &params["q"];
        assert!(given.chars().count() <= MAX_Q);
        assert_eq!(q, given);
        // A query the API accepts has something to look for, and every
        // term fits the index.
        let search = query.search.as_ref().expect("q is parsed");
        assert!(!search.include.is_empty());
        assert!(
            search
                .terms()
                .iter()
                .all(|t| !t.is_empty() && t.len() <= 64)
        );
    }
}

/// A signal id: parsed, and its path form decoded back.
fn signal_id(id: &str) {
    if let Some(signals_core::api::IdRepo { repo, .. }) = parse_id(id) {
        assert!(repo.contains('/'));
    }
    assert_eq!(
        percent_decode(&encode_id(id)).as_deref(),
        Some(id),
        "{id:?}"
    );
}
