//! An item's history page (`<group>/<repo>/history/<file>.html`), from
//! [`signals_core::history::ItemHistory`].

use serde::Serialize;
use signals_core::history::ItemHistory;

use crate::SiteError;
use crate::render::{Layout, TimeView, render};

/// The longest key part of a history file name: with the kind and
/// `.html` the name stays well under the 255 bytes file systems allow.
const KEY_MAX: usize = 160;

/// The file name of an item's history page, from its signal id
/// (`<source>:<owner>/<name>:<kind>:<key>`): `<kind>-<key>.html`, with
/// every byte of the key outside `[a-z0-9.-]` written as `_XX`, so any tag
/// is a safe, unique file name, even on a file system that ignores case
/// (`RC1` and `rc1` stay apart). A key longer than [`KEY_MAX`] once written
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

/// Renders an item's history page, for repository `repo_name` (its display
/// name) of group `group_name`.
pub fn render_history(
    history: &ItemHistory,
    group_name: &str,
    repo_name: &str,
) -> Result<String, SiteError> {
    #[derive(Serialize)]
    struct Observation {
        at: TimeView,
        kind: Option<&'static str>,
        fields: Vec<String>,
        changes: Vec<String>,
    }
    #[derive(Serialize)]
    struct View<'a> {
        layout: Layout,
        group_name: &'a str,
        repo_name: &'a str,
        item_id: &'a str,
        title: &'a str,
        url: Option<&'a str>,
        observations: Vec<Observation>,
    }
    render(
        "history.html",
        &View {
            layout: Layout {
                title: format!("{} · history · {repo_name}", history.title),
                root: "../../../",
                feed: None,
                filter_index: None,
            },
            group_name,
            repo_name,
            item_id: &history.id,
            title: &history.title,
            url: crate::text::http_url(&history.url),
            observations: history
                .observations
                .iter()
                .map(|o| Observation {
                    at: TimeView::of(o.at),
                    kind: o.kind.map(|k| k.as_str()),
                    fields: o.fields.clone(),
                    changes: o.changes.iter().map(|c| c.summary()).collect(),
                })
                .collect(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;
    use signals_core::{ItemDetail, ItemSnapshot, ItemState, Metrics, RepoName};

    fn snapshot(title: &str, labels: &[&str], state: ItemState) -> ItemSnapshot {
        let at: Timestamp = "2026-11-01T00:00:00Z".parse().unwrap();
        ItemSnapshot {
            repo: RepoName::parse("o/n").unwrap(),
            key: "7".into(),
            title: title.into(),
            text: "body".into(),
            url: "https://github.com/o/n/issues/7".into(),
            created_at: at,
            updated_at: at,
            metrics: Metrics {
                reactions: 3,
                comments: 0,
            },
            labels: labels.iter().map(|l| l.to_string()).collect(),
            author: "a".into(),
            state,
            closed_at: None,
            assignees: vec![],
            detail: ItemDetail::Issue,
        }
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

    /// Issue 10: a long tag made the export fail (file name too long).
    #[test]
    fn a_long_tag_names_a_file_that_can_be_written() {
        let dir = std::env::temp_dir().join(format!("signals-history-name-{}", std::process::id()));
        let name = history_file(&format!("gitlab:o/n:release:{}", "發布".repeat(60)));
        crate::write_content(&dir, std::path::Path::new(&name), b"x").unwrap();
        assert!(dir.join(&name).is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_history_page_shows_each_change_and_is_inert() {
        let t1: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
        let t2: Timestamp = "2026-11-21T10:00:00Z".parse().unwrap();
        let hostile = "<script>alert(1)</script>";
        let a = snapshot(
            hostile,
            &["bug", "<img src=x onerror=alert(1)>"],
            ItemState::Open,
        );
        let mut b = snapshot("Fixed", &["bug"], ItemState::Closed);
        b.metrics.reactions = 7;
        let h = signals_core::history::history("github:o/n:issue:7", &[(t1, a), (t2, b)]).unwrap();
        let html = render_history(&h, "Engines <b>", "N").unwrap();
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains("<img src=x"), "{html}");
        assert!(!html.contains("<b>"), "{html}");
        insta::assert_snapshot!(html);
    }
}
