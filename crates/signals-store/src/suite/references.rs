//! Checks of [`crate::ReferenceReads`]: links resolved within
//! a group, written only when a text changes, marks for the export,
//! purges and copies.

use signals_core::{ItemSnapshot, RepoName, TrackedRepo};

use super::*;
use crate::references::{Linked, SharedItem};
use crate::{Backend, RepoKey};

fn repo(name: &str) -> TrackedRepo {
    TrackedRepo {
        id: name.replace('/', "-"),
        repo: RepoName::parse(name).unwrap(),
        name: name.into(),
        ..tracked()
    }
}

fn item(repo: &str, key: &str, text: &str) -> ItemSnapshot {
    ItemSnapshot {
        repo: RepoName::parse(repo).unwrap(),
        url: format!("https://github.com/{repo}/issues/{key}"),
        text: text.into(),
        ..issue(key)
    }
}

fn linked(id: &str, repo: RepoKey) -> Linked {
    Linked {
        id: id.into(),
        repo,
    }
}

fn commit(store: &mut dyn Backend, key: RepoKey, at: &str, items: Vec<ItemSnapshot>) {
    let run = run_of(store, key, ts(at), items, 1);
    store.commit_run(key, &run).unwrap();
}

/// Both forms, the same repository, other repositories of the group, an
/// item of another group (ignored), the item itself (ignored), an item
/// named before it is seen, a text changed, a purge.
pub fn references_link_items_within_their_group(make: Factory<'_>) {
    let mut store = make();
    let other_group = Group {
        id: "other".into(),
        name: "Other".into(),
    };
    let a = store.ensure_repository(&group(), &repo("o/a")).unwrap();
    let b = store.ensure_repository(&group(), &repo("o/b")).unwrap();
    let c = store.ensure_repository(&group(), &repo("o/c")).unwrap();
    let d = store.ensure_repository(&other_group, &repo("o/d")).unwrap();
    let t1 = "2026-11-20T10:00:00Z";
    commit(
        &mut *store,
        a,
        t1,
        vec![
            item(
                "o/a",
                "1",
                "see o/b#2, #3, https://github.com/o/c/issues/4, o/d#1, #1, o/b#5, o/zz#9",
            ),
            item("o/a", "3", "nothing"),
        ],
    );
    commit(&mut *store, b, t1, vec![item("o/b", "2", "dup of o/a#1")]);
    commit(
        &mut *store,
        c,
        t1,
        vec![item("o/c", "4", "https://github.com/O/A/issues/1")],
    );
    commit(&mut *store, d, t1, vec![item("o/d", "1", "o/a#1")]);

    let a1 = "github:o/a:issue:1".to_string();
    let links = store.links_of(a, std::slice::from_ref(&a1)).unwrap();
    let l = &links[&a1];
    assert_eq!(
        l.references,
        [
            linked("github:o/a:issue:3", a),
            linked("github:o/b:issue:2", b),
            linked("github:o/c:issue:4", c),
        ]
    );
    assert_eq!(
        l.referenced_by,
        [
            linked("github:o/b:issue:2", b),
            linked("github:o/c:issue:4", c)
        ]
    );
    // Only what is asked, and only items with links.
    let both = store
        .links_of(a, &[a1.clone(), "github:o/a:issue:3".into(), "nope".into()])
        .unwrap();
    assert_eq!(both.len(), 2);
    assert_eq!(both["github:o/a:issue:3"].referenced_by, [linked(&a1, a)]);
    // The other group sees its own side only: o/d#1 names o/a#1, which
    // is not in its group.
    assert!(
        store
            .links_of(d, &["github:o/d:issue:1".into()])
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.shared_items("engines", 2, 10).unwrap(),
        [SharedItem {
            item: linked(&a1, a),
            from: vec![b, c],
        }]
    );
    assert!(store.shared_items("engines", 3, 10).unwrap().is_empty());
    assert!(store.shared_items("other", 1, 10).unwrap().is_empty());

    // o/b#5, named before it was seen, links once it is.
    let mark = store.references_mark(a).unwrap();
    let t2 = "2026-11-21T10:00:00Z";
    commit(&mut *store, b, t2, vec![item("o/b", "5", "")]);
    let links = store.links_of(a, std::slice::from_ref(&a1)).unwrap();
    assert!(
        links[&a1]
            .references
            .contains(&linked("github:o/b:issue:5", b))
    );
    let moved = store.references_mark(a).unwrap();
    assert!(moved > mark, "{moved} > {mark}");

    // A run that changes no text moves no mark.
    let mut same = item("o/b", "2", "dup of o/a#1");
    same.metrics.reactions += 5;
    commit(&mut *store, b, "2026-11-22T10:00:00Z", vec![same]);
    assert_eq!(store.references_mark(a).unwrap(), moved);

    // A text edited to name nothing: the link goes, the mark moves.
    commit(
        &mut *store,
        b,
        "2026-11-23T10:00:00Z",
        vec![item("o/b", "2", "not a duplicate after all")],
    );
    let links = store.links_of(a, std::slice::from_ref(&a1)).unwrap();
    assert_eq!(links[&a1].referenced_by, [linked("github:o/c:issue:4", c)]);
    assert!(store.references_mark(a).unwrap() > moved);
    assert!(store.shared_items("engines", 2, 10).unwrap().is_empty());

    // A purge takes the repository's references and keys.
    store.purge_repository(c).unwrap();
    let links = store.links_of(a, std::slice::from_ref(&a1)).unwrap();
    assert!(links[&a1].referenced_by.is_empty());
    assert!(!links[&a1].references.iter().any(|l| l.repo == c));
    assert_eq!(store.references_mark(c).unwrap(), 0);
}

/// For the migration checks of each backend: commits items of two
/// repositories of a group that name each other, and returns the links
/// and keys read back (what a store migrated from before the references
/// tables must give again from its stored bodies).
pub fn commit_referencing_items(store: &mut dyn Backend) -> Vec<(RepoKey, String)> {
    let a = store.ensure_repository(&group(), &repo("o/a")).unwrap();
    let b = store.ensure_repository(&group(), &repo("o/b")).unwrap();
    let t1 = "2026-11-20T10:00:00Z";
    commit(
        store,
        a,
        t1,
        vec![item("o/a", "1", "see o/b#2 and #3"), item("o/a", "3", "x")],
    );
    commit(
        store,
        b,
        t1,
        vec![item("o/b", "2", "https://github.com/o/a/issues/1")],
    );
    vec![
        (a, "github:o/a:issue:1".into()),
        (a, "github:o/a:issue:3".into()),
        (b, "github:o/b:issue:2".into()),
    ]
}

/// The links of `items`, as [`commit_referencing_items`] returns them.
pub fn links_of_items(
    store: &dyn Backend,
    items: &[(RepoKey, String)],
) -> Vec<crate::references::Links> {
    items
        .iter()
        .map(|(key, id)| {
            store
                .links_of(*key, std::slice::from_ref(id))
                .unwrap()
                .remove(id)
                .unwrap_or_default()
        })
        .collect()
}
