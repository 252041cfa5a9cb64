//! Trends of one repository: what its last 26 weeks looked like
//! (opened against closed, backlog, time to close, releases), how its
//! stars and forks grew, and which items are heating up now. The
//! `trends.json` document (`schemas/trends-v1.schema.json`) and the charts
//! on the pages are both made from [`Trends`].
//!
//! Pure, and built to be fed: [`WeekTally::add`] takes the latest snapshot
//! of one item at a time, so a caller streaming a repository of 100,000
//! items holds 26 weeks of counters and the close times of the closes in
//! those weeks, never the items. The context points and the rising items
//! come from the store by their own queries (the last run of each day; the
//! items with a snapshot in the last 7 days), so building trends never
//! reads a repository's whole history.
//!
//! Definitions (docs/decisions.md, "Trends"):
//! - Weeks start on Monday 00:00 UTC; the last one holds the instant (so
//!   it is the week so far). A time belongs to the week whose start is at
//!   or before it and whose end is after it.
//! - "Opened" counts items by creation time; "closed" and "merged" count
//!   items whose latest snapshot is closed (merged) with a close (merge)
//!   time in the week, so a reopened issue is not closed anywhere.
//! - A close time the store does not have (snapshots from before it kept
//!   them) is taken as the snapshot's last update, which is never earlier.
//! - "At end" counts are at the week's end, or at the instant for the last
//!   week; `None` when that is before `coverageStart`, since items closed
//!   before the store began watching are not all known.

use jiff::{SignedDuration, Timestamp, ToSpan};
use serde::Serialize;

use crate::dataset::{fmt_collected, fmt_seconds};
use crate::first_response::Answer;
use crate::lifecycle::contributors::{ContributorsSource, WeekContributors};
use crate::model::{ItemDetail, ItemSnapshot, ItemState};

/// The `schemaVersion` of `trends.json`.
pub const TRENDS_SCHEMA_VERSION: u32 = 1;

/// How many weeks a trends document covers.
pub const WEEKS: usize = 26;

/// How many rising items it lists.
pub const RISING: usize = 10;

/// How far back "rising" looks: growth over the last 7 days.
pub const RISING_WINDOW: SignedDuration = SignedDuration::from_hours(7 * 24);

const WEEK: SignedDuration = SignedDuration::from_hours(7 * 24);

/// The trends document of one repository.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Trends {
    /// Always [`TRENDS_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// `owner/name`.
    pub repository: String,
    /// The dataset's instant (its latest run), with milliseconds.
    pub instant: String,
    /// The earliest time from which the store has seen every item updated
    /// since: the first run's `since` (its backfill start).
    pub coverage_start: String,
    /// The last [`WEEKS`] weeks, oldest first.
    pub weeks: Vec<Week>,
    /// Stars, forks and open issues: the last run of each day, oldest
    /// first, over the weeks' span.
    pub context: Vec<ContextPoint>,
    /// The items whose reactions plus comments grew most over the last 7
    /// days, most first, ties by id.
    pub rising: Vec<Rising>,
}

/// One week's counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Week {
    /// Its Monday, `YYYY-MM-DD`.
    pub start: String,
    /// True when the week starts before `coverageStart`: items closed in it
    /// before the store began watching may be missing.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// Issues created in the week.
    pub issues_opened: u64,
    /// Issues whose latest snapshot is closed, closed in the week.
    pub issues_closed: u64,
    /// Pull requests created in the week.
    pub pulls_opened: u64,
    /// Pull requests merged in the week.
    pub pulls_merged: u64,
    /// Pull requests closed without a merge in the week.
    pub pulls_closed_unmerged: u64,
    /// Stable releases published in the week.
    pub releases: u64,
    /// Issues open at the week's end (the instant, for the last week).
    pub open_issues_at_end: Option<u64>,
    /// Pull requests open at the week's end.
    pub open_pulls_at_end: Option<u64>,
    /// The median, in hours, of the time from creation to close of the
    /// issues closed in the week; `None` when none was.
    pub median_hours_to_close: Option<f64>,
    /// The median hours to the first response of the issues and pull
    /// requests opened in the week that got one.
    pub first_response_median_hours: Option<f64>,
    /// Their 90th percentile (nearest rank).
    pub first_response_p90_hours: Option<f64>,
    /// The share of the issues and pull requests opened in the week
    /// whose first response is known that were answered within 48 hours;
    /// `None` when none such was opened.
    #[serde(rename = "answeredWithin2Days")]
    pub answered_within_2_days: Option<f64>,
    /// The issues and pull requests opened in the week whose first
    /// response is not known (`first_response::Answer::Unknown`): left
    /// out of the three figures above.
    pub first_response_unknown: u64,
    /// The downloads of the repository's release assets seen added in the
    /// week: the sum of the increases between two sightings of an asset
    /// (`crate::downloads`); 0 where the host counts none.
    pub downloads: u64,
    /// People whose first contribution to the repository (an issue, a
    /// pull request, a comment or a review; bots and `ignore_users` left
    /// out) falls in the week, told as `contributorsSource` says.
    pub new_contributors: u64,
    /// People who contributed in the week and in some week before.
    pub returning_contributors: u64,
    /// How new contributors are told: `history` (the store reaches back
    /// to the repository's creation) or `association` (GitHub's
    /// first-time associations of the week's pull requests).
    pub contributors_source: ContributorsSource,
}

