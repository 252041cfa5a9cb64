//! Related items as both stores keep them: per item of a group, its
//! similarity profile ([`signals_core::related::Profile`], as text, with
//! the words shown), the same as a compact vector of integer term keys
//! ([`signals_core::related::Vector`], what the weighing of the whole
//! group reads) and whether it is open; per item, its related items (at most
//! [`signals_core::related::LISTED`], best first) with their scores and
//! shared words; per repository, how far the profiles have read
//! (`through`: every issue, pull request and discussion whose latest
//! snapshot id is at most this has its profile as of that snapshot) and a
//! mark that grows whenever a list of one of its items changes.
//!
//! Derived data, like the word index: the binary's engine computes the
//! lists after a run commits and writes them with [`RelatedStore::related_apply`]
//! in one transaction, which writes nothing when another catch-up of the
//! group committed since the engine read (the engine then reads again),
//! so two workers never interleave a group's lists; a store from before
//! starts at `through` = 0 and is profiled whole by the first catch-up;
//! no dump carries it: `signals migrate` copies it as it is through this
//! role (the binary's `related::copy`). A purge takes a repository's profiles and lists,
//! and the entries of other lists that name its items.
//!
//! An item a reconcile found no longer listed by the host is marked gone by
//! the run's commit itself ([`crate::RunCommit::gone`]: the item and the
//! snapshot that closed it), so a catch-up that failed or never ran
//! leaves the mark for the next one: [`RelatedStore::related_pending`] says
//! which pending items are gone (their latest snapshot is the marked one;
//! an item listed again since has a newer snapshot and is not), and
//! [`RelatedStore::related_apply`] clears the marks its `through` passed.

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
    /// Its vector, as [`signals_core::related::Vector::encode`] wrote it.
    pub vector: Vec<u8>,
}

/// What the weighing of a group reads of an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredVector {
    /// The item.
    pub item: Linked,
    /// Whether it is open.
    pub open: bool,
    /// Its vector, as [`signals_core::related::Vector::encode`] wrote it.
    pub vector: Vec<u8>,
}

/// An item of the group not yet read by its repository's profiles:
/// what [`RelatedStore::related_pending`] gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The item.
    pub item: Linked,
    /// The id of its latest snapshot.
    pub latest: i64,
    /// Whether that snapshot is the one a reconcile closed it with when the
    /// host no longer listed it ([`GoneMark`]): the item leaves related
    /// items, its profile and its list go and no list names it.
    pub gone: bool,
}

/// A run's mark of an item the host no longer listed: the item and the
/// snapshot id that closed it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct GoneMark {
    /// The item.
    pub item: Linked,
    /// The snapshot the reconcile closed it with.
    pub snapshot: i64,
}

/// What [`RelatedStore::related_apply`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// The update is written.
    Written,
    /// Nothing is written: a repository's `through` moved since the
    /// update's `expected` was read (another catch-up of the group
    /// committed first); read again and compute again.
    Moved,
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
/// new `through`, computed from what the store held when every
/// repository of `group` was at its `expected` through.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RelatedUpdate {
    /// The group whose catch-up this is: one catch-up of a group writes
    /// at a time.
    pub group: String,
    /// `(repository, through)` of every repository of the group as the
    /// update's reads found them (0 for one never caught up).
    pub expected: Vec<(RepoKey, i64)>,
    /// Profiles written (an item's replaces its stored one).
    pub profiles: Vec<StoredProfile>,
    /// Items whose profile goes (no longer an issue, pull request or
    /// discussion of the group).
    pub removed: Vec<Linked>,
    /// Lists written, each replacing the item's stored list.
    pub lists: Vec<(Linked, Vec<RelatedEntry>)>,
    /// `(repository, through)`.
    pub through: Vec<(RepoKey, i64)>,
    /// `(repository, mark)` set as they are, after the lists' own move:
    /// a copy of a store carries its marks over (empty otherwise).
    pub marks: Vec<(RepoKey, i64)>,
    /// Gone marks written as they are, after the marks that `through`
    /// passed are cleared: a copy of a store carries over those its
    /// catch-ups have not read yet (empty otherwise; runs write them).
    pub gone: Vec<GoneMark>,
}

/// The related items' reads and their one write, both backends alike.
pub trait RelatedStore {
    /// How far the repository's profiles have read (0 before the first
    /// catch-up).
    fn related_through(&self, repo: RepoKey) -> Result<i64>;

    /// Every repository of group `group` and how far its profiles have
    /// read (0 before its first catch-up): one statement, whatever the
    /// number of repositories.
    fn related_throughs(&self, group: &str) -> Result<Vec<(RepoKey, i64)>>;

    /// Up to `limit` issues, pull requests and discussions of the
    /// repositories of group `group` (no other kind:
    /// `signals_core::related::COMPARED_KINDS`) whose latest snapshot id is
    /// above their repository's `through` and above `after`, with that id
    /// and whether that snapshot is a gone mark's, in its order: one
    /// statement for the whole group.
    fn related_pending(&self, group: &str, after: i64, limit: usize) -> Result<Vec<Pending>>;

    /// [`RelatedStore::related_pending`] of repository `repo` alone: what
    /// a run's catch-up reads. One statement over the repository's own
    /// items from its `through` on (an index range), whatever the size of
    /// its group; the group-wide read visits every repository of the
    /// group.
    fn related_pending_in(&self, repo: RepoKey, after: i64, limit: usize) -> Result<Vec<Pending>>;

    /// Every gone mark of the repositories of group `group`, whether a
    /// catch-up has read it or not yet cleared it: what a copy carries.
    fn related_gone(&self, group: &str) -> Result<Vec<GoneMark>>;

    /// Every stored vector of the repositories of group `group`: what the
    /// weighing reads, without the profiles' text.
    fn related_vectors(&self, group: &str) -> Result<Vec<StoredVector>>;

    /// The stored profiles of `items` (those that have one), in any order.
    fn related_profiles_of(&self, items: &[Linked]) -> Result<Vec<StoredProfile>>;

    /// The items of group `group` whose lists name one of `items`.
    fn related_listing(&self, group: &str, items: &[Linked]) -> Result<Vec<Linked>>;

    /// Keeps the other catch-ups of group `group` out until
    /// [`RelatedStore::related_leave`], waiting first for one in progress,
    /// so that a catch-up reads what the one before it wrote instead of
    /// computing again and again while others commit. The wait is
    /// bounded: past it the catch-up goes on alongside the other, and
    /// [`RelatedStore::related_apply`]'s check still keeps their writes
    /// apart. Calls nest: each needs its own leave.
    fn related_enter(&self, group: &str) -> Result<()>;

    /// Lets the other catch-ups of group `group` in again
    /// ([`RelatedStore::related_enter`]).
    fn related_leave(&self, group: &str) -> Result<()>;

    /// Applies `update` in one transaction, and moves the mark of every
    /// repository whose items' lists it wrote; clears the gone marks of
    /// each repository of `update.through` at or below its new through (the
    /// catch-up read them, or their items came back since); one at a time
    /// per group, and only when every repository of `update.expected` is
    /// still at that through ([`Applied::Moved`] and nothing written
    /// otherwise).
    fn related_apply(&mut self, update: &RelatedUpdate) -> Result<Applied>;

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
