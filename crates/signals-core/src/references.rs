//! References between items: what a text (an item's
//! body, a comment) names, as *reference keys*, and where an item itself
//! is, as its own key; two items are linked when a text of one names the
//! other's key. Pure: texts in, keys out; the store keeps the keys and
//! resolves them within a group when read (docs/decisions.md, "References
//! across a group").
//!
//! A key is `<host>/<path>#<n>` (an issue, or a pull request where the
//! two share numbers: GitHub, Forgejo/Gitea, GitLab issues) or
//! `<host>/<path>!<n>` (a GitLab merge request), lower-cased: the same
//! for every way of naming an item, and taken from the item's own URL
//! (`own_key`), so no host configuration is needed and any host, GitHub
//! Enterprise or a GitLab under a sub-path included, keys alike.
//!
//! Recognised in a text:
//! - URLs of items: `https://github.com/o/n/issues/1` and `/pull/1`,
//!   Forgejo's `/o/n/issues/1` and `/pulls/1`, GitLab's
//!   `/group/sub/proj/-/issues/1`, `/-/work_items/1` and
//!   `/-/merge_requests/1`, on any host;
//! - `owner/name#123` (and GitLab's `group/proj!12`), on the host of the
//!   text's own item;
//! - `#123` (and `!12`), in the repository of the text's own item.
//!
//! Not recognised: anything inside a fenced code block or an inline code
//! span (logs and code are full of `#1`), a reference glued to a word
//! (`abc#1`, `&#123;`), numbers over 9 digits. Work is bounded: the first
//! [`MAX_SCAN`] bytes of a text are read once, and at most [`MAX_TARGETS`]
//! distinct keys are kept.

use std::collections::BTreeSet;

use crate::ItemSnapshot;

/// Bytes of a text that are looked at; the rest is ignored (a GitHub
/// body holds at most 65,536 characters, release notes 125,000).
pub const MAX_SCAN: usize = 256 * 1024;
/// Distinct keys kept per text.
pub const MAX_TARGETS: usize = 100;
/// The text tag of an item's body in [`ItemReferences::text`].
pub const BODY: &str = "body";

/// What one text of an item names, and where the item itself is: what a
/// run commits for the store to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemReferences {
    /// The item's signal id.
    pub item_id: String,
    /// The item's own key ([`own_key`] of its URL); `None` leaves the
    /// stored one as it is (a release has none).
    pub own: Option<String>,
    /// Which text of the item: [`BODY`], or a tag of the caller's for
    /// another text (for example `comment:<host id>`); the store replaces
    /// the keys of one (item, text) pair at a time.
    pub text: String,
    /// The keys the text names, sorted, without the item's own.
    pub targets: Vec<String>,
}

/// The body references of each snapshot (by signal id), as a run commits
/// them: one entry per item whose snapshot is new.
pub fn of_snapshots(snapshots: &[(String, ItemSnapshot)]) -> Vec<ItemReferences> {
    snapshots
        .iter()
        .map(|(id, item)| of_text(id, &item.url, BODY, &item.text))
        .collect()
}

/// The references of `text`, one text of the item `item_id` whose web URL
/// is `item_url`, tagged `tag`. This is the one call for any text attached
/// to an item (a comment's body too).
pub fn of_text(item_id: &str, item_url: &str, tag: &str, text: &str) -> ItemReferences {
    let own = own_key(item_url);
    let mut targets = match place_of(item_url) {
        Some(place) => extract(text, &place),
        None => extract(text, &Place::default()),
    };
    if let Some(own) = &own {
        targets.retain(|t| t != own);
    }
    ItemReferences {
        item_id: item_id.to_string(),
        own,
        text: tag.to_string(),
        targets,
    }
}

/// Where a text is written: the host and repository path of its item,
/// lower-cased; shorthand references are read against it. Empty parts
/// (an item without an http(s) URL) make shorthand references unusable,
/// and they are dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    /// `github.com`, `gitlab.example:8443`.
    pub host: String,
    /// `owner/name`, `group/sub/proj`.
    pub repo: String,
}

/// One recognised URL of a repository: its place, and the item key when
/// it names an issue, pull or merge request.
struct Parsed {
    place: Place,
    key: Option<String>,
}

/// The key of the item at `url` (its own web URL), or `None` when the URL
/// is not an issue, pull or merge request URL (a release's).
pub fn own_key(url: &str) -> Option<String> {
    parse_url(url.trim()).and_then(|p| p.key)
}

/// The place of an item from its own web URL (an issue, pull or merge
/// request, or a release: `/o/n/releases/tag/v1`, `/g/p/-/releases/v1`).
pub fn place_of(url: &str) -> Option<Place> {
    parse_url(url.trim()).map(|p| p.place)
}

