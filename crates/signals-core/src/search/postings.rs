//! The word index's posting lists: for each term, the documents
//! holding it, cut into blocks of [`BLOCK_DOCS`] document numbers so that
//! a changed item rewrites one block of each of its terms, never a whole
//! list. The store keeps each block as two opaque strings of bytes
//! ([`Block`]: the documents' counts, and apart from them their
//! positions; one row per term and block, both backends alike), and the
//! static site decodes the same blocks into its shards, so the browser
//! ranks from what the API ranks from.
//!
//! A block's documents' part is `varint(count)` then per document, in
//! increasing document order: `varint(doc - previous doc)` (the first from
//! 0), `varint(len)` (the document's weighted length, [`super::rank`]),
//! `varint(title_tf)` and `varint(tf)`. Its positions' part holds, per
//! document in the same order, each of its `tf` positions as a `varint`
//! difference from the previous one. A word reads the first part only: a
//! word in every one of 100,000 documents is about 500 KB of counts
//! against 1.1 MB of positions. Varints are LEB128, unsigned, at most 5
//! bytes.

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
    /// Moves past `n` numbers without reading them (what migration 0018
    /// does to a first-format block's positions), eight bytes at a
    /// time: the bytes that end a number (high bit clear) are gathered
    /// into one byte of flags by a multiplication, and two tables of 256
    /// give how many ends the eight bytes hold and where the k-th is.
    /// Nothing branches on a byte or on an end (a count of bits would
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

/// A block as the stores keep it: its documents' part and its positions'
/// part, apart, so that a word (which needs no positions) reads a third of
/// the bytes a phrase reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Block {
    /// `varint(count)`, then per entry `varint(doc - previous doc)` (the
    /// first from 0), `varint(len)`, `varint(title_tf)`, `varint(tf)`.
    pub docs: Vec<u8>,
    /// Per entry, in the same order, its `tf` positions, each a `varint`
    /// difference from the previous one (the first from 0). Empty when
    /// the block was read without them.
    pub positions: Vec<u8>,
}

impl Block {
    /// Whether the block holds no document (its row stays, empty, so an
    /// incremental export sees that the term changed).
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

/// The block of `entries` (in increasing document order).
pub fn encode(entries: &[Entry]) -> Block {
    let mut docs = Vec::with_capacity(entries.len() * 5);
    let mut positions = Vec::with_capacity(entries.len() * 2);
    put(&mut docs, entries.len() as u32);
    let mut prev = 0;
    for e in entries {
        put(&mut docs, e.doc - prev);
        prev = e.doc;
        put(&mut docs, e.len);
        put(&mut docs, e.title_tf);
        put(&mut docs, e.tf);
        let mut last = 0;
        for &p in &e.positions {
            put(&mut positions, p - last);
            last = p;
        }
    }
    Block { docs, positions }
}

/// How many entries a block holds, from the first number of its
/// documents' part alone.
pub fn count(docs: &[u8]) -> Result<u32, BlockError> {
    let count = Reader { bytes: docs, at: 0 }.get()?;
    // Each entry takes at least 4 bytes: a count beyond that is damage,
    // caught before anything is reserved for it.
    if count as usize > docs.len() / 4 {
        return Err(BlockError {
            at: 0,
            what: "it counts more entries than it has bytes",
        });
    }
    Ok(count)
}

/// A block's entries, read into `out` (appended), with their positions
/// when `positions` (the block's positions' part) is given: a phrase
/// needs them, a word does not.
pub fn decode(
    docs: &[u8],
    positions: Option<&[u8]>,
    out: &mut Vec<Entry>,
) -> Result<(), BlockError> {
    out.reserve(count(docs)? as usize);
    let Some(bytes) = positions else {
        return each(docs, |e| out.push(e));
    };
    let mut r = Reader { bytes, at: 0 };
    let mut failed = None;
    each(docs, |mut e| {
        if failed.is_some() {
            return;
        }
        match read_positions(&mut r, e.tf) {
            Ok(list) => {
                e.positions = list;
                out.push(e);
            }
            Err(err) => failed = Some(err),
        }
    })?;
    if let Some(err) = failed {
        return Err(err);
    }
    if r.at != bytes.len() {
        return Err(BlockError {
            at: r.at,
            what: "bytes follow the last entry's positions",
        });
    }
    Ok(())
}

/// `tf` positions read from `r`.
fn read_positions(r: &mut Reader<'_>, tf: u32) -> Result<Vec<u32>, BlockError> {
    // Each position takes at least a byte: checked before reserving.
    if tf as usize > r.bytes.len() - r.at {
        return Err(BlockError {
            at: r.at,
            what: "an entry has more positions than the block has bytes",
        });
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
    Ok(list)
}

/// Each entry of a block's documents' part handed to `f` in document
/// order, without positions and without collecting them: a caller that
/// scores entries as they come keeps no list of them.
pub fn each(docs: &[u8], mut f: impl FnMut(Entry)) -> Result<(), BlockError> {
    let count = count(docs)?;
    let mut r = Reader { bytes: docs, at: 0 };
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
        if title_tf > tf || tf == 0 {
            return Err(BlockError {
                at: r.at,
                what: "an entry's counts do not fit",
            });
        }
        f(Entry {
            doc,
            len,
            title_tf,
            tf,
            positions: Vec::new(),
        });
    }
    if r.at != docs.len() {
        return Err(BlockError {
            at: r.at,
            what: "bytes follow the last entry",
        });
    }
    Ok(())
}

/// The bytes of `entries` in the first format, before migration 0018: one
/// string with each entry's positions right after its counts. Nothing
/// writes it any more; the migration's tests write it to stand for a store
/// from before, and [`split_first_format`] is its inverse.
pub fn encode_first_format(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * 6);
    put(&mut out, entries.len() as u32);
    let mut prev = 0;
    for e in entries {
        for v in [e.doc - prev, e.len, e.title_tf, e.tf] {
            put(&mut out, v);
        }
        prev = e.doc;
        let mut last = 0;
        for &p in &e.positions {
            put(&mut out, p - last);
            last = p;
        }
    }
    out
}

