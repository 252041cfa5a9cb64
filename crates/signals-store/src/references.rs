//! References between items of a group: the role that
//! reads them ([`ReferenceReads`]) and the values it speaks.
//!
//! A run commits what each new text of an item names
//! ([`signals_core::references::ItemReferences`], `RunCommit::references`)
//! and the item's own key; the backend keeps them in `item_refs` (one row
//! per item, text and key named) and `item_keys` (one row per item),
//! replacing an (item, text) pair's keys only when they changed, and adds
//! a row to `reference_marks` for each repository whose items' links
//! changed, so the export re-renders it. Links are resolved when read,
//! within the group of the item read: group membership may change after
//! the text was stored. The item itself is never among its links.

use std::collections::HashMap;

use crate::{RepoKey, Result};

/// An item at the other end of a reference.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Linked {
    /// Its signal id.
    pub id: String,
    /// Its repository.
    pub repo: RepoKey,
}

/// The links of one item within its group, each list sorted by id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Links {
    /// The items its texts name.
    pub references: Vec<Linked>,
    /// The items whose texts name it.
    pub referenced_by: Vec<Linked>,
}

/// An item that items of several other repositories of its group name:
/// what the group digest lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedItem {
    /// The item.
    pub item: Linked,
    /// The other repositories of the group whose items name it, sorted.
    pub from: Vec<RepoKey>,
}

/// The reads of references.
pub trait ReferenceReads {
    /// The links of the items `ids` of repository `repo`, within the
    /// repository's group; an id with no link is absent from the answer.
    /// Indexed reads per id: the cost of what is asked.
    fn links_of(&self, repo: RepoKey, ids: &[String]) -> Result<HashMap<String, Links>>;

    /// The items of group `group` that items of at least `min_repos`
    /// other repositories of the group name, most named first (then by
    /// id), at most `limit`. Reads the references written by the group's
    /// repositories, not their items.
    fn shared_items(&self, group: &str, min_repos: usize, limit: usize) -> Result<Vec<SharedItem>>;

    /// A number that grows whenever a link of one of the repository's
    /// items changes (0 when none ever did): the export re-renders a
    /// repository whose mark moved, though it had no run.
    fn references_mark(&self, repo: RepoKey) -> Result<i64>;
}
