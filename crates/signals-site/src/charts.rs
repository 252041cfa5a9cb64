//! Charts as SVG, drawn at export: no chart library and no
//! script in the browser, so the pages keep working without JavaScript and
//! under the site's CSP (`style-src 'self'`: the SVG carries classes, never
//! inline styles; its colours are the stylesheet's, light and dark).
//!
//! Every chart has a `<title>` and a `<desc>` (what it shows, in words),
//! labelled axes with dates, and comes with its numbers as a table
//! ([`Chart::table`]) that the page puts in a `<details>` a screen reader
//! can reach. A partial week (one that starts before the store began
//! watching) is drawn as an outline, not a filled bar, and the chart's
//! note says why.
//!
//! Pure: values in, text out. Every text that comes from data (titles of
//! items, repository names) goes through [`esc`].

use std::fmt::Write;

use jiff::Timestamp;
use serde::Serialize;
use signals_core::trends::{Trends, Week, hours_text};

use crate::text::escape_markup;

/// The drawing's size in SVG units; the page scales it to its width.
const W: f64 = 640.0;
const H: f64 = 200.0;
/// Margins: left for the value axis, bottom for the date axis. The left
/// one holds the longest value label ([`axis_num`]: four characters, such
/// as `500k`) at the phone's tick size (24 units, style.css), so no label
/// is clipped at any width.
const LEFT: f64 = 68.0;
/// How far from the right edge a date label's centre must be to be
/// centred under its point; nearer, it ends at the edge instead, so its
/// end is never clipped.
const RIGHT_LABEL: f64 = 48.0;
const RIGHT: f64 = 8.0;
/// Room above the top grid line for its label, whose baseline is 4 units
/// under the line: at the phone's tick size (24 units) the label rises
/// about 22 units above its baseline, and stays inside the chart.
const TOP: f64 = 22.0;
const BOTTOM: f64 = 28.0;

/// A chart and its numbers.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Chart {
    /// Unique on its page: the ids of its title and description derive
    /// from it.
    pub id: String,
    /// The heading above it (and its SVG `<title>`).
    pub title: String,
    /// What it shows, in a sentence (its SVG `<desc>`).
    pub desc: String,
    /// Said under it: how to read it, partial weeks.
    pub note: Option<String>,
    /// The drawing, escaped.
    pub svg: String,
    /// Its numbers.
    pub table: Table,
    /// Its series, with their colour class, for the legend.
    pub legend: Vec<(String, &'static str)>,
}

/// A chart's numbers as rows.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Escapes text for SVG (XML) content and attributes.
pub(crate) fn esc(text: &str) -> String {
    escape_markup(text)
}

/// The smallest of 1, 2, 5 × 10^k at least `v` (at least 1): the top of a
/// value axis.
pub(crate) fn nice_max(v: f64) -> f64 {
    if v <= 1.0 {
        return 1.0;
    }
    let mut step = 1.0;
    loop {
        for m in [1.0, 2.0, 5.0] {
            if m * step >= v {
                return m * step;
            }
        }
        step *= 10.0;
    }
}

