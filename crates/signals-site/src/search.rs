//! The static site's word index: the store's word index
//! ([`signals_core::search`]) cut into files the page's script fetches one
//! at a time, so a first one-word query reads a few hundred kilobytes at
//! 100,000 signals, never the whole index.
//!
//! Per repository (format [`SEARCH_VERSION`], docs/decisions.md "Search in
//! the static site"):
//!
//! - `search.json`, the manifest: the index's `through`, its statistics
//!   (documents, total weighted length: the BM25 of the API), and the
//!   shards: the first term of each (shards hold sorted, contiguous term
//!   ranges, the first one from the empty term) and its file's name.
//! - `search/w-<through>-<n>.bin`, a shard, gzipped: per term, in byte order,
//!   `varint(term bytes)`, the term (UTF-8), `varint(entry bytes)`, then
//!   `varint(count)` and, in columns over the documents in increasing
//!   order, every `varint(doc - previous)`, then every `varint(len)`,
//!   every `varint(title_tf)`, every `varint(tf)`: what BM25 needs, no
//!   positions. Columns compress better than rows (a common word's gaps
//!   are nearly all 1): at 100,000 signals the most common word's list
//!   is about 1.6 bytes a document gzipped. A shard is cut after the
//!   term that takes it past [`SHARD_BYTES`].
//! - `search/p-<through>-<n>.bin`, its positions, gzipped, read only for a phrase:
//!   per term, in the shard's order, `varint(term bytes)`, the term,
//!   `varint(bytes)`, then per entry its `tf` positions as `varint`
//!   differences.
//! - `search/r-<k>.bin`, documents `k × RANK_DOCS ..`: per document a
//!   little-endian `u32`, its rank by (importance desc, id asc), the API's
//!   tie-break (`u32::MAX` for a document the site does not show). Read
//!   only for documents tied on score with another of the page.
//! - `search/q-<k>.bin`, the shown documents in that rank order, ranks
//!   `k × ORDER_DOCS ..`, a little-endian `u32` each: when more documents
//!   share the score at the page's edge than the page has room for, the
//!   script walks these until it has the best-ranked, if that reads fewer
//!   bytes than their rank files.
//! - `search/o-<k>.bin`, documents `k × 4096 ..`: per document its
//!   position in page order (a little-endian `u32`, `u32::MAX` if not
//!   shown), read only when a query is combined with filters.
//! - `search/ranks.json` ([`RANK_LIST`]): the shown documents in rank
//!   order with their importance and id, read by the group's index
//!   (`group_search.rs`), never by the page.
//! - `search/t-<c>.json`: the cards of documents `c × TEXT_DOCS ..`
//!   ([`FilterEntry`], `null` where none), read only for shown results.
//!
//! An export with a previous version of the repository's files rewrites
//! only the shards whose term range holds a term written since the
//! previous manifest's `through`; the others are hard links to the
//! previous version's files (named by the `through` they were written at).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use signals_core::search::postings::{self, Entry};
use signals_core::search::{BLOCK_DOCS, Stats};

use crate::error::SiteError;
use crate::files::RepoFiles;
use crate::filter::{FilterEntry, entry, push_json};
use crate::source::Ranked;

/// Version of the search index format; the script refuses others.
pub const SEARCH_VERSION: u32 = 2;

/// The manifest's file name, beside `signals.json`.
pub const SEARCH_MANIFEST: &str = "search.json";

/// The folder of the index's other files.
pub const SEARCH_DIR: &str = "search";

/// A shard is closed once it holds this many bytes.
pub const SHARD_BYTES: usize = 24 * 1024;

/// Documents per text file: 4 cards, about 2.5 KB.
pub const TEXT_DOCS: u32 = 4;

/// Documents per rank file: 1 KB, so the ranks of a page's few tied
/// results read little.
pub const RANK_DOCS: u32 = 256;

/// A repository's shown documents in rank order, `[doc, importance, id]`
/// each: what its group's index orders its ties by.
pub const RANK_LIST: &str = "ranks.json";

/// Documents per file of the rank order: 16 KB.
pub const ORDER_DOCS: u32 = 4096;

