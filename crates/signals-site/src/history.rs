//! An item's history page (`<group>/<repo>/history/<file>.html`), from
//! [`signals_core::history::ItemHistory`].

use serde::Serialize;
use signals_core::history::ItemHistory;

use crate::SiteError;
use crate::render::{Layout, TimeView, render};

/// The file name of an item's history page, from its signal id
/// (`<source>:<owner>/<name>:<kind>:<key>`): `<kind>-<key>.html`, with
/// every byte of the key outside `[A-Za-z0-9.-]` written as `_XX`, so any
/// tag is a safe, unique file name.
pub fn history_file(item_id: &str) -> String {
    let mut parts = item_id.rsplitn(3, ':');
    let key = parts.next().unwrap_or("");
    let kind = parts.next().unwrap_or("item");
    let mut out = String::with_capacity(kind.len() + key.len() + 6);
    out.push_str(kind);
    out.push('-');
    for b in key.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' => out.push(b as char),
            _ => out.push_str(&format!("_{b:02X}")),
        }
    }
    out.push_str(".html");
    out
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
