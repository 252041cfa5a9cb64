//! Who merged a merge request, as the list entries tell it: `merge_user`,
//! else `merged_by`, with `merged_at`, and never a failed entry.

use signals_core::model::{ItemDetail, ItemSnapshot, ItemState, Merge};
use signals_http::wire::{Kinds, WireItem};

use super::Issuable;
use super::tests::{at, decode};

/// The merger `at` reads of a merge request list entry `body`, and
/// its snapshot.
fn merger_of(body: &str) -> (Option<Merge>, ItemSnapshot) {
    let entry = decode::<Issuable>("u", body.as_bytes()).unwrap();
    at(|p| {
        (
            entry.merger(p, Kinds::Pulls),
            entry.into_snapshot(p, Kinds::Pulls),
        )
    })
}

#[test]
fn the_merger_is_merge_user_else_merged_by() {
    let entry = |users: &str| {
        format!(
            r#"{{"iid": 7, "title": "t", "state": "merged", {users}
            "merged_at": "2024-03-02T10:00:00.250Z", "closed_at": null,
            "created_at": "2024-03-01T00:00:00Z", "updated_at": "2024-03-02T10:00:01Z"}}"#
        )
    };
    let merge = |by: &str, bot: bool| Merge {
        item_key: "7".into(),
        merged_by: by.into(),
        bot,
        merged_at: "2024-03-02T10:00:00Z".parse().unwrap(),
    };
    // Both, as GitLab 14.7 and later send them: `merge_user` stands.
    let (got, item) = merger_of(&entry(
        r#""merge_user": {"id": 1, "username": "setter"}, "merged_by": {"id": 2, "username": "clicker"},"#,
    ));
    assert_eq!(got, Some(merge("setter", false)));
    assert_eq!(item.closed_at, Some(merge("setter", false).merged_at));
    // Only the older `merged_by`.
    let (got, _) = merger_of(&entry(r#""merged_by": {"username": "old-style"},"#));
    assert_eq!(got, Some(merge("old-style", false)));
    // `merge_user` null, `merged_by` named; a bot by its word.
    let (got, _) = merger_of(&entry(
        r#""merge_user": null, "merged_by": {"username": "project_4_bot_9", "bot": true},"#,
    ));
    assert_eq!(got, Some(merge("project_4_bot_9", true)));
    // A deleted account, an odd value, an empty name: no merger, and
    // the entry is still an item.
    for users in [
        r#""merge_user": {"username": "ghost"},"#,
        r#""merge_user": "someone", "merged_by": [1],"#,
        r#""merge_user": {"username": ""}, "merged_by": {"username": null},"#,
        r#""merge_user": {"username": "x", "bot": "perhaps"},"#,
    ] {
        let (got, item) = merger_of(&entry(users));
        assert_eq!(got, None, "{users}");
        assert!(matches!(
            item.detail,
            ItemDetail::PullRequest { merged: true, .. }
        ));
    }
}

#[test]
fn an_open_merge_request_has_no_merger() {
    // A recorded open merge request (`merge_user` and `merged_by`
    // null): see crates/signals/demo/SOURCES.md.
    let body = include_str!("../../../signals/demo/gitlab/merge_request_2.json");
    let (got, item) = merger_of(body);
    assert_eq!(got, None);
    assert_eq!(item.state, ItemState::Open);
    // Set to merge when its pipeline succeeds: a `merge_user`, no
    // `merged_at`, no merge yet.
    let (got, _) = merger_of(
        r#"{"iid": 8, "title": "t", "state": "opened", "merged_at": null,
        "merge_user": {"username": "setter"}, "merged_by": null,
        "created_at": "2024-03-01T00:00:00Z", "updated_at": "2024-03-02T00:00:00Z"}"#,
    );
    assert_eq!(got, None);
    // The recorded list: open merge requests, none merged.
    let body = include_bytes!("../../tests/data/get_merge_requests.json");
    let mrs: Vec<Issuable> = decode("u", body).unwrap();
    assert!(
        mrs.iter()
            .all(|m| at(|p| m.merger(p, Kinds::Pulls)).is_none())
    );
    // An issue list is never asked for mergers.
    let issue = decode::<Issuable>(
        "u",
        br#"{"iid": 3, "title": "t", "state": "closed", "merged_at": "2024-03-02T00:00:00Z",
        "merge_user": {"username": "m"}, "created_at": "2024-03-01T00:00:00Z",
        "updated_at": "2024-03-02T00:00:00Z"}"#,
    )
    .unwrap();
    assert_eq!(at(|p| issue.merger(p, Kinds::Issues)), None);
}