/// `search.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`SEARCH_VERSION`].
    pub version: u32,
    /// The store's index was complete through this snapshot id.
    pub through: i64,
    /// Documents in the index.
    pub docs: u64,
    /// Their total weighted length.
    pub total_len: u64,
    /// Documents per `r-<k>.bin`.
    pub rank: u32,
    /// Documents per `q-<k>.bin`.
    pub order: u32,
    /// Documents in the rank order (the shown ones).
    pub ranked: u64,
    /// One more than the highest document number.
    #[serde(default)]
    pub limit: u32,
    /// Documents per `o-<k>.bin`.
    pub block: u32,
    /// Documents per `t-<c>.json`.
    pub text: u32,
    /// `[first term, file stem]` of each shard, in term order: the shard
    /// is `search/w-<stem>.bin`, its positions `search/p-<stem>.bin`.
    pub shards: Vec<(String, String)>,
    /// A group's index only: its repositories, by their first document
    /// (`group_search.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repos: Vec<Part>,
}

/// One repository of a group's index (`group_search.rs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// Its first document number in the group.
    pub base: u32,
    /// The numbers kept for it: `base .. base + room`.
    pub room: u32,
    /// Its folder beside the group page (`<repo id>/`), relative to the
    /// page (not to the group's index folder).
    pub prefix: String,
    /// Its name, shown on its results.
    pub name: String,
    /// Its version folder's name (`v<n>`): the same name, the same files.
    pub version: String,
}

impl Manifest {
    /// The statistics BM25 reads.
    pub fn stats(&self) -> Stats {
        Stats {
            docs: self.docs,
            total_len: self.total_len,
        }
    }
}

/// The manifest of a previous version folder, if it has a readable one of
/// this format (anything else: the index is written whole).
pub fn previous_manifest(dir: &Path) -> Option<Manifest> {
    let text = std::fs::read_to_string(dir.join(SEARCH_MANIFEST)).ok()?;
    serde_json::from_str::<Manifest>(&text)
        .ok()
        .filter(|m| m.version == SEARCH_VERSION)
}

fn put(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put(out, bytes.len() as u32);
    out.extend_from_slice(bytes);
}

/// The shard being written: its first term, its stem, and its two files.
struct Open {
    first: String,
    words: Vec<u8>,
    positions: Vec<u8>,
}
/// The two parts of one block of the store's word index, as
/// [`SearchWriter::block`] takes them.
#[derive(Debug, Clone, Copy)]
pub struct BlockParts<'a> {
    /// The documents' part.
    pub docs: &'a [u8],
    /// The positions' part.
    pub positions: &'a [u8],
}

/// Writes a repository's search index from the store's blocks, fed in
/// term order ([`SearchWriter::block`]), then its documents
/// ([`SearchWriter::finish`]).
pub struct SearchWriter {
    through: i64,
    stats: Stats,
    /// The previous version folder and its manifest, and the terms written
    /// since (sorted), when the export is incremental.
    previous: Option<(PathBuf, Manifest, Vec<String>)>,
    /// The range of the previous manifest the current term falls in.
    range: usize,
    /// Whether that range is rewritten.
    rewrite: bool,
    shards: Vec<(String, String)>,
    open: Option<Open>,
    /// The current term and its entries so far.
    term: Option<(String, Vec<Entry>)>,
    /// Shards written (not linked), for the report.
    pub written: usize,
    /// Shards linked from the previous version.
    pub linked: usize,
    /// One more than the highest document number (the manifest's).
    pub limit: u32,
}

impl SearchWriter {
    /// A writer for an index through `through` with `stats`; `previous`:
    /// the previous version folder, its manifest and the terms the store
    /// wrote after that manifest's `through`.
    pub fn new(
        through: i64,
        stats: Stats,
        previous: Option<(PathBuf, Manifest, Vec<String>)>,
    ) -> SearchWriter {
        let mut w = SearchWriter {
            through,
            stats,
            previous,
            range: 0,
            rewrite: true,
            shards: Vec::new(),
            open: None,
            term: None,
            written: 0,
            linked: 0,
            limit: 0,
        };
        w.rewrite = w.range_changed(0);
        w
    }

    /// The term range `i` of the previous manifest: `[first, next first)`.
    fn bounds(&self, i: usize) -> Option<(&str, Option<&str>)> {
        let (_, m, _) = self.previous.as_ref()?;
        let first = if i == 0 {
            ""
        } else {
            m.shards.get(i)?.0.as_str()
        };
        Some((first, m.shards.get(i + 1).map(|s| s.0.as_str())))
    }

    fn range_changed(&self, i: usize) -> bool {
        let Some((first, end)) = self.bounds(i) else {
            return true;
        };
        let Some((_, _, changed)) = &self.previous else {
            return true;
        };
        let from = changed.partition_point(|t| t.as_str() < first);
        changed
            .get(from)
            .is_some_and(|t| end.is_none_or(|e| t.as_str() < e))
    }

