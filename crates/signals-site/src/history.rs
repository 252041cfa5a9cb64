//! An item's history page (`<group>/<repo>/history/<file>.html`, named
//! by `paths::history_file`), from [`signals_core::history::ItemHistory`].

use serde::Serialize;
use signals_core::history::ItemHistory;

use crate::error::SiteError;
use crate::links::HistoryLinks;
use crate::templates::render;
use crate::text::http_url;
use crate::views::{Layout, TimeView};

/// Renders an item's history page, for repository `repo_name` (its display
/// name) of group `group_name`.
pub fn render_history(
    history: &ItemHistory,
    group_name: &str,
    repo_name: &str,
) -> Result<String, SiteError> {
    render_history_linked(history, group_name, repo_name, &HistoryLinks::default())
}

/// [`render_history`] with the item's links in its group.
pub fn render_history_linked(
    history: &ItemHistory,
    group_name: &str,
    repo_name: &str,
    links: &HistoryLinks,
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
        links: &'a HistoryLinks,
    }
    render(
        "history.html",
        &View {
            layout: Layout {
                title: format!("{} · history · {repo_name}", history.title),
                root: "../../../",
                base: None,
                feed: None,
                filter_index: None,
            },
            group_name,
            repo_name,
            item_id: &history.id,
            title: &history.title,
            url: http_url(&history.url),
            links,
            observations: history
                .observations
                .iter()
                .map(|o| Observation {
                    at: TimeView::of(o.at),
                    kind: o.kind.map(|k| k.as_str()),
                    fields: o.fields.clone(),
                    changes: o.summaries(),
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
            detail: ItemDetail::issue(),
        }
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
