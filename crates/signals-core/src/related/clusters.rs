//! The same story in several repositories: the connected groups of items
//! joined by related pairs across repositories, what the group page lists.

use std::collections::{BTreeMap, HashMap};

/// A related pair of items of two repositories, with their shared words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge<'a> {
    /// One item and its repository.
    pub a: (&'a str, i64),
    /// The other and its repository.
    pub b: (&'a str, i64),
    /// The words the two share.
    pub shared: &'a [String],
}

/// Items of two repositories or more that tell one story.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// Its items, sorted.
    pub items: Vec<String>,
    /// How many repositories they are in.
    pub repos: usize,
    /// The words its pairs share most often, at most five.
    pub shared: Vec<String>,
}

fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The clusters the `edges` join, items of 2 repositories or more only,
/// the largest first (then those of more repositories, then by first
/// item), at most `limit`.
pub fn clusters<'a>(edges: &[Edge<'a>], limit: usize) -> Vec<Cluster> {
    let mut number: HashMap<&'a str, usize> = HashMap::new();
    let mut items: Vec<(&'a str, i64)> = Vec::new();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for e in edges.iter().filter(|e| e.a.1 != e.b.1) {
        let mut ends = [0usize; 2];
        for (end, item) in ends.iter_mut().zip([e.a, e.b]) {
            *end = *number.entry(item.0).or_insert_with(|| {
                items.push(item);
                items.len() - 1
            });
        }
        pairs.push((ends[0], ends[1]));
    }
    let mut parent: Vec<usize> = (0..items.len()).collect();
    for &(a, b) in &pairs {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..items.len() {
        let r = root(&mut parent, i);
        members.entry(r).or_default().push(i);
    }
    let mut words: HashMap<usize, HashMap<&str, usize>> = HashMap::new();
    for (e, &(a, _)) in edges.iter().filter(|e| e.a.1 != e.b.1).zip(&pairs) {
        let r = root(&mut parent, a);
        for w in e.shared {
            *words.entry(r).or_default().entry(w.as_str()).or_default() += 1;
        }
    }
    let mut out: Vec<Cluster> = members
        .into_iter()
        .filter_map(|(r, list)| {
            let mut repos: Vec<i64> = list.iter().map(|&i| items[i].1).collect();
            repos.sort_unstable();
            repos.dedup();
            if repos.len() < 2 {
                return None;
            }
            let mut ids: Vec<String> = list.iter().map(|&i| items[i].0.to_string()).collect();
            ids.sort();
            let mut counted: Vec<(&str, usize)> =
                words.remove(&r).unwrap_or_default().into_iter().collect();
            counted.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
            Some(Cluster {
                items: ids,
                repos: repos.len(),
                shared: counted.iter().take(5).map(|(w, _)| w.to_string()).collect(),
            })
        })
        .collect();
    out.sort_by(|x, y| {
        y.items
            .len()
            .cmp(&x.items.len())
            .then(y.repos.cmp(&x.repos))
            .then(x.items.cmp(&y.items))
    });
    out.truncate(limit);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_across_repositories_join_into_clusters_largest_first() {
        let w = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let (tex, sdl, own) = (w(&["texture", "214"]), w(&["sdl"]), w(&["x"]));
        let edges = [
            Edge {
                a: ("a1", 1),
                b: ("b1", 2),
                shared: &tex,
            },
            Edge {
                a: ("b1", 2),
                b: ("c1", 3),
                shared: &tex,
            },
            Edge {
                a: ("a2", 1),
                b: ("c2", 3),
                shared: &sdl,
            },
            // Within one repository: no story across repositories.
            Edge {
                a: ("a3", 1),
                b: ("a4", 1),
                shared: &own,
            },
        ];
        let out = clusters(&edges, 50);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].items, ["a1", "b1", "c1"]);
        assert_eq!(out[0].repos, 3);
        assert_eq!(out[0].shared, ["214", "texture"]);
        assert_eq!(out[1].items, ["a2", "c2"]);
        assert_eq!(clusters(&edges, 1).len(), 1);
        assert!(clusters(&[], 50).is_empty());
    }
}
