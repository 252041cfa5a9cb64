//! Where a repository's signals and trail come from, a page at a time:
//! the one seam between the site's recipe (`pages::render_repo_files`) and
//! what feeds it. `signals export` implements [`RepoSource`] over the
//! store (a compact ranking, each page's items read by id); `whole.rs`
//! over a whole repository in memory.

use std::ops::Range;

use jiff::Timestamp;
use signals_core::TrailEvent;
use signals_core::dataset::SignalDoc;
use signals_core::importance::Score;

use crate::error::SiteError;
use crate::filter::Shown;
use crate::trail::TrailItem;

/// A signal at its place in page order.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// The signal.
    pub signal: SignalDoc,
    /// Its importance at the dataset's instant.
    pub score: Score,
    /// First seen in the latest run.
    pub new: bool,
    /// Its place by importance, 1-based; ties share the place of the first
    /// of them (competition ranking).
    pub place: usize,
}

impl Ranked {
    /// The signal as its filter entry shows it.
    pub fn shown(&self) -> Shown<'_> {
        Shown {
            signal: &self.signal,
            score: &self.score,
            new: self.new,
        }
    }
}

/// Where a repository's signals and trail come from, a page at a time.
/// Positions are in page order: signals by importance, then `updatedAt`
/// (newest first), then id; the trail as `trail.rs` orders it
/// ([`trail_key_parts`](crate::trail_key_parts)). The trail here is the
/// items' events alone: the recipe places the lifecycle's changes
/// ([`RepoHead::lifecycle`](crate::RepoHead)) among them.
pub trait RepoSource {
    /// The signals at positions `range`.
    fn ranked(&mut self, range: Range<usize>) -> Result<Vec<Ranked>, SiteError>;
    /// The trail's items' events at positions `range`.
    fn trail(&mut self, range: Range<usize>) -> Result<Vec<TrailItem>, SiteError>;
    /// How many of the trail's items' events are of runs at or before
    /// `at`: where a change judged after the run at `at` falls.
    fn events_through(&mut self, at: Timestamp) -> usize;
    /// The events of the latest run (those at the dataset's instant) in
    /// trail order: the first `limit` of them, and how many there are.
    fn latest_run(&mut self, limit: usize) -> Result<(Vec<TrailEvent>, usize), SiteError>;
    /// The [`crate::FEED_ENTRIES`] most recently updated signals, newest
    /// first (ties by id), each with its importance.
    fn newest(&mut self) -> Result<Vec<(SignalDoc, u32)>, SiteError>;
    /// The first `limit` signals waiting for a reply, in page
    /// order. Default: none (a source that knows no comments).
    fn waiting(&mut self, limit: usize) -> Result<Vec<Ranked>, SiteError> {
        let _ = limit;
        Ok(Vec::new())
    }
    /// The first `limit` open security advisories (published, not
    /// withdrawn), in page order. Default: none.
    fn advisories(&mut self, limit: usize) -> Result<Vec<Ranked>, SiteError> {
        let _ = limit;
        Ok(Vec::new())
    }
}
