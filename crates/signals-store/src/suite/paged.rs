//! Checks of [`crate::PagedReads`]: the pages `signals serve` reads, and
//! text search's candidates.

use jiff::SignedDuration;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use signals_core::ItemSnapshot;

use super::histories::{commit_histories, histories};
use super::*;

/// Issue 17: for any sequence of runs, the reads `serve` pages with equal
/// the whole view: the latest heads are the latest snapshots without their
/// bodies, in id order; the items changed in the latest run are the
/// view's; every page of the trail, of any size, is the matching slice of
/// the view's trail reversed, with its total.
pub fn paged_reads_equal_the_whole_view(make: Factory<'_>) {
    let mut runner = TestRunner::new(Config {
        cases: cases(24),
        ..Config::default()
    });
    let make = std::cell::RefCell::new(make);
    let result = runner.run(&histories(), |runs| {
        let mut store = (make.borrow_mut())();
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        commit_histories(&mut *store, key, &runs);
        let view = store.repository_view(key).unwrap().unwrap();

        let mut heads = Vec::new();
        store
            .each_latest_head(key, &mut |id, s, _| {
                heads.push((id, s));
                Ok(())
            })
            .unwrap();
        let expected: Vec<(String, ItemSnapshot)> = view
            .items
            .iter()
            .map(|(id, s)| {
                let mut s = s.clone();
                s.text.clear();
                (id.clone(), s)
            })
            .collect();
        prop_assert_eq!(heads, expected);
        prop_assert_eq!(
            store.changed_in_latest(key).unwrap(),
            view.changed_in_latest.clone()
        );

        let newest_first: Vec<_> = view.trail.iter().rev().cloned().collect();
        for limit in [1u64, 3, 100] {
            let mut offset = 0;
            loop {
                let (total, page) = store.trail_page(key, offset, limit).unwrap();
                prop_assert_eq!(total, newest_first.len() as u64);
                let from = (offset as usize).min(newest_first.len());
                let to = ((offset + limit) as usize).min(newest_first.len());
                prop_assert_eq!(&page[..], &newest_first[from..to]);
                if to == newest_first.len() {
                    break;
                }
                offset += limit;
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Issue 17: the texts a store's index gives for a query hold every text
/// that contains it case-insensitively (its candidates may hold more), the
/// index follows new texts and purges, and queries it cannot narrow are
/// `None`.
pub fn text_search_candidates_hold_every_match(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let texts = [
        "Crash when loading a Q4 model",
        "crash? no: a CRASHING test, 100% of runs",
        "Tabs\tand new\nlines, \"quotes\", back\\slash and 50% off_road",
        "Überprüfung der Größe: ÄÖÜ",
        "nothing to see here",
        "",
    ];
    let mut at = ts("2026-11-20T10:00:00Z");
    for round in 0..2 {
        let observed: Vec<ItemSnapshot> = texts
            .iter()
            .enumerate()
            .map(|(k, text)| {
                let mut s = issue(&k.to_string());
                s.title = format!("Item {k} round {round}");
                s.text = format!("{text} (round {round})");
                s
            })
            .collect();
        let commit = run_of(&*store, key, at, observed, 1);
        store.commit_run(key, &commit).unwrap();
        at += SignedDuration::from_hours(1);
    }
    let mut latest = Vec::new();
    store
        .each_latest_head(key, &mut |id, _, ids| {
            latest.push((id, ids));
            Ok(())
        })
        .unwrap();
    let full = store.latest_snapshots(key).unwrap();
    let queries = [
        "crash",
        "CRASH",
        "q4 model",
        "100%",
        "50% off",
        "off_road",
        "\"quotes\"",
        "back\\",
        "tabs\tand",
        "round 1",
        "round 0",
        "item 3 round",
        "no such text",
        "größe",
        "ab",
        "",
    ];
    for q in queries {
        let q = q.to_lowercase();
        let found = store.texts_matching(&q).unwrap();
        if !crate::searchable(&q) {
            assert_eq!(found, None, "{q:?} cannot be narrowed");
            continue;
        }
        let Some(found) = found else {
            continue; // a store without a text index
        };
        for (id, ids) in &latest {
            let item = &full[id];
            if item.title.to_lowercase().contains(&q) {
                assert!(found.contains(&ids.head), "{q:?} in the title of {id}");
            }
            if item.text.to_lowercase().contains(&q) {
                assert!(found.contains(&ids.body), "{q:?} in the body of {id}");
            }
        }
        if q == "round 0" {
            // The first round's bodies are no item's latest, but their
            // texts are still stored, and found.
            assert!(!found.is_empty());
        }
    }
    // A purge takes its texts out of the index.
    store.purge_repository(key).unwrap();
    if let Some(found) = store.texts_matching("crash").unwrap() {
        assert!(found.is_empty(), "{found:?}");
    }
}
