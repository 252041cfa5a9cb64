//! A group's word index: the same files as a repository's
//! (`search.rs`), over all the group's signals, so the group page answers
//! the same search language, ranked by BM25 over the group's documents,
//! ties by importance then id.
//!
//! Built from the repositories' own index files, never from the store:
//! their shards are merged in term order, each repository's documents
//! numbered from its [`Part::base`]. A repository keeps its range of
//! document numbers (`base .. base + room`) from one export to the next
//! while it fits; a new repository, or one that outgrew its room, gets a
//! new range after the others (its old one stays empty). So the group's
//! shards change only where a repository's terms changed, and an export
//! rewrites only those shards: the terms are found by comparing a changed
//! repository's rewritten shards with its previous version's (its
//! unchanged shards are the very same files). The other shards are hard
//! links to the previous generation's. The group's rank files (one `u32`
//! per document) are written whole: importance changes with every run.
//!
//! The cards of the results are the repositories' own text files; the
//! manifest's `repos` tells the script where each range's are.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

use signals_core::search::Stats;
use signals_core::search::postings::Entry;

use crate::error::SiteError;
use crate::files::RepoFiles;
use crate::filter::push_json;
use crate::search::{
    Manifest, Part, RANK_DOCS, RANK_LIST, SEARCH_DIR, SEARCH_MANIFEST, SearchWriter,
    previous_manifest, write_bytes, write_order,
};

/// The folder of a group's index beside its page: `_` is in no
/// repository's id (a slug), so no repository's folder can be it. The
/// manifest is `_search/search.json`, the other files `_search/search/`.
pub const GROUP_SEARCH_DIR: &str = "_search";

/// A repository of the group as this export publishes it.
pub struct Member {
    /// Its id (its folder's name beside the group page).
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its version folder.
    pub dir: PathBuf,
}

/// A repository's index as read from its version folder.
struct Source {
    part: Part,
    dir: PathBuf,
    manifest: Manifest,
}

/// Writes the group's index into `out` (the group's folder of the new
/// generation); `previous`: the group's folder as last published, `stamp`
/// a number new to this export (it names the shards written). Repositories
/// without an index are left out; without any, nothing is written.
pub fn write(
    members: &[Member],
    previous: Option<&Path>,
    stamp: i64,
    out: &mut RepoFiles,
) -> Result<(), SiteError> {
    let before = previous.and_then(previous_manifest);
    let sources = number(members, before.as_ref().map_or(&[][..], |m| &m.repos));
    if sources.is_empty() {
        return Ok(());
    }
    let stats = sources.iter().fold(Stats::default(), |s, r| Stats {
        docs: s.docs + r.manifest.docs,
        total_len: s.total_len + r.manifest.total_len,
    });
    let previous = match (previous, before) {
        (Some(dir), Some(m)) => {
            let home = members
                .first()
                .and_then(|m| Some(m.dir.parent()?.parent()?.to_path_buf()));
            match home {
                Some(home) => changed_terms(&sources, &m.repos, &home)?
                    .map(|changed| (dir.to_path_buf(), m, changed.into_iter().collect())),
                None => None,
            }
        }
        _ => None,
    };
    let mut writer = SearchWriter::new(stamp, stats, previous);
    merge(&sources, &mut writer, out)?;
    writer.end_shards(out)?;
    let ranked = write_ranks(&sources, out)?;
    let mut manifest = writer.manifest(ranked);
    manifest.limit = sources.last().map_or(0, |s| s.part.base + s.part.room);
    manifest.repos = sources.into_iter().map(|s| s.part).collect();
    let mut json = String::new();
    push_json(&mut json, &manifest, SEARCH_MANIFEST)?;
    out.put(SEARCH_MANIFEST, &json)
}