/// The weeks' new and returning contributors, oldest first, and how the
/// new ones are told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contributors {
    /// One per week of the tally.
    pub weeks: Vec<WeekContributors>,
    /// History or association.
    pub source: ContributorsSource,
}

/// The repository's context at one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextPoint {
    /// The run's instant, with milliseconds.
    pub at: String,
    /// Stars.
    pub stars: u64,
    /// Forks.
    pub forks: u64,
    /// The host's open-issue count.
    pub open_issues: u64,
}

/// An item heating up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rising {
    /// The signal id.
    pub id: String,
    /// Its title now.
    pub title: String,
    /// Its page on the host.
    pub url: String,
    /// Reactions plus comments 7 days before the instant, or when first
    /// seen if later.
    pub from: u64,
    /// Reactions plus comments now.
    pub to: u64,
}

impl Rising {
    /// How much it grew.
    pub fn growth(&self) -> u64 {
        self.to.saturating_sub(self.from)
    }
}

/// What a week tally needs of an item's latest snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemFacts {
    /// Created.
    pub created_at: Timestamp,
    /// What kind, with its kind's own times.
    pub kind: FactKind,
}

/// The kind of an item, with the times trends count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactKind {
    /// An issue, closed when `Some`.
    Issue {
        /// When closed.
        closed: Option<Timestamp>,
    },
    /// A pull request.
    Pull {
        /// When closed without a merge.
        closed: Option<Timestamp>,
        /// When merged.
        merged: Option<Timestamp>,
    },
    /// A release.
    Release {
        /// A stable one (not a prerelease).
        stable: bool,
        /// When published.
        published: Timestamp,
    },
    /// A discussion or an advisory: not in the weekly tallies (trends-v1
    /// has no field for them).
    Discussion,
}

impl ItemFacts {
    /// The facts of an item's latest snapshot. A closed item's close time is
    /// the host's `closed_at`, else (snapshots stored before it was kept)
    /// its last update, which the close cannot be later than.
    pub fn of(s: &ItemSnapshot) -> ItemFacts {
        let closed = match s.state {
            ItemState::Open => None,
            ItemState::Closed => Some(s.closed_at.unwrap_or(s.updated_at)),
        };
        let kind = match s.detail {
            ItemDetail::Issue { .. } => FactKind::Issue { closed },
            ItemDetail::PullRequest {
                merged, merged_at, ..
            } => {
                if merged {
                    FactKind::Pull {
                        closed: None,
                        merged: merged_at.or(closed).or(Some(s.updated_at)),
                    }
                } else {
                    FactKind::Pull {
                        closed,
                        merged: None,
                    }
                }
            }
            ItemDetail::Release {
                prerelease,
                published_at,
            } => FactKind::Release {
                stable: !prerelease,
                published: published_at,
            },
            ItemDetail::Discussion { .. } | ItemDetail::Advisory { .. } => FactKind::Discussion,
        };
        ItemFacts {
            created_at: s.created_at,
            kind,
        }
    }
}

