//! The trail's check: the events a run recorded are the items it stored
//! anew (`initial snapshot`) and those whose tracked fields changed, each
//! naming exactly the fields that differ between the item's views before
//! and after the run, as the model sees them; and the run's
//! `changed_count` counts them.

use std::collections::BTreeMap;

use signals_core::{EventKind, ItemSnapshot};
use signals_store::{PagedReads, RepoKey};

use super::check::{Difference, What};
use super::model::Seen;

/// The tracked fields that differ between two views, in the trail's
/// order and spelling (assignees and drafts never change in the
/// simulation).
fn changed(before: &Seen, after: &Seen) -> String {
    let fields = [
        ("title", before.title != after.title),
        ("text", before.text != after.text),
        ("state", before.open != after.open),
        ("labels", before.labels != after.labels),
        ("metrics", before.comments != after.comments),
        ("updatedAt", before.updated != after.updated),
        ("merged", before.merged != after.merged),
    ];
    fields
        .iter()
        .filter(|(_, differs)| *differs)
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The differences between the events of the run at `at_ms` and the
/// snapshots it stored (`before` and `after` it); `changed_count` is the
/// run's record of them.
pub(super) fn check(
    store: &signals_store_sqlite::Store,
    key: RepoKey,
    at_ms: i64,
    before: &BTreeMap<String, ItemSnapshot>,
    after: &BTreeMap<String, ItemSnapshot>,
    changed_count: u64,
) -> Vec<Difference> {
    let mut expected: BTreeMap<&str, (EventKind, String)> = BTreeMap::new();
    for (id, now) in after {
        let now = Seen::of_snapshot(now);
        let event = match before.get(id).map(Seen::of_snapshot) {
            None => Some((EventKind::Discovered, "initial snapshot".to_string())),
            Some(was) if was != now => Some((EventKind::Changed, changed(&was, &now))),
            Some(_) => None,
        };
        if let Some(event) = event.filter(|(_, detail)| !detail.is_empty()) {
            expected.insert(id, event);
        }
    }
    let limit = after.len() as u64 + 16;
    let events = store.trail_page(key, 0, limit).expect("the trail").events;
    let recorded: BTreeMap<&str, (EventKind, String)> = events
        .iter()
        .filter(|e| e.at.as_millisecond() == at_ms)
        .map(|e| (e.item_id.as_str(), (e.kind, e.detail.clone())))
        .collect();
    let mut out = vec![];
    if recorded != expected {
        let wrong: Vec<String> = expected
            .iter()
            .filter(|(id, e)| recorded.get(*id) != Some(e))
            .map(|(id, e)| format!("{id}: {e:?}, recorded {:?}", recorded.get(*id)))
            .chain(
                recorded
                    .iter()
                    .filter(|(id, _)| !expected.contains_key(*id))
                    .map(|(id, e)| format!("{id}: recorded {e:?}, nothing changed")),
            )
            .take(4)
            .collect();
        out.push(Difference {
            what: What::Trail,
            detail: wrong.join("; "),
        });
    }
    if changed_count != recorded.len() as u64 {
        out.push(Difference {
            what: What::RunRecord,
            detail: format!(
                "changed_count {changed_count}, {} events recorded",
                recorded.len()
            ),
        });
    }
    out
}
