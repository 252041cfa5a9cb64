//! Checks of [`crate::RunStaging`]: a run's stage keeps
//! the last sighting of each item, reads back in chunks in signal id
//! order, belongs to one run, and is invisible to every read of the
//! repository.

use std::collections::HashMap;

use jiff::Timestamp;
use signals_core::run::account;
use signals_core::{ItemSnapshot, Source};

use super::{Factory, group, id, issue, run_of, tracked, ts};
use crate::suite::WholeReads;
use crate::{Backend, RepoKey, Staged, StagedPart, StoreError};

pub(super) fn staged_of(item: &ItemSnapshot) -> (String, ItemSnapshot) {
    (id(item), item.clone())
}

/// Every staged item, read in chunks of `chunk`.
fn read_all(store: &dyn Backend, key: RepoKey, chunk: usize) -> Vec<Staged> {
    let mut all: Vec<Staged> = Vec::new();
    loop {
        let after = all.last().map(|s| s.id.as_str());
        let part = store.staged_items(key, after, chunk).unwrap();
        assert!(part.len() <= chunk, "a chunk holds at most its limit");
        if part.is_empty() {
            return all;
        }
        all.extend(part);
    }
}

pub fn a_stage_keeps_the_last_sighting_and_reads_back_in_chunks(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let at = ts("2026-11-21T10:00:00Z");
    assert_eq!(store.stage_start(key, at).unwrap(), 0, "nothing to discard");
    assert_eq!(store.staged_count(key).unwrap(), 0);
    assert!(store.staged_items(key, None, 10).unwrap().is_empty());
    // Ids in byte order: "10" < "2" < "3".
    let (a, b, c) = (issue("2"), issue("3"), issue("10"));
    let mut moved = issue("2");
    moved.title = "moved to a later page".into();
    moved.text = "ünïcode, \"quotes\" and\nlines".into();
    // One page, then a page where item 2 shows up again, twice in the page.
    store
        .stage_items(key, at, &[staged_of(&a), staged_of(&b)])
        .unwrap();
    store
        .stage_items(key, at, &[staged_of(&a), staged_of(&c), staged_of(&moved)])
        .unwrap();
    store.stage_items(key, at, &[]).unwrap();
    assert_eq!(store.staged_count(key).unwrap(), 3);
    for chunk in [1, 2, 3, 100] {
        let all = read_all(&*store, key, chunk);
        let items: Vec<&ItemSnapshot> = all.iter().map(|s| &s.snapshot).collect();
        assert_eq!(items, [&c, &moved, &b], "chunks of {chunk}");
        let ids: Vec<String> = all.iter().map(|s| s.id.clone()).collect();
        assert_eq!(ids, [id(&c), id(&moved), id(&b)]);
        assert!(ids.is_sorted(), "byte order: {ids:?}");
    }
    // A chunk starting after the last id is empty.
    let last = id(&b);
    assert!(store.staged_items(key, Some(&last), 10).unwrap().is_empty());
    assert_eq!(store.discard_stage(key).unwrap(), 3);
    assert_eq!(store.staged_count(key).unwrap(), 0);
    assert_eq!(store.discard_stage(key).unwrap(), 0);
}

pub fn a_stage_belongs_to_one_run_and_a_new_one_discards_it(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let mut other = tracked();
    other.id = "m".into();
    let other_key = store.ensure_repository(&group(), &other).unwrap();
    let (killed, next) = (ts("2026-11-21T10:00:00Z"), ts("2026-11-21T11:00:00Z"));
    // No stage started: refused, nothing written.
    let err = store
        .stage_items(key, killed, &[staged_of(&issue("1"))])
        .unwrap_err();
    assert!(
        matches!(err, StoreError::StageLost { by: None, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("no stage was started"), "{err}");
    assert_eq!(store.staged_count(key).unwrap(), 0);
    // A run staged two items and was killed; another repository's stage
    // goes on.
    store.stage_start(key, killed).unwrap();
    store
        .stage_items(
            key,
            killed,
            &[staged_of(&issue("1")), staged_of(&issue("2"))],
        )
        .unwrap();
    store.stage_start(other_key, killed).unwrap();
    store
        .stage_items(other_key, killed, &[staged_of(&issue("9"))])
        .unwrap();
    // The next run starts its own stage: the killed run's items go.
    assert_eq!(store.stage_start(key, next).unwrap(), 2);
    assert_eq!(store.staged_count(key).unwrap(), 0);
    assert_eq!(store.staged_count(other_key).unwrap(), 1);
    // The older run, should it still be going, cannot stage into it.
    let err = store
        .stage_items(key, killed, &[staged_of(&issue("3"))])
        .unwrap_err();
    match &err {
        StoreError::StageLost { repo, at, by, .. } => {
            assert_eq!((*repo, *at, *by), (key, killed, Some(next)));
        }
        other => panic!("expected StageLost, got {other:?}"),
    }
    assert!(err.to_string().contains("staged its own since"), "{err}");
    assert_eq!(store.staged_count(key).unwrap(), 0);
    store
        .stage_items(key, next, &[staged_of(&issue("3"))])
        .unwrap();
    let all = read_all(&*store, key, 10);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].snapshot, issue("3"));
}