/// The members with an index, numbered: each keeps its previous range
/// while its documents fit, the others get new ranges after all kept ones.
fn number(members: &[Member], before: &[Part]) -> Vec<Source> {
    let old: HashMap<&str, &Part> = before.iter().map(|p| (p.prefix.as_str(), p)).collect();
    let mut kept = Vec::new();
    let mut new = Vec::new();
    for m in members {
        let Some(manifest) = previous_manifest(&m.dir) else {
            continue;
        };
        let prefix = format!("{}/", m.id);
        let version = m
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let part = Part {
            base: 0,
            room: 0,
            prefix,
            name: m.name.clone(),
            version,
        };
        let source = Source {
            part,
            dir: m.dir.clone(),
            manifest,
        };
        match old.get(source.part.prefix.as_str()) {
            Some(p) if source.manifest.limit <= p.room => {
                let mut source = source;
                source.part.base = p.base;
                source.part.room = p.room;
                kept.push(source);
            }
            _ => new.push(source),
        }
    }
    let mut end = kept
        .iter()
        .map(|s| s.part.base + s.part.room)
        .max()
        .unwrap_or(0);
    for s in &mut new {
        let limit = s.manifest.limit;
        s.part.base = end;
        s.part.room = (limit + limit / 2 + 16).next_power_of_two();
        end += s.part.room;
    }
    kept.extend(new);
    kept.sort_by_key(|s| s.part.base);
    kept
}

/// A shard's terms with their bytes (`kind` "w" or "p").
fn read_shard(dir: &Path, kind: &str, stem: &str) -> Result<Vec<(String, Vec<u8>)>, SiteError> {
    let path = dir.join(SEARCH_DIR).join(format!("{kind}-{stem}.bin"));
    let failed = |source| SiteError::Io {
        action: "read",
        path: path.clone(),
        source,
    };
    let file = std::fs::read(&path).map_err(failed)?;
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(&file[..])
        .read_to_end(&mut raw)
        .map_err(failed)?;
    let damaged = || {
        failed(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "damaged search shard: export again with --all",
        ))
    };
    let mut r = Reader { bytes: &raw, at: 0 };
    let mut out = Vec::new();
    while r.at < raw.len() {
        let term = r.bytes_of().ok_or_else(damaged)?;
        let term = String::from_utf8(term.to_vec()).map_err(|_| damaged())?;
        let list = r.bytes_of().ok_or_else(damaged)?.to_vec();
        out.push((term, list));
    }
    Ok(out)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn get(&mut self) -> Option<u32> {
        let mut v: u64 = 0;
        for shift in (0..35).step_by(7) {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return u32::try_from(v).ok();
            }
        }
        None
    }

    fn bytes_of(&mut self) -> Option<&'a [u8]> {
        let n = self.get()? as usize;
        let out = self.bytes.get(self.at..self.at + n)?;
        self.at += n;
        Some(out)
    }
}

/// A term's entries from its list and positions (`search.rs`'s columns),
/// documents moved up by `base`.
fn entries(list: &[u8], places: &[u8], base: u32) -> Option<Vec<Entry>> {
    let mut r = Reader { bytes: list, at: 0 };
    let n = r.get()? as usize;
    let mut out = Vec::with_capacity(n.min(list.len()));
    let mut doc = 0u32;
    for _ in 0..n {
        doc = doc.checked_add(r.get()?)?;
        out.push(Entry {
            doc: base.checked_add(doc)?,
            len: 0,
            title_tf: 0,
            tf: 0,
            positions: Vec::new(),
        });
    }
    for e in &mut out {
        e.len = r.get()?;
    }
    for e in &mut out {
        e.title_tf = r.get()?;
    }
    for e in &mut out {
        e.tf = r.get()?;
    }
    let mut p = Reader {
        bytes: places,
        at: 0,
    };
    for e in &mut out {
        let mut at = 0u32;
        for _ in 0..e.tf {
            at = at.checked_add(p.get()?)?;
            e.positions.push(at);
        }
    }
    Some(out)
}

/// Terms with their list and positions.
type Lists = BTreeMap<String, (Vec<u8>, Vec<u8>)>;

