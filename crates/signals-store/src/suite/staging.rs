//! Checks of [`crate::RunStaging`] (issue 27, part 2): a run's stage keeps
//! the last sighting of each item, reads back in chunks in signal id
//! order, belongs to one run, and is invisible to every read of the
//! repository.

use signals_core::ItemSnapshot;

use super::{Factory, group, id, issue, run_of, tracked, ts};
use crate::suite::WholeReads;
use crate::{Backend, RepoKey, Staged, StoreError};

fn staged(id_of: &ItemSnapshot) -> (String, ItemSnapshot) {
    (id(id_of), id_of.clone())
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
        .stage_items(key, at, &[staged(&a), staged(&b)])
        .unwrap();
    store
        .stage_items(key, at, &[staged(&a), staged(&c), staged(&moved)])
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
        .stage_items(key, killed, &[staged(&issue("1"))])
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
        .stage_items(key, killed, &[staged(&issue("1")), staged(&issue("2"))])
        .unwrap();
    store.stage_start(other_key, killed).unwrap();
    store
        .stage_items(other_key, killed, &[staged(&issue("9"))])
        .unwrap();
    // The next run starts its own stage: the killed run's items go.
    assert_eq!(store.stage_start(key, next).unwrap(), 2);
    assert_eq!(store.staged_count(key).unwrap(), 0);
    assert_eq!(store.staged_count(other_key).unwrap(), 1);
    // The older run, should it still be going, cannot stage into it.
    let err = store
        .stage_items(key, killed, &[staged(&issue("3"))])
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
        .stage_items(key, next, &[staged(&issue("3"))])
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
        .stage_items(key, second, &[staged(&changed), staged(&issue("2"))])
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
