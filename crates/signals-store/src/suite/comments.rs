//! Checks of [`crate::CommentStore`]: comments and reviews written,
//! edited, read back by repository and purged.

use signals_core::model::{Comment, CommentKind, ItemKind};

use super::*;

fn comment(kind: CommentKind, host_id: &str, key: &str, author: &str, at: &str) -> Comment {
    Comment {
        kind,
        host_id: host_id.into(),
        item_kind: ItemKind::Issue,
        item_key: key.into(),
        author: author.into(),
        association: Some("MEMBER".into()),
        bot: false,
        state: (kind == CommentKind::Review).then(|| "APPROVED".to_string()),
        created_at: ts(at),
        updated_at: ts(at),
        body: format!("body of {host_id}"),
    }
}

/// Comments round-trip as replies and texts, an edit replaces its row,
/// one repository's comments are not another's, and a purge takes them
/// and their texts while texts another repository uses stay.
pub fn comments_upsert_and_read_back_by_repository(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let mut other_repo = tracked();
    other_repo.id = "other".into();
    other_repo.repo = RepoName::parse("o/other").unwrap();
    let other = store.ensure_repository(&group(), &other_repo).unwrap();
    let item = id(&issue("1"));
    let c1 = comment(
        CommentKind::Comment,
        "10",
        "1",
        "alice",
        "2026-11-01T10:00:00Z",
    );
    let r1 = comment(
        CommentKind::Review,
        "10",
        "1",
        "bob",
        "2026-11-01T09:00:00Z",
    );
    store
        .store_comments(
            key,
            &[(item.clone(), c1.clone()), (item.clone(), r1.clone())],
        )
        .unwrap();
    store
        .store_comments(other, &[("x".into(), c1.clone())])
        .unwrap();
    // Read again after an edit: one row, the new body.
    let mut edited = c1.clone();
    edited.body = "edited".into();
    edited.updated_at = ts("2026-11-02T10:00:00Z");
    store
        .store_comments(key, &[(item.clone(), edited)])
        .unwrap();
    store.store_comments(key, &[]).unwrap();

    let replies = store.replies(key).unwrap();
    let seen: Vec<(&str, &str, Option<&str>)> = replies
        .iter()
        .map(|(i, r)| (i.as_str(), r.author.as_str(), r.state.as_deref()))
        .collect();
    assert_eq!(
        seen,
        vec![
            (item.as_str(), "bob", Some("APPROVED")),
            (item.as_str(), "alice", None)
        ]
    );
    assert_eq!(replies[0].1.kind, CommentKind::Review);
    assert_eq!(replies[1].1.at, ts("2026-11-01T10:00:00Z"));
    let texts = store.comment_texts(key).unwrap();
    assert_eq!(
        texts,
        vec![
            (item.clone(), "body of 10".to_string()),
            (item.clone(), "edited".to_string())
        ]
    );
    // The comments of the items asked, with their kinds and host ids:
    // none of another item or repository.
    let of = store
        .comments_of(key, &[item.clone(), "github:o/n:issue:404".into()])
        .unwrap();
    let seen: Vec<(CommentKind, &str, &str)> = of
        .iter()
        .map(|c| {
            assert_eq!(c.item_id, item);
            (c.kind, c.host_id.as_str(), c.body.as_str())
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            (CommentKind::Review, "10", "body of 10"),
            (CommentKind::Comment, "10", "edited")
        ]
    );
    assert!(store.comments_of(key, &[]).unwrap().is_empty());
    assert!(
        store
            .comments_of(other, std::slice::from_ref(&item))
            .unwrap()
            .is_empty()
    );

    store.purge_repository(key).unwrap();
    assert!(store.replies(other).is_ok());
    assert_eq!(
        store.comment_texts(other).unwrap(),
        vec![("x".to_string(), "body of 10".to_string())]
    );
}

/// The replies of some items are those of [`crate::CommentStore::replies`]
/// for those items, in the same order: none of another item or
/// repository, nothing for no items.
pub fn replies_of_items_are_their_share_of_the_replies(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let mut other_repo = tracked();
    other_repo.id = "other".into();
    other_repo.repo = RepoName::parse("o/other").unwrap();
    let other = store.ensure_repository(&group(), &other_repo).unwrap();
    let items: Vec<String> = ["1", "2", "3", "10"].map(|k| id(&issue(k))).to_vec();
    let mut stored = Vec::new();
    for (n, item) in items.iter().enumerate() {
        // Written out of time order, with two at one instant: the read
        // orders them.
        for (i, at) in [
            "2026-11-03T10:00:00Z",
            "2026-11-01T10:00:00Z",
            "2026-11-01T10:00:00Z",
        ]
        .iter()
        .enumerate()
        .take(n + 1)
        {
            let kind = if i == 1 {
                CommentKind::Review
            } else {
                CommentKind::Comment
            };
            let host_id = format!("{}", 100 * n + i);
            let author = format!("user{i}");
            let c = comment(kind, &host_id, "1", &author, at);
            stored.push((item.clone(), c));
        }
    }
    store.store_comments(key, &stored).unwrap();
    store
        .store_comments(other, &[(items[1].clone(), stored[0].1.clone())])
        .unwrap();

    let all = store.replies(key).unwrap();
    assert_eq!(all.len(), stored.len());
    // Asked out of order, one twice, one the store does not have.
    let asked = vec![
        items[3].clone(),
        items[1].clone(),
        "github:o/n:issue:404".to_string(),
        items[3].clone(),
    ];
    let want: Vec<_> = all
        .iter()
        .filter(|(i, _)| asked.contains(i))
        .cloned()
        .collect();
    assert_eq!(want.len(), 2 + 3);
    assert_eq!(store.replies_of(key, &asked).unwrap(), want);
    assert_eq!(store.replies_of(key, &items).unwrap(), all);
    assert!(store.replies_of(key, &[]).unwrap().is_empty());
    assert_eq!(
        store
            .replies_of(other, std::slice::from_ref(&items[1]))
            .unwrap()
            .len(),
        1
    );
    assert!(
        store
            .replies_of(other, std::slice::from_ref(&items[0]))
            .unwrap()
            .is_empty()
    );
}
