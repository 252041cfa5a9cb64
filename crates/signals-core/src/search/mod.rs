//! The word index, pure: how text becomes terms
//! ([`tokens`]), what a query means ([`query`]), what an item gives the
//! index ([`doc`]), how a term's documents are kept ([`postings`]) and
//! how a query is answered and ranked ([`rank`]). The stores keep the
//! bytes, `signals serve` asks, the static site writes the same blocks for
//! the browser; none of them decides what matches.

pub mod doc;
pub mod memory;
pub mod postings;
pub mod query;
pub mod rank;
pub mod tokens;

#[cfg(test)]
mod tests;

pub use doc::{DocText, Indexed, index};
pub use memory::Memory;
pub use postings::{BLOCK_DOCS, Block, BlockError, Entry, block_of};
pub use query::{Clause, Query, QueryError};
pub use rank::{Hit, MAX_EXPANSION, Positions, SearchFailure, Source, Stats, evaluate, scan};
