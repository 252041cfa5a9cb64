//! The filter index that the page's own script (`filter.js`) reads to
//! filter, search and sort every signal of a repository in the browser,
//! not only the 50 on a page.
//!
//! Why separate files and not data inlined in the page: the pages stay
//! exactly as they are without JavaScript, the index is fetched only when a
//! reader starts filtering (or opens a shared filtered link), and no host
//! text ever sits inside a `<script>` element, so `</script>` or U+2028 in
//! a title cannot break out of anything. The files are plain `serde_json`
//! output, served as `application/json`; the script builds the results with
//! DOM calls (`textContent`, never `innerHTML`), and links only to http(s)
//! URLs that passed `text::http_url` here.
//!
//! A repository's index is columnar (`columns.rs`): `signals.json` holds
//! what filtering and sorting need, dictionary-coded, and the excerpts sit
//! in text parts of [`TEXT_PART`] signals each, read when a text query needs
//! them. Entries are in page order (importance, then `updatedAt`, then id),
//! so the default sort is the file's order and every entry knows its page
//! and anchor on the paged HTML.

use serde::{Deserialize, Serialize};
use signals_core::ItemKind;
use signals_core::dataset::SignalDoc;
use signals_core::importance::Score;

use crate::error::SiteError;
use crate::paths::{PAGE_SIZE, history_file, id_parts, item_number, page_file};
use crate::text::{excerpt, http_url};

mod columns;

pub use columns::{IndexFile, IndexWriter, TEXT_PART, read_index};

/// Version of the filter index format; the script refuses other versions.
/// 3: columnar, dictionary-coded, excerpts in text parts.
pub const FILTER_INDEX_VERSION: u32 = 3;

/// A group page's `signals.json`: the filter index of each of its
/// repositories, which the script reads and merges, so the group's filters
/// cover every signal of the group while its own file stays a few lines
/// long.
#[derive(Debug, Serialize)]
pub(crate) struct GroupIndex {
    pub version: u32,
    /// Signals in the whole group.
    pub total: usize,
    pub parts: Vec<IndexPart>,
}

/// One repository's filter index, as a part of a group's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct IndexPart {
    /// The index, relative to the group page (`<repo-id>/signals.json`).
    pub index: String,
    /// Prepended to each entry's links (`<repo-id>/`).
    pub prefix: String,
    /// The repository's display name, which each card names.
    pub repo: String,
}

/// One signal as the script sees it once it has decoded the index (and as
/// a group's `digest.json` keeps its best signals).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilterEntry {
    /// The signal id, `<source>:<owner>/<name>:<kind>:<key>`.
    pub id: String,
    /// `issue`, `pull_request`, `release`.
    pub kind: String,
    /// `#42`, or a release's tag.
    pub number: String,
    /// `open` or `closed`; empty for releases, which show no state.
    pub state: String,
    /// Label names.
    pub labels: Vec<String>,
    /// Author handle.
    pub author: String,
    /// Title.
    pub title: String,
    /// The card's excerpt (`text::excerpt`); empty until its text part is read.
    pub excerpt: String,
    /// The importance score at the latest run.
    pub importance: u32,
    /// `YYYY-MM-DDThh:mm:ssZ`, as in the dataset.
    pub updated: String,
    /// The original item, only when it is an http(s) URL.
    pub url: Option<String>,
    /// The card on the paged HTML, relative to the page holding the index
    /// (`page-3.html#<id>`).
    pub href: String,
    /// The item's history page, relative to the page holding the index.
    pub history: String,
    /// First seen in the latest run.
    pub new: bool,
    /// Changed in the latest run (`change: "updated"`).
    pub changed: bool,
    /// Display name of the repository; set on group pages only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
}

/// A signal as its entry shows it.
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a> {
    /// The signal.
    pub signal: &'a SignalDoc,
    /// Its importance at the dataset's instant.
    pub score: &'a Score,
    /// First seen in the latest run.
    pub new: bool,
}