/// Every term of a repository's shards but those named in `skip`, with
/// its list and positions.
fn terms_of(dir: &Path, manifest: &Manifest, skip: &BTreeSet<&str>) -> Result<Lists, SiteError> {
    let mut out = BTreeMap::new();
    for (_, stem) in &manifest.shards {
        if skip.contains(stem.as_str()) {
            continue;
        }
        let words = read_shard(dir, "w", stem)?;
        let places = read_shard(dir, "p", stem)?;
        for ((term, list), (_, at)) in words.into_iter().zip(places) {
            out.insert(term, (list, at));
        }
    }
    Ok(out)
}

/// The terms whose entries differ from the previous group index's
/// (`before`): a changed repository's terms whose lists differ between
/// its previous version and this one, and all the terms of a repository
/// added, removed or numbered anew. `home`: the group's folder of version
/// folders (`repos/<group>`). `None` when a previous version is gone: the
/// index is written whole.
fn changed_terms(
    sources: &[Source],
    before: &[Part],
    home: &Path,
) -> Result<Option<BTreeSet<String>>, SiteError> {
    let mut changed = BTreeSet::new();
    let now: HashMap<&str, &Source> = sources
        .iter()
        .map(|s| (s.part.prefix.as_str(), s))
        .collect();
    let none = BTreeSet::new();
    for p in before {
        let id = p.prefix.trim_end_matches('/');
        let old_dir = home.join(id).join(&p.version);
        let Some(m) = previous_manifest(&old_dir) else {
            return Ok(None);
        };
        let old = Some((&old_dir, m));
        match (now.get(p.prefix.as_str()), old) {
            (Some(s), _) if s.part.version == p.version && s.part.base == p.base => {}
            (Some(s), Some((dir, m))) if s.part.base == p.base => {
                let same: BTreeSet<&str> = m
                    .shards
                    .iter()
                    .map(|x| x.1.as_str())
                    .filter(|stem| s.manifest.shards.iter().any(|y| y.1 == *stem))
                    .collect();
                let a = terms_of(dir, &m, &same)?;
                let b = terms_of(&s.dir, &s.manifest, &same)?;
                for (t, v) in &a {
                    if b.get(t) != Some(v) {
                        changed.insert(t.clone());
                    }
                }
                changed.extend(
                    b.into_iter()
                        .filter(|(t, _)| !a.contains_key(t))
                        .map(|x| x.0),
                );
            }
            (now_source, old) => {
                // Removed or numbered anew: all its terms, before and now.
                if let Some((dir, m)) = old {
                    changed.extend(terms_of(dir, &m, &none)?.into_keys());
                }
                if let Some(s) = now_source {
                    changed.extend(terms_of(&s.dir, &s.manifest, &none)?.into_keys());
                }
            }
        }
    }
    let known: BTreeSet<&str> = before.iter().map(|p| p.prefix.as_str()).collect();
    for s in sources
        .iter()
        .filter(|s| !known.contains(s.part.prefix.as_str()))
    {
        changed.extend(terms_of(&s.dir, &s.manifest, &none)?.into_keys());
    }
    Ok(Some(changed))
}

/// One repository's shards, read one at a time in term order.
struct Cursor<'a> {
    source: &'a Source,
    next: usize,
    words: std::vec::IntoIter<(String, Vec<u8>)>,
    /// The current shard's positions, read when first needed.
    places: Option<HashMap<String, Vec<u8>>>,
    stem: String,
    head: Option<(String, Vec<u8>)>,
}

