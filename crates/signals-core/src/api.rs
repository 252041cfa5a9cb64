//! What `signals serve` reads from a request (docs/api.md): the request
//! target's percent-encoded path and query string, an item's history page
//! path, a signal id, and the signals list's filters as a typed
//! [`SignalQuery`]. Pure parsing of outside input, apart from the server
//! that answers (the binary's `serve/`), so it can be tested and fuzzed
//! (`fuzz/`, docs/fuzzing.md). Every error says which parameter is wrong and
//! what it may be; the server answers it as a 400.

use std::collections::HashMap;

use crate::SourceId;

/// The longest `q` accepted, in characters.
pub const MAX_Q: usize = 200;

/// The parts of an item's history page path,
/// `/<group>/<repo>/history/<file>.html`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryPath<'a> {
    /// The group's id.
    pub group: &'a str,
    /// The repository's id in the group.
    pub repo: &'a str,
    /// The page's file name, `.html` included.
    pub file: &'a str,
}

/// The parts of `path` when it is an item's history page.
pub fn history_path(path: &str) -> Option<HistoryPath<'_>> {
    let parts: Vec<&str> = path.strip_prefix('/')?.split('/').collect();
    match parts.as_slice() {
        [group, repo, "history", file] if file.ends_with(".html") => {
            Some(HistoryPath { group, repo, file })
        }
        _ => None,
    }
}

/// The kinds of signal the API knows, as a signal id and `kind=` name
/// them.
pub const KINDS: [&str; 5] = ["issue", "pull_request", "release", "discussion", "advisory"];

/// Where a signal comes from, read from its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdRepo<'a> {
    /// The host of the id's first part.
    pub source: SourceId,
    /// The repository, `owner/name` (GitLab's may hold subgroups).
    pub repo: &'a str,
}

/// The source and repository of a signal id,
/// `<source>:<owner>/<name>:<kind>:<key>`.
pub fn parse_id(id: &str) -> Option<IdRepo<'_>> {
    let mut parts = id.splitn(4, ':');
    let source = parts.next()?;
    let repo = parts.next()?;
    let kind = parts.next()?;
    let key = parts.next()?;
    if key.is_empty() || !KINDS.contains(&kind) {
        return None;
    }
    let source = SourceId::parse(source).ok()?;
    repo.contains('/').then_some(IdRepo { source, repo })
}

/// A signal id in a path: `/` stays (the id's repository), the rest that
/// needs it is percent-encoded.
pub fn encode_id(id: &str) -> String {
    let mut out = String::new();
    for b in id.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' | b':' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The order of the signals list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    /// Best match first, ties by importance then id (`sort=relevance`, the
    /// default with `q`).
    Relevance,
    /// Highest importance first (`sort=importance`, the default without
    /// `q`).
    Importance,
    /// Latest update first (`sort=updated`).
    Updated,
}

/// The filters of `/signals`, as the site's filter script offers them.
#[derive(Debug)]
pub struct SignalQuery {
    /// `kind`: `issue`, `pull_request`, `release`, `discussion` or
    /// `advisory`.
    pub kind: Option<String>,
    /// `state`: `open`, `closed` or `merged`.
    pub state: Option<String>,
    /// `label`, exactly.
    pub label: Option<String>,
    /// `author`, exactly.
    pub author: Option<String>,
    /// `q`, as given.
    pub q: Option<String>,
    /// `q` parsed by the search language (docs/api.md, "Search").
    pub search: Option<crate::search::Query>,
    /// `sort`.
    pub sort: Sort,
    /// `page`, from 1.
    pub page: usize,
    /// `waiting=true`: open issues and pull requests without a
    /// first response, older than the configuration's `waiting_days`.
    pub waiting: bool,
}

/// The parameters [`SignalQuery::parse`] reads: the signals endpoint's,
/// as `serve`'s `/api/` lists them.
pub const SIGNAL_PARAMS: [&str; 8] = [
    "page", "q", "kind", "state", "label", "author", "sort", "waiting",
];

impl SignalQuery {
    /// The query's parameters, checked: an error says which one is wrong
    /// and what it may be.
    pub fn parse(params: &HashMap<String, String>) -> Result<SignalQuery, String> {
        let mut unknown: Vec<&String> = params
            .keys()
            .filter(|k| !SIGNAL_PARAMS.contains(&k.as_str()))
            .collect();
        unknown.sort();
        if let Some(key) = unknown.first() {
            let (last, rest) = SIGNAL_PARAMS.split_last().unwrap_or((&"", &[]));
            return Err(format!(
                "unknown parameter {key:?}: signals take {} and {last}",
                rest.join(", ")
            ));
        }
        let nonempty = |k: &str| params.get(k).filter(|v| !v.is_empty()).cloned();
        let kind = nonempty("kind");
        if let Some(k) = &kind
            && !KINDS.contains(&k.as_str())
        {
            return Err(format!(
                "kind {k:?} is not issue, pull_request, release, discussion or advisory"
            ));
        }
        let state = nonempty("state");
        if let Some(s) = &state
            && !["open", "closed", "merged"].contains(&s.as_str())
        {
            return Err(format!("state {s:?} is not open, closed or merged"));
        }
        let q = nonempty("q");
        if let Some(q) = &q
            && q.chars().count() > MAX_Q
        {
            return Err(format!("q is longer than {MAX_Q} characters"));
        }
        let search = match &q {
            None => None,
            Some(q) => Some(crate::search::Query::parse(q).map_err(|e| format!("q {q:?}: {e}"))?),
        };
        let sort = match (nonempty("sort").as_deref(), &search) {
            (None, Some(_)) | (Some("relevance"), Some(_)) => Sort::Relevance,
            (None | Some("importance"), _) => Sort::Importance,
            (Some("updated"), _) => Sort::Updated,
            (Some("relevance"), None) => {
                return Err("sort \"relevance\" needs a search: give q too".into());
            }
            (Some(other), _) => {
                return Err(format!(
                    "sort {other:?} is not relevance, importance or updated"
                ));
            }
        };
        let waiting = match params.get("waiting").map(String::as_str) {
            None | Some("" | "false") => false,
            Some("true") => true,
            Some(other) => return Err(format!("waiting {other:?} is not true or false")),
        };
        Ok(SignalQuery {
            waiting,
            kind,
            state,
            label: nonempty("label"),
            author: nonempty("author"),
            q,
            search,
            sort,
            page: page_param(params)?,
        })
    }

