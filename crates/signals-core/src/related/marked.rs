//! The duplicates the hosts mark: the ground truth the related items are
//! measured against on real repositories, where nobody planted stories.
//!
//! A host, or the people on it, marks an item as a duplicate of another in
//! one of four ways; each is read from what a run already stores (the
//! item's latest snapshot and its comments), so measuring costs no
//! request:
//! - [`MarkedBy::HostLink`]: the host names the original with the issue
//!   (GitLab's `closed_as_duplicate_of`, within the same project).
//! - [`MarkedBy::Comment`]: a comment that opens with `Duplicate of`
//!   followed by a reference (`#12`, `owner/name#12`, an item URL): the
//!   words GitHub turns into its "marked as duplicate" event. The latest
//!   such comment wins, as it does on GitHub.
//! - [`MarkedBy::CloseReason`]: closed as a duplicate (GitHub's
//!   `state_reason: "duplicate"`) with exactly one item of the group named
//!   by its latest comment that names any, else by its body.
//! - [`MarkedBy::Label`]: a label whose last word is `duplicate`
//!   (`duplicate`, `status: duplicate`, `resolution/duplicate`), with one
//!   reference as for a close reason.
//!
//! A mark that names no item of the group, names the item itself, or names
//! several items (so which one is meant is a guess) is left out and
//! counted in [`Marks::unresolved`]. Marked pairs become stories (each
//! connected set of marked pairs is one), which [`super::measure`] takes.

use std::collections::{BTreeMap, HashMap};

use crate::model::{ClosedAs, ItemDetail, ItemSnapshot};
use crate::references::{Place, extract, own_key, place_of};

/// One item of the group as the marks are read from it.
#[derive(Debug, Clone, Copy)]
pub struct MarkedItem<'a> {
    /// Its signal id.
    pub id: &'a str,
    /// Its latest snapshot (URL, labels, body, how it was closed).
    pub snapshot: &'a ItemSnapshot,
    /// Its comments' bodies, oldest first.
    pub comments: &'a [String],
}

/// How a duplicate was marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MarkedBy {
    /// The host names the original with the issue.
    HostLink,
    /// A `Duplicate of #N` comment.
    Comment,
    /// Closed as a duplicate, with one reference.
    CloseReason,
    /// A `duplicate` label, with one reference.
    Label,
}

impl MarkedBy {
    /// Its name in reports: `host link`, `comment`, `close reason`, `label`.
    pub fn as_str(self) -> &'static str {
        match self {
            MarkedBy::HostLink => "host link",
            MarkedBy::Comment => "comment",
            MarkedBy::CloseReason => "close reason",
            MarkedBy::Label => "label",
        }
    }
}

/// One marked duplicate: `duplicate` tells the story of `original`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    /// The item marked.
    pub duplicate: String,
    /// The item it duplicates.
    pub original: String,
    /// How.
    pub by: MarkedBy,
}

/// The marks of a group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    /// Each marked item's mark, by the marked item's id.
    pub marked: Vec<Marked>,
    /// Items marked as duplicates whose original is not an item of the
    /// group, is the item itself, or is ambiguous.
    pub unresolved: usize,
}

impl Marks {
    /// Each measured item's story ([`super::measure`]'s `stories`): the
    /// items of each connected set of marked pairs share one; no other
    /// item is measured.
    pub fn stories(&self) -> HashMap<String, Option<u32>> {
        let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
        fn root<'a>(parent: &mut BTreeMap<&'a str, &'a str>, id: &'a str) -> &'a str {
            let mut at = id;
            while let Some(up) = parent.get(at).copied().filter(|up| *up != at) {
                at = up;
            }
            parent.insert(id, at);
            at
        }
        for m in &self.marked {
            parent.entry(&m.duplicate).or_insert(&m.duplicate);
            parent.entry(&m.original).or_insert(&m.original);
            let a = root(&mut parent, &m.duplicate);
            let b = root(&mut parent, &m.original);
            if a != b {
                parent.insert(a.max(b), a.min(b));
            }
        }
        let ids: Vec<&str> = parent.keys().copied().collect();
        let mut numbers: BTreeMap<&str, u32> = BTreeMap::new();
        let mut stories = HashMap::new();
        for id in ids {
            let r = root(&mut parent, id);
            let next = numbers.len() as u32;
            let n = *numbers.entry(r).or_insert(next);
            stories.insert(id.to_string(), Some(n));
        }
        stories
    }

    /// How many marks each way gave, in [`MarkedBy`] order.
    pub fn by_way(&self) -> BTreeMap<MarkedBy, usize> {
        let mut counts = BTreeMap::new();
        for m in &self.marked {
            *counts.entry(m.by).or_insert(0) += 1;
        }
        counts
    }
}

