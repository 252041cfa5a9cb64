//! Related items: the items of a group that tell the same story as an
//! item, in any repository and on any host, found from their words alone
//! and explained by the words they share. Pure: the store keeps the
//! profiles and the lists, the binary decides when to compute them.
//!
//! - [`profile`]: what an item gives (terms with counts, a MinHash sketch).
//! - [`corpus`]: a group's items weighed (BM25) and each one's neighbours.
//! - [`quality`]: recall@5 and precision against known stories.
//! - [`clusters`]: the same story in several repositories, for the group page.
//!
//! [`recompute`] is what changes when some items do: the items that
//! changed, those that listed one of them, and those they are now
//! related to; no other list can move.

pub mod clusters;
pub mod corpus;
pub mod profile;
pub mod quality;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

pub use clusters::{Cluster, Edge, clusters};
pub use corpus::{Corpus, LISTED, Member, Neighbour, SHOWN, THRESHOLD, shown};
pub use profile::{Profile, ProfileError, profile};
pub use quality::{Quality, measure};

/// The new lists after the items `changed` were added or edited: the
/// lists of `changed` (those the corpus holds), of `listing` (the items
/// whose stored lists named a changed item or one that left the group),
/// and of every item a changed one is now related to. An item of the
/// answer the corpus does not hold is not in it.
pub fn recompute(
    corpus: &Corpus,
    changed: &[String],
    listing: &[String],
) -> BTreeMap<String, Vec<Neighbour>> {
    let mut out = BTreeMap::new();
    let mut more: BTreeSet<String> = listing.iter().cloned().collect();
    for id in changed {
        if !corpus.contains(id) {
            continue;
        }
        let list = corpus.neighbours(id);
        more.extend(list.iter().map(|n| n.id.clone()));
        out.insert(id.clone(), list);
    }
    for id in more {
        if corpus.contains(&id) && !out.contains_key(&id) {
            let list = corpus.neighbours(&id);
            out.insert(id, list);
        }
    }
    out
}
