//! A repository's search index for the static site: the
//! store's word index, read block by block in term order and handed to
//! [`SearchWriter`] (signals-site `search.rs` describes the files), then
//! each shown signal's document number and, a batch at a time, its card.
//!
//! Incremental: when the previous export left a manifest, only the shards
//! holding a term the store wrote after that manifest's `through` are
//! written again; the others are linked from the previous version.

use std::path::PathBuf;

use anyhow::Context;
use signals_site::{RepoFiles, SearchWriter, previous_manifest};
use signals_store::{RepoKey, SearchIndex, StoreError};

use super::source::Streamed;

/// What [`write`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Written {
    /// Shards written.
    pub written: usize,
    /// Shards linked from the previous version.
    pub linked: usize,
}

/// Writes the search index of repository `key` (the signals `streamed`
/// shows, read back a batch at a time for their cards) into `files`;
/// `previous`: the folder of the repository's previous version, if any.
pub fn write(
    store: &dyn SearchIndex,
    key: RepoKey,
    streamed: &Streamed<'_>,
    previous: Option<PathBuf>,
    files: &mut RepoFiles,
) -> anyhow::Result<Written> {
    let state = store.search_state(key)?;
    let previous = match previous.and_then(|dir| previous_manifest(&dir).map(|m| (dir, m))) {
        // An index rebuilt from scratch (a `through` gone back) is written whole.
        Some((dir, m)) if m.through <= state.through => {
            let changed = store.search_terms_written(key, m.through)?;
            Some((dir, m, changed))
        }
        _ => None,
    };
    let mut writer = SearchWriter::new(state.through, state.stats, previous);
    let mut failed = None;
    let streamed_blocks = store.search_each_block(key, &mut |term, _block, docs, positions| {
        writer
            .block(term, signals_site::BlockParts { docs, positions }, files)
            .map_err(|e| {
                failed = Some(e);
                StoreError::Corrupt {
                    path: format!("repository {key}").into(),
                    what: "the static site's search index could not be written".into(),
                }
            })
    });
    if let Some(e) = failed {
        return Err(e).context("cannot write the search index");
    }
    streamed_blocks?;
    let docs = store.search_docs(key)?;
    writer.limit = docs.iter().map(|(_, d)| *d).max().map_or(0, |d| d + 1);
    // Document numbers by item position: a number per item, not a map of
    // ids, and the cards are read back a batch at a time when their text
    // files are written, never all held at once.
    let documents = streamed.documents(docs);
    let shown = streamed.shown_docs(&documents);
    drop(documents);
    let (_, written, linked) =
        writer.finish(&shown, &mut |places| streamed.cards(places), files)?;
    Ok(Written { written, linked })
}