/// The Monday 00:00 UTC that starts the week holding `t`.
pub fn week_start(t: Timestamp) -> Timestamp {
    let date = t.to_zoned(jiff::tz::TimeZone::UTC).date();
    let back = i64::from(date.weekday().to_monday_zero_offset());
    let monday = date.checked_sub(back.days()).unwrap_or(date);
    monday
        .to_zoned(jiff::tz::TimeZone::UTC)
        .map(|z| z.timestamp())
        .unwrap_or(t)
}

/// Counts the weeks of one repository, one item at a time.
#[derive(Debug, Clone)]
pub struct WeekTally {
    /// The first week's Monday.
    first: Timestamp,
    instant: Timestamp,
    coverage_start: Timestamp,
    weeks: Vec<Counts>,
}

#[derive(Debug, Clone, Default)]
struct Counts {
    issues_opened: u64,
    issues_closed: u64,
    pulls_opened: u64,
    pulls_merged: u64,
    pulls_closed_unmerged: u64,
    releases: u64,
    open_issues_at_end: u64,
    open_pulls_at_end: u64,
    hours_to_close: Vec<f64>,
    /// Hours to the first response of the week's opened issues and pulls.
    response_hours: Vec<f64>,
    /// Those of them whose first response is not known.
    response_unknown: u64,
    /// Downloads seen added in the week.
    downloads: u64,
}

impl WeekTally {
    /// The [`WEEKS`] weeks ending with the one that holds `instant`.
    pub fn new(instant: Timestamp, coverage_start: Timestamp) -> WeekTally {
        let last = week_start(instant);
        let first = last.checked_sub(WEEK * (WEEKS as i32 - 1)).unwrap_or(last);
        WeekTally {
            first,
            instant,
            coverage_start,
            weeks: vec![Counts::default(); WEEKS],
        }
    }

    /// The week index of `t`, when it falls in a week of the tally, at or
    /// before the instant.
    fn week_of(&self, t: Timestamp) -> Option<usize> {
        if t < self.first || t > self.instant {
            return None;
        }
        let since = t.duration_since(self.first);
        usize::try_from(since.as_secs() / WEEK.as_secs())
            .ok()
            .filter(|w| *w < WEEKS)
    }

    /// The end of week `w`: the next Monday, or the instant for the last.
    fn end_of(&self, w: usize) -> Timestamp {
        if w + 1 == WEEKS {
            // Just after the instant, so what happened at it counts.
            return self.instant + SignedDuration::from_nanos(1);
        }
        self.first + WEEK * (w as i32 + 1)
    }

    /// Counts one item's latest snapshot.
    pub fn add(&mut self, item: &ItemFacts) {
        let opened = self.week_of(item.created_at);
        match item.kind {
            FactKind::Issue { closed } => {
                if let Some(w) = opened {
                    self.weeks[w].issues_opened += 1;
                }
                if let Some(c) = closed
                    && let Some(w) = self.week_of(c)
                {
                    self.weeks[w].issues_closed += 1;
                    let hours = c.duration_since(item.created_at).as_secs_f64() / 3600.0;
                    self.weeks[w].hours_to_close.push(hours.max(0.0));
                }
                self.open_between(item.created_at, closed, |c| &mut c.open_issues_at_end);
            }
            FactKind::Pull { closed, merged } => {
                if let Some(w) = opened {
                    self.weeks[w].pulls_opened += 1;
                }
                if let Some(m) = merged
                    && let Some(w) = self.week_of(m)
                {
                    self.weeks[w].pulls_merged += 1;
                }
                if let Some(c) = closed
                    && let Some(w) = self.week_of(c)
                {
                    self.weeks[w].pulls_closed_unmerged += 1;
                }
                self.open_between(item.created_at, closed.or(merged), |c| {
                    &mut c.open_pulls_at_end
                });
            }
            FactKind::Release { stable, published } => {
                if stable && let Some(w) = self.week_of(published) {
                    self.weeks[w].releases += 1;
                }
            }
            FactKind::Discussion => {}
        }
    }

    /// Counts downloads seen added at one run ([`crate::downloads::increases`]).
    pub fn add_downloads(&mut self, increase: &crate::downloads::Increase) {
        if let Some(w) = self.week_of(increase.at) {
            self.weeks[w].downloads = self.weeks[w].downloads.saturating_add(increase.amount);
        }
    }

