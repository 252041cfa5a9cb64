//! A word index in memory, kept as the stores keep theirs (encoded blocks
//! by term and block): what tests and references build from texts to
//! compare the stores, the API and the browser with.

use std::collections::BTreeMap;
use std::convert::Infallible;

use super::doc::Indexed;
use super::postings::{Block, Entry, block_of, decode, encode, merge};
use super::rank::{Positions, Source, Stats};

/// Blocks by `(term, block)`, and the index's statistics.
#[derive(Debug, Default)]
pub struct Memory {
    blocks: BTreeMap<(String, u32), Block>,
    /// Documents and their total weighted length.
    pub stats: Stats,
}

impl Memory {
    /// Adds document `doc` (not in the index yet).
    pub fn add(&mut self, doc: u32, indexed: &Indexed) {
        for term in indexed.terms.keys() {
            let key = (term.clone(), block_of(doc));
            let mut entries = Vec::new();
            if let Some(block) = self.blocks.get(&key) {
                // Written by `encode` just below: always readable.
                let _ = decode(&block.docs, Some(&block.positions), &mut entries);
            }
            let add = indexed.entry(doc, term).into_iter().collect();
            self.blocks
                .insert(key, encode(&merge(entries, &[doc], add)));
        }
        self.stats.docs += 1;
        self.stats.total_len += u64::from(indexed.len);
    }
}

impl Source for Memory {
    type Error = Infallible;

    fn entries(&mut self, term: &str, positions: Positions) -> Result<Vec<Entry>, Infallible> {
        let mut out = Vec::new();
        for ((t, _), block) in self.blocks.range((term.to_string(), 0)..) {
            if t != term {
                break;
            }
            let with = (positions == Positions::Read).then_some(block.positions.as_slice());
            let _ = decode(&block.docs, with, &mut out);
        }
        Ok(out)
    }

    fn expand(&mut self, prefix: &str, limit: usize) -> Result<Vec<String>, Infallible> {
        let mut out: Vec<String> = self
            .blocks
            .range((prefix.to_string(), 0)..)
            .map(|((t, _), _)| t.clone())
            .take_while(|t| t.starts_with(prefix))
            .collect();
        out.dedup();
        out.truncate(limit);
        Ok(out)
    }
}
