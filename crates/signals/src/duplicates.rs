//! How well the related items find the duplicates the hosts mark
//! (`signals duplicates`): the ground truth of real repositories, read from
//! the store ([`signals_core::related::marked`]), against the lists the
//! group's stored vectors give. Nothing is sent anywhere and nothing costs
//! a request; the catch-up export runs is run first, so the lists are
//! those the site shows.

use std::collections::{BTreeMap, HashMap};

use signals_core::related::{self, Corpus, Keys, MarkedItem, Marks, Neighbour, Profile, Quality};
use signals_store::{CommentStore, Reads, RelatedStore, RepoKey, Result};

/// Items read per statement.
const CHUNK: usize = 2000;

/// The thresholds reported: the one lists are cut at, and higher ones.
pub const THRESHOLDS: [f64; 6] = [0.20, 0.25, 0.30, 0.35, 0.40, 0.50];

/// What measuring a group gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// Items compared in the group (issues, pull requests, discussions).
    pub items: usize,
    /// The duplicates marked, and those left out.
    pub marks: Marks,
    /// Recall@5 and precision at each of [`THRESHOLDS`].
    pub quality: Vec<(f64, Quality)>,
}

/// Measures the related items of group `group` against the duplicates
/// its hosts mark.
pub fn measure<S>(store: &S, group: &str) -> Result<Measured>
where
    S: Reads + CommentStore + RelatedStore + ?Sized,
{
    let (members, repo_of) = crate::related::stored_members(store, group)?;
    let mut by_repo: BTreeMap<RepoKey, Vec<String>> = BTreeMap::new();
    for m in &members {
        by_repo
            .entry(repo_of[&m.id])
            .or_default()
            .push(m.id.clone());
    }
    let items = members.len();
    let marks = read_marks(store, &by_repo)?;
    let stories = marks.stories();
    let corpus = Corpus::new(members);
    let unnamed = Profile::default();
    let lists: HashMap<String, Vec<Neighbour>> = stories
        .keys()
        .map(|id| {
            let list = corpus
                .neighbours(id)
                .into_iter()
                .map(|f| f.named(&unnamed))
                .collect();
            (id.clone(), list)
        })
        .collect();
    let quality = THRESHOLDS
        .iter()
        .map(|t| (*t, related::measure(&lists, &stories, *t)))
        .collect();
    Ok(Measured {
        items,
        marks,
        quality,
    })
}

/// The marks of the items of `by_repo` (each repository's compared
/// items): every item's key is kept, only the items that may carry a
/// mark are kept whole.
fn read_marks<S>(store: &S, by_repo: &BTreeMap<RepoKey, Vec<String>>) -> Result<Marks>
where
    S: Reads + CommentStore + ?Sized,
{
    let mut keys = Keys::new();
    let mut kept = Vec::new();
    for (repo, ids) in by_repo {
        for page in ids.chunks(CHUNK) {
            let snapshots = store.latest_snapshots_for(*repo, page)?;
            let mut comments: HashMap<String, Vec<String>> = HashMap::new();
            for c in store.comments_of(*repo, page)? {
                comments.entry(c.item_id).or_default().push(c.body);
            }
            for (id, snapshot) in snapshots {
                related::add_key(&mut keys, &id, &snapshot.url);
                let texts = comments.remove(&id).unwrap_or_default();
                let item = MarkedItem {
                    id: &id,
                    snapshot: &snapshot,
                    comments: &texts,
                };
                if related::may_be_marked(&item) {
                    kept.push((id, snapshot, texts));
                }
            }
        }
    }
    let items: Vec<MarkedItem<'_>> = kept
        .iter()
        .map(|(id, snapshot, comments)| MarkedItem {
            id,
            snapshot,
            comments,
        })
        .collect();
    Ok(related::marks(&items, &keys))
}
