//! Checks of [`crate::PagedReads`]: the pages `signals serve` reads.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use signals_core::ItemSnapshot;

use super::histories::{commit_histories, histories};
use super::*;

/// For any sequence of runs, the reads `serve` pages with equal
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
            .each_latest_head(key, &mut |id, s| {
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
                let crate::TrailPage {
                    total,
                    events: page,
                } = store.trail_page(key, offset, limit).unwrap();
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