/// A block of the first format (migration 0018 reads it): one string of
/// bytes with each entry's positions right after its counts. Cut into
/// the two parts of [`Block`], number for number: the varints are copied,
/// never decoded and encoded again, and positions are passed over by
/// [`Reader::skip`].
pub fn split_first_format(bytes: &[u8]) -> Result<Block, BlockError> {
    let count = Reader { bytes, at: 0 }.get()?;
    if count as usize > bytes.len() / 4 {
        return Err(BlockError {
            at: 0,
            what: "it counts more entries than it has bytes",
        });
    }
    let mut r = Reader { bytes, at: 0 };
    r.get()?;
    let mut block = Block {
        docs: Vec::with_capacity(bytes.len() / 2),
        positions: Vec::with_capacity(bytes.len() / 2),
    };
    block.docs.extend_from_slice(&bytes[..r.at]);
    for _ in 0..count {
        let from = r.at;
        for _ in 0..3 {
            r.get()?;
        }
        let tf = r.get()?;
        block.docs.extend_from_slice(&bytes[from..r.at]);
        let from = r.at;
        r.skip(tf)?;
        block.positions.extend_from_slice(&bytes[from..r.at]);
    }
    if r.at != bytes.len() {
        return Err(BlockError {
            at: r.at,
            what: "bytes follow the last entry",
        });
    }
    Ok(block)
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

    fn strip(e: &Entry) -> (u32, u32, u32, u32) {
        (e.doc, e.len, e.title_tf, e.tf)
    }

    #[test]
    fn blocks_read_back_what_was_written() {
        let entries = vec![
            entry(0, &[0, 5], 1),
            entry(7, &[300], 0),
            entry(4095, &[1, 2, 3, 1_000_000], 2),
        ];
        let block = encode(&entries);
        let mut back = Vec::new();
        decode(&block.docs, Some(&block.positions), &mut back).unwrap();
        assert_eq!(back, entries);
        let mut bare = Vec::new();
        decode(&block.docs, None, &mut bare).unwrap();
        assert_eq!(bare.iter().map(|e| e.tf).collect::<Vec<_>>(), [2, 1, 4]);
        assert!(bare.iter().all(|e| e.positions.is_empty()));
    }

    #[test]
    fn a_first_format_block_splits_into_what_encode_writes() {
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
        assert_eq!(
            split_first_format(&encode_first_format(&entries)).unwrap(),
            encode(&entries)
        );
    }

    #[test]
    fn splitting_lands_right_wherever_an_entry_ends_within_eight_bytes() {
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
        let block = split_first_format(&encode_first_format(&entries)).unwrap();
        assert_eq!(block, encode(&entries));
        let mut back = Vec::new();
        decode(&block.docs, Some(&block.positions), &mut back).unwrap();
        assert_eq!(back, entries);
        let mut bare = Vec::new();
        each(&block.docs, |e| bare.push(strip(&e))).unwrap();
        assert_eq!(bare, entries.iter().map(strip).collect::<Vec<_>>());
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
        let entries = [entry(1, &[0, 5], 1), entry(2, &[1], 0)];
        let block = encode(&entries);
        let mut out = Vec::new();
        for cut in 0..block.docs.len() {
            let docs = &block.docs[..cut];
            assert!(
                decode(docs, Some(&block.positions), &mut out).is_err(),
                "{cut}"
            );
            assert!(decode(docs, None, &mut out).is_err(), "{cut}");
        }
        for cut in 0..block.positions.len() {
            let positions = &block.positions[..cut];
            assert!(
                decode(&block.docs, Some(positions), &mut out).is_err(),
                "{cut}"
            );
        }
        let old = encode_first_format(&entries);
        for cut in 0..old.len() {
            assert!(split_first_format(&old[..cut]).is_err(), "{cut}");
        }
        assert!(decode(&[0xff, 0xff, 0xff, 0xff, 0x7f], None, &mut out).is_err());
        assert!(
            decode(&[1, 0, 1, 2, 1], None, &mut out).is_err(),
            "title_tf > tf"
        );
        // A huge count of positions against a few bytes.
        assert!(decode(&[1, 0, 1, 0, 0xff, 0xff, 0x03], Some(&[1]), &mut out).is_err());
        let mut long = block.clone();
        long.docs.push(0);
        assert!(decode(&long.docs, None, &mut out).is_err());
        let mut long = block;
        long.positions.push(0);
        assert!(decode(&long.docs, Some(&long.positions), &mut out).is_err());
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
