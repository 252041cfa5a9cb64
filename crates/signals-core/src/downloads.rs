//! Downloads of a repository's release assets, from the counts its runs
//! read: the increases between two sightings of one asset, the sum of them
//! over a span (trends' weekly `downloads`, the last 4 weeks).
//!
//! An asset is keyed by the host's id, so an asset replaced under the same
//! name is another one. An asset's first sighting adds nothing (its count
//! so far was downloaded before anyone watched), and neither does a count
//! that goes down (the host reset it): only what a run saw added since the
//! sighting before it counts, at that run's instant.

use jiff::{SignedDuration, Timestamp};

/// One stored count of one asset, at the run that read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssetSighting {
    /// The host's id of the asset.
    pub asset: String,
    /// The instant of the run.
    pub at: Timestamp,
    /// Its downloads so far, as the host counted them.
    pub count: u64,
}

/// Downloads seen added between two sightings of one asset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Increase {
    /// The instant of the later sighting.
    pub at: Timestamp,
    /// How many more downloads it counted (never 0).
    pub amount: u64,
}

/// How far back the verdict's downloads look: 4 weeks.
pub const LAST_4_WEEKS: SignedDuration = SignedDuration::from_hours(4 * 7 * 24);

/// The increases in `sightings` (any order): each sighting of an asset
/// against the one before it, in time; ordered by instant, then asset.
pub fn increases(sightings: &[AssetSighting]) -> Vec<Increase> {
    let mut sorted: Vec<&AssetSighting> = sightings.iter().collect();
    sorted.sort_by(|a, b| a.asset.cmp(&b.asset).then(a.at.cmp(&b.at)));
    let mut out: Vec<(Timestamp, &str, u64)> = sorted
        .windows(2)
        .filter(|w| w[0].asset == w[1].asset)
        .filter_map(|w| {
            let amount = w[1].count.checked_sub(w[0].count)?;
            (amount > 0).then_some((w[1].at, w[1].asset.as_str(), amount))
        })
        .collect();
    out.sort();
    out.into_iter()
        .map(|(at, _, amount)| Increase { at, amount })
        .collect()
}

/// The downloads seen added after `from` and at or before `to`. The
/// sightings must hold, for each asset, its last one at or before `from`
/// (what the store's read of a span gives), or the first increase in the
/// span is taken for a first sighting.
pub fn downloads_between(sightings: &[AssetSighting], from: Timestamp, to: Timestamp) -> u64 {
    increases(sightings)
        .iter()
        .filter(|i| i.at > from && i.at <= to)
        .fold(0u64, |sum, i| sum.saturating_add(i.amount))
}

/// The downloads of the [`LAST_4_WEEKS`] up to `now`, the verdict's
/// `downloads.last4Weeks`.
pub fn last_4_weeks(sightings: &[AssetSighting], now: Timestamp) -> u64 {
    let from = now.checked_sub(LAST_4_WEEKS).unwrap_or(Timestamp::MIN);
    downloads_between(sightings, from, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;
    const T0: i64 = 1_800_000_000;

    fn seen(asset: &str, day: i64, count: u64) -> AssetSighting {
        AssetSighting {
            asset: asset.to_string(),
            at: Timestamp::from_second(T0 + day * DAY).unwrap(),
            count,
        }
    }

    #[test]
    fn a_first_sighting_adds_nothing() {
        assert!(increases(&[seen("1", 0, 500)]).is_empty());
        assert_eq!(last_4_weeks(&[seen("1", 0, 500)], seen("1", 1, 0).at), 0);
    }

    #[test]
    fn increases_add_up_and_decreases_add_nothing() {
        let s = [
            seen("1", 0, 10),
            seen("1", 1, 15),
            seen("1", 2, 12),
            seen("1", 3, 20),
            seen("2", 2, 100),
            seen("2", 3, 101),
        ];
        let got = increases(&s);
        let amounts: Vec<u64> = got.iter().map(|i| i.amount).collect();
        // Day 1: +5; day 2: the reset to 12 adds nothing; day 3: +8 and +1.
        assert_eq!(amounts, vec![5, 8, 1]);
        assert_eq!(last_4_weeks(&s, seen("1", 3, 0).at), 14);
    }

    #[test]
    fn a_replaced_asset_is_a_new_one() {
        // Asset 1 is replaced by asset 3 under the same name: 3 starts at
        // 0 and its first sighting adds nothing, its next one adds 4.
        let s = [seen("1", 0, 50), seen("3", 1, 0), seen("3", 2, 4)];
        assert_eq!(last_4_weeks(&s, seen("3", 2, 0).at), 4);
    }

    #[test]
    fn only_the_last_4_weeks_count() {
        let s = [seen("1", 0, 0), seen("1", 1, 7), seen("1", 40, 10)];
        let now = seen("1", 40, 0).at;
        assert_eq!(last_4_weeks(&s, now), 3);
        // The window's start is open, its end closed.
        let from = seen("1", 1, 0).at;
        assert_eq!(downloads_between(&s, from, now), 3);
        assert_eq!(
            downloads_between(
                &s,
                from.checked_sub(SignedDuration::from_secs(1))
                    .unwrap_or(from),
                now
            ),
            10
        );
    }
}