/// A number as an axis or table shows it: whole numbers without a
/// fraction, others to a tenth.
pub(crate) fn num(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// A value axis's label: [`num`] below 1,000, else in thousands (`50k`)
/// or millions (`2M`), so that the top of any axis ([`nice_max`]: 1, 2 or
/// 5 × 10^k) takes at most four characters.
pub(crate) fn axis_num(v: f64) -> String {
    if v >= 1_000_000.0 {
        format!("{}M", num(v / 1_000_000.0))
    } else if v >= 1_000.0 {
        format!("{}k", num(v / 1_000.0))
    } else {
        num(v)
    }
}

/// `Jun 1`, the label of a week or a day on a date axis.
fn short_date(date: &str) -> String {
    let Ok(d) = date.parse::<jiff::civil::Date>() else {
        return date.to_string();
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!("{} {}", MONTHS[(d.month() - 1) as usize], d.day())
}

/// The frame of a chart: opening tag with its title and description, the
/// value axis (0 and `top`, with a grid line), and date labels under the
/// given x positions.
fn frame(id: &str, title: &str, desc: &str, top: f64, labels: &[(f64, String)]) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"chart\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-labelledby=\"{id}-t {id}-d\" \
         preserveAspectRatio=\"xMidYMid meet\"><title id=\"{id}-t\">{}</title><desc id=\"{id}-d\">{}</desc>",
        esc(title),
        esc(desc)
    );
    let bottom = H - BOTTOM;
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{LEFT}\" y1=\"{bottom}\" x2=\"{}\" y2=\"{bottom}\"/>\
         <line class=\"grid\" x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{}\" y2=\"{TOP}\"/>\
         <text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\
         <text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>",
        W - RIGHT,
        W - RIGHT,
        LEFT - 4.0,
        TOP + 4.0,
        axis_num(top),
        LEFT - 4.0,
        bottom + 4.0,
    );
    for (x, label) in labels {
        let (x, anchor) = if *x > W - RIGHT_LABEL {
            (W - 1.0, "end")
        } else {
            (*x, "middle")
        };
        let _ = write!(
            s,
            "<text class=\"tick\" x=\"{x:.1}\" y=\"{}\" text-anchor=\"{anchor}\">{}</text>",
            H - 10.0,
            esc(label)
        );
    }
    s
}

/// The x of the centre of slot `i` of `n`.
pub(crate) fn slot_x(i: usize, n: usize) -> f64 {
    let width = (W - LEFT - RIGHT) / n as f64;
    LEFT + width * (i as f64 + 0.5)
}

/// The y of `v` on an axis from 0 to `top`.
fn y_of(v: f64, top: f64) -> f64 {
    let bottom = H - BOTTOM;
    bottom - (v / top).clamp(0.0, 1.0) * (bottom - TOP)
}

/// Date labels for weekly slots: every fourth week, and the last.
pub(crate) fn week_labels(weeks: &[Week]) -> Vec<(f64, String)> {
    let n = weeks.len();
    weeks
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 4 == 0 || *i + 1 == n)
        .filter(|(i, _)| *i + 1 == n || n - i > 3)
        .map(|(i, w)| (slot_x(i, n), short_date(&w.start)))
        .collect()
}

/// A series of a bar chart: its name, colour class, and value per week.
pub(crate) struct Bars<'a> {
    pub(crate) name: &'a str,
    pub(crate) class: &'static str,
    pub(crate) values: Vec<u64>,
}

