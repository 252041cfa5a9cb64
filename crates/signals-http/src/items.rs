//! The items and comments of one collection as its pages give them:
//! held in memory ([`Items`]), or handed page by page to a [`PageSink`],
//! holding only what the steps after the lists need.

use std::collections::{BTreeMap, HashMap, HashSet};

use jiff::Timestamp;
use signals_core::model::{self, Comment, ItemKind, ItemSnapshot};

/// Where a collection's items and comments go as their pages arrive
/// ([`crate::HostClient::collect_into`]), so that a collection of a
/// 100,000-item repository, or of its last 90 days of conversation, does
/// not hold them all.
///
/// A page's items come in the order listed. The same item may come again
/// in a later page (it moved while the lists were read): the last one
/// stands. A closed pull request whose merge state the page did not give
/// comes only once the host settled it, after the lists; one never
/// settled does not come, and its key is in
/// [`crate::Collection::left_out`]: an earlier sighting of it that came
/// must be dropped too.
///
/// Comments come after every item, a page (or a query of reviews) at a
/// time. The same comment may come twice (it was edited while its list
/// was read): the last one stands.
///
/// A sink that fails keeps its error for its caller and ignores the pages
/// after it (the collection goes on: the host client cannot tell a sink's
/// failure from its own).
pub trait PageSink {
    /// One page's items.
    fn items(&mut self, items: Vec<ItemSnapshot>);
    /// One page's comments, reviews or review comments of the repository
    /// whose web URL is `repo_url` (what their references are read
    /// against).
    fn comments(&mut self, repo_url: &str, comments: Vec<Comment>);
}

/// Where a host's comments step hands what it read
/// ([`crate::Host::comments`]): the comments and reviews a page (or a
/// query) at a time, and the merges (who merged a pull request) that an
/// answer already asked for them told.
pub trait ReplySink {
    /// One page's comments, reviews or review comments.
    fn comments(&mut self, page: Vec<Comment>);
    /// Merges an answer told, each a pull request with who merged it.
    fn merges(&mut self, merges: Vec<signals_core::model::Merge>);
}

/// A [`ReplySink`] that holds what it is given.
#[derive(Debug, Default)]
pub struct HeldReplies {
    /// The comments, in the order given.
    pub comments: Vec<Comment>,
    /// The merges, in the order given.
    pub merges: Vec<signals_core::model::Merge>,
}

impl ReplySink for HeldReplies {
    fn comments(&mut self, page: Vec<Comment>) {
        self.comments.extend(page);
    }

    fn merges(&mut self, merges: Vec<signals_core::model::Merge>) {
        self.merges.extend(merges);
    }
}

/// What the comments step needs of an item the lists gave: which item,
/// and when it last changed. Held in place of the whole item while the
/// items go to a [`PageSink`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemStamp {
    /// The item's kind.
    pub kind: ItemKind,
    /// The item's key (its number).
    pub key: String,
    /// When the item last changed.
    pub updated_at: Timestamp,
}

impl ItemStamp {
    /// The stamp of `item`.
    pub fn of(item: &ItemSnapshot) -> ItemStamp {
        ItemStamp {
            kind: item.kind(),
            key: item.key.clone(),
            updated_at: item.updated_at,
        }
    }
}

/// The items the comments step reads, by kind and key, the last sighting
/// standing, in the order first seen.
#[derive(Default)]
struct Stamps {
    at: HashMap<(ItemKind, String), usize>,
    stamps: Vec<ItemStamp>,
}

impl Stamps {
    fn push(&mut self, item: &ItemSnapshot) {
        let stamp = ItemStamp::of(item);
        match self.at.get(&(stamp.kind, stamp.key.clone())) {
            Some(&i) => self.stamps[i] = stamp,
            None => {
                self.at
                    .insert((stamp.kind, stamp.key.clone()), self.stamps.len());
                self.stamps.push(stamp);
            }
        }
    }
}

/// What [`Gather`] holds once the lists are read.
pub(crate) struct Gathered<'s> {
    /// All items, or (with a sink) the pull requests to settle.
    pub(crate) items: Vec<ItemSnapshot>,
    /// The keys of the pull requests whose merge state is unknown.
    pub(crate) unknown: HashSet<String>,
    /// With a sink, the stamps of the items the comments step reads
    /// (those updated at or after its `since`); `None`: the held items.
    pub(crate) recent: Option<Vec<ItemStamp>>,
    /// The sink, when there is one.
    pub(crate) sink: Option<&'s mut dyn PageSink>,
    /// The merges the entries told, by pull request.
    pub(crate) merges: BTreeMap<String, model::Merge>,
}

