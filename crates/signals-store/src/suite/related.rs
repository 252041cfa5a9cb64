//! Checks of [`crate::RelatedStore`]: profiles and lists written in one
//! transaction and read back by item, by group and by the items they
//! name; `through` and the marks; the gone marks of runs; what a purge
//! takes.

use std::collections::HashMap;

use signals_core::{ItemSnapshot, RepoName, TrackedRepo};

use super::*;
use crate::related::{Applied, RelatedEntry, RelatedUpdate, StoredProfile, StoredVector};
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
        vector: item.id.as_bytes().to_vec(),
        item,
        open,
    }
}

fn vector(p: StoredProfile) -> StoredVector {
    StoredVector {
        item: p.item,
        open: p.open,
        vector: p.vector,
    }
}

/// The group's vectors, in the order of their items.
fn vectors<S: crate::RelatedStore + ?Sized>(store: &S, group: &str) -> Vec<StoredVector> {
    let mut out = store.related_vectors(group).unwrap();
    out.sort_by(|a, b| a.item.cmp(&b.item));
    out
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
    assert_eq!(
        store.related_throughs(&group().id).unwrap(),
        [(a, 0), (b, 0)]
    );
    let pending = store.related_pending(&group().id, 0, 10).unwrap();
    assert_eq!(
        pending.len(),
        1,
        "only the issue, not the release: {pending:?}"
    );
    assert_eq!(pending[0].item, at(a, "github:o/a:issue:1"));
    assert!(
        store
            .related_pending(&group().id, pending[0].latest, 10)
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .related_pending(&other_group.id, 0, 10)
            .unwrap()
            .is_empty()
    );
    // A repository's own read gives the same, and nothing of another.
    assert_eq!(store.related_pending_in(a, 0, 10).unwrap(), pending);
    assert!(store.related_pending_in(b, 0, 10).unwrap().is_empty());
    assert!(
        store
            .related_pending_in(a, pending[0].latest, 10)
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
        through: vec![(a, pending[0].latest)],
        ..RelatedUpdate::default()
    };
    assert_eq!(store.related_apply(&update).unwrap(), Applied::Written);
    assert_eq!(store.related_through(a).unwrap(), pending[0].latest);
    assert_eq!(store.related_through(b).unwrap(), 0);
    assert!(
        store
            .related_pending(&group().id, 0, 10)
            .unwrap()
            .is_empty(),
        "read through its repository's through"
    );
    assert!(store.related_pending_in(a, 0, 10).unwrap().is_empty());
    let (mark_a, mark_b) = (
        store.related_mark(a).unwrap(),
        store.related_mark(b).unwrap(),
    );
    assert!(mark_a > 0 && mark_b > 0);
    assert_eq!(store.related_mark(d).unwrap(), 0);

    let profiles = vectors(&*store, &group().id);
    let ids: Vec<&str> = profiles.iter().map(|p| p.item.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "github:o/a:issue:1",
            "github:o/a:issue:2",
            "github:o/b:issue:1"
        ]
    );
    assert_eq!(profiles[0], vector(profile(a1.clone(), true)));
    let mut some = store
        .related_profiles_of(&[b1.clone(), at(b, "github:o/b:issue:9"), a1.clone()])
        .unwrap();
    some.sort_by(|x, y| x.item.cmp(&y.item));
    assert_eq!(some, [profile(a1.clone(), true), profile(b1.clone(), true)]);

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
    assert_eq!(vectors(&*store, &group().id).len(), 2);
    assert!(store.related_mark(a).unwrap() > mark_a);
    assert_eq!(store.related_through(a).unwrap(), pending[0].latest);

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
    let left = vectors(&*store, &group().id);
    assert_eq!(left, [vector(profile(b1, true))]);
    assert_eq!(store.related_through(a).unwrap(), 0);
}

