//! The word index's posting lists (issue 28): for each term, the documents
//! holding it, cut into blocks of [`BLOCK_DOCS`] document numbers so that
//! a changed item rewrites one block of each of its terms, never a whole
//! list. The store keeps the blocks as opaque bytes (one row per term and
//! block, both backends alike) and the static site writes the same bytes
//! into its shards, so the browser decodes what the API decodes.
//!
//! A block is `varint(count)` then per document, in increasing document
//! order: `varint(doc - previous doc)` (the first from 0), `varint(len)`
//! (the document's weighted length, [`super::rank`]), `varint(title_tf)`,
//! `varint(positions)` and each position as a `varint` difference from the
//! previous one. Varints are LEB128, unsigned, at most 5 bytes.

/// Document numbers per block.
pub const BLOCK_DOCS: u32 = 4096;

/// The block a document's entries go to.
pub fn block_of(doc: u32) -> u32 {
    doc / BLOCK_DOCS
}

/// One document's entry in a term's list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The document's number (per repository).
    pub doc: u32,
    /// The document's weighted length.
    pub len: u32,
    /// How often the term is in the title.
    pub title_tf: u32,
    /// How often the term is in the document, title included.
    pub tf: u32,
    /// Where the term is, in increasing order: all `tf` of them, or none
    /// when the block was read without positions.
    pub positions: Vec<u32>,
}

/// A block that cannot be read; the store's copy is damaged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a block of the word index is damaged at byte {at}: {what}; rebuild the index")]
pub struct BlockError {
    /// Where reading stopped.
    pub at: usize,
    /// What was wrong.
    pub what: &'static str,
}

fn put(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    /// The next number. Most numbers of a block are one or two bytes (a
    /// document's weighted length is often 128 or more): those are read
    /// here, inline, and only longer ones call [`Reader::get_long`].
    #[inline(always)]
    fn get(&mut self) -> Result<u32, BlockError> {
        if let Some(&b) = self.bytes.get(self.at) {
            if b < 0x80 {
                self.at += 1;
                return Ok(u32::from(b));
            }
            if let Some(&c) = self.bytes.get(self.at + 1)
                && c < 0x80
            {
                self.at += 2;
                return Ok(u32::from(b & 0x7f) | (u32::from(c) << 7));
            }
        }
        self.get_long()
    }

    #[inline(never)]
    fn get_long(&mut self) -> Result<u32, BlockError> {
        let mut v: u64 = 0;
        for shift in (0..35).step_by(7) {
            let Some(&b) = self.bytes.get(self.at) else {
                return Err(BlockError {
                    at: self.at,
                    what: "it ends inside a number",
                });
            };
            self.at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return u32::try_from(v).map_err(|_| BlockError {
                    at: self.at,
                    what: "a number is too large",
                });
            }
        }
        Err(BlockError {
            at: self.at,
            what: "a number is longer than 5 bytes",
        })
    }
}

impl Reader<'_> {
    /// Moves past `n` numbers without reading them, eight bytes at a
    /// time: the bytes that end a number (high bit clear) are gathered
    /// into one byte of flags by a multiplication, and two tables of 256
    /// give how many ends the eight bytes hold and where the k-th is.
    /// Nothing branches on a byte or on an end (walking the ends one by
    /// one was a third of a common word's reading; a count of bits would
    /// need `popcnt`, which the baseline x86-64 target lacks).
    fn skip(&mut self, n: u32) -> Result<(), BlockError> {
        let mut left = n as usize;
        if left == 0 {
            return Ok(());
        }
        let mut at = self.at;
        while let Some(chunk) = self.bytes.get(at..at + 8) {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            let ends = end_flags(word);
            let here = usize::from(ENDS[ends]);
            if here >= left {
                self.at = at + usize::from(NTH_END[ends][left - 1]) + 1;
                return Ok(());
            }
            left -= here;
            at += 8;
        }
        while left > 0 {
            let Some(&b) = self.bytes.get(at) else {
                return Err(BlockError {
                    at: self.bytes.len(),
                    what: "it ends inside a number",
                });
            };
            left -= usize::from(b < 0x80);
            at += 1;
        }
        self.at = at;
        Ok(())
    }
}

/// Bit `i` set when byte `i` of `word` (little-endian) ends a number.
#[inline(always)]
fn end_flags(word: u64) -> usize {
    let ends = (!word & 0x8080_8080_8080_8080) >> 7;
    (ends.wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize
}

/// How many bits each byte of flags has set.
const ENDS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).count_ones() as u8;
        i += 1;
    }
    t
};

