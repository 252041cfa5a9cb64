//! Where things are in the site: the names of the files a repository's
//! folder holds, which page holds which signal or event, and the parts of
//! a signal id that name its file and its number.
//!
//! A leaf: it imports nothing of the crate, so every other module can name
//! a file without pulling in how the file is rendered. It must not write
//! anything; `write.rs` does.

use std::path::PathBuf;

use signals_core::ItemKind;
use signals_core::dataset::Document;

/// Signal cards per page.
pub const PAGE_SIZE: usize = 50;
/// Observation events per trail page.
pub const TRAIL_PAGE_SIZE: usize = 200;
/// Repositories in the "most active" table of the index and of a group
/// page; the rest are on the paged lists.
pub const TOP_REPOS: usize = 25;
/// Repositories per page of a paged list (`repos-<n>.html`).
pub const LIST_PAGE_SIZE: usize = 100;
/// Name of the filter index beside a page with signals.
pub const FILTER_INDEX_FILE: &str = "signals.json";

/// Page `n` of a paged list of repositories: `repos-<n>.html`, from 1, in
/// the site's folder (every repository) or a group's (its repositories).
/// The dot keeps it apart from any group or repository folder: ids are
/// slugs, which have none.
pub(crate) fn repos_file(n: usize) -> String {
    format!("repos-{n}.html")
}

/// `index.html` for page 1, `page-<n>.html` after.
pub(crate) fn page_file(n: usize) -> String {
    if n == 1 {
        "index.html".to_string()
    } else {
        format!("page-{n}.html")
    }
}

/// `trail.html` for trail page 1, `trail-<n>.html` after.
pub(crate) fn trail_file(n: usize) -> String {
    if n == 1 {
        "trail.html".to_string()
    } else {
        format!("trail-{n}.html")
    }
}

/// The longest key part of a history file name: with the kind and
/// `.html` the name stays well under the 255 bytes file systems allow.
const KEY_MAX: usize = 160;

/// The file name of an item's history page, from its signal id
/// (`<source>:<owner>/<name>:<kind>:<key>`): `<kind>-<key>.html`, with
/// every byte of the key outside `[a-z0-9.-]` written as `_XX`, so any tag
/// is a safe, unique file name, even on a file system that ignores case
/// (`RC1` and `rc1` stay apart). A key longer than `KEY_MAX` (160) once written
/// (a long tag, or a short one in a non-Latin script: 9 characters a
/// letter) is cut there and ended with a hash of the whole key, so the
/// name still fits a file system and stays unique.
pub fn history_file(item_id: &str) -> String {
    let mut parts = item_id.rsplitn(3, ':');
    let key = parts.next().unwrap_or("");
    let kind = parts.next().unwrap_or("item");
    let mut name = String::with_capacity(key.len());
    for b in key.bytes() {
        match b {
            b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' => name.push(b as char),
            _ => name.push_str(&format!("_{b:02X}")),
        }
    }
    if name.len() > KEY_MAX {
        name.truncate(KEY_MAX); // ASCII: any byte is a boundary
        name.push_str(&format!("-{:016x}", fnv1a(key.as_bytes())));
    }
    format!("{kind}-{name}.html")
}

/// 64-bit FNV-1a: a stable hash that keeps cut file names apart (not for
/// security: a tag is chosen by the repository's owners, who gain nothing
/// from a collision but a wrong history link in their own repository).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `(kind, key)` of a signal id `<source>:<owner>/<name>:<kind>:<key>`
/// (a tag cannot hold `:`, so the key is after the last one).
pub(crate) fn id_parts(id: &str) -> (Option<ItemKind>, &str) {
    let mut parts = id.rsplitn(3, ':');
    let key = parts.next().unwrap_or(id);
    let kind = parts.next().and_then(ItemKind::parse);
    (kind, key)
}

/// `#42` for an issue or pull request, the tag for a release, the GHSA id
/// for an advisory.
pub(crate) fn item_number(kind: Option<ItemKind>, key: &str) -> String {
    match kind {
        Some(ItemKind::Release | ItemKind::Advisory) => key.to_string(),
        _ => format!("#{key}"),
    }
}

/// `<group>/<repo>` of a document: its folder, as errors name it.
pub(crate) fn repo_label(doc: &Document) -> String {
    format!("{}/{}", doc.dataset.group.id, doc.dataset.repository.id)
}

