//! GitHub's GraphQL answers: the reviews of the pull requests a run saw
//! change (`signals_github::parse_reviews`, issue 26). An answer is a POST's
//! body, so nothing but this parser stands between it and the store.

use signals_core::CommentKind;

/// The URL the answers are said to come from (named in errors only).
const URL: &str = "https://api.github.com/graphql";

/// Decodes `body` as a reviews answer. What a review becomes promises a
/// host id and an item key (both read from numbers), the kind `Review`,
/// and a state.
pub fn reviews(body: &[u8]) {
    let Ok(reviews) = signals_github::parse_reviews(URL, body) else {
        return;
    };
    for r in reviews {
        assert!(!r.host_id.is_empty(), "a review without a host id: {r:?}");
        assert!(!r.item_key.is_empty(), "a review without an item: {r:?}");
        assert!(r.item_key.bytes().all(|b| b.is_ascii_digit()), "{r:?}");
        assert_eq!(r.kind, CommentKind::Review, "{r:?}");
        assert!(r.state.is_some(), "a review without a state: {r:?}");
    }
}