/// For each byte of flags, the place of its k-th set bit (k from 0).
const NTH_END: [[u8; 8]; 256] = {
    let mut t = [[0u8; 8]; 256];
    let mut i = 0;
    while i < 256 {
        let (mut bit, mut k) = (0, 0);
        while bit < 8 {
            if i & (1 << bit) != 0 {
                t[i][k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        i += 1;
    }
    t
};

/// The bytes of a block of `entries` (in increasing document order).
pub fn encode(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * 6);
    put(&mut out, entries.len() as u32);
    let mut prev = 0;
    for e in entries {
        put(&mut out, e.doc - prev);
        prev = e.doc;
        put(&mut out, e.len);
        put(&mut out, e.title_tf);
        put(&mut out, e.tf);
        let mut last = 0;
        for &p in &e.positions {
            put(&mut out, p - last);
            last = p;
        }
    }
    out
}

/// How many entries a block holds, from its first number alone.
pub fn count(bytes: &[u8]) -> Result<u32, BlockError> {
    let count = Reader { bytes, at: 0 }.get()?;
    // Each entry takes at least 4 bytes: a count beyond that is damage,
    // caught before anything is reserved for it.
    if count as usize > bytes.len() / 4 {
        return Err(BlockError {
            at: 0,
            what: "it counts more entries than it has bytes",
        });
    }
    Ok(count)
}

/// A block's entries, read into `out` (appended); positions are kept only
/// when `positions` is set (a phrase needs them, a word does not).
/// Without them, positions are skipped by their bytes, not checked: a
/// block that decodes with positions decodes without, not always the
/// other way round.
pub fn decode(bytes: &[u8], positions: bool, out: &mut Vec<Entry>) -> Result<(), BlockError> {
    out.reserve(count(bytes)? as usize);
    each(bytes, positions, |e| out.push(e))
}

/// Each entry of a block handed to `f` in document order, as [`decode`]
/// reads them, without collecting them: a caller that scores entries as
/// they come keeps no list of them.
pub fn each(bytes: &[u8], positions: bool, mut f: impl FnMut(Entry)) -> Result<(), BlockError> {
    let count = count(bytes)?;
    let mut r = Reader { bytes, at: 0 };
    r.get()?;
    let mut doc: u32 = 0;
    for i in 0..count {
        let delta = r.get()?;
        if i > 0 && delta == 0 {
            return Err(BlockError {
                at: r.at,
                what: "a document appears twice",
            });
        }
        doc = doc.checked_add(delta).ok_or(BlockError {
            at: r.at,
            what: "a document number is too large",
        })?;
        let len = r.get()?;
        let title_tf = r.get()?;
        let tf = r.get()?;
        if title_tf > tf || tf == 0 || tf as usize > bytes.len() - r.at {
            return Err(BlockError {
                at: r.at,
                what: "an entry's counts do not fit its positions",
            });
        }
        if !positions {
            // Skipped, not read: a position's last byte is the one
            // without the high bit. A word in every document spends most
            // of its block here.
            r.skip(tf)?;
            f(Entry {
                doc,
                len,
                title_tf,
                tf,
                positions: Vec::new(),
            });
            continue;
        }
        let mut list = Vec::with_capacity(tf as usize);
        let mut p: u32 = 0;
        for j in 0..tf {
            let step = r.get()?;
            if j > 0 && step == 0 {
                return Err(BlockError {
                    at: r.at,
                    what: "a position appears twice",
                });
            }
            p = p.checked_add(step).ok_or(BlockError {
                at: r.at,
                what: "a position is too large",
            })?;
            list.push(p);
        }
        f(Entry {
            doc,
            len,
            title_tf,
            tf,
            positions: list,
        });
    }
    if r.at != bytes.len() {
        return Err(BlockError {
            at: r.at,
            what: "bytes follow the last entry",
        });
    }
    Ok(())
}

/// `block` (entries in document order) without the documents of `remove`
/// and with `add` (entries of documents not in `remove` must not be in
/// `block` already), in document order.
pub fn merge(block: Vec<Entry>, remove: &[u32], mut add: Vec<Entry>) -> Vec<Entry> {
    let mut out: Vec<Entry> = block
        .into_iter()
        .filter(|e| remove.binary_search(&e.doc).is_err())
        .collect();
    out.append(&mut add);
    out.sort_by_key(|e| e.doc);
    out.dedup_by_key(|e| e.doc);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(doc: u32, positions: &[u32], title_tf: u32) -> Entry {
        Entry {
            doc,
            len: 10 + doc,
            title_tf,
            tf: positions.len() as u32,
            positions: positions.to_vec(),
        }
    }

    #[test]
    fn blocks_read_back_what_was_written() {
        let entries = vec![
            entry(0, &[0, 5], 1),
            entry(7, &[300], 0),
            entry(4095, &[1, 2, 3, 1_000_000], 2),
        ];
        let bytes = encode(&entries);
        let mut back = Vec::new();
        decode(&bytes, true, &mut back).unwrap();
        assert_eq!(back, entries);
        let mut bare = Vec::new();
        decode(&bytes, false, &mut bare).unwrap();
        assert_eq!(bare.iter().map(|e| e.tf).collect::<Vec<_>>(), [2, 1, 4]);
        assert!(bare.iter().all(|e| e.positions.is_empty()));
    }

    #[test]
    fn skipping_positions_lands_on_the_next_entry() {
        // Long lists, one- to five-byte steps: the skip's eight-byte path
        // and its byte path both end exactly at the next entry.
        let many: Vec<u32> = (1..40u32).map(|i| i * i * i * 1_000).collect();
        let few: Vec<u32> = (0..9).collect();
        let entries = vec![
            entry(0, &many, 3),
            entry(1, &few, 0),
            entry(9, &[u32::MAX], 1),
            entry(10, &many[..8], 0),
        ];
        let bytes = encode(&entries);
        let mut bare = Vec::new();
        decode(&bytes, false, &mut bare).unwrap();
        let seen: Vec<_> = bare
            .iter()
            .map(|e| (e.doc, e.len, e.title_tf, e.tf))
            .collect();
        let want: Vec<_> = entries
            .iter()
            .map(|e| (e.doc, e.len, e.title_tf, e.tf))
            .collect();
        assert_eq!(seen, want);
    }

    #[test]
    fn skipping_lands_right_wherever_an_entry_ends_within_eight_bytes() {
        // Short lists of one- to five-byte steps, so an entry's last byte
        // falls at every place of an eight-byte word, and near the
        // block's end (the byte path).
        let mut seed: u64 = 7;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let mut entries = Vec::new();
        for doc in 0..2000u32 {
            let tf = 1 + next(12) as u32;
            let mut p = 0u32;
            let positions: Vec<u32> = (0..tf)
                .map(|_| {
                    p += 1 + (1u32 << (7 * next(4) as u32)) + next(100) as u32;
                    p
                })
                .collect();
            entries.push(entry(doc * 2, &positions, next(2) as u32));
        }
        let bytes = encode(&entries);
        let mut bare = Vec::new();
        decode(&bytes, false, &mut bare).unwrap();
        let strip = |e: &Entry| (e.doc, e.len, e.title_tf, e.tf);
        assert_eq!(
            bare.iter().map(strip).collect::<Vec<_>>(),
            entries.iter().map(strip).collect::<Vec<_>>()
        );
    }

    #[test]
    fn end_flags_and_their_tables_match_a_byte_by_byte_reading() {
        let mut w: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..10_000 {
            w ^= w << 13;
            w ^= w >> 7;
            w ^= w << 17;
            let bytes = w.to_le_bytes();
            let ends: Vec<usize> = (0..8).filter(|&i| bytes[i] < 0x80).collect();
            let flags = end_flags(w);
            assert_eq!(usize::from(ENDS[flags]), ends.len(), "{w:#x}");
            for (k, &i) in ends.iter().enumerate() {
                assert_eq!(usize::from(NTH_END[flags][k]), i, "{w:#x} {k}");
            }
        }
    }

    #[test]
    fn damaged_blocks_are_errors_not_panics() {
        let bytes = encode(&[entry(1, &[0, 5], 1), entry(2, &[1], 0)]);
        for cut in 0..bytes.len() {
            let mut out = Vec::new();
            assert!(decode(&bytes[..cut], true, &mut out).is_err(), "{cut}");
            assert!(decode(&bytes[..cut], false, &mut out).is_err(), "{cut}");
        }
        let mut out = Vec::new();
        assert!(decode(&[0xff, 0xff, 0xff, 0xff, 0x7f], true, &mut out).is_err());
        assert!(decode(&[1, 0, 1, 2, 1, 0], true, &mut out).is_err());
        let mut long = bytes.clone();
        long.push(0);
        assert!(decode(&long, true, &mut out).is_err());
    }

    #[test]
    fn merging_replaces_changed_documents() {
        let block = vec![entry(1, &[0], 0), entry(3, &[0], 0), entry(5, &[0], 0)];
        let merged = merge(block, &[3, 5], vec![entry(5, &[9], 0), entry(2, &[1], 0)]);
        assert_eq!(
            merged
                .iter()
                .map(|e| (e.doc, e.positions[0]))
                .collect::<Vec<_>>(),
            [(1, 0), (2, 1), (5, 9)]
        );
    }
}