/// Grouped bars per week; partial weeks outlined; release weeks marked on
/// the axis.
pub(crate) fn bar_chart(
    id: &str,
    title: &str,
    desc: &str,
    weeks: &[Week],
    series: &[Bars<'_>],
) -> String {
    let n = weeks.len().max(1);
    let top = nice_max(
        series
            .iter()
            .flat_map(|s| s.values.iter().copied())
            .max()
            .unwrap_or(0) as f64,
    );
    let mut s = frame(id, title, desc, top, &week_labels(weeks));
    let slot = (W - LEFT - RIGHT) / n as f64;
    let bar = (slot * 0.8 / series.len().max(1) as f64).max(1.0);
    let bottom = H - BOTTOM;
    for (i, week) in weeks.iter().enumerate() {
        let x0 = LEFT + slot * i as f64 + slot * 0.1;
        for (k, series) in series.iter().enumerate() {
            let v = series.values.get(i).copied().unwrap_or(0) as f64;
            let y = y_of(v, top);
            let class = if week.partial {
                format!("{} partial", series.class)
            } else {
                series.class.to_string()
            };
            let _ = write!(
                s,
                "<rect class=\"{class}\" x=\"{:.1}\" y=\"{y:.1}\" width=\"{bar:.1}\" height=\"{:.1}\"><title>{}: {} in the week of {}{}</title></rect>",
                x0 + bar * k as f64,
                (bottom - y).max(0.0),
                esc(series.name),
                num(v),
                esc(&week.start),
                if week.partial { " (partial week)" } else { "" }
            );
        }
        if week.releases > 0 {
            let x = slot_x(i, n);
            let _ = write!(
                s,
                "<path class=\"release\" d=\"M{:.1} {:.1} l4 6 l-8 0 z\"><title>{} stable release{} in the week of {}</title></path>",
                x,
                bottom + 1.0,
                week.releases,
                if week.releases == 1 { "" } else { "s" },
                esc(&week.start)
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// A series of a line chart: its name, colour class, and points (x, value;
/// `None` breaks the line).
pub(crate) struct Line<'a> {
    pub name: &'a str,
    pub class: &'static str,
    pub points: Vec<(f64, Option<f64>)>,
}

pub(crate) fn line_chart(
    id: &str,
    title: &str,
    desc: &str,
    labels: &[(f64, String)],
    lines: &[Line<'_>],
) -> String {
    let top = nice_max(
        lines
            .iter()
            .flat_map(|l| l.points.iter().filter_map(|p| p.1))
            .fold(0.0, f64::max),
    );
    let mut s = frame(id, title, desc, top, labels);
    for line in lines {
        let mut d = String::new();
        let mut pen_down = false;
        for (x, v) in &line.points {
            match v {
                Some(v) => {
                    let _ = write!(
                        d,
                        "{}{x:.1} {:.1} ",
                        if pen_down { "L" } else { "M" },
                        y_of(*v, top)
                    );
                    pen_down = true;
                }
                None => pen_down = false,
            }
        }
        if !d.is_empty() {
            let _ = write!(
                s,
                "<path class=\"line {}\" d=\"{}\"><title>{}</title></path>",
                line.class,
                d.trim_end(),
                esc(line.name)
            );
        }
        // A lone point would be invisible as a path: mark every point.
        for (x, v) in &line.points {
            if let Some(v) = v {
                let _ = write!(
                    s,
                    "<circle class=\"dot {}\" cx=\"{x:.1}\" cy=\"{:.1}\" r=\"2.5\"/>",
                    line.class,
                    y_of(*v, top)
                );
            }
        }
    }
    s.push_str("</svg>");
    s
}

pub(crate) fn week_table(
    weeks: &[Week],
    headers: &[&str],
    cells: impl Fn(&Week) -> Vec<String>,
) -> Table {
    Table {
        headers: std::iter::once("Week of")
            .chain(headers.iter().copied())
            .map(String::from)
            .collect(),
        rows: weeks
            .iter()
            .map(|w| {
                let start = if w.partial {
                    format!("{} (partial)", w.start)
                } else {
                    w.start.clone()
                };
                std::iter::once(start).chain(cells(w)).collect()
            })
            .collect(),
    }
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "unknown".to_string(), |v| v.to_string())
}

fn partial_note(trends: &Trends) -> Option<String> {
    trends.weeks.iter().any(|w| w.partial).then(|| {
        format!(
            "Outlined bars are partial weeks: they start before {}, when this store began watching the repository, so items closed in them earlier may be missing.",
            trends.coverage_start.get(..10).unwrap_or(&trends.coverage_start)
        )
    })
}

/// The charts of a repository's page, in page order: the weekly flow of
/// issues and of pull requests, the backlog, the time to close, then
/// stars and forks.
pub(crate) fn repo_charts(trends: &Trends) -> Vec<Chart> {
    let weekly = Weekly::of(trends);
    vec![
        issues_chart(&weekly),
        pulls_chart(&weekly),
        backlog_chart(&weekly),
        close_chart(&weekly),
        growth_chart(trends),
    ]
}

/// What the weekly charts of a repository share: its weeks, and the words
/// their descriptions and notes repeat.
struct Weekly<'a> {
    weeks: &'a [Week],
    /// `the 26 weeks from 2026-05-25`.
    span: String,
    /// Said after a bar chart's description when a week had a release.
    release_note: &'static str,
    /// Said under a bar chart when a week is partial.
    partial: Option<String>,
}

impl Weekly<'_> {
    fn of(trends: &Trends) -> Weekly<'_> {
        let weeks = &trends.weeks[..];
        let first = weeks.first().map(|w| w.start.as_str()).unwrap_or("");
        let releases: u64 = weeks.iter().map(|w| w.releases).sum();
        Weekly {
            weeks,
            span: format!("the {} weeks from {first}", weeks.len()),
            release_note: if releases > 0 {
                " Triangles under the axis mark weeks with a stable release."
            } else {
                ""
            },
            partial: partial_note(trends),
        }
    }

    /// The sum of `f` over the weeks.
    fn sum(&self, f: fn(&Week) -> u64) -> u64 {
        self.weeks.iter().map(f).sum()
    }

    /// `f` of each week at the centre of its slot; `None` where unknown.
    fn points(&self, f: impl Fn(&Week) -> Option<f64>) -> Vec<(f64, Option<f64>)> {
        let n = self.weeks.len();
        self.weeks
            .iter()
            .enumerate()
            .map(|(i, w)| (slot_x(i, n), f(w)))
            .collect()
    }
}

/// Issues opened against issues closed, per week (bars).
fn issues_chart(weekly: &Weekly<'_>) -> Chart {
    let weeks = weekly.weeks;
    let desc = format!(
        "Bars per week over {}: issues opened ({} in all) against issues closed ({} in all).{}",
        weekly.span,
        weekly.sum(|w| w.issues_opened),
        weekly.sum(|w| w.issues_closed),
        weekly.release_note
    );
    Chart {
        id: "chart-issues".into(),
        title: "Issues opened and closed per week".into(),
        desc: desc.clone(),
        note: weekly.partial.clone(),
        svg: bar_chart(
            "chart-issues",
            "Issues opened and closed per week",
            &desc,
            weeks,
            &[
                Bars {
                    name: "Opened",
                    class: "s1",
                    values: weeks.iter().map(|w| w.issues_opened).collect(),
                },
                Bars {
                    name: "Closed",
                    class: "s2",
                    values: weeks.iter().map(|w| w.issues_closed).collect(),
                },
            ],
        ),
        table: week_table(weeks, &["Opened", "Closed", "Stable releases"], |w| {
            vec![
                w.issues_opened.to_string(),
                w.issues_closed.to_string(),
                w.releases.to_string(),
            ]
        }),
        legend: vec![("Opened".into(), "s1"), ("Closed".into(), "s2")],
    }
}

/// Pull requests opened, merged and closed without a merge, per week
/// (bars).
fn pulls_chart(weekly: &Weekly<'_>) -> Chart {
    let weeks = weekly.weeks;
    let desc = format!(
        "Bars per week over {}: pull requests opened ({}), merged ({}) and closed without a merge ({}).{}",
        weekly.span,
        weekly.sum(|w| w.pulls_opened),
        weekly.sum(|w| w.pulls_merged),
        weekly.sum(|w| w.pulls_closed_unmerged),
        weekly.release_note
    );
    Chart {
        id: "chart-pulls".into(),
        title: "Pull requests opened, merged and closed per week".into(),
        desc: desc.clone(),
        note: weekly.partial.clone(),
        svg: bar_chart(
            "chart-pulls",
            "Pull requests opened, merged and closed per week",
            &desc,
            weeks,
            &[
                Bars {
                    name: "Opened",
                    class: "s1",
                    values: weeks.iter().map(|w| w.pulls_opened).collect(),
                },
                Bars {
                    name: "Merged",
                    class: "s3",
                    values: weeks.iter().map(|w| w.pulls_merged).collect(),
                },
                Bars {
                    name: "Closed unmerged",
                    class: "s2",
                    values: weeks.iter().map(|w| w.pulls_closed_unmerged).collect(),
                },
            ],
        ),
        table: week_table(weeks, &["Opened", "Merged", "Closed unmerged"], |w| {
            vec![
                w.pulls_opened.to_string(),
                w.pulls_merged.to_string(),
                w.pulls_closed_unmerged.to_string(),
            ]
        }),
        legend: vec![
            ("Opened".into(), "s1"),
            ("Merged".into(), "s3"),
            ("Closed unmerged".into(), "s2"),
        ],
    }
}

/// Open issues and open pull requests at the end of each week (lines).
fn backlog_chart(weekly: &Weekly<'_>) -> Chart {
    let weeks = weekly.weeks;
    let at = |f: fn(&Week) -> Option<u64>| weekly.points(|w| f(w).map(|v| v as f64));
    let last_known = |f: fn(&Week) -> Option<u64>| weeks.iter().rev().find_map(f);
    let first_known = |f: fn(&Week) -> Option<u64>| weeks.iter().find_map(f);
    let desc = format!(
        "Lines over {}: open issues went from {} to {}, open pull requests from {} to {}. Weeks that ended before the store began watching have no value.",
        weekly.span,
        opt(first_known(|w| w.open_issues_at_end)),
        opt(last_known(|w| w.open_issues_at_end)),
        opt(first_known(|w| w.open_pulls_at_end)),
        opt(last_known(|w| w.open_pulls_at_end)),
    );
    Chart {
        id: "chart-backlog".into(),
        title: "Open backlog at the end of each week".into(),
        desc: desc.clone(),
        note: None,
        svg: line_chart(
            "chart-backlog",
            "Open backlog at the end of each week",
            &desc,
            &week_labels(weeks),
            &[
                Line {
                    name: "Open issues",
                    class: "s1",
                    points: at(|w| w.open_issues_at_end),
                },
                Line {
                    name: "Open pull requests",
                    class: "s3",
                    points: at(|w| w.open_pulls_at_end),
                },
            ],
        ),
        table: week_table(weeks, &["Open issues", "Open pull requests"], |w| {
            vec![opt(w.open_issues_at_end), opt(w.open_pulls_at_end)]
        }),
        legend: vec![
            ("Open issues".into(), "s1"),
            ("Open pull requests".into(), "s3"),
        ],
    }
}

/// The median hours to close an issue, per week (a line).
fn close_chart(weekly: &Weekly<'_>) -> Chart {
    let weeks = weekly.weeks;
    let closes: Vec<f64> = weeks
        .iter()
        .filter_map(|w| w.median_hours_to_close)
        .collect();
    let desc = if closes.is_empty() {
        format!("No issue was closed in {}.", weekly.span)
    } else {
        format!(
            "Points per week over {}: the median hours from an issue's creation to its close, for the issues closed that week; the latest is {}.",
            weekly.span,
            hours_text(*closes.last().unwrap_or(&0.0))
        )
    };
    Chart {
        id: "chart-close".into(),
        title: "Median time to close an issue, in hours".into(),
        desc: desc.clone(),
        note: None,
        svg: line_chart(
            "chart-close",
            "Median time to close an issue, in hours",
            &desc,
            &week_labels(weeks),
            &[Line {
                name: "Median hours to close",
                class: "s2",
                points: weekly.points(|w| w.median_hours_to_close),
            }],
        ),
        table: week_table(weeks, &["Issues closed", "Median hours to close"], |w| {
            vec![
                w.issues_closed.to_string(),
                w.median_hours_to_close
                    .map_or_else(|| "none closed".to_string(), num),
            ]
        }),
        legend: vec![("Median hours".into(), "s2")],
    }
}

/// Stars and forks over the weeks' span, one point per day.
fn growth_chart(trends: &Trends) -> Chart {
    let weeks = &trends.weeks;
    let start: Option<Timestamp> = weeks
        .first()
        .and_then(|w| format!("{}T00:00:00Z", w.start).parse().ok());
    let end: Option<Timestamp> = trends.instant.parse().ok();
    let x_of = |at: &str| -> f64 {
        match (start, end, at.parse::<Timestamp>().ok()) {
            (Some(s), Some(e), Some(t)) if e > s => {
                let f = t.duration_since(s).as_secs_f64() / e.duration_since(s).as_secs_f64();
                LEFT + (W - LEFT - RIGHT) * f.clamp(0.0, 1.0)
            }
            _ => W - RIGHT,
        }
    };
    let points = &trends.context;
    let series = |f: fn(&signals_core::trends::ContextPoint) -> u64| -> Vec<(f64, Option<f64>)> {
        points
            .iter()
            .map(|p| (x_of(&p.at), Some(f(p) as f64)))
            .collect()
    };
    let (first, last) = (points.first(), points.last());
    let desc = match (first, last) {
        (Some(a), Some(b)) => format!(
            "Lines over {} days with a run: stars went from {} to {}, forks from {} to {}.",
            points.len(),
            a.stars,
            b.stars,
            a.forks,
            b.forks
        ),
        _ => "No run in the weeks shown.".to_string(),
    };
    Chart {
        id: "chart-growth".into(),
        title: "Stars and forks".into(),
        desc: desc.clone(),
        note: None,
        svg: line_chart(
            "chart-growth",
            "Stars and forks",
            &desc,
            &week_labels(weeks),
            &[
                Line {
                    name: "Stars",
                    class: "s1",
                    points: series(|p| p.stars),
                },
                Line {
                    name: "Forks",
                    class: "s2",
                    points: series(|p| p.forks),
                },
            ],
        ),
        table: Table {
            headers: vec![
                "Day".into(),
                "Stars".into(),
                "Forks".into(),
                "Open issues (host)".into(),
            ],
            rows: points
                .iter()
                .map(|p| {
                    vec![
                        p.at.get(..10).unwrap_or(&p.at).to_string(),
                        p.stars.to_string(),
                        p.forks.to_string(),
                        p.open_issues.to_string(),
                    ]
                })
                .collect(),
        },
        legend: vec![("Stars".into(), "s1"), ("Forks".into(), "s2")],
    }
}

/// How a sparkline draws its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spark {
    /// A bar per value: counts per week.
    Bars,
    /// A line through the values: levels.
    Line,
}