pub fn a_stage_is_invisible_to_reads_and_purge_takes_it(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let first = ts("2026-11-21T10:00:00Z");
    let run = run_of(&*store, key, first, vec![issue("1")], 5);
    store.commit_run(key, &run).unwrap();
    let view = store.repository_view(key).unwrap();
    let latest = store.latest_snapshots(key).unwrap();
    let status = store.status().unwrap();
    // A run stages a changed item 1 and a new item 2, and is killed.
    let second = ts("2026-11-21T11:00:00Z");
    let mut changed = issue("1");
    changed.title = "changed".into();
    store.stage_start(key, second).unwrap();
    store
        .stage_items(key, second, &[staged_of(&changed), staged_of(&issue("2"))])
        .unwrap();
    assert_eq!(store.repository_view(key).unwrap(), view);
    assert_eq!(store.latest_snapshots(key).unwrap(), latest);
    let ids = [id(&changed), id(&issue("2"))];
    let known = store.latest_snapshots_for(key, &ids).unwrap();
    assert_eq!(known.len(), 1, "only the committed item 1: {known:?}");
    assert_eq!(known[&id(&changed)], issue("1"));
    assert_eq!(store.status().unwrap(), status);
    assert_eq!(
        store
            .last_successful_run(key)
            .unwrap()
            .unwrap()
            .collected_at,
        first
    );
    // A purge takes the stage with the repository.
    store.purge_repository(key).unwrap();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    assert_eq!(store.staged_count(key).unwrap(), 0);
}

/// A release of the run's own (not staged).
fn release(tag: &str) -> ItemSnapshot {
    let mut r = issue(tag);
    r.key = tag.into();
    r.title = format!("release {tag}");
    r.url = format!("https://github.com/o/n/releases/tag/{tag}");
    r.detail = signals_core::ItemDetail::Release {
        prerelease: false,
        published_at: ts("2026-11-20T00:00:00Z"),
    };
    r
}

/// What a staged chunk adds, made as the collector makes it: the diff of
/// the chunk's items against their previous snapshots.
pub(super) fn part_of(staged: Vec<Staged>, previous: HashMap<String, ItemSnapshot>) -> StagedPart {
    let items = staged.into_iter().map(|s| s.snapshot).collect();
    let delta = account(Source::Github, items, &previous);
    StagedPart {
        references: signals_core::references::of_snapshots(&delta.snapshots),
        snapshots: delta.snapshots,
        events: delta.events,
    }
}

/// Commits `items` and `own` at `at` on `held` with `commit_run`, and on
/// `staged` with `items` staged in pages of 3 (the first page seen twice,
/// its items changed in between, as when items move between pages) and
/// committed by chunks of `chunk`.
fn commit_both(
    (held, staged): (&mut Box<dyn Backend>, &mut Box<dyn Backend>),
    (held_key, staged_key): (RepoKey, RepoKey),
    at: Timestamp,
    (items, own): (Vec<ItemSnapshot>, Vec<ItemSnapshot>),
    chunk: usize,
) {
    let all: Vec<ItemSnapshot> = items.iter().chain(&own).cloned().collect();
    let whole = run_of(&**held, held_key, at, all, 5);
    held.commit_run(held_key, &whole).unwrap();
    let mut run = run_of(&**staged, staged_key, at, own, 5);
    run.record = whole.record.clone();
    staged.stage_start(staged_key, at).unwrap();
    let pages: Vec<Vec<(String, ItemSnapshot)>> = items
        .chunks(3)
        .map(|p| p.iter().map(staged_of).collect())
        .collect();
    if let Some(first) = pages.first() {
        let mut stale = first.clone();
        for (_, item) in &mut stale {
            item.title.push_str(" (before it moved)");
        }
        staged.stage_items(staged_key, at, &stale).unwrap();
    }
    for page in &pages {
        staged.stage_items(staged_key, at, page).unwrap();
    }
    staged
        .commit_staged(staged_key, &run, chunk, &mut |s, p| Ok(part_of(s, p)))
        .unwrap();
    assert_eq!(
        staged.staged_count(staged_key).unwrap(),
        0,
        "the stage goes"
    );
}

