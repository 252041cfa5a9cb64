//! Checks of [`crate::RelatedStore`]: profiles and lists written in one
//! transaction and read back by item, by group and by the items they
//! name; `through` and the marks; what a purge takes.

use std::collections::HashMap;

use signals_core::{ItemSnapshot, RepoName, TrackedRepo};

use super::*;
use crate::related::{RelatedEntry, RelatedUpdate, StoredProfile};
use crate::{Linked, RepoKey};

fn repo(name: &str) -> TrackedRepo {
    TrackedRepo {
        id: name.replace('/', "-"),
        repo: RepoName::parse(name).unwrap(),
        name: name.into(),
        ..tracked()
    }
}

fn item(repo: &str, key: &str) -> ItemSnapshot {
    ItemSnapshot {
        repo: RepoName::parse(repo).unwrap(),
        url: format!("https://github.com/{repo}/issues/{key}"),
        ..issue(key)
    }
}

fn at(repo: RepoKey, id: &str) -> Linked {
    Linked {
        id: id.into(),
        repo,
    }
}

fn entry(item: Linked, score: f64, shared: &[&str]) -> RelatedEntry {
    RelatedEntry {
        item,
        open: false,
        score,
        shared: shared.iter().map(|s| s.to_string()).collect(),
    }
}

fn profile(item: Linked, open: bool) -> StoredProfile {
    StoredProfile {
        profile: format!("3\n\n{} 1", item.id.len()),
        item,
        open,
    }
}

/// Pending items (no release), profiles by group, lists read back in
/// rank order with the other item's open state, the lists naming an
/// item, a list replaced and emptied, marks and `through`, and a purge.
pub fn related_items_round_trip_within_their_group(make: Factory<'_>) {
    let mut store = make();
    let other_group = Group {
        id: "other".into(),
        name: "Other".into(),
    };
    let a = store.ensure_repository(&group(), &repo("o/a")).unwrap();
    let b = store.ensure_repository(&group(), &repo("o/b")).unwrap();
    let d = store.ensure_repository(&other_group, &repo("o/d")).unwrap();
    let t1 = "2026-11-20T10:00:00Z";
    let mut release = item("o/a", "v1");
    release.url = "https://github.com/o/a/releases/tag/v1".into();
    release.detail = signals_core::ItemDetail::Release {
        prerelease: false,
        published_at: ts(t1),
    };
    let run = run_of(&*store, a, ts(t1), vec![item("o/a", "1"), release], 1);
    store.commit_run(a, &run).unwrap();
    assert_eq!(store.related_through(a).unwrap(), 0);
    let pending = store.related_pending(a, 0, 10).unwrap();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(pending[0].0, "github:o/a:issue:1");
    assert!(
        store
            .related_pending(a, pending[0].1, 10)
            .unwrap()
            .is_empty()
    );

    let (a1, a2, b1) = (
        at(a, "github:o/a:issue:1"),
        at(a, "github:o/a:issue:2"),
        at(b, "github:o/b:issue:1"),
    );
    let d1 = at(d, "github:o/d:issue:1");
    let update = RelatedUpdate {
        profiles: vec![
            profile(a1.clone(), true),
            profile(a2.clone(), false),
            profile(b1.clone(), true),
            profile(d1.clone(), true),
        ],
        removed: Vec::new(),
        lists: vec![
            (
                a1.clone(),
                vec![
                    entry(b1.clone(), 0.81, &["sdl", "linking"]),
                    entry(a2.clone(), 0.4, &["ld"]),
                ],
            ),
            (b1.clone(), vec![entry(a1.clone(), 0.81, &["sdl"])]),
        ],
        through: vec![(a, pending[0].1)],
    };
    store.related_apply(&update).unwrap();
    assert_eq!(store.related_through(a).unwrap(), pending[0].1);
    assert_eq!(store.related_through(b).unwrap(), 0);
    let (mark_a, mark_b) = (
        store.related_mark(a).unwrap(),
        store.related_mark(b).unwrap(),
    );
    assert!(mark_a > 0 && mark_b > 0);
    assert_eq!(store.related_mark(d).unwrap(), 0);

    let profiles = store.related_profiles(&group().id).unwrap();
    let ids: Vec<&str> = profiles.iter().map(|p| p.item.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "github:o/a:issue:1",
            "github:o/a:issue:2",
            "github:o/b:issue:1"
        ]
    );
    assert_eq!(profiles[0], profile(a1.clone(), true));

    let lists = store
        .related_of(a, &[a1.id.clone(), a2.id.clone()])
        .unwrap();
    let mut b_open = entry(b1.clone(), 0.81, &["sdl", "linking"]);
    b_open.open = true;
    assert_eq!(
        lists,
        HashMap::from([(a1.id.clone(), vec![b_open, entry(a2.clone(), 0.4, &["ld"])])])
    );
    assert_eq!(
        store
            .related_listing(&group().id, std::slice::from_ref(&a2))
            .unwrap(),
        std::slice::from_ref(&a1)
    );
    assert!(
        store
            .related_listing(&other_group.id, std::slice::from_ref(&a2))
            .unwrap()
            .is_empty()
    );
    let across = store.related_across(&group().id).unwrap();
    assert_eq!(across.len(), 2);
    assert_eq!(across[0].0, a1);
    assert_eq!(across[0].1.len(), 1, "only the entry of another repository");

    // A list replaced, one emptied, a profile removed.
    store
        .related_apply(&RelatedUpdate {
            removed: vec![a2.clone()],
            lists: vec![(a1.clone(), Vec::new()), (b1.clone(), Vec::new())],
            ..RelatedUpdate::default()
        })
        .unwrap();
    assert!(
        store
            .related_of(a, std::slice::from_ref(&a1.id))
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.related_profiles(&group().id).unwrap().len(), 2);
    assert!(store.related_mark(a).unwrap() > mark_a);
    assert_eq!(store.related_through(a).unwrap(), pending[0].1);

    // A purge takes the repository's rows and the entries naming its items.
    store
        .related_apply(&RelatedUpdate {
            lists: vec![(b1.clone(), vec![entry(a1.clone(), 0.5, &["x"])])],
            ..RelatedUpdate::default()
        })
        .unwrap();
    store.purge_repository(a).unwrap();
    assert!(
        store
            .related_of(b, std::slice::from_ref(&b1.id))
            .unwrap()
            .is_empty()
    );
    let left = store.related_profiles(&group().id).unwrap();
    assert_eq!(left, [profile(b1, true)]);
    assert_eq!(store.related_through(a).unwrap(), 0);
}
