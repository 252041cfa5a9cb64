//! Related items: the items of a group that tell the same story as an
//! item, in any repository and on any host, found from their words alone
//! and explained by the words they share. Pure: the store keeps the
//! profiles and the lists, the binary decides when to compute them.
//!
//! - [`profile`]: what an item gives (terms with counts, a MinHash sketch).
//! - [`vector`]: the same with terms as integer keys, in a compact binary
//!   form: what the weighing of a whole group reads.
//! - [`corpus`]: a group's items weighed (BM25) and each one's neighbours.
//! - [`quality`]: recall@5 and precision against known stories.
//! - [`marked`]: the duplicates the hosts mark, as known stories.
//! - [`clusters`]: the same story in several repositories, for the group page.
//!
//! [`recompute`] is what changes when some items do: the items that
//! changed, those that listed one of them, and those they are now
//! related to; no other list can move.

pub mod clusters;
pub mod corpus;
pub mod marked;
pub mod profile;
pub mod quality;
pub mod vector;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

pub use clusters::{Cluster, Edge, clusters};
pub use corpus::{Corpus, Found, LISTED, Member, Neighbour, SHOWN, Scratch, THRESHOLD, shown};
pub use marked::{Keys, Marked, MarkedBy, MarkedItem, Marks, add_key, marks, may_be_marked};
pub use profile::{Profile, ProfileError, profile};
pub use quality::{Quality, measure, table};
pub use vector::{Vector, VectorError, key};

use crate::ItemKind;

/// Whether items of `kind` are compared and listed: issues, pull requests
/// and discussions, and no other kind (a release, or any kind a host adds
/// later, tells no story of its own to pair).
pub fn compared(kind: ItemKind) -> bool {
    matches!(
        kind,
        ItemKind::Issue | ItemKind::PullRequest | ItemKind::Discussion
    )
}

/// The kinds [`compared`] keeps, as the store names them.
pub const COMPARED_KINDS: [&str; 3] = ["issue", "pull_request", "discussion"];

/// The new lists after the items `changed` were added or edited: the
/// lists of `changed` (those the corpus holds), of `listing` (the items
/// whose stored lists named a changed item or one that left the group),
/// and of every item a changed one is now related to. An item of the
/// answer the corpus does not hold is not in it.
pub fn recompute(
    corpus: &Corpus,
    changed: &[String],
    listing: &[String],
) -> BTreeMap<String, Vec<Found>> {
    let first: Vec<&str> = changed
        .iter()
        .map(String::as_str)
        .filter(|id| corpus.contains(id))
        .collect();
    let mut out: BTreeMap<String, Vec<Found>> = each(corpus, &first).into_iter().collect();
    let more: BTreeSet<&str> = listing
        .iter()
        .map(String::as_str)
        .chain(out.values().flatten().map(|n| n.id.as_str()))
        .filter(|id| corpus.contains(id) && !out.contains_key(*id))
        .collect();
    let more: Vec<&str> = more.into_iter().collect();
    out.extend(each(corpus, &more));
    out
}

/// The neighbours of each of `ids`, computed on every core the machine
/// has (the work is the same; threads only share it out, each with its
/// own scratch).
pub fn each(corpus: &Corpus, ids: &[&str]) -> Vec<(String, Vec<Found>)> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(ids.len().div_ceil(64).max(1));
    let part = |part: &[&str]| {
        let mut scratch = corpus.scratch();
        part.iter()
            .map(|id| (id.to_string(), corpus.neighbours_with(id, &mut scratch)))
            .collect::<Vec<_>>()
    };
    if threads <= 1 {
        return part(ids);
    }
    let share = ids.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = ids
            .chunks(share)
            .map(|ids| scope.spawn(move || part(ids)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}
