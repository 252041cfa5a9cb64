//! One listing of an owner applied to what was known of it ([`apply`]):
//! which known repository each listed one is (by name, or through the
//! host's id when it was renamed), the state each takes, and a fresh id
//! for each newly tracked one.

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;

use super::{Filter, Known, Listed, State};
use crate::model::{RepoName, slugify};

/// Applies one listing of an owner to what was known of it.
///
/// `known` are the owner's stored repositories; `configured` says whether
/// the group's `repos` already lists a repository, or uses an id (the
/// repository is then collected under that entry, or would clash with it,
/// so it is not collected through the owner); `taken` holds every
/// repository id of the group in use (its configured ids, and the ids of
/// all its owners' known repositories), so a new repository gets a free
/// one: its name's slug, else `<owner>-<name>`, else a number appended.
/// Returns every repository of the owner to keep, by full name
/// (case-insensitively ordered, then by id).
///
/// Which known repository a listed one is, in this order:
/// 1. the one of the same name (ASCII case ignored) and host id;
/// 2. renamed: the one with its host id whose name the listing no longer
///    holds (no entry of that name, or one whose host id differs), when
///    exactly one listed entry not yet placed carries that id;
/// 3. the one of the same name (a row stored without a host id takes the
///    listing's; a host id that changed without a trace elsewhere is
///    still the same repository, as names decided before ids were read);
/// 4. none: a new repository, tracked under a fresh id if the filter
///    takes it.
///
/// A renamed repository keeps its id, its first listing and the name its
/// signal ids use ([`Known::ids_name`]); its state is judged under its new
/// name like any other's.
pub fn apply(
    known: &[Known],
    listed: &[Listed],
    filter: &Filter,
    configured: &dyn Fn(&RepoName, Option<&str>) -> bool,
    taken: &HashSet<String>,
    at: Timestamp,
) -> Vec<Known> {
    let mut taken = taken.clone();
    taken.extend(known.iter().map(|k| k.repo_id.clone()));
    let listed = one_per_name(listed);
    let placed = Matching::new(known, &listed).place();
    let mut entries: Vec<Known> = known.to_vec();
    for (l, place) in listed.iter().zip(&placed.of_listed) {
        let id = place.map(|j| entries[j].repo_id.as_str());
        let state = if configured(&l.full_name, id) {
            State::Excluded
        } else {
            filter.judge(l)
        };
        match *place {
            Some(j) => follow(&mut entries[j], l, state, at),
            None if state == State::Tracked => {
                let entry = track(l, &taken, at);
                taken.insert(entry.repo_id.clone());
                entries.push(entry);
            }
            None => {}
        }
    }
    mark_gone(&mut entries, &placed.claimed, at);
    entries.sort_by_cached_key(|k| (key(&k.full_name), k.repo_id.clone()));
    entries
}

/// What names are compared by: hosts ignore ASCII case.
fn key(n: &RepoName) -> String {
    n.to_string().to_ascii_lowercase()
}

/// One listed entry per name (the first after a stable sort), in name
/// order.
fn one_per_name(listed: &[Listed]) -> Vec<&Listed> {
    let mut seen = HashSet::new();
    let mut listed: Vec<&Listed> = listed.iter().collect();
    listed.sort_by_key(|l| key(&l.full_name));
    listed.retain(|l| seen.insert(key(&l.full_name)));
    listed
}

/// True unless both host ids are known and differ.
fn consistent(a: Option<u64>, b: Option<u64>) -> bool {
    a.is_none() || b.is_none() || a == b
}

/// The known and listed repositories of one owner, indexed to find which
/// known one each listed one is, in the order [`apply`] states.
struct Matching<'a> {
    known: &'a [Known],
    listed: &'a [&'a Listed],
    /// The [`key`] of each listed entry.
    names: Vec<String>,
    /// Known entries by name and by host id, to place each listed one in
    /// constant time (an organisation may list thousands).
    by_name: HashMap<String, Vec<usize>>,
    by_host_id: HashMap<u64, Vec<usize>>,
}

/// Which known repository (by index) each listed one is, and which known
/// ones a listed one is.
struct Placed {
    of_listed: Vec<Option<usize>>,
    claimed: Vec<bool>,
}

impl Placed {
    /// Listed entry `i` is known entry `j`.
    fn claim(&mut self, i: usize, j: usize) {
        self.of_listed[i] = Some(j);
        self.claimed[j] = true;
    }
}

