//! The engine of related items: after a run commits, the profiles catch
//! up with the run's repository's items whose latest snapshot is newer
//! than its `through` (and at export, with every repository's, for what a
//! run could not finish), and the lists that can have moved are computed again
//! ([`signals_core::related::recompute`]): those of the items whose title
//! or body changed, of the items that listed them, and of the items they
//! are now related to. An item whose profile did not change (a label, a
//! reaction) moves no list; one that was closed or reopened only moves
//! its open state, which the lists read when they are read.
//!
//! An item the host no longer lists (a reconcile closed it and its run's
//! commit marked it gone, [`signals_store::RunCommit::gone`]) leaves: its
//! profile and its list go, and every list that named it is computed
//! again without it, so the next best item takes its place. The mark is
//! the store's, read with the pending items, so a catch-up that failed or
//! never ran (a worker killed after the run's commit) leaves it to the
//! next one; an item listed again since has a newer snapshot than its
//! mark and is profiled again as new.
//!
//! Where the cost lands: a quiet catch-up reads one statement, whatever
//! the group's size; one whose items changed no title or body reads their
//! stored profiles; one with changes reads the group's compact vectors
//! (integer term keys, no text: one statement), weighs them (linear in
//! the group, in flat arrays) and scores the changed items against the
//! rest (the postings of their rare terms); the text of a profile, for
//! the words a pair shares, is read only for the items whose lists it
//! writes. The first catch-up of a group, or of a store from before,
//! profiles every item on every core and computes every list: the full
//! build of docs/performance/related.md.
//!
//! Two catch-ups of one group (two workers finishing runs of it at once)
//! never interleave. One with something pending enters the group
//! ([`signals_store::RelatedStore::related_enter`]), waiting there for a
//! catch-up in progress, and computes from what that one wrote: it
//! computes once and writes once, however many others finish meanwhile.
//! The store still writes an update only when no other catch-up of the
//! group committed since it was read ([`signals_store::related::Applied`]),
//! which keeps the two apart where the wait ran out or the store holds no
//! such lock. A quiet catch-up reads one statement and enters nothing.

use std::collections::{BTreeMap, HashMap, HashSet};

use signals_core::dataset::RelatedDoc;
use signals_core::related::{self, Corpus, Found, Member, Profile, Vector};
use signals_core::{ItemSnapshot, ItemState};
use signals_store::related::{Applied, RelatedEntry, RelatedUpdate, StoredProfile};
use signals_store::{Linked, Reads, RelatedStore, RepoKey, Result, StoreError};

/// Items read per statement while profiling.
const CHUNK: usize = 2000;

/// How many times a catch-up that entered its group reads again when the
/// store says another committed first (one that ran past the wait, or a
/// purge); each time, that other one did the work, so giving up leaves
/// nothing behind that a later catch-up does not finish.
const ATTEMPTS: usize = 5;

/// What a catch-up did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaughtUp {
    /// Items profiled (new or changed snapshots).
    pub profiled: usize,
    /// Items whose profile changed (their lists and their neighbours' were
    /// computed again).
    pub changed: usize,
    /// Lists written.
    pub lists: usize,
    /// Items that left related items (the host no longer lists them).
    pub removed: usize,
}

/// What the pending items of the group's repositories give: their new
/// profiles, those that leave, and each repository's new `through`.
struct Profiled {
    profiles: Vec<StoredProfile>,
    /// The pending items the host no longer lists (a reconcile's gone
    /// marks, read with them): not profiled, they leave.
    gone: Vec<Linked>,
    through: Vec<(RepoKey, i64)>,
}