/// Each item's own reference key ([`own_key`] of its URL) and its id: what
/// a mark names is looked up in it. Built from every item of the group,
/// while [`marks`] reads only those that [`may_be_marked`].
pub type Keys = HashMap<String, String>;

/// Adds `id`, at `url`, to `keys`.
pub fn add_key(keys: &mut Keys, id: &str, url: &str) {
    if let Some(key) = own_key(url) {
        keys.insert(key, id.to_string());
    }
}

/// Whether `item` carries any mark at all (so a group's other items need
/// not be kept to read the marks).
pub fn may_be_marked(item: &MarkedItem<'_>) -> bool {
    let s = item.snapshot;
    let by_host = matches!(
        &s.detail,
        ItemDetail::Issue {
            closed_as: Some(ClosedAs::Duplicate),
            ..
        } | ItemDetail::Issue {
            duplicate_of: Some(_),
            ..
        }
    );
    by_host
        || s.labels.iter().any(|l| is_duplicate_label(l))
        || item.comments.iter().any(|c| opens_with_mark(c))
}

fn opens_with_mark(comment: &str) -> bool {
    comment
        .trim_start()
        .get(..13)
        .is_some_and(|h| h.eq_ignore_ascii_case("duplicate of "))
}

/// The duplicates marked among `items` (items of a group, each once),
/// their originals looked up in `keys` (the whole group's).
pub fn marks(items: &[MarkedItem<'_>], keys: &Keys) -> Marks {
    let mut out = Marks::default();
    for item in items {
        match mark_of(item, keys) {
            Some(Found::One(original, by)) if original != item.id => out.marked.push(Marked {
                duplicate: item.id.to_string(),
                original: original.to_string(),
                by,
            }),
            Some(_) => out.unresolved += 1,
            None => {}
        }
    }
    out.marked.sort_by(|a, b| a.duplicate.cmp(&b.duplicate));
    out
}

/// What an item's marks give.
enum Found<'a> {
    /// Its original, and how it was marked.
    One(&'a str, MarkedBy),
    /// Marked, but no single item of the group is named.
    Unresolved,
}

fn mark_of<'a>(item: &MarkedItem<'_>, keys: &'a Keys) -> Option<Found<'a>> {
    let s = item.snapshot;
    let place = place_of(&s.url).unwrap_or_default();
    let resolve = |key: &str| keys.get(key).map(String::as_str);
    let (closed_as, link) = match &s.detail {
        ItemDetail::Issue {
            closed_as,
            duplicate_of,
        } => (*closed_as, duplicate_of.as_deref()),
        _ => (None, None),
    };
    if let Some(original) = link.and_then(resolve) {
        return Some(Found::One(original, MarkedBy::HostLink));
    }
    let newest_first = item.comments.iter().rev().map(String::as_str);
    if let Some(key) = newest_first.clone().find_map(|c| duplicate_of(c, &place)) {
        return Some(match resolve(&key) {
            Some(original) => Found::One(original, MarkedBy::Comment),
            None => Found::Unresolved,
        });
    }
    let by = if closed_as == Some(ClosedAs::Duplicate) {
        MarkedBy::CloseReason
    } else if s.labels.iter().any(|l| is_duplicate_label(l)) {
        MarkedBy::Label
    } else {
        return None;
    };
    // The latest text that names any item of the group decides.
    let texts = newest_first.chain(std::iter::once(s.text.as_str()));
    for text in texts {
        let mut named: Vec<&str> = extract(text, &place)
            .iter()
            .filter_map(|k| resolve(k))
            .filter(|id| *id != item.id)
            .collect();
        named.sort_unstable();
        named.dedup();
        match named.as_slice() {
            [] => continue,
            [one] => return Some(Found::One(one, by)),
            _ => return Some(Found::Unresolved),
        }
    }
    Some(Found::Unresolved)
}

/// The key a `Duplicate of <reference>` comment names: the comment's
/// first words, any case, then one reference (trailing punctuation
/// dropped).
pub fn duplicate_of(comment: &str, place: &Place) -> Option<String> {
    if !opens_with_mark(comment) {
        return None;
    }
    let text = comment.trim_start();
    let reference = text[13..]
        .split_whitespace()
        .next()?
        .trim_end_matches(['.', ',', ';', ':', ')', '!']);
    extract(reference, place).into_iter().next()
}

/// Whether a label marks a duplicate: its last word (after `:`, `/` or a
/// space) is `duplicate`, any case.
pub fn is_duplicate_label(label: &str) -> bool {
    label
        .rsplit([':', '/', ' '])
        .find(|w| !w.trim().is_empty())
        .is_some_and(|w| w.trim().eq_ignore_ascii_case("duplicate"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ItemState, Metrics, RepoName};

    fn issue(repo: &str, n: u64, detail: ItemDetail, labels: &[&str], body: &str) -> ItemSnapshot {
        let at = jiff::Timestamp::from_second(1_700_000_000).unwrap();
        ItemSnapshot {
            repo: RepoName::parse(repo).unwrap(),
            key: n.to_string(),
            title: "t".into(),
            text: body.into(),
            url: format!("https://github.com/{repo}/issues/{n}"),
            created_at: at,
            updated_at: at,
            metrics: Metrics::default(),
            labels: labels.iter().map(|l| l.to_string()).collect(),
            author: "a".into(),
            state: ItemState::Closed,
            closed_at: Some(at),
            assignees: Vec::new(),
            detail,
        }
    }

    struct Group {
        items: Vec<(String, ItemSnapshot, Vec<String>)>,
    }

    impl Group {
        fn new() -> Group {
            let mut items = Vec::new();
            for repo in ["o/a", "o/b"] {
                for n in 1..=4 {
                    let s = issue(repo, n, ItemDetail::issue(), &[], "");
                    items.push((format!("github:{repo}:issue:{n}"), s, Vec::new()));
                }
            }
            Group { items }
        }

        fn item(&mut self, id: &str) -> &mut (String, ItemSnapshot, Vec<String>) {
            self.items.iter_mut().find(|i| i.0 == id).unwrap()
        }

        fn marks(&self) -> Marks {
            let mut keys = Keys::new();
            for (id, s, _) in &self.items {
                add_key(&mut keys, id, &s.url);
            }
            let items: Vec<MarkedItem<'_>> = self
                .items
                .iter()
                .map(|(id, snapshot, comments)| MarkedItem {
                    id,
                    snapshot,
                    comments,
                })
                .filter(may_be_marked)
                .collect();
            marks(&items, &keys)
        }
    }

    fn pairs(m: &Marks) -> Vec<(&str, &str, MarkedBy)> {
        m.marked
            .iter()
            .map(|m| (m.duplicate.as_str(), m.original.as_str(), m.by))
            .collect()
    }

    const A1: &str = "github:o/a:issue:1";
    const A2: &str = "github:o/a:issue:2";
    const A3: &str = "github:o/a:issue:3";
    const B1: &str = "github:o/b:issue:1";
    const B2: &str = "github:o/b:issue:2";

    #[test]
    fn a_duplicate_of_comment_marks_within_and_across_repositories() {
        let mut g = Group::new();
        g.item(A1).2 = vec!["Duplicate of #2.".into()];
        g.item(B1).2 = vec![
            "duplicate of #3".into(),
            "Thanks!".into(),
            // The latest wins, as on GitHub.
            "DUPLICATE OF o/a#3".into(),
        ];
        // Words before it: no mark.
        g.item(B2).2 = vec!["I think this is a duplicate of #1".into()];
        let m = g.marks();
        assert_eq!(
            pairs(&m),
            vec![(A1, A2, MarkedBy::Comment), (B1, A3, MarkedBy::Comment)]
        );
        assert_eq!(m.unresolved, 0);
    }

    #[test]
    fn a_close_reason_or_a_label_needs_exactly_one_reference() {
        let mut g = Group::new();
        let duplicate = ItemDetail::Issue {
            closed_as: Some(ClosedAs::Duplicate),
            duplicate_of: None,
        };
        g.item(A1).1.detail = duplicate.clone();
        g.item(A1).2 = vec!["Same as o/b#2, closing.".into(), "ok".into()];
        g.item(A2).1.labels = vec!["status: Duplicate".into()];
        g.item(A2).1.text = "See #3 for the log.".into();
        // Two items named: which one is meant is a guess.
        g.item(A3).1.detail = duplicate;
        g.item(A3).2 = vec!["Like #1 and #2".into()];
        // A label that is no duplicate mark, and one naming itself.
        g.item(B1).1.labels = vec!["non-duplicate".into()];
        g.item(B1).1.text = "See #2".into();
        g.item(B2).1.labels = vec!["duplicate".into()];
        g.item(B2).1.text = "Reported before in https://github.com/o/b/issues/2".into();
        let m = g.marks();
        assert_eq!(
            pairs(&m),
            vec![(A1, B2, MarkedBy::CloseReason), (A2, A3, MarkedBy::Label)]
        );
        assert_eq!(m.unresolved, 2);
    }

    #[test]
    fn the_host_link_wins_and_references_in_code_are_not_read() {
        let mut g = Group::new();
        g.item(A1).1.detail = ItemDetail::Issue {
            closed_as: Some(ClosedAs::Duplicate),
            duplicate_of: Some("github.com/o/a#4".into()),
        };
        g.item(A1).2 = vec!["Duplicate of #2".into()];
        g.item(A2).1.labels = vec!["duplicate".into()];
        g.item(A2).1.text = "```\nat frame #3\n```".into();
        let m = g.marks();
        assert_eq!(
            pairs(&m),
            vec![(A1, "github:o/a:issue:4", MarkedBy::HostLink)]
        );
        assert_eq!(m.unresolved, 1);
        assert_eq!(m.by_way().get(&MarkedBy::HostLink), Some(&1));
    }

    #[test]
    fn connected_marks_are_one_story() {
        let m = Marks {
            marked: vec![
                Marked {
                    duplicate: "a".into(),
                    original: "b".into(),
                    by: MarkedBy::Comment,
                },
                Marked {
                    duplicate: "c".into(),
                    original: "b".into(),
                    by: MarkedBy::Label,
                },
                Marked {
                    duplicate: "d".into(),
                    original: "e".into(),
                    by: MarkedBy::Comment,
                },
            ],
            unresolved: 0,
        };
        let s = m.stories();
        assert_eq!(s.len(), 5);
        assert_eq!(s["a"], s["b"]);
        assert_eq!(s["c"], s["b"]);
        assert_eq!(s["d"], s["e"]);
        assert_ne!(s["a"], s["d"]);
    }

    #[test]
    fn duplicate_labels() {
        for yes in [
            "duplicate",
            "Duplicate",
            "status: duplicate",
            "resolution/duplicate",
        ] {
            assert!(is_duplicate_label(yes), "{yes}");
        }
        for no in ["duplicates", "non-duplicate", "duplicate?", ""] {
            assert!(!is_duplicate_label(no), "{no}");
        }
    }
}
