//! Generated items with a vocabulary: words drawn by Zipf's
//! law from `wa`, `wb`, ... and texts of varied length, so a word index
//! has common and rare words, as real text has. Shared by the site search
//! tests and `benches/site_search.rs`.

#![allow(dead_code)] // each user takes what it needs

use jiff::Timestamp;
use signals_core::ItemSnapshot;

/// A word of the generated vocabulary: `w` then `n` in base 26.
pub fn word(mut n: usize) -> String {
    let mut out = String::from("w");
    loop {
        out.push((b'a' + (n % 26) as u8) as char);
        n /= 26;
        if n == 0 {
            return out;
        }
    }
}

/// Item `k` with text drawn from a vocabulary of `vocab` words, word `i`
/// about `1/(i+1)` as often as the first (Zipf), deterministic.
pub fn wordy(k: usize, vocab: usize, at: Timestamp) -> ItemSnapshot {
    let mut i = super::synth::item(0, k, 16, at);
    let mut state = (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let h = (vocab as f64).ln();
    let pick = |next: &mut dyn FnMut() -> u64| {
        let u = (next() % 1_000_000) as f64 / 1_000_000.0;
        word(((u * h).exp() as usize).saturating_sub(1).min(vocab - 1))
    };
    // Lengths vary as real ones do: titles of 3 to 12 words, bodies of 10
    // to 200.
    let (t, b) = (3 + next() % 10, 10 + next() % 191);
    let title: Vec<String> = (0..t).map(|_| pick(&mut next)).collect();
    let body: Vec<String> = (0..b).map(|_| pick(&mut next)).collect();
    i.title = title.join(" ");
    i.text = body.join(" ");
    i
}

/// Item `k` of repository `n` (`o/r<n>`), its text drawn as [`wordy`]'s,
/// different in each repository.
pub fn wordy_in(n: usize, k: usize, vocab: usize, at: Timestamp) -> ItemSnapshot {
    let mut i = wordy(n * 100_000 + k, vocab, at);
    let repo = signals_core::RepoName::parse(&format!("o/r{n}")).expect("a repository name");
    i.url = format!("https://github.com/{repo}/issues/{k}");
    i.repo = repo;
    i.key = k.to_string();
    i
}