impl<'a> Matching<'a> {
    fn new(known: &'a [Known], listed: &'a [&'a Listed]) -> Matching<'a> {
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_host_id: HashMap<u64, Vec<usize>> = HashMap::new();
        for (j, k) in known.iter().enumerate() {
            by_name.entry(key(&k.full_name)).or_default().push(j);
            if let Some(id) = k.host_id {
                by_host_id.entry(id).or_default().push(j);
            }
        }
        Matching {
            known,
            listed,
            names: listed.iter().map(|l| key(&l.full_name)).collect(),
            by_name,
            by_host_id,
        }
    }

    /// The three steps, in order, each placing only what the earlier ones
    /// left.
    fn place(&self) -> Placed {
        let mut placed = Placed {
            of_listed: vec![None; self.listed.len()],
            claimed: vec![false; self.known.len()],
        };
        let carriers = self.same_name_and_host_id(&mut placed);
        self.renamed(&carriers, &mut placed);
        self.same_name(&mut placed);
        placed
    }

    /// The known entries of listed entry `i`'s name.
    fn of_name(&self, i: usize) -> &[usize] {
        self.by_name.get(&self.names[i]).map_or(&[], Vec::as_slice)
    }

    /// Step 1, same name and same host id. Returns, per host id, how many listed
    /// entries carrying it this step did not place.
    fn same_name_and_host_id(&self, placed: &mut Placed) -> HashMap<u64, usize> {
        let mut carriers: HashMap<u64, usize> = HashMap::new();
        for (i, l) in self.listed.iter().enumerate() {
            let Some(id) = l.host_id else {
                continue;
            };
            let found = self
                .of_name(i)
                .iter()
                .copied()
                .find(|&j| !placed.claimed[j] && self.known[j].host_id == Some(id));
            match found {
                Some(j) => placed.claim(i, j),
                None => *carriers.entry(id).or_default() += 1,
            }
        }
        carriers
    }

    /// Step 2, renamed within the owner: the one known entry of a listed
    /// entry's host id whose name the listing no longer holds (no entry of
    /// that name, or one of another host id), when that listed entry is
    /// the only one not yet placed carrying the id.
    fn renamed(&self, carriers: &HashMap<u64, usize>, placed: &mut Placed) {
        let listed_by_name: HashMap<&str, usize> = self
            .names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let held = |k: &Known| {
            listed_by_name
                .get(key(&k.full_name).as_str())
                .is_some_and(|&i| consistent(self.listed[i].host_id, k.host_id))
        };
        for (i, l) in self.listed.iter().enumerate() {
            let Some(id) = l.host_id else {
                continue;
            };
            if placed.of_listed[i].is_some() || carriers.get(&id) != Some(&1) {
                continue;
            }
            let candidates: Vec<usize> = self
                .by_host_id
                .get(&id)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .copied()
                .filter(|&j| !placed.claimed[j] && !held(&self.known[j]))
                .collect();
            if let [j] = candidates[..] {
                placed.claim(i, j);
            }
        }
    }

    /// Step 3, same name, the host id unknown on either side (or changed with
    /// no trace elsewhere).
    fn same_name(&self, placed: &mut Placed) {
        for (i, l) in self.listed.iter().enumerate() {
            if placed.of_listed[i].is_some() {
                continue;
            }
            let same: Vec<usize> = self
                .of_name(i)
                .iter()
                .copied()
                .filter(|&j| !placed.claimed[j])
                .collect();
            let found = same
                .iter()
                .find(|&&j| consistent(self.known[j].host_id, l.host_id))
                .or(same.first());
            if let Some(&j) = found {
                placed.claim(i, j);
            }
        }
    }
}

/// Brings a known repository up to its listed entry: its name (a renamed
/// one keeps the name its ids use), its host id and its state.
fn follow(entry: &mut Known, l: &Listed, state: State, at: Timestamp) {
    if entry.full_name.to_string() != l.full_name.to_string() {
        // Renamed (or its letter case changed): the ids keep
        // the first name; back to it, nothing is left to say.
        let first = entry.ids_name().clone();
        entry.tracked_as = (first.to_string() != l.full_name.to_string()).then_some(first);
        entry.renamed_at = entry.tracked_as.as_ref().map(|_| at);
        entry.full_name = l.full_name.clone();
    }
    entry.host_id = l.host_id.or(entry.host_id);
    if entry.state != state {
        entry.state = state;
        entry.since = at;
    }
}

/// A listed repository tracked for the first time, under an id `taken`
/// does not hold.
fn track(l: &Listed, taken: &HashSet<String>, at: Timestamp) -> Known {
    Known {
        full_name: l.full_name.clone(),
        repo_id: fresh_id(&l.full_name, taken),
        state: State::Tracked,
        since: at,
        first_seen: at,
        host_id: l.host_id,
        tracked_as: None,
        renamed_at: None,
    }
}

/// Known repositories no listed one is are gone (their history stays).
fn mark_gone(entries: &mut [Known], claimed: &[bool], at: Timestamp) {
    for (j, entry) in entries.iter_mut().enumerate().take(claimed.len()) {
        if !claimed[j] && entry.state != State::Gone {
            entry.state = State::Gone;
            entry.since = at;
        }
    }
}

/// A repository id for `repo` that `taken` does not hold.
fn fresh_id(repo: &RepoName, taken: &HashSet<String>) -> String {
    let plain = slugify(repo.name());
    let plain = if plain.is_empty() {
        "repo".to_string()
    } else {
        plain
    };
    if !taken.contains(&plain) {
        return plain;
    }
    let owned = slugify(&format!("{}-{}", repo.owner(), repo.name()));
    if !owned.is_empty() && !taken.contains(&owned) {
        return owned;
    }
    (2..)
        .map(|n| format!("{plain}-{n}"))
        .find(|id| !taken.contains(id))
        .unwrap_or(plain)
}
