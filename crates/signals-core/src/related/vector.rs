//! What the weighing of a group reads of each item: its weighted length,
//! its MinHash sketch, and its terms as integer keys with their counts
//! (a [`Vector`]), in a compact binary form ([`Vector::encode`]) the
//! store keeps beside the profile's text. A catch-up reads this of every
//! item of the group and the text ([`super::Profile`], with the words
//! shown) only of the items whose lists it writes.
//!
//! A term's key is the 64-bit FNV-1a hash of its text ([`key`]): the same
//! term has the same key in every item, store and run, with no
//! dictionary to keep, share or lock. Two different terms of one group
//! take one key with a chance of about `n² / 2⁶⁵` for `n` distinct terms
//! (3 × 10⁻⁸ at a million terms); they would then count as one.

use super::profile::{Profile, SKETCH};

/// The first byte of an encoded vector: its format.
const FORMAT: u8 = 1;

/// An item's terms as keys, for the weighing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vector {
    /// Its weighted length (the profile's `len`).
    pub len: u32,
    /// Its MinHash sketch ([`SKETCH`] values, or none).
    pub sketch: Vec<u32>,
    /// Its terms' keys and weighted counts, sorted by key.
    pub terms: Vec<(u64, u32)>,
}

/// Why a stored vector could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("a stored similarity vector is damaged at byte {at}: {what}")]
pub struct VectorError {
    /// The byte where reading stopped.
    pub at: usize,
    /// What was wrong.
    pub what: &'static str,
}

/// The key of a term: FNV-1a of its bytes, 64 bits.
pub fn key(term: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in term.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Profile {
    /// The profile's terms as keys.
    pub fn vector(&self) -> Vector {
        let mut terms: Vec<(u64, u32)> = self.terms.iter().map(|(t, n)| (key(t), *n)).collect();
        terms.sort_unstable();
        terms.dedup_by_key(|(k, _)| *k);
        Vector {
            len: self.len,
            sketch: self.sketch.clone(),
            terms,
        }
    }

    /// The word shown for the term whose key is `key`, when the profile
    /// holds it.
    pub fn word_of(&self, key_of: u64) -> Option<&str> {
        self.terms
            .iter()
            .find(|(t, _)| key(t) == key_of)
            .map(|(t, _)| self.word(t))
    }
}

impl Vector {
    /// The binary form: the format byte, the length (4 bytes, little
    /// endian), the number of sketch values then each (4 bytes), the
    /// number of terms then each term's key (8 bytes) and count (a
    /// LEB128 varint).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(7 + self.sketch.len() * 4 + self.terms.len() * 9);
        out.push(FORMAT);
        out.extend_from_slice(&self.len.to_le_bytes());
        out.push(self.sketch.len().min(255) as u8);
        for v in self.sketch.iter().take(255) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.push(self.terms.len().min(255) as u8);
        for (k, n) in self.terms.iter().take(255) {
            out.extend_from_slice(&k.to_le_bytes());
            let mut n = *n;
            loop {
                let byte = (n & 0x7f) as u8;
                n >>= 7;
                if n == 0 {
                    out.push(byte);
                    break;
                }
                out.push(byte | 0x80);
            }
        }
        out
    }

    /// Reads [`Vector::encode`]'s bytes.
    pub fn decode(bytes: &[u8]) -> Result<Vector, VectorError> {
        let mut r = Reader { bytes, at: 0 };
        if r.byte()? != FORMAT {
            return Err(r.err("an unknown format"));
        }
        let len = u32::from_le_bytes(r.array()?);
        let sketched = r.byte()? as usize;
        if sketched != 0 && sketched != SKETCH {
            return Err(r.err("the sketch has the wrong number of values"));
        }
        let mut sketch = Vec::with_capacity(sketched);
        for _ in 0..sketched {
            sketch.push(u32::from_le_bytes(r.array()?));
        }
        let count = r.byte()? as usize;
        let mut terms = Vec::with_capacity(count);
        for _ in 0..count {
            let k = u64::from_le_bytes(r.array()?);
            terms.push((k, r.varint()?));
        }
        if r.at != bytes.len() {
            return Err(r.err("bytes after the last term"));
        }
        if !terms.windows(2).all(|w| w[0].0 < w[1].0) {
            return Err(r.err("the terms are not sorted"));
        }
        Ok(Vector { len, sketch, terms })
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn err(&self, what: &'static str) -> VectorError {
        VectorError { at: self.at, what }
    }

    fn byte(&mut self) -> Result<u8, VectorError> {
        let b = *self.bytes.get(self.at).ok_or(self.err("it ends early"))?;
        self.at += 1;
        Ok(b)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], VectorError> {
        let part = self
            .bytes
            .get(self.at..self.at + N)
            .ok_or(self.err("it ends early"))?;
        self.at += N;
        let mut out = [0u8; N];
        out.copy_from_slice(part);
        Ok(out)
    }

    fn varint(&mut self) -> Result<u32, VectorError> {
        let mut n: u32 = 0;
        for shift in [0, 7, 14, 21, 28] {
            let b = self.byte()?;
            n |= u32::from(b & 0x7f)
                .checked_shl(shift)
                .ok_or(self.err("a count is too large"))?;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(self.err("a count is too long"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::related::profile;

    #[test]
    fn a_vector_reads_back_as_written() {
        let p = profile(
            "TypeError in torch.compile",
            "at foo.bar (x.js:1:2)\n修复内存 crackling crackles",
        );
        let v = p.vector();
        assert_eq!(v.terms.len(), p.terms.len());
        assert_eq!(Vector::decode(&v.encode()), Ok(v.clone()));
        let big = Vector {
            len: u32::MAX,
            sketch: Vec::new(),
            terms: vec![(1, 300), (u64::MAX, u32::MAX)],
        };
        assert_eq!(Vector::decode(&big.encode()), Ok(big));
        assert_eq!(p.word_of(key("crackl")), Some("crackling"));
        assert_eq!(p.word_of(key("nowhere")), None);
    }

    #[test]
    fn damaged_vectors_are_refused_not_panicked_on() {
        let good = profile("Crash in parser", "stack overflow in parser").vector();
        let bytes = good.encode();
        for cut in 0..bytes.len() {
            assert!(Vector::decode(&bytes[..cut]).is_err(), "{cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(Vector::decode(&extra).is_err());
        let mut format = bytes;
        format[0] = 9;
        assert!(Vector::decode(&format).is_err());
        assert!(Vector::decode(&[1, 0, 0, 0, 0, 3]).is_err());
        assert!(Vector::decode(&[1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xff]).is_err());
    }
}