    /// The range index of `term` in the previous manifest.
    fn range_of(&self, term: &str) -> usize {
        match &self.previous {
            Some((_, m, _)) => m.shards[1..].partition_point(|s| s.0.as_str() <= term),
            None => 0,
        }
    }

    /// One block of the store's index (its documents' and its positions'
    /// parts, [`postings::Block`], of `term`), in term then block order.
    pub fn block(
        &mut self,
        term: &str,
        block: BlockParts<'_>,
        out: &mut RepoFiles,
    ) -> Result<(), SiteError> {
        let BlockParts { docs, positions } = block;
        if !self.enter(term, out)? {
            return Ok(());
        }
        let (_, entries) = self.term.as_mut().expect("a term");
        postings::decode(docs, Some(positions), entries).map_err(|e| SiteError::Source(Box::new(e)))
    }

    /// Moves to `term` (terms come in byte order, a term's entries in
    /// document order); whether its range is written again, so its
    /// entries are wanted ([`SearchWriter::push`]).
    pub fn enter(&mut self, term: &str, out: &mut RepoFiles) -> Result<bool, SiteError> {
        if self.term.as_ref().is_none_or(|(t, _)| t != term) {
            self.end_term(out)?;
            self.move_to(self.range_of(term), out)?;
            self.term = Some((term.to_string(), Vec::new()));
        }
        Ok(self.rewrite)
    }

    /// Entries of the current term, after those pushed before.
    pub fn push(&mut self, entries: impl IntoIterator<Item = Entry>) {
        if let Some((_, list)) = self.term.as_mut() {
            list.extend(entries);
        }
    }

    /// Moves to range `to` of the previous manifest, linking the unchanged
    /// ranges passed (and `to` itself when unchanged).
    fn move_to(&mut self, to: usize, out: &mut RepoFiles) -> Result<(), SiteError> {
        while self.range < to {
            self.leave_range(out)?;
            self.range += 1;
            self.rewrite = self.range_changed(self.range);
        }
        Ok(())
    }

    /// Ends the current range: closes its open shard or links its files.
    fn leave_range(&mut self, out: &mut RepoFiles) -> Result<(), SiteError> {
        if self.rewrite {
            return self.close_shard(out);
        }
        let Some((dir, m, _)) = &self.previous else {
            return Ok(());
        };
        let (first, stem) = m.shards[self.range].clone();
        for kind in ["w", "p"] {
            let rel = format!("{SEARCH_DIR}/{kind}-{stem}.bin");
            out.link(&rel, &dir.join(&rel))?;
        }
        self.shards.push((first, stem));
        self.linked += 1;
        Ok(())
    }

    fn end_term(&mut self, out: &mut RepoFiles) -> Result<(), SiteError> {
        let Some((term, entries)) = self.term.take() else {
            return Ok(());
        };
        if !self.rewrite || entries.is_empty() {
            return Ok(());
        }
        let first = match (&self.open, self.bounds(self.range)) {
            (Some(_), _) => String::new(),
            // The first shard of a rewritten range keeps the range's first
            // term, so the ranges before it still end where they did.
            (None, Some((start, _))) if self.shards.last().is_none_or(|s| s.0.as_str() < start) => {
                start.to_string()
            }
            (None, _) if self.shards.is_empty() => String::new(),
            (None, _) => term.clone(),
        };
        let open = self.open.get_or_insert_with(|| Open {
            first,
            words: Vec::new(),
            positions: Vec::new(),
        });
        let mut list = Vec::with_capacity(entries.len() * 5);
        let mut places = Vec::new();
        put(&mut list, entries.len() as u32);
        let mut prev = 0;
        for e in &entries {
            put(&mut list, e.doc - prev);
            prev = e.doc;
            let mut last = 0;
            for &p in &e.positions {
                put(&mut places, p - last);
                last = p;
            }
        }
        for e in &entries {
            put(&mut list, e.len);
        }
        for e in &entries {
            put(&mut list, e.title_tf);
        }
        for e in &entries {
            put(&mut list, e.tf);
        }
        put_bytes(&mut open.words, term.as_bytes());
        put_bytes(&mut open.words, &list);
        put_bytes(&mut open.positions, term.as_bytes());
        put_bytes(&mut open.positions, &places);
        if open.words.len() >= SHARD_BYTES {
            self.close_shard(out)?;
        }
        Ok(())
    }

