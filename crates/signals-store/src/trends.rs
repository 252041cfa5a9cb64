//! What trends read from the store beyond the latest snapshots:
//! the role ([`TrendReads`]) and the row decoding both backends share.

use std::path::Path;

use jiff::Timestamp;
use signals_core::RepoContext;
use signals_core::downloads::AssetSighting;
use signals_core::trends::Rising;

use crate::codec::{from_json, ts_parse, uint};
use crate::snapshots::{TitleUrl, head_title_url};
use crate::{RepoKey, Result};

/// A run's instant and context as stored: (collected_at, context JSON).
pub type ContextRow = (String, String);

/// A rising candidate as stored: (item id, head JSON, metrics then, now).
pub type GrowthRow = (String, String, i64, i64);

/// Decodes [`ContextRow`]s.
pub fn contexts_from(path: &Path, rows: Vec<ContextRow>) -> Result<Vec<(Timestamp, RepoContext)>> {
    rows.into_iter()
        .map(|(at, context)| {
            Ok((
                ts_parse(path, "runs.collected_at", &at)?,
                from_json(path, "runs.context", &context)?,
            ))
        })
        .collect()
}

/// Decodes [`GrowthRow`]s.
pub fn growth_from(path: &Path, rows: Vec<GrowthRow>) -> Result<Vec<Rising>> {
    rows.into_iter()
        .map(|(id, head, from, to)| {
            let TitleUrl { title, url } = head_title_url(path, &head)?;
            Ok(Rising {
                id,
                title,
                url,
                from: uint(path, "snapshots.reactions + comments", from)?,
                to: uint(path, "snapshots.reactions + comments", to)?,
            })
        })
        .collect()
}

/// The two reads trends add, each by one indexed query whose
/// cost follows what it returns, not the repository's size.
pub trait TrendReads {
    /// The instant and context of each run of `repo` since `since`, oldest
    /// first (trends' stars and forks; bounded by the weeks a trends
    /// document covers).
    fn run_contexts(
        &self,
        repo: RepoKey,
        since: Timestamp,
    ) -> Result<Vec<(Timestamp, RepoContext)>>;

    /// The items of `repo` observed in a run after `from` that grew, with
    /// their reactions plus comments then (or when first seen) and now:
    /// the candidates of trends' "rising". Only those that grew: the others
    /// cannot rise, and a repository whose items were all seen this week
    /// (a first collection) would otherwise hand them all over.
    fn growth_since(&self, repo: RepoKey, from: Timestamp) -> Result<Vec<Rising>>;

    /// The download counts of `repo`'s release assets stored by its runs
    /// at or after `from`, and each asset's last one before `from` (what
    /// the first increase in the span is counted from), each with the
    /// instant of its run, by asset then run: the sightings
    /// `signals_core::downloads` sums (trends' weekly `downloads`, the
    /// verdict's last 4 weeks). Counts are stored only when they move,
    /// so this reads what moved in the span, and one row per asset more.
    fn asset_sightings(&self, repo: RepoKey, from: Timestamp) -> Result<Vec<AssetSighting>>;
}

/// A stored download count: (asset, the run's collected_at, count).
pub type SightingRow = (String, String, i64);

/// Decodes [`SightingRow`]s.
pub fn sightings_from(path: &Path, rows: Vec<SightingRow>) -> Result<Vec<AssetSighting>> {
    rows.into_iter()
        .map(|(asset, at, count)| {
            Ok(AssetSighting {
                asset,
                at: ts_parse(path, "runs.collected_at", &at)?,
                count: uint(path, "asset_downloads.count", count)?,
            })
        })
        .collect()
}
