//! The repository page's chart of downloads: per week, the downloads of
//! its release assets seen added (`trends.json`'s `downloads`), drawn with
//! the bar chart of `charts.rs` (in a file of its own, beside it). A host
//! that counts no downloads (GitLab) shows zeros, and says so.

use signals_core::trends::Trends;

use crate::charts::{Bars, Chart, bar_chart, week_table};

/// The chart, with its numbers.
pub(crate) fn download_chart(trends: &Trends) -> Chart {
    let weeks = &trends.weeks[..];
    let first = weeks.first().map(|w| w.start.as_str()).unwrap_or("");
    let total: u64 = weeks.iter().map(|w| w.downloads).sum();
    let last4: u64 = weeks.iter().rev().take(4).map(|w| w.downloads).sum();
    let desc = format!(
        "Bars per week over the {} weeks from {first}: the downloads of the release assets counted between two runs ({total} in all, {last4} in the last 4 weeks).",
        weeks.len()
    );
    let title = "Downloads of release assets per week";
    Chart {
        id: "chart-downloads".into(),
        title: title.into(),
        desc: desc.clone(),
        note: Some(
            "Counted from the hosts' download counts as the runs read them: an asset's first sighting and a count that went down add nothing, and a host without download counts (GitLab) shows none.".into(),
        ),
        svg: bar_chart(
            "chart-downloads",
            title,
            &desc,
            weeks,
            &[Bars {
                name: "Downloads",
                class: "s1",
                values: weeks.iter().map(|w| w.downloads).collect(),
            }],
        ),
        table: week_table(weeks, &["Downloads"], |w| vec![w.downloads.to_string()]),
        legend: vec![("Downloads".into(), "s1")],
    }
}
