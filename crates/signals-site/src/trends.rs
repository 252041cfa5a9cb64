//! A repository's trends as the site shows them: `trends.json`, and (in
//! `charts.rs`) the SVG charts of its page, its group's small multiples and
//! the index's sparklines. The numbers come in ready-made from
//! `signals_core::trends`; this module only writes and draws them.

use serde::{Deserialize, Serialize};
use signals_core::trends::{Trends, hours_text};

use crate::charts::{self, Chart, Spark, repo_charts};
use crate::error::SiteError;
use crate::paths::history_file;
use crate::text::http_url;
use crate::views::GlanceView;

/// The trends document's file name, beside `dataset.json`.
pub const TRENDS_FILE: &str = "trends.json";

/// `trends.json` of the repository `what` names (in errors),
/// pretty-printed as `dataset.json` is.
pub(crate) fn trends_json(trends: &Trends, what: &str) -> Result<String, SiteError> {
    let mut json = serde_json::to_string_pretty(trends).map_err(|source| SiteError::Json {
        repository: what.to_string(),
        source,
    })?;
    json.push('\n');
    Ok(json)
}

/// The trends section of a repository's first page.
#[derive(Debug, Serialize)]
pub(crate) struct TrendsView {
    pub charts: Vec<Chart>,
    pub rising: Vec<RisingView>,
    /// `2026-05-25 to 2026-11-24`.
    pub span: String,
}

/// An item of "Rising this week".
#[derive(Debug, Serialize)]
pub(crate) struct RisingView {
    pub title: String,
    /// Only an http(s) URL becomes a link.
    pub url: Option<String>,
    pub history: String,
    pub from: u64,
    pub to: u64,
    pub growth: u64,
    /// The repository's name, on a group page.
    pub repo: Option<String>,
}

impl TrendsView {
    pub(crate) fn of(trends: &Trends) -> TrendsView {
        let first = trends.weeks.first().map(|w| w.start.as_str()).unwrap_or("");
        TrendsView {
            charts: {
                let mut charts = repo_charts(trends);
                // After the time to close, before stars and forks.
                let at = charts.len().saturating_sub(1);
                charts.insert(at, crate::response_chart::response_chart(trends));
                charts.insert(
                    at + 1,
                    crate::contributors_chart::contributors_chart(trends),
                );
                charts.push(crate::download_chart::download_chart(trends));
                charts
            },
            rising: rising_views(trends, ""),
            span: format!(
                "{first} to {}",
                trends.instant.get(..10).unwrap_or(&trends.instant)
            ),
        }
    }
}

/// The rising items, their history pages under `prefix`.
pub(crate) fn rising_views(trends: &Trends, prefix: &str) -> Vec<RisingView> {
    trends
        .rising
        .iter()
        .map(|r| RisingView {
            title: r.title.clone(),
            url: http_url(&r.url).map(str::to_string),
            history: format!("{prefix}history/{}", history_file(&r.id)),
            from: r.from,
            to: r.to,
            growth: r.growth(),
            repo: None,
        })
        .collect()
}

/// How many weeks a group's small multiples and the index's sparklines
/// show.
pub const SMALL_WEEKS: usize = 12;

/// What a group page and the index draw of one repository's trends: its
/// last [`SMALL_WEEKS`] weeks, kept in `digest.json` and the publish
/// manifest (small: three short series).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrendRow {
    /// Each week's `YYYY-MM-DD` start.
    pub weeks: Vec<String>,
    /// Items opened plus items closed or merged (issues and pull
    /// requests), per week: its activity.
    pub activity: Vec<u64>,
    /// Stars at each week's last run (`None`: no run that week).
    pub stars: Vec<Option<u64>>,
    /// Open issues at each week's end (`None`: before coverage).
    pub backlog: Vec<Option<u64>>,
    /// Its verdict's state and dependency, once a run judged it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<crate::verdict::LifecycleCell>,
}

impl TrendRow {
    /// The last [`SMALL_WEEKS`] weeks of `trends`.
    pub fn of(trends: &Trends) -> TrendRow {
        let skip = trends.weeks.len().saturating_sub(SMALL_WEEKS);
        let weeks = &trends.weeks[skip..];
        let mut ends: Vec<&str> = weeks.iter().skip(1).map(|w| w.start.as_str()).collect();
        ends.push("9999-12-31");
        TrendRow {
            weeks: weeks.iter().map(|w| w.start.clone()).collect(),
            activity: weeks
                .iter()
                .map(|w| {
                    w.issues_opened
                        + w.issues_closed
                        + w.pulls_opened
                        + w.pulls_merged
                        + w.pulls_closed_unmerged
                })
                .collect(),
            // Points are in time order and their `at` starts with the
            // date, which compares as text.
            stars: weeks
                .iter()
                .zip(&ends)
                .map(|(w, end)| {
                    trends
                        .context
                        .iter()
                        .rfind(|p| p.at.as_str() >= w.start.as_str() && p.at.as_str() < *end)
                        .map(|p| p.stars)
                })
                .collect(),
            backlog: weeks.iter().map(|w| w.open_issues_at_end).collect(),
            lifecycle: None,
        }
    }

    /// Stars gained since the first week with a run, per week.
    pub fn star_growth(&self) -> Vec<Option<u64>> {
        let base = self.stars.iter().flatten().next().copied();
        self.stars
            .iter()
            .map(|s| s.zip(base).map(|(s, b)| s.saturating_sub(b)))
            .collect()
    }
}

/// Weeks of a repository's recent activity, the measure that ranks the
/// repositories of the index and of a group page.
pub const RECENT_WEEKS: usize = 4;