/// A collection's items as they arrive: all held ([`Items`]), or sent to
/// a sink, holding only the pull requests whose merge state is unknown
/// and the items the comments step reads (updated since its `since`).
pub(crate) struct Gather<'s> {
    /// All items, or (with a sink) the pull requests to settle.
    items: Items,
    sink: Option<&'s mut dyn PageSink>,
    /// With a sink: the stamps of the items the comments step reads.
    recent: Option<Recent>,
    /// The merges the entries told, by pull request: always held, with a
    /// sink too (one small value per merged pull request listed).
    merges: BTreeMap<String, model::Merge>,
}

/// The stamps of the items updated at or after `since`, held for the
/// comments step while the items go to a sink.
struct Recent {
    since: Timestamp,
    stamps: Stamps,
}

/// An item as a list page gives it.
pub(crate) struct Listed {
    pub(crate) item: ItemSnapshot,
    pub(crate) merge: Merge,
    /// Who merged it, when the entry said ([`crate::wire::WireItem::merger`]).
    pub(crate) merger: Option<model::Merge>,
}

/// Whether a list page told a pull request's merge state. GitHub's issue
/// lists do not: the host settles those after the lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Merge {
    /// Given, or not a pull request.
    Known,
    /// A closed pull request whose merge the page did not say.
    Unknown,
}

/// The items held by an [`Items`], in order.
pub(crate) struct Held {
    pub(crate) items: Vec<ItemSnapshot>,
    /// The keys of the pull requests whose merge state is unknown.
    pub(crate) unknown: HashSet<String>,
}

impl<'s> Gather<'s> {
    /// Holds every item, or, with `sink`, sends them there and holds those
    /// updated at or after `comments_since`.
    pub(crate) fn new(
        sink: Option<&'s mut dyn PageSink>,
        comments_since: Option<Timestamp>,
    ) -> Self {
        let recent = match (&sink, comments_since) {
            (Some(_), Some(since)) => Some(Recent {
                since,
                stamps: Stamps::default(),
            }),
            _ => None,
        };
        Gather {
            items: Items::default(),
            sink,
            recent,
            merges: BTreeMap::new(),
        }
    }

    /// One page's items. A pull request listed twice keeps one merge, the
    /// last told.
    pub(crate) fn page(&mut self, mut page: Vec<Listed>) {
        for merger in page.iter_mut().filter_map(|l| l.merger.take()) {
            self.merges.insert(merger.item_key.clone(), merger);
        }
        let Some(sink) = &mut self.sink else {
            for listed in page {
                self.items.push(listed);
            }
            return;
        };
        let mut out = Vec::with_capacity(page.len());
        for Listed { item, merge, .. } in page {
            if let Some(recent) = &mut self.recent
                && item.updated_at >= recent.since
            {
                recent.stamps.push(&item);
            }
            if item.kind() == ItemKind::PullRequest {
                if merge == Merge::Unknown {
                    self.items.push(Listed {
                        item,
                        merge,
                        merger: None,
                    });
                    continue;
                }
                self.items.forget(&item.key);
            }
            out.push(item);
        }
        sink.items(out);
    }