    fn close_shard(&mut self, out: &mut RepoFiles) -> Result<(), SiteError> {
        let Some(open) = self.open.take() else {
            return Ok(());
        };
        let stem = format!("{}-{}", self.through, self.shards.len());
        write_bytes(
            out,
            &format!("{SEARCH_DIR}/w-{stem}.bin"),
            &gzip(&open.words),
        )?;
        write_bytes(
            out,
            &format!("{SEARCH_DIR}/p-{stem}.bin"),
            &gzip(&open.positions),
        )?;
        self.shards.push((open.first, stem));
        self.written += 1;
        Ok(())
    }

    /// Ends the terms (linking the unchanged ranges left), then writes the
    /// documents' files and the manifest. `shown`: the shown signals that
    /// have a document, in page order; `cards` answers the cards of
    /// signals by their places in page order, a batch at a time, so that
    /// no more than a batch of cards is ever held.
    pub fn finish(
        mut self,
        shown: &[ShownDoc<'_>],
        cards: &mut CardsAt<'_>,
        out: &mut RepoFiles,
    ) -> Result<(Manifest, usize, usize), SiteError> {
        self.end_shards(out)?;
        let ranked = shown.len() as u64;
        write_docs(shown, cards, out)?;
        let manifest = self.manifest(ranked);
        let mut json = String::new();
        push_json(&mut json, &manifest, SEARCH_MANIFEST)?;
        out.put(SEARCH_MANIFEST, &json)?;
        Ok((manifest, self.written, self.linked))
    }

    /// The manifest of what was written, `ranked` documents in rank order.
    pub(crate) fn manifest(&self, ranked: u64) -> Manifest {
        Manifest {
            version: SEARCH_VERSION,
            through: self.through,
            docs: self.stats.docs,
            total_len: self.stats.total_len,
            rank: RANK_DOCS,
            order: ORDER_DOCS,
            ranked,
            limit: self.limit,
            block: BLOCK_DOCS,
            text: TEXT_DOCS,
            shards: self.shards.clone(),
            repos: Vec::new(),
        }
    }

    /// Ends the terms: the last shard closed, the unchanged ranges left
    /// linked.
    pub(crate) fn end_shards(&mut self, out: &mut RepoFiles) -> Result<(), SiteError> {
        self.end_term(out)?;
        let last = self.previous.as_ref().map_or(0, |(_, m, _)| m.shards.len());
        self.move_to(last.saturating_sub(1), out)?;
        self.leave_range(out)?;
        if self.shards.is_empty() {
            // An empty index still has its one (empty) shard.
            self.open = Some(Open {
                first: String::new(),
                words: Vec::new(),
                positions: Vec::new(),
            });
            self.close_shard(out)?;
        }
        Ok(())
    }
}

/// `bytes` gzipped (the best level: written once, read often). Shards are
/// sent as they are, whatever the server; the script inflates them
/// (`DecompressionStream`). A common word's list of small document gaps
/// shrinks about twofold.
pub(crate) fn gzip(bytes: &[u8]) -> Vec<u8> {
    use flate2::{Compression, write::GzEncoder};
    let mut enc = GzEncoder::new(Vec::with_capacity(bytes.len() / 2), Compression::best());
    enc.write_all(bytes).expect("writing to memory");
    enc.finish().expect("writing to memory")
}

pub(crate) fn write_bytes(out: &mut RepoFiles, rel: &str, bytes: &[u8]) -> Result<(), SiteError> {
    let mut file = out.open(rel)?;
    file.write_all(bytes).map_err(|source| SiteError::Io {
        action: "write",
        path: PathBuf::from(rel),
        source,
    })?;
    out.close(file, bytes.len() as u64)
}

/// A shown signal as its index's document files need it: its document
/// number, its importance and its id (what the rank order sorts by), and
/// its place in page order (what its card links to).
#[derive(Debug, Clone, Copy)]
pub struct ShownDoc<'a> {
    /// Its document number in the word index.
    pub doc: u32,
    /// Its importance at the latest run.
    pub importance: u32,
    /// Its signal id.
    pub id: &'a str,
    /// Its place in page order, counting every signal shown.
    pub place: usize,
}

/// The cards of the signals at the given places of page order, in the
/// order asked ([`card`] makes one).
pub type CardsAt<'a> = dyn FnMut(&[usize]) -> Result<Vec<FilterEntry>, SiteError> + 'a;

/// Cards asked for at once: about 150 text files.
const CARD_BATCH: usize = 600;

