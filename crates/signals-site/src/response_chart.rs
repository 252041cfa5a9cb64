//! The repository page's chart of first responses: per week,
//! the median and the 90th percentile of the hours to a first response of
//! the issues and pull requests opened that week, drawn with the line
//! chart of `charts.rs` (in a file of its own, beside it).

use signals_core::trends::Trends;

use crate::charts::{Chart, Line, line_chart, num, slot_x, week_labels, week_table};

/// The chart, with its numbers and the share answered within two days.
pub(crate) fn response_chart(trends: &Trends) -> Chart {
    let weeks = &trends.weeks[..];
    let n = weeks.len();
    let first = weeks.first().map(|w| w.start.as_str()).unwrap_or("");
    let span = format!("the {n} weeks from {first}");
    let answered: Vec<f64> = weeks
        .iter()
        .filter_map(|w| w.first_response_median_hours)
        .collect();
    let desc = if answered.is_empty() {
        format!("No issue or pull request opened in {span} has had a first response.")
    } else {
        format!(
            "Points per week over {span}: the median and the 90th percentile of the hours from the creation of an issue or pull request opened that week to its first response by someone other than its author (bots and ignored accounts aside); the latest median is {} hours.",
            num(*answered.last().unwrap_or(&0.0))
        )
    };
    let points = |f: fn(&signals_core::trends::Week) -> Option<f64>| -> Vec<(f64, Option<f64>)> {
        weeks
            .iter()
            .enumerate()
            .map(|(i, w)| (slot_x(i, n), f(w)))
            .collect()
    };
    let title = "Time to a first response, in hours";
    Chart {
        id: "chart-response".into(),
        title: title.into(),
        desc: desc.clone(),
        note: Some(
            "Counted by the week the item was opened; an item still unanswered counts against the share answered within 2 days.".into(),
        ),
        svg: line_chart(
            "chart-response",
            title,
            &desc,
            &week_labels(weeks),
            &[
                Line {
                    name: "Median hours to a first response",
                    class: "s1",
                    points: points(|w| w.first_response_median_hours),
                },
                Line {
                    name: "90th percentile",
                    class: "s2",
                    points: points(|w| w.first_response_p90_hours),
                },
            ],
        ),
        table: week_table(
            weeks,
            &[
                "Opened",
                "Median hours",
                "90th percentile hours",
                "Answered within 2 days",
            ],
            |w| {
                let hours = |v: Option<f64>| v.map_or_else(|| "none".to_string(), num);
                vec![
                    (w.issues_opened + w.pulls_opened).to_string(),
                    hours(w.first_response_median_hours),
                    hours(w.first_response_p90_hours),
                    w.answered_within_2_days.map_or_else(
                        || "none opened".to_string(),
                        |s| format!("{}%", num((s * 1000.0).round() / 10.0)),
                    ),
                ]
            },
        ),
        legend: vec![("Median".into(), "s1"), ("90th percentile".into(), "s2")],
    }
}
