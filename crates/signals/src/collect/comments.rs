//! The comments step of one run: the comments and reviews the host gave
//! are stored under their items' signal ids, and what each one names joins
//! the run's references, so a comment links items across a group as a
//! body does (docs/decisions.md, "References across a group").
//!
//! A comment may name an item the run did not list and the store does not
//! hold: a first run reads comments further back than items, and a host
//! lists a review comment on a pull request it no longer lists. Such a
//! comment is stored all the same; its references wait, counted in the
//! run's summary, and are made from the stored comment by the run that
//! first sees its item ([`stored`]). No request is sent for the item.

use std::collections::{HashMap, HashSet};

use signals_core::diff::Observation;
use signals_core::references::{ItemReferences, extract, of_snapshots, of_text, place_of_repo};
use signals_core::run::{ItemEvent, RunDelta};
use signals_core::{Comment, CommentKind, ItemKind, ItemSnapshot, TrackedRepo, signal_id};
use signals_store::comments::CommentText;
use signals_store::{Backend, CommentStore, Reads, RepoKey, StoreError};

use super::run::RunError;

/// What a run's comments name, by item, until the run knows which of their
/// items the store holds once it commits.
#[derive(Debug, Default)]
pub(super) struct CommentReferences {
    by_item: HashMap<String, Vec<ItemReferences>>,
}

/// A part of the run's observed items, as accounted against their
/// previous snapshots: what the comments' references are placed by.
pub(super) struct Observed<'a> {
    /// The new snapshots, by signal id.
    pub(super) snapshots: &'a [(String, ItemSnapshot)],
    /// Their events.
    pub(super) events: &'a [ItemEvent],
    /// The previous snapshots of the observed items the store had.
    pub(super) previous: &'a HashMap<String, ItemSnapshot>,
}

impl CommentReferences {
    /// The comment references of `part`'s items, which the store holds
    /// once the run commits: the run's own comments on them, and the
    /// stored comments of the items the run discovers (one read). Each
    /// (item, text) once, the run's own reading last.
    pub(super) fn place(
        &mut self,
        store: &dyn CommentStore,
        key: RepoKey,
        part: Observed<'_>,
    ) -> Result<Vec<ItemReferences>, RunError> {
        let discovered: HashSet<&str> = part
            .events
            .iter()
            .filter(|e| matches!(e.observation, Observation::Discovered))
            .map(|e| e.item_id.as_str())
            .collect();
        let first: Vec<(&str, &str)> = part
            .snapshots
            .iter()
            .filter(|(id, _)| discovered.contains(id.as_str()))
            .map(|(id, item)| (id.as_str(), item.url.as_str()))
            .collect();
        let mut out = stored(store, key, &first)?;
        let held = part
            .snapshots
            .iter()
            .map(|(id, _)| id)
            .chain(part.previous.keys());
        for id in held {
            out.extend(self.by_item.remove(id).unwrap_or_default());
        }
        dedup(&mut out);
        Ok(out)
    }

    /// Every reference a run commits with its own items (`delta`,
    /// accounted against their `previous` snapshots): their bodies', their
    /// comments', and the comments' of every other item the store holds;
    /// with the count of the comments whose item it does not hold, which
    /// wait.
    pub(super) fn with_bodies(
        mut self,
        store: &dyn Backend,
        key: RepoKey,
        delta: &RunDelta,
        previous: &HashMap<String, ItemSnapshot>,
    ) -> Result<Placed, RunError> {
        let mut references = of_snapshots(&delta.snapshots);
        let part = Observed {
            snapshots: &delta.snapshots,
            events: &delta.events,
            previous,
        };
        references.extend(self.place(store, key, part)?);
        let settled = self.settle(store, key)?;
        references.extend(settled.references);
        Ok(Placed {
            references,
            waiting: settled.waiting,
        })
    }

    /// What is left once the run took its items' references: those whose
    /// items the store holds, and how many comments wait for their item
    /// (neither listed by the run nor in the store).
    fn settle(self, store: &dyn Reads, key: RepoKey) -> Result<Placed, RunError> {
        if self.by_item.is_empty() {
            return Ok(Placed::default());
        }
        let ids: Vec<String> = self.by_item.keys().cloned().collect();
        let held = store.latest_heads_for(key, &ids)?;
        let mut kept = Vec::new();
        let mut waiting = 0;
        for (id, refs) in self.by_item {
            match held.contains_key(&id) {
                true => kept.extend(refs),
                false => waiting += refs.len() as u64,
            }
        }
        kept.sort_by(|a, b| (&a.item_id, &a.text).cmp(&(&b.item_id, &b.text)));
        Ok(Placed {
            references: kept,
            waiting,
        })
    }
}

/// References a run commits, and the count of its comments whose item
/// neither it nor the store holds, which wait.
#[derive(Debug, Default)]
pub(super) struct Placed {
    pub(super) references: Vec<ItemReferences>,
    pub(super) waiting: u64,
}

/// Where a run's comments are read: the repository's web URL, and the
/// items the run holds (none when they went to its stage), whose own URLs
/// their comments' references are read against.
#[derive(Clone, Copy)]
pub(super) struct Written<'a> {
    pub(super) repo_url: &'a str,
    pub(super) items: &'a [ItemSnapshot],
}