    /// The filters the rows of a repository's index are matched against.
    pub fn filter(&self) -> Filter<'_> {
        Filter {
            kind: self.kind.as_deref(),
            state: self.state.as_deref(),
            label: self.label.as_deref(),
            author: self.author.as_deref(),
            waiting_before: None,
        }
    }
}

/// The filters a row of the signals list is matched against (the API's
/// kinds and states: see [`SignalQuery`]).
#[derive(Debug, Default)]
pub struct Filter<'a> {
    /// An item kind: `issue`, `pull_request` or `release`.
    pub kind: Option<&'a str>,
    /// A state: `open`, `closed` or `merged`.
    pub state: Option<&'a str>,
    /// A label, exactly.
    pub label: Option<&'a str>,
    /// An author, exactly.
    pub author: Option<&'a str>,
    /// Only open issues and pull requests without a first response
    /// created before this instant (`waiting=true`).
    pub waiting_before: Option<jiff::Timestamp>,
}

/// `page`: 1 when absent or empty, else a number from 1 to 1,000,000.
pub fn page_param(params: &HashMap<String, String>) -> Result<usize, String> {
    match params.get("page").map(String::as_str) {
        None | Some("") => Ok(1),
        Some(p) => match p.parse::<usize>() {
            Ok(n) if (1..=1_000_000).contains(&n) => Ok(n),
            _ => Err(format!("page {p:?} is not a page number (1, 2, ...)")),
        },
    }
}

/// Decodes `%XX` escapes (and, in a query, `+` as a space); `None` when
/// the result is not UTF-8 or an escape is broken.
fn decode(s: &str, plus: bool) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if plus => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Decodes a path's `%XX` escapes (`+` stays); `None` when the result is
/// not UTF-8 or an escape is broken.
pub fn percent_decode(s: &str) -> Option<String> {
    decode(s, false)
}

/// The query's parameters; a repeated one keeps its last value.
pub fn parse_query(query: &str) -> Option<HashMap<String, String>> {
    let mut out = HashMap::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        out.insert(decode(k, true)?, decode(v, true)?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Source;

    #[test]
    fn ids_queries_and_escapes_parse_or_are_refused() {
        assert_eq!(
            parse_id("github:o/n:issue:7").map(|p| (p.source, p.repo)),
            Some((Source::Github.into(), "o/n"))
        );
        assert_eq!(
            parse_id("gitlab:g/sub/p:pull_request:3").map(|p| (p.source, p.repo)),
            Some((Source::Gitlab.into(), "g/sub/p"))
        );
        assert_eq!(
            parse_id("github-ghe:o/n:issue:7").map(|p| (p.source, p.repo)),
            Some((SourceId::parse("github-ghe").unwrap(), "o/n"))
        );
        assert_eq!(parse_id("github:o/n:commit:7"), None);
        assert_eq!(parse_id("nohost:o/n:issue:7"), None);
        assert_eq!(parse_id("github:on:issue:7"), None);
        assert_eq!(
            encode_id("github:o/n:release:v1.0 rc"),
            "github:o/n:release:v1.0%20rc"
        );
        assert_eq!(decode("a%20b+c", true).as_deref(), Some("a b c"));
        assert_eq!(decode("%zz", false), None);
        assert_eq!(decode("%", false), None);
        assert_eq!(decode("%ff", false), None);
        let q = parse_query("kind=issue&state=open&q=crash+on&page=2").unwrap();
        let parsed = SignalQuery::parse(&q).unwrap();
        assert_eq!(parsed.page, 2);
        assert_eq!(parsed.q.as_deref(), Some("crash on"));
        assert_eq!(parsed.sort, Sort::Relevance);
        assert_eq!(parsed.search.map(|s| s.include.len()), Some(2));
        let plain = SignalQuery::parse(&parse_query("sort=updated&q=crash").unwrap()).unwrap();
        assert_eq!(plain.sort, Sort::Updated);
        let err = SignalQuery::parse(&parse_query("q=...").unwrap()).unwrap_err();
        assert!(err.contains("no word to look for"), "{err}");
        for bad in [
            "page=0",
            "page=x",
            "kind=commit",
            "state=draft",
            "sort=stars",
            "sort=relevance",
            "q=ab*",
            "bogus=1",
        ] {
            assert!(
                SignalQuery::parse(&parse_query(bad).unwrap()).is_err(),
                "{bad}"
            );
        }
        let long = format!("q={}", "x".repeat(MAX_Q + 1));
        assert!(SignalQuery::parse(&parse_query(&long).unwrap()).is_err());
    }
}
