//! Checks of [`crate::TrendReads`].

use jiff::Timestamp;
use signals_core::Metrics;

use super::*;

/// Trends' reads: the runs' context since a time, oldest first, and the
/// items observed after a time with their metrics then (or at first
/// sight) and now.
pub fn trend_reads_return_the_runs_and_growth_since_a_time(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let with = |key: &str, reactions: u64, comments: u64, updated: &str| {
        let mut i = issue(key);
        i.metrics = Metrics {
            reactions,
            comments,
        };
        i.updated_at = ts(updated);
        i
    };
    let t1 = ts("2026-11-01T10:00:00Z");
    let run = run_of(
        &*store,
        key,
        t1,
        vec![
            with("1", 1, 1, "2026-11-01T09:00:00Z"),
            with("2", 0, 0, "2026-11-01T09:00:00Z"),
        ],
        10,
    );
    store.commit_run(key, &run).unwrap();
    let t2 = ts("2026-11-10T10:00:00Z");
    let run = run_of(
        &*store,
        key,
        t2,
        vec![
            with("1", 4, 3, "2026-11-10T09:00:00Z"),
            with("3", 2, 0, "2026-11-10T09:00:00Z"),
            with("4", 1, 0, "2026-11-10T09:00:00Z"),
        ],
        12,
    );
    store.commit_run(key, &run).unwrap();
    let t3 = ts("2026-11-12T10:00:00Z");
    let run = run_of(
        &*store,
        key,
        t3,
        vec![
            with("1", 9, 3, "2026-11-12T09:00:00Z"),
            with("3", 2, 3, "2026-11-12T09:00:00Z"),
        ],
        15,
    );
    store.commit_run(key, &run).unwrap();

    let contexts = store.run_contexts(key, ts("2026-11-05T00:00:00Z")).unwrap();
    let seen: Vec<(Timestamp, u64)> = contexts.iter().map(|(t, c)| (*t, c.stars)).collect();
    assert_eq!(seen, vec![(t2, 12), (t3, 15)]);

    // From 2026-11-05 on: issue #1 grew from 2 (its snapshot of t1) to 12;
    // issue #3 was first seen at 2 and is at 5; issue #4, first seen at 1,
    // is still at 1: it did not grow and is left out; issue #2 was not
    // observed.
    let mut growth = store.growth_since(key, ts("2026-11-05T00:00:00Z")).unwrap();
    growth.sort_by(|a, b| a.id.cmp(&b.id));
    let got: Vec<(String, u64, u64, String)> = growth
        .into_iter()
        .map(|r| (r.id, r.from, r.to, r.title))
        .collect();
    assert_eq!(
        got,
        vec![
            (id(&issue("1")), 2, 12, "issue 1".to_string()),
            (id(&issue("3")), 2, 5, "issue 3".to_string()),
        ]
    );
    assert!(store.growth_since(key, t3).unwrap().is_empty());
}

/// An asset's count as a run read it.
fn count(asset: &str, count: u64) -> signals_core::AssetCount {
    signals_core::AssetCount {
        asset: asset.to_string(),
        count,
    }
}

/// Download counts: a run stores those that moved (a first sighting
/// too), so a quiet run stores none; a span's read gives its rows and each
/// asset's last row before it; a purge takes them.
pub fn download_counts_are_stored_when_they_move(make: Factory<'_>) {
    use signals_core::downloads::{AssetSighting, last_4_weeks};
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let runs = [
        ("2026-10-01T10:00:00Z", vec![count("1", 100), count("2", 7)]),
        // Asset 2 is unchanged: nothing is stored for it.
        ("2026-11-01T10:00:00Z", vec![count("1", 130), count("2", 7)]),
        // Asset 1 was replaced by asset 3 (a new id, counting from 0).
        ("2026-11-08T10:00:00Z", vec![count("3", 0), count("2", 9)]),
        ("2026-11-09T10:00:00Z", vec![count("3", 5), count("2", 9)]),
        // A quiet run.
        ("2026-11-10T10:00:00Z", vec![count("3", 5), count("2", 9)]),
    ];
    for (at, downloads) in runs {
        let mut run = run_of(&*store, key, ts(at), vec![], 1);
        run.downloads = downloads;
        store.commit_run(key, &run).unwrap();
    }
    let seen = |asset: &str, at: &str, count: u64| AssetSighting {
        asset: asset.to_string(),
        at: ts(at),
        count,
    };
    let all = store.asset_sightings(key, Timestamp::UNIX_EPOCH).unwrap();
    assert_eq!(
        all,
        vec![
            seen("1", "2026-10-01T10:00:00Z", 100),
            seen("1", "2026-11-01T10:00:00Z", 130),
            seen("2", "2026-10-01T10:00:00Z", 7),
            seen("2", "2026-11-08T10:00:00Z", 9),
            seen("3", "2026-11-08T10:00:00Z", 0),
            seen("3", "2026-11-09T10:00:00Z", 5),
        ],
        "the quiet run and the unchanged count stored nothing"
    );
    // From 2026-11-05: the rows since, and each asset's last before.
    let span = store
        .asset_sightings(key, ts("2026-11-05T00:00:00Z"))
        .unwrap();
    assert_eq!(
        span,
        vec![
            seen("1", "2026-11-01T10:00:00Z", 130),
            seen("2", "2026-10-01T10:00:00Z", 7),
            seen("2", "2026-11-08T10:00:00Z", 9),
            seen("3", "2026-11-08T10:00:00Z", 0),
            seen("3", "2026-11-09T10:00:00Z", 5),
        ]
    );
    // The last 4 weeks before 2026-11-10: +30 (asset 1 on 11-01), +2
    // (asset 2), +5 (asset 3); asset 3's first sighting adds nothing.
    let now = ts("2026-11-10T10:00:00Z");
    let from = now
        .checked_sub(signals_core::downloads::LAST_4_WEEKS)
        .unwrap();
    let sightings = store.asset_sightings(key, from).unwrap();
    assert_eq!(last_4_weeks(&sightings, now), 37);
    store.purge_repository(key).unwrap();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    assert!(
        store
            .asset_sightings(key, Timestamp::UNIX_EPOCH)
            .unwrap()
            .is_empty()
    );
}