    /// Counts the first response of an issue or pull request created at
    /// `created_at`: its hours, none yet, or not known.
    pub fn add_response(&mut self, created_at: Timestamp, answer: &Answer) {
        let Some(w) = self.week_of(created_at) else {
            return;
        };
        match answer {
            Answer::First(first) => self.weeks[w].response_hours.push(first.hours.max(0.0)),
            Answer::NotYet => {}
            Answer::Unknown => self.weeks[w].response_unknown += 1,
        }
    }

    /// Adds one to the "open at end" counter of every week whose end falls
    /// after `created` and at or before `closed`.
    fn open_between(
        &mut self,
        created: Timestamp,
        closed: Option<Timestamp>,
        counter: impl Fn(&mut Counts) -> &mut u64,
    ) {
        for w in 0..WEEKS {
            let end = self.end_of(w);
            if created < end && closed.is_none_or(|c| c >= end) {
                *counter(&mut self.weeks[w]) += 1;
            }
        }
    }

    /// The weeks, oldest first, with their `contributors`.
    pub fn finish(self, contributors: &Contributors) -> Vec<Week> {
        let ends: Vec<Timestamp> = (0..WEEKS).map(|w| self.end_of(w)).collect();
        let (first, coverage_start) = (self.first, self.coverage_start);
        self.weeks
            .into_iter()
            .enumerate()
            .map(|(w, c)| {
                let start = first + WEEK * w as i32;
                let known = ends[w] > coverage_start;
                Week {
                    start: start.to_zoned(jiff::tz::TimeZone::UTC).date().to_string(),
                    partial: start < coverage_start,
                    issues_opened: c.issues_opened,
                    issues_closed: c.issues_closed,
                    pulls_opened: c.pulls_opened,
                    pulls_merged: c.pulls_merged,
                    pulls_closed_unmerged: c.pulls_closed_unmerged,
                    releases: c.releases,
                    open_issues_at_end: known.then_some(c.open_issues_at_end),
                    open_pulls_at_end: known.then_some(c.open_pulls_at_end),
                    median_hours_to_close: median(c.hours_to_close),
                    first_response_median_hours: median(c.response_hours.clone()),
                    first_response_p90_hours: p90(c.response_hours.clone()),
                    answered_within_2_days: answered_share(
                        &c.response_hours,
                        (c.issues_opened + c.pulls_opened).saturating_sub(c.response_unknown),
                    ),
                    first_response_unknown: c.response_unknown,
                    new_contributors: contributors.weeks.get(w).map_or(0, |c| c.new),
                    returning_contributors: contributors.weeks.get(w).map_or(0, |c| c.returning),
                    contributors_source: contributors.source,
                    downloads: c.downloads,
                }
            })
            .collect()
    }
}

/// The median, rounded to a tenth of an hour.
fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let m = if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    };
    Some((m * 10.0).round() / 10.0)
}

/// The 90th percentile by nearest rank, rounded to a tenth of an hour.
fn p90(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = (values.len() * 9).div_ceil(10).max(1);
    Some((values[rank - 1] * 10.0).round() / 10.0)
}

/// The share of `opened` items answered within 48 hours, to a thousandth.
fn answered_share(hours: &[f64], opened: u64) -> Option<f64> {
    if opened == 0 {
        return None;
    }
    let within = hours.iter().filter(|h| **h <= 48.0).count() as f64;
    Some(((within / opened as f64).min(1.0) * 1000.0).round() / 1000.0)
}

/// The last point of each UTC day among `runs` (instant, stars, forks, open
/// issues), oldest first, from `since` on.
pub fn daily_context(
    runs: impl IntoIterator<Item = (Timestamp, u64, u64, u64)>,
    since: Timestamp,
) -> Vec<ContextPoint> {
    let mut runs: Vec<_> = runs.into_iter().filter(|r| r.0 >= since).collect();
    runs.sort_by_key(|r| r.0);
    let day = |t: Timestamp| t.to_zoned(jiff::tz::TimeZone::UTC).date();
    let mut out: Vec<(Timestamp, u64, u64, u64)> = Vec::new();
    for r in runs {
        match out.last_mut() {
            Some(last) if day(last.0) == day(r.0) => *last = r,
            _ => out.push(r),
        }
    }
    out.into_iter()
        .map(|(at, stars, forks, open_issues)| ContextPoint {
            at: fmt_collected(at),
            stars,
            forks,
            open_issues,
        })
        .collect()
}