impl<'a> Cursor<'a> {
    fn new(source: &'a Source) -> Result<Cursor<'a>, SiteError> {
        let mut c = Cursor {
            source,
            next: 0,
            words: Vec::new().into_iter(),
            places: None,
            stem: String::new(),
            head: None,
        };
        c.advance()?;
        Ok(c)
    }

    fn advance(&mut self) -> Result<(), SiteError> {
        loop {
            if let Some(h) = self.words.next() {
                self.head = Some(h);
                return Ok(());
            }
            let Some((_, stem)) = self.source.manifest.shards.get(self.next) else {
                self.head = None;
                return Ok(());
            };
            self.words = read_shard(&self.source.dir, "w", stem)?.into_iter();
            self.stem = stem.clone();
            self.places = None;
            self.next += 1;
        }
    }

    /// The current term's entries, in group numbers.
    fn entries(&mut self) -> Result<Vec<Entry>, SiteError> {
        if self.places.is_none() {
            self.places = Some(
                read_shard(&self.source.dir, "p", &self.stem)?
                    .into_iter()
                    .collect(),
            );
        }
        let (term, list) = self.head.as_ref().expect("a current term");
        let places = self
            .places
            .as_ref()
            .and_then(|p| p.get(term))
            .map_or(&[][..], Vec::as_slice);
        entries(list, places, self.source.part.base).ok_or_else(|| SiteError::Io {
            action: "read",
            path: self
                .source
                .dir
                .join(SEARCH_DIR)
                .join(format!("w-{}.bin", self.stem)),
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("damaged list of {term:?}: export again with --all"),
            ),
        })
    }
}

/// Feeds `writer` every term of the sources in byte order, each term's
/// entries in group numbers (the sources are in base order).
fn merge(
    sources: &[Source],
    writer: &mut SearchWriter,
    out: &mut RepoFiles,
) -> Result<(), SiteError> {
    let mut cursors = sources
        .iter()
        .map(Cursor::new)
        .collect::<Result<Vec<_>, _>>()?;
    let mut heap: BinaryHeap<Reverse<(String, usize)>> = cursors
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.head.as_ref().map(|h| Reverse((h.0.clone(), i))))
        .collect();
    while let Some(Reverse((term, first))) = heap.pop() {
        let mut at = vec![first];
        while heap.peek().is_some_and(|Reverse((t, _))| *t == term) {
            let Reverse((_, i)) = heap.pop().expect("peeked");
            at.push(i);
        }
        at.sort_unstable();
        let wanted = writer.enter(&term, out)?;
        for &i in &at {
            if wanted {
                let list = cursors[i].entries()?;
                writer.push(list);
            }
            cursors[i].advance()?;
            if let Some(h) = &cursors[i].head {
                heap.push(Reverse((h.0.clone(), i)));
            }
        }
    }
    Ok(())
}

/// The group's rank files (`r-<k>.bin`, `q-<k>.bin`) from its
/// repositories' rank lists: importance desc, then id asc, across the
/// group. The number of documents ranked.
fn write_ranks(sources: &[Source], out: &mut RepoFiles) -> Result<u64, SiteError> {
    let mut all: Vec<(u32, u32, String)> = Vec::new();
    for s in sources {
        let path = s.dir.join(SEARCH_DIR).join(RANK_LIST);
        let list: Vec<(u32, u32, String)> = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        all.extend(
            list.into_iter()
                .filter(|(doc, _, _)| *doc < s.part.room)
                .map(|(doc, imp, id)| (s.part.base + doc, imp, id)),
        );
    }
    all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.2.cmp(&b.2)));
    let rank: Vec<(u32, u32)> = all
        .iter()
        .enumerate()
        .map(|(i, (doc, _, _))| (*doc, i as u32))
        .collect();
    write_order(&rank, out)?;
    let end = sources.last().map_or(0, |s| s.part.base + s.part.room);
    let mut ranks = vec![u32::MAX; end as usize];
    for &(doc, r) in &rank {
        ranks[doc as usize] = r;
    }
    for (k, chunk) in ranks.chunks(RANK_DOCS as usize).enumerate() {
        let bytes: Vec<u8> = chunk.iter().flat_map(|r| r.to_le_bytes()).collect();
        write_bytes(out, &format!("{SEARCH_DIR}/r-{k}.bin"), &bytes)?;
    }
    Ok(rank.len() as u64)
}
