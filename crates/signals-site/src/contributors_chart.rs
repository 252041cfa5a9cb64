//! The repository page's chart of contributors: per week, the people
//! whose first contribution falls in it and those who came back, drawn
//! with the bar chart of `charts.rs` (in a file of its own, beside it).

use signals_core::lifecycle::contributors::ContributorsSource;
use signals_core::trends::Trends;

use crate::charts::{Bars, Chart, bar_chart, week_table};

/// The chart, with how new contributors were told.
pub(crate) fn contributors_chart(trends: &Trends) -> Chart {
    let weeks = &trends.weeks[..];
    let first = weeks.first().map(|w| w.start.as_str()).unwrap_or("");
    let new: u64 = weeks.iter().map(|w| w.new_contributors).sum();
    let back: u64 = weeks.iter().map(|w| w.returning_contributors).sum();
    let desc = format!(
        "Bars per week over the {} weeks from {first}: people whose first contribution (an issue, a pull request, a comment or a review; bots and ignored accounts aside) fell in the week ({new} in all), against people who contributed in the week and in an earlier one ({back} counted week by week).",
        weeks.len()
    );
    let association = weeks
        .iter()
        .any(|w| w.contributors_source == ContributorsSource::Association);
    let title = "New and returning contributors per week";
    Chart {
        id: "chart-contributors".into(),
        title: title.into(),
        desc: desc.clone(),
        note: association.then(|| {
            "The store does not reach back to the repository's creation: new contributors are the authors of pull requests the host calls first-time contributors.".to_string()
        }),
        svg: bar_chart(
            "chart-contributors",
            title,
            &desc,
            weeks,
            &[
                Bars {
                    name: "New",
                    class: "s1",
                    values: weeks.iter().map(|w| w.new_contributors).collect(),
                },
                Bars {
                    name: "Returning",
                    class: "s2",
                    values: weeks.iter().map(|w| w.returning_contributors).collect(),
                },
            ],
        ),
        table: week_table(weeks, &["New", "Returning"], |w| {
            vec![
                w.new_contributors.to_string(),
                w.returning_contributors.to_string(),
            ]
        }),
        legend: vec![("New".into(), "s1"), ("Returning".into(), "s2")],
    }
}