/// The [`RISING`] items that grew most, most first, ties by id; items that
/// did not grow are left out.
pub fn rising(mut candidates: Vec<Rising>) -> Vec<Rising> {
    candidates.retain(|r| r.growth() > 0);
    candidates.sort_by(|a, b| b.growth().cmp(&a.growth()).then_with(|| a.id.cmp(&b.id)));
    candidates.truncate(RISING);
    candidates
}

impl Trends {
    /// Puts the parts together.
    pub fn new(
        repository: String,
        instant: Timestamp,
        coverage_start: Timestamp,
        weeks: Vec<Week>,
        context: Vec<ContextPoint>,
        rising: Vec<Rising>,
    ) -> Trends {
        Trends {
            schema_version: TRENDS_SCHEMA_VERSION,
            repository,
            instant: fmt_collected(instant),
            coverage_start: fmt_seconds(coverage_start),
            weeks,
            context,
            rising,
        }
    }
}

/// The trends of a repository from what the store gives: its latest
/// snapshots (`items`, streamed), the context of its runs since
/// [`first_week`] (`contexts`), and the growth of the items observed in the
/// [`RISING_WINDOW`] before the instant (`growth`).
pub fn build<'a>(
    repository: String,
    instant: Timestamp,
    coverage_start: Timestamp,
    items: impl IntoIterator<Item = &'a ItemSnapshot>,
    contributors: &Contributors,
    contexts: &[(Timestamp, crate::model::RepoContext)],
    growth: Vec<Rising>,
) -> Trends {
    let mut tally = WeekTally::new(instant, coverage_start);
    for item in items {
        tally.add(&ItemFacts::of(item));
    }
    build_from(repository, tally, contributors, contexts, growth)
}

/// [`build`] from a tally already fed with every item (an export that
/// reads the items a batch at a time feeds it as they come); its instant
/// and coverage are the tally's.
pub fn build_from(
    repository: String,
    tally: WeekTally,
    contributors: &Contributors,
    contexts: &[(Timestamp, crate::model::RepoContext)],
    growth: Vec<Rising>,
) -> Trends {
    let (instant, coverage_start) = (tally.instant, tally.coverage_start);
    let context = daily_context(
        contexts
            .iter()
            .map(|(at, c)| (*at, c.stars, c.forks, c.open_issues)),
        first_week(instant),
    );
    Trends::new(
        repository,
        instant,
        coverage_start,
        tally.finish(contributors),
        context,
        rising(growth),
    )
}

/// The start of the first week a tally over `instant` covers: context
/// points and rising are read from there and from 7 days before the
/// instant.
pub fn first_week(instant: Timestamp) -> Timestamp {
    let last = week_start(instant);
    last.checked_sub(WEEK * (WEEKS as i32 - 1)).unwrap_or(last)
}