pub fn a_staged_commit_stores_what_a_held_one_does(make: Factory<'_>) {
    for chunk in [1, 4, 1000] {
        let (mut held, mut staged) = (make(), make());
        let held_key = held.ensure_repository(&group(), &tracked()).unwrap();
        let staged_key = staged.ensure_repository(&group(), &tracked()).unwrap();
        let stores = (&mut held, &mut staged);
        let keys = (held_key, staged_key);
        // A first run: ten issues (one naming another), two releases among
        // them in signal id order.
        let mut items: Vec<ItemSnapshot> = (1..=10).map(|n| issue(&n.to_string())).collect();
        items[0].text = "see #2 and o/n#7".into();
        let own = vec![release("v1"), release("v2")];
        commit_both(
            stores,
            keys,
            ts("2026-11-21T10:00:00Z"),
            (items, own),
            chunk,
        );
        // A second run: 3 changes, 4 stays as it was, 11 is new.
        let mut changed = issue("3");
        changed.title = "changed".into();
        changed.text = "now names #4".into();
        let items = vec![changed, issue("4"), issue("11")];
        let stores = (&mut held, &mut staged);
        commit_both(
            stores,
            keys,
            ts("2026-11-21T11:00:00Z"),
            (items, vec![]),
            chunk,
        );
        assert_eq!(
            staged.repository_view(staged_key).unwrap(),
            held.repository_view(held_key).unwrap(),
            "chunks of {chunk}"
        );
        assert_eq!(
            staged.latest_snapshots(staged_key).unwrap(),
            held.latest_snapshots(held_key).unwrap()
        );
        let ids: Vec<String> = ["1", "2", "3", "4", "7"]
            .iter()
            .map(|k| id(&issue(k)))
            .collect();
        let links = staged.links_of(staged_key, &ids).unwrap();
        assert_eq!(links, held.links_of(held_key, &ids).unwrap());
        assert_eq!(links[&id(&issue("1"))].references.len(), 2, "{links:?}");
    }
}

pub fn a_staged_commit_is_all_or_nothing(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let first = ts("2026-11-21T10:00:00Z");
    let run = run_of(&*store, key, first, vec![issue("1")], 5);
    store.commit_run(key, &run).unwrap();
    let view = store.repository_view(key).unwrap();
    let at = ts("2026-11-21T11:00:00Z");
    let items: Vec<ItemSnapshot> = (2..=9).map(|n| issue(&n.to_string())).collect();
    let mut run = run_of(&*store, key, at, vec![], 5);
    run.record.observed_count = 8;
    run.record.changed_count = 8;
    // No stage started.
    let err = store
        .commit_staged(key, &run, 3, &mut |s, p| Ok(part_of(s, p)))
        .unwrap_err();
    assert!(matches!(err, StoreError::StageLost { .. }), "{err:?}");
    store.stage_start(key, at).unwrap();
    let page: Vec<(String, ItemSnapshot)> = items.iter().map(staged_of).collect();
    store.stage_items(key, at, &page).unwrap();
    // A part that fails after two chunks were written.
    let mut calls = 0;
    let err = store
        .commit_staged(key, &run, 3, &mut |s, p| {
            calls += 1;
            if calls == 3 {
                return Err(StoreError::OutOfRange {
                    what: "a test's failing part",
                    value: 3,
                });
            }
            Ok(part_of(s, p))
        })
        .unwrap_err();
    assert!(matches!(err, StoreError::OutOfRange { .. }), "{err:?}");
    assert_eq!(store.repository_view(key).unwrap(), view, "nothing written");
    assert_eq!(store.staged_count(key).unwrap(), 8, "the stage stays");
    // Counts that the parts contradict.
    let mut wrong = run.clone();
    wrong.record.changed_count = 7;
    let err = store
        .commit_staged(key, &wrong, 3, &mut |s, p| Ok(part_of(s, p)))
        .unwrap_err();
    assert!(matches!(err, StoreError::InvalidRun { .. }), "{err:?}");
    assert!(err.to_string().contains("8 observation events"), "{err}");
    // A part with an item not of its chunk.
    let err = store
        .commit_staged(key, &run, 3, &mut |s, p| {
            let mut part = part_of(s, p);
            part.snapshots.push((id(&issue("99")), issue("99")));
            Ok(part)
        })
        .unwrap_err();
    assert!(matches!(err, StoreError::InvalidRun { .. }), "{err:?}");
    assert_eq!(store.repository_view(key).unwrap(), view, "nothing written");
    // Then it commits whole.
    store
        .commit_staged(key, &run, 3, &mut |s, p| Ok(part_of(s, p)))
        .unwrap();
    assert_eq!(store.latest_snapshots(key).unwrap().len(), 9);
    assert_eq!(store.staged_count(key).unwrap(), 0);
    // A later run out of order is refused as a held one is.
    store.stage_start(key, first).unwrap();
    let mut late = run.clone();
    late.record = run_of(&*store, key, first, vec![], 5).record;
    let err = store
        .commit_staged(key, &late, 3, &mut |s, p| Ok(part_of(s, p)))
        .unwrap_err();
    assert!(matches!(err, StoreError::RunOutOfOrder { .. }), "{err:?}");
}
