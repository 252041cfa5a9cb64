//! The domain types: what a repository, an item snapshot, a run and an
//! observation event are, independent of any code host's JSON and of any
//! storage layout.
//!
//! Host crates convert their wire types into these; the store keeps them; the
//! dataset and the site are views computed from them.
//!
//! One module per concern (names, repositories, items, runs, news, the
//! HTTP layer's plain data), every type re-exported here and at the crate
//! root.

mod comment;
mod discussion;
mod http;
mod item;
mod names;
mod news;
mod repo;
mod run;

pub use comment::{Comment, CommentKind, Merge, is_bot_login};
pub use discussion::{
    COMMUNITY_DISCUSSIONS, CommunityDiscussion, DiscussionHead, Discussions, DiscussionsOff,
    GraphqlCost, WATERMARK_MARGIN, watermark,
};
pub use http::{CachedResponse, RateLimit, RequestStats};
pub use item::{
    ClosedAs, CvssScore, ItemDetail, ItemKind, ItemSnapshot, ItemState, Metrics, Severity,
    signal_id,
};
pub use names::{RepoName, RepoNameError, Source, SourceId, SourceIdError, is_slug, slugify};
pub use news::{News, highlights};
pub use repo::{Group, Milestone, RepoContext, TrackedRepo};
pub use run::{AssetCount, Collected, EventKind, RunRecord, TrailEvent};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_ids_keep_bare_kinds_and_qualify_further_hosts() {
        let repo = RepoName::parse("o/n").unwrap();
        let first = SourceId::from(Source::Github);
        // The first host of a kind writes exactly what a bare kind wrote.
        assert_eq!(
            signal_id(&first, &repo, ItemKind::Issue, "7"),
            signal_id(Source::Github, &repo, ItemKind::Issue, "7")
        );
        assert_eq!(
            signal_id(&first, &repo, ItemKind::Issue, "7"),
            "github:o/n:issue:7"
        );
        let ghe = SourceId::qualified(Source::Github, "ghe").unwrap();
        assert_eq!(
            signal_id(&ghe, &repo, ItemKind::Issue, "7"),
            "github-ghe:o/n:issue:7"
        );
        assert_eq!((ghe.kind(), ghe.host()), (Source::Github, Some("ghe")));
        assert_eq!(ghe.display_name(), "GitHub (ghe)");
        assert!(first == Source::Github && ghe != Source::Github);
        // A qualified source never equals a bare kind, nor another kind's.
        let gitlab = SourceId::qualified(Source::Gitlab, "github").unwrap();
        assert_eq!(gitlab.as_str(), "gitlab-github");
        for text in [
            "github",
            "gitlab",
            "forgejo",
            "github-ghe",
            "gitlab-gnome-org",
        ] {
            let parsed = SourceId::parse(text).unwrap();
            assert_eq!(parsed.as_str(), text);
            let json = serde_json::to_string(&parsed).unwrap();
            assert_eq!(serde_json::from_str::<SourceId>(&json).unwrap(), parsed);
        }
        for bad in [
            "",
            "gitea",
            "github-",
            "github-GHE",
            "github-a b",
            "github--x",
            "-x",
        ] {
            assert!(SourceId::parse(bad).is_err(), "{bad:?}");
        }
        assert!(SourceId::qualified(Source::Forgejo, "Code Berg").is_none());
    }

    #[test]
    fn repo_names() {
        assert!(RepoName::parse("rust-lang/rust").is_ok());
        assert!(RepoName::parse("sigmavirus24/github3.py").is_ok());
        for bad in [
            "", "a", "a/", "/b", "a//c", "a b/c", "../x", "a/..", "a/../b",
        ] {
            assert!(RepoName::parse(bad).is_err(), "{bad}");
        }
        // GitLab's nested groups: the owner is the whole namespace.
        let nested = RepoName::parse("gnome/world/podcasts").unwrap();
        assert_eq!(nested.owner(), "gnome/world");
        assert_eq!(nested.name(), "podcasts");
        assert!(nested.is_nested());
        assert_eq!(nested.to_string(), "gnome/world/podcasts");
        assert!(!RepoName::parse("o/n").unwrap().is_nested());
    }

    #[test]
    fn slugs() {
        assert_eq!(slugify("Inference Engines!"), "inference-engines");
        assert_eq!(slugify("github3.py"), "github3-py");
        assert!(is_slug("llama-cpp"));
        assert!(!is_slug("Llama"));
        assert!(!is_slug(""));
    }

    #[test]
    fn milestone_progress_rounds() {
        let m = |open, closed| Milestone {
            updated_at: None,
            title: String::new(),
            url: String::new(),
            description: String::new(),
            open_issues: open,
            closed_issues: closed,
            due_on: None,
        };
        assert_eq!(m(0, 0).progress(), 0);
        assert_eq!(m(1, 1).progress(), 50);
        assert_eq!(m(2, 1).progress(), 33);
        assert_eq!(m(1, 2).progress(), 67);
        assert_eq!(m(0, 5).progress(), 100);
        assert_eq!(m(u64::MAX, u64::MAX).progress(), 50);
    }

    #[test]
    fn highlight_lines() {
        let notes = "## Changes\r\n\r\n* Fix `foo` in **bar** ([#12](https://x/12))\r\n- second\n  + nested item\nnot a bullet\n-not either\n";
        assert_eq!(
            highlights(notes),
            vec!["Fix foo in bar (#12)", "second", "nested item"]
        );
    }
}
