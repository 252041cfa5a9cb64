//! What the page's filter downloads from an exported repository's folder:
//! `signals.json` names its text parts; the script reads the
//! core and the first part at the first filter action, and every part at
//! the first text query.

#![allow(dead_code)] // each benchmark takes what it needs

use std::path::Path;

/// Bytes of the filter index of the repository in `dir`.
pub struct IndexBytes {
    /// `signals.json`.
    pub core: u64,
    /// `signals.json` and the first text part: the first filter action.
    pub first: u64,
    /// `signals.json` and every text part: the first text query.
    pub text_query: u64,
    /// Text parts.
    pub parts: usize,
}

pub fn index_bytes(dir: &Path) -> IndexBytes {
    let size = |name: &str| {
        std::fs::metadata(dir.join(name))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(name).display()))
            .len()
    };
    let core: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("signals.json")).unwrap()).unwrap();
    let texts: Vec<u64> = core["texts"]
        .as_array()
        .expect("a filter index of format 3")
        .iter()
        .map(|t| size(t.as_str().unwrap()))
        .collect();
    let core = size("signals.json");
    IndexBytes {
        core,
        first: core + texts.first().copied().unwrap_or(0),
        text_query: core + texts.iter().sum::<u64>(),
        parts: texts.len(),
    }
}