/// The rank and text files of `shown` (in page order), the cards read
/// from `cards` a batch at a time, in document order.
fn write_docs(
    shown: &[ShownDoc<'_>],
    cards: &mut CardsAt<'_>,
    out: &mut RepoFiles,
) -> Result<(), SiteError> {
    // The API's tie-break: importance desc, id asc (ids are unique).
    let mut by_rank: Vec<u32> = (0..shown.len() as u32).collect();
    by_rank.sort_unstable_by(|&a, &b| {
        let (a, b) = (&shown[a as usize], &shown[b as usize]);
        b.importance.cmp(&a.importance).then(a.id.cmp(b.id))
    });
    let rank: Vec<(u32, u32)> = by_rank
        .iter()
        .enumerate()
        .map(|(r, &i)| (shown[i as usize].doc, r as u32))
        .collect();
    write_order(&rank, out)?;
    // The rank order with what orders it, for the group's index.
    let order: Vec<(u32, u32, &str)> = by_rank
        .iter()
        .map(|&i| {
            let s = &shown[i as usize];
            (s.doc, s.importance, s.id)
        })
        .collect();
    let mut json = String::new();
    push_json(&mut json, &order, RANK_LIST)?;
    drop(order);
    out.put(&format!("{SEARCH_DIR}/{RANK_LIST}"), &json)?;
    drop(json);
    let Some(max) = shown.iter().map(|s| s.doc).max() else {
        return Ok(());
    };
    // Per document: its rank, and its position among the shown ones.
    let mut pairs = vec![(u32::MAX, u32::MAX); max as usize + 1];
    for (doc, r) in rank {
        pairs[doc as usize].0 = r;
    }
    for (i, s) in shown.iter().enumerate() {
        pairs[s.doc as usize].1 = i as u32;
    }
    for (k, chunk) in pairs.chunks(RANK_DOCS as usize).enumerate() {
        let bytes: Vec<u8> = chunk.iter().flat_map(|(r, _)| r.to_le_bytes()).collect();
        write_bytes(out, &format!("{SEARCH_DIR}/r-{k}.bin"), &bytes)?;
    }
    for (k, chunk) in pairs.chunks(BLOCK_DOCS as usize).enumerate() {
        let bytes: Vec<u8> = chunk.iter().flat_map(|(_, p)| p.to_le_bytes()).collect();
        write_bytes(out, &format!("{SEARCH_DIR}/o-{k}.bin"), &bytes)?;
    }
    drop(pairs);
    let mut by_doc: Vec<u32> = (0..shown.len() as u32).collect();
    by_doc.sort_unstable_by_key(|&i| shown[i as usize].doc);
    let file_of = |i: u32| shown[i as usize].doc / TEXT_DOCS;
    let mut at = 0;
    while at < by_doc.len() {
        // A batch of whole text files.
        let mut end = (at + CARD_BATCH).min(by_doc.len());
        while end < by_doc.len() && file_of(by_doc[end]) == file_of(by_doc[end - 1]) {
            end += 1;
        }
        let batch = &by_doc[at..end];
        let places: Vec<usize> = batch.iter().map(|&i| shown[i as usize].place).collect();
        let read = cards(&places)?;
        let mut i = 0;
        while i < batch.len() {
            let c = file_of(batch[i]);
            let mut slots: Vec<Option<&FilterEntry>> = vec![None; TEXT_DOCS as usize];
            while i < batch.len() && file_of(batch[i]) == c {
                slots[(shown[batch[i] as usize].doc % TEXT_DOCS) as usize] = read.get(i);
                i += 1;
            }
            let mut json = String::new();
            push_json(&mut json, &slots, "search text")?;
            out.put(&format!("{SEARCH_DIR}/t-{c}.json"), &json)?;
        }
        at = end;
    }
    Ok(())
}

/// The `q-<k>.bin` files of `rank` (`(doc, rank)` in rank order).
pub(crate) fn write_order(rank: &[(u32, u32)], out: &mut RepoFiles) -> Result<(), SiteError> {
    for (k, chunk) in rank.chunks(ORDER_DOCS as usize).enumerate() {
        let bytes: Vec<u8> = chunk.iter().flat_map(|(d, _)| d.to_le_bytes()).collect();
        write_bytes(out, &format!("{SEARCH_DIR}/q-{k}.bin"), &bytes)?;
    }
    Ok(())
}

/// The card of `r`, the `position`-th signal in page order, as the text
/// files hold it.
pub fn card(r: &Ranked, position: usize) -> FilterEntry {
    entry(r.shown(), position, "")
}

/// The files a repository's index needs from a previous version, for
/// tests: every shard file its manifest names.
pub fn shard_files(manifest: &Manifest) -> BTreeSet<String> {
    manifest
        .shards
        .iter()
        .flat_map(|(_, stem)| ["w", "p"].map(|k| format!("{SEARCH_DIR}/{k}-{stem}.bin")))
        .collect()
}