/// An update computed from throughs that have moved since is not
/// written: one catch-up of a group at a time, never a stale list.
pub fn related_updates_from_a_moved_through_are_not_written(make: Factory<'_>) {
    let mut store = make();
    let a = store.ensure_repository(&group(), &repo("o/a")).unwrap();
    let b = store.ensure_repository(&group(), &repo("o/b")).unwrap();
    let a1 = at(a, "github:o/a:issue:1");
    let b1 = at(b, "github:o/b:issue:1");
    let first = RelatedUpdate {
        group: group().id,
        expected: vec![(a, 0), (b, 0)],
        profiles: vec![profile(a1.clone(), true)],
        lists: vec![(a1.clone(), vec![entry(b1.clone(), 0.5, &["x"])])],
        through: vec![(a, 7)],
        ..RelatedUpdate::default()
    };
    // A second catch-up read the same throughs and computed other lists.
    let second = RelatedUpdate {
        lists: vec![(a1.clone(), vec![entry(b1.clone(), 0.9, &["y"])])],
        through: vec![(b, 3)],
        ..first.clone()
    };
    assert_eq!(store.related_apply(&first).unwrap(), Applied::Written);
    assert_eq!(store.related_apply(&second).unwrap(), Applied::Moved);
    let lists = store.related_of(a, std::slice::from_ref(&a1.id)).unwrap();
    assert_eq!(lists[&a1.id][0].score, 0.5);
    assert_eq!(store.related_through(b).unwrap(), 0);
    // Read again, it is written.
    let again = RelatedUpdate {
        expected: vec![(a, 7), (b, 0)],
        ..second
    };
    assert_eq!(store.related_apply(&again).unwrap(), Applied::Written);
    let lists = store.related_of(a, std::slice::from_ref(&a1.id)).unwrap();
    assert_eq!(lists[&a1.id][0].score, 0.9);
    assert_eq!(store.related_through(b).unwrap(), 3);
    // A copy sets the marks as they are.
    let copy = RelatedUpdate {
        group: group().id,
        marks: vec![(a, 41), (b, 7)],
        ..RelatedUpdate::default()
    };
    assert_eq!(store.related_apply(&copy).unwrap(), Applied::Written);
    assert_eq!(store.related_mark(a).unwrap(), 41);
    assert_eq!(store.related_mark(b).unwrap(), 7);
    assert_eq!(store.related_through(b).unwrap(), 3);
}