/// The place of a repository from its web URL (`https://host/owner/name`,
/// `https://host/group/sub/project`, a Forgejo under a sub-path): its host
/// and whole path, lower-cased; `None` for anything else. For a text
/// whose item's own URL is not at hand.
pub fn place_of_repo(url: &str) -> Option<Place> {
    let lower = url.trim().to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))?;
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (host, path) = rest.split_once('/')?;
    let path = path.trim_end_matches('/');
    let segments = path.split('/').count();
    let usable = !host.is_empty() && !host.contains('@') && host.is_ascii();
    (usable && segments >= 2 && !path.split('/').any(str::is_empty)).then(|| Place {
        host: host.to_string(),
        repo: path.to_string(),
    })
}

/// The distinct keys `text` names, sorted, read against `place`.
pub fn extract(text: &str, place: &Place) -> Vec<String> {
    let mut end = text.len().min(MAX_SCAN);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut keys = BTreeSet::new();
    let mut fence: Option<(u8, usize)> = None;
    for line in text[..end].split('\n') {
        if keys.len() >= MAX_TARGETS {
            break;
        }
        if let Some((ch, len)) = fence {
            if closes_fence(line, ch, len) {
                fence = None;
            }
            continue;
        }
        if let Some(open) = opens_fence(line) {
            fence = Some(open);
            continue;
        }
        let mut from = 0;
        for (start, stop) in code_spans(line) {
            scan(&line[from..start], place, &mut keys);
            from = stop;
        }
        scan(&line[from..], place, &mut keys);
    }
    keys.into_iter().take(MAX_TARGETS).collect()
}

/// A line that opens a fenced code block: up to 3 spaces, then 3 or more
/// backticks or tildes (backticks: none in the info string).
fn opens_fence(line: &str) -> Option<(u8, usize)> {
    let rest = strip_indent(line)?;
    let ch = *rest.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = rest.bytes().take_while(|&b| b == ch).count();
    let info = &rest[len..];
    (len >= 3 && !(ch == b'`' && info.contains('`'))).then_some((ch, len))
}

/// A line that closes the fence opened with `len` of `ch`.
fn closes_fence(line: &str, ch: u8, len: usize) -> bool {
    let Some(rest) = strip_indent(line) else {
        return false;
    };
    let run = rest.bytes().take_while(|&b| b == ch).count();
    run >= len && rest[run..].trim().is_empty()
}

/// The line without up to 3 leading spaces; `None` when indented more.
fn strip_indent(line: &str) -> Option<&str> {
    let spaces = line.bytes().take_while(|&b| b == b' ').count();
    (spaces <= 3).then(|| &line[spaces..])
}

/// The byte ranges of the inline code spans of a line: a run of backticks
/// up to the next run of the same length. A run without its match is
/// text. Each length that finds no match is searched for once per line,
/// so the work stays linear in practice and bounded by the scan limit.
fn code_spans(line: &str) -> Vec<(usize, usize)> {
    let bytes = line.as_bytes();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let start = i;
            while i < bytes.len() && bytes[i] == b'`' {
                i += 1;
            }
            runs.push((start, i - start));
        } else {
            i += 1;
        }
    }
    let mut spans = Vec::new();
    let mut unmatched: BTreeSet<usize> = BTreeSet::new();
    let mut r = 0;
    while r < runs.len() {
        let (start, len) = runs[r];
        if !unmatched.contains(&len)
            && let Some(close) = (r + 1..runs.len()).find(|&j| runs[j].1 == len)
        {
            spans.push((start, runs[close].0 + len));
            r = close + 1;
            continue;
        }
        unmatched.insert(len);
        r += 1;
    }
    spans
}

/// Whether a reference may start after `prev`: at the start, after a
/// space or after punctuation that Markdown puts around words; never
/// glued to a word, a path or an entity (`abc#1`, `a/b#1`, `&#1;`).
fn starts_after(prev: Option<char>) -> bool {
    match prev {
        None => true,
        Some(c) => c.is_whitespace() || "([{<>\"'*_~,;:|".contains(c),
    }
}

/// Whether a reference may end before `next`.
fn ends_before(next: Option<u8>) -> bool {
    next.is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
}

fn is_path_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'/')
}

/// A number of 1 to 9 digits, not 0, at the start of `s`; with its length.
fn number(s: &[u8]) -> Option<(u32, usize)> {
    let len = s.iter().take_while(|b| b.is_ascii_digit()).count();
    if len == 0 || len > 9 || !ends_before(s.get(len).copied()) {
        return None;
    }
    let n: u32 = std::str::from_utf8(&s[..len]).ok()?.parse().ok()?;
    (n > 0).then_some((n, len))
}

fn key(host: &str, repo: &str, sigil: u8, n: u32) -> String {
    format!("{host}/{repo}{}{n}", sigil as char)
}