/// A repository's recent activity: items opened plus items closed or
/// merged over its last [`RECENT_WEEKS`] weeks (the current week
/// included), from the same row as its sparkline.
pub(crate) fn recent_activity(row: &TrendRow) -> u64 {
    let skip = row.activity.len().saturating_sub(RECENT_WEEKS);
    row.activity[skip..].iter().sum()
}

/// What the ranked tables and lists order a repository by.
pub(crate) struct Activity<'a> {
    /// Its [`recent_activity`].
    pub(crate) recent: u64,
    pub(crate) name: &'a str,
    pub(crate) id: &'a str,
}

/// The order of the ranked tables and lists: the most recent activity
/// first, then by name, then by id, so the order is total and stable.
pub(crate) fn by_activity(a: Activity<'_>, b: Activity<'_>) -> std::cmp::Ordering {
    b.recent
        .cmp(&a.recent)
        .then_with(|| a.name.cmp(b.name))
        .then_with(|| a.id.cmp(b.id))
}

/// Values as a sparkline's label lists them.
pub(crate) fn listed(values: impl Iterator<Item = Option<u64>>) -> String {
    values
        .map(|v| v.map_or_else(|| "unknown".to_string(), |v| v.to_string()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The index's sparkline of a repository: its activity per week, on its
/// own scale.
pub(crate) fn index_sparkline(row: &TrendRow) -> String {
    let top = row.activity.iter().copied().max().unwrap_or(0) as f64;
    let label = format!(
        "Activity per week, the last {} weeks (items opened plus closed or merged): {}",
        row.activity.len(),
        listed(row.activity.iter().copied().map(Some))
    );
    let values: Vec<Option<f64>> = row.activity.iter().map(|v| Some(*v as f64)).collect();
    charts::sparkline(&label, &values, charts::nice_max(top), Spark::Bars)
}

/// The measures beside a repository's facts at the top of its page: whether it speeds up, its
/// backlog grows, how fast it closes issues, and its stars, each over the
/// last [`SMALL_WEEKS`] weeks; the full charts are further down.
pub(crate) fn glance(trends: &Trends) -> Vec<GlanceView> {
    let row = TrendRow::of(trends);
    let skip = trends.weeks.len().saturating_sub(SMALL_WEEKS);
    let close: Vec<Option<f64>> = trends.weeks[skip..]
        .iter()
        .map(|w| w.median_hours_to_close)
        .collect();
    let spark = |label: &str, values: &[Option<f64>], shape: Spark| {
        let top = values.iter().flatten().fold(0.0, |a: f64, b| a.max(*b));
        let text = values
            .iter()
            .map(|v| v.map_or_else(|| "unknown".to_string(), charts::num))
            .collect::<Vec<_>>()
            .join(", ");
        charts::sparkline(
            &format!(
                "{label}, per week over the last {} weeks: {text}",
                values.len()
            ),
            values,
            charts::nice_max(top),
            shape,
        )
    };
    let as_f = |v: &[Option<u64>]| v.iter().map(|v| v.map(|v| v as f64)).collect::<Vec<_>>();
    let activity = as_f(&row.activity.iter().copied().map(Some).collect::<Vec<_>>());
    let backlog = as_f(&row.backlog);
    let last = |v: &[Option<f64>]| v.iter().rev().flatten().next().copied();
    vec![
        GlanceView {
            label: "Activity",
            value: charts::num(last(&activity).unwrap_or(0.0)),
            svg: spark("Items opened plus closed or merged", &activity, Spark::Bars),
        },
        GlanceView {
            label: "Backlog",
            value: last(&backlog).map_or_else(|| "unknown".into(), charts::num),
            svg: spark("Open issues at the week's end", &backlog, Spark::Line),
        },
        GlanceView {
            label: "To close",
            value: last(&close).map_or_else(|| "none".into(), hours_text),
            svg: spark("Median hours to close an issue", &close, Spark::Line),
        },
    ]
}

#[cfg(test)]
mod tests {
    use signals_core::trends::{Trends, Week};

    /// A long time to close reads in weeks, never as "To close 35375.8 h".
    #[test]
    fn issue_30_the_glance_shows_a_long_time_to_close_in_weeks() {
        let week = |start: &str, median: Option<f64>| Week {
            start: start.into(),
            partial: false,
            issues_opened: 1,
            issues_closed: u64::from(median.is_some()),
            pulls_opened: 0,
            pulls_merged: 0,
            pulls_closed_unmerged: 0,
            releases: 0,
            open_issues_at_end: Some(3),
            open_pulls_at_end: Some(0),
            median_hours_to_close: median,
            first_response_median_hours: None,
            first_response_p90_hours: None,
            answered_within_2_days: None,
            first_response_unknown: 0,
            new_contributors: 0,
            returning_contributors: 0,
            contributors_source: signals_core::lifecycle::contributors::ContributorsSource::History,
            downloads: 0,
        };
        let trends = Trends {
            schema_version: signals_core::trends::TRENDS_SCHEMA_VERSION,
            repository: "o/n".into(),
            instant: "2021-11-02T00:00:00.000Z".into(),
            coverage_start: "2011-11-02T00:00:00.000Z".into(),
            weeks: vec![
                week("2021-10-18", Some(30.0)),
                week("2021-10-25", Some(35375.8)),
            ],
            context: Vec::new(),
            rising: Vec::new(),
        };
        let glance = super::glance(&trends);
        let close = glance.iter().find(|g| g.label == "To close").unwrap();
        assert_eq!(close.value, "210.6 weeks");
    }
}
