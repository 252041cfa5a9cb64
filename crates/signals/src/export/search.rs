//! A repository's search index for the static site (issue 28): the
//! store's word index, read block by block in term order and handed to
//! [`SearchWriter`] (signals-site `search.rs` describes the files), then
//! each shown signal's card and document number.
//!
//! Incremental: when the previous export left a manifest, only the shards
//! holding a term the store wrote after that manifest's `through` are
//! written again; the others are linked from the previous version.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Context;
use signals_site::{RepoFiles, RepoSource, SearchWriter, previous_manifest, search_card};
use signals_store::{Backend, RepoKey, StoreError};

/// Signals read back from the source at once.
const BATCH: usize = 500;

/// What [`write`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Written {
    /// Shards written.
    pub written: usize,
    /// Shards linked from the previous version.
    pub linked: usize,
}

/// Writes the search index of repository `key` (`signals` shown, read
/// from `source` in page order) into `files`; `previous`: the folder of
/// the repository's previous version, if any.
pub fn write(
    store: &dyn Backend,
    key: RepoKey,
    signals: usize,
    source: &mut dyn RepoSource,
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
    let streamed = store.search_each_block(key, &mut |term, _block, docs, positions| {
        writer.block(term, (docs, positions), files).map_err(|e| {
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
    streamed?;
    let docs: HashMap<String, u32> = store.search_docs(key)?.into_iter().collect();
    writer.limit = docs.values().max().map_or(0, |d| d + 1);
    let mut cards = Vec::with_capacity(docs.len());
    for start in (0..signals).step_by(BATCH) {
        let batch = source.ranked(start..(start + BATCH).min(signals))?;
        for (i, r) in batch.iter().enumerate() {
            if let Some(&doc) = docs.get(&r.signal.id) {
                cards.push((doc, search_card(r, start + i)));
            }
        }
    }
    let (_, written, linked) = writer.finish(cards, files)?;
    Ok(Written { written, linked })
}