/// A run's commit marks the items a reconcile found gone, at the snapshot
/// that closed them; the pending reads say which items are gone, never
/// one listed again since; an update clears the marks its `through`
/// passed; a copy writes marks as they are; a purge takes them.
pub fn gone_items_are_marked_by_their_run_until_a_catch_up_passes_them(make: Factory<'_>) {
    let mut store = make();
    let a = store.ensure_repository(&group(), &repo("o/a")).unwrap();
    let b = store.ensure_repository(&group(), &repo("o/b")).unwrap();
    let (t1, t2, t3) = (
        ts("2026-11-20T10:00:00Z"),
        ts("2026-11-21T10:00:00Z"),
        ts("2026-11-22T10:00:00Z"),
    );
    let (one, two, three) = (item("o/a", "1"), item("o/a", "2"), item("o/a", "3"));
    let run = run_of(
        &*store,
        a,
        t1,
        vec![one.clone(), two.clone(), three.clone()],
        1,
    );
    store.commit_run(a, &run).unwrap();
    assert!(store.related_gone(&group().id).unwrap().is_empty());

    // A reconcile finds 1 and 2 no longer listed, and closes them.
    let gone = |s: &ItemSnapshot| signals_core::reconcile::gone(s, t2);
    let mut run = run_of(&*store, a, t2, vec![gone(&one), gone(&two)], 1);
    run.reconciled = true;
    run.gone = vec![id(&one), id(&two)];
    // A gone item must be closed by the run itself.
    let mut wrong = run.clone();
    wrong.gone.push(id(&three));
    assert!(store.commit_run(a, &wrong).is_err());
    store.commit_run(a, &run).unwrap();
    let marks = store.related_gone(&group().id).unwrap();
    let marked: Vec<&str> = marks.iter().map(|m| m.item.id.as_str()).collect();
    assert_eq!(marked, [id(&one), id(&two)]);
    let pending = store.related_pending(&group().id, 0, 10).unwrap();
    assert_eq!(pending.len(), 3, "{pending:?}");
    assert_eq!(store.related_pending_in(a, 0, 10).unwrap(), pending);
    for p in &pending {
        let mark = marks.iter().find(|m| m.item == p.item);
        assert_eq!(p.gone, mark.is_some(), "{p:?}");
        if let Some(m) = mark {
            assert_eq!(m.snapshot, p.latest, "the snapshot that closed it");
        }
    }

    // 2 is listed again, open: its mark no longer counts.
    let mut back = two.clone();
    back.updated_at = t3;
    let run = run_of(&*store, a, t3, vec![back], 1);
    store.commit_run(a, &run).unwrap();
    let pending = store.related_pending(&group().id, 0, 10).unwrap();
    let gone_now: Vec<&str> = pending
        .iter()
        .filter(|p| p.gone)
        .map(|p| p.item.id.as_str())
        .collect();
    assert_eq!(gone_now, [id(&one)]);
    assert_eq!(store.related_gone(&group().id).unwrap().len(), 2);

    // A catch-up whose `through` passes them clears them (under the same
    // check of positions as its lists); another repository's stay.
    let far = RelatedUpdate {
        group: group().id,
        gone: vec![crate::related::GoneMark {
            item: at(b, "github:o/b:issue:9"),
            snapshot: 1,
        }],
        ..RelatedUpdate::default()
    };
    assert_eq!(store.related_apply(&far).unwrap(), Applied::Written);
    let top = pending.iter().map(|p| p.latest).max().unwrap();
    let stale = RelatedUpdate {
        group: group().id,
        expected: vec![(a, 1), (b, 0)],
        through: vec![(a, top)],
        ..RelatedUpdate::default()
    };
    assert_eq!(store.related_apply(&stale).unwrap(), Applied::Moved);
    assert_eq!(store.related_gone(&group().id).unwrap().len(), 3);
    let read = RelatedUpdate {
        expected: vec![(a, 0), (b, 0)],
        ..stale
    };
    assert_eq!(store.related_apply(&read).unwrap(), Applied::Written);
    assert_eq!(store.related_gone(&group().id).unwrap(), far.gone);
    assert!(
        store
            .related_pending(&group().id, 0, 10)
            .unwrap()
            .is_empty()
    );

    // A purge takes its repository's marks.
    store.purge_repository(b).unwrap();
    assert!(store.related_gone(&group().id).unwrap().is_empty());
}

/// A store migrated from before the gone marks, whose repository `key`
/// holds `one` and one other issue from a run before: no mark, both
/// pending as not gone; then a reconcile's run that found `one` gone
/// marks it, and the pending items say so. Each backend's migration test
/// calls it on the store it migrated.
pub fn a_migrated_store_marks_the_next_gone_items(
    store: &mut dyn crate::Backend,
    key: RepoKey,
    one: &ItemSnapshot,
) {
    assert!(store.related_gone(&group().id).unwrap().is_empty());
    let pending = store.related_pending(&group().id, 0, 10).unwrap();
    assert_eq!(pending.len(), 2);
    assert!(pending.iter().all(|p| !p.gone), "{pending:?}");
    let at = ts("2026-11-21T10:00:00Z");
    let mut run = run_of(
        &*store,
        key,
        at,
        vec![signals_core::reconcile::gone(one, at)],
        1,
    );
    run.reconciled = true;
    run.gone = vec![id(one)];
    store.commit_run(key, &run).unwrap();
    let marks = store.related_gone(&group().id).unwrap();
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].item.id, id(one));
    let pending = store.related_pending(&group().id, 0, 10).unwrap();
    let gone: Vec<&str> = pending
        .iter()
        .filter(|p| p.gone)
        .map(|p| p.item.id.as_str())
        .collect();
    assert_eq!(gone, [id(one)]);
}
