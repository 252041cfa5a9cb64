//! The items of one collection as its list pages give them.

use std::collections::{HashMap, HashSet};

use signals_core::model::{ItemKind, ItemSnapshot};

/// The items of one collection as the lists give them: one per kind and
/// key, the last sighting winning and standing where it was seen last,
/// in time linear in the entries (a first run of a 100,000-item
/// repository pages through 1,000 pages).
#[derive(Default)]
pub(crate) struct Items {
    slots: Vec<Option<ItemSnapshot>>,
    at: HashMap<(ItemKind, String), usize>,
    unknown: HashSet<String>,
}

impl Items {
    pub(crate) fn push(&mut self, item: ItemSnapshot, merge_unknown: bool) {
        let kind = item.kind();
        if kind == ItemKind::PullRequest {
            self.unknown.remove(&item.key);
            if merge_unknown {
                self.unknown.insert(item.key.clone());
            }
        }
        if let Some(old) = self.at.insert((kind, item.key.clone()), self.slots.len()) {
            self.slots[old] = None;
        }
        self.slots.push(Some(item));
    }

    /// The items in order, and the keys of pull requests whose merge state
    /// is unknown.
    pub(crate) fn finish(self) -> (Vec<ItemSnapshot>, HashSet<String>) {
        (self.slots.into_iter().flatten().collect(), self.unknown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;
    use signals_core::model::{ItemDetail, ItemState, Metrics, RepoName};

    fn snapshot(key: &str, title: &str, pull: bool) -> ItemSnapshot {
        let at: Timestamp = "2024-01-01T00:00:00Z".parse().unwrap();
        ItemSnapshot {
            repo: RepoName::parse("o/n").unwrap(),
            key: key.into(),
            title: title.into(),
            text: String::new(),
            url: String::new(),
            created_at: at,
            updated_at: at,
            metrics: Metrics::default(),
            labels: vec![],
            author: "a".into(),
            state: ItemState::Closed,
            closed_at: None,
            assignees: vec![],
            detail: if pull {
                ItemDetail::PullRequest {
                    draft: false,
                    merged: false,
                    merged_at: None,
                }
            } else {
                ItemDetail::Issue
            },
        }
    }

    #[test]
    fn items_keep_the_last_sighting_per_kind_and_key() {
        let mut items = Items::default();
        items.push(snapshot("1", "first", false), false);
        items.push(snapshot("2", "pull", true), true);
        items.push(snapshot("1", "merge request 1", true), false);
        items.push(snapshot("1", "moved", false), false);
        items.push(snapshot("2", "pull again", true), false);
        items.push(snapshot("3", "unknown", true), true);
        let (items, unknown) = items.finish();
        let titles: Vec<_> = items.iter().map(|i| i.title.as_str()).collect();
        assert_eq!(
            titles,
            ["merge request 1", "moved", "pull again", "unknown"]
        );
        assert_eq!(unknown, HashSet::from(["3".to_string()]));
    }
}