/// The entry of `shown`, the `position`-th (0-based) signal in page order
/// of its repository; `prefix` is prepended to its page link (`""` on the
/// repository's own pages, `<repo-id>/` from a group page).
pub(crate) fn entry(shown: Shown<'_>, position: usize, prefix: &str) -> FilterEntry {
    let Shown {
        signal: s,
        score,
        new,
    } = shown;
    let kind = ItemKind::parse(&s.kind);
    let key = s.tag.as_deref().unwrap_or_else(|| id_parts(&s.id).1);
    FilterEntry {
        id: s.id.clone(),
        kind: match kind {
            Some(ItemKind::Issue) => "issue",
            Some(ItemKind::PullRequest) => "pull_request",
            Some(ItemKind::Release) => "release",
            Some(ItemKind::Discussion) => "discussion",
            Some(ItemKind::Advisory) => "advisory",
            None => "other",
        }
        .to_string(),
        number: item_number(kind, key),
        state: match (kind, s.state.as_str()) {
            (Some(ItemKind::Release), _) => "",
            (_, "open") => "open",
            (_, "closed") => "closed",
            _ => "",
        }
        .to_string(),
        labels: s.labels.clone(),
        author: s.author.clone(),
        title: s.title.clone(),
        excerpt: excerpt(&s.text),
        importance: score.total,
        updated: s.updated_at.clone(),
        url: http_url(&s.url).map(str::to_string),
        href: format!(
            "{prefix}{}#{}",
            page_file(position / PAGE_SIZE + 1),
            fragment(&s.id)
        ),
        history: format!("{prefix}history/{}", history_file(&s.id)),
        new,
        changed: s.change.is_some(),
        repo: None,
    }
}

/// A signal id as a URL fragment: everything but unreserved characters is
/// percent-encoded (`:` and `/` too, so no link can look like it has a
/// scheme); browsers decode it to find the card whose `id` is the signal id.
pub(crate) fn fragment(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The index as JSON. `serde_json` escapes quotes, backslashes and control
/// characters; the file is never inlined into HTML, so nothing else needs
/// escaping, but `<`, `>`, `&`, U+2028 and U+2029 are escaped too, so the
/// file stays inert even if a server sends it with a wrong content type.
pub(crate) fn to_json(index: &impl Serialize, what: &str) -> Result<String, SiteError> {
    let mut out = String::new();
    push_json(&mut out, index, what)?;
    out.push('\n');
    Ok(out)
}

/// Appends `value` as JSON to `out`, escaped as [`to_json`] escapes.
pub(crate) fn push_json(
    out: &mut String,
    value: &(impl Serialize + ?Sized),
    what: &str,
) -> Result<(), SiteError> {
    let json = serde_json::to_string(value).map_err(|source| SiteError::Json {
        repository: what.to_string(),
        source,
    })?;
    out.reserve(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_keep_ids_readable_and_encode_the_rest() {
        assert_eq!(
            fragment("github:o/n:issue:12"),
            "github%3Ao%2Fn%3Aissue%3A12"
        );
        assert_eq!(
            fragment("gitlab:o/n:release:v1 \"x\"#é"),
            "gitlab%3Ao%2Fn%3Arelease%3Av1%20%22x%22%23%C3%A9"
        );
    }

    #[test]
    fn json_is_inert_outside_a_json_parser() {
        let index = FilterEntry {
            id: "a".into(),
            kind: "issue".into(),
            number: "#1".into(),
            state: "open".into(),
            labels: vec!["</script><script>alert(1)</script>".into()],
            author: "x\u{2028}y".into(),
            title: "a & b".into(),
            excerpt: String::new(),
            importance: 1,
            updated: String::new(),
            url: None,
            href: String::new(),
            history: "history/issue-1.html".into(),
            new: false,
            changed: false,
            repo: None,
        };
        let json = to_json(&index, "t").unwrap();
        for bad in ['<', '>', '&', '\u{2028}'] {
            assert!(!json.contains(bad), "{bad:?} in {json}");
        }
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["labels"][0], "</script><script>alert(1)</script>");
        assert_eq!(back["author"], "x\u{2028}y");
    }
}