/// A small chart without axes (a sparkline), on a given scale so that a
/// group's repositories compare.
pub(crate) fn sparkline(label: &str, values: &[Option<f64>], top: f64, shape: Spark) -> String {
    const SW: f64 = 120.0;
    const SH: f64 = 28.0;
    let n = values.len().max(1);
    let top = if top > 0.0 { top } else { 1.0 };
    let y = |v: f64| SH - 1.0 - (v / top).clamp(0.0, 1.0) * (SH - 2.0);
    let mut s = format!(
        "<svg class=\"spark\" viewBox=\"0 0 {SW} {SH}\" role=\"img\" aria-label=\"{}\"><title>{}</title><desc>A small chart without axes; its numbers are in its title.</desc>",
        esc(label),
        esc(label)
    );
    let slot = SW / n as f64;
    if shape == Spark::Bars {
        for (i, v) in values.iter().enumerate() {
            if let Some(v) = v {
                let top_y = y(*v);
                let _ = write!(
                    s,
                    "<rect class=\"s1\" x=\"{:.1}\" y=\"{top_y:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>",
                    slot * i as f64 + slot * 0.15,
                    slot * 0.7,
                    (SH - 1.0 - top_y).max(0.5)
                );
            }
        }
    } else {
        let mut d = String::new();
        let mut pen = false;
        for (i, v) in values.iter().enumerate() {
            match v {
                Some(v) => {
                    let _ = write!(
                        d,
                        "{}{:.1} {:.1} ",
                        if pen { "L" } else { "M" },
                        slot * (i as f64 + 0.5),
                        y(*v)
                    );
                    pen = true;
                }
                None => pen = false,
            }
        }
        let _ = write!(s, "<path class=\"line s1\" d=\"{}\"/>", d.trim_end());
        // A value with no neighbour would draw nothing: mark it.
        for (i, v) in values.iter().enumerate() {
            let alone =
                |j: Option<usize>| j.and_then(|j| values.get(j)).is_none_or(Option::is_none);
            if let Some(v) = v
                && alone(i.checked_sub(1))
                && alone(Some(i + 1))
            {
                let _ = write!(
                    s,
                    "<circle class=\"dot s1\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"2\"/>",
                    slot * (i as f64 + 0.5),
                    y(*v)
                );
            }
        }
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests;