/// The references in a piece of a line outside code, added to `keys`.
/// Each byte is looked at a bounded number of times: every branch moves
/// past what it read.
fn scan(s: &str, place: &Place, keys: &mut BTreeSet<String>) {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut prev: Option<char> = None;
    while i < bytes.len() {
        let b = bytes[i];
        if starts_after(prev) {
            if starts_url(&bytes[i..]) {
                let len = bytes[i..]
                    .iter()
                    .take_while(|&&c| !(c.is_ascii_whitespace() || b"<>\"'()[]{}`|\\".contains(&c)))
                    .count();
                // A sentence's punctuation after a URL is not part of it.
                let url = s[i..i + len].trim_end_matches(['.', ',', ';', ':', '!', '?']);
                if let Some(k) = parse_url(url).and_then(|p| p.key) {
                    keys.insert(k);
                }
                i += len;
                prev = s[..i].chars().next_back();
                continue;
            }
            if (b == b'#' || b == b'!') && !place.repo.is_empty() {
                if let Some((n, len)) = number(&bytes[i + 1..]) {
                    keys.insert(key(&place.host, &place.repo, b, n));
                    i += 1 + len;
                    prev = Some('0');
                    continue;
                }
            } else if is_path_byte(b) && b != b'/' {
                let len = bytes[i..].iter().take_while(|&&c| is_path_byte(c)).count();
                let path = &s[i..i + len];
                let sigil = bytes.get(i + len).copied();
                if matches!(sigil, Some(b'#' | b'!'))
                    && is_repo_path(path)
                    && !place.host.is_empty()
                    && let Some((n, digits)) = number(&bytes[i + len + 1..])
                {
                    let repo = path.to_ascii_lowercase();
                    keys.insert(key(&place.host, &repo, sigil.unwrap_or(b'#'), n));
                    i += len + 1 + digits;
                } else {
                    i += len;
                }
                prev = Some('a');
                continue;
            }
        }
        let c = s[i..].chars().next().unwrap_or('\u{fffd}');
        prev = Some(c);
        i += c.len_utf8().max(1);
    }
}

/// `owner/name` or `group/sub/proj`: two or more non-empty segments.
fn is_repo_path(path: &str) -> bool {
    let mut segments = 0;
    for seg in path.split('/') {
        if seg.is_empty() || seg == "." || seg == ".." {
            return false;
        }
        segments += 1;
    }
    segments >= 2
}

fn starts_url(s: &[u8]) -> bool {
    let lower = |n: usize| s.get(..n).map(|p| p.to_ascii_lowercase());
    lower(7).is_some_and(|p| p == b"http://") || lower(8).is_some_and(|p| p == b"https://")
}

/// A URL of a repository's item or release, with its place and, for an
/// item, its key.
fn parse_url(url: &str) -> Option<Parsed> {
    let lower = url.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))?;
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (host, path) = rest.split_once('/')?;
    if host.is_empty() || host.contains('@') || !host.is_ascii() {
        return None;
    }
    let segs: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    if segs.iter().any(|s| s.is_empty()) {
        return None;
    }
    let place = |repo: &[&str]| Place {
        host: host.to_string(),
        repo: repo.join("/"),
    };
    // GitLab: `<path>/-/<what>/<n>`.
    if let Some(dash) = segs.iter().position(|s| *s == "-") {
        if dash < 2 {
            return None;
        }
        let place = place(&segs[..dash]);
        let sigil = match segs.get(dash + 1).copied() {
            Some("issues" | "work_items") => b'#',
            Some("merge_requests") => b'!',
            Some("releases") => return Some(Parsed { place, key: None }),
            _ => return None,
        };
        let n = item_number(segs.get(dash + 2)?)?;
        let key = key(&place.host, &place.repo, sigil, n);
        return Some(Parsed {
            place,
            key: Some(key),
        });
    }
    // GitHub, Forgejo/Gitea: `<owner>/<name>/<what>/<n>`, possibly under
    // a sub-path: the first `issues|pull|pulls|releases` after two
    // segments.
    let at = (2..segs.len()).find(|&j| {
        matches!(segs[j], "issues" | "pull" | "pulls" | "releases")
            && segs
                .get(j + 1)
                .is_some_and(|s| segs[j] == "releases" || item_number(s).is_some())
    })?;
    let place = place(&segs[..at]);
    if segs[at] == "releases" {
        return Some(Parsed { place, key: None });
    }
    let n = item_number(segs[at + 1])?;
    let key = key(&place.host, &place.repo, b'#', n);
    Some(Parsed {
        place,
        key: Some(key),
    })
}

/// A path segment that is an item number.
fn item_number(seg: &str) -> Option<u32> {
    number(seg.as_bytes())
        .filter(|&(_, len)| len == seg.len())
        .map(|(n, _)| n)
}

#[cfg(test)]
mod tests;