    /// After the lists: what is held.
    pub(crate) fn finish(self) -> Gathered<'s> {
        let held = self.items.finish();
        Gathered {
            items: held.items,
            unknown: held.unknown,
            recent: self.recent.map(|r| r.stamps.stamps),
            sink: self.sink,
            merges: self.merges,
        }
    }
}

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
    pub(crate) fn push(&mut self, Listed { item, merge, .. }: Listed) {
        let kind = item.kind();
        if kind == ItemKind::PullRequest {
            self.unknown.remove(&item.key);
            if merge == Merge::Unknown {
                self.unknown.insert(item.key.clone());
            }
        }
        if let Some(old) = self.at.insert((kind, item.key.clone()), self.slots.len()) {
            self.slots[old] = None;
        }
        self.slots.push(Some(item));
    }

    /// Drops the pull request `key`, held with its merge state unknown: a
    /// later sighting gave it (and went to the sink).
    fn forget(&mut self, key: &str) {
        if self.unknown.remove(key)
            && let Some(at) = self.at.remove(&(ItemKind::PullRequest, key.to_string()))
        {
            self.slots[at] = None;
        }
    }

    /// The items in order, and the keys of pull requests whose merge state
    /// is unknown.
    pub(crate) fn finish(self) -> Held {
        Held {
            items: self.slots.into_iter().flatten().collect(),
            unknown: self.unknown,
        }
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
                    association: None,
                }
            } else {
                ItemDetail::issue()
            },
        }
    }

    fn listed(item: ItemSnapshot, merge: Merge) -> Listed {
        Listed {
            item,
            merge,
            merger: None,
        }
    }

    #[test]
    fn items_keep_the_last_sighting_per_kind_and_key() {
        let mut items = Items::default();
        items.push(listed(snapshot("1", "first", false), Merge::Known));
        items.push(listed(snapshot("2", "pull", true), Merge::Unknown));
        items.push(listed(snapshot("1", "merge request 1", true), Merge::Known));
        items.push(listed(snapshot("1", "moved", false), Merge::Known));
        items.push(listed(snapshot("2", "pull again", true), Merge::Known));
        items.push(listed(snapshot("3", "unknown", true), Merge::Unknown));
        let Held { items, unknown } = items.finish();
        let titles: Vec<_> = items.iter().map(|i| i.title.as_str()).collect();
        assert_eq!(
            titles,
            ["merge request 1", "moved", "pull again", "unknown"]
        );
        assert_eq!(unknown, HashSet::from(["3".to_string()]));
    }

    /// Pages as a sink receives them.
    #[derive(Default)]
    struct Pages(Vec<Vec<String>>);

    impl PageSink for Pages {
        fn items(&mut self, items: Vec<ItemSnapshot>) {
            self.0.push(items.into_iter().map(|i| i.title).collect());
        }

        fn comments(&mut self, _: &str, _: Vec<Comment>) {}
    }

    #[test]
    fn a_sink_gets_each_page_and_only_the_unsettled_pulls_are_held() {
        let mut pages = Pages::default();
        let since: Timestamp = "2024-01-01T00:00:00Z".parse().unwrap();
        let mut gather = Gather::new(Some(&mut pages), Some(since));
        gather.page(vec![
            listed(snapshot("1", "issue", false), Merge::Known),
            listed(snapshot("2", "pull unknown", true), Merge::Unknown),
            listed(
                snapshot("3", "pull unknown then known", true),
                Merge::Unknown,
            ),
        ]);
        gather.page(vec![
            listed(snapshot("3", "pull known", true), Merge::Known),
            listed(snapshot("4", "pull known then unknown", true), Merge::Known),
        ]);
        gather.page(vec![listed(
            snapshot("4", "pull unknown at last", true),
            Merge::Unknown,
        )]);
        let Gathered {
            items: held,
            unknown,
            recent,
            ..
        } = gather.finish();
        assert_eq!(
            pages.0,
            [
                vec!["issue".to_string()],
                vec![
                    "pull known".to_string(),
                    "pull known then unknown".to_string()
                ],
                vec![],
            ]
        );
        let held: Vec<_> = held.iter().map(|i| i.title.as_str()).collect();
        assert_eq!(held, ["pull unknown", "pull unknown at last"]);
        assert_eq!(unknown, HashSet::from(["2".to_string(), "4".to_string()]));
        // Every item is updated at `since`: all are recent, once each.
        assert_eq!(recent.unwrap().len(), 4);
    }

    #[test]
    fn a_merge_told_twice_is_held_once_with_a_sink_or_without() {
        let merger = |key: &str, by: &str| model::Merge {
            item_key: key.into(),
            merged_by: by.into(),
            bot: false,
            merged_at: "2024-01-01T00:00:00Z".parse().unwrap(),
        };
        let told = |key: &str, by: &str| Listed {
            item: snapshot(key, "pull", true),
            merge: Merge::Known,
            merger: Some(merger(key, by)),
        };
        let mut pages = Pages::default();
        for sink in [None, Some(&mut pages as &mut dyn PageSink)] {
            let mut gather = Gather::new(sink, None);
            gather.page(vec![told("2", "first"), told("10", "m")]);
            gather.page(vec![
                listed(snapshot("1", "issue", false), Merge::Known),
                told("2", "again"),
            ]);
            let merges: Vec<_> = gather.finish().merges.into_values().collect();
            assert_eq!(merges, [merger("10", "m"), merger("2", "again")]);
        }
        // The sink got every item, merged or not.
        assert_eq!(pages.0.iter().map(Vec::len).sum::<usize>(), 4);
    }

    #[test]
    fn without_a_sink_every_item_is_held() {
        let mut gather = Gather::new(None, None);
        gather.page(vec![
            listed(snapshot("1", "issue", false), Merge::Known),
            listed(snapshot("2", "pull unknown", true), Merge::Unknown),
        ]);
        let Gathered {
            items: held,
            unknown,
            recent,
            sink,
            ..
        } = gather.finish();
        assert_eq!(held.len(), 2);
        assert_eq!(unknown, HashSet::from(["2".to_string()]));
        assert!(recent.is_none() && sink.is_none());
    }
}