/// A span of hours as a reader takes it in: hours up to two
/// days (`36 h`), then days up to two weeks (`3.5 days`), then weeks
/// (`210.6 weeks`), to one decimal, without a trailing `.0`. The median
/// time to close is kept in hours in `trends.json`; only its text changes.
pub fn hours_text(hours: f64) -> String {
    fn one_decimal(v: f64) -> String {
        let v = (v * 10.0).round() / 10.0;
        if v.fract() == 0.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        }
    }
    let hours = if hours.is_finite() {
        hours.max(0.0)
    } else {
        0.0
    };
    if hours < 48.0 {
        format!("{} h", one_decimal(hours))
    } else if hours < 14.0 * 24.0 {
        format!("{} days", one_decimal(hours / 24.0))
    } else {
        format!("{} weeks", one_decimal(hours / (7.0 * 24.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::Weekday;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn issue_30_long_durations_read_as_days_or_weeks() {
        assert_eq!(hours_text(0.0), "0 h");
        assert_eq!(hours_text(5.25), "5.3 h");
        assert_eq!(hours_text(47.9), "47.9 h");
        assert_eq!(hours_text(48.0), "2 days");
        assert_eq!(hours_text(84.0), "3.5 days");
        assert_eq!(hours_text(14.0 * 24.0), "2 weeks");
        assert_eq!(hours_text(35375.8), "210.6 weeks");
        assert_eq!(hours_text(f64::NAN), "0 h");
        assert_eq!(hours_text(-3.0), "0 h");
    }

    #[test]
    fn weeks_start_on_monday_midnight_utc() {
        // 2026-11-24 is a Tuesday.
        assert_eq!(
            week_start(ts("2026-11-24T15:00:00Z")),
            ts("2026-11-23T00:00:00Z")
        );
        assert_eq!(
            week_start(ts("2026-11-23T00:00:00Z")),
            ts("2026-11-23T00:00:00Z")
        );
        assert_eq!(
            week_start(ts("2026-11-22T23:59:59Z")),
            ts("2026-11-16T00:00:00Z")
        );
        assert_eq!(
            week_start(ts("2026-11-22T23:59:59Z"))
                .to_zoned(jiff::tz::TimeZone::UTC)
                .weekday(),
            Weekday::Monday
        );
    }

    #[test]
    fn the_median_takes_the_middle_or_the_mean_of_the_two_middles() {
        assert_eq!(median(vec![]), None);
        assert_eq!(median(vec![5.0, 1.0, 3.0]), Some(3.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 10.0]), Some(3.0));
        assert_eq!(median(vec![1.0 / 3.0]), Some(0.3));
    }

    #[test]
    fn daily_context_keeps_the_last_run_of_each_day() {
        let points = daily_context(
            [
                (ts("2026-11-20T23:00:00Z"), 3, 1, 9),
                (ts("2026-11-20T01:00:00Z"), 1, 1, 9),
                (ts("2026-11-21T00:00:00Z"), 5, 2, 8),
                (ts("2026-01-01T00:00:00Z"), 0, 0, 0),
            ],
            ts("2026-11-01T00:00:00Z"),
        );
        assert_eq!(points.len(), 2);
        assert_eq!(points[0].stars, 3);
        assert_eq!(points[0].at, "2026-11-20T23:00:00.000Z");
        assert_eq!(points[1].stars, 5);
    }

    #[test]
    fn rising_ranks_by_growth_then_id_and_drops_the_still() {
        let r = |id: &str, from, to| Rising {
            id: id.into(),
            title: String::new(),
            url: String::new(),
            from,
            to,
        };
        let out = rising(vec![
            r("b", 1, 5),
            r("a", 0, 4),
            r("c", 3, 3),
            r("d", 9, 2),
            r("e", 0, 9),
        ]);
        let ids: Vec<&str> = out.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(ids, ["e", "a", "b"]);
        let many = (0..30)
            .map(|i| r(&format!("{i:02}"), 0, 1 + i % 3))
            .collect();
        assert_eq!(rising(many).len(), RISING);
    }

    #[test]
    fn first_responses_give_median_p90_and_share_answered_in_two_days() {
        let instant = ts("2026-11-25T12:00:00Z");
        let mut tally = WeekTally::new(instant, ts("2026-01-01T00:00:00Z"));
        let monday = ts("2026-11-23T01:00:00Z");
        let answered = |hours: f64| {
            Answer::First(crate::first_response::FirstResponse {
                at: monday,
                by: "maint".into(),
                hours,
            })
        };
        let answers = [
            answered(1.0),
            answered(3.0),
            answered(100.0),
            Answer::NotYet,
            Answer::Unknown,
        ];
        for answer in &answers {
            tally.add(&ItemFacts {
                created_at: monday,
                kind: FactKind::Issue { closed: None },
            });
            tally.add_response(monday, answer);
        }
        let contributors = Contributors {
            weeks: vec![],
            source: ContributorsSource::History,
        };
        let weeks = tally.finish(&contributors);
        let last = weeks.last().unwrap();
        assert_eq!(last.first_response_median_hours, Some(3.0));
        assert_eq!(last.first_response_p90_hours, Some(100.0));
        // Of the four whose first response is known, two within 48 hours.
        assert_eq!(last.answered_within_2_days, Some(0.5));
        assert_eq!(last.first_response_unknown, 1);
        let before = &weeks[weeks.len() - 2];
        assert_eq!(before.first_response_median_hours, None);
        assert_eq!(before.answered_within_2_days, None);
    }
}
