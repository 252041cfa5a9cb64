//! The HTTP pieces every route of the fake hosts shares: a response before
//! the server's headers, a query's parameters, and a page of a list with
//! its `Link` header. It imports nothing of the crate.

use serde_json::{Value, json};

/// A response before the server adds ETag, rate-limit and connection
/// headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub(crate) fn json(status: u16, value: &Value) -> Response {
        Response {
            status,
            headers: vec![],
            body: serde_json::to_vec(value).unwrap_or_default(),
        }
    }

    pub(crate) fn not_found(doc: &str) -> Response {
        Response::json(
            404,
            &json!({ "message": "Not Found", "documentation_url": doc, "status": "404" }),
        )
    }
}

/// Splits `a=1&b=2` into decoded pairs.
pub(crate) fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

/// Decodes `%XX` escapes and `+` (a space) of a query's name or value.
pub(crate) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = |b: u8| (b as char).to_digit(16);
                match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 3;
                    }
                    _ => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The value of `name` in a parsed query, when it is there.
pub(crate) fn param<'a>(query: &'a [(String, String)], name: &str) -> Option<&'a str> {
    query
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// One page of `list`, with a `Link` header like GitHub's when there is
/// more than one page.
pub(crate) fn paginate<T: std::borrow::Borrow<Value>>(
    base: &str,
    path: &str,
    params: &[(String, String)],
    list: &[T],
    per_page: usize,
    page: usize,
) -> Response {
    let pages = list.len().div_ceil(per_page).max(1);
    let start = (page - 1).saturating_mul(per_page).min(list.len());
    let end = (start + per_page).min(list.len());
    let page_of: Vec<Value> = list[start..end]
        .iter()
        .map(|v| v.borrow().clone())
        .collect();
    let mut r = Response::json(200, &Value::Array(page_of));
    if pages > 1 {
        let url = |p: usize| {
            let mut q: Vec<String> = params
                .iter()
                .filter(|(k, _)| k != "page")
                .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
                .collect();
            q.push(format!("page={p}"));
            format!("{base}{path}?{}", q.join("&"))
        };
        let mut links = vec![];
        if page > 1 {
            links.push(format!("<{}>; rel=\"prev\"", url((page - 1).min(pages))));
        }
        if page < pages {
            links.push(format!("<{}>; rel=\"next\"", url(page + 1)));
            links.push(format!("<{}>; rel=\"last\"", url(pages)));
        }
        if page > 1 {
            links.push(format!("<{}>; rel=\"first\"", url(1)));
        }
        r.headers.push(("Link".into(), links.join(", ")));
    }
    r
}

/// Percent-encodes a query name or value of the `Link` headers it sends,
/// as the hosts do. Written here, not taken from `signals-gitlab` (whose
/// `encode` is the same): the fake host models the servers on its own, so
/// a mistake in a client's encoding cannot be matched by the same mistake
/// here.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