/// The stored profile of each snapshot of `repo` (compared kinds only),
/// on every core.
fn profile_each(repo: RepoKey, snapshots: Vec<(String, ItemSnapshot)>) -> Vec<StoredProfile> {
    let one = |(id, s): (String, ItemSnapshot)| {
        let p = related::profile(&s.title, &s.text);
        StoredProfile {
            item: Linked { id, repo },
            open: s.state == ItemState::Open,
            vector: p.vector().encode(),
            profile: p.encode(),
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    if threads <= 1 || snapshots.len() < 64 {
        return snapshots.into_iter().map(one).collect();
    }
    let share = snapshots.len().div_ceil(threads);
    let mut parts: Vec<Vec<(String, ItemSnapshot)>> = Vec::new();
    let mut rest = snapshots;
    while rest.len() > share {
        let tail = rest.split_off(share);
        parts.push(rest);
        rest = tail;
    }
    parts.push(rest);
    std::thread::scope(|scope| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|part| scope.spawn(move || part.into_iter().map(one).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// The pending items of repository `only` when it is given (a run's
/// catch-up: a read of its own items), else of group `group`.
fn pending_of<S>(
    store: &S,
    group: &str,
    only: Option<RepoKey>,
    after: i64,
    limit: usize,
) -> Result<Vec<signals_store::related::Pending>>
where
    S: RelatedStore + ?Sized,
{
    match only {
        Some(repo) => store.related_pending_in(repo, after, limit),
        None => store.related_pending(group, after, limit),
    }
}

fn profile_pending<S>(store: &S, group: &str, only: Option<RepoKey>) -> Result<Profiled>
where
    S: Reads + RelatedStore + ?Sized,
{
    let mut profiles = Vec::new();
    let mut gone = Vec::new();
    let mut through: BTreeMap<RepoKey, i64> = BTreeMap::new();
    let mut after = 0;
    loop {
        let pending = pending_of(store, group, only, after, CHUNK)?;
        let Some(last) = pending.last().map(|p| p.latest) else {
            break;
        };
        let mut by_repo: BTreeMap<RepoKey, Vec<String>> = BTreeMap::new();
        for p in pending {
            let t = through.entry(p.item.repo).or_insert(p.latest);
            *t = (*t).max(p.latest);
            if p.gone {
                gone.push(p.item);
            } else {
                by_repo.entry(p.item.repo).or_default().push(p.item.id);
            }
        }
        for (repo, ids) in by_repo {
            let mut snapshots = store.latest_snapshots_for(repo, &ids)?;
            let kept: Vec<(String, ItemSnapshot)> = ids
                .into_iter()
                .filter_map(|id| snapshots.remove(&id).map(|s| (id, s)))
                .filter(|(_, s)| related::compared(s.kind()))
                .collect();
            profiles.extend(profile_each(repo, kept));
        }
        after = last;
    }
    Ok(Profiled {
        profiles,
        gone,
        through: through.into_iter().collect(),
    })
}

fn damaged(item: &Linked, what: String) -> StoreError {
    StoreError::Corrupt {
        path: format!("repository {}", item.repo).into(),
        what: format!("the related items' profile of {}: {what}", item.id),
    }
}

fn entry(repo_of: &HashMap<String, RepoKey>, n: related::Neighbour) -> RelatedEntry {
    RelatedEntry {
        item: Linked {
            repo: repo_of
                .get(&n.id)
                .copied()
                .unwrap_or(RepoKey::from_raw(n.repo)),
            id: n.id,
        },
        open: n.open,
        score: n.score,
        shared: n.shared,
    }
}

/// How many other repositories than `own` the items of `list` are in:
/// the `echo` term of importance (`signals_core::importance::echoed`).
pub fn echo_repos(own: RepoKey, list: Option<&Vec<RelatedEntry>>) -> usize {
    let mut repos: Vec<RepoKey> = list
        .into_iter()
        .flatten()
        .map(|e| e.item.repo)
        .filter(|r| *r != own)
        .collect();
    repos.sort_unstable();
    repos.dedup();
    repos.len()
}

/// What a signal shows of its list (`related` of the dataset and the API):
/// its [`related::SHOWN`] best by score, open ones first.
pub fn docs(list: Option<Vec<RelatedEntry>>) -> Vec<RelatedDoc> {
    let mut best: Vec<RelatedEntry> = list.unwrap_or_default();
    best.truncate(related::SHOWN);
    // Stable: each part stays best first.
    best.sort_by_key(|e| !e.open);
    best.into_iter()
        .map(|e| RelatedDoc {
            id: e.item.id,
            score: e.score,
            shared: e.shared,
        })
        .collect()
}

/// The group's members: every stored vector, with `fresh` (decoded) in
/// place of the stored ones of its items and `left_out` left out, sorted
/// by id; and each member's repository.
fn members<S>(
    store: &S,
    group: &str,
    fresh: &HashMap<Linked, Vector>,
    left_out: &HashSet<&str>,
) -> Result<(Vec<Member>, HashMap<String, RepoKey>)>
where
    S: RelatedStore + ?Sized,
{
    let mut members = Vec::new();
    let mut repo_of = HashMap::new();
    for v in store.related_vectors(group)? {
        if fresh.contains_key(&v.item) || left_out.contains(v.item.id.as_str()) {
            continue;
        }
        let vector = Vector::decode(&v.vector).map_err(|e| damaged(&v.item, e.to_string()))?;
        repo_of.insert(v.item.id.clone(), v.item.repo);
        members.push(Member {
            id: v.item.id,
            repo: v.item.repo.raw(),
            open: v.open,
            vector,
        });
    }
    for (item, vector) in fresh {
        repo_of.insert(item.id.clone(), item.repo);
        members.push(Member {
            id: item.id.clone(),
            repo: item.repo.raw(),
            open: false,
            vector: vector.clone(),
        });
    }
    members.sort_by(|a, b| a.id.cmp(&b.id));
    Ok((members, repo_of))
}

/// The group's members as stored, sorted by id, and each member's
/// repository: what a measure of the stored lists weighs
/// (`crate::duplicates`).
pub fn stored_members<S>(store: &S, group: &str) -> Result<(Vec<Member>, HashMap<String, RepoKey>)>
where
    S: RelatedStore + ?Sized,
{
    members(store, group, &HashMap::new(), &HashSet::new())
}

/// The lists of `lists` with their shared words named by each listing
/// item's profile: from `fresh` when it is there, else read.
fn named<S>(
    store: &S,
    lists: Vec<(String, Vec<Found>)>,
    fresh: &HashMap<&str, &StoredProfile>,
    repo_of: &HashMap<String, RepoKey>,
) -> Result<Vec<(Linked, Vec<RelatedEntry>)>>
where
    S: RelatedStore + ?Sized,
{
    let item = |id: &String| Linked {
        repo: repo_of[id],
        id: id.clone(),
    };
    let unread: Vec<Linked> = lists
        .iter()
        .filter(|(id, list)| !list.is_empty() && !fresh.contains_key(id.as_str()))
        .map(|(id, _)| item(id))
        .collect();
    let read = store.related_profiles_of(&unread)?;
    let texts: HashMap<&str, &StoredProfile> = fresh
        .iter()
        .map(|(id, p)| (*id, *p))
        .chain(read.iter().map(|p| (p.item.id.as_str(), p)))
        .collect();
    let mut out = Vec::with_capacity(lists.len());
    for (id, list) in lists {
        let profile = match texts.get(id.as_str()) {
            Some(p) if !list.is_empty() => {
                Profile::decode(&p.profile).map_err(|e| damaged(&item(&id), e.to_string()))?
            }
            _ => Profile::default(),
        };
        let entries = list
            .into_iter()
            .map(|f| entry(repo_of, f.named(&profile)))
            .collect();
        out.push((item(&id), entries));
    }
    Ok(out)
}

/// What the lists of a catch-up are computed again from.
struct Moves<'a> {
    /// The profiles written, those of `changed` among them.
    writes: &'a [StoredProfile],
    /// The items whose vector changed, new ones included.
    changed: &'a [Linked],
    /// The new items: no list of theirs is stored, so an empty one is not
    /// written.
    unlisted: &'a HashSet<Linked>,
    /// The items that leave (the host no longer lists them): their lists
    /// go, and every list that named one is computed again without it.
    removed: &'a [Linked],
}

/// The lists `moves` moves: those of the changed items, of the items
/// whose lists named a changed or removed one, and of the items the
/// changed ones are now related to; each removed item's list emptied.
fn lists_again<S>(
    store: &S,
    group: &str,
    moves: Moves<'_>,
) -> Result<Vec<(Linked, Vec<RelatedEntry>)>>
where
    S: RelatedStore + ?Sized,
{
    let named_items: Vec<Linked> = moves.changed.iter().chain(moves.removed).cloned().collect();
    let listing = store.related_listing(group, &named_items)?;
    let changed_set: HashSet<&Linked> = moves.changed.iter().collect();
    let mut vectors: HashMap<Linked, Vector> = HashMap::new();
    for p in moves
        .writes
        .iter()
        .filter(|p| changed_set.contains(&p.item))
    {
        let v = Vector::decode(&p.vector).map_err(|e| damaged(&p.item, e.to_string()))?;
        vectors.insert(p.item.clone(), v);
    }
    let left_out: HashSet<&str> = moves.removed.iter().map(|i| i.id.as_str()).collect();
    let (mut members, repo_of) = members(store, group, &vectors, &left_out)?;
    let open: HashMap<&str, bool> = moves
        .writes
        .iter()
        .map(|p| (p.item.id.as_str(), p.open))
        .collect();
    for m in &mut members {
        if let Some(o) = open.get(m.id.as_str()) {
            m.open = *o;
        }
    }
    let corpus = Corpus::new(members);
    let ids: Vec<String> = moves.changed.iter().map(|i| i.id.clone()).collect();
    let listing_ids: Vec<String> = listing.iter().map(|i| i.id.clone()).collect();
    // A removed item is not in the corpus: no list of the answer is its,
    // and none names it.
    let lists = related::recompute(&corpus, &ids, &listing_ids);
    drop(corpus);
    let texts: HashMap<&str, &StoredProfile> = moves
        .writes
        .iter()
        .map(|p| (p.item.id.as_str(), p))
        .collect();
    let mut out = named(store, lists.into_iter().collect(), &texts, &repo_of)?;
    out.retain(|(item, list)| !list.is_empty() || !moves.unlisted.contains(item));
    out.extend(moves.removed.iter().map(|i| (i.clone(), Vec::new())));
    Ok(out)
}

/// The update of one catch-up from the store as it is at `expected`, and
/// what it did; `None` when nothing is pending.
fn compute<S>(
    store: &S,
    group: &str,
    only: Option<RepoKey>,
    expected: Vec<(RepoKey, i64)>,
) -> Result<Option<(RelatedUpdate, CaughtUp)>>
where
    S: Reads + RelatedStore + ?Sized,
{
    let fresh = profile_pending(store, group, only)?;
    if fresh.through.is_empty() {
        return Ok(None);
    }
    let items: Vec<Linked> = fresh
        .profiles
        .iter()
        .map(|p| p.item.clone())
        .chain(fresh.gone.iter().cloned())
        .collect();
    let stored: HashMap<Linked, StoredProfile> = store
        .related_profiles_of(&items)?
        .into_iter()
        .map(|p| (p.item.clone(), p))
        .collect();
    // A gone item never profiled has no list, and no list names it.
    let removed: Vec<Linked> = fresh
        .gone
        .into_iter()
        .filter(|item| stored.contains_key(item))
        .collect();
    let mut changed: Vec<Linked> = Vec::new();
    let mut unlisted: HashSet<Linked> = HashSet::new();
    let mut writes = Vec::new();
    for p in fresh.profiles {
        match stored.get(&p.item) {
            Some(old) if old.vector == p.vector && old.open == p.open => {
                if old.profile != p.profile {
                    writes.push(p);
                }
                continue;
            }
            Some(old) if old.vector == p.vector => {}
            Some(_) => changed.push(p.item.clone()),
            None => {
                changed.push(p.item.clone());
                unlisted.insert(p.item.clone());
            }
        }
        writes.push(p);
    }
    drop(stored);
    let mut caught = CaughtUp {
        profiled: writes.len(),
        changed: changed.len(),
        removed: removed.len(),
        ..CaughtUp::default()
    };
    let mut update = RelatedUpdate {
        group: group.to_string(),
        expected,
        through: fresh.through,
        ..RelatedUpdate::default()
    };
    if !changed.is_empty() || !removed.is_empty() {
        let moves = Moves {
            writes: &writes,
            changed: &changed,
            unlisted: &unlisted,
            removed: &removed,
        };
        update.lists = lists_again(store, group, moves)?;
        caught.lists = update.lists.len();
    }
    update.profiles = writes;
    update.removed = removed;
    Ok(Some((update, caught)))
}

/// Brings the related items of group `group` up to date with what its
/// repositories' runs committed, and returns what it did: export's
/// catch-up, which completes whatever a run's left behind.
pub fn catch_up<S>(store: &mut S, group: &str) -> Result<CaughtUp>
where
    S: Reads + RelatedStore + ?Sized,
{
    catch_up_within(store, group, None)
}

/// The catch-up after a run of repository `repo` of group `group`: its
/// pending items only, weighed against the whole group. So a run writes
/// at most once, and the runs of a group's repositories by several
/// workers do not take over one another's items; another repository's
/// items that its own run left pending wait for its next run or export.
pub fn catch_up_after_run<S>(store: &mut S, group: &str, repo: RepoKey) -> Result<CaughtUp>
where
    S: Reads + RelatedStore + ?Sized,
{
    catch_up_within(store, group, Some(repo))
}

fn catch_up_within<S>(store: &mut S, group: &str, only: Option<RepoKey>) -> Result<CaughtUp>
where
    S: Reads + RelatedStore + ?Sized,
{
    if pending_of(&*store, group, only, 0, 1)?.is_empty() {
        return Ok(CaughtUp::default());
    }
    store.related_enter(group)?;
    let written = write_entered(store, group, only);
    // Left whether or not the write went through: an error of its own
    // comes first.
    let left = store.related_leave(group);
    let written = written?;
    left?;
    Ok(written)
}

/// Computes the catch-up and writes it, with the group entered: another
/// catch-up writes only where the wait ran out, or a purge committed.
fn write_entered<S>(store: &mut S, group: &str, only: Option<RepoKey>) -> Result<CaughtUp>
where
    S: Reads + RelatedStore + ?Sized,
{
    for _ in 0..ATTEMPTS {
        let expected = store.related_throughs(group)?;
        let Some((update, caught)) = compute(&*store, group, only, expected)? else {
            return Ok(CaughtUp::default());
        };
        match store.related_apply(&update)? {
            Applied::Written => return Ok(caught),
            Applied::Moved => continue,
        }
    }
    Ok(CaughtUp::default())
}

/// The related items in other repositories than `own` of each of the
/// run's new items `new` (their ids and snapshots), weighed against the
/// group's stored vectors before the run commits: the `echo` alert's.
/// The same scores the lists get after the commit.
pub fn echoes<S>(
    store: &S,
    group: &str,
    own: RepoKey,
    new: &[(&String, &ItemSnapshot)],
) -> Result<Vec<(String, Vec<related::Neighbour>)>>
where
    S: RelatedStore + ?Sized,
{
    let profiles: HashMap<&str, Profile> = new
        .iter()
        .filter(|(_, s)| related::compared(s.kind()))
        .map(|(id, s)| (id.as_str(), related::profile(&s.title, &s.text)))
        .collect();
    let left_out: HashSet<&str> = profiles.keys().copied().collect();
    let fresh: HashMap<Linked, Vector> = profiles
        .iter()
        .map(|(id, p)| {
            let item = Linked {
                id: id.to_string(),
                repo: own,
            };
            (item, p.vector())
        })
        .collect();
    let (mut members, _) = members(store, group, &fresh, &left_out)?;
    let open: HashMap<&str, bool> = new
        .iter()
        .map(|(id, s)| (id.as_str(), s.state == ItemState::Open))
        .collect();
    for m in &mut members {
        if let Some(o) = open.get(m.id.as_str()) {
            m.open = *o;
        }
    }
    let corpus = Corpus::new(members);
    let mut out = Vec::new();
    for (id, profile) in &profiles {
        let others: Vec<related::Neighbour> = corpus
            .neighbours(id)
            .into_iter()
            .filter(|n| n.repo != own.raw())
            .take(related::SHOWN)
            .map(|f| f.named(profile))
            .collect();
        out.push((id.to_string(), others));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Copies the related items of group `group` from `from` into `to` as
/// they are, for `signals migrate`: every profile, every list (scores and
/// shared words to the bit), every repository's `through` and mark (the
/// export's key of its pages holds the mark) and the gone marks no
/// catch-up has read yet (snapshot ids are the same in both stores), so the
/// copy's pages and documents are the original's and its next catch-up
/// goes on from where the original's stopped. Repository keys are the
/// same in both stores (a migration copies them). Returns the lists
/// copied.
pub fn copy<A, B>(from: &A, to: &mut B, group: &str) -> Result<usize>
where
    A: RelatedStore + ?Sized,
    B: RelatedStore + ?Sized,
{
    let throughs = from.related_throughs(group)?;
    let items: Vec<Linked> = from
        .related_vectors(group)?
        .into_iter()
        .map(|v| v.item)
        .collect();
    let profiles = from.related_profiles_of(&items)?;
    let mut lists = Vec::new();
    for (repo, _) in &throughs {
        let ids: Vec<String> = items
            .iter()
            .filter(|i| i.repo == *repo)
            .map(|i| i.id.clone())
            .collect();
        for page in ids.chunks(CHUNK) {
            let mut of = from.related_of(*repo, page)?;
            for id in page {
                if let Some(list) = of.remove(id) {
                    let item = Linked {
                        repo: *repo,
                        id: id.clone(),
                    };
                    lists.push((item, list));
                }
            }
        }
    }
    let copied = lists.len();
    let mut marks = Vec::with_capacity(throughs.len());
    for (repo, _) in &throughs {
        marks.push((*repo, from.related_mark(*repo)?));
    }
    let update = RelatedUpdate {
        marks,
        group: group.to_string(),
        expected: to.related_throughs(group)?,
        profiles,
        removed: Vec::new(),
        lists,
        through: throughs.into_iter().filter(|(_, t)| *t > 0).collect(),
        gone: from.related_gone(group)?,
    };
    match to.related_apply(&update)? {
        Applied::Written => Ok(copied),
        Applied::Moved => Err(StoreError::Corrupt {
            path: format!("group {group}").into(),
            what: "the copy's related items changed while they were copied".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    //! The engine's reading of the gone marks against a real store, when
    //! the catch-up after the reconcile never ran: the next catch-up takes
    //! the item out, unless it was listed again before.

    use signals_core::{ItemSnapshot, RepoName, TrackedRepo, reconcile};
    use signals_store::suite::{group, id, issue, run_of, tracked, ts};
    use signals_store::{RelatedStore, RepoKey, RunWrites};
    use signals_store_sqlite::Store;

    use super::catch_up;

    const STORY: &str = "thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', \
                         src/renderer/texture_cache.rs:214:38";

    fn item(repo: &str, key: &str, title: &str, text: &str) -> ItemSnapshot {
        ItemSnapshot {
            repo: RepoName::parse(repo).unwrap(),
            url: format!("https://github.com/{repo}/issues/{key}"),
            title: title.into(),
            text: text.into(),
            ..issue(key)
        }
    }

    /// A store whose o/a holds `x`, and o/b `y` telling the same story
    /// beside items of their own words.
    struct Pair {
        store: Store,
        a: RepoKey,
        b: RepoKey,
        x: ItemSnapshot,
        y: String,
    }

    impl Pair {
        /// Whether the list of `item` of `repo` names `other`.
        fn names(&self, repo: RepoKey, item: &str, other: &str) -> bool {
            let lists = self.store.related_of(repo, &[item.to_string()]).unwrap();
            lists
                .get(item)
                .is_some_and(|l| l.iter().any(|e| e.item.id == other))
        }
    }

    /// The pair, caught up: `x` and `y` list each other.
    fn pair() -> Pair {
        let mut store = Store::open_in_memory().unwrap();
        let repo = |name: &str| TrackedRepo {
            id: name.replace('/', "-"),
            repo: RepoName::parse(name).unwrap(),
            name: name.into(),
            ..tracked()
        };
        let a = store.ensure_repository(&group(), &repo("o/a")).unwrap();
        let b = store.ensure_repository(&group(), &repo("o/b")).unwrap();
        let x = item("o/a", "1", "Crash when loading textures", STORY);
        let y = item("o/b", "1", "Crash when loading textures", STORY);
        let words = ["kalo miru", "tevo zanpe", "drisul kami", "rute volo"];
        let mut others: Vec<ItemSnapshot> = words
            .iter()
            .enumerate()
            .map(|(n, w)| item("o/b", &format!("{}", n + 2), w, &format!("{w} {w} sul")))
            .collect();
        others.push(y.clone());
        let at = ts("2026-11-20T10:00:00Z");
        let run = run_of(&store, a, at, vec![x.clone()], 1);
        store.commit_run(a, &run).unwrap();
        let run = run_of(&store, b, at, others, 1);
        store.commit_run(b, &run).unwrap();
        catch_up(&mut store, &group().id).unwrap();
        let pair = Pair {
            store,
            a,
            b,
            y: id(&y),
            x,
        };
        assert!(pair.names(a, &id(&pair.x), &pair.y), "the story pairs");
        assert!(pair.names(b, &pair.y, &id(&pair.x)), "the story pairs");
        pair
    }

    /// The reconcile that found `x` gone, committed with no catch-up after.
    fn gone_without_catch_up(p: &mut Pair) {
        let at = ts("2026-11-21T10:00:00Z");
        let mut run = run_of(&p.store, p.a, at, vec![reconcile::gone(&p.x, at)], 1);
        run.reconciled = true;
        run.gone = vec![id(&p.x)];
        p.store.commit_run(p.a, &run).unwrap();
    }

    #[test]
    fn the_next_catch_up_takes_out_an_item_gone_since_the_last() {
        let mut p = pair();
        gone_without_catch_up(&mut p);
        let x = id(&p.x);
        assert!(p.names(p.b, &p.y, &x), "no catch-up ran yet");
        let caught = catch_up(&mut p.store, &group().id).unwrap();
        assert_eq!(caught.removed, 1, "{caught:?}");
        assert_eq!(caught.profiled, 0, "{caught:?}");
        assert!(!p.names(p.b, &p.y, &x), "no list names x");
        assert!(
            p.store
                .related_of(p.a, std::slice::from_ref(&x))
                .unwrap()
                .is_empty()
        );
        let vectors = p.store.related_vectors(&group().id).unwrap();
        assert!(vectors.iter().all(|v| v.item.id != x));
        assert!(p.store.related_gone(&group().id).unwrap().is_empty());
        // Nothing is left to do.
        let again = catch_up(&mut p.store, &group().id).unwrap();
        assert_eq!(again, super::CaughtUp::default());
    }

    #[test]
    fn an_item_listed_again_before_the_next_catch_up_stays_related() {
        let mut p = pair();
        gone_without_catch_up(&mut p);
        let mut back = p.x.clone();
        back.updated_at = ts("2026-11-22T09:00:00Z");
        let run = run_of(&p.store, p.a, ts("2026-11-22T10:00:00Z"), vec![back], 1);
        p.store.commit_run(p.a, &run).unwrap();
        let caught = catch_up(&mut p.store, &group().id).unwrap();
        assert_eq!(caught.removed, 0, "{caught:?}");
        let x = id(&p.x);
        assert!(p.names(p.a, &x, &p.y));
        assert!(p.names(p.b, &p.y, &x));
        assert!(p.store.related_gone(&group().id).unwrap().is_empty());
    }
}
