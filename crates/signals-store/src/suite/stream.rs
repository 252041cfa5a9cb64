//! Checks of [`crate::StreamReads`]: the batches `signals export` reads
//! give what the whole view holds, whatever the batch size.

use std::collections::HashMap;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use signals_core::EventKind;

use super::histories::{commit_histories, histories};
use super::*;

/// The batched reads `signals export` streams from give what
/// the whole view holds: the outline; the latest snapshots in id order,
/// whatever the batch size, each with its event of the latest run; the
/// trail's keys in its order; and its events read back by key.
pub fn batched_reads_equal_the_whole_view(make: Factory<'_>) {
    let mut runner = TestRunner::new(Config {
        cases: cases(24),
        ..Config::default()
    });
    let make = std::cell::RefCell::new(make);
    let result = runner.run(&histories(), |runs| {
        let mut store = (make.borrow_mut())();
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        prop_assert!(store.repository_outline(key).unwrap().is_none());
        prop_assert!(store.latest_news(key).unwrap().is_none());
        commit_histories(&mut *store, key, &runs);
        let view = store.repository_view(key).unwrap().unwrap();
        let outline = store.repository_outline(key).unwrap().unwrap();
        prop_assert_eq!(&outline.summary, &view.summary);
        prop_assert_eq!(&outline.runs, &view.runs);
        prop_assert_eq!(&outline.context, &view.context);
        prop_assert_eq!(&outline.news, &view.news);
        prop_assert_eq!(store.latest_news(key).unwrap(), Some(view.news.clone()));
        prop_assert_eq!(&outline.license, &view.license);

        let latest_run: HashMap<&str, EventKind> = view
            .trail
            .iter()
            .filter(|e| e.at == view.runs.last().unwrap().collected_at)
            .map(|e| (e.item_id.as_str(), e.kind))
            .collect();
        for limit in [1usize, 3, 1000] {
            let mut items = Vec::new();
            let mut after: Option<String> = None;
            loop {
                let batch = store
                    .latest_items_after(key, after.as_deref(), limit)
                    .unwrap();
                prop_assert!(batch.len() <= limit);
                let Some(last) = batch.last() else { break };
                after = Some(last.id.clone());
                items.extend(batch);
            }
            let ids: Vec<&String> = items.iter().map(|i| &i.id).collect();
            prop_assert_eq!(ids, view.items.keys().collect::<Vec<_>>());
            for i in &items {
                prop_assert_eq!(&i.item, &view.items[&i.id]);
                prop_assert_eq!(i.latest_event, latest_run.get(i.id.as_str()).copied());
                prop_assert_eq!(
                    i.latest_event == Some(EventKind::Changed),
                    view.changed_in_latest.contains(&i.id)
                );
            }
        }

        for limit in [1usize, 2, 1000] {
            let mut keys = Vec::new();
            let mut events = Vec::new();
            loop {
                let after = keys
                    .last()
                    .map(|(run, id): &(i64, String)| (*run, id.as_str()));
                let batch = store.trail_keys_after(key, after, limit).unwrap();
                prop_assert!(batch.len() <= limit);
                if batch.is_empty() {
                    break;
                }
                for (run, e) in batch {
                    keys.push((run, e.item_id.clone()));
                    events.push(e);
                }
            }
            let bare: Vec<_> = view
                .trail
                .iter()
                .map(|e| (e.at, e.item_id.clone(), e.kind, e.detail.clone()))
                .collect();
            let read: Vec<_> = events
                .iter()
                .map(|e| (e.at, e.item_id.clone(), e.kind, e.detail.clone()))
                .collect();
            prop_assert_eq!(read, bare);
            let mut reversed = keys.clone();
            reversed.reverse();
            let mut whole = store.trail_events(key, &reversed).unwrap();
            whole.reverse();
            prop_assert_eq!(&whole, &view.trail);
        }
        prop_assert!(store.trail_events(key, &[]).unwrap().is_empty());
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