/// An id that cannot name a folder (`SiteError::BadId` once it reaches a
/// caller).
#[derive(Debug)]
pub(crate) struct NotSlug {
    /// `group` or `repository`.
    pub what: &'static str,
    /// The id.
    pub id: String,
}

/// `id`, when it is a slug (lowercase letters, digits and single dashes)
/// and so can name a folder: the site never writes outside `<out>`.
pub(crate) fn slug<'a>(what: &'static str, id: &'a str) -> Result<&'a str, NotSlug> {
    if signals_core::is_slug(id) {
        Ok(id)
    } else {
        Err(NotSlug {
            what,
            id: id.to_string(),
        })
    }
}

/// `<group>/<repo>`, the folder of a repository under `<out>`.
pub(crate) fn repo_dir(group: &str, repo: &str) -> Result<PathBuf, NotSlug> {
    Ok(PathBuf::from(slug("group", group)?).join(slug("repository", repo)?))
}

/// The folder of a document's repository under `<out>`.
pub(crate) fn document_dir(doc: &Document) -> Result<PathBuf, NotSlug> {
    repo_dir(&doc.dataset.group.id, &doc.dataset.repository.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_give_kind_and_number() {
        let (kind, key) = id_parts("github:o/n:pull_request:12");
        assert_eq!((kind, key), (Some(ItemKind::PullRequest), "12"));
        assert_eq!(item_number(kind, key), "#12");
        let (kind, key) = id_parts("github:o/n:release:v1.0.0-rc.1");
        assert_eq!(item_number(kind, key), "v1.0.0-rc.1");
    }

    #[test]
    fn file_names_are_safe_and_distinct() {
        assert_eq!(history_file("github:o/n:issue:7"), "issue-7.html");
        assert_eq!(
            history_file("github:o/n:release:v1.0/../x"),
            "release-v1.0_2F.._2Fx.html"
        );
        assert_ne!(
            history_file("github:o/n:release:a b"),
            history_file("github:o/n:release:a_b")
        );
        assert_eq!(
            history_file("gitlab:g/sub/p:pull_request:3"),
            "pull_request-3.html"
        );
        // Case-insensitive file systems cannot merge two tags.
        assert_eq!(
            history_file("github:o/n:release:v1.0-RC1"),
            "release-v1.0-_52_431.html"
        );
        assert_ne!(
            history_file("github:o/n:release:v1.0-RC1").to_lowercase(),
            history_file("github:o/n:release:v1.0-rc1").to_lowercase()
        );
    }

    #[test]
    fn long_keys_are_cut_and_stay_distinct() {
        // 40 letters of a non-Latin script: 120 bytes, 360 once escaped.
        let tag = "版".repeat(40);
        let a = history_file(&format!("github:o/n:release:{tag}"));
        let b = history_file(&format!("github:o/n:release:{tag}x"));
        let c = history_file(&format!("github:o/n:release:{}", "v".repeat(1000)));
        for name in [&a, &b, &c] {
            assert!(name.len() <= 200, "{} bytes: {name}", name.len());
            assert!(name.starts_with("release-") && name.ends_with(".html"));
            assert!(!name.contains('/'));
        }
        assert_ne!(a, b);
        // Short keys are never cut, so their names do not change.
        assert_eq!(
            history_file(&format!("github:o/n:release:{}", "v".repeat(KEY_MAX))),
            format!("release-{}.html", "v".repeat(KEY_MAX))
        );
    }

    /// A long tag once made the export fail (file name too long).
    #[test]
    fn a_long_tag_names_a_file_that_can_be_written() {
        let dir = std::env::temp_dir().join(format!("signals-history-name-{}", std::process::id()));
        let name = history_file(&format!("gitlab:o/n:release:{}", "發布".repeat(60)));
        crate::write::write_content(&dir, std::path::Path::new(&name), b"x").unwrap();
        assert!(dir.join(&name).is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn only_slugs_name_folders() {
        assert_eq!(
            repo_dir("g", "r-1").unwrap(),
            std::path::Path::new("g").join("r-1")
        );
        let e = repo_dir("g", "../x").unwrap_err();
        assert_eq!((e.what, e.id.as_str()), ("repository", "../x"));
        assert_eq!(repo_dir("G", "r").unwrap_err().what, "group");
    }
}
