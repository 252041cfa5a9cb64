//! Comment lists (issue 26): a page of GitHub's and Forgejo's
//! repository-wide `issues/comments` and GitHub's `pulls/comments`
//! (`signals_http::wire::comment::parse_list`), and a page of a GitLab
//! item's notes (`signals_gitlab::parse_notes`). Both are JSON arrays, so
//! one input feeds both.

use jiff::Timestamp;
use signals_core::{Comment, CommentKind, ItemKind};

/// Decodes `body` as each list. Every comment promises a host id, an item
/// key of digits (for the repository-wide lists, read from the item's
/// URL) and times in whole seconds; a GitLab note keeps the item it was
/// asked for.
pub fn lists(body: &[u8]) {
    let url = "https://api.github.com/repos/o/n/issues/comments";
    for kind in [CommentKind::Comment, CommentKind::ReviewComment] {
        if let Ok(signals_http::wire::comment::CommentPage {
            comments,
            entries: n,
        }) = signals_http::wire::comment::parse_list("GitHub", url, body, kind)
        {
            assert!(comments.len() <= n, "more comments than entries");
            for c in &comments {
                check(c);
                assert_eq!(c.kind, kind, "{c:?}");
                assert!(c.item_key.bytes().all(|b| b.is_ascii_digit()), "{c:?}");
            }
        }
    }
    let url = "https://gitlab.com/api/v4/projects/1/issues/7/notes";
    if let Ok(notes) = signals_gitlab::parse_notes(url, body, ItemKind::Issue, "7") {
        for c in &notes {
            check(c);
            assert_eq!((c.item_kind, c.item_key.as_str()), (ItemKind::Issue, "7"));
        }
    }
}

fn check(c: &Comment) {
    assert!(!c.host_id.is_empty(), "a comment without a host id: {c:?}");
    assert!(!c.item_key.is_empty(), "a comment without an item: {c:?}");
    whole(c.created_at);
    whole(c.updated_at);
}

fn whole(t: Timestamp) {
    assert_eq!(t.subsec_nanosecond(), 0, "{t} is not in whole seconds");
}
