//! GitHub's GraphQL answers (issue 26): the reviews of the pull requests a
//! run saw change (`signals_github::parse_reviews`), a page of a
//! repository's discussions (`signals_github::parse_discussions`) and the
//! round's heads of many repositories (`signals_github::parse_heads`). An
//! answer is a POST's body, so nothing but these parsers stands between
//! it and the store. Both read the same bytes: each answer shape is a
//! valid input of the others, which must refuse it or read nothing.

use jiff::Timestamp;
use signals_core::{CommentKind, ItemDetail, ItemKind, RepoName};

/// The URL the answers are said to come from (named in errors only).
const URL: &str = "https://api.github.com/graphql";

/// Decodes `body` as a reviews answer, a discussions page and a heads
/// answer.
pub fn answers(body: &[u8]) {
    reviews(body);
    discussions(body);
    heads(body);
}

/// Decodes `body` as the answer to a heads query for three repositories:
/// at most one head each, keyed by a name asked.
pub fn heads(body: &[u8]) {
    let repos: Vec<RepoName> = ["o/a", "o/b", "O/C"]
        .iter()
        .map(|n| RepoName::parse(n).expect("a valid name"))
        .collect();
    let Ok(heads) = signals_github::parse_heads(URL, body, &repos) else {
        return;
    };
    assert!(heads.len() <= repos.len());
    for key in heads.keys() {
        assert!(["o/a", "o/b", "o/c"].contains(&key.as_str()), "{key}");
    }
}

/// Decodes `body` as a reviews answer. What a review becomes promises a
/// host id and an item key (both read from numbers), the kind `Review`,
/// and a state; a merge, an item key and a merger.
pub fn reviews(body: &[u8]) {
    let Ok(answer) = signals_github::parse_reviews(URL, body) else {
        return;
    };
    for m in &answer.merges {
        assert!(m.item_key.bytes().all(|b| b.is_ascii_digit()), "{m:?}");
        assert!(!m.item_key.is_empty() && !m.merged_by.is_empty(), "{m:?}");
        whole(m.merged_at);
    }
    for r in answer.reviews {
        assert!(!r.host_id.is_empty(), "a review without a host id: {r:?}");
        assert!(!r.item_key.is_empty(), "a review without an item: {r:?}");
        assert!(r.item_key.bytes().all(|b| b.is_ascii_digit()), "{r:?}");
        assert_eq!(r.kind, CommentKind::Review, "{r:?}");
        assert!(r.state.is_some(), "a review without a state: {r:?}");
        whole(r.created_at);
        whole(r.updated_at);
    }
}

/// Decodes `body` as a page of discussions. Each becomes a snapshot of
/// kind `discussion` keyed by its number, its times in whole seconds, a
/// closing time only when closed; the news' entries the same.
pub fn discussions(body: &[u8]) {
    let repo = RepoName::parse("o/n").expect("a valid name");
    let Ok(Some(page)) = signals_github::parse_discussions(URL, body, &repo) else {
        return;
    };
    for item in &page.items {
        assert_eq!(item.kind(), ItemKind::Discussion, "{item:?}");
        assert!(matches!(item.detail, ItemDetail::Discussion { .. }));
        assert!(!item.key.is_empty(), "a discussion without a number");
        assert!(item.key.bytes().all(|b| b.is_ascii_digit()), "{item:?}");
        assert_eq!(item.repo, repo);
        whole(item.created_at);
        whole(item.updated_at);
        if let Some(at) = item.closed_at {
            whole(at);
            assert_eq!(item.state, signals_core::ItemState::Closed, "{item:?}");
        }
    }
    for news in page.open.iter().flatten() {
        whole(news.created_at);
        whole(news.updated_at);
    }
}

/// Snapshots keep time in whole seconds: a fraction would differ from
/// the same time read again and count as a change forever.
fn whole(t: Timestamp) {
    assert_eq!(t.subsec_nanosecond(), 0, "{t} is not in whole seconds");
}
