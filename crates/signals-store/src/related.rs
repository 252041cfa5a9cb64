//! Related items as both stores keep them: per item of a group, its
//! similarity profile ([`signals_core::related::Profile`], as text) and
//! whether it is open; per item, its related items (at most
//! [`signals_core::related::LISTED`], best first) with their scores and
//! shared words; per repository, how far the profiles have read
//! (`through`: every issue, pull request and discussion whose latest
//! snapshot id is at most this has its profile as of that snapshot) and a
//! mark that grows whenever a list of one of its items changes.
//!
//! Derived data, like the word index: the binary's engine computes the
//! lists after a run commits and writes them with [`RelatedStore::related_apply`]
//! in one transaction; a store from before starts at `through` = 0 and is
//! profiled whole by the first catch-up; `signals migrate` copies no row
//! of it. A purge takes a repository's profiles and lists, and the
//! entries of other lists that name its items.

use std::collections::HashMap;

use crate::{Linked, RepoKey, Result};

/// An item's stored profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredProfile {
    /// The item.
    pub item: Linked,
    /// Whether it is open.
    pub open: bool,
    /// Its profile, as [`signals_core::related::Profile::encode`] wrote it.
    pub profile: String,
}

/// One entry of an item's list.
#[derive(Debug, Clone, PartialEq)]
pub struct RelatedEntry {
    /// The related item.
    pub item: Linked,
    /// Whether it is open, as its profile says.
    pub open: bool,
    /// The pair's score.
    pub score: f64,
    /// The words the two share, most telling first.
    pub shared: Vec<String>,
}

/// One transaction of the related items: the profiles to write, the
/// lists to replace (an empty list removes it) and the repositories'
/// new `through`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RelatedUpdate {
    /// Profiles written (an item's replaces its stored one).
    pub profiles: Vec<StoredProfile>,
    /// Items whose profile goes (no longer an issue, pull request or
    /// discussion of the group).
    pub removed: Vec<Linked>,
    /// Lists written, each replacing the item's stored list.
    pub lists: Vec<(Linked, Vec<RelatedEntry>)>,
    /// `(repository, through)`.
    pub through: Vec<(RepoKey, i64)>,
}

/// The related items' reads and their one write, both backends alike.
pub trait RelatedStore {
    /// How far the repository's profiles have read (0 before the first
    /// catch-up).
    fn related_through(&self, repo: RepoKey) -> Result<i64>;

    /// Up to `limit` issues, pull requests and discussions of `repo`
    /// whose latest snapshot id is above `through`, with that id, in its
    /// order.
    fn related_pending(
        &self,
        repo: RepoKey,
        through: i64,
        limit: usize,
    ) -> Result<Vec<(String, i64)>>;

    /// Every stored profile of the repositories of group `group`.
    fn related_profiles(&self, group: &str) -> Result<Vec<StoredProfile>>;

    /// The items of group `group` whose lists name one of `items`.
    fn related_listing(&self, group: &str, items: &[Linked]) -> Result<Vec<Linked>>;

    /// Applies `update` in one transaction, and moves the mark of every
    /// repository whose items' lists it wrote.
    fn related_apply(&mut self, update: &RelatedUpdate) -> Result<()>;

    /// The lists of the items `ids` of repository `repo`, best first; an
    /// item with no list is absent.
    fn related_of(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, Vec<RelatedEntry>>>;

    /// Every list of the items of group `group` that names an item of
    /// another repository, by item: what the group digest clusters.
    fn related_across(&self, group: &str) -> Result<Vec<(Linked, Vec<RelatedEntry>)>>;

    /// A number that grows whenever a list of one of the repository's
    /// items changes (0 when none did): the export re-renders a
    /// repository whose mark moved.
    fn related_mark(&self, repo: RepoKey) -> Result<i64>;
}