impl CommentReferences {
    /// Stores a page of a run's comments under their items' signal ids and
    /// keeps what their bodies name. The store is an upsert, before the
    /// run's commit: should the commit fail, the next run reads the same
    /// window again and stores them once (docs/decisions.md, "Comments and
    /// first responses"); the references are committed with the run, those
    /// of items it holds.
    pub(super) fn store_page(
        &mut self,
        store: &dyn CommentStore,
        key: RepoKey,
        repo: &TrackedRepo,
        written: Written<'_>,
        comments: Vec<Comment>,
    ) -> Result<(), StoreError> {
        let references = references(repo, written, &comments);
        let comments: Vec<(String, Comment)> = comments
            .into_iter()
            .map(|c| {
                (
                    signal_id(&repo.source, &repo.repo, c.item_kind, &c.item_key),
                    c,
                )
            })
            .collect();
        store.store_comments(key, &comments)?;
        for r in references {
            self.by_item.entry(r.item_id.clone()).or_default().push(r);
        }
        Ok(())
    }
}

/// Stores a run's comments, held until its collection ended; see
/// [`CommentReferences::store_page`].
pub(super) fn store(
    store: &dyn CommentStore,
    key: RepoKey,
    repo: &TrackedRepo,
    written: Written<'_>,
    comments: Vec<Comment>,
) -> Result<CommentReferences, RunError> {
    let mut out = CommentReferences::default();
    out.store_page(store, key, repo, written, comments)?;
    Ok(out)
}

/// What the stored comments of items the run sees for the first time
/// name (`first`: each item's signal id and web URL): their comments may
/// have come in runs before theirs. One read for all of them.
fn stored(
    store: &dyn CommentStore,
    key: RepoKey,
    first: &[(&str, &str)],
) -> Result<Vec<ItemReferences>, RunError> {
    if first.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<String> = first.iter().map(|(id, _)| id.to_string()).collect();
    let urls: HashMap<&str, &str> = first.iter().copied().collect();
    Ok(store
        .comments_of(key, &ids)?
        .iter()
        .filter_map(|c: &CommentText| {
            let url = urls.get(c.item_id.as_str())?;
            let reference = of_text(&c.item_id, url, &tag(c.kind, &c.host_id), &c.body);
            Some(ItemReferences {
                own: None,
                ..reference
            })
        })
        .collect())
}

/// The text tag of a comment's references: `comment:<kind>:<host id>` (an
/// edit replaces its keys).
fn tag(kind: CommentKind, host_id: &str) -> String {
    format!("comment:{}:{}", kind.as_str(), host_id)
}

/// One entry per (item, text): should a run bring the same comment twice
/// (its own and the stored copy of an item it sees first), the last wins.
fn dedup(references: &mut Vec<ItemReferences>) {
    let mut at: HashMap<(String, String), usize> = HashMap::new();
    let mut out: Vec<ItemReferences> = Vec::with_capacity(references.len());
    for r in references.drain(..) {
        match at.get(&(r.item_id.clone(), r.text.clone())) {
            Some(&i) => out[i] = r,
            None => {
                at.insert((r.item_id.clone(), r.text.clone()), out.len());
                out.push(r);
            }
        }
    }
    *references = out;
}

/// What each comment names: one text per comment, tagged
/// `comment:<kind>:<host id>` (an edit replaces its keys), read against
/// its item's URL when the run saw the item (a comment updates its item,
/// so it nearly always did), else against the repository's, where
/// `#123` still means an item of it. A comment never sets its item's own
/// key: that comes from the item.
fn references(
    repo: &TrackedRepo,
    written: Written<'_>,
    comments: &[Comment],
) -> Vec<ItemReferences> {
    let urls: HashMap<(ItemKind, &str), &str> = written
        .items
        .iter()
        .map(|i| ((i.kind(), i.key.as_str()), i.url.as_str()))
        .collect();
    let place = place_of_repo(written.repo_url);
    comments
        .iter()
        .map(|c| {
            let id = signal_id(&repo.source, &repo.repo, c.item_kind, &c.item_key);
            let tag = tag(c.kind, &c.host_id);
            match urls.get(&(c.item_kind, c.item_key.as_str())) {
                Some(url) => ItemReferences {
                    own: None,
                    ..of_text(&id, url, &tag, &c.body)
                },
                None => ItemReferences {
                    item_id: id,
                    own: None,
                    text: tag,
                    targets: extract(&c.body, &place.clone().unwrap_or_default()),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;
    use signals_core::{CommentKind, RepoName, Source};

    fn comment(key: &str, body: &str) -> Comment {
        let at: Timestamp = "2026-11-01T00:00:00Z".parse().unwrap();
        Comment {
            kind: CommentKind::Comment,
            host_id: format!("c{key}"),
            item_kind: ItemKind::Issue,
            item_key: key.into(),
            author: "a".into(),
            association: None,
            bot: false,
            state: None,
            created_at: at,
            updated_at: at,
            body: body.into(),
        }
    }

    #[test]
    fn a_comment_names_items_against_its_item_or_else_its_repository() {
        let repo = TrackedRepo {
            id: "n".into(),
            source: Source::Github.into(),
            repo: RepoName::parse("o/n").unwrap(),
            name: "N".into(),
            keywords: vec![],
        };
        let comments = [
            comment(
                "1",
                "same as other/x#7 and #2 (and #1: itself, left to the store)",
            ),
            comment("9", "see #3"),
        ];
        let written = Written {
            repo_url: "https://github.com/o/n",
            items: &[],
        };
        let found = references(&repo, written, &comments);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].item_id, "github:o/n:issue:1");
        assert_eq!(found[0].text, "comment:comment:c1");
        assert_eq!(found[0].own, None);
        assert!(
            found[0]
                .targets
                .contains(&"github.com/other/x#7".to_string())
        );
        assert!(found[0].targets.contains(&"github.com/o/n#2".to_string()));
        assert_eq!(found[1].targets, vec!["github.com/o/n#3".to_string()]);
    }
}
